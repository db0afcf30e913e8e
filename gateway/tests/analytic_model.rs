//! The analytic (Dimemas-style) network model end to end with real MPI
//! programs: a pingpong's one-way time is latency + size ÷ bandwidth of
//! the reference network (1 ms, 1 Gbps); an all-to-all takes what its
//! collective model says (LIN: P × (latency + block ÷ bandwidth), or LOG
//! with one bus: (1 + 2) steps on 4 ranks); checked programs stay correct;
//! `--capture` is refused in one sentence; `compare` puts both models side
//! by side, each within its written-down model. The timed tests run one at a time (two shared cores).

mod common;

use common::*;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

/// The reference network: 2 × 500 µs of propagation, 1 Gbps links.
const LATENCY_NS: f64 = 1_000_000.0;
const BANDWIDTH_BPS: f64 = 1e9;

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

/// Runs `prog` under the analytic model; returns stdout and the report.
fn run_analytic(
    ranks: &str,
    net: &str,
    factor: &str,
    prog: &std::path::Path,
    args: &[&str],
) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let o = run(
        &[
            "-n",
            ranks,
            "--net",
            net,
            "--model",
            "analytic",
            "--time-factor",
            factor,
            "--report",
            rep.to_str().unwrap(),
        ],
        prog,
        args,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    (String::from_utf8_lossy(&o.stdout).into_owned(), report)
}

#[test]
fn pingpong_one_way_is_latency_plus_size_over_bandwidth() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let (iters, payload) = (300u64, 1000u64);
    let (out, r) = run_analytic(
        "2",
        &config("reference.toml"),
        "4",
        &prog,
        &[&iters.to_string(), &payload.to_string()],
    );
    // A message is the shim's 56-byte envelope plus the payload.
    let bytes = (shim_engine::envelope::HEADER_LEN as u64 + payload) as f64;
    let one_way_us = (LATENCY_NS + bytes * 8.0 / BANDWIDTH_BPS * 1e9) / 1e3;
    let measured = value_after(&out, "one_way_us=");
    let max_behind_us = r["max_behind"]["max_ns"].as_f64().unwrap() / 1e3;
    // Widened by the run's lateness, capped at 5 % of the closed form.
    let tolerance = (max_behind_us + 0.01 * one_way_us).min(0.05 * one_way_us);
    eprintln!(
        "analytic pingpong: one way {measured} us, closed form {one_way_us} us ({:+.2} %), maxBehind {max_behind_us} us",
        (measured / one_way_us - 1.0) * 100.0
    );
    assert!(
        (measured - one_way_us).abs() <= tolerance,
        "measured {measured} us, closed form {one_way_us} us, tolerance {tolerance} us"
    );
    assert_eq!(r["model"], "analytic");
    assert_eq!(r["packets"], 0);
    let a = &r["analytic"];
    assert_eq!(a["messages"].as_u64(), Some(2 * iters));
    assert_eq!(a["inter_node_messages"].as_u64(), Some(2 * iters));
    // One message at a time: nothing ever waits for a link or bus.
    assert_eq!(a["contention_wait_ns"].as_u64(), Some(0));
    assert_eq!(a["machine"]["latency_ns"].as_u64(), Some(LATENCY_NS as u64));
}

/// Measures the median MPI_Alltoall time of 1000-byte blocks on 4 ranks
/// (the median of 20: one round that a busy machine woke late would move
/// a mean of 10 by several per cent).
fn alltoall_median_s(net: &str) -> (f64, f64) {
    let prog = build_c("alltoall_timed", "mpicc");
    let (out, r) = run_analytic("4", net, "8", &prog, &["1000", "20"]);
    let max_behind_s = r["max_behind"]["max_ns"].as_f64().unwrap() / 1e9;
    assert_eq!(r["analytic"]["collectives"].as_u64(), Some(40)); // barrier + alltoall
    assert_eq!(r["analytic"]["messages"].as_u64(), Some(0));
    (value_after(&out, "median_s="), max_behind_s)
}

#[test]
fn an_alltoall_takes_what_its_collective_model_says() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let step_s = (LATENCY_NS + 1000.0 * 8.0 / BANDWIDTH_BPS * 1e9) / 1e9;
    // Default: LIN fan-in of the 1000-byte block, no fan-out: P = 4 steps.
    let (avg, behind) = alltoall_median_s(&config("reference.toml"));
    let expect = 4.0 * step_s;
    eprintln!(
        "default model: {avg} s, closed form {expect} s ({:+.2} %), maxBehind {behind} s",
        (avg / expect - 1.0) * 100.0
    );
    // Widened by the run's lateness, capped at 5 % of the closed form.
    assert!(
        (avg - expect).abs() <= (behind + 0.02 * expect).min(0.05 * expect),
        "default model: {avg} s, closed form {expect} s"
    );
    // Configured: LOG fan-in with one bus: phases of 1 and 2 messages →
    // 1 + 2 = 3 steps.
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("one-bus.toml");
    let text = std::fs::read_to_string(config("reference.toml")).unwrap()
        + "\n[analytic]\nbuses = 1\n[analytic.collective.alltoall]\nmodel_in = \"LOG\"\nsize_in = \"MAX\"\nmodel_out = \"0\"\nsize_out = \"MAX\"\n";
    std::fs::write(&net, text).unwrap();
    let (avg, behind) = alltoall_median_s(net.to_str().unwrap());
    let expect = 3.0 * step_s;
    eprintln!(
        "LOG with one bus: {avg} s, closed form {expect} s ({:+.2} %), maxBehind {behind} s",
        (avg / expect - 1.0) * 100.0
    );
    assert!(
        (avg - expect).abs() <= (behind + 0.02 * expect).min(0.05 * expect),
        "LOG with one bus: {avg} s, closed form {expect} s"
    );
}

