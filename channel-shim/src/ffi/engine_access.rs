//! Access to the process's engine from the C functions.

use crate::runtime::{self, GatewayTransport};
use shim_engine::{Engine, MpiError};
use std::cell::RefCell;

thread_local! {
    /// The first MPI call a user reduction function made that the busy
    /// engine could not answer: the job ends with it once the engine is
    /// free again (so the sentence reaches the gateway's report).
    static CALL_FROM_USER_FUNCTION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f` on the engine; calling MPI outside Init..Finalize, or from a
/// user reduction function while the engine runs it, ends the job with one
/// line naming the function.
pub fn engine<R>(
    func: &str,
    f: impl FnOnce(&mut Engine<GatewayTransport>) -> Result<R, MpiError>,
) -> Result<R, MpiError> {
    if runtime::engine_held_by_this_thread() {
        // Waiting for the engine would wait for ourselves: fail the call,
        // and end the job when the outer call gives the engine back.
        CALL_FROM_USER_FUNCTION.with(|c| {
            c.borrow_mut().get_or_insert_with(|| format!(
                "{func} was called inside a user-defined reduction function (MPI_Op_create), where mpinetsim answers only datatype queries such as MPI_Type_get_extent; move the call out of the function"
            ));
        });
        return Err(MpiError::Other);
    }
    let r = runtime::with_engine(f);
    if let Some(message) = CALL_FROM_USER_FUNCTION.with(|c| c.borrow_mut().take()) {
        runtime::fatal(&message);
    }
    match r {
        Some(r) => r,
        None => runtime::fatal(&format!(
            "{func} was called {}; call it between MPI_Init and MPI_Finalize",
            if runtime::is_finalized() {
                "after MPI_Finalize"
            } else {
                "before MPI_Init"
            }
        )),
    }
}
