//! `mpinetsim run` ends a job cleanly when a rank crashes, exits without
//! MPI_Finalize, calls MPI_Abort or breaks the protocol: within 2 s, one line
//! naming the rank and why, a valid report, a non-zero exit code.

mod common;
use common::*;
use std::time::Instant;

fn check_clean_end(
    name: &str,
    compiler: &str,
    n: &str,
    expect_code: Option<i32>,
    needle: &str,
) -> Option<std::process::Output> {
    check_clean_end_on(
        &config("reference.toml"),
        name,
        compiler,
        n,
        expect_code,
        needle,
    )
}

/// Runs the program on network file `net` with captures; checks the job
/// ended as described and that every capture file is complete. Returns
/// the job's output (None when MPICH is missing).
fn check_clean_end_on(
    net: &str,
    name: &str,
    compiler: &str,
    n: &str,
    expect_code: Option<i32>,
    needle: &str,
) -> Option<std::process::Output> {
    if skip_without_mpicc() {
        return None;
    }
    let prog = build_c(name, compiler);
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let caps = dir.path().join("caps");
    let t = Instant::now();
    let o = run(
        &[
            "-n",
            n,
            "--net",
            net,
            "--time-factor",
            "2",
            "--report",
            rep.to_str().unwrap(),
            "--capture",
            caps.to_str().unwrap(),
        ],
        &prog,
        &[],
    );
    let took = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(took < 5.0, "the job took {took:.1} s to end:\n{err}");
    match expect_code {
        Some(c) => assert_eq!(o.status.code(), Some(c), "{err}"),
        None => assert!(o.status.code().is_some_and(|c| c != 0), "{err}"),
    }
    let lines = error_lines(&o);
    assert_eq!(
        lines.len(),
        1,
        "exactly one line says what happened:\n{err}"
    );
    assert!(lines[0].contains(needle), "{} lacks {needle:?}", lines[0]);
    // The report is complete JSON and says the same.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_ne!(r["outcome"], "completed");
    assert!(r["reason"].as_str().unwrap().contains(needle));
    assert!(caps.join("host0.pcap").is_file() || caps.join("host0.pcapng").is_file());
    if !skip_without_tshark() {
        assert_captures_valid(&caps);
    }
    Some(o)
}

#[test]
fn rank_killed_by_sigsegv() {
    check_clean_end("crash_segv", "mpicc", "4", None, "rank 1 (pid");
    check_clean_end(
        "crash_segv",
        "mpicc",
        "2",
        None,
        "SIGSEGV before MPI_Finalize",
    );
}

#[test]
fn rank_exits_without_finalize() {
    check_clean_end("exit_without_finalize", "mpicc", "4", None, "rank 2 (pid");
    check_clean_end(
        "exit_without_finalize",
        "mpicc",
        "3",
        None,
        "exited with status 3 before MPI_Finalize",
    );
}

#[test]
fn pcapng_captures_are_complete_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let net = config_with_format(dir.path(), "reference.toml", "pcapng");
    check_clean_end_on(&net, "crash_segv", "mpicc", "4", None, "rank 1 (pid");
}

/// Every rank's buffered output survives the abort: the aborting rank's
/// and the others', which the gateway ends with SIGTERM.
#[test]
fn mpi_abort_code_seven() {
    let Some(o) = check_clean_end(
        "abort7",
        "mpicc",
        "3",
        Some(7),
        "rank 1 called MPI_Abort with code 7",
    ) else {
        return;
    };
    let out = String::from_utf8_lossy(&o.stdout);
    for rank in 0..3 {
        assert!(
            out.contains(&format!("rank {rank} before the abort")),
            "rank {rank}'s line is lost:\n{out}"
        );
    }
}

#[test]
fn garbage_frame_on_the_socket() {
    // One sentence naming the rank and what it did, in plain grammar.
    check_clean_end(
        "garbage_frame",
        "cc",
        "1",
        None,
        "rank 0 broke the gateway protocol: it sent a malformed frame",
    );
}

/// An MPI call other than a datatype query from inside a user reduction
/// function would wait for the busy engine forever: it ends the job with a
/// sentence naming the call instead.
#[test]
fn a_user_reduction_function_calling_mpi_ends_the_job_with_a_sentence() {
    check_clean_end(
        "op_calls_mpi",
        "mpicc",
        "2",
        Some(1),
        "MPI_Comm_rank was called inside a user-defined reduction function",
    );
}

#[test]
fn hello_world_runs_unmodified() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    let o = run(&["-n", "4", "--net", &config("reference.toml")], &prog, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for r in 0..4 {
        assert!(
            out.contains(&format!(
                "hello from {r} of 4 (initialized=1, MPI 4.0, name length 1)"
            )),
            "{out}"
        );
    }
}

