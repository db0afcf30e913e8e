//! The trace file of `mpinetsim run --record`: the ranks' event streams
//! (`rank-<r>.events` in the job's private folder) merged into one file
//! with a header (see `mpinetsim_protocol::trace`, docs/trace-format.md).

use mpinetsim_protocol::trace::{Trace, TraceEvent};
use std::path::Path;

/// Merges the streams of `ranks` ranks from `dir` into `path`; a rank
/// whose stream is missing or does not end with its MPI_Finalize makes
/// the trace unusable, said in one sentence.
pub fn merge(path: &Path, dir: &Path, ranks: u32) -> Result<(), String> {
    let mut trace = Trace::default();
    for rank in 0..ranks {
        let file = dir.join(format!("rank-{rank}.events"));
        let bytes = std::fs::read(&file).map_err(|e| {
            format!("--record: rank {rank} recorded no events ({e}); it did not initialise MPI, so no trace was written")
        })?;
        let events = Trace::decode_stream(&bytes).map_err(|e| {
            format!("--record: rank {rank}'s events are damaged ({e}); no trace was written")
        })?;
        if events.last() != Some(&TraceEvent::End) {
            return Err(format!(
                "--record: rank {rank} did not reach MPI_Finalize, so its trace is incomplete; no trace was written"
            ));
        }
        trace.ranks.push(events);
    }
    crate::output_file::write_whole(path, &trace.to_bytes(), "--record").map_err(String::from)
}

/// Reads a trace file; the error is one sentence naming it.
pub fn read(path: &Path) -> Result<Trace, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the trace {}: {e}", path.display()))?;
    Trace::from_bytes(&bytes).map_err(|e| {
        format!(
            "{} cannot be replayed: {e}; record it with `mpinetsim run --record FILE`",
            path.display()
        )
    })
}
