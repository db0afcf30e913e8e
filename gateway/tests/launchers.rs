//! Ranks started by a real launcher against `mpinetsim gateway`: Debian's
//! hydra `mpiexec` runs the self-checking test programs with the same
//! checked output as `mpinetsim run`; a rank number seen twice or a size
//! that disagrees is refused; an unreachable gateway fails a rank at once.

mod common;

use common::standalone::{start_gateway, StandaloneGateway};
use common::{build_c, config, run, skip_without_mpicc};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn mpiexec(gw: &StandaloneGateway, ranks: &str, prog: &Path, args: &[&str]) -> Output {
    Command::new("mpiexec")
        .args(["-n", ranks, "-genv", "LD_LIBRARY_PATH", &gw.lib_dir])
        .args([
            "-genv",
            "MPINETSIM_GATEWAY",
            &gw.gateway,
            "-genv",
            "MPINETSIM_JOB",
            &gw.job,
            "-genv",
            "MPINETSIM_SECRET_FILE",
            &gw.secret_file,
        ])
        .arg(prog)
        .args(args)
        .output()
        .expect("run Debian's mpiexec")
}

fn sorted_stdout(o: &Output) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(String::from)
        .collect();
    v.sort();
    v
}

#[test]
fn hydra_mpiexec_runs_programs_against_a_standalone_gateway() {
    if skip_without_mpicc() {
        return;
    }
    for (name, ranks) in [("collectives", "4"), ("p2p_modes", "3"), ("comms", "4")] {
        let prog = build_c(name, "mpicc");
        let gw = start_gateway(name, ranks);
        let launched = mpiexec(&gw, ranks, &prog, &[]);
        let (code, err, report) = gw.finish();
        assert!(
            launched.status.success(),
            "{name} under hydra: {}",
            String::from_utf8_lossy(&launched.stderr)
        );
        assert_eq!(code, 0, "{name}: gateway said {err}");
        let report = report.expect("a report");
        assert_eq!(report["outcome"], "completed");
        for r in report["rank_reports"].as_array().unwrap() {
            assert_eq!(r["ended"], "finalized");
            assert!(r["pid"].as_u64().unwrap() > 0);
        }
        // The same checked output as `mpinetsim run` launching it itself.
        let own = run(
            &["-n", ranks, "--net", &config("reference.toml")],
            &prog,
            &[],
        );
        assert!(own.status.success());
        assert_eq!(sorted_stdout(&launched), sorted_stdout(&own), "{name}");
        assert!(String::from_utf8_lossy(&launched.stdout).contains("checks passed"));
    }
}

#[test]
fn duplicate_ranks_wrong_sizes_and_missing_gateways_are_refused() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    // Two processes both claiming rank 0 of a 2-rank job: the second is
    // refused alone, and the job completes when rank 1 comes.
    let gw = start_gateway("twice", "2");
    let rank = |rank: &str, size: &str| {
        Command::new(&prog)
            .env("LD_LIBRARY_PATH", &gw.lib_dir)
            .env("MPINETSIM_GATEWAY", &gw.gateway)
            .env("MPINETSIM_JOB", &gw.job)
            .env("MPINETSIM_SECRET_FILE", &gw.secret_file)
            .env("PMI_RANK", rank)
            .env("PMI_SIZE", size)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    // No gateway at the address: the rank fails at once with one sentence.
    let started = Instant::now();
    let lost = Command::new(&prog)
        .env("LD_LIBRARY_PATH", &gw.lib_dir)
        .env("MPINETSIM_GATEWAY", "unix:/nonexistent/gw.sock")
        .env("MPINETSIM_JOB", "1")
        .env("MPINETSIM_SECRET", "0123456789abcdef0123456789abcdef")
        .env("PMI_RANK", "0")
        .env("PMI_SIZE", "1")
        .output()
        .unwrap();
    assert!(!lost.status.success());
    assert!(started.elapsed() < Duration::from_secs(5));
    let e = String::from_utf8_lossy(&lost.stderr);
    assert!(
        e.contains("cannot reach the mpinetsim gateway at unix:/nonexistent/gw.sock"),
        "{e}"
    );
    assert!(!e.contains("panicked"));

    let a = rank("0", "2");
    let b = rank("0", "2");
    // A size that disagrees with the gateway's: refused alone too.
    let c = rank("1", "3");
    let d = rank("1", "2");
    let (code, err, report) = gw.finish();
    assert!(a.status.success() && d.status.success(), "{err}");
    for refused in [&b, &c] {
        assert!(!refused.status.success());
        let e = String::from_utf8_lossy(&refused.stderr);
        assert!(
            e.contains("during the handshake (its output says why)"),
            "{e}"
        );
    }
    assert_eq!(code, 0, "{err}");
    assert_eq!(report.unwrap()["refused_connections"], 2);
    assert!(
        err.contains("its Hello names rank 0, which is already connected (pid "),
        "{err}"
    );
    assert!(
        err.contains("its Hello (rank 1) says the job has 3 ranks but this gateway runs 2"),
        "{err}"
    );
}
