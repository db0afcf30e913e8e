//! How one argument of a table-declared routine ([`fortran_wrappers!`])
//! travels from Fortran to C. Each kind is a type implementing [`Arg`]: what
//! gfortran passes ([`Arg::F`], always an address), what the C function
//! takes ([`Arg::C`]), the conversion, and what to fix up after the call.

use crate::{sentinel, Aint, Fint};
use std::os::raw::{c_int, c_void};

/// One kind of argument.
pub trait Arg {
    /// What gfortran passes.
    type F: Copy;
    /// What the shim's C function takes.
    type C;
    /// Converts the Fortran argument for the C call.
    ///
    /// # Safety
    /// `f` must be valid as the MPI routine requires.
    unsafe fn c(f: Self::F) -> Self::C;
    /// Runs after the C call returned `ret` (nothing by default).
    ///
    /// # Safety
    /// As for [`Arg::c`].
    unsafe fn after(_f: Self::F, _ret: c_int) {}
}

/// Defines a kind of argument: `Name: F => C, |f| conversion`.
macro_rules! arg_kind {
    ($(#[$doc:meta])* $name:ident: $f:ty => $c:ty, |$x:ident| $conv:expr) => {
        $(#[$doc])*
        pub enum $name {}
        impl Arg for $name {
            type F = $f;
            type C = $c;
            unsafe fn c($x: $f) -> $c {
                $conv
            }
        }
    };
}

arg_kind! {
    /// An `INTEGER` input (a count, a rank, a handle...): C takes its value.
    In: *const Fint => c_int, |f| *f
}

arg_kind! {
    /// A `LOGICAL` input: C takes 0 or 1 (gfortran's `.TRUE.` is 1, any
    /// non-zero value counts as true).
    Logical: *const Fint => c_int, |f| (*f != 0) as c_int
}

arg_kind! {
    /// An `INTEGER` that C also takes by address: an output, an in-out handle
    /// (`MPI_COMM_FREE`), an `INTEGER` array, or a `LOGICAL` output (C writes 0
    /// or 1, gfortran's `.FALSE.` and `.TRUE.`).
    IntRef: *mut Fint => *mut c_int, |f| f
}

/// A 1-based index output (`MPI_WAITANY`'s `INDEX`): C writes a 0-based
/// index or `MPI_UNDEFINED` (negative), which is left alone.
pub enum Index {}
impl Arg for Index {
    type F = *mut Fint;
    type C = *mut c_int;
    unsafe fn c(f: *mut Fint) -> *mut c_int {
        f
    }
    unsafe fn after(f: *mut Fint, ret: c_int) {
        if ret == crate::MPI_SUCCESS && !f.is_null() && *f >= 0 {
            *f += 1;
        }
    }
}

arg_kind! {
    /// An `INTEGER(KIND=MPI_ADDRESS_KIND)` input: C takes its value.
    AintIn: *const Aint => Aint, |f| *f
}

arg_kind! {
    /// An MPI-1 `INTEGER` address or stride (`MPI_TYPE_HVECTOR`): C takes it
    /// as an `MPI_Aint`.
    IntAsAint: *const Fint => Aint, |f| *f as Aint
}

arg_kind! {
    /// An `INTEGER` count C takes as an `MPI_Count` (`MPI_PSEND_INIT`:
    /// Debian's libmpifort reads it as a default `INTEGER`).
    IntAsCount: *const Fint => i64, |f| i64::from(*f)
}

arg_kind! {
    /// An `INTEGER(KIND=MPI_ADDRESS_KIND)` output or array.
    AintRef: *mut Aint => *mut Aint, |f| f
}

arg_kind! {
    /// An `INTEGER(KIND=MPI_COUNT_KIND)` output (8 bytes in Debian's mpif.h).
    CountRef: *mut i64 => *mut i64, |f| f
}

arg_kind! {
    /// A choice buffer: `MPI_BOTTOM` and `MPI_IN_PLACE` become the C sentinels.
    Buf: *mut c_void => *mut c_void, |f| sentinel::buffer(f)
}

arg_kind! {
    /// A location whose address is taken (`MPI_GET_ADDRESS`): passed as is.
    Location: *const c_void => *const c_void, |f| f
}

arg_kind! {
    /// A procedure argument (`MPI_OP_CREATE`'s `USER_FN`): gfortran passes the
    /// procedure's address, as C passes a function pointer.
    Procedure: *const c_void => *const c_void, |f| f
}

arg_kind! {
    /// `INTEGER STATUS(MPI_STATUS_SIZE)`.
    ///
    /// Debian's mpif.h has `MPI_STATUS_SIZE = 5` with `MPI_SOURCE = 3`,
    /// `MPI_TAG = 4`, `MPI_ERROR = 5`, and MPICH's C `MPI_Status` is five `int`s
    /// `{count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR}`:
    /// the Fortran array *is* a C status, so converting it in either direction
    /// is passing its address. `MPI_STATUS_IGNORE` becomes the C sentinel.
    Status: *mut Fint => *mut c_void, |f| sentinel::status(f)
}

arg_kind! {
    /// `INTEGER STATUSES(MPI_STATUS_SIZE, *)`: an array of C statuses (see
    /// [`Status`]); `MPI_STATUSES_IGNORE` becomes the C sentinel.
    Statuses: *mut Fint => *mut c_void, |f| sentinel::statuses(f)
}

arg_kind! {
    /// A weights array (`MPI_DIST_GRAPH_CREATE`): `MPI_UNWEIGHTED` and
    /// `MPI_WEIGHTS_EMPTY` become the C sentinels.
    Weights: *const Fint => *const c_int, |f| sentinel::weights(f)
}

arg_kind! {
    /// A weights output array (`MPI_DIST_GRAPH_NEIGHBORS`), which may be
    /// `MPI_UNWEIGHTED`.
    WeightsOut: *mut Fint => *mut c_int, |f| sentinel::weights(f) as *mut c_int
}

arg_kind! {
    /// An `INTEGER(KIND=MPI_COUNT_KIND)` input: C takes its value.
    CountIn: *const i64 => i64, |f| *f
}

arg_kind! {
    /// A file handle (`INTEGER`, as `MPI_File_c2f` gives it): the C
    /// `MPI_File` pointer is the same number (0 is `MPI_FILE_NULL`).
    FileIn: *const Fint => *mut c_void, |f| (*f).max(0) as usize as *mut c_void
}

arg_kind! {
    /// An `INTEGER(KIND=MPI_OFFSET_KIND)` input.
    OffsetIn: *const i64 => i64, |f| *f
}

arg_kind! {
    /// An `INTEGER(KIND=MPI_OFFSET_KIND)` output.
    OffsetRef: *mut i64 => *mut i64, |f| f
}