#[test]
fn checked_programs_stay_correct() {
    if skip_without_mpicc() {
        return;
    }
    let net = config("reference.toml");
    let prog = build_c("collectives", "mpicc");
    let (out, r) = run_analytic("4", &net, "1", &prog, &[]);
    assert!(
        out.contains("collectives: ") && out.contains("checks passed"),
        "{out}"
    );
    assert!(
        r["analytic"]["collectives"].as_u64().unwrap() > 100,
        "{}",
        r["analytic"]
    );
    // Collective data is carried untimed; no collective message is timed
    // as a point-to-point message.
    assert_eq!(r["analytic"]["messages"].as_u64(), Some(0));
    assert!(r["analytic"]["untimed_messages"].as_u64().unwrap() > 0);
    let prog = build_c("p2p_modes", "mpicc");
    let (out, _) = run_analytic("2", &net, "1", &prog, &[]);
    assert!(out.contains("p2p_modes: 57 checks passed"), "{out}");
    // Blocks above the eager limit (rendezvous inside the collective).
    let prog = build_c("alltoall", "mpicc");
    let (out, _) = run_analytic("4", &net, "1", &prog, &["5", "70000"]);
    assert!(out.contains(" 0 bad bytes"), "{out}");
}

#[test]
fn capture_is_refused_in_one_sentence() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config("reference.toml"),
            "--model",
            "analytic",
            "--capture",
            dir.path().to_str().unwrap(),
        ],
        &prog,
        &["1"],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the analytic model has no packets, so it writes no captures"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config("reference.toml"),
            "--model",
            "fluid",
        ],
        &prog,
        &["1"],
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("give `packet`"));
}

#[test]
fn compare_puts_the_two_models_side_by_side() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    ensure_shim();
    let o = std::process::Command::new(bin())
        .args(["compare", "-n", "2", "--time-factor", "4", "--net"])
        .arg(config("reference.toml"))
        .args(["--model", "packet", "--model", "analytic", "--report"])
        .arg(&json)
        .arg("--")
        .arg(&prog)
        .args(["200", "32"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: serde_json::Value =
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&json).unwrap())
            .unwrap()["rows"]
            .clone();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    assert_eq!(
        (rows[0]["model"].as_str(), rows[1]["model"].as_str()),
        (Some("packet"), Some("analytic"))
    );
    // Each runtime lies within its model: 400 one-way messages of 88 B
    // (envelope + 32) — analytic: 1 ms + 88 B ÷ 1 Gbps each; packet: two
    // hops of (0.5 ms + the 166-byte frame ÷ 1 Gbps) each, plus a
    // handshake round trip (2 ms) before the first message of each
    // direction. Never faster: the runtime counts from the last rank's
    // MPI_Init, so at most one message (and, packet, its handshake) falls
    // before it. Slower by at most the programs' computation and start-up
    // (5 %) and each message's lateness (maxBehind, as run_timing allows).
    let frame_ns = serialization_time(data_frame_wire_len(88), 1_000_000_000).0 as f64;
    let packet_s = (400.0 * 2.0 * (500_000.0 + frame_ns) + 2.0 * 2e6) / 1e9;
    let analytic_s = 400.0 * (1e6 + 88.0 * 8.0) / 1e9;
    for (row, model, head_start) in [(&rows[0], packet_s, 3e-3), (&rows[1], analytic_s, 1e-3)] {
        let got = row["runtime_s"].as_f64().unwrap();
        let behind_s = row["max_behind_us"].as_f64().unwrap() / 1e6;
        eprintln!(
            "{}: {got} s, model {model} s ({:+.2} %), maxBehind {behind_s} s",
            row["model"],
            (got / model - 1.0) * 100.0
        );
        // Each message's lateness widens the bound, but never past 10 %
        // over the model: a badly late run fails.
        assert!(
            got >= model - head_start && got <= (model * 1.05 + 400.0 * behind_s).min(model * 1.10),
            "{}: {got} s, model {model} s, maxBehind {behind_s} s",
            row["model"]
        );
    }
    assert!(rows[1]["wall_s"].as_f64().unwrap() > 0.0);
}
