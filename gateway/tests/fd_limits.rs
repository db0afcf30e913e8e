//! File descriptors: mpinetsim raises its soft limit to the hard one,
//! refuses a job that cannot fit under the hard one (saying how many it
//! needs), and a gateway that ran out of descriptors accepts the
//! connections queued meanwhile once descriptors free up.

mod common;
use common::standalone::start_gateway_with;
use common::*;
use std::process::Command;

/// `mpinetsim run ARGS -- PROGRAM` under `prlimit --nofile=SOFT:HARD`.
fn run_limited(
    soft: u32,
    hard: u32,
    args: &[&str],
    program: &std::path::Path,
) -> std::process::Output {
    ensure_shim();
    Command::new("prlimit")
        .arg(format!("--nofile={soft}:{hard}"))
        .arg(bin())
        .arg("run")
        .args(args)
        .arg("--")
        .arg(program)
        .output()
        .unwrap()
}

#[test]
fn a_low_soft_limit_is_raised_and_a_job_beyond_the_hard_one_is_refused() {
    if skip_without("prlimit", "--version", "util-linux") || skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    let net = config("reference.toml");
    // 48 ranks need 48 sockets: more than a soft limit of 32, which
    // mpinetsim raises to the hard limit of 4096.
    let o = run_limited(
        32,
        4096,
        &["-n", "48", "--net", &net, "--time-factor", "4"],
        &prog,
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    // With a hard limit of 32, the job is refused before any rank starts,
    // with the number it needs (the descriptors open now, one socket and
    // two output pipes per rank, with or without --prefix, two doorbells
    // more on shared memory, and 16 spare).
    let per_rank = if transport() == "shm" { 5u64 } else { 3 };
    for extra in [&[][..], &["--prefix"][..]] {
        let args = [&["-n", "48", "--net", &net][..], extra].concat();
        let o = run_limited(32, 32, &args, &prog);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
        assert!(out.is_empty(), "no rank ran: {out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        let needs: u64 = err
            .split("needs ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number needed in: {err}"));
        assert!(
            needs >= 48 * per_rank + 16 && needs <= 48 * per_rank + 16 + 32,
            "{err}"
        );
        assert!(err.contains("but this process may open 32"), "{err}");
    }
}

#[test]
fn a_gateway_out_of_descriptors_accepts_the_queued_ranks_once_some_free_up() {
    if skip_without("prlimit", "--version", "util-linux") || skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    let sock = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("gw-emfile")
        .join("gw.sock");
    let listen = format!("unix:{}", sock.display());
    // 48 descriptors: the gateway's own (about 10 under the test
    // harness), the two ranks' sockets and 16 spare pass the check; 60
    // silent connections then exhaust them, and the ranks' connections
    // wait in the listen queue until the silent ones are refused after the
    // 1 s handshake timeout.
    let gw = start_gateway_with(
        "emfile",
        "2",
        &["prlimit", "--nofile=48:48"],
        &["--listen", &listen, "--handshake-timeout", "1s"],
    );
    let strays: Vec<_> = (0..60)
        .map(|_| std::os::unix::net::UnixStream::connect(&sock).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let ranks: Vec<_> = (0..2)
        .map(|r| {
            gw.rank_command(&[], &gw.gateway, &prog, &[], r, 2)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let (code, err, report) = gw.finish();
    drop(strays);
    for mut r in ranks {
        assert!(r.wait().unwrap().success());
    }
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("cannot accept a connection on"), "{err}");
    assert!(err.contains("descriptors are free again"), "{err}");
    let report = report.expect("a report");
    assert_eq!(report["outcome"], "completed");
    // The first batch of silent connections was refused to make room; the
    // job ended before those accepted after it timed out.
    let refused = report["refused_connections"].as_u64().unwrap();
    assert!((1..=60).contains(&refused), "{refused} refused: {err}");
}
