//! The module procedures of Debian's `mpi` Fortran module: code compiled
//! with `use mpi` calls them by their gfortran names
//! (`__<module>_MOD_<procedure>`), which the library must define or the
//! program cannot start.
//!
//! - `mpi_sizeofs`: the specific procedures behind the generic
//!   `MPI_SIZEOF(X, SIZE, IERROR)`, one per type of `X` (scalar and array
//!   forms). `SIZE` is the size in bytes of one element of `X`'s type and
//!   kind, as the datatype of that type reports it (`MPI_REAL` 4,
//!   `MPI_DOUBLE_PRECISION` 8, `MPI_COMPLEX` 8, `MPI_CHARACTER` 1, ...).
//!   `X` itself is never read (gfortran passes its address, or an array
//!   descriptor, and for characters a hidden length after the other
//!   arguments, which the C calling convention lets the callee ignore).
//! - `mpi_constants`: `==` and `/=` on the handle types (`TYPE(MPI_Comm)`
//!   and the others, each one `INTEGER MPI_VAL`): default `LOGICAL` results.

use crate::{set_ierror, write_out, Fint, MPI_SUCCESS};
use std::os::raw::c_void;

/// Defines `__mpi_sizeofs_MOD_<name>` storing `$bytes` in `SIZE`.
macro_rules! sizeof_procedures {
    ($($name:ident => $bytes:expr, $what:literal;)*) => {
        paste::paste! {$(
            #[doc = concat!("`MPI_SIZEOF` of ", $what, ": ", stringify!($bytes), " bytes.")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<__mpi_sizeofs_MOD_ $name>](
                _x: *const c_void,
                size: *mut Fint,
                ierror: *mut Fint,
            ) {
                write_out(size, $bytes);
                set_ierror(ierror, MPI_SUCCESS);
            }
        )*}
    };
}

sizeof_procedures! {
    mpi_sizeof_ch => 1, "a `CHARACTER`";
    mpi_sizeof_chv => 1, "a `CHARACTER` array";
    mpi_sizeof_cx => 8, "a `COMPLEX`";
    mpi_sizeof_cxv => 8, "a `COMPLEX` array";
    mpi_sizeof_d => 8, "a `DOUBLE PRECISION`";
    mpi_sizeof_dv => 8, "a `DOUBLE PRECISION` array";
    mpi_sizeof_i => 4, "an `INTEGER`";
    mpi_sizeof_iv => 4, "an `INTEGER` array";
    mpi_sizeof_i1 => 1, "an `INTEGER*1`";
    mpi_sizeof_i1v => 1, "an `INTEGER*1` array";
    mpi_sizeof_i2 => 2, "an `INTEGER*2`";
    mpi_sizeof_i2v => 2, "an `INTEGER*2` array";
    mpi_sizeof_i8 => 8, "an `INTEGER*8`";
    mpi_sizeof_i8v => 8, "an `INTEGER*8` array";
    mpi_sizeof_l => 4, "a `LOGICAL`";
    mpi_sizeof_lv => 4, "a `LOGICAL` array";
    mpi_sizeof_r => 4, "a `REAL`";
    mpi_sizeof_rv => 4, "a `REAL` array";
}

/// Defines `__mpi_constants_MOD_<type>eq` and `..neq` on one handle type.
macro_rules! handle_comparisons {
    ($($ty:ident),*) => {
        paste::paste! {$(
            #[doc = concat!("`==` on `TYPE(MPI_", stringify!($ty), ")`: the handles are equal.")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<__mpi_constants_MOD_ $ty eq>](a: *const Fint, b: *const Fint) -> Fint {
                (*a == *b) as Fint
            }
            #[doc = concat!("`/=` on `TYPE(MPI_", stringify!($ty), ")`: the handles differ.")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<__mpi_constants_MOD_ $ty neq>](a: *const Fint, b: *const Fint) -> Fint {
                (*a != *b) as Fint
            }
        )*}
    };
}

handle_comparisons!(comm, datatype, errhandler, file, group, info, message, op, request, win);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_those_of_the_fortran_datatypes() {
        let (mut size, mut ierr) = (0, -1);
        unsafe { __mpi_sizeofs_MOD_mpi_sizeof_dv(std::ptr::null(), &mut size, &mut ierr) };
        assert_eq!((size, ierr), (8, MPI_SUCCESS));
        unsafe { __mpi_sizeofs_MOD_mpi_sizeof_i2(std::ptr::null(), &mut size, &mut ierr) };
        assert_eq!(size, 2);
    }

    #[test]
    fn handle_comparisons_compare_the_values() {
        let (a, b) = (0x4400_0000, 0x4400_0001);
        unsafe {
            assert_eq!(__mpi_constants_MOD_commeq(&a, &a), 1);
            assert_eq!(__mpi_constants_MOD_commeq(&a, &b), 0);
            assert_eq!(__mpi_constants_MOD_winneq(&a, &b), 1);
        }
    }
}
