//! Error classes, error handlers and the `MPI_Error_*` / errhandler calls.
//!
//! Every communicator starts with `MPI_ERRORS_ARE_FATAL`: an error ends the
//! job with one line naming the call, the error class and the
//! communicator. With `MPI_ERRORS_RETURN` the call returns the class.

use crate::abi::*;
use crate::ffi::{handles, write_c_string, write_out};
use crate::runtime;
use shim_engine::MpiError;
use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::sync::Mutex;

/// Error handler per communicator handle (absent = MPI_ERRORS_ARE_FATAL).
static ERRHANDLERS: Mutex<Option<HashMap<c_int, c_int>>> = Mutex::new(None);

/// The MPI error class of an engine error.
pub fn error_class(e: MpiError) -> c_int {
    match e {
        MpiError::Rank => MPI_ERR_RANK,
        MpiError::Tag => MPI_ERR_TAG,
        MpiError::Count => MPI_ERR_COUNT,
        MpiError::Comm => MPI_ERR_COMM,
        MpiError::Datatype => MPI_ERR_TYPE,
        MpiError::Op => MPI_ERR_OP,
        MpiError::Request => MPI_ERR_REQUEST,
        MpiError::Buffer => MPI_ERR_BUFFER,
        MpiError::Truncate => MPI_ERR_TRUNCATE,
        MpiError::Root => MPI_ERR_ROOT,
        MpiError::Group => MPI_ERR_GROUP,
        MpiError::Arg => MPI_ERR_ARG,
        MpiError::Pending => MPI_ERR_PENDING,
        MpiError::InStatus => MPI_ERR_IN_STATUS,
        MpiError::Other => MPI_ERR_OTHER,
    }
}

/// Text of an error class (what `MPI_Error_string` returns).
pub fn class_text(class: c_int) -> &'static str {
    match class {
        MPI_SUCCESS => "No MPI error",
        MPI_ERR_BUFFER => "Invalid buffer pointer (MPI_ERR_BUFFER)",
        MPI_ERR_COUNT => "Invalid count argument (MPI_ERR_COUNT)",
        MPI_ERR_TYPE => "Invalid datatype argument (MPI_ERR_TYPE)",
        MPI_ERR_TAG => "Invalid tag argument (MPI_ERR_TAG)",
        MPI_ERR_COMM => "Invalid communicator (MPI_ERR_COMM)",
        MPI_ERR_RANK => "Invalid rank (MPI_ERR_RANK)",
        MPI_ERR_ROOT => "Invalid root (MPI_ERR_ROOT)",
        MPI_ERR_GROUP => "Invalid group (MPI_ERR_GROUP)",
        MPI_ERR_OP => "Invalid operation (MPI_ERR_OP)",
        MPI_ERR_TOPOLOGY => "Invalid topology (MPI_ERR_TOPOLOGY)",
        MPI_ERR_DIMS => "Invalid dimension argument (MPI_ERR_DIMS)",
        MPI_ERR_ARG => "Invalid argument (MPI_ERR_ARG)",
        MPI_ERR_UNKNOWN => "Unknown error (MPI_ERR_UNKNOWN)",
        MPI_ERR_TRUNCATE => "Message truncated on receive (MPI_ERR_TRUNCATE)",
        MPI_ERR_OTHER => "Other MPI error (MPI_ERR_OTHER)",
        MPI_ERR_INTERN => "Internal MPI error (MPI_ERR_INTERN)",
        MPI_ERR_IN_STATUS => "Error code is in status (MPI_ERR_IN_STATUS)",
        MPI_ERR_PENDING => "Pending request (MPI_ERR_PENDING)",
        MPI_ERR_REQUEST => "Invalid request handle (MPI_ERR_REQUEST)",
        _ => "Unknown error class",
    }
}

fn errhandler_of(comm: c_int) -> c_int {
    // Errors on an invalid communicator (e.g. MPI_COMM_NULL) go to
    // MPI_COMM_WORLD's handler, as in MPICH.
    let comm = if handles::comm_from(comm).is_ok() {
        comm
    } else {
        MPI_COMM_WORLD
    };
    let g = ERRHANDLERS.lock().unwrap_or_else(|p| p.into_inner());
    g.as_ref()
        .and_then(|m| m.get(&comm).copied())
        .unwrap_or(MPI_ERRORS_ARE_FATAL)
}

fn comm_name(comm: c_int) -> String {
    match comm {
        MPI_COMM_WORLD => "MPI_COMM_WORLD".into(),
        MPI_COMM_SELF => "MPI_COMM_SELF".into(),
        other => format!("communicator {other:#x}"),
    }
}

/// Handles an error of `func` on `comm`: returns its class under
/// MPI_ERRORS_RETURN, ends the job otherwise.
pub fn fail(comm: c_int, func: &str, e: MpiError) -> c_int {
    let class = error_class(e);
    if errhandler_of(comm) == MPI_ERRORS_RETURN {
        return class;
    }
    runtime::fatal(&format!(
        "{func} failed on {}: {}",
        comm_name(comm),
        class_text(class)
    ))
}

/// Turns a call's result into its return code.
pub fn finish(comm: c_int, func: &str, r: Result<(), MpiError>) -> c_int {
    match r {
        Ok(()) => MPI_SUCCESS,
        Err(e) => fail(comm, func, e),
    }
}

mpi_fn! { fn MPI_Comm_set_errhandler(comm: c_int, errhandler: c_int) {
    if handles::comm_from(comm).is_err() {
        return fail(MPI_COMM_WORLD, "MPI_Comm_set_errhandler", MpiError::Comm);
    }
    if errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN {
        return fail(comm, "MPI_Comm_set_errhandler", MpiError::Arg);
    }
    let mut g = ERRHANDLERS.lock().unwrap_or_else(|p| p.into_inner());
    g.get_or_insert_with(HashMap::new).insert(comm, errhandler);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Comm_get_errhandler(comm: c_int, errhandler: *mut c_int) {
    if handles::comm_from(comm).is_err() {
        return fail(MPI_COMM_WORLD, "MPI_Comm_get_errhandler", MpiError::Comm);
    }
    write_out(errhandler, errhandler_of(comm));
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Errhandler_free(errhandler: *mut c_int) {
    write_out(errhandler, MPI_ERRHANDLER_NULL);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Error_class(errorcode: c_int, errorclass: *mut c_int) {
    write_out(errorclass, errorcode);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Error_string(errorcode: c_int, string: *mut c_char, resultlen: *mut c_int) {
    let n = write_c_string(string, MPI_MAX_ERROR_STRING as usize, class_text(errorcode));
    write_out(resultlen, n as c_int);
    MPI_SUCCESS
} }
