//! Conversions of a status between C (`MPI_Status`), Fortran
//! (`INTEGER STATUS(MPI_STATUS_SIZE)`) and Fortran 2008 (`TYPE(MPI_Status)`).
//! In MPICH's ABI all three are the same five integers in the same order
//! (count low word, count high word and cancelled flag, source, tag,
//! error), so each conversion copies them. Converting an "ignore" sentinel
//! is an error of class `MPI_ERR_OTHER`, as in MPICH.

use crate::abi::*;
use crate::ffi::buffers::ignored;
use crate::ffi::errors::finish;
use crate::ffi::symbols::{MPI_F08_STATUSES_IGNORE, MPI_F08_STATUS_IGNORE};
use shim_engine::MpiError;
use std::os::raw::c_int;
use std::ptr::addr_of;

/// Number of integers in a status (`MPI_STATUS_SIZE`, `MPI_F_STATUS_SIZE`).
const STATUS_INTS: usize = 5;

const _: () = assert!(std::mem::size_of::<MpiStatus>() == STATUS_INTS * 4);

/// Whether a Fortran status pointer is `MPI_F_STATUS_IGNORE` (null in
/// MPICH's C layer) or `MPI_F_STATUSES_IGNORE`.
fn fortran_ignored(p: *const c_int) -> bool {
    // SAFETY: reads the exported pointer variables' values, which only
    // change when a Fortran layer sets them at start-up.
    let (one, many) = unsafe {
        (
            addr_of!(crate::ffi::symbols::MPI_F_STATUS_IGNORE).read(),
            addr_of!(crate::ffi::symbols::MPI_F_STATUSES_IGNORE).read(),
        )
    };
    p.is_null() || std::ptr::eq(p, one) || std::ptr::eq(p, many)
}

/// Whether a Fortran 2008 status pointer is one of its ignore sentinels.
fn f08_ignored(p: *const MpiStatus) -> bool {
    // SAFETY: as in `fortran_ignored`.
    let (one, many) = unsafe {
        (
            addr_of!(MPI_F08_STATUS_IGNORE).read(),
            addr_of!(MPI_F08_STATUSES_IGNORE).read(),
        )
    };
    p.is_null() || std::ptr::eq(p, one) || std::ptr::eq(p, many)
}

/// Copies the five integers, or fails with `MPI_ERR_OTHER` (through
/// `MPI_COMM_WORLD`'s error handler) when either side is a sentinel.
///
/// # Safety
/// Both pointers, unless sentinels, are valid for five integers.
unsafe fn copy(name: &str, from: *const c_int, to: *mut c_int, sentinel: bool) -> c_int {
    if sentinel || to.is_null() {
        return finish(MPI_COMM_WORLD, name, Err(MpiError::Other));
    }
    std::ptr::copy(from, to, STATUS_INTS);
    MPI_SUCCESS
}

mpi_fn! { fn MPI_Status_c2f(c_status: *const MpiStatus, f_status: *mut c_int) {
    copy("MPI_Status_c2f", c_status as *const c_int, f_status, ignored(c_status))
} }

mpi_fn! { fn MPI_Status_f2c(f_status: *const c_int, c_status: *mut MpiStatus) {
    let bad = fortran_ignored(f_status) || ignored(c_status);
    copy("MPI_Status_f2c", f_status, c_status as *mut c_int, bad)
} }

mpi_fn! { fn MPI_Status_c2f08(c_status: *const MpiStatus, f08_status: *mut MpiStatus) {
    copy("MPI_Status_c2f08", c_status as *const c_int, f08_status as *mut c_int, ignored(c_status))
} }

mpi_fn! { fn MPI_Status_f082c(f08_status: *const MpiStatus, c_status: *mut MpiStatus) {
    let bad = f08_ignored(f08_status) || ignored(c_status);
    copy("MPI_Status_f082c", f08_status as *const c_int, c_status as *mut c_int, bad)
} }

mpi_fn! { fn MPI_Status_f082f(f08_status: *const MpiStatus, f_status: *mut c_int) {
    copy("MPI_Status_f082f", f08_status as *const c_int, f_status, f08_ignored(f08_status))
} }

mpi_fn! { fn MPI_Status_f2f08(f_status: *const c_int, f08_status: *mut MpiStatus) {
    copy("MPI_Status_f2f08", f_status, f08_status as *mut c_int, fortran_ignored(f_status))
} }
