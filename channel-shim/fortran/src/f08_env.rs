//! `use mpi_f08` bindings of the routines written out in [`crate::env`]
//! (`MPI_Init`, `MPI_Init_thread`): the same work, `ierror` optional. Each
//! is also exported under MPICH's profiling name for `mpi_f08`,
//! `pmpir_xxx_f08_`.

use crate::Fint;

/// `MPI_Init(ierror)` of `mpi_f08`: as `MPI_INIT`.
///
/// # Safety
/// `ierror` must be null or valid for writing an `INTEGER`.
#[no_mangle]
pub unsafe extern "C" fn mpi_init_f08_(ierror: *mut Fint) {
    crate::env::mpi_init_(ierror)
}

/// Profiling name of [`mpi_init_f08_`].
///
/// # Safety
/// As [`mpi_init_f08_`].
#[no_mangle]
pub unsafe extern "C" fn pmpir_init_f08_(ierror: *mut Fint) {
    crate::env::mpi_init_(ierror)
}

/// `MPI_Init_thread(required, provided, ierror)` of `mpi_f08`: as
/// `MPI_INIT_THREAD`.
///
/// # Safety
/// `required` and `provided` must be valid `INTEGER`s, `ierror` null or
/// valid for writing one.
#[no_mangle]
pub unsafe extern "C" fn mpi_init_thread_f08_(
    required: *const Fint,
    provided: *mut Fint,
    ierror: *mut Fint,
) {
    crate::env::mpi_init_thread_(required, provided, ierror)
}

/// Profiling name of [`mpi_init_thread_f08_`].
///
/// # Safety
/// As [`mpi_init_thread_f08_`].
#[no_mangle]
pub unsafe extern "C" fn pmpir_init_thread_f08_(
    required: *const Fint,
    provided: *mut Fint,
    ierror: *mut Fint,
) {
    crate::env::mpi_init_thread_(required, provided, ierror)
}