#[test]
fn bad_invocations_fail_before_any_rank_starts() {
    for (args, needle) in [
        (
            vec!["-n", "2", "--net", "/nonexistent.toml", "--", "/bin/true"],
            "cannot read network file",
        ),
        (
            vec![
                "-n",
                "2",
                "--net",
                &config("reference.toml"),
                "--",
                "/nonexistent/prog",
            ],
            "was not found",
        ),
        (
            vec![
                "-n",
                "2",
                "--net",
                &config("reference.toml"),
                "--time-factor",
                "0.5",
                "--",
                "/bin/true",
            ],
            "--time-factor",
        ),
    ] {
        let o = std::process::Command::new(bin())
            .arg("run")
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn ctrl_c_stops_the_job_cleanly() {
    if skip_without_mpicc() {
        return;
    }
    // With one rank, crash_segv's rank 0 just sleeps 30 s inside the job.
    let prog = build_c("crash_segv", "mpicc");
    ensure_shim();
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let child = std::process::Command::new(bin())
        .args([
            "run",
            "-n",
            "1",
            "--net",
            &config("reference.toml"),
            "--report",
            rep.to_str().unwrap(),
            "--",
        ])
        .arg(&prog)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    nix_kill(child.id(), 2);
    let t = Instant::now();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(t.elapsed().as_secs_f64() < 3.0, "{err}");
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(
        err.lines()
            .any(|l| l == "mpinetsim: interrupted; the ranks were stopped"),
        "{err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(r["exit_code"], 130);
}

/// SIGINT in the middle of a long ping-pong (frames in flight on every
/// link): exit 130, and every capture file, pcap or pcapng, is complete and
/// holds the traffic up to the interruption.
#[test]
fn captures_are_complete_after_ctrl_c() {
    if skip_without_mpicc() || skip_without_tshark() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    ensure_shim();
    for format in ["pcap", "pcapng"] {
        let dir = tempfile::tempdir().unwrap();
        let net = config_with_format(dir.path(), "reference.toml", format);
        let caps = dir.path().join("caps");
        let child = std::process::Command::new(bin())
            .args(["run", "-n", "2", "--net", &net, "--capture"])
            .arg(&caps)
            .arg("--")
            .arg(&prog)
            .args(["1000000", "3000"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        nix_kill(child.id(), 2);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{format}: {err}");
        let files = assert_captures_valid(&caps);
        let host0 = files
            .iter()
            .find(|(f, _)| f.starts_with("host0."))
            .unwrap_or_else(|| panic!("{files:?}"));
        // At 1 ms one way, 1.5 s of ping-pong is hundreds of frames.
        assert!(host0.1 > 100, "{format}: {files:?}");
    }
}

fn nix_kill(pid: u32, sig: i32) {
    let st = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn a_bad_output_path_is_refused_before_the_ranks_start() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("the program ran");
    let program = format!("touch '{}'", marker.display());
    let folder = dir.path().display().to_string();
    for (option, path, says) in [
        (
            "--report",
            "/nonexistent/r.json",
            "the folder /nonexistent does not exist; create it or choose another --report path",
        ),
        (
            "--timeline",
            "/nonexistent/t.json",
            "the folder /nonexistent does not exist; create it or choose another --timeline path",
        ),
        ("--report", folder.as_str(), "is a folder; give a file name"),
    ] {
        ensure_shim();
        let o = std::process::Command::new(bin())
            .args([
                "run",
                "-n",
                "1",
                "--net",
                &config("reference.toml"),
                option,
                path,
            ])
            .args(["--", "sh", "-c", &program])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("mpinetsim: "), "{err}");
        assert!(err.contains(option) && err.contains(says), "{err}");
        assert!(
            !marker.exists(),
            "{option} {path}: the job ran before the check"
        );
    }
}

#[test]
fn long_numbers_in_errors_are_written_short() {
    ensure_shim();
    for (args, says) in [
        (
            &["calibrate", "-n", "2", "--tolerance", "1e200"][..],
            "mpinetsim: --tolerance 1e200: give a fraction between 0 and 1, e.g. 0.05",
        ),
        (
            &[
                "run",
                "-n",
                "2",
                "--time-factor",
                "auto",
                "--auto-max",
                "1e-300",
            ][..],
            "mpinetsim: --auto-max 1e-300: give a factor between 1 and 1000000",
        ),
    ] {
        let o = std::process::Command::new(bin())
            .args(args)
            .args(["--net", &config("reference.toml"), "--", "true"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end(), says);
    }
}
