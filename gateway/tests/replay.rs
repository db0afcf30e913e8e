//! `mpinetsim run --record` and `mpinetsim replay`: a recorded run re-timed
//! in virtual time gives the runtime `mpinetsim run` measures, on the
//! network it was recorded on and — for a program whose messages arrive
//! in the same order on both — on another one.
//!
//! * tests/mpi/pingpong.c (200 round trips of 1000 B), recorded on the
//!   reference network: replayed there within 2 % of the recording run's
//!   emulated runtime, and replayed on slow-rank0 within 3 % of a run on
//!   slow-rank0 (rank 0 behind 100 Mbps and an extra router hop).
//! * tests/mpi/alltoall_timed.c (4 ranks, 3 all-to-alls of 100 kB per
//!   pair: rendezvous, CTS and data pieces), recorded on slow-rank0 and
//!   replayed through the MPI engine: within 3 % of the run there, and
//!   within 3 % of a run on the reference network — the engine decides the
//!   rendezvous order again there (a replay of the recorded messages in
//!   their recorded order is about 50 % slow on reference, which is why
//!   the engine replay exists).
//!
//! Bounds are fixed; the pingpong runs use factor 8 and the all-to-all
//! runs factor 64, where their own lateness is far below them (at factor
//! 8 the all-to-all's 12 MB of TCP segments keep the gateway 3–25 % late
//! on this 2-core machine). A bad trace file is one sentence and exit status 2
//! (as every error of the command line or its files).

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `prog` on `net` at factor 8 (recording into `record` if given);
/// returns the report's emulated runtime, s.
fn run_s(prog: &Path, args: &[&str], ranks: &str, net: &str, record: Option<&Path>) -> f64 {
    run_at(prog, args, ranks, net, "8", &[], record).runtime_s
}

/// What a run or a replay measured.
struct Measured {
    /// Emulated runtime, s.
    runtime_s: f64,
    /// The network's counters (the report's `network_stats` or `stats`).
    stats: serde_json::Value,
    /// The run's maxBehind, s of emulated time (0 for a replay, which is
    /// never late).
    max_behind_s: f64,
}

/// [`run_s`] at time factor `factor`.
fn run_at(
    prog: &Path,
    args: &[&str],
    ranks: &str,
    net: &str,
    factor: &str,
    extra: &[&str],
    record: Option<&Path>,
) -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let mut a = vec![
        "-n",
        ranks,
        "--net",
        &*Box::leak(config(net).into_boxed_str()),
        "--time-factor",
        factor,
        "--report",
        rep.to_str().unwrap(),
    ];
    a.extend_from_slice(extra);
    if let Some(r) = record {
        a.extend(["--record", r.to_str().unwrap()]);
    }
    let o = run(&a, prog, args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    Measured {
        runtime_s: r["emulated_runtime_s"].as_f64().unwrap(),
        stats: r["network_stats"].clone(),
        max_behind_s: r["max_behind"]["max_ns"].as_u64().unwrap() as f64 / 1e9,
    }
}

/// Replays `trace` on `net` (through the engine); the replay's emulated
/// runtime, s.
fn replay_s(trace: &Path, net: &str) -> f64 {
    replay_through(trace, net, "engine", &[]).runtime_s
}

/// Replays `trace` on `net` `through` the engine or the messages; the
/// replay's emulated runtime, s.
fn replay_through(trace: &Path, net: &str, through: &str, extra: &[&str]) -> Measured {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let o = std::process::Command::new(bin())
        .args([
            "replay",
            trace.to_str().unwrap(),
            "--net",
            &config(net),
            "--report",
            rep.to_str().unwrap(),
            "--through",
            through,
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(r["result"]["through"], through, "{r}");
    Measured {
        runtime_s: r["emulated_runtime_s"].as_f64().unwrap(),
        stats: r["stats"].clone(),
        max_behind_s: 0.0,
    }
}

/// Delivered messages and first-sent data bytes by (sending rank,
/// receiving rank).
type ConnectionTraffic = BTreeMap<(u64, u64), (u64, u64)>;

/// Every link direction's TCP payload bytes, by transmitting port, and
/// every connection's delivered messages and first-sent data bytes, by
/// (sending rank, receiving rank).
fn traffic(m: &Measured) -> (BTreeMap<String, u64>, ConnectionTraffic) {
    let links = m.stats["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let port = l["from_port"].as_str().unwrap().to_string();
            (port, l["payload_bytes"].as_u64().unwrap())
        })
        .collect();
    let conns = m.stats["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let pair = (
                c["src_rank"].as_u64().unwrap(),
                c["dst_rank"].as_u64().unwrap(),
            );
            let counts = (
                c["messages_delivered"].as_u64().unwrap(),
                c["data_bytes"].as_u64().unwrap(),
            );
            (pair, counts)
        })
        .collect();
    (links, conns)
}

