//! A run whose messages entered the network far behind their stamps
//! (later than the network's smallest latency) warns, in the report and on
//! stderr, with the time factor at which lateness shrinking in proportion
//! would fall under that latency; a run far behind the wall clock whose
//! messages all entered at their stamps does not.

mod common;
use common::*;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;

#[test]
fn lateness_far_above_a_microsecond_network_is_warned_about() {
    if skip_without_mpicc() {
        return;
    }
    // hpc-fat-tree: hosts 1 us apart, far below what a process's wake-up
    // costs. Through the socket (no horizons) at factor 1 a reply reaches
    // the gateway tens of µs of wall time after its stamp, when the
    // simulator has run later events (acknowledgements, TCP timers): it
    // enters late, some replies by milliseconds.
    let dir = tempfile::tempdir().unwrap();
    let prog = build_c("pingpong", "mpicc");
    let rep = dir.path().join("r.json");
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config("hpc-fat-tree.toml"),
            "--report",
            rep.to_str().unwrap(),
            "--transport",
            "socket",
        ],
        &prog,
        &["2000", "32"],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let max_ns = r["late_injections"]["max_ns"].as_u64().unwrap();
    // One byte one way: two hops of a minimum frame at 100 Gbps and 500 ns.
    let latency_ns = 2 * (serialization_time(data_frame_wire_len(1), 100_000_000_000).0 + 500);
    assert!(
        max_ns > 10 * latency_ns,
        "this run's messages entered at most {max_ns} ns late: nothing to warn about"
    );
    assert!(r["max_behind"]["max_ns"].as_u64().unwrap() >= max_ns);
    let ratio = max_ns as f64 / latency_ns as f64;
    let factor = 2f64.powi(ratio.log2().ceil() as i32); // run at factor 1
    let warning = format!(
        ", {ratio:.0} times the network's smallest latency ({:.1} us, host0 to host1)",
        latency_ns as f64 / 1e3
    );
    // The late messages' warning, and at most one about the ranks'
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
        w.contains(" messages entered the network after events later than their stamps, up to ")
            && w.contains(&warning),
        "{w}\nwant: {warning}"
    );
    assert!(
        w.contains(&format!("about {factor} brings that under the latency")),
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
    let max_ns = r["late_injections"]["max_ns"].as_u64().unwrap();
    if max_ns <= 10 * 1_000_000 {
        assert_eq!(r["warnings"].as_array().unwrap().len(), 0);
        assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    }
}

#[test]
fn a_run_behind_the_wall_clock_whose_messages_entered_on_time_has_no_lateness_warning() {
    if skip_without_mpicc() {
        return;
    }
    // hpc-fat-tree at factor 1 on shared memory: events run milliseconds
    // behind the wall clock, but the gateway holds them for the ranks'
    // horizons, so the messages enter at their stamps. A ping-pong does
    // not poll, so lateness of events alone is not warned about.
    let prog = build_c("pingpong", "mpicc");
    let (o, r) = run_with_report("2", "hpc-fat-tree.toml", "1", &prog, &["2000", "32"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let latency_ns = 1_000; // host0 to host1: 2 links of 500 ns (and 7 ns frames)
    let behind_ns = r["max_behind"]["max_ns"].as_u64().unwrap();
    assert!(
        behind_ns > 10 * latency_ns,
        "this run kept up with the wall clock ({behind_ns} ns): it tests nothing"
    );
    let polls: u64 = (r["rank_reports"].as_array().unwrap().iter())
        .map(|x| x["mpi"]["polls"].as_u64().unwrap())
        .sum();
    assert_eq!(polls, 0);
    let late = &r["late_injections"];
    assert_eq!(late["injections"].as_u64(), Some(4000));
    // A message may still enter late where a rank lost its core for more
    // than the hold cap; only then is there a warning, and it says so.
    let far_late = late["max_ns"].as_u64().unwrap() > 10 * latency_ns;
    let warnings: Vec<&str> = (r["warnings"].as_array().unwrap().iter())
        .filter_map(|w| w.as_str())
        .filter(|w| !w.starts_with("the ranks' computations ran up to"))
        .collect();
    assert!(
        warnings.iter().all(|w| !w.starts_with("maxBehind")),
        "{warnings:?}"
    );
    assert_eq!(warnings.len(), usize::from(far_late), "{warnings:?} {late}");
}
