//! Jobs that stop making progress: every connected rank waits in MPI and
//! nothing is in flight. After `--stall-timeout` the gateway says who waits
//! for whom (the shims report it with Waiting frames) and, by default for
//! `run`, stops the job; a rank that computes is not a stall.

mod common;
use common::standalone::start_gateway_with;
use common::*;
use std::process::{Command, Stdio};
use std::time::Duration;

fn stall_run(ranks: &str, mode: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let prog = build_c("stall", "mpicc");
    let net = config("reference.toml");
    let args = [
        &["-n", ranks, "--net", &net, "--stall-timeout", "1s"][..],
        extra,
    ]
    .concat();
    let o = run(&args, &prog, &[mode]);
    let (out, err) = text(&o);
    (o.status.code(), out, err)
}

fn last_line(err: &str) -> &str {
    err.lines().last().unwrap_or("")
}

#[test]
fn a_mutual_receive_is_reported_as_a_deadlock_and_stopped() {
    if skip_without_mpicc() {
        return;
    }
    let (code, out, err) = stall_run("2", "deadlock", &[]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert_eq!(
        last_line(&err),
        "mpinetsim: no progress for 1.0 s: every rank waits and nothing is in flight in the network (a deadlock): rank 0 waits in MPI_Recv for rank 1; rank 1 waits in MPI_Recv for rank 0; the ranks were stopped (--on-stall wait keeps a stalled job waiting)",
        "{err}"
    );
    assert!(!out.contains("passed"), "{out}");
}

#[test]
fn a_rank_that_never_calls_mpi_init_is_named_with_its_process() {
    if skip_without_mpicc() {
        return;
    }
    let (code, out, err) = stall_run("3", "no-init", &[]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let line = last_line(&err);
    assert!(
        line.starts_with("mpinetsim: no progress for 1.0 s: the connected ranks wait and nothing is in flight in the network: rank 0 waits in MPI_Recv for rank 1; rank 1 has not called MPI_Init (process "),
        "{err}"
    );
    assert!(
        line.contains(" is running); rank 2 has finished (MPI_Finalize); the ranks were stopped"),
        "{err}"
    );
}

#[test]
fn with_on_stall_wait_the_job_says_so_and_keeps_waiting() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("stall", "mpicc");
    ensure_shim();
    let mut child = Command::new(bin())
        .args([
            "run",
            "-n",
            "2",
            "--net",
            &config("reference.toml"),
            "--stall-timeout",
            "1s",
            "--on-stall",
            "wait",
            "--",
        ])
        .arg(&prog)
        .arg("deadlock")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    assert!(child.try_wait().unwrap().is_none(), "it keeps waiting");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let said: Vec<&str> = err.lines().filter(|l| l.contains("no progress")).collect();
    assert_eq!(said.len(), 1, "said once: {err}");
    assert!(said[0].ends_with("rank 1 waits in MPI_Recv for rank 0; the job keeps waiting (--on-stall stop would end it)"), "{err}");
}

#[test]
fn a_rank_computing_longer_than_the_quiet_period_is_no_stall() {
    if skip_without_mpicc() {
        return;
    }
    let (code, out, err) = stall_run("2", "slow", &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(!err.contains("no progress"), "{err}");
}

#[test]
fn a_standalone_gateway_whose_ranks_never_come_says_how_to_start_them() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gw-never");
    let listen = format!("unix:{}", dir.join("gw.sock").display());
    let mut gw = start_gateway_with(
        "never",
        "4",
        &[],
        &["--listen", &listen, "--stall-timeout", "1s"],
    );
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        gw.child.try_wait().unwrap().is_none(),
        "a gateway keeps waiting by default"
    );
    let _ = gw.child.kill();
    let _ = gw.child.wait();
    let mut err = String::new();
    std::io::Read::read_to_string(gw.child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("mpinetsim: no progress for 1.0 s: none of the 4 ranks has connected; start them with the environment printed above; the job keeps waiting"),
        "{err}"
    );
}