/// The replay put the run's messages and bytes on every link: the same
/// payload bytes per link direction, the same messages and bytes per
/// connection (the engine makes the same protocol decisions, so only the
/// timing may differ).
fn same_traffic(what: &str, replayed: &Measured, measured: &Measured) {
    let (r_links, r_conns) = traffic(replayed);
    let (m_links, m_conns) = traffic(measured);
    assert!(
        m_links.values().any(|&b| b > 0),
        "{what}: the run put no payload on any link"
    );
    assert_eq!(
        r_conns, m_conns,
        "{what}: messages and bytes per connection"
    );
    assert_eq!(r_links, m_links, "{what}: payload bytes per link direction");
}

fn within(what: &str, replayed: f64, measured: f64, bound: f64) {
    let off = (replayed / measured - 1.0).abs();
    eprintln!(
        "{what}: replay {replayed:.6} s, run {measured:.6} s ({:+.2} %)",
        (replayed / measured - 1.0) * 100.0
    );
    assert!(off <= bound, "{what}: the replay gives {replayed} s, the run {measured} s ({:.2} % apart, at most {:.2} %)", off * 100.0, bound * 100.0);
}

#[test]
fn a_recorded_pingpong_replays_to_the_runs_runtime_on_both_networks() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("pingpong.mnt");
    let args = ["200", "1000"];
    let recorded = run_s(&prog, &args, "2", "reference.toml", Some(&trace));
    within(
        "pingpong on reference",
        replay_s(&trace, "reference.toml"),
        recorded,
        0.02,
    );
    let slow = run_s(&prog, &args, "2", "slow-rank0.toml", None);
    within(
        "pingpong recorded on reference, on slow-rank0",
        replay_s(&trace, "slow-rank0.toml"),
        slow,
        0.03,
    );
}

#[test]
fn a_recorded_alltoall_replays_through_the_engine_to_the_runs_runtime_on_both_networks() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("alltoall_timed", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("alltoall.mnt");
    let args = ["100000", "3"];
    // The ranks' computation (filling 400 kB per all-to-all, 1–3 ms of
    // CPU time that varies by its page faults from run to run) is made
    // negligible on every host: the runs and replays compare the network
    // and the MPI protocols, not two runs' CPU noise.
    let fast = [
        "--set",
        "host.host0.cpu_speed=1000",
        "--set",
        "host.host1.cpu_speed=1000",
        "--set",
        "host.host2.cpu_speed=1000",
        "--set",
        "host.host3.cpu_speed=1000",
    ];
    let recorded = run_at(
        &prog,
        &args,
        "4",
        "slow-rank0.toml",
        "64",
        &fast,
        Some(&trace),
    );
    let replayed = replay_through(&trace, "slow-rank0.toml", "engine", &fast);
    within(
        "alltoall on slow-rank0",
        replayed.runtime_s,
        recorded.runtime_s,
        0.03,
    );
    same_traffic("alltoall on slow-rank0", &replayed, &recorded);
    let there = run_at(&prog, &args, "4", "reference.toml", "64", &fast, None);
    let replayed_there = replay_through(&trace, "reference.toml", "engine", &fast);
    within(
        "alltoall recorded on slow-rank0, on reference",
        replayed_there.runtime_s,
        there.runtime_s,
        0.03,
    );
    same_traffic(
        "alltoall recorded on slow-rank0, on reference",
        &replayed_there,
        &there,
    );
    let by_messages = replay_through(&trace, "reference.toml", "messages", &fast).runtime_s;
    let there = there.runtime_s;
    eprintln!(
        "the recorded messages in their recorded order on reference: {by_messages:.6} s ({:+.1} %)",
        (by_messages / there - 1.0) * 100.0
    );
    // `compare --replay` sweeps networks with the same replay: its first
    // row is that replay's runtime exactly (a replay is deterministic;
    // here with the recorded computation, as compare has no --set here).
    let json = dir.path().join("compare.json");
    let o = std::process::Command::new(bin())
        .args(["compare", "--replay", trace.to_str().unwrap()])
        .args([
            "--net",
            &config("slow-rank0.toml"),
            "--net",
            &config("reference.toml"),
        ])
        .args(["--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: serde_json::Value =
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&json).unwrap())
            .unwrap()["rows"]
            .clone();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    let plain = replay_s(&trace, "slow-rank0.toml");
    assert_eq!(rows[0]["runtime_s"].as_f64().unwrap(), plain);
}

