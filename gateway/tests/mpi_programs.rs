//! The C programs of tests/mpi, built with Debian's `mpicc`, give the same
//! checked output natively (Debian's `mpiexec`, MPICH) and through
//! `mpinetsim run` on the reference network; and the matching
//! micro-benchmark counts exactly the unsuccessful match attempts and
//! unexpected messages its message order implies.
//!
//! The tests run one at a time (a lock): they start several processes each
//! and the matching counts need rank 0's messages to arrive within rank 1's
//! 100 ms of computation.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

const RANKS: &str = "4";

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// True (after saying so) when Debian's mpiexec is missing.
fn skip_without_mpiexec() -> bool {
    let ok = Command::new("mpiexec")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: mpiexec not found (apt-get install mpich)");
    }
    !ok
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

/// Runs `prog` natively with `mpiexec -n 4`.
fn native(prog: &Path) -> Output {
    Command::new("mpiexec")
        .args(["-n", RANKS])
        .arg(prog)
        .output()
        .expect("run mpiexec")
}

/// Builds tests/mpi/<name>.c, runs it natively and through mpinetsim, and
/// requires both to succeed with the same (sorted) output lines, the last
/// of them `<name>: N checks passed`. Returns N.
fn same_output(name: &str) -> Option<u64> {
    let _g = serial();
    if skip_without_mpicc() || skip_without_mpiexec() {
        return None;
    }
    let prog = build_c(name, "mpicc");
    let (nat_out, nat_err) = text(&native(&prog));
    let o = run(
        &[
            "-n",
            RANKS,
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "1",
        ],
        &prog,
        &[],
    );
    let (sim_out, sim_err) = text(&o);
    assert!(
        o.status.success(),
        "{name} through mpinetsim failed ({}):\n{sim_out}\n{sim_err}",
        o.status
    );
    assert!(
        nat_out.contains("checks passed"),
        "{name} natively failed:\n{nat_out}\n{nat_err}"
    );
    assert_eq!(
        sorted_lines(&sim_out),
        sorted_lines(&nat_out),
        "{name}: mpinetsim (left) and native MPICH (right) differ\n{sim_err}"
    );
    let last = sim_out
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")) && l.ends_with(" checks passed"))
        .unwrap_or_else(|| panic!("{name} printed no summary:\n{sim_out}"));
    let n: u64 = last.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(n > 0);
    eprintln!("{last}");
    Some(n)
}

#[test]
fn thread_multiple_lets_other_threads_call_mpi_while_one_waits() {
    if let Some(n) = same_output("threads_multiple") {
        assert_eq!(n, 6);
    }
}

#[test]
fn collectives_match_native_mpich() {
    if let Some(n) = same_output("collectives") {
        assert!(n >= 700, "{n} checks");
    }
}

#[test]
fn communicators_groups_attributes_match_native_mpich() {
    if let Some(n) = same_output("comms") {
        assert!(n >= 200, "{n} checks");
    }
}

#[test]
fn datatypes_match_native_mpich() {
    if let Some(n) = same_output("datatypes") {
        assert!(n >= 200, "{n} checks");
    }
}

#[test]
fn p2p_modes_match_native_mpich() {
    if let Some(n) = same_output("p2p_modes") {
        assert!(n >= 100, "{n} checks");
    }
}

#[test]
fn errors_match_native_mpich() {
    if let Some(n) = same_output("errors") {
        assert!(n >= 100, "{n} checks");
    }
}

/// Runs `matching n order` on 2 ranks with `--report`; returns rank 1's
/// (unsuccessful_matches, unexpected).
fn matching(prog: &Path, net: &str, factor: &str, n: u64, order: &str) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let ns = n.to_string();
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config(net),
            "--time-factor",
            factor,
            "--report",
            rep.to_str().unwrap(),
        ],
        prog,
        &[&ns, order],
    );
    let (out, err) = text(&o);
    assert!(
        o.status.success(),
        "matching {n} {order} failed:\n{out}\n{err}"
    );
    assert_eq!(
        out.trim(),
        format!("matching n={n} order={order} errors=0"),
        "{err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let mpi = &r["rank_reports"][1]["mpi"];
    (
        mpi["unsuccessful_matches"].as_u64().unwrap(),
        mpi["unexpected"].as_u64().unwrap(),
    )
}

fn matching_counts(net: &str, factors: &[&str]) {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("matching", "mpicc");
    for factor in factors {
        for n in [1u64, 2, 10, 45, 90] {
            for (order, want) in [("in", 0), ("reverse", n * (n - 1) / 2)] {
                let got = matching(&prog, net, factor, n, order);
                assert_eq!(
                    got,
                    (want, n),
                    "{net} factor {factor}: matching {n} {order}: (unsuccessful, unexpected)"
                );
            }
        }
    }
}

#[test]
fn matching_counts_unsuccessful_attempts_on_the_reference_network() {
    matching_counts("reference.toml", &["1", "2"]);
}

#[test]
fn matching_counts_unsuccessful_attempts_on_the_slow_rank0_network() {
    matching_counts("slow-rank0.toml", &["1"]);
}
