//! Per-rank timeline recording: every compute span, time-factor sleep and
//! MPI call, with raw monotonic wall-clock bounds, written as text lines to
//! `<dir>/rank-<r>.spans` for the gateway to merge into a trace (it knows
//! the job's epoch and factor, so it converts them to scaled time).
//!
//! Line format: `<kind> <start_ns> <end_ns> [<call name> | <cpu_ns>]`,
//! kind `C` (compute, with the computation the pacer counted: the CPU time
//! the process consumed during it, less what its clock reads overstated),
//! `S` (sleep) or `M` (MPI call, with its name).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// What a span was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// Sleeping to stretch computation by the time factor.
    Sleep,
    /// Inside an MPI call (blocked, from the program's point of view).
    Call,
}

/// The open span file of this rank.
#[derive(Debug)]
pub struct SpanLog {
    out: BufWriter<File>,
    failed: bool,
}

impl SpanLog {
    /// Creates `<dir>/rank-<rank>.spans`.
    pub fn create(dir: &Path, rank: u32) -> Result<SpanLog, String> {
        let path = dir.join(format!("rank-{rank}.spans"));
        let f =
            File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(SpanLog {
            out: BufWriter::with_capacity(1 << 16, f),
            failed: false,
        })
    }

    /// Appends one span (a write error stops recording, once).
    pub fn span(&mut self, kind: SpanKind, name: &str, start_ns: u64, end_ns: u64) {
        if self.failed {
            return;
        }
        let tag = match kind {
            SpanKind::Sleep => 'S',
            SpanKind::Call => 'M',
        };
        let r = if name.is_empty() {
            writeln!(self.out, "{tag} {start_ns} {end_ns}")
        } else {
            writeln!(self.out, "{tag} {start_ns} {end_ns} {name}")
        };
        self.failed = r.is_err();
    }

    /// Appends one compute span and the CPU time consumed during it.
    pub fn compute_span(&mut self, start_ns: u64, end_ns: u64, cpu_ns: u64) {
        if self.failed {
            return;
        }
        let r = writeln!(self.out, "C {start_ns} {end_ns} {cpu_ns}");
        self.failed = r.is_err();
    }

    /// Writes everything buffered to the file.
    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}
