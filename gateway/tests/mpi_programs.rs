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
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

const RANKS: &str = "4";

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Builds tests/mpi/<name>.c and compares its output natively and through
/// mpinetsim on 4 ranks (see [`same_output_as_native`]). Returns the
/// number of checks, or None when MPICH is missing.
fn same_output(name: &str) -> Option<u64> {
    let _g = serial();
    if skip_without_mpicc() || skip_without_mpiexec() {
        return None;
    }
    let prog = build_c(name, "mpicc");
    Some(same_output_as_native(name, &prog, RANKS))
}

/// Builds tests/mpi/<name>.c and compares its output natively and through
/// mpinetsim on 2, 4 and 8 ranks. Returns the number of checks on each,
/// or None when MPICH is missing.
fn same_output_on_2_4_8(name: &str) -> Option<[u64; 3]> {
    let _g = serial();
    if skip_without_mpicc() || skip_without_mpiexec() {
        return None;
    }
    let prog = build_c(name, "mpicc");
    Some(["2", "4", "8"].map(|n| same_output_as_native(name, &prog, n)))
}

#[test]
fn attributes_names_errors_info_and_generalized_requests_match_native_mpich() {
    if let Some(n) = same_output_on_2_4_8("mpi_state") {
        // 73 checks on every rank.
        assert_eq!(n, [73 * 2, 73 * 4, 73 * 8]);
    }
}

/// tests/mpi/topology.c: MPI_Dims_create on 7500 inputs (their digests
/// must equal MPICH's), Cartesian grids, graphs, distributed graphs and
/// every neighbourhood collective on them, on 2, 4 and 8 ranks.
#[test]
fn topologies_and_neighbourhood_collectives_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("topology") {
        // At least the dims_create checks (5 numbers of dimensions × 15
        // sizes, plus 4) and 60 grid and graph checks on every rank.
        for (ranks, n) in [2, 4, 8].iter().zip(n) {
            assert!(n >= (79 + 60) * ranks, "{n} checks on {ranks} ranks");
        }
    }
}

/// tests/mpi/datatypes_ext.c: subarrays, darrays, envelopes and contents,
/// Fortran kinds, external32 bytes, partial element counts.
#[test]
fn subarrays_darrays_envelopes_and_external32_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("datatypes_ext") {
        for (ranks, n) in [2, 4, 8].iter().zip(n) {
            assert!(n >= 300 * ranks, "{n} checks on {ranks} ranks");
        }
    }
}

/// tests/mpi/p2p_ext.c: matched probes, MPI_Isendrecv(_replace), receive
/// cancellation, statuses.
#[test]
fn matched_probes_and_isendrecv_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("p2p_ext") {
        for (ranks, n) in [2, 4, 8].iter().zip(n) {
            // Per rank: 5 matched-probe and 2 isendrecv checks per other
            // rank and message size (2), 2 token, 4 MPI_PROC_NULL and 7
            // cancel and status checks.
            assert_eq!(n, ranks * (14 * (ranks - 1) + 13), "on {ranks} ranks");
        }
    }
}

/// tests/mpi/compute_bound.c: fixed work between barriers, checked
/// against the generator's closed form (gateway/tests/compute_clock.rs
/// measures its computation).
#[test]
fn a_compute_bound_program_matches_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("compute_bound") {
        // Two checks on every rank: the closed form and agreement.
        assert_eq!(n, [2 * 2, 2 * 4, 2 * 8]);
    }
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
        // errors.c makes 459 checks on every rank.
        assert_eq!(n, 459 * 4, "{n} checks");
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
