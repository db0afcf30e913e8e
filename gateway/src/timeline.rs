//! `run --timeline FILE`: the job as Chrome trace-event JSON, which Perfetto
//! (ui.perfetto.dev) and chrome://tracing open — MPI-NeTSim's Figures 2–3
//! for a real run. One track per rank (pid 0, tid = rank) with complete
//! events ("ph": "X") for every compute span (its wall and CPU time in
//! `args`), time-factor sleep and MPI call (the time the program is
//! blocked in MPI), and one flow arrow
//! ("ph": "s" → "f") per message from its send to its arrival. Times are
//! microseconds of scaled real time, the emulated machine's clock; the
//! ranks' raw wall-clock spans are converted with the job's clock (also
//! across the switches of an adaptive factor). Network events (faults,
//! route changes, partitions; virtual time is scaled real time) are global
//! instant events ("ph": "i") on a "network" track (pid 1).

use crate::error::Error;
use serde_json::{json, Value};
use std::path::Path;

/// One delivered message.
#[derive(Debug, Clone, Copy)]
pub struct Arrow {
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// Scaled time it entered the network, ns.
    pub sent_ns: u64,
    /// Scaled time it was delivered, ns.
    pub arrived_ns: u64,
    /// Payload bytes.
    pub bytes: u64,
}

fn us(ns: f64) -> f64 {
    (ns / 1000.0 * 1000.0).round() / 1000.0
}

/// Reads the ranks' span files from `dir` and writes the trace to `path`.
pub fn write(
    path: &Path,
    dir: &Path,
    ranks: u32,
    clock: &mpinetsim_protocol::ScaledClock,
    arrows: &[Arrow],
    network: &[netsim::faults::NetworkEvent],
) -> Result<(), Error> {
    let srt = |wall: u64| clock.srt(wall) as f64;
    let mut events: Vec<Value> = vec![json!({
        "ph": "M", "name": "process_name", "pid": 0, "tid": 0,
        "args": {"name": "mpinetsim job (scaled real time)"}
    })];
    for rank in 0..ranks {
        events.push(json!({
            "ph": "M", "name": "thread_name", "pid": 0, "tid": rank,
            "args": {"name": format!("rank {rank}")}
        }));
        let file = dir.join(format!("rank-{rank}.spans"));
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue; // the rank never initialised MPI
        };
        for line in text.lines() {
            let mut f = line.split(' ');
            let (Some(kind), Some(a), Some(b)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            let (Ok(start), Ok(end)) = (a.parse::<u64>(), b.parse::<u64>()) else {
                continue;
            };
            let wall_us = (end.max(start) - start) as f64 / 1000.0;
            let (name, cat, args) = match kind {
                "C" => {
                    let cpu_ns = f.next().and_then(|c| c.parse::<u64>().ok());
                    let args = match cpu_ns {
                        Some(c) => json!({"wall_us": wall_us, "cpu_us": c as f64 / 1000.0}),
                        None => json!({"wall_us": wall_us}),
                    };
                    ("compute", "compute", args)
                }
                "S" => ("time-factor sleep", "sleep", json!({"wall_us": wall_us})),
                "M" => (
                    f.next().unwrap_or("MPI"),
                    "mpi",
                    json!({"wall_us": wall_us}),
                ),
                _ => continue,
            };
            let (s, e) = (srt(start), srt(end.max(start)));
            events.push(json!({
                "ph": "X", "name": name, "cat": cat, "pid": 0, "tid": rank,
                "ts": us(s), "dur": us(e) - us(s), "args": args
            }));
        }
    }
    // Endpoints after the ranks: a storage node (`[[storage]]`).
    let mut others: Vec<u32> = (arrows.iter())
        .flat_map(|a| [a.src, a.dst])
        .filter(|&e| e >= ranks)
        .collect();
    others.sort_unstable();
    others.dedup();
    for e in others {
        events.push(json!({
            "ph": "M", "name": "thread_name", "pid": 0, "tid": e,
            "args": {"name": format!("storage node (endpoint {e})")}
        }));
    }
    for (id, a) in arrows.iter().enumerate() {
        let args = json!({"bytes": a.bytes, "src": a.src, "dst": a.dst});
        events.push(json!({
            "ph": "s", "name": "message", "cat": "message", "id": id, "pid": 0,
            "tid": a.src, "ts": us(a.sent_ns as f64), "args": args
        }));
        events.push(json!({
            "ph": "f", "bp": "e", "name": "message", "cat": "message", "id": id, "pid": 0,
            "tid": a.dst, "ts": us(a.arrived_ns as f64), "args": args
        }));
    }
    if !network.is_empty() {
        events.push(json!({
            "ph": "M", "name": "process_name", "pid": 1, "tid": 0,
            "args": {"name": "network (faults, route changes, partitions)"}
        }));
    }
    for e in network {
        events.push(json!({
            "ph": "i", "s": "g", "name": format!("{} {}", e.kind.name(), e.target),
            "cat": "network", "pid": 1, "tid": 0, "ts": us(e.at_ns as f64),
            "args": {"kind": e.kind, "target": e.target, "detail": e.detail}
        }));
    }
    let doc = json!({"traceEvents": events, "displayTimeUnit": "ms"});
    let text = serde_json::to_vec(&doc).expect("the timeline serialises");
    crate::output_file::write_whole(path, &text, "--timeline").map_err(Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsim::faults::{NetworkEvent, NetworkEventKind};

    #[test]
    fn network_events_are_global_instants_at_their_virtual_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        let ev = NetworkEvent {
            at_ns: 10_000_000,
            kind: NetworkEventKind::LinkDown,
            target: "host0-switch0".into(),
            detail: "scheduled".into(),
        };
        write(
            &path,
            dir.path(),
            1,
            &mpinetsim_protocol::ScaledClock::new(0, 4.0),
            &[],
            &[ev],
        )
        .unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let instants: Vec<&Value> = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "i")
            .collect();
        assert_eq!(instants.len(), 1);
        assert_eq!(instants[0]["ts"], 10_000.0);
        assert_eq!(instants[0]["name"], "link-down host0-switch0");
        assert_eq!(instants[0]["args"]["kind"], "link-down");
        assert_eq!(instants[0]["pid"], 1);
    }
}
