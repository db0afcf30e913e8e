//! Computation measured as CPU time (`--compute-clock cpu`, the default):
//! a compute-bound program (tests/mpi/compute_bound.c: every rank does the
//! same fixed work between barriers) is charged, on every rank, the CPU
//! time of its work, with 1 rank and with 8 ranks on this machine's cores,
//! at factors 8 and 16, with or without a competing busy process; with
//! `--compute-clock wall` the computation grows with the ranks sharing a
//! core; a host's `cpu_speed = 0.5` doubles its ranks' computation; a
//! rank's threads add their CPU time up. The model: the emulated machine
//! has one core per rank, so a rank's computation is the CPU time of its
//! fixed work (÷ its host's speed), whatever the sharing, and the rounds
//! last the sum over rounds of the slowest rank's work.
//!
//! The reference is the same run's own measure: the program reads each
//! thread's CPU clock around its work and prints it. The CPU time of the
//! same work varies by up to 6 % from one run to the next on this virtual
//! machine (0.379 s and 0.403 s in two runs a minute apart), which is the
//! host's doing and not mpinetsim's, so the tests hold mpinetsim's
//! computation to a fixed bound against the work it was given in that run,
//! not against another run. These tests measure real time: they run one
//! after another.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

/// Rounds and iterations per round: ≈ 0.25–0.4 s of CPU time per rank here.
const ROUNDS: &str = "5";
const WORK: &str = "50000000";

/// Relative tolerance of the acceptance criteria.
const TOLERANCE: f64 = 0.03;

fn runs_one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn program() -> Option<std::path::PathBuf> {
    if skip_without_mpicc() {
        return None;
    }
    Some(build_c("compute_bound", "mpicc"))
}

/// One run of compute_bound: mpinetsim's report and the program's own
/// measures of its work.
struct Job {
    report: Value,
    /// Each rank's CPU time of its work, s, as the program measured it.
    work_cpu_s: Vec<f64>,
    /// The sum over rounds of the slowest rank's work CPU time, s.
    rounds_model_s: f64,
    /// The rounds' emulated runtime on rank 0 (MPI_Wtime), s.
    rounds_wtime_s: f64,
}

/// The value of `key=` on a line of the program's stderr.
fn printed<'a>(err: &'a str, key: &str) -> &'a str {
    let prefix = format!("{key}=");
    err.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("compute_bound printed no {key}: {err}"))
}

