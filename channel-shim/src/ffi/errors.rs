//! Error classes, codes and handlers: what happens when a call fails, and
//! the `MPI_Error_*`, `MPI_Add_error_*` and error-handler calls.
//!
//! The handlers and which communicator has which live in the engine
//! (`shim_engine::errhandler`, which documents the rules); the added
//! classes, codes and strings too (`shim_engine::error_codes`). Here:
//! `MPI_ERRORS_ARE_FATAL` (and `MPI_ERRORS_ABORT`) end the job with one
//! line naming the call, the error and the communicator;
//! `MPI_ERRORS_RETURN` returns the code; a handler the program created is
//! called (without the engine's lock held) and the code returned.

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::handles::{self, errhandler_from, errhandler_to};
use crate::ffi::{write_c_string, write_out};
use crate::runtime;
use shim_engine::error_codes::class_text;
use shim_engine::{CommId, ErrorAction, MpiError, Opaque};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// `MPI_Comm_errhandler_function` (and MPI-1 `MPI_Handler_function`):
/// `void f(MPI_Comm *comm, int *error_code, ...)`.
pub type HandlerFn = unsafe extern "C" fn(*mut c_int, *mut c_int, ...);

/// What the engine keeps as a created handler's [`Opaque`].
#[derive(Clone, Copy)]
struct HandlerFns {
    f: HandlerFn,
}

/// The C function of a handler the program created (for the handlers of
/// files, whose first argument is an `MPI_File *`).
pub(crate) fn handler_function(fns: &Opaque) -> Option<HandlerFn> {
    fns.get::<HandlerFns>().map(|h| h.f)
}

/// The MPI error code of an engine error.
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
        MpiError::Unknown => MPI_ERR_UNKNOWN,
        MpiError::Intern => MPI_ERR_INTERN,
        MpiError::Topology => MPI_ERR_TOPOLOGY,
        MpiError::Dims => MPI_ERR_DIMS,
        MpiError::Keyval => MPI_ERR_KEYVAL,
        MpiError::Info => MPI_ERR_INFO,
        MpiError::InfoKey => MPI_ERR_INFO_KEY,
        MpiError::InfoValue => MPI_ERR_INFO_VALUE,
        MpiError::InfoNokey => MPI_ERR_INFO_NOKEY,
        MpiError::NoMem => MPI_ERR_NO_MEM,
        MpiError::Win => MPI_ERR_WIN,
        MpiError::Disp => MPI_ERR_DISP,
        MpiError::Size => MPI_ERR_SIZE,
        MpiError::RmaSync => MPI_ERR_RMA_SYNC,
        MpiError::RmaRange => MPI_ERR_RMA_RANGE,
        MpiError::RmaAttach => MPI_ERR_RMA_ATTACH,
        MpiError::RmaFlavor => MPI_ERR_RMA_FLAVOR,
        MpiError::Session => MPI_ERR_SESSION,
        MpiError::RmaShared => MPI_ERR_RMA_SHARED,
        MpiError::Code(c) => c,
    }
}

/// The name of a predefined error class, for the line a fatal error prints.
fn class_name(class: c_int) -> Option<&'static str> {
    Some(match class {
        MPI_ERR_BUFFER => "MPI_ERR_BUFFER",
        MPI_ERR_COUNT => "MPI_ERR_COUNT",
        MPI_ERR_TYPE => "MPI_ERR_TYPE",
        MPI_ERR_TAG => "MPI_ERR_TAG",
        MPI_ERR_WIN => "MPI_ERR_WIN",
        MPI_ERR_DISP => "MPI_ERR_DISP",
        MPI_ERR_SIZE => "MPI_ERR_SIZE",
        MPI_ERR_RMA_SYNC => "MPI_ERR_RMA_SYNC",
        MPI_ERR_RMA_RANGE => "MPI_ERR_RMA_RANGE",
        MPI_ERR_RMA_ATTACH => "MPI_ERR_RMA_ATTACH",
        MPI_ERR_RMA_FLAVOR => "MPI_ERR_RMA_FLAVOR",
        MPI_ERR_COMM => "MPI_ERR_COMM",
        MPI_ERR_RANK => "MPI_ERR_RANK",
        MPI_ERR_ROOT => "MPI_ERR_ROOT",
        MPI_ERR_GROUP => "MPI_ERR_GROUP",
        MPI_ERR_OP => "MPI_ERR_OP",
        MPI_ERR_TOPOLOGY => "MPI_ERR_TOPOLOGY",
        MPI_ERR_DIMS => "MPI_ERR_DIMS",
        MPI_ERR_ARG => "MPI_ERR_ARG",
        MPI_ERR_UNKNOWN => "MPI_ERR_UNKNOWN",
        MPI_ERR_TRUNCATE => "MPI_ERR_TRUNCATE",
        MPI_ERR_OTHER => "MPI_ERR_OTHER",
        MPI_ERR_INTERN => "MPI_ERR_INTERN",
        MPI_ERR_IN_STATUS => "MPI_ERR_IN_STATUS",
        MPI_ERR_PENDING => "MPI_ERR_PENDING",
        MPI_ERR_REQUEST => "MPI_ERR_REQUEST",
        MPI_ERR_INFO => "MPI_ERR_INFO",
        MPI_ERR_INFO_KEY => "MPI_ERR_INFO_KEY",
        MPI_ERR_INFO_VALUE => "MPI_ERR_INFO_VALUE",
        MPI_ERR_INFO_NOKEY => "MPI_ERR_INFO_NOKEY",
        MPI_ERR_NO_MEM => "MPI_ERR_NO_MEM",
        MPI_ERR_KEYVAL => "MPI_ERR_KEYVAL",
        MPI_ERR_SESSION => "MPI_ERR_SESSION",
        _ => return None,
    })
}

