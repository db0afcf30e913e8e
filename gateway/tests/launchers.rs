//! Ranks started by a real launcher against `mpinetsim gateway`: Debian's
//! hydra `mpiexec` runs the self-checking test programs with the same
//! checked output as `mpinetsim run`; a rank number seen twice or a size
//! that disagrees is refused; an unreachable gateway fails a rank at once.

mod common;

use common::{bin, build_c, config, ensure_shim, run, skip_without_mpicc};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A standalone gateway and the environment it printed.
struct StandaloneGateway {
    child: Child,
    lib_dir: String,
    gateway: String,
    job: String,
    secret: String,
    report: PathBuf,
}

fn start_gateway(name: &str, ranks: &str) -> StandaloneGateway {
    ensure_shim();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gw-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    let mut child = Command::new(bin())
        .args([
            "gateway",
            "-n",
            ranks,
            "--net",
            &config("reference.toml"),
            "--listen",
        ])
        .arg(format!("unix:{}", dir.join("gw.sock").display()))
        .arg("--report")
        .arg(&report)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mpinetsim gateway");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut lib_dir, mut gateway, mut job, mut secret) =
        (String::new(), String::new(), String::new(), String::new());
    for line in lines.by_ref() {
        let line = line.unwrap();
        let value = |k: &str| line.trim().strip_prefix(k).map(str::to_string);
        if let Some(v) = value("LD_LIBRARY_PATH=") {
            lib_dir = v;
        } else if let Some(v) = value("MPINETSIM_GATEWAY=") {
            gateway = v;
        } else if let Some(v) = value("MPINETSIM_JOB=") {
            job = v;
        } else if let Some(v) = value("MPINETSIM_SECRET=") {
            secret = v;
            break;
        }
    }
    assert!(!lib_dir.is_empty() && !gateway.is_empty() && !job.is_empty());
    assert_eq!(secret.len(), 32, "a 128-bit secret in hex");
    // Keep draining its stdout so the gateway never writes into a closed pipe.
    std::thread::spawn(move || for _ in lines {});
    StandaloneGateway {
        child,
        lib_dir,
        gateway,
        job,
        secret,
        report,
    }
}

impl StandaloneGateway {
    /// Waits for the gateway to end (at most 60 s); its exit code and stderr.
    fn finish(mut self) -> (i32, String, Option<serde_json::Value>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err)
                    .unwrap();
                let report = std::fs::read_to_string(&self.report)
                    .ok()
                    .map(|t| serde_json::from_str(&t).unwrap());
                return (st.code().unwrap_or(-1), err, report);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the standalone gateway did not end");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

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
