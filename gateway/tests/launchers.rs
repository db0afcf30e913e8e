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
            "MPINETSIM_SECRET",
            &gw.secret,
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
    // Two processes both claiming rank 0 of a 2-rank job.
    let gw = start_gateway("twice", "2");
    let spawn = |rank: &str, size: &str| {
        Command::new(&prog)
            .env("LD_LIBRARY_PATH", &gw.lib_dir)
            .env("MPINETSIM_GATEWAY", &gw.gateway)
            .env("MPINETSIM_JOB", &gw.job)
            .env("MPINETSIM_SECRET", &gw.secret)
            .env("PMI_RANK", rank)
            .env("PMI_SIZE", size)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn("0", "2");
    std::thread::sleep(Duration::from_millis(300));
    let b = spawn("0", "2");
    let (code, err, _) = gw.finish();
    let _ = (a.wait_with_output(), b.wait_with_output());
    assert_ne!(code, 0);
    assert!(err.contains("rank 0 connected twice"), "{err}");

    // A size that disagrees with the gateway's.
    let gw = start_gateway("size", "2");
    let lib_dir = gw.lib_dir.clone();
    let c = Command::new(&prog)
        .env("LD_LIBRARY_PATH", &gw.lib_dir)
        .env("MPINETSIM_GATEWAY", &gw.gateway)
        .env("MPINETSIM_JOB", &gw.job)
        .env("MPINETSIM_SECRET", &gw.secret)
        .env("SLURM_PROCID", "0")
        .env("SLURM_NTASKS", "3")
        .output()
        .unwrap();
    let (code, err, _) = gw.finish();
    assert!(!c.status.success());
    assert_ne!(code, 0);
    assert!(
        err.contains("says the job has 3 ranks but the gateway runs 2"),
        "{err}"
    );

    // No gateway at the address: the rank fails at once with one sentence.
    let started = Instant::now();
    let d = Command::new(&prog)
        .env("LD_LIBRARY_PATH", &lib_dir)
        .env("MPINETSIM_GATEWAY", "unix:/nonexistent/gw.sock")
        .env("MPINETSIM_JOB", "1")
        .env("MPINETSIM_SECRET", "0123456789abcdef0123456789abcdef")
        .env("PMI_RANK", "0")
        .env("PMI_SIZE", "1")
        .output()
        .unwrap();
    assert!(!d.status.success());
    assert!(started.elapsed() < Duration::from_secs(5));
    let e = String::from_utf8_lossy(&d.stderr);
    assert!(
        e.contains("cannot reach the mpinetsim gateway at unix:/nonexistent/gw.sock"),
        "{e}"
    );
    assert!(!e.contains("panicked"));
}
