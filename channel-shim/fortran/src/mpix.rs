//! Fortran bindings of the MPICH extensions the shim offers (see the C
//! library's `fault_tolerance` and `gpu_support`), and of
//! `MPI_Delete_error_class`/`code`/`string`, which MPICH's Fortran
//! modules name without the `X` its C library gives them. The `mpi_f08`
//! forms are in `f08_forward`.

use crate::{set_ierror, Fint};

fortran_wrappers! {
    fn mpix_comm_agree_ = MPIX_Comm_agree(comm: In, flag: IntRef);
    fn mpix_comm_shrink_ = MPIX_Comm_shrink(comm: In, newcomm: IntRef);
    fn mpix_comm_revoke_ = MPIX_Comm_revoke(comm: In);
    fn mpix_comm_failure_ack_ = MPIX_Comm_failure_ack(comm: In);
    fn mpix_comm_failure_get_acked_ = MPIX_Comm_failure_get_acked(comm: In, failedgrp: IntRef);
    fn mpix_gpu_query_support_ = MPIX_GPU_query_support(gpu_type: In, is_supported: IntRef);
    fn mpi_delete_error_class_ = MPIX_Delete_error_class(errorclass: In);
    fn mpi_delete_error_code_ = MPIX_Delete_error_code(errorcode: In);
    fn mpi_delete_error_string_ = MPIX_Delete_error_string(errorcode: In);
}

/// `MPIX_COMM_AGREE` of `mpi_f08`, whose flag is a `LOGICAL`: true at
/// every rank when it is true at every rank.
///
/// # Safety
/// `comm` and `flag` valid `INTEGER`s, `ierror` null or writable.
pub(crate) unsafe extern "C" fn agree_logical(
    comm: *const Fint,
    flag: *mut Fint,
    ierror: *mut Fint,
) {
    let mut agreed = (*flag != 0) as Fint;
    let r = MPIX_Comm_agree(*comm, &mut agreed);
    if r == crate::MPI_SUCCESS {
        *flag = agreed;
    }
    set_ierror(ierror, r);
}

/// `MPIX_QUERY_CUDA_SUPPORT(IERROR)` of `mpi_f08` and its HIP and Level
/// Zero twins: MPICH binds the C functions as subroutines without their
/// result, so all that is left to say is `IERROR` = 0.
///
/// # Safety
/// `ierror` null or writable.
pub(crate) unsafe extern "C" fn device_support(ierror: *mut Fint) {
    set_ierror(ierror, crate::MPI_SUCCESS);
}
