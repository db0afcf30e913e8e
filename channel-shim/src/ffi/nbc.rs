//! Collectives in the form the program called: a blocking call starts the
//! engine's task and waits for it; a nonblocking call hands the program a
//! request and remembers how to unpack the output into its buffers when a
//! test or wait completes the request (the engine itself keeps packed
//! bytes only: user memory is touched here).

use crate::abi::MPI_COMM_WORLD;
use crate::ffi::collectives::Eng;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish as finish_call;
use crate::ffi::handles::{comm_from, request_to};
use crate::ffi::multiple::{block_until, thread_multiple};
use crate::ffi::write_out;
use shim_engine::collectives::{CollOutput, Form};
use shim_engine::{CommId, MpiError, RequestId};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Mutex;

/// Unpacks a finished collective's output into the program's buffers
/// (addresses are kept as `usize`; the program keeps the buffers alive
/// until the request completes, as MPI requires).
pub type Finish = Box<dyn FnOnce(&Eng, CollOutput) -> Result<(), MpiError> + Send>;

/// A finisher that has nothing to unpack.
pub fn nothing() -> Finish {
    Box::new(|_, _| Ok(()))
}

/// A pending nonblocking collective: its communicator handle (for error
/// handlers) and how to unpack its output.
struct Pending {
    comm: c_int,
    finish: Finish,
}

static PENDING: Mutex<Option<HashMap<u32, Pending>>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut HashMap<u32, Pending>) -> R) -> R {
    let mut g = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// Remembers the request of a nonblocking collective on communicator
/// handle `comm` and how to unpack its output.
pub fn register(id: RequestId, comm: c_int, finish: Finish) {
    with(|m| m.insert(id.0, Pending { comm, finish }));
}

/// The communicator handle of a pending nonblocking collective.
pub fn comm_of(id: RequestId) -> Option<c_int> {
    with(|m| m.get(&id.0).map(|p| p.comm))
}

/// Forgets a nonblocking collective's request (`MPI_Request_free`).
pub fn forget(id: RequestId) {
    with(|m| m.remove(&id.0));
}

/// Unpacks the output of a completed nonblocking collective (nothing for
/// other requests, or when the collective failed).
pub fn complete(e: &Eng, id: RequestId, output: CollOutput, failed: bool) -> Result<(), MpiError> {
    match with(|m| m.remove(&id.0)) {
        Some(p) if !failed => (p.finish)(e, output),
        _ => Ok(()),
    }
}

/// Runs collective `func` on `comm` in form `form`: `start` checks the
/// arguments and starts the engine's task, returning its request and its
/// finisher. Blocking: waits (without the engine lock under
/// `MPI_THREAD_MULTIPLE`) and unpacks. Nonblocking: writes the request
/// handle to `request`.
///
/// # Safety
/// `request` must be valid for writing an `int` in the nonblocking form.
pub unsafe fn run(
    func: &str,
    comm: c_int,
    form: Form,
    request: *mut c_int,
    start: impl FnOnce(&mut Eng, CommId) -> Result<(RequestId, Finish), MpiError>,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        let (id, fin) = engine(func, |e| start(e, c))?;
        match form {
            Form::Nonblocking => {
                register(id, comm, fin);
                write_out(request, request_to(id));
                Ok(())
            }
            Form::Blocking => wait(func, id, fin),
        }
    })();
    finish_call(comm, func, r)
}

/// Waits for the collective behind `id` and unpacks its output.
pub fn wait(func: &str, id: RequestId, fin: Finish) -> Result<(), MpiError> {
    if thread_multiple() {
        block_until(func, |e| Ok(e.testall_done(&[Some(id)])?.then_some(())))?;
    }
    engine(func, |e| {
        let out = e.wait_collective(id)?;
        fin(e, out)
    })
}

/// The handle errors of request `id` go to: its communicator's, or world's.
pub fn error_comm(id: Option<RequestId>) -> c_int {
    id.and_then(comm_of).unwrap_or(MPI_COMM_WORLD)
}
