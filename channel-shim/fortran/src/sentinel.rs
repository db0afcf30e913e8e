//! The sentinels Fortran passes by address. `mpif.h` puts them in COMMON
//! blocks the program itself defines (and exports):
//!
//! - `/MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(5)` at byte
//!   offsets 0, 4 and 8 of `mpipriv1_`;
//! - `/MPIPRIV2/ MPI_STATUSES_IGNORE(5,1), MPI_ERRCODES_IGNORE(1)` at 0 and
//!   20 of `mpipriv2_`.
//!
//! Their addresses are looked up once (`dlsym`) and an argument equal to one
//! becomes the C sentinel. A program without the blocks gets no translation.

use std::os::raw::c_void;
use std::sync::OnceLock;

/// Addresses of the program's COMMON blocks (0 when absent).
#[derive(Clone, Copy, Debug)]
struct Commons {
    priv1: usize,
    priv2: usize,
}

/// The C `MPI_IN_PLACE`: `(void *)-1`.
const C_IN_PLACE: usize = usize::MAX;
/// The C `MPI_STATUS_IGNORE` and `MPI_STATUSES_IGNORE`: `(MPI_Status *)1`.
const C_STATUS_IGNORE: usize = 1;

fn commons() -> Commons {
    static COMMONS: OnceLock<Commons> = OnceLock::new();
    *COMMONS.get_or_init(|| {
        let find = |name: &std::ffi::CStr| {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
            // searches the loaded objects' symbol tables.
            unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) as usize }
        };
        Commons {
            priv1: find(c"mpipriv1_"),
            priv2: find(c"mpipriv2_"),
        }
    })
}

/// A choice buffer: `MPI_BOTTOM` becomes null, `MPI_IN_PLACE` becomes
/// `(void *)-1`, anything else is unchanged.
pub fn buffer(p: *const c_void) -> *mut c_void {
    let c = commons();
    let a = p as usize;
    if c.priv1 != 0 && a == c.priv1 {
        std::ptr::null_mut()
    } else if c.priv1 != 0 && a == c.priv1 + 4 {
        C_IN_PLACE as *mut c_void
    } else {
        p as *mut c_void
    }
}

/// A status array: `MPI_STATUS_IGNORE` becomes `(MPI_Status *)1`.
pub fn status(p: *mut crate::Fint) -> *mut c_void {
    let c = commons();
    if c.priv1 != 0 && p as usize == c.priv1 + 8 {
        C_STATUS_IGNORE as *mut c_void
    } else {
        p as *mut c_void
    }
}

/// An array of statuses: `MPI_STATUSES_IGNORE` becomes `(MPI_Status *)1`.
pub fn statuses(p: *mut crate::Fint) -> *mut c_void {
    let c = commons();
    if c.priv2 != 0 && p as usize == c.priv2 {
        C_STATUS_IGNORE as *mut c_void
    } else {
        p as *mut c_void
    }
}
