//! Generalized requests from Fortran: `MPI_GREQUEST_START` with Fortran
//! query, free and cancel subroutines, called through C trampolines.
//!
//! The Fortran callbacks get the program's `EXTRA_STATE` variable itself
//! (by reference, as MPICH passes it), so a callback that changes it
//! changes the program's variable: the C library keeps, as the extra state
//! of the C callbacks, a record of the Fortran subroutines and that
//! variable's address; the record goes with the free callback.

use crate::{set_ierror, Aint, Fint};
use std::os::raw::{c_int, c_void};

/// Fortran `QUERY_FN(EXTRA_STATE, STATUS, IERROR)`.
pub(crate) type FQuery = unsafe extern "C" fn(*mut Aint, *mut Fint, *mut Fint);
/// Fortran `FREE_FN(EXTRA_STATE, IERROR)`.
pub(crate) type FFree = unsafe extern "C" fn(*mut Aint, *mut Fint);
/// Fortran `CANCEL_FN(EXTRA_STATE, COMPLETE, IERROR)`.
pub(crate) type FCancel = unsafe extern "C" fn(*mut Aint, *const Fint, *mut Fint);

/// What the C library keeps as the extra state of a Fortran request.
struct FortranGrequest {
    query: Option<FQuery>,
    free: Option<FFree>,
    cancel: Option<FCancel>,
    extra: *mut Aint,
}

unsafe extern "C" fn query_trampoline(extra: *mut c_void, status: *mut c_void) -> c_int {
    let g = &*(extra as *const FortranGrequest);
    let mut ierr: Fint = 0;
    if let Some(q) = g.query {
        // An INTEGER STATUS(MPI_STATUS_SIZE) is a C MPI_Status.
        q(g.extra, status as *mut Fint, &mut ierr);
    }
    ierr
}

unsafe extern "C" fn free_trampoline(extra: *mut c_void) -> c_int {
    let g = Box::from_raw(extra as *mut FortranGrequest);
    let mut ierr: Fint = 0;
    if let Some(f) = g.free {
        f(g.extra, &mut ierr);
    }
    ierr
}

unsafe extern "C" fn cancel_trampoline(extra: *mut c_void, complete: c_int) -> c_int {
    let g = &*(extra as *const FortranGrequest);
    let mut ierr: Fint = 0;
    // gfortran's LOGICAL: a 4-byte 1 or 0.
    let complete: Fint = (complete != 0) as Fint;
    if let Some(c) = g.cancel {
        c(g.extra, &complete, &mut ierr);
    }
    ierr
}

type CQuery = unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int;
type CFree = unsafe extern "C" fn(*mut c_void) -> c_int;
type CCancel = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;

extern "C" {
    fn MPI_Grequest_start(
        query: Option<CQuery>,
        free: Option<CFree>,
        cancel: Option<CCancel>,
        extra: *mut c_void,
        request: *mut c_int,
    ) -> c_int;
}

fortran_wrappers! {
    fn mpi_grequest_complete_ = MPI_Grequest_complete(request: In);
}

fortran_fn! {
    /// `MPI_GREQUEST_START(QUERY_FN, FREE_FN, CANCEL_FN, EXTRA_STATE,
    /// REQUEST, IERROR)`.
    fn mpi_grequest_start_(query: Option<FQuery>, free: Option<FFree>, cancel: Option<FCancel>, extra: *mut Aint, request: *mut Fint, ierror: *mut Fint) {
        let g = Box::into_raw(Box::new(FortranGrequest { query, free, cancel, extra }));
        let r = MPI_Grequest_start(
            Some(query_trampoline),
            Some(free_trampoline),
            Some(cancel_trampoline),
            g as *mut c_void,
            request,
        );
        if r != crate::MPI_SUCCESS {
            drop(Box::from_raw(g));
        }
        set_ierror(ierror, r);
    }
}