/// Runs the program on `ranks` ranks of `net` at `factor` with `extra`
/// options and program arguments `args`.
fn run_job(prog: &Path, ranks: u32, net: &str, factor: u32, extra: &[&str], args: &[&str]) -> Job {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let (n, f) = (ranks.to_string(), factor.to_string());
    let mut opts = vec!["-n", &n, "--net", net, "--time-factor", &f];
    opts.extend_from_slice(extra);
    opts.extend_from_slice(&["--report", rep.to_str().unwrap()]);
    let o = run(&opts, prog, args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{opts:?}: {out}\n{err}");
    assert!(out.contains("compute_bound: "), "{out}");
    assert!(out.contains(" checks passed"), "{out}");
    let number = |s: &str| s.parse::<f64>().unwrap_or_else(|e| panic!("{s}: {e}"));
    Job {
        report: serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap(),
        work_cpu_s: printed(&err, "work_cpu_s").split(',').map(number).collect(),
        rounds_model_s: number(printed(&err, "rounds_model_s")),
        rounds_wtime_s: number(printed(&err, "rounds_wtime_s")),
    }
}

/// Each rank's computation, s.
fn computes(r: &Value, key: &str) -> Vec<f64> {
    r["rank_reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["mpi"][key].as_f64().unwrap())
        .collect()
}

fn within(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b
}

/// The model's checks on one run at full CPU speed: every rank is charged
/// the CPU time of its work, the rounds last as long as that work says,
/// and there is one `compute` lateness sample per MPI call.
fn assert_charged_its_work(job: &Job, what: &str) {
    let r = &job.report;
    assert_eq!(r["compute_clock"], "cpu", "{what}");
    let compute = computes(r, "compute_s");
    assert_eq!(compute.len(), job.work_cpu_s.len(), "{what}");
    for (rank, (c, work)) in compute.iter().zip(&job.work_cpu_s).enumerate() {
        assert!(
            within(*c, *work, TOLERANCE),
            "{what}: rank {rank} was charged {c} s of computation for {work} s of CPU time of its work"
        );
    }
    assert!(
        within(job.rounds_wtime_s, job.rounds_model_s, TOLERANCE),
        "{what}: the rounds took {} s of emulated time, the slowest ranks' work {} s",
        job.rounds_wtime_s,
        job.rounds_model_s
    );
    let calls: u64 = (r["rank_reports"].as_array().unwrap().iter())
        .map(|x| x["mpi"]["calls"].as_u64().unwrap())
        .sum();
    let kinds = r["max_behind"]["by_kind"].as_array().unwrap();
    let samples = kinds.iter().find(|k| k["kind"] == "compute").unwrap();
    assert_eq!(samples["events"].as_u64(), Some(calls), "{what}");
}

/// A process that spins on one core until dropped.
struct Busy(Child);

impl Busy {
    fn start() -> Busy {
        Busy(
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .expect("start a busy shell"),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn cpu_time_computation_is_the_same_with_1_and_8_ranks_at_factors_8_and_16() {
    let _g = runs_one_at_a_time();
    let Some(prog) = program() else { return };
    let net = config("ideal.toml");
    // 8 ranks share 2 cores here: each gets a quarter of a core, so its
    // work lasts 4 times its CPU time of wall time (÷ the factor); the
    // emulated machine's core per rank runs it in its CPU time.
    for ranks in [1, 8] {
        for factor in [8, 16] {
            let job = run_job(&prog, ranks, &net, factor, &[], &[ROUNDS, WORK]);
            assert_charged_its_work(&job, &format!("{ranks} ranks at factor {factor}"));
        }
    }
}

#[test]
fn cpu_time_computation_ignores_a_competing_busy_process() {
    let _g = runs_one_at_a_time();
    let Some(prog) = program() else { return };
    let net = config("ideal.toml");
    let quiet = run_job(&prog, 8, &net, 16, &[], &[ROUNDS, WORK]);
    assert_charged_its_work(&quiet, "quiet at factor 16");
    let _busy = Busy::start();
    for factor in [8, 16] {
        let job = run_job(&prog, 8, &net, factor, &[], &[ROUNDS, WORK]);
        assert_charged_its_work(&job, &format!("beside a busy process at factor {factor}"));
    }
}

#[test]
fn wall_clock_computation_grows_when_ranks_share_cores() {
    let _g = runs_one_at_a_time();
    let Some(prog) = program() else { return };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores >= 8 {
        skip_because("8 ranks do not share this machine's cores; the test needs fewer than 8");
        return;
    }
    let net = config("ideal.toml");
    let r = run_job(
        &prog,
        8,
        &net,
        8,
        &["--compute-clock", "wall"],
        &["3", WORK],
    )
    .report;
    assert_eq!(r["compute_clock"], "wall");
    let wall = computes(&r, "compute_s");
    let cpu = computes(&r, "compute_cpu_s");
    // 8 ranks computing at once on `cores` cores each get cores ÷ 8 of a
    // core: their wall-clock computation is about 8 ÷ cores times their
    // CPU time (at least 80 % of that, whatever else runs).
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let ratio = mean(&wall) / mean(&cpu);
    assert!(
        ratio >= 0.8 * 8.0 / cores as f64,
        "wall-clock computation is {ratio:.2} × the CPU time on {cores} cores: {wall:?} vs {cpu:?}"
    );
}

#[test]
fn half_cpu_speed_doubles_the_computation_of_the_ranks_on_that_host() {
    let _g = runs_one_at_a_time();
    let Some(prog) = program() else { return };
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(config("ideal.toml")).unwrap();
    let net = dir.path().join("slow-host0.toml");
    std::fs::write(
        &net,
        text.replacen("name = \"host0\"", "name = \"host0\"\ncpu_speed = 0.5", 1),
    )
    .unwrap();
    // 8 ranks on 4 hosts, 2 per host in blocks: ranks 0 and 1 on host0.
    let job = run_job(&prog, 8, net.to_str().unwrap(), 8, &[], &[ROUNDS, WORK]);
    let r = &job.report;
    let compute = computes(r, "compute_s");
    let cpu = computes(r, "compute_cpu_s");
    for (rank, x) in r["rank_reports"].as_array().unwrap().iter().enumerate() {
        let speed = if rank < 2 { 0.5 } else { 1.0 };
        assert_eq!(x["cpu_speed"].as_f64(), Some(speed), "rank {rank}");
        assert!(
            within(compute[rank], cpu[rank] / speed, TOLERANCE),
            "rank {rank} at speed {speed}: computation {} s for {} s of CPU",
            compute[rank],
            cpu[rank]
        );
        let work = job.work_cpu_s[rank];
        assert!(
            within(compute[rank], work / speed, TOLERANCE),
            "rank {rank} at speed {speed}: computation {} s for {work} s of CPU time of its work",
            compute[rank],
        );
    }
}

#[test]
fn calibrating_8_ranks_that_compute_at_once_on_fewer_cores_judges_messages_not_late_computations() {
    let _g = runs_one_at_a_time();
    let Some(prog) = program() else { return };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 2 {
        skip_because("the test models 8 ranks on 2 cores; this machine has more");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args(["calibrate", "-n", "8", "--net", &config("ideal.toml")])
        .args(["--factors", "1,2,4,8,16", "--repeat", "1", "--out"])
        .arg(dir.path())
        .args(["--", prog.to_str().unwrap(), "3", "10000000"])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{out}\n{err}");
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("calibration.json")).unwrap(),
    )
    .unwrap();
    // 8 ranks computing at once on 2 cores get a quarter of a core each:
    // at factor f < 4 each computation takes 4/f times its CPU time of
    // scaled time, so the computations are late against the wall clock
    // (kind `compute` in maxBehind).
    let rows = v["factors"].as_array().unwrap();
    assert!(
        rows[0]["behind_max_us"].as_f64().unwrap() >= 1000.0,
        "{out}"
    );
    // But a rank's emulated time is its CPU time, however long it waited
    // for a core: that lateness moves no result unless a rank's message
    // then enters the network behind its stamp (the gateway holds events
    // for the rank's horizon, then paces it with the wall clock). So in
    // every run whose messages entered on time (none more than 50 µs
    // late) the rounds take what the slowest rank's CPU time for its work
    // says (compute_bound prints both; the runs wrote into ranks.log in
    // the order of the factors), within the tolerance of the single-run
    // tests above. In CI's rehearsal every factor's messages were on
    // time; at least three must be for this to test anything.
    let log = std::fs::read_to_string(dir.path().join("ranks.log")).unwrap();
    let values = |key: &str| -> Vec<f64> {
        let prefix = format!("{key}=");
        log.lines()
            .filter_map(|l| l.strip_prefix(prefix.as_str()))
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let (wtime, model) = (values("rounds_wtime_s"), values("rounds_model_s"));
    assert_eq!(
        (wtime.len(), model.len()),
        (rows.len(), rows.len()),
        "{log}"
    );
    let mut on_time = 0;
    for (i, r) in rows.iter().enumerate() {
        if r["late_max_us"].as_f64().unwrap() > 50.0 {
            continue;
        }
        on_time += 1;
        assert!(
            within(wtime[i], model[i], TOLERANCE),
            "factor {}: the rounds took {} s, the slowest ranks' CPU time says {} s\n{out}",
            r["factor"],
            wtime[i],
            model[i]
        );
    }
    assert!(on_time >= 3, "{out}");
    let first_line = err.lines().next().unwrap_or_default();
    assert!(
        !first_line.contains("ranks on"),
        "calibrate does not announce cores per run: {err}"
    );
}

#[test]
fn a_ranks_threads_add_their_cpu_time_up() {
    let _g = runs_one_at_a_time();
    let Some(prog) = program() else { return };
    let net = config("ideal.toml");
    // One rank computing the same chain on 1 and on 2 threads at once:
    // the emulated machine's one core per rank runs both threads' CPU
    // time, the sum of what the threads measured (each thread has a core
    // here: 2 cores); a shim that counted one thread would be charged
    // half of it.
    for threads in ["1", "2"] {
        let job = run_job(&prog, 1, &net, 8, &[], &["4", "25000000", threads]);
        assert_charged_its_work(&job, &format!("1 rank on {threads} threads"));
    }
}
