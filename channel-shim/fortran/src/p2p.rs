//! Point-to-point: the send modes, receives, persistent and nonblocking
//! requests, completion, probes, counts and the attached buffer. Status
//! arguments are `INTEGER STATUS(MPI_STATUS_SIZE)` arrays with the C
//! `MPI_Status` layout; request indices are 1-based in Fortran.

use crate::args::{Arg, Statuses};
use crate::{c, set_ierror, write_out, Fint};
use std::os::raw::{c_int, c_void};

fortran_wrappers! {
    fn mpi_send_ = MPI_Send(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In);
    fn mpi_bsend_ = MPI_Bsend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In);
    fn mpi_ssend_ = MPI_Ssend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In);
    fn mpi_rsend_ = MPI_Rsend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In);
    fn mpi_recv_ = MPI_Recv(buf: Buf, count: In, datatype: In, source: In, tag: In, comm: In, status: Status);
    fn mpi_isend_ = MPI_Isend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_ibsend_ = MPI_Ibsend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_issend_ = MPI_Issend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_irsend_ = MPI_Irsend(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_irecv_ = MPI_Irecv(buf: Buf, count: In, datatype: In, source: In, tag: In, comm: In, request: IntRef);
    fn mpi_send_init_ = MPI_Send_init(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_bsend_init_ = MPI_Bsend_init(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_ssend_init_ = MPI_Ssend_init(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_rsend_init_ = MPI_Rsend_init(buf: Buf, count: In, datatype: In, dest: In, tag: In, comm: In, request: IntRef);
    fn mpi_recv_init_ = MPI_Recv_init(buf: Buf, count: In, datatype: In, source: In, tag: In, comm: In, request: IntRef);
    fn mpi_sendrecv_ = MPI_Sendrecv(
        sendbuf: Buf, sendcount: In, sendtype: In, dest: In, sendtag: In,
        recvbuf: Buf, recvcount: In, recvtype: In, source: In, recvtag: In,
        comm: In, status: Status,
    );
    fn mpi_sendrecv_replace_ = MPI_Sendrecv_replace(
        buf: Buf, count: In, datatype: In, dest: In, sendtag: In, source: In, recvtag: In,
        comm: In, status: Status,
    );
    fn mpi_psend_init_ = MPI_Psend_init(buf: Buf, partitions: In, count: IntAsCount, datatype: In, dest: In, tag: In, comm: In, info: In, request: IntRef);
    fn mpi_precv_init_ = MPI_Precv_init(buf: Buf, partitions: In, count: IntAsCount, datatype: In, source: In, tag: In, comm: In, info: In, request: IntRef);
    fn mpi_pready_ = MPI_Pready(partition: In, request: In);
    fn mpi_pready_range_ = MPI_Pready_range(partition_low: In, partition_high: In, request: In);
    fn mpi_pready_list_ = MPI_Pready_list(length: In, array_of_partitions: IntRef, request: In);
    fn mpi_parrived_ = MPI_Parrived(request: In, partition: In, flag: IntRef);
    fn mpi_start_ = MPI_Start(request: IntRef);
    fn mpi_startall_ = MPI_Startall(count: In, requests: IntRef);
    fn mpi_wait_ = MPI_Wait(request: IntRef, status: Status);
    fn mpi_waitall_ = MPI_Waitall(count: In, requests: IntRef, statuses: Statuses);
    fn mpi_waitany_ = MPI_Waitany(count: In, requests: IntRef, index: Index, status: Status);
    fn mpi_test_ = MPI_Test(request: IntRef, flag: IntRef, status: Status);
    fn mpi_testall_ = MPI_Testall(count: In, requests: IntRef, flag: IntRef, statuses: Statuses);
    fn mpi_testany_ = MPI_Testany(count: In, requests: IntRef, index: Index, flag: IntRef, status: Status);
    fn mpi_request_get_status_ = MPI_Request_get_status(request: In, flag: IntRef, status: Status);
    fn mpi_request_free_ = MPI_Request_free(request: IntRef);
    fn mpi_cancel_ = MPI_Cancel(request: IntRef);
    fn mpi_test_cancelled_ = MPI_Test_cancelled(status: Status, flag: IntRef);
    fn mpi_probe_ = MPI_Probe(source: In, tag: In, comm: In, status: Status);
    fn mpi_iprobe_ = MPI_Iprobe(source: In, tag: In, comm: In, flag: IntRef, status: Status);
    fn mpi_get_count_ = MPI_Get_count(status: Status, datatype: In, count: IntRef);
    fn mpi_get_elements_ = MPI_Get_elements(status: Status, datatype: In, count: IntRef);
    fn mpi_buffer_attach_ = MPI_Buffer_attach(buffer: Buf, size: In);
}

/// `MPI_UNDEFINED`.
const MPI_UNDEFINED: c_int = -32766;

/// Waitsome and testsome: the C function, then the completed requests'
/// indices made 1-based.
unsafe fn some(
    f: unsafe extern "C" fn(c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_void) -> c_int,
    incount: *const Fint,
    requests: *mut Fint,
    outcount: *mut Fint,
    indices: *mut Fint,
    statuses: *mut Fint,
    ierror: *mut Fint,
) {
    let r = f(*incount, requests, outcount, indices, Statuses::c(statuses));
    if r == crate::MPI_SUCCESS && *outcount != MPI_UNDEFINED {
        for i in 0..(*outcount).max(0) as usize {
            *indices.add(i) += 1;
        }
    }
    set_ierror(ierror, r);
}

fortran_fn! {
    /// `MPI_WAITSOME(INCOUNT, ARRAY_OF_REQUESTS, OUTCOUNT, ARRAY_OF_INDICES,
    /// ARRAY_OF_STATUSES, IERROR)`: indices are 1-based.
    fn mpi_waitsome_(incount: *const Fint, requests: *mut Fint, outcount: *mut Fint, indices: *mut Fint, statuses: *mut Fint, ierror: *mut Fint) {
        some(c::MPI_Waitsome, incount, requests, outcount, indices, statuses, ierror);
    }
}

fortran_fn! {
    /// `MPI_TESTSOME(INCOUNT, ARRAY_OF_REQUESTS, OUTCOUNT, ARRAY_OF_INDICES,
    /// ARRAY_OF_STATUSES, IERROR)`: indices are 1-based.
    fn mpi_testsome_(incount: *const Fint, requests: *mut Fint, outcount: *mut Fint, indices: *mut Fint, statuses: *mut Fint, ierror: *mut Fint) {
        some(c::MPI_Testsome, incount, requests, outcount, indices, statuses, ierror);
    }
}

fortran_fn! {
    /// `MPI_BUFFER_DETACH(BUFFER_ADDR, SIZE, IERROR)`: Fortran cannot use
    /// the buffer's address, so only `SIZE` is returned.
    fn mpi_buffer_detach_(_buffer_addr: *mut c_void, size: *mut Fint, ierror: *mut Fint) {
        let mut addr: *mut c_void = std::ptr::null_mut();
        let mut n: c_int = 0;
        let r = c::MPI_Buffer_detach(&mut addr as *mut *mut c_void as *mut c_void, &mut n);
        write_out(size, n);
        set_ierror(ierror, r);
    }
}

fortran_wrappers! {
    fn mpi_mprobe_ = MPI_Mprobe(source: In, tag: In, comm: In, message: IntRef, status: Status);
    fn mpi_improbe_ = MPI_Improbe(source: In, tag: In, comm: In, flag: IntRef, message: IntRef, status: Status);
    fn mpi_mrecv_ = MPI_Mrecv(buf: Buf, count: In, datatype: In, message: IntRef, status: Status);
    fn mpi_imrecv_ = MPI_Imrecv(buf: Buf, count: In, datatype: In, message: IntRef, request: IntRef);
    fn mpi_isendrecv_ = MPI_Isendrecv(
        sendbuf: Buf, sendcount: In, sendtype: In, dest: In, sendtag: In,
        recvbuf: Buf, recvcount: In, recvtype: In, source: In, recvtag: In,
        comm: In, request: IntRef,
    );
    fn mpi_isendrecv_replace_ = MPI_Isendrecv_replace(
        buf: Buf, count: In, datatype: In, dest: In, sendtag: In, source: In, recvtag: In,
        comm: In, request: IntRef,
    );
    fn mpi_status_set_cancelled_ = MPI_Status_set_cancelled(status: Status, flag: Logical);
}
