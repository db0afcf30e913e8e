//! The comparison operators of the `mpi_f08` module's handle types.
//!
//! `TYPE(MPI_Comm)` and the other handles are derived types holding one
//! default `INTEGER`, the mpif.h handle; gfortran passes them by reference.
//! `==` and `/=` between two handles, or between a handle and an `INTEGER`,
//! are module procedures of `mpi_f08_types` returning a default `LOGICAL`
//! (`.TRUE.` is 1), under these gfortran-mangled names.

use crate::Fint;

/// Defines, for each handle type, the six comparison functions gfortran
/// calls for `==`/`/=` (handle-handle, handle-integer, integer-handle).
macro_rules! handle_comparisons {
    ($($handle:ident),* $(,)?) => {
        paste::paste! {
            $(
                #[doc = concat!("`TYPE(MPI_", stringify!($handle), ") == TYPE(MPI_", stringify!($handle), ")`.")]
                #[no_mangle]
                #[allow(clippy::missing_safety_doc)]
                pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _eq>](x: *const Fint, y: *const Fint) -> Fint {
                    Fint::from(*x == *y)
                }
                #[doc = concat!("`TYPE(MPI_", stringify!($handle), ") /= TYPE(MPI_", stringify!($handle), ")`.")]
                #[no_mangle]
                #[allow(clippy::missing_safety_doc)]
                pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _neq>](x: *const Fint, y: *const Fint) -> Fint {
                    Fint::from(*x != *y)
                }
                #[doc = concat!("`TYPE(MPI_", stringify!($handle), ") == INTEGER`.")]
                #[no_mangle]
                #[allow(clippy::missing_safety_doc)]
                pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _f08_eq_f>](x: *const Fint, y: *const Fint) -> Fint {
                    Fint::from(*x == *y)
                }
                #[doc = concat!("`TYPE(MPI_", stringify!($handle), ") /= INTEGER`.")]
                #[no_mangle]
                #[allow(clippy::missing_safety_doc)]
                pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _f08_neq_f>](x: *const Fint, y: *const Fint) -> Fint {
                    Fint::from(*x != *y)
                }
                #[doc = concat!("`INTEGER == TYPE(MPI_", stringify!($handle), ")`.")]
                #[no_mangle]
                #[allow(clippy::missing_safety_doc)]
                pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _f_eq_f08>](x: *const Fint, y: *const Fint) -> Fint {
                    Fint::from(*x == *y)
                }
                #[doc = concat!("`INTEGER /= TYPE(MPI_", stringify!($handle), ")`.")]
                #[no_mangle]
                #[allow(clippy::missing_safety_doc)]
                pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _f_neq_f08>](x: *const Fint, y: *const Fint) -> Fint {
                    Fint::from(*x != *y)
                }
            )*
        }
    };
}

handle_comparisons!(
    comm, datatype, errhandler, file, group, info, message, op, request, session, win
);
