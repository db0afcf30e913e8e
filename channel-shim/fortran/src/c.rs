//! The shim's C functions (MPICH ABI) the Fortran bindings call. Handles
//! are `int`s; resolved from `libmpich.so.12` when the library is loaded.

use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    /// The shim's way of ending the job for an unsupported routine.
    pub fn mpinetsim_unsupported(name: *const c_char) -> !;
    /// The shim's `MPI_Init`.
    pub fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int;
    /// The shim's `MPI_Init_thread`.
    pub fn MPI_Init_thread(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        required: c_int,
        provided: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Finalize`.
    pub fn MPI_Finalize() -> c_int;
    /// The shim's `MPI_Initialized`.
    pub fn MPI_Initialized(flag: *mut c_int) -> c_int;
    /// The shim's `MPI_Abort`.
    pub fn MPI_Abort(comm: c_int, errorcode: c_int) -> c_int;
    /// The shim's `MPI_Wtime`.
    pub fn MPI_Wtime() -> f64;
    /// The shim's `MPI_Wtick`.
    pub fn MPI_Wtick() -> f64;
    /// The shim's `MPI_Get_processor_name`.
    pub fn MPI_Get_processor_name(name: *mut c_char, resultlen: *mut c_int) -> c_int;

    /// The shim's `MPI_Comm_rank`.
    pub fn MPI_Comm_rank(comm: c_int, rank: *mut c_int) -> c_int;
    /// The shim's `MPI_Comm_size`.
    pub fn MPI_Comm_size(comm: c_int, size: *mut c_int) -> c_int;
    /// The shim's `MPI_Comm_dup`.
    pub fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) -> c_int;
    /// The shim's `MPI_Comm_split`.
    pub fn MPI_Comm_split(comm: c_int, color: c_int, key: c_int, newcomm: *mut c_int) -> c_int;
    /// The shim's `MPI_Comm_free`.
    pub fn MPI_Comm_free(comm: *mut c_int) -> c_int;

    /// The shim's `MPI_Send`.
    pub fn MPI_Send(
        buf: *const c_void,
        count: c_int,
        datatype: c_int,
        dest: c_int,
        tag: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Recv`.
    pub fn MPI_Recv(
        buf: *mut c_void,
        count: c_int,
        datatype: c_int,
        source: c_int,
        tag: c_int,
        comm: c_int,
        status: *mut c_void,
    ) -> c_int;
    /// The shim's `MPI_Isend`.
    pub fn MPI_Isend(
        buf: *const c_void,
        count: c_int,
        datatype: c_int,
        dest: c_int,
        tag: c_int,
        comm: c_int,
        request: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Irecv`.
    pub fn MPI_Irecv(
        buf: *mut c_void,
        count: c_int,
        datatype: c_int,
        source: c_int,
        tag: c_int,
        comm: c_int,
        request: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Wait`.
    pub fn MPI_Wait(request: *mut c_int, status: *mut c_void) -> c_int;
    /// The shim's `MPI_Waitall`.
    pub fn MPI_Waitall(count: c_int, requests: *mut c_int, statuses: *mut c_void) -> c_int;
    /// The shim's `MPI_Sendrecv`.
    pub fn MPI_Sendrecv(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: c_int,
        dest: c_int,
        sendtag: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: c_int,
        source: c_int,
        recvtag: c_int,
        comm: c_int,
        status: *mut c_void,
    ) -> c_int;
    /// The shim's `MPI_Probe`.
    pub fn MPI_Probe(source: c_int, tag: c_int, comm: c_int, status: *mut c_void) -> c_int;
    /// The shim's `MPI_Get_count`.
    pub fn MPI_Get_count(status: *const c_void, datatype: c_int, count: *mut c_int) -> c_int;

    /// The shim's `MPI_Barrier`.
    pub fn MPI_Barrier(comm: c_int) -> c_int;
    /// The shim's `MPI_Bcast`.
    pub fn MPI_Bcast(
        buf: *mut c_void,
        count: c_int,
        datatype: c_int,
        root: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Reduce`.
    pub fn MPI_Reduce(
        sendbuf: *const c_void,
        recvbuf: *mut c_void,
        count: c_int,
        datatype: c_int,
        op: c_int,
        root: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Allreduce`.
    pub fn MPI_Allreduce(
        sendbuf: *const c_void,
        recvbuf: *mut c_void,
        count: c_int,
        datatype: c_int,
        op: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Gather`.
    pub fn MPI_Gather(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: c_int,
        root: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Scatter`.
    pub fn MPI_Scatter(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: c_int,
        root: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Allgather`.
    pub fn MPI_Allgather(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: c_int,
        comm: c_int,
    ) -> c_int;
    /// The shim's `MPI_Alltoall`.
    pub fn MPI_Alltoall(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: c_int,
        comm: c_int,
    ) -> c_int;

    /// The shim's `MPI_Type_contiguous`.
    pub fn MPI_Type_contiguous(count: c_int, oldtype: c_int, newtype: *mut c_int) -> c_int;
    /// The shim's `MPI_Type_vector`.
    pub fn MPI_Type_vector(
        count: c_int,
        blocklength: c_int,
        stride: c_int,
        oldtype: c_int,
        newtype: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Type_commit`.
    pub fn MPI_Type_commit(datatype: *mut c_int) -> c_int;
    /// The shim's `MPI_Type_free`.
    pub fn MPI_Type_free(datatype: *mut c_int) -> c_int;
}
