//! Point-to-point: blocking and nonblocking sends and receives, waits,
//! sendrecv, probe and counts. Status arguments are
//! `INTEGER STATUS(MPI_STATUS_SIZE)` arrays with the C `MPI_Status` layout.

use crate::sentinel::{buffer, status, statuses};
use crate::{c, set_ierror, Fint};
use std::os::raw::c_void;

fortran_fn! {
    /// `MPI_SEND(BUF, COUNT, DATATYPE, DEST, TAG, COMM, IERROR)`.
    fn mpi_send_(buf: *const c_void, count: *const Fint, datatype: *const Fint, dest: *const Fint, tag: *const Fint, comm: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Send(buffer(buf), *count, *datatype, *dest, *tag, *comm));
    }
}

fortran_fn! {
    /// `MPI_RECV(BUF, COUNT, DATATYPE, SOURCE, TAG, COMM, STATUS, IERROR)`.
    fn mpi_recv_(buf: *mut c_void, count: *const Fint, datatype: *const Fint, source: *const Fint, tag: *const Fint, comm: *const Fint, st: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Recv(buffer(buf), *count, *datatype, *source, *tag, *comm, status(st)));
    }
}

fortran_fn! {
    /// `MPI_ISEND(BUF, COUNT, DATATYPE, DEST, TAG, COMM, REQUEST, IERROR)`.
    fn mpi_isend_(buf: *const c_void, count: *const Fint, datatype: *const Fint, dest: *const Fint, tag: *const Fint, comm: *const Fint, request: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Isend(buffer(buf), *count, *datatype, *dest, *tag, *comm, request));
    }
}

fortran_fn! {
    /// `MPI_IRECV(BUF, COUNT, DATATYPE, SOURCE, TAG, COMM, REQUEST, IERROR)`.
    fn mpi_irecv_(buf: *mut c_void, count: *const Fint, datatype: *const Fint, source: *const Fint, tag: *const Fint, comm: *const Fint, request: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Irecv(buffer(buf), *count, *datatype, *source, *tag, *comm, request));
    }
}

fortran_fn! {
    /// `MPI_WAIT(REQUEST, STATUS, IERROR)`.
    fn mpi_wait_(request: *mut Fint, st: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Wait(request, status(st)));
    }
}

fortran_fn! {
    /// `MPI_WAITALL(COUNT, ARRAY_OF_REQUESTS, ARRAY_OF_STATUSES, IERROR)`.
    fn mpi_waitall_(count: *const Fint, requests: *mut Fint, sts: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Waitall(*count, requests, statuses(sts)));
    }
}

fortran_fn! {
    /// `MPI_SENDRECV(SENDBUF, SENDCOUNT, SENDTYPE, DEST, SENDTAG, RECVBUF,
    /// RECVCOUNT, RECVTYPE, SOURCE, RECVTAG, COMM, STATUS, IERROR)`.
    fn mpi_sendrecv_(
        sendbuf: *const c_void, sendcount: *const Fint, sendtype: *const Fint, dest: *const Fint, sendtag: *const Fint,
        recvbuf: *mut c_void, recvcount: *const Fint, recvtype: *const Fint, source: *const Fint, recvtag: *const Fint,
        comm: *const Fint, st: *mut Fint, ierror: *mut Fint,
    ) {
        let r = c::MPI_Sendrecv(
            buffer(sendbuf), *sendcount, *sendtype, *dest, *sendtag,
            buffer(recvbuf), *recvcount, *recvtype, *source, *recvtag,
            *comm, status(st),
        );
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_PROBE(SOURCE, TAG, COMM, STATUS, IERROR)`.
    fn mpi_probe_(source: *const Fint, tag: *const Fint, comm: *const Fint, st: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Probe(*source, *tag, *comm, status(st)));
    }
}

fortran_fn! {
    /// `MPI_GET_COUNT(STATUS, DATATYPE, COUNT, IERROR)`.
    fn mpi_get_count_(st: *const Fint, datatype: *const Fint, count: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Get_count(st as *const c_void, *datatype, count));
    }
}
