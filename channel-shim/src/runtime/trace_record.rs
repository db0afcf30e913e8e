//! Recording this rank's events for `mpinetsim replay` (see
//! `mpinetsim_protocol::trace`): when `mpinetsim run --record` set
//! [`ENV_RECORD_DIR`], the rank appends its computations, the messages its
//! library sends and the ones it takes to `<dir>/rank-<r>.events`, which
//! the gateway merges into the trace file after the job.

use mpinetsim_protocol::trace::{TraceEvent, ENV_RECORD_DIR};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The open event stream (None: not recording).
static LOG: Mutex<Option<EventLog>> = Mutex::new(None);
/// Set once recording started, for a cheap check on every message.
static ON: AtomicBool = AtomicBool::new(false);

struct EventLog {
    out: BufWriter<File>,
    buf: Vec<u8>,
    failed: bool,
}

/// Starts recording for `rank` if the job records (MPI_Init); an error
/// is one sentence.
pub fn start(rank: u32) -> Result<(), String> {
    let Some(dir) = std::env::var_os(ENV_RECORD_DIR) else {
        return Ok(());
    };
    let path = std::path::Path::new(&dir).join(format!("rank-{rank}.events"));
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| {
            format!(
                "rank {rank} cannot record its events in {}: {e}",
                path.display()
            )
        })?;
    *lock() = Some(EventLog {
        out: BufWriter::with_capacity(1 << 16, f),
        buf: Vec::new(),
        failed: false,
    });
    ON.store(true, Ordering::SeqCst);
    Ok(())
}

fn lock() -> std::sync::MutexGuard<'static, Option<EventLog>> {
    LOG.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether this rank records.
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Appends `event` (a write error stops recording; the gateway then
/// reports the trace incomplete).
pub fn record(event: TraceEvent) {
    if !is_on() {
        return;
    }
    if let Some(log) = lock().as_mut() {
        if log.failed {
            return;
        }
        log.buf.clear();
        event.encode(&mut log.buf);
        log.failed = log.out.write_all(&log.buf).is_err();
    }
}

/// Records the end and writes everything out (MPI_Finalize).
pub fn finish() {
    if !is_on() {
        return;
    }
    record(TraceEvent::End);
    if let Some(log) = lock().as_mut() {
        let _ = log.out.flush();
    }
}

/// Records an MPI call for the engine replay, building it only when the
/// rank records.
pub fn call(make: impl FnOnce() -> mpinetsim_protocol::trace_calls::CallRecord) {
    if is_on() {
        record(TraceEvent::Call(make()));
    }
}

/// Routines already noted as not replayable through the engine.
static UNSUPPORTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Notes (once per routine) that the program called `name`, which the
/// engine replay does not make: such a trace is replayed message by message.
pub fn unsupported(name: &str) {
    if !is_on() {
        return;
    }
    let mut seen = UNSUPPORTED.lock().unwrap_or_else(|p| p.into_inner());
    if seen.iter().any(|s| s == name) {
        return;
    }
    seen.push(name.to_string());
    drop(seen);
    record(TraceEvent::Call(
        mpinetsim_protocol::trace_calls::CallRecord::Unsupported { name: name.into() },
    ));
}