/// The text of an error code: the program's string for codes it added,
/// MPICH's text of the class otherwise.
fn code_text(code: c_int) -> String {
    runtime::with_engine(|e| e.error_codes().text(code)).unwrap_or_else(|| class_text(code).into())
}

fn comm_name(comm: c_int) -> String {
    match comm {
        MPI_COMM_WORLD => "MPI_COMM_WORLD".into(),
        MPI_COMM_SELF => "MPI_COMM_SELF".into(),
        w if handles::win_from(w).is_ok() => format!("window {w:#x}"),
        s if crate::ffi::session::session_from(s).is_ok() => format!("session {s:#x}"),
        other => format!("communicator {other:#x}"),
    }
}

/// Applies `action` to error `code` of `func` on `comm`.
pub(crate) fn apply(action: ErrorAction, comm: c_int, func: &str, code: c_int) -> c_int {
    match action {
        ErrorAction::Return => code,
        ErrorAction::Call(fns) => {
            let h = fns
                .get::<HandlerFns>()
                .expect("created handlers hold a C function");
            let (mut c, mut k) = (comm, code);
            // SAFETY: the program created the handler from this function,
            // an MPI_Comm_errhandler_function.
            unsafe { (h.f)(&mut c, &mut k) };
            code
        }
        ErrorAction::Abort => {
            let text = code_text(code);
            let text = match class_name(code) {
                Some(name) => format!("{text} ({name})"),
                None => format!("{text} (error code {code})"),
            };
            runtime::fatal(&format!("{func} failed on {}: {text}", comm_name(comm)))
        }
    }
}

/// Handles an error of `func` on `comm` with the handler that handles it:
/// returns the error code, unless the handler ends the job.
pub fn fail(comm: c_int, func: &str, e: MpiError) -> c_int {
    let code = error_class(e);
    if runtime::engine_held_by_this_thread() {
        // From a user function the busy engine runs: its error handler
        // cannot be looked up; the job ends once the engine is free.
        return code;
    }
    if let Ok(w) = handles::win_from(comm) {
        // Errors on a window go to the window's handler.
        let action = runtime::with_engine(|eng| eng.win_error_handling(w));
        return match action {
            Some(Some(a)) => apply(a, comm, func, code),
            _ => apply(ErrorAction::Abort, MPI_COMM_WORLD, func, code),
        };
    }
    let c = handles::comm_from(comm).ok();
    let (action, live) = runtime::with_engine(|eng| {
        let live = c.is_some_and(|c| eng.comm_size(c).is_ok());
        (eng.error_handling(c).1, live)
    })
    .unwrap_or((ErrorAction::Abort, false));
    apply(action, if live { comm } else { MPI_COMM_WORLD }, func, code)
}

/// Turns a call's result into its return code.
pub fn finish(comm: c_int, func: &str, r: Result<(), MpiError>) -> c_int {
    match r {
        Ok(()) => MPI_SUCCESS,
        Err(e) => fail(comm, func, e),
    }
}

/// A communicator handle that names a live communicator.
fn live_comm(func: &str, comm: c_int) -> Result<CommId, MpiError> {
    let c = handles::comm_from(comm)?;
    engine(func, |e| e.comm_size(c))?;
    Ok(c)
}

