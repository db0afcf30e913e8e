//! A run whose maxBehind is far above the network's smallest latency warns,
//! in the report and on stderr, with the time factor at which lateness
//! shrinking in proportion would fall under that latency.

mod common;
use common::*;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;

#[test]
fn lateness_far_above_a_microsecond_network_is_warned_about() {
    if skip_without_mpicc() {
        return;
    }
    // The reference network with 1 us links: hosts are 2 us apart, far
    // below what a process's wake-up costs, so events run late by far more.
    let dir = tempfile::tempdir().unwrap();
    let reference = std::fs::read_to_string(config("reference.toml")).unwrap();
    let net = dir.path().join("fast.toml");
    std::fs::write(
        &net,
        reference.replace("delay = \"500us\"", "delay = \"1us\""),
    )
    .unwrap();
    let prog = build_c("pingpong", "mpicc");
    let rep = dir.path().join("r.json");
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            net.to_str().unwrap(),
            "--report",
            rep.to_str().unwrap(),
        ],
        &prog,
        &["300", "32"],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let max_ns = r["max_behind"]["max_ns"].as_u64().unwrap();
    // One byte one way: two hops of a minimum frame at 1 Gbps and 1 us.
    let latency_ns = 2 * (serialization_time(data_frame_wire_len(1), 1_000_000_000).0 + 1_000);
    assert!(
        max_ns > 10 * latency_ns,
        "this run kept up ({max_ns} ns late): nothing to warn about"
    );
    let ratio = max_ns as f64 / latency_ns as f64;
    let factor = 2f64.powi(ratio.log2().ceil() as i32); // run at factor 1
    let warning = format!(
        "is {ratio:.0} times the network's smallest latency ({:.1} us, host0 to host1)",
        latency_ns as f64 / 1e3
    );
    // The maxBehind warning, and at most one about the ranks'
    // computations (at factor 1 a rank that took a message late is behind
    // by that much when it computes next: kind `compute`).
    let warnings = r["warnings"].as_array().unwrap();
    assert!(
        (1..=2).contains(&warnings.len())
            && warnings[1..].iter().all(|w| w
                .as_str()
                .unwrap()
                .starts_with("the ranks' computations ran up to")),
        "{warnings:?}"
    );
    let w = warnings[0].as_str().unwrap();
    assert!(
        w.starts_with("maxBehind ") && w.contains(&warning),
        "{w}\nwant: {warning}"
    );
    assert!(
        w.contains(&format!(
            "about {factor} brings maxBehind under that latency"
        )),
        "{w}"
    );
    assert!(err.contains(&format!("mpinetsim: warning: {w}")), "{err}");
}

#[test]
fn a_run_that_keeps_up_with_its_network_has_no_warning() {
    if skip_without_mpicc() {
        return;
    }
    // 1 ms between hosts at factor 4: events run well under 10 ms late.
    let prog = build_c("pingpong", "mpicc");
    let (o, r) = run_with_report("2", "reference.toml", "4", &prog, &["50", "32"]);
    assert!(o.status.success());
    let max_ns = r["max_behind"]["max_ns"].as_u64().unwrap();
    if max_ns <= 10 * 1_000_000 {
        assert_eq!(r["warnings"].as_array().unwrap().len(), 0);
        assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    }
}
