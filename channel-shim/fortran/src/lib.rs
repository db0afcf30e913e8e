//! Fortran bindings of the channel shim: `libmpichfort.so.12` for programs
//! built with Debian's `mpif90` (gfortran, `include 'mpif.h'` or `use mpi`).
//!
//! gfortran calls `mpi_send_` and friends: lower-case names with a trailing
//! underscore, every argument by reference, `ierror` last and character
//! lengths as hidden `size_t` arguments after all others. Handles are
//! `INTEGER`s equal to the C handles (as in MPICH), and an
//! `INTEGER status(MPI_STATUS_SIZE)` has the layout of the C `MPI_Status`
//! (see [`args::Status`]). Each function here converts its arguments and
//! calls the shim's C function (`libmpich.so.12`, resolved at load time);
//! the sentinels Fortran passes by address (`MPI_IN_PLACE`,
//! `MPI_STATUS_IGNORE`, ...) are translated by [`sentinel`].
//!
//! Most routines are declared in one line of a table (`fortran_wrappers!`, below):
//! the C function and the kind of each argument ([`args`]). The others
//! (character arguments, 1-based indices, MPI-1 `INTEGER` addresses,
//! attribute callbacks, functions) are written out.
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

/// Declares C functions of the shim and exports a Fortran subroutine for
/// each, one line per routine:
///
/// ```ignore
/// fortran_wrappers! {
///     fn mpi_recv_ = MPI_Recv(buf: Buf, count: In, datatype: In, source: In,
///                             tag: In, comm: In, status: Status);
/// }
/// ```
///
/// The Fortran subroutine takes each argument as its kind's
/// [`args::Arg::F`] plus `IERROR`, converts it with [`args::Arg::c`], calls
/// the C function, runs [`args::Arg::after`] on each argument and stores the
/// return code in `IERROR`.
macro_rules! fortran_wrappers {
    ($( fn $fname:ident = $cname:ident ( $($arg:ident : $kind:ident),* $(,)? ); )*) => {
        extern "C" {
            $(
                #[doc = concat!("The shim's `", stringify!($cname), "`.")]
                fn $cname($($arg: <$crate::args::$kind as $crate::args::Arg>::C),*) -> ::std::os::raw::c_int;
            )*
        }
        $(
            fortran_fn! {
                #[doc = concat!("Fortran binding of `", stringify!($cname),
                    "`: the C arguments by reference, then `IERROR`.")]
                fn $fname($($arg: <$crate::args::$kind as $crate::args::Arg>::F,)* ierror: *mut $crate::Fint) {
                    let r = $cname($(<$crate::args::$kind as $crate::args::Arg>::c($arg)),*);
                    $(<$crate::args::$kind as $crate::args::Arg>::after($arg, r);)*
                    $crate::set_ierror(ierror, r);
                }
            }
        )*
    };
}

pub mod args;
pub mod attr;
pub mod c;
pub mod coll;
pub mod comm;
pub mod datarep;
pub mod datatype;
pub mod datatype_ext;
pub mod env;
pub mod f08_buffers;
pub mod f08_env;
pub mod f08_forward;
pub mod f08_handles;
pub mod f08_io;
pub mod f08_large;
pub mod f08_module_procedures;
pub mod f08_pack_external;
pub mod grequest;
pub mod info;
pub mod io;
pub mod module_procedures;
pub mod mpix;
pub mod p2p;
pub mod ports;
pub mod rma;
pub mod sentinel;
pub mod session;
pub mod spawn;
pub mod strings;
pub mod topo;

/// Stubs of every MPI routine without a Fortran wrapper (generated). They
/// take no arguments and never return, so calling them is always safe.
#[allow(clippy::missing_safety_doc)]
pub mod unsupported {
    include!(concat!(env!("OUT_DIR"), "/unsupported.rs"));
}

/// The symbols of MPICH's `use mpi_f08` bindings (generated from
/// f08-symbols.txt): the module's handle constants with MPICH's values,
/// storage for the sentinels it passes by address, and a stub ending the
/// job with one line for each routine, so every `use mpi_f08` program loads.
/// The stubs take no arguments and never return.
#[allow(clippy::missing_safety_doc, non_upper_case_globals)]
pub mod f08_symbols {
    include!(concat!(env!("OUT_DIR"), "/f08_symbols.rs"));
}

/// Fortran `INTEGER` (`MPI_Fint`).
pub type Fint = std::os::raw::c_int;

/// Fortran `INTEGER(KIND=MPI_ADDRESS_KIND)` (`MPI_Aint`).
pub type Aint = isize;

/// `MPI_SUCCESS`.
pub const MPI_SUCCESS: Fint = 0;

/// Stores a C return code in the Fortran `ierror` argument.
///
/// # Safety
/// `ierror` must be null or valid for writing an `INTEGER`.
pub unsafe fn set_ierror(ierror: *mut Fint, code: std::os::raw::c_int) {
    if !ierror.is_null() {
        ierror.write(code);
    }
}

/// Writes `value` through an out-pointer if it is not null.
///
/// # Safety
/// `ptr` must be null or valid for writing a `T`.
pub unsafe fn write_out<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        ptr.write(value);
    }
}
