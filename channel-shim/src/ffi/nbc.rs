//! Collectives in the form the program called: a blocking call starts the
//! engine's task and waits for it; a nonblocking call hands the program
//! the request. Either way the output reaches the program's buffers when
//! the completion is taken: the C layer gives the engine a finisher that
//! unpacks it there ([`shim_engine::collectives::CollFinish`]).

use crate::ffi::collectives::Eng;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish as finish_call;
use crate::ffi::handles::{comm_from, request_to};
use crate::ffi::multiple::{block_until, thread_multiple};
use crate::ffi::write_out;
use shim_engine::collectives::{CollFinish, Form};
use shim_engine::{CommId, MpiError, RequestId};
use std::os::raw::c_int;

/// Runs collective `func` on `comm` in form `form`: `start` checks the
/// arguments and starts the engine's task, returning its request and, if
/// the output goes to program memory, its finisher. Blocking: waits
/// (without the engine lock under `MPI_THREAD_MULTIPLE`). Nonblocking:
/// writes the request handle to `request`.
///
/// # Safety
/// `request` must be valid for writing an `int` in the nonblocking form.
pub unsafe fn run(
    func: &str,
    comm: c_int,
    form: Form,
    request: *mut c_int,
    start: impl FnOnce(&mut Eng, CommId) -> Result<(RequestId, Option<CollFinish>), MpiError>,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        let id = engine(func, |e| {
            let (id, fin) = start(e, c)?;
            if let Some(f) = fin {
                e.on_collective_done(id, f)?;
            }
            Ok(id)
        })?;
        match form {
            Form::Nonblocking => {
                write_out(request, request_to(id));
                Ok(())
            }
            Form::Blocking => wait(func, id),
        }
    })();
    finish_call(comm, func, r)
}

/// Waits for the collective behind `id` (its finisher delivers the output).
pub fn wait(func: &str, id: RequestId) -> Result<(), MpiError> {
    if thread_multiple() {
        block_until(func, |e| Ok(e.testall_done(&[Some(id)])?.then_some(())))?;
    }
    engine(func, |e| e.wait_collective(id).map(|_| ()))
}
