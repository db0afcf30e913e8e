//! Generalized requests: `MPI_Grequest_start`, `MPI_Grequest_complete`,
//! and the program's query, free and cancel functions, called without the
//! engine's lock (they may call MPI) as MPI 3.1 §12.2 says:
//!
//! - a wait or test that completes the request calls `query_fn` to fill
//!   the status, then `free_fn` as the request is deallocated; a non-zero
//!   return of either is the call's error (in the status for the
//!   multi-request calls, which then return `MPI_ERR_IN_STATUS`);
//! - `MPI_Request_get_status` calls `query_fn` once the request is complete;
//! - `MPI_Cancel` calls `cancel_fn` with whether the request is complete;
//! - `MPI_Request_free` calls `free_fn` at once.
//!
//! The request itself, and its state, are the engine's
//! (`shim_engine::grequest`).

use crate::abi::*;
use crate::ffi::buffers::ignored;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::{request_from, request_to};
use crate::ffi::write_out;
use crate::runtime;
use shim_engine::{MpiError, Opaque, RequestId};
use std::os::raw::{c_int, c_void};

/// `MPI_Grequest_query_function`.
pub type QueryFn = unsafe extern "C" fn(*mut c_void, *mut MpiStatus) -> c_int;
/// `MPI_Grequest_free_function`.
pub type FreeFn = unsafe extern "C" fn(*mut c_void) -> c_int;
/// `MPI_Grequest_cancel_function`.
pub type CancelFn = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;

/// What the engine keeps as a generalized request's [`Opaque`].
#[derive(Clone, Copy)]
pub struct GrequestFns {
    query: Option<QueryFn>,
    free: Option<FreeFn>,
    cancel: Option<CancelFn>,
    extra: usize,
}

/// The callbacks of the generalized requests among `ids` (None for the
/// others), looked up before a wait or test takes the requests.
pub fn generalized_of(ids: &[Option<RequestId>]) -> Vec<Option<GrequestFns>> {
    runtime::with_engine(|e| {
        ids.iter()
            .map(|id| {
                id.and_then(|id| e.generalized(id))
                    .and_then(|o| o.get::<GrequestFns>().copied())
            })
            .collect()
    })
    .unwrap_or_else(|| vec![None; ids.len()])
}

/// A generalized request a wait or test completed, whose callbacks run
/// once the engine's lock is released.
pub struct Completed {
    fns: GrequestFns,
    status: *mut MpiStatus,
    freed: bool,
}

impl Completed {
    /// `fns`' request completed; its status goes to `status`; `freed`: it
    /// was deallocated.
    pub fn new(fns: GrequestFns, status: *mut MpiStatus, freed: bool) -> Completed {
        Completed { fns, status, freed }
    }
}

fn code_error(code: c_int) -> Option<MpiError> {
    (code != MPI_SUCCESS).then_some(MpiError::Code(code))
}

/// Calls `query_fn` into `status` (a scratch status when the program
/// ignores it): its error, if any.
///
/// # Safety
/// `status` must be ignored or valid; the program's function must be valid.
unsafe fn query(fns: &GrequestFns, status: *mut MpiStatus) -> Option<MpiError> {
    let mut scratch = MpiStatus::default();
    let target = if ignored(status) {
        &mut scratch
    } else {
        &mut *status
    };
    let code = match fns.query {
        Some(q) => q(fns.extra as *mut c_void, target),
        None => MPI_SUCCESS,
    };
    code_error(code)
}

/// Calls `free_fn`: its error, if any.
///
/// # Safety
/// The program's function must be valid.
unsafe fn free(fns: &GrequestFns) -> Option<MpiError> {
    code_error(match fns.free {
        Some(f) => f(fns.extra as *mut c_void),
        None => MPI_SUCCESS,
    })
}

/// Runs the callbacks of completed generalized requests: the first error
/// (a multi-request call also stores each in its status's `MPI_ERROR`).
///
/// # Safety
/// Each status must be ignored or valid for writing.
pub unsafe fn run(done: Vec<Completed>, errors_in_status: bool) -> Option<MpiError> {
    let mut first = None;
    for d in done {
        let e = query(&d.fns, d.status);
        let e = match (e, d.freed) {
            (e, true) => free(&d.fns).or(e),
            (e, false) => e,
        };
        if let Some(err) = e {
            if errors_in_status && !ignored(d.status) {
                (*d.status).mpi_error = crate::ffi::errors::error_class(err);
            }
            first.get_or_insert(err);
        }
    }
    first
}

/// `MPI_Request_get_status` of a complete generalized request: the query.
///
/// # Safety
/// `status` must be ignored or valid for writing.
pub unsafe fn status_of(fns: &GrequestFns, status: *mut MpiStatus) -> Result<(), MpiError> {
    query(fns, status).map_or(Ok(()), Err)
}

/// `MPI_Cancel` of a generalized request.
///
/// # Safety
/// The program's function must be valid.
pub unsafe fn cancel(fns: &GrequestFns, complete: bool) -> Result<(), MpiError> {
    let code = match fns.cancel {
        Some(c) => c(fns.extra as *mut c_void, complete as c_int),
        None => MPI_SUCCESS,
    };
    code_error(code).map_or(Ok(()), Err)
}

/// `MPI_Request_free` of a generalized request: `free_fn` now.
///
/// # Safety
/// The program's function must be valid.
pub unsafe fn freed(fns: &GrequestFns) -> Result<(), MpiError> {
    free(fns).map_or(Ok(()), Err)
}

mpi_fn! { fn MPI_Grequest_start(query_fn: Option<QueryFn>, free_fn: Option<FreeFn>, cancel_fn: Option<CancelFn>, extra_state: *mut c_void, request: *mut c_int) {
    let func = "MPI_Grequest_start";
    let fns = GrequestFns { query: query_fn, free: free_fn, cancel: cancel_fn, extra: extra_state as usize };
    let r = engine(func, |e| Ok(e.grequest_start(Opaque::new(fns))));
    finish(MPI_COMM_WORLD, func, r.map(|id| write_out(request, request_to(id))))
} }

mpi_fn! { fn MPI_Grequest_complete(request: c_int) {
    let func = "MPI_Grequest_complete";
    let r = (|| {
        let id = request_from(request)?.ok_or(MpiError::Request)?;
        engine(func, |e| e.grequest_complete(id))
    })();
    finish(MPI_COMM_WORLD, func, r)
} }
