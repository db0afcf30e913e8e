//! `--gateway-cpu N` and `--gateway-fifo`: the ranks run on every allowed
//! CPU but N, the job runs as usual, and a CPU the job may not use is one
//! sentence and exit code 2 before any rank starts.

mod common;
use common::*;

/// The CPUs this test process may run on, from /proc/self/status.
fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

#[test]
fn the_ranks_run_off_the_gateways_cpu() {
    if skip_without_mpicc() {
        return;
    }
    let cpus = allowed_cpus();
    assert!(
        cpus.len() >= 2,
        "the test needs 2 CPUs; this process may use {cpus:?}"
    );
    let prog = build_c("affinity", "mpicc");
    let gateway = *cpus.last().unwrap();
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config("ideal.toml"),
            "--gateway-cpu",
            &gateway.to_string(),
            "--gateway-fifo",
        ],
        &prog,
        &[],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let rest: Vec<String> = cpus[..cpus.len() - 1]
        .iter()
        .map(|c| c.to_string())
        .collect();
    for rank in 0..2 {
        let want = format!("rank {rank} cpus {}", rest.join(","));
        assert!(out.lines().any(|l| l == want), "no `{want}` in:\n{out}");
    }
    let cores = if rest.len() == 1 { "core" } else { "cores" };
    assert!(
        err.contains(&format!("2 ranks on {} {cores}", rest.len())),
        "{err}"
    );
}

#[test]
fn a_cpu_the_job_may_not_use_is_one_sentence() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("affinity", "mpicc");
    let beyond = allowed_cpus().iter().max().unwrap() + 1;
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config("ideal.toml"),
            "--gateway-cpu",
            &beyond.to_string(),
        ],
        &prog,
        &[],
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(out.is_empty(), "a rank ran: {out}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with(&format!(
            "mpinetsim: --gateway-cpu {beyond}: this process may run on CPUs"
        )),
        "{err}"
    );
}