pub(crate) unsafe fn create_errhandler(
    func: &str,
    f: Option<HandlerFn>,
    errhandler: *mut c_int,
) -> c_int {
    let r = (|| {
        let f = f.ok_or(MpiError::Arg)?;
        let id = engine(func, |e| {
            Ok(e.errhandler_create(Opaque::new(HandlerFns { f })))
        })?;
        write_out(errhandler, errhandler_to(id));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Comm_create_errhandler(comm_errhandler_fn: Option<HandlerFn>, errhandler: *mut c_int) {
    create_errhandler("MPI_Comm_create_errhandler", comm_errhandler_fn, errhandler)
} }

mpi_fn! { fn MPI_Errhandler_create(function: Option<HandlerFn>, errhandler: *mut c_int) {
    create_errhandler("MPI_Errhandler_create", function, errhandler)
} }

unsafe fn set_errhandler(func: &str, comm: c_int, errhandler: c_int) -> c_int {
    let r = (|| {
        let c = live_comm(func, comm)?;
        let h = errhandler_from(errhandler)?;
        engine(func, |e| e.comm_set_errhandler(c, h))
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_set_errhandler(comm: c_int, errhandler: c_int) {
    set_errhandler("MPI_Comm_set_errhandler", comm, errhandler)
} }

mpi_fn! { fn MPI_Errhandler_set(comm: c_int, errhandler: c_int) {
    set_errhandler("MPI_Errhandler_set", comm, errhandler)
} }

unsafe fn get_errhandler(func: &str, comm: c_int, errhandler: *mut c_int) -> c_int {
    let r = (|| {
        let c = live_comm(func, comm)?;
        let h = engine(func, |e| e.comm_get_errhandler(c))?;
        write_out(errhandler, errhandler_to(h));
        Ok(())
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_get_errhandler(comm: c_int, errhandler: *mut c_int) {
    get_errhandler("MPI_Comm_get_errhandler", comm, errhandler)
} }

mpi_fn! { fn MPI_Errhandler_get(comm: c_int, errhandler: *mut c_int) {
    get_errhandler("MPI_Errhandler_get", comm, errhandler)
} }

mpi_fn! { fn MPI_Errhandler_free(errhandler: *mut c_int) {
    let func = "MPI_Errhandler_free";
    let r = (|| {
        if errhandler.is_null() {
            return Err(MpiError::Arg);
        }
        let h = errhandler_from(*errhandler)?;
        engine(func, |e| e.errhandler_free(h))?;
        write_out(errhandler, MPI_ERRHANDLER_NULL);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Comm_call_errhandler(comm: c_int, errorcode: c_int) {
    let func = "MPI_Comm_call_errhandler";
    match live_comm(func, comm) {
        Err(e) => fail(comm, func, e),
        Ok(c) => {
            let action = engine(func, |e| Ok(e.error_handling(Some(c)).1));
            match action {
                Err(e) => fail(comm, func, e),
                Ok(a) => {
                    apply(a, comm, func, errorcode);
                    // MPI: success once the handler was called and returned.
                    MPI_SUCCESS
                }
            }
        }
    }
} }

// ---- classes, codes, strings ----

mpi_fn! { fn MPI_Error_class(errorcode: c_int, errorclass: *mut c_int) {
    let class = runtime::with_engine(|e| e.error_codes().class_of(errorcode))
        .unwrap_or(errorcode & 0x7f);
    write_out(errorclass, class);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Error_string(errorcode: c_int, string: *mut c_char, resultlen: *mut c_int) {
    let n = write_c_string(string, MPI_MAX_ERROR_STRING as usize, &code_text(errorcode));
    write_out(resultlen, n as c_int);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Add_error_class(errorclass: *mut c_int) {
    let func = "MPI_Add_error_class";
    let r = engine(func, |e| e.error_codes_mut().add_class()).map(|c| write_out(errorclass, c));
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Add_error_code(errorclass: c_int, errorcode: *mut c_int) {
    let func = "MPI_Add_error_code";
    let r = engine(func, |e| e.error_codes_mut().add_code(errorclass)).map(|c| write_out(errorcode, c));
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Add_error_string(errorcode: c_int, string: *const c_char) {
    let func = "MPI_Add_error_string";
    let r = (|| {
        if string.is_null() {
            return Err(MpiError::Arg);
        }
        let text = CStr::from_ptr(string).to_string_lossy();
        engine(func, |e| e.error_codes_mut().set_string(errorcode, &text))
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPIX_Delete_error_class(errorclass: c_int) {
    let func = "MPIX_Delete_error_class";
    finish(MPI_COMM_WORLD, func, engine(func, |e| e.error_codes_mut().remove_class(errorclass)))
} }

mpi_fn! { fn MPIX_Delete_error_code(errorcode: c_int) {
    let func = "MPIX_Delete_error_code";
    finish(MPI_COMM_WORLD, func, engine(func, |e| e.error_codes_mut().remove_code(errorcode)))
} }

mpi_fn! { fn MPIX_Delete_error_string(errorcode: c_int) {
    let func = "MPIX_Delete_error_string";
    finish(MPI_COMM_WORLD, func, engine(func, |e| e.error_codes_mut().remove_string(errorcode)))
} }
