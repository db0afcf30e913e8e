//! The time factor and the fidelity of `mpinetsim run`, checked against a
//! written-down model. These tests measure real time, so they run one after
//! another (a lock), and their bounds are the model's tolerances.

mod common;
use common::*;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn value_after(out: &str, key: &str) -> f64 {
    let start = out
        .find(key)
        .unwrap_or_else(|| panic!("{key} missing in {out}"))
        + key.len();
    out[start..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Runs a program at `factor` on `net`; returns stdout and the report.
fn run_at(
    prog: &std::path::Path,
    args: &[&str],
    net: &str,
    factor: f64,
) -> (String, serde_json::Value) {
    let (o, report) = run_with_report("2", net, &factor.to_string(), prog, args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (String::from_utf8_lossy(&o.stdout).into_owned(), report)
}

#[test]
fn compute_is_stretched_by_the_factor_while_wtime_reads_emulated_time() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("compute_between_messages", "mpicc");
    let mut walls = Vec::new();
    for factor in [1.0, 4.0, 16.0] {
        let (out, r) = run_at(&prog, &[], "reference.toml", factor);
        let compute_ms = value_after(&out, "compute_wtime_ms=");
        // 200 ms of computation (CPU time) reads as 200 ms of emulated
        // time, ± 5 %, plus how late rank 0's computation was when it had
        // to wait for a core (at factor 1 on a loaded machine).
        let late_ms = r["rank_reports"][0]["mpi"]["compute_late_max_s"]
            .as_f64()
            .unwrap()
            * 1e3;
        assert!(
            (190.0..=210.0 + late_ms).contains(&compute_ms),
            "factor {factor}: MPI_Wtime measured {compute_ms} ms (rank 0 late by up to {late_ms} ms)"
        );
        // ... and takes factor × 200 ms of wall time (the sleep never ends early).
        let wall = r["wall_s"].as_f64().unwrap();
        assert!(
            wall >= 0.2 * factor * 0.95,
            "factor {factor}: wall {wall} s"
        );
        walls.push(wall);
    }
    assert!(
        walls[0] < walls[1] && walls[1] < walls[2],
        "wall time grows with the factor: {walls:?}"
    );
}

#[test]
fn pingpong_latency_matches_the_closed_form_and_converges() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    // One way on the reference network: two hops of (frame serialisation at
    // 1 Gbps + 0.5 ms); the frame carries the shim's envelope + 32 B.
    let payload = (shim_engine::envelope::HEADER_LEN + 32) as u64;
    let one_way_us = 2.0
        * (serialization_time(data_frame_wire_len(payload), 1_000_000_000).0 as f64 + 500_000.0)
        / 1e3;
    let mut runtimes = Vec::new();
    for factor in [4.0, 8.0] {
        // A run whose events ran later than the network's smallest latency
        // is one mpinetsim itself declares unreliable (its report warns):
        // the machine's load took the CPUs. Such a run is made once more;
        // the bounds below stay as they are.
        let attempt = || {
            let (out, r) = run_at(&prog, &["300", "32"], "reference.toml", factor);
            let max_behind_us = r["max_behind"]["max_ns"].as_f64().unwrap() / 1e3;
            (out, max_behind_us)
        };
        let (mut out, mut max_behind_us) = attempt();
        if max_behind_us > one_way_us {
            eprintln!("factor {factor}: maxBehind {max_behind_us} us exceeds the one-way latency; run again");
            (out, max_behind_us) = attempt();
        }
        let measured = value_after(&out, "one_way_us=");
        // The run's own lateness widens the bound, but never past 5 % of
        // the closed form: a badly late run fails.
        let tolerance = (max_behind_us + 0.02 * one_way_us).min(0.05 * one_way_us);
        eprintln!(
            "factor {factor}: one way {measured} us, closed form {one_way_us} us ({:+.2} %), maxBehind {max_behind_us} us",
            (measured / one_way_us - 1.0) * 100.0
        );
        assert!(
            (measured - one_way_us).abs() <= tolerance,
            "factor {factor}: measured {measured} us, closed form {one_way_us} us, tolerance {tolerance} us"
        );
        // The pingpong's own emulated runtime, as the program measured it
        // with MPI_Wtime around its loop (process start-up and MPI_Finalize
        // are not part of it): 2 × iterations × one way, in µs.
        let loop_us = 2.0 * 300.0 * measured;
        runtimes.push(loop_us);
    }
    let change = (runtimes[1] - runtimes[0]).abs() / runtimes[0];
    assert!(
        change < 0.01,
        "the pingpong's runtime changed by {:.2} % from factor 4 to 8: {runtimes:?} us",
        change * 100.0
    );
}

#[test]
fn an_adaptive_factor_switches_without_breaking_scaled_time() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let payload = (shim_engine::envelope::HEADER_LEN + 32) as u64;
    let one_way_us = 2.0
        * (serialization_time(data_frame_wire_len(payload), 1_000_000_000).0 as f64 + 500_000.0)
        / 1e3;
    let report = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("adaptive.json");
    // A low raise threshold makes the controller switch the factor many
    // times during the run, up and down.
    let out = common::run(
        &[
            "-n",
            "2",
            "--net",
            &common::config("reference.toml"),
            "--time-factor",
            "auto",
            "--auto-raise-above",
            "30us",
            "--report",
            report.to_str().unwrap(),
        ],
        &prog,
        &["400", "32"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let changes = r["factor_changes"].as_array().unwrap();
    assert!(!changes.is_empty(), "the factor never changed");
    // Switch instants increase; every factor is a power of two from 1.
    for w in changes.windows(2) {
        assert!(w[1]["at_srt_s"].as_f64() > w[0]["at_srt_s"].as_f64());
    }
    let a = &r["adaptive"];
    assert!(a["max_factor"].as_f64().unwrap() >= 2.0);
    assert!(
        (a["wall_saved_s"].as_f64().unwrap()
            - (a["wall_at_max_factor_s"].as_f64().unwrap() - a["wall_s"].as_f64().unwrap()))
        .abs()
            < 1e-9
    );
    // If the ranks and the gateway disagreed about scaled time after a
    // switch, the latency the program measures with MPI_Wtime would be off
    // by the ratio of the factors; it stays at the closed form.
    let text = String::from_utf8_lossy(&out.stdout);
    let measured = value_after(&text, "one_way_us=");
    let max_behind_us = r["max_behind"]["max_ns"].as_f64().unwrap() / 1e3;
    // Widened by the run's lateness, capped at 5 % of the closed form.
    let tolerance = (max_behind_us + 0.02 * one_way_us).min(0.05 * one_way_us);
    eprintln!(
        "adaptive: one way {measured} us, closed form {one_way_us} us ({:+.2} %), maxBehind {max_behind_us} us",
        (measured / one_way_us - 1.0) * 100.0
    );
    assert!(
        (measured - one_way_us).abs() <= tolerance,
        "measured {measured} us, closed form {one_way_us} us, tolerance {tolerance} us, {} switches",
        changes.len()
    );
}

#[test]
fn a_message_of_many_pieces_takes_the_closed_form_time() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    // 24 MiB from rank 0 to rank 1 (24 pieces of 1 MiB, 8 unacknowledged
    // at most) and a one-byte reply, the second of two transfers (the
    // first opens the TCP window). The model: RTS, CTS and the reply are
    // one frame each, two hops of (serialisation at 1 Gbps + 0.5 ms); the
    // data is one TCP stream (every piece with its 56-byte envelope) cut
    // into MSS-sized segments, pipelined store-and-forward over the two
    // links; the piece acks travel the other way and never stall the
    // stream (8 MiB in flight against a 250 kB bandwidth-delay product).
    let prog = build_c("big_message", "mpicc");
    let h = shim_engine::envelope::HEADER_LEN as u64;
    let pieces = 24u64;
    let stream = pieces * (1 << 20) + pieces * h;
    let (rate, delay_ns, mss) = (1_000_000_000u64, 500_000u64, 1460u64);
    let frame_ns = |payload: u64| serialization_time(data_frame_wire_len(payload), rate).0;
    let one_frame_ns = |payload: u64| 2 * (frame_ns(payload) + delay_ns);
    // Frame k leaves link 1 when link 1 is free; link 2 when it arrived
    // and link 2 is free.
    let (mut link1_free, mut link2_free, mut arrived) = (0u64, 0u64, 0u64);
    let mut left = stream;
    while left > 0 {
        let t = frame_ns(left.min(mss));
        left -= left.min(mss);
        link1_free += t;
        link2_free = (link1_free + delay_ns).max(link2_free) + t;
        arrived = link2_free + delay_ns;
    }
    let model_ms = (one_frame_ns(h) + one_frame_ns(h) + arrived + one_frame_ns(h + 1)) as f64 / 1e6;
    let (out, r) = run_at(
        &prog,
        &["24", "contig", "blocking", "2"],
        "reference.toml",
        8.0,
    );
    let measured_ms = value_after(&out, "transfer_ms=");
    let max_behind_ms = r["max_behind"]["max_ns"].as_f64().unwrap() / 1e6;
    let error = (measured_ms - model_ms).abs();
    eprintln!("24 MiB: measured {measured_ms} ms, closed form {model_ms} ms, maxBehind {max_behind_ms} ms");
    assert!(
        error <= max_behind_ms + 0.02 * model_ms && error <= 0.05 * model_ms,
        "measured {measured_ms} ms, closed form {model_ms} ms, maxBehind {max_behind_ms} ms"
    );
}

/// The one-way time of an MPI ping-pong on `net` (a configs/ file, with
/// `sets`) in `mpinetsim simulate`: the same exchange (every message its
/// 56-byte envelope and 32 bytes), the difference of 1,100 and 100 round
/// trips over 2,000 one ways, so the connection's set-up cancels. ns.
fn simulated_one_way_ns(net: &str, sets: &[&str]) -> f64 {
    let size = (32 + shim_engine::envelope::HEADER_LEN).to_string();
    let total_ns = |iters: &str| -> f64 {
        let o = std::process::Command::new(bin())
            .args(["simulate", "--net", &config(net), "-n", "2"])
            .args(sets)
            .args(["--iters", iters, "--size", &size])
            .output()
            .expect("run mpinetsim simulate");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        value_after(&String::from_utf8_lossy(&o.stdout), "simulated time:") * 1e9
    };
    (total_ns("1100") - total_ns("100")) / 2000.0
}

/// Issue 24: on shared memory the same microsecond ping-pong keeps the
/// model's one way at a small factor (4), where the run cannot keep pace
/// with the wall clock: the woken rank's reply enters the network at its
/// own stamp (the gateway waits for its horizon) and the shim's own work
/// inside the calls is not emulated time. Through the socket, which has
/// no horizons, the same run measured 1.535 µs (+49 %).
#[test]
fn on_shared_memory_a_microsecond_pingpong_takes_the_models_time_at_factor_4() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("latency_median", "mpicc");
    let net = "hpc-fat-tree.toml";
    let model_ns = simulated_one_way_ns(net, &[]);
    let net_path = config(net);
    let args = [
        "-n",
        "2",
        "--net",
        &net_path,
        "--time-factor",
        "4",
        "--transport",
        "shm",
    ];
    let o = run(&args, &prog, &["400", "32", "20"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let median_ns = value_after(&out, "median_one_way_us=") * 1e3;
    let error = (median_ns - model_ns) / model_ns;
    eprintln!(
        "factor 4, shm: one way median {median_ns:.1} ns, model {model_ns:.1} ns ({:+.2} %)",
        error * 100.0
    );
    assert!(
        error.abs() <= 0.02,
        "the ping-pong's median one way at factor 4 is {median_ns:.1} ns, the model's {model_ns:.1} ns ({:+.2} %)",
        error * 100.0
    );
}

/// Issue 24: on microsecond networks (1 µs host to host at 100 Gbps) the
/// one-way time of a 32-byte ping-pong, timed round trip by round trip
/// with MPI_Wtime, is the network model's within 2 % at a fixed factor:
/// neither the gateway's nor the ranks' wake-ups (a rank's emulated time
/// resumes at the message's arrival, not when it woke to take it) nor the
/// few hundred cold-cache nanoseconds between back-to-back calls (below
/// the hosts' `cpu_threshold`) add to it. The median, as latency
/// benchmarks report it: a round trip the host preempted does not move it.
#[test]
fn a_microsecond_pingpong_takes_the_network_models_time() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("latency_median", "mpicc");
    let reference_at_100g: &[&str] = &[
        "--set",
        "link_defaults.rate=100Gbps",
        "--set",
        "link_defaults.delay=500ns",
        "--set",
        "topology.cpu_threshold=5us",
    ];
    for (net, sets) in [
        ("hpc-fat-tree.toml", &[][..]),
        ("reference.toml", reference_at_100g),
    ] {
        let model_ns = simulated_one_way_ns(net, sets);
        let dir = tempfile::tempdir().unwrap();
        let rep = dir.path().join("r.json");
        let net_path = config(net);
        let args = [
            &["-n", "2", "--net", &net_path, "--time-factor", "1024"][..],
            sets,
            &["--report", rep.to_str().unwrap()],
        ]
        .concat();
        let o = run(&args, &prog, &["400", "32", "20"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout);
        let median_ns = value_after(&out, "median_one_way_us=") * 1e3;
        let mean_ns = value_after(&out, "mean_one_way_us=") * 1e3;
        let error = (median_ns - model_ns) / model_ns;
        eprintln!(
            "{net}: one way median {median_ns:.1} ns, mean {mean_ns:.1} ns, model {model_ns:.1} ns ({:+.2} %)",
            error * 100.0
        );
        assert!(
            error.abs() <= 0.02,
            "{net}: the ping-pong's median one way is {median_ns:.1} ns, the model's {model_ns:.1} ns ({:+.2} %)",
            error * 100.0
        );
    }
}

/// Issue 24: a test or probe that finds nothing costs the host's
/// `poll_cost` of emulated time, as on a real machine, instead of nothing
/// (emulated time stands still inside MPI calls, so a polling rank once
/// stayed where its loop began and fell behind the job's schedule). With
/// computations under `cpu_threshold` not counted:
///
/// * N probes for nothing take N × poll_cost, plus at most what the rank's
///   computations counted (the report's compute_s, an upper bound for the
///   few the host's CPU-time noise pushes above the threshold);
/// * a round trip whose receiver polls with MPI_Test takes the blocking
///   round trip's time plus less than two poll costs: the message is seen
///   by the first test at or after its arrival, or by the one after it
///   when the gateway wrote it while a test was looking at the ring;
/// * so the receiver's failed tests per polled round are the blocking
///   round trip ÷ poll_cost, give or take those two.
#[test]
fn a_poll_that_finds_nothing_costs_the_hosts_poll_cost() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("poll_loop", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let net = config("hpc-fat-tree.toml");
    let (polls, rounds, cost_ns) = (10_000u64, 400u64, 200.0);
    let args = [
        "-n",
        "2",
        "--net",
        &net,
        "--time-factor",
        "256",
        "--transport",
        "shm",
        "--set",
        "topology.cpu_threshold=5us",
        "--set",
        "topology.poll_cost=200ns",
        "--report",
        rep.to_str().unwrap(),
    ];
    let o = run(&args, &prog, &[&polls.to_string(), &rounds.to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let rank = |i: usize| &r["rank_reports"][i]["mpi"];
    let compute0_ns = rank(0)["compute_s"].as_f64().unwrap() * 1e9;
    let probing_ns = value_after(&out, "probing_ns=");
    let expected_ns = polls as f64 * cost_ns;
    eprintln!("{polls} probes: {probing_ns:.0} ns, model {expected_ns:.0} ns + at most {compute0_ns:.0} ns of counted computation");
    assert!(
        probing_ns >= expected_ns - 1.0 && probing_ns <= expected_ns + compute0_ns + 1.0,
        "{polls} probes for nothing took {probing_ns} ns; at {cost_ns} ns each they take {expected_ns} ns, plus at most the {compute0_ns} ns rank 0 computed"
    );
    let blocking_ns = value_after(&out, "blocking_rtt_ns=");
    let polled_ns = value_after(&out, "polled_rtt_ns=");
    let failed = value_after(&out, "failed_tests=");
    eprintln!(
        "round trip: blocking {blocking_ns} ns, polled {polled_ns} ns; {failed} failed tests"
    );
    assert!(
        polled_ns >= blocking_ns - 1.0 && polled_ns < blocking_ns + 2.0 * cost_ns,
        "a polled round trip takes {polled_ns} ns, a blocking one {blocking_ns} ns: the polling receiver should see each message less than two {cost_ns} ns polls after it arrives"
    );
    let polled_rounds = (rounds / 2) as f64;
    let per_round = blocking_ns / cost_ns;
    assert!(
        failed >= polled_rounds * (per_round - 2.0) && failed <= polled_rounds * (per_round + 2.0),
        "{failed} failed tests in {polled_rounds} polled rounds; a {blocking_ns} ns wait at {cost_ns} ns a test makes {per_round:.1} a round"
    );
    assert_eq!(
        rank(0)["polls"].as_u64(),
        Some(polls),
        "rank 0's polls in the report"
    );
    assert_eq!(
        rank(1)["polls"].as_f64(),
        Some(failed),
        "rank 1's polls in the report"
    );
}
