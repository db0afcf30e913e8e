//! Environment: init, finalize, abort, clocks and the processor name.

use crate::{c, set_ierror, Fint};
use std::os::raw::c_char;

fortran_fn! {
    /// `MPI_INIT(IERROR)`.
    fn mpi_init_(ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Init(std::ptr::null_mut(), std::ptr::null_mut()));
    }
}

fortran_fn! {
    /// `MPI_INIT_THREAD(REQUIRED, PROVIDED, IERROR)`.
    fn mpi_init_thread_(required: *const Fint, provided: *mut Fint, ierror: *mut Fint) {
        let r = c::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), *required, provided);
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_FINALIZE(IERROR)`.
    fn mpi_finalize_(ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Finalize());
    }
}

fortran_fn! {
    /// `MPI_INITIALIZED(FLAG, IERROR)`: `FLAG` is a `LOGICAL` (gfortran's
    /// `.TRUE.` is 1, like C's true).
    fn mpi_initialized_(flag: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Initialized(flag));
    }
}

fortran_fn! {
    /// `MPI_ABORT(COMM, ERRORCODE, IERROR)`.
    fn mpi_abort_(comm: *const Fint, errorcode: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Abort(*comm, *errorcode));
    }
}

fortran_fn! {
    /// `DOUBLE PRECISION MPI_WTIME()`.
    fn mpi_wtime_() -> f64 {
        c::MPI_Wtime()
    }
}

fortran_fn! {
    /// `DOUBLE PRECISION MPI_WTICK()`.
    fn mpi_wtick_() -> f64 {
        c::MPI_Wtick()
    }
}

/// Longest processor name the C function writes, with its NUL
/// (`MPI_MAX_PROCESSOR_NAME` of MPICH is 128).
const MAX_PROCESSOR_NAME: usize = 128;

fortran_fn! {
    /// `MPI_GET_PROCESSOR_NAME(NAME, RESULTLEN, IERROR)`: `NAME` is a
    /// `CHARACTER*(*)` whose length gfortran passes last; the name is
    /// blank-padded (truncated if `NAME` is shorter).
    fn mpi_get_processor_name_(name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) {
        let mut buf = [0 as c_char; MAX_PROCESSOR_NAME + 1];
        let mut len: Fint = 0;
        let r = c::MPI_Get_processor_name(buf.as_mut_ptr(), &mut len);
        let n = (len.max(0) as usize).min(MAX_PROCESSOR_NAME).min(name_len);
        if name_len > 0 && !name.is_null() {
            let out = std::slice::from_raw_parts_mut(name, name_len);
            out[..n].copy_from_slice(&buf[..n]);
            out[n..].fill(b' ' as c_char);
        }
        if !resultlen.is_null() {
            *resultlen = n as Fint;
        }
        set_ierror(ierror, r);
    }
}
