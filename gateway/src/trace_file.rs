//! The trace file of `mpinetsim run --record`: the ranks' event streams
//! (`rank-<r>.events` in the job's private folder) merged into one file
//! with a header (see `mpinetsim_protocol::trace`, docs/trace-format.md).

use crate::error::Error;
use mpinetsim_protocol::trace::{Trace, TraceEvent};
use std::path::Path;

/// Merges the streams of `ranks` ranks from `dir` into `path`; a rank
/// whose stream is missing or does not end with its MPI_Finalize makes
/// the trace unusable, said in one sentence. Every failure is internal
/// (exit code 4, as any file of a job that could not be finished): the
/// streams are mpinetsim's private files.
pub fn merge(path: &Path, dir: &Path, ranks: u32) -> Result<(), Error> {
    let mut trace = Trace::default();
    for rank in 0..ranks {
        let file = dir.join(format!("rank-{rank}.events"));
        let bytes = std::fs::read(&file).map_err(|e| {
            Error::internal(format!("--record: rank {rank} recorded no events ({e}); it did not initialise MPI, so no trace was written"))
        })?;
        let events = Trace::decode_stream(&bytes).map_err(|e| {
            Error::internal(format!(
                "--record: rank {rank}'s events are damaged ({e}); no trace was written"
            ))
        })?;
        if events.last() != Some(&TraceEvent::End) {
            return Err(Error::internal(format!(
                "--record: rank {rank} did not reach MPI_Finalize, so its trace is incomplete; no trace was written"
            )));
        }
        trace.ranks.push(events);
    }
    crate::output_file::write_whole(path, &trace.to_bytes(), "--record").map_err(Error::from)
}

/// Reads a trace file; the error is one sentence naming it.
pub fn read(path: &Path) -> Result<Trace, Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the trace {}: {e}", path.display()))?;
    Trace::from_bytes(&bytes).map_err(|e| {
        Error::Usage(format!(
            "{} cannot be replayed: {e}; record it with `mpinetsim run --record FILE`",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_the_user_names_is_usage_and_the_private_streams_are_internal() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("none.trace");
        let e = read(&missing).unwrap_err();
        assert_eq!(e.exit_code(), crate::exit_code::USAGE, "{e}");
        assert!(e.to_string().starts_with("cannot read the trace "), "{e}");
        // No rank-0.events in the private folder: the job cannot finish
        // its trace, which is mpinetsim's failure to finish (exit 4).
        let e = merge(&d.path().join("out.trace"), d.path(), 1).unwrap_err();
        assert_eq!(e.exit_code(), crate::exit_code::INTERNAL, "{e}");
        assert!(
            e.to_string()
                .starts_with("--record: rank 0 recorded no events ("),
            "{e}"
        );
        assert!(!d.path().join("out.trace").exists());
    }
}