#[test]
fn a_file_that_is_not_a_trace_is_refused_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mnt");
    std::fs::write(&bad, b"hello").unwrap();
    let o = std::process::Command::new(bin())
        .args([
            "replay",
            bad.to_str().unwrap(),
            "--net",
            &config("reference.toml"),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot be replayed: it is not an mpinetsim trace"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A partition that outlasts its timeout stops a replay as it stops `run`
/// and `simulate`: one sentence naming the groups, exit code 3.
#[test]
fn a_partition_stops_the_replay_with_exit_code_3() {
    use mpinetsim_protocol::trace::{Trace, TraceEvent};
    let send = |dst| TraceEvent::Send {
        cause: None,
        dst,
        len: 1000,
        header: vec![0; 8],
    };
    let take = |src, index| TraceEvent::Consume {
        service: false,
        completes: true,
        src,
        index,
    };
    let (mut r0, mut r1) = (Vec::new(), Vec::new());
    for i in 0..100 {
        r0.extend([send(1), take(1, i)]);
        r1.extend([take(0, i), send(0)]);
    }
    r0.push(TraceEvent::End);
    r1.push(TraceEvent::End);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("pingpong.mnt");
    std::fs::write(
        &trace,
        Trace {
            ranks: vec![r0, r1],
        }
        .to_bytes(),
    )
    .unwrap();
    let o = std::process::Command::new(bin())
        .args([
            "replay",
            trace.to_str().unwrap(),
            "--net",
            &config("reference.toml"),
        ])
        .args([
            "--fault",
            "node switch0 down at 10ms",
            "--set",
            "faults.partition_timeout=1s",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("partitioned"), "{err}");
}

/// tests/mpi programs of point-to-point (eager and rendezvous, wildcard
/// matching, probes and matched probes, nonblocking and persistent
/// requests, buffered sends with an attached buffer, requests polled by
/// `MPI_Request_get_status`, cancelled sends), collectives (blocking and
/// nonblocking and persistent, overlapping computation; neighbourhood collectives on a
/// Cartesian grid), communicators made by split, duplication, groups and
/// topologies and `MPI_Comm_idup`, `MPI_Alltoallw` and derived datatypes,
/// recorded on the reference network where their runs converge (factor
/// 32 to 128: the shorter the run, the larger, since a few hundred µs of
/// lateness is a larger share of it) and replayed there through the
/// engine: within 1 % of the recording run (plus that run's maxBehind as
/// a share of its runtime, at most 2 % in all), with the same messages and bytes on
/// every connection and the same payload bytes on every link direction.
#[test]
fn test_programs_replay_through_the_engine_within_1_percent_on_their_network() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, factor, ranks) in [
        ("ring", "64", "4"),
        ("matching", "32", "4"),
        ("compute_between_messages", "32", "4"),
        ("datatypes", "64", "4"),
        ("alltoall", "64", "4"),
        ("big_message", "64", "4"),
        ("probe_any", "64", "4"),
        ("overlap", "32", "4"),
        ("persistent_ring", "64", "4"),
        ("comms", "64", "4"),
        ("neighbor_traffic", "128", "4"),
        ("replay_extras", "64", "4"),
        ("persistent_coll", "32", "4"),
        ("cancel_sends", "32", "2"),
        ("poll_loop", "64", "2"),
    ] {
        let prog = build_c(name, "mpicc");
        let trace = dir.path().join(format!("{name}.mnt"));
        let recorded = run_at(
            &prog,
            &[],
            ranks,
            "reference.toml",
            factor,
            &[],
            Some(&trace),
        );
        let replayed = replay_through(&trace, "reference.toml", "engine", &[]);
        let what = format!("{name} on reference");
        // 1 %, plus the recording run's own lateness (a run late by
        // maxBehind may end that much later), never more than 2 %.
        let late = recorded.max_behind_s / recorded.runtime_s;
        let bound = (0.01 + late).min(0.02);
        within(&what, replayed.runtime_s, recorded.runtime_s, bound);
        same_traffic(&what, &replayed, &recorded);
    }
}
