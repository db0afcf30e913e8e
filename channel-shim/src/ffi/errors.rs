//! Error classes, error handlers and the `MPI_Error_*` / errhandler calls.
//!
//! `MPI_ERRORS_ARE_FATAL` ends the job with one line naming the call, the
//! error class and the communicator; with `MPI_ERRORS_RETURN` the call
//! returns the class.
//!
//! As in MPICH, a communicator's handler is either set (by
//! `MPI_Comm_set_errhandler`, or copied from its parent when it was
//! created) or unset. An unset handler reads as `MPI_ERRORS_ARE_FATAL`
//! (`MPI_Comm_get_errhandler`), but errors on such a communicator go to
//! `MPI_COMM_WORLD`'s handler, as do errors on a handle that names no
//! communicator the program holds (garbage, `MPI_COMM_NULL`, a freed
//! communicator).

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::{handles, write_c_string, write_out};
use crate::runtime;
use shim_engine::MpiError;
use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::sync::Mutex;

/// The error handlers that are set, per communicator handle (see the
/// module docs; removed when the communicator is freed).
static ERRHANDLERS: Mutex<Option<HashMap<c_int, c_int>>> = Mutex::new(None);

fn with_errhandlers<R>(f: impl FnOnce(&mut HashMap<c_int, c_int>) -> R) -> R {
    let mut g = ERRHANDLERS.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// True for the predefined error handlers a communicator can have.
fn is_errhandler(h: c_int) -> bool {
    h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN
}

/// Forgets the error handler of a freed communicator, so that errors on
/// its stale handle go to MPI_COMM_WORLD's handler.
pub fn forget_errhandler(comm: c_int) {
    with_errhandlers(|m| m.remove(&comm));
}

/// Gives the new communicator `child` the handler of `parent` (set or unset).
pub fn inherit_errhandler(parent: c_int, child: c_int) {
    with_errhandlers(|m| match m.get(&parent).copied() {
        Some(h) => m.insert(child, h),
        None => m.remove(&child),
    });
}

/// The handler `MPI_Comm_get_errhandler` reports for a live communicator.
fn reported_errhandler(comm: c_int) -> c_int {
    with_errhandlers(|m| m.get(&comm).copied()).unwrap_or(MPI_ERRORS_ARE_FATAL)
}

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
        MpiError::Topology => MPI_ERR_TOPOLOGY,
        MpiError::Dims => MPI_ERR_DIMS,
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

/// The handler that handles errors on `comm` (see the module docs).
fn errhandler_of(comm: c_int) -> c_int {
    with_errhandlers(|m| m.get(&comm).or_else(|| m.get(&MPI_COMM_WORLD)).copied())
        .unwrap_or(MPI_ERRORS_ARE_FATAL)
}

/// Checks that `comm` names a live communicator.
fn live_comm(func: &str, comm: c_int) -> Result<(), MpiError> {
    let c = handles::comm_from(comm)?;
    engine(func, |e| e.comm_size(c)).map(|_| ())
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
    let func = "MPI_Comm_set_errhandler";
    if let Err(e) = live_comm(func, comm) {
        return fail(comm, func, e);
    }
    if !is_errhandler(errhandler) {
        return fail(comm, func, MpiError::Arg);
    }
    with_errhandlers(|m| m.insert(comm, errhandler));
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Comm_get_errhandler(comm: c_int, errhandler: *mut c_int) {
    let func = "MPI_Comm_get_errhandler";
    if let Err(e) = live_comm(func, comm) {
        return fail(comm, func, e);
    }
    write_out(errhandler, reported_errhandler(comm));
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Errhandler_free(errhandler: *mut c_int) {
    if errhandler.is_null() || !is_errhandler(*errhandler) {
        return fail(MPI_COMM_WORLD, "MPI_Errhandler_free", MpiError::Arg);
    }
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
