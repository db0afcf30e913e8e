//! `use mpi_f08` bindings of the MPI-IO routines written out in
//! [`crate::io`] that a program needs to reach the file data routines:
//! `MPI_File_open`, `MPI_File_close`, `MPI_File_delete`. `mpi_f08` passes
//! their arguments as mpif.h does (a `TYPE(MPI_File)` is one `INTEGER`, the
//! file name's length is a hidden `size_t` after all other arguments, also
//! when the optional `ierror` is absent), so each forwards to its mpif.h
//! routine. Each is also exported under MPICH's profiling name
//! `pmpir_xxx_f08_`.

use crate::Fint;
use std::os::raw::c_char;

/// Defines an `mpi_f08` routine forwarding to an mpif.h routine, and its
/// `pmpir_` profiling name.
macro_rules! f08_forward {
    ($(#[$doc:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) as $pname:ident => $target:ident) => {
            $(#[$doc])*
            ///
            /// # Safety
            /// The arguments must be valid as the MPI routine requires;
            /// `ierror` may be null.
            #[no_mangle]
            pub unsafe extern "C" fn $name($($arg: $ty),*) {
                crate::io::$target($($arg),*)
            }

            #[doc = concat!("Profiling name of [`", stringify!($name), "`].")]
            ///
            /// # Safety
            /// As the routine without `pmpir_`.
            #[no_mangle]
            pub unsafe extern "C" fn $pname($($arg: $ty),*) {
                $name($($arg),*)
            }
    };
}

f08_forward! {
    /// `MPI_File_open(comm, filename, amode, info, fh, ierror)` of `mpi_f08`.
    fn mpi_file_open_f08_(
        comm: *const Fint, filename: *const c_char, amode: *const Fint, info: *const Fint,
        fh: *mut Fint, ierror: *mut Fint, filename_len: usize,
    ) as pmpir_file_open_f08_ => mpi_file_open_
}

f08_forward! {
    /// `MPI_File_close(fh, ierror)` of `mpi_f08`.
    fn mpi_file_close_f08_(fh: *mut Fint, ierror: *mut Fint) as pmpir_file_close_f08_ => mpi_file_close_
}

f08_forward! {
    /// `MPI_File_delete(filename, info, ierror)` of `mpi_f08`.
    fn mpi_file_delete_f08_(
        filename: *const c_char, info: *const Fint, ierror: *mut Fint, filename_len: usize,
    ) as pmpir_file_delete_f08_ => mpi_file_delete_
}
