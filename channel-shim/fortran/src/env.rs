//! Environment: init, finalize, abort, thread level, versions, clocks, the
//! processor name and error classes and strings.

use crate::strings::{text_in, text_out};
use crate::{c, sentinel, set_ierror, Fint};
use std::os::raw::c_char;

fortran_wrappers! {
    fn mpi_finalize_ = MPI_Finalize();
    fn mpi_finalized_ = MPI_Finalized(flag: IntRef);
    fn mpi_initialized_ = MPI_Initialized(flag: IntRef);
    fn mpi_abort_ = MPI_Abort(comm: In, errorcode: In);
    fn mpi_is_thread_main_ = MPI_Is_thread_main(flag: IntRef);
    fn mpi_query_thread_ = MPI_Query_thread(provided: IntRef);
    fn mpi_get_version_ = MPI_Get_version(version: IntRef, subversion: IntRef);
    fn mpi_error_class_ = MPI_Error_class(errorcode: In, errorclass: IntRef);
    fn mpi_add_error_class_ = MPI_Add_error_class(errorclass: IntRef);
    fn mpi_add_error_code_ = MPI_Add_error_code(errorclass: In, errorcode: IntRef);
}

fortran_fn! {
    /// `MPI_INIT(IERROR)`: also finds the program's sentinel blocks.
    fn mpi_init_(ierror: *mut Fint) {
        sentinel::init();
        set_ierror(ierror, c::MPI_Init(std::ptr::null_mut(), std::ptr::null_mut()));
    }
}

fortran_fn! {
    /// `MPI_INIT_THREAD(REQUIRED, PROVIDED, IERROR)`: also finds the
    /// program's sentinel blocks.
    fn mpi_init_thread_(required: *const Fint, provided: *mut Fint, ierror: *mut Fint) {
        sentinel::init();
        let r = c::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), *required, provided);
        set_ierror(ierror, r);
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

/// `MPI_MAX_PROCESSOR_NAME` of MPICH's C header (the Fortran one is 1 less).
const MAX_PROCESSOR_NAME: usize = 128;
/// `MPI_MAX_LIBRARY_VERSION_STRING` of MPICH's C header.
const MAX_LIBRARY_VERSION_STRING: usize = 8192;
/// `MPI_MAX_ERROR_STRING` of MPICH's C header.
const MAX_ERROR_STRING: usize = 512;

fortran_fn! {
    /// `MPI_GET_PROCESSOR_NAME(NAME, RESULTLEN, IERROR)`: `NAME` is a
    /// `CHARACTER*(*)`, blank-padded (truncated if shorter than the name).
    fn mpi_get_processor_name_(name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) {
        text_out(MAX_PROCESSOR_NAME, |t, l| c::MPI_Get_processor_name(t, l), name, name_len, resultlen, ierror);
    }
}

fortran_fn! {
    /// `MPI_GET_LIBRARY_VERSION(VERSION, RESULTLEN, IERROR)`: blank-padded.
    fn mpi_get_library_version_(version: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, version_len: usize) {
        text_out(MAX_LIBRARY_VERSION_STRING, |t, l| c::MPI_Get_library_version(t, l), version, version_len, resultlen, ierror);
    }
}

fortran_fn! {
    /// `MPI_ERROR_STRING(ERRORCODE, STRING, RESULTLEN, IERROR)`: blank-padded.
    fn mpi_error_string_(errorcode: *const Fint, string: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, string_len: usize) {
        let code = *errorcode;
        text_out(MAX_ERROR_STRING, |t, l| c::MPI_Error_string(code, t, l), string, string_len, resultlen, ierror);
    }
}

fortran_fn! {
    /// `MPI_ADD_ERROR_STRING(ERRORCODE, STRING, IERROR)`: trailing blanks
    /// of `STRING` are not part of the text.
    fn mpi_add_error_string_(errorcode: *const Fint, string: *const c_char, ierror: *mut Fint, string_len: usize) {
        let text = text_in(string, string_len);
        set_ierror(ierror, c::MPI_Add_error_string(*errorcode, text.as_ptr()));
    }
}

fortran_fn! {
    /// `MPI_F_SYNC_REG(BUF)`: tells the Fortran compiler that `BUF` may
    /// have changed (the call itself does nothing).
    fn mpi_f_sync_reg_(_buf: *mut std::os::raw::c_void) {}
}
