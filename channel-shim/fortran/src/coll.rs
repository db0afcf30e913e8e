//! Collectives: barrier, bcast, reduce, allreduce, gather, scatter,
//! allgather, alltoall. `MPI_IN_PLACE` arrives by address (see
//! [`crate::sentinel`]).

use crate::sentinel::buffer;
use crate::{c, set_ierror, Fint};
use std::os::raw::c_void;

fortran_fn! {
    /// `MPI_BARRIER(COMM, IERROR)`.
    fn mpi_barrier_(comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Barrier(*comm));
    }
}

fortran_fn! {
    /// `MPI_BCAST(BUFFER, COUNT, DATATYPE, ROOT, COMM, IERROR)`.
    fn mpi_bcast_(buf: *mut c_void, count: *const Fint, datatype: *const Fint, root: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Bcast(buffer(buf), *count, *datatype, *root, *comm));
    }
}

fortran_fn! {
    /// `MPI_REDUCE(SENDBUF, RECVBUF, COUNT, DATATYPE, OP, ROOT, COMM, IERROR)`.
    fn mpi_reduce_(sendbuf: *const c_void, recvbuf: *mut c_void, count: *const Fint, datatype: *const Fint, op: *const Fint, root: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Reduce(buffer(sendbuf), buffer(recvbuf), *count, *datatype, *op, *root, *comm));
    }
}

fortran_fn! {
    /// `MPI_ALLREDUCE(SENDBUF, RECVBUF, COUNT, DATATYPE, OP, COMM, IERROR)`.
    fn mpi_allreduce_(sendbuf: *const c_void, recvbuf: *mut c_void, count: *const Fint, datatype: *const Fint, op: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Allreduce(buffer(sendbuf), buffer(recvbuf), *count, *datatype, *op, *comm));
    }
}

fortran_fn! {
    /// `MPI_GATHER(SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT,
    /// RECVTYPE, ROOT, COMM, IERROR)`.
    fn mpi_gather_(sendbuf: *const c_void, sendcount: *const Fint, sendtype: *const Fint, recvbuf: *mut c_void, recvcount: *const Fint, recvtype: *const Fint, root: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Gather(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *root, *comm));
    }
}

fortran_fn! {
    /// `MPI_SCATTER(SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT,
    /// RECVTYPE, ROOT, COMM, IERROR)`.
    fn mpi_scatter_(sendbuf: *const c_void, sendcount: *const Fint, sendtype: *const Fint, recvbuf: *mut c_void, recvcount: *const Fint, recvtype: *const Fint, root: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Scatter(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *root, *comm));
    }
}

fortran_fn! {
    /// `MPI_ALLGATHER(SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT,
    /// RECVTYPE, COMM, IERROR)`.
    fn mpi_allgather_(sendbuf: *const c_void, sendcount: *const Fint, sendtype: *const Fint, recvbuf: *mut c_void, recvcount: *const Fint, recvtype: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Allgather(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *comm));
    }
}

fortran_fn! {
    /// `MPI_ALLTOALL(SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT,
    /// RECVTYPE, COMM, IERROR)`.
    fn mpi_alltoall_(sendbuf: *const c_void, sendcount: *const Fint, sendtype: *const Fint, recvbuf: *mut c_void, recvcount: *const Fint, recvtype: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Alltoall(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *comm));
    }
}
