//! What a replay did, in virtual time, for the eye: `replay --timeline
//! FILE` (Chrome trace-event JSON, as `run --timeline` writes) and
//! `replay --paraver FILE.prv` (BSC's Paraver format, which Dimemas writes
//! for its own predictions, so the same viewer compares the two).
//!
//! A replayed rank is either computing (its recorded CPU bursts) or
//! waiting for a message it must take; every message is an arrow from its
//! injection to its delivery.

use crate::error::Error;
use crate::timeline::Arrow;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// What a rank was doing during a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// Running its program between MPI calls.
    Compute,
    /// Blocked in MPI until a message it must take arrives.
    Wait,
}

/// One span of one rank, ns of virtual time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The rank.
    pub rank: u32,
    /// What it did.
    pub activity: Activity,
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
}

/// The spans and messages of one replay, collected as it runs.
#[derive(Debug, Default)]
pub struct ReplayTimeline {
    /// Every rank's spans, in the order they ended.
    pub spans: Vec<Span>,
    /// Every delivered message.
    pub arrows: Vec<Arrow>,
    /// Messages in flight by (sender, receiver, index): injection time and size.
    in_flight: HashMap<(u32, u32, u64), (u64, u64)>,
}

impl ReplayTimeline {
    /// A span of `rank` (nothing when it is empty).
    pub fn span(&mut self, rank: u32, activity: Activity, start_ns: u64, end_ns: u64) {
        if end_ns > start_ns {
            self.spans.push(Span {
                rank,
                activity,
                start_ns,
                end_ns,
            });
        }
    }

    /// A message handed to the network.
    pub fn sent(&mut self, key: (u32, u32, u64), at_ns: u64, bytes: u64) {
        self.in_flight.insert(key, (at_ns, bytes));
    }

    /// A message delivered.
    pub fn delivered(&mut self, key: (u32, u32, u64), at_ns: u64) {
        if let Some((sent_ns, bytes)) = self.in_flight.remove(&key) {
            self.arrows.push(Arrow {
                src: key.0,
                dst: key.1,
                sent_ns,
                arrived_ns: at_ns,
                bytes,
            });
        }
    }

    /// Writes the Chrome trace-event JSON of `ranks` ranks to `path`.
    pub fn write_chrome(&self, path: &Path, ranks: u32) -> Result<(), Error> {
        let us = |ns: u64| ns as f64 / 1000.0;
        let mut events: Vec<Value> = vec![json!({
            "ph": "M", "name": "process_name", "pid": 0, "tid": 0,
            "args": {"name": "mpinetsim replay (virtual time)"}
        })];
        for rank in 0..ranks {
            events.push(json!({
                "ph": "M", "name": "thread_name", "pid": 0, "tid": rank,
                "args": {"name": format!("rank {rank}")}
            }));
        }
        for s in &self.spans {
            let (name, cat) = match s.activity {
                Activity::Compute => ("compute", "compute"),
                Activity::Wait => ("waiting for a message", "mpi"),
            };
            events.push(json!({
                "ph": "X", "name": name, "cat": cat, "pid": 0, "tid": s.rank,
                "ts": us(s.start_ns), "dur": us(s.end_ns) - us(s.start_ns)
            }));
        }
        for (id, a) in self.arrows.iter().enumerate() {
            let args = json!({"bytes": a.bytes, "src": a.src, "dst": a.dst});
            events.push(json!({
                "ph": "s", "name": "message", "cat": "message", "id": id, "pid": 0,
                "tid": a.src, "ts": us(a.sent_ns), "args": args
            }));
            events.push(json!({
                "ph": "f", "bp": "e", "name": "message", "cat": "message", "id": id,
                "pid": 0, "tid": a.dst, "ts": us(a.arrived_ns), "args": args
            }));
        }
        let text = serde_json::to_string(&json!({ "traceEvents": events }))
            .map_err(|e| format!("--timeline: {e}"))?;
        crate::output_file::write_whole(path, text.as_bytes(), "--timeline").map_err(Error::from)
    }

    /// Writes the Paraver trace of `ranks` ranks (one task of one thread
    /// each, rank r on CPU r + 1 of node r + 1) ending at `end_ns` to
    /// `path`, and its state names to `path` with the extension `.pcf`.
    pub fn write_paraver(&self, path: &Path, ranks: u32, end_ns: u64) -> Result<(), Error> {
        let mut out = Vec::new();
        let cpus = vec!["1"; ranks as usize].join(",");
        let tasks: Vec<String> = (1..=ranks).map(|n| format!("1:{n}")).collect();
        // The date is fixed: a replay is deterministic, and so is its file.
        let _ = writeln!(
            out,
            "#Paraver (01/01/70 at 00:00):{end_ns}_ns:{ranks}({cpus}):1:{ranks}({})",
            tasks.join(",")
        );
        let mut records: Vec<(u64, String)> = Vec::new();
        for s in &self.spans {
            let (task, state) = (s.rank + 1, paraver_state(s.activity));
            let line = format!("1:{task}:1:{task}:1:{}:{}:{state}", s.start_ns, s.end_ns);
            records.push((s.start_ns, line));
        }
        for a in &self.arrows {
            let (from, to) = (a.src + 1, a.dst + 1);
            let (sent, arrived) = (a.sent_ns, a.arrived_ns);
            let line = format!(
                "3:{from}:1:{from}:1:{sent}:{sent}:{to}:1:{to}:1:{arrived}:{arrived}:{}:0",
                a.bytes
            );
            records.push((sent, line));
        }
        // Paraver reads records in time order.
        records.sort_by_key(|r| r.0);
        for (_, line) in records {
            let _ = writeln!(out, "{line}");
        }
        crate::output_file::write_whole(path, &out, "--paraver")?;
        let pcf = "STATES\n0    Idle\n1    Running\n3    Waiting a message\n\n\
                   STATES_COLOR\n0    {117,195,255}\n1    {0,0,255}\n3    {255,0,0}\n";
        crate::output_file::write_whole(&path.with_extension("pcf"), pcf.as_bytes(), "--paraver")
            .map_err(Error::from)
    }
}

/// Paraver's conventional state numbers (its default configuration names
/// them): 1 Running, 3 Waiting a message.
fn paraver_state(a: Activity) -> u32 {
    match a {
        Activity::Compute => 1,
        Activity::Wait => 3,
    }
}
