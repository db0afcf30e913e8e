//! Collectives, blocking and nonblocking, and local reductions. `MPI_IN_PLACE` and `MPI_BOTTOM` arrive
//! by address (see [`crate::sentinel`]); counts and displacements arrays are
//! `INTEGER` arrays, as in C.

fortran_wrappers! {
    fn mpi_barrier_ = MPI_Barrier(comm: In);
    fn mpi_bcast_ = MPI_Bcast(buffer: Buf, count: In, datatype: In, root: In, comm: In);
    fn mpi_reduce_ = MPI_Reduce(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, root: In, comm: In);
    fn mpi_allreduce_ = MPI_Allreduce(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In);
    fn mpi_scan_ = MPI_Scan(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In);
    fn mpi_exscan_ = MPI_Exscan(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In);
    fn mpi_reduce_scatter_ = MPI_Reduce_scatter(sendbuf: Buf, recvbuf: Buf, recvcounts: IntRef, datatype: In, op: In, comm: In);
    fn mpi_reduce_scatter_block_ = MPI_Reduce_scatter_block(sendbuf: Buf, recvbuf: Buf, recvcount: In, datatype: In, op: In, comm: In);
    fn mpi_reduce_local_ = MPI_Reduce_local(inbuf: Buf, inoutbuf: Buf, count: In, datatype: In, op: In);
    fn mpi_gather_ = MPI_Gather(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In,
    );
    fn mpi_gatherv_ = MPI_Gatherv(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, root: In, comm: In,
    );
    fn mpi_scatter_ = MPI_Scatter(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In,
    );
    fn mpi_scatterv_ = MPI_Scatterv(
        sendbuf: Buf, sendcounts: IntRef, displs: IntRef, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In,
    );
    fn mpi_allgather_ = MPI_Allgather(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, comm: In,
    );
    fn mpi_allgatherv_ = MPI_Allgatherv(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, comm: In,
    );
    fn mpi_alltoall_ = MPI_Alltoall(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, comm: In,
    );
    fn mpi_alltoallv_ = MPI_Alltoallv(
        sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtype: In,
        recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtype: In, comm: In,
    );
    fn mpi_alltoallw_ = MPI_Alltoallw(
        sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtypes: IntRef,
        recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtypes: IntRef, comm: In,
    );
    fn mpi_ibarrier_ = MPI_Ibarrier(comm: In, request: IntRef);
    fn mpi_ibcast_ = MPI_Ibcast(buffer: Buf, count: In, datatype: In, root: In, comm: In, request: IntRef);
    fn mpi_ireduce_ = MPI_Ireduce(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, root: In, comm: In, request: IntRef);
    fn mpi_iallreduce_ = MPI_Iallreduce(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In, request: IntRef);
    fn mpi_iscan_ = MPI_Iscan(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In, request: IntRef);
    fn mpi_iexscan_ = MPI_Iexscan(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In, request: IntRef);
    fn mpi_ireduce_scatter_ = MPI_Ireduce_scatter(sendbuf: Buf, recvbuf: Buf, recvcounts: IntRef, datatype: In, op: In, comm: In, request: IntRef);
    fn mpi_ireduce_scatter_block_ = MPI_Ireduce_scatter_block(sendbuf: Buf, recvbuf: Buf, recvcount: In, datatype: In, op: In, comm: In, request: IntRef);
    fn mpi_igather_ = MPI_Igather(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In, request: IntRef,
    );
    fn mpi_igatherv_ = MPI_Igatherv(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, root: In, comm: In, request: IntRef,
    );
    fn mpi_iscatter_ = MPI_Iscatter(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In, request: IntRef,
    );
    fn mpi_iscatterv_ = MPI_Iscatterv(
        sendbuf: Buf, sendcounts: IntRef, displs: IntRef, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In, request: IntRef,
    );
    fn mpi_iallgather_ = MPI_Iallgather(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, comm: In, request: IntRef,
    );
    fn mpi_iallgatherv_ = MPI_Iallgatherv(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, comm: In, request: IntRef,
    );
    fn mpi_ialltoall_ = MPI_Ialltoall(
        sendbuf: Buf, sendcount: In, sendtype: In,
        recvbuf: Buf, recvcount: In, recvtype: In, comm: In, request: IntRef,
    );
    fn mpi_ialltoallv_ = MPI_Ialltoallv(
        sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtype: In,
        recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtype: In, comm: In, request: IntRef,
    );
    fn mpi_ialltoallw_ = MPI_Ialltoallw(
        sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtypes: IntRef,
        recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtypes: IntRef, comm: In, request: IntRef,
    );
    fn mpi_op_create_ = MPI_Op_create(user_fn: Procedure, commute: Logical, op: IntRef);
    fn mpi_op_free_ = MPI_Op_free(op: IntRef);
    fn mpi_op_commutative_ = MPI_Op_commutative(op: In, commute: IntRef);
}

