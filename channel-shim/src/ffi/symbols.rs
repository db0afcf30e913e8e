//! Data symbols and the one helper function that Debian's `mpi.h` refers to
//! by name rather than by value, so programs using them load against the
//! shim as they do against `libmpich.so.12`.
//!
//! - `MPI_UNWEIGHTED`, `MPI_WEIGHTS_EMPTY` (`extern int * const`): sentinel
//!   weight arrays of the graph-topology constructors; only their addresses
//!   matter. Compare with [`unweighted`] / [`weights_empty`].
//! - `MPI_F_STATUS_IGNORE`, `MPI_F_STATUSES_IGNORE`, `MPI_F08_STATUS_IGNORE`,
//!   `MPI_F08_STATUSES_IGNORE` and the `MPIR_F08_*` objects behind them:
//!   Fortran-status sentinels of the status conversion functions.
//! - `MPI_T_PVAR_ALL_HANDLES`: the tool interface's "all handles" value.
//! - `MPIR_Dup_fn`: what `MPI_COMM_DUP_FN`, `MPI_TYPE_DUP_FN`,
//!   `MPI_WIN_DUP_FN` and `MPI_DUP_FN` expand to.

use crate::abi::constants::{MpiStatus, MPI_SUCCESS};
use std::os::raw::{c_int, c_void};
use std::ptr::{addr_of, addr_of_mut};

/// A pointer stored in an exported, immutable C variable (`T * const`).
#[repr(transparent)]
pub struct ExportedPtr<T>(pub *const T);

// SAFETY: the pointee is never written through this pointer by Rust code; C
// sees a read-only pointer variable.
unsafe impl<T> Sync for ExportedPtr<T> {}

/// Objects whose addresses are the sentinels. Distinct values keep the
/// linker from folding them into one address.
static UNWEIGHTED_TARGET: c_int = 0x0075_6e77;
static WEIGHTS_EMPTY_TARGET: c_int = 0x0077_656d;
static PVAR_ALL_HANDLES_TARGET: c_int = 0x0070_7661;

/// `extern int * const MPI_UNWEIGHTED`: pass as weights to say "no weights".
#[no_mangle]
pub static MPI_UNWEIGHTED: ExportedPtr<c_int> = ExportedPtr(addr_of!(UNWEIGHTED_TARGET));

/// `extern int * const MPI_WEIGHTS_EMPTY`: weights of a process with no edges.
#[no_mangle]
pub static MPI_WEIGHTS_EMPTY: ExportedPtr<c_int> = ExportedPtr(addr_of!(WEIGHTS_EMPTY_TARGET));

/// `extern struct MPIR_T_pvar_handle_s * const MPI_T_PVAR_ALL_HANDLES`.
#[no_mangle]
pub static MPI_T_PVAR_ALL_HANDLES: ExportedPtr<c_int> =
    ExportedPtr(addr_of!(PVAR_ALL_HANDLES_TARGET));

/// `extern MPI_Fint *MPI_F_STATUS_IGNORE`: null, as in MPICH until its
/// Fortran layer sets it.
#[no_mangle]
pub static mut MPI_F_STATUS_IGNORE: *mut c_int = std::ptr::null_mut();

/// `extern MPI_Fint *MPI_F_STATUSES_IGNORE`: null, as in MPICH until its
/// Fortran layer sets it.
#[no_mangle]
pub static mut MPI_F_STATUSES_IGNORE: *mut c_int = std::ptr::null_mut();

/// `extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ`: the object
/// `MPI_F08_STATUS_IGNORE` points at (same layout as `MPI_Status`).
#[no_mangle]
pub static mut MPIR_F08_MPI_STATUS_IGNORE_OBJ: MpiStatus = MpiStatus {
    count_lo: 0,
    count_hi_and_cancelled: 0,
    mpi_source: 0,
    mpi_tag: 0,
    mpi_error: 0,
};

/// `extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1]`.
#[no_mangle]
pub static mut MPIR_F08_MPI_STATUSES_IGNORE_OBJ: [MpiStatus; 1] = [MpiStatus {
    count_lo: 0,
    count_hi_and_cancelled: 0,
    mpi_source: 0,
    mpi_tag: 0,
    mpi_error: 0,
}];

/// `extern int MPIR_F08_MPI_IN_PLACE`: Fortran 2008 binding's MPI_IN_PLACE.
#[no_mangle]
pub static mut MPIR_F08_MPI_IN_PLACE: c_int = 0;

/// `extern int MPIR_F08_MPI_BOTTOM`: Fortran 2008 binding's MPI_BOTTOM.
#[no_mangle]
pub static mut MPIR_F08_MPI_BOTTOM: c_int = 0;

/// `extern MPI_F08_status *MPI_F08_STATUS_IGNORE`.
#[no_mangle]
pub static mut MPI_F08_STATUS_IGNORE: *mut MpiStatus = addr_of_mut!(MPIR_F08_MPI_STATUS_IGNORE_OBJ);

/// `extern MPI_F08_status *MPI_F08_STATUSES_IGNORE`.
#[no_mangle]
pub static mut MPI_F08_STATUSES_IGNORE: *mut MpiStatus =
    addr_of_mut!(MPIR_F08_MPI_STATUSES_IGNORE_OBJ) as *mut MpiStatus;

/// The address C programs see as `MPI_UNWEIGHTED`.
pub fn unweighted() -> *const c_int {
    MPI_UNWEIGHTED.0
}

/// The address C programs see as `MPI_WEIGHTS_EMPTY`.
pub fn weights_empty() -> *const c_int {
    MPI_WEIGHTS_EMPTY.0
}

/// The address C programs see as `MPI_T_PVAR_ALL_HANDLES`.
pub fn pvar_all_handles() -> *const c_int {
    MPI_T_PVAR_ALL_HANDLES.0
}

/// `MPIR_Dup_fn`, MPICH's attribute copy callback behind `MPI_COMM_DUP_FN`
/// and friends: copies the attribute value (a `void *`) and sets `*flag`.
///
/// # Safety
/// `attribute_val_out` must be null or valid for writing a `void *`, and
/// `flag` null or valid for writing an `int` (MPI passes valid pointers).
#[no_mangle]
pub unsafe extern "C" fn MPIR_Dup_fn(
    _oldcomm: c_int,
    _keyval: c_int,
    _extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    crate::ffi::write_out(attribute_val_out as *mut *mut c_void, attribute_val_in);
    crate::ffi::write_out(flag, 1);
    MPI_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinels_are_distinct_and_non_null() {
        assert!(!unweighted().is_null());
        assert!(!weights_empty().is_null());
        assert_ne!(unweighted(), weights_empty());
    }

    #[test]
    fn dup_fn_copies_the_value() {
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut flag = 0;
        let value = 0x1234usize as *mut c_void;
        let r = unsafe {
            MPIR_Dup_fn(
                0,
                0,
                std::ptr::null_mut(),
                value,
                addr_of_mut!(out).cast(),
                &mut flag,
            )
        };
        assert_eq!((r, out, flag), (MPI_SUCCESS, value, 1));
    }
}
