//! The time factor and the fidelity of `mpinetsim run`, checked against a
//! written-down model. These tests measure real time, so they run one after
//! another (a lock), and their bounds are the model's tolerances.

mod common;
use common::*;
use netsim::packet::data_frame_wire_len;
use netsim::time::serialization_time;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn report(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

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
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let f = factor.to_string();
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config(net),
            "--time-factor",
            &f,
            "--report",
            rep.to_str().unwrap(),
        ],
        prog,
        args,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        report(&rep),
    )
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
        // 200 ms of computation reads as 200 ms of emulated time, ± 5 %.
        assert!(
            (190.0..=210.0).contains(&compute_ms),
            "factor {factor}: MPI_Wtime measured {compute_ms} ms"
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
        let (out, r) = run_at(&prog, &["300", "32"], "reference.toml", factor);
        let measured = value_after(&out, "one_way_us=");
        let max_behind_us = r["max_behind"]["max_ns"].as_f64().unwrap() / 1e3;
        let tolerance = max_behind_us + 0.02 * one_way_us;
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
    let tolerance = max_behind_us + 0.05 * one_way_us;
    assert!(
        (measured - one_way_us).abs() <= tolerance,
        "measured {measured} us, closed form {one_way_us} us, tolerance {tolerance} us, {} switches",
        changes.len()
    );
}
