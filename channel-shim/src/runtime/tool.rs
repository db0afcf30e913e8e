//! The process's MPI tool interface (`MPI_T_*`): it outlives the engine
//! (tools may use it before `MPI_Init` and after `MPI_Finalize`), so it is
//! held apart, behind its own lock, never taken while the engine's is held.

use shim_engine::tool::ToolInterface;
use std::sync::{Mutex, OnceLock};

static TOOL: OnceLock<Mutex<ToolInterface>> = OnceLock::new();

/// Runs `f` with the tool interface.
pub fn with_tool<R>(f: impl FnOnce(&mut ToolInterface) -> R) -> R {
    let m = TOOL.get_or_init(|| Mutex::new(ToolInterface::default()));
    let mut g = m.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut g)
}
