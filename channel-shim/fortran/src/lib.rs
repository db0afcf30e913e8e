//! Fortran bindings of the channel shim: `libmpichfort.so.12` for programs
//! built with Debian's `mpif90` (gfortran, `include 'mpif.h'`).
//!
//! gfortran calls `mpi_send_` and friends: lower-case names with a trailing
//! underscore, every argument by reference, `ierror` last and character
//! lengths as hidden `size_t` arguments after all others. Handles are
//! `INTEGER`s equal to the C handles (as in MPICH), and an
//! `INTEGER status(MPI_STATUS_SIZE)` has the layout of the C `MPI_Status`.
//! Each function here converts its arguments and calls the shim's C
//! function (`libmpich.so.12`, resolved at load time); the sentinels
//! Fortran passes by address (`MPI_IN_PLACE`, `MPI_STATUS_IGNORE`, ...) are
//! translated by [`sentinel`].
//!
//! Every exported function is also exported under its `pmpi_` name.
//!
//! # Safety
//!
//! The exported functions are called by Fortran code: every pointer must be
//! valid for the MPI function's use of it, as the MPI standard requires.

/// Defines an exported Fortran MPI subroutine or function under its `mpi_`
/// name and, forwarding to it, its `pmpi_` profiling name.
macro_rules! fortran_fn {
    ($(#[$doc:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $(-> $ret:ty)? $body:block) => {
        paste::paste! {
            $(#[$doc])*
            #[no_mangle]
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? $body

            /// Profiling name of the function of the same name without `p`.
            #[no_mangle]
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub unsafe extern "C" fn [<p $name>]($($arg: $ty),*) $(-> $ret)? {
                $name($($arg),*)
            }
        }
    };
}

pub mod c;
pub mod coll;
pub mod comm;
pub mod datatype;
pub mod env;
pub mod p2p;
pub mod sentinel;

/// Stubs of every MPI routine without a Fortran wrapper (generated). They
/// take no arguments and never return, so calling them is always safe.
#[allow(clippy::missing_safety_doc)]
pub mod unsupported {
    include!(concat!(env!("OUT_DIR"), "/unsupported.rs"));
}

/// Fortran `INTEGER` (`MPI_Fint`).
pub type Fint = std::os::raw::c_int;

/// Stores a C return code in the Fortran `ierror` argument.
///
/// # Safety
/// `ierror` must be null or valid for writing an `INTEGER`.
pub unsafe fn set_ierror(ierror: *mut Fint, code: std::os::raw::c_int) {
    if !ierror.is_null() {
        ierror.write(code);
    }
}