fortran_wrappers! {
    fn mpi_neighbor_allgather_ = MPI_Neighbor_allgather(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In);
    fn mpi_neighbor_allgatherv_ = MPI_Neighbor_allgatherv(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, comm: In);
    fn mpi_neighbor_alltoall_ = MPI_Neighbor_alltoall(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In);
    fn mpi_neighbor_alltoallv_ = MPI_Neighbor_alltoallv(sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtype: In, recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtype: In, comm: In);
    fn mpi_neighbor_alltoallw_ = MPI_Neighbor_alltoallw(sendbuf: Buf, sendcounts: IntRef, sdispls: AintRef, sendtypes: IntRef, recvbuf: Buf, recvcounts: IntRef, rdispls: AintRef, recvtypes: IntRef, comm: In);
}

fortran_wrappers! {
    fn mpi_ineighbor_allgather_ = MPI_Ineighbor_allgather(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In, request: IntRef);
    fn mpi_ineighbor_allgatherv_ = MPI_Ineighbor_allgatherv(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, comm: In, request: IntRef);
    fn mpi_ineighbor_alltoall_ = MPI_Ineighbor_alltoall(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In, request: IntRef);
    fn mpi_ineighbor_alltoallv_ = MPI_Ineighbor_alltoallv(sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtype: In, recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtype: In, comm: In, request: IntRef);
    fn mpi_ineighbor_alltoallw_ = MPI_Ineighbor_alltoallw(sendbuf: Buf, sendcounts: IntRef, sdispls: AintRef, sendtypes: IntRef, recvbuf: Buf, recvcounts: IntRef, rdispls: AintRef, recvtypes: IntRef, comm: In, request: IntRef);
}

// MPI 4.0's persistent collectives.
fortran_wrappers! {
    fn mpi_barrier_init_ = MPI_Barrier_init(comm: In, info: In, request: IntRef);
    fn mpi_bcast_init_ = MPI_Bcast_init(buffer: Buf, count: In, datatype: In, root: In, comm: In, info: In, request: IntRef);
    fn mpi_reduce_init_ = MPI_Reduce_init(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, root: In, comm: In, info: In, request: IntRef);
    fn mpi_allreduce_init_ = MPI_Allreduce_init(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In, info: In, request: IntRef);
    fn mpi_scan_init_ = MPI_Scan_init(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In, info: In, request: IntRef);
    fn mpi_exscan_init_ = MPI_Exscan_init(sendbuf: Buf, recvbuf: Buf, count: In, datatype: In, op: In, comm: In, info: In, request: IntRef);
    fn mpi_reduce_scatter_init_ = MPI_Reduce_scatter_init(sendbuf: Buf, recvbuf: Buf, recvcounts: IntRef, datatype: In, op: In, comm: In, info: In, request: IntRef);
    fn mpi_reduce_scatter_block_init_ = MPI_Reduce_scatter_block_init(sendbuf: Buf, recvbuf: Buf, recvcount: In, datatype: In, op: In, comm: In, info: In, request: IntRef);
    fn mpi_gather_init_ = MPI_Gather_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In, info: In, request: IntRef);
    fn mpi_gatherv_init_ = MPI_Gatherv_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, root: In, comm: In, info: In, request: IntRef);
    fn mpi_scatter_init_ = MPI_Scatter_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In, info: In, request: IntRef);
    fn mpi_scatterv_init_ = MPI_Scatterv_init(sendbuf: Buf, sendcounts: IntRef, displs: IntRef, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, root: In, comm: In, info: In, request: IntRef);
    fn mpi_allgather_init_ = MPI_Allgather_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_allgatherv_init_ = MPI_Allgatherv_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_alltoall_init_ = MPI_Alltoall_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_alltoallv_init_ = MPI_Alltoallv_init(sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtype: In, recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_alltoallw_init_ = MPI_Alltoallw_init(sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtypes: IntRef, recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtypes: IntRef, comm: In, info: In, request: IntRef);
    fn mpi_neighbor_allgather_init_ = MPI_Neighbor_allgather_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_neighbor_allgatherv_init_ = MPI_Neighbor_allgatherv_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcounts: IntRef, displs: IntRef, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_neighbor_alltoall_init_ = MPI_Neighbor_alltoall_init(sendbuf: Buf, sendcount: In, sendtype: In, recvbuf: Buf, recvcount: In, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_neighbor_alltoallv_init_ = MPI_Neighbor_alltoallv_init(sendbuf: Buf, sendcounts: IntRef, sdispls: IntRef, sendtype: In, recvbuf: Buf, recvcounts: IntRef, rdispls: IntRef, recvtype: In, comm: In, info: In, request: IntRef);
    fn mpi_neighbor_alltoallw_init_ = MPI_Neighbor_alltoallw_init(sendbuf: Buf, sendcounts: IntRef, sdispls: AintRef, sendtypes: IntRef, recvbuf: Buf, recvcounts: IntRef, rdispls: AintRef, recvtypes: IntRef, comm: In, info: In, request: IntRef);
}
