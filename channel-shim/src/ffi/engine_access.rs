//! Access to the process's engine from the C functions.

use crate::runtime::{self, GatewayTransport};
use shim_engine::{Engine, MpiError};

/// Runs `f` on the engine; calling MPI outside Init..Finalize ends the job
/// with one line naming the function.
pub fn engine<R>(
    func: &str,
    f: impl FnOnce(&mut Engine<GatewayTransport>) -> Result<R, MpiError>,
) -> Result<R, MpiError> {
    match runtime::with_engine(f) {
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
