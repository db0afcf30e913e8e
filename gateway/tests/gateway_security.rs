//! The gateway's socket is the job's front door: the default socket lives
//! in a private folder (0700) and is owner-only (0600); every rank must
//! present the job's secret; a connection with a wrong secret, garbage or
//! nothing at all is refused with one logged line and the job completes
//! as if it had never come.

mod common;

use common::standalone::start_gateway_with;
use common::{bin, build_c, config, ensure_shim, skip_without_mpicc};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};

fn mode(path: &str) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn intruders_are_refused_and_the_job_completes() {
    if skip_without_mpicc() {
        return;
    }
    let pingpong = build_c("pingpong", "mpicc");
    let hello = build_c("hello", "mpicc");
    let sock = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("gw-intruders")
        .join("gw.sock");
    let unix = format!("unix:{}", sock.display());
    let gw = start_gateway_with(
        "intruders",
        "2",
        &[],
        &[
            "--listen",
            &unix,
            "--listen",
            "tcp:127.0.0.1:0",
            "--time-factor",
            "4",
            "--handshake-timeout",
            "1s",
        ],
    );
    assert_eq!(gw.gateway, unix);
    let port = gw.tcp_port();
    // Before any rank: a client that says nothing, one speaking HTTP (its
    // first four bytes read as a length far above any Hello's) and one
    // sending a frame of an unknown kind.
    let silent = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut http = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    http.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut junk = UnixStream::connect(&sock).unwrap();
    junk.write_all(&[5, 0, 0, 0, 0x7f, b'j', b'u', b'n', b'k'])
        .unwrap();
    // A real rank with the wrong secret: refused, and it says so.
    let wrong = gw
        .rank_command(&[], &gw.gateway, &hello, &[], 0, 2)
        .env("MPINETSIM_SECRET", "00000000000000000000000000000001")
        .output()
        .unwrap();
    assert!(!wrong.status.success());
    let e = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        e.contains(&format!("the mpinetsim gateway at {unix}"))
            && e.contains(
                "during the handshake (its output says why); check that MPINETSIM_JOB, MPINETSIM_SECRET_FILE (or MPINETSIM_SECRET)"
            ),
        "{e}"
    );
    // The job: a pingpong over both kinds of socket, long enough (≈ 2 s at
    // factor 4) for the silent client's 1 s handshake timeout.
    let tcp = format!("tcp:127.0.0.1:{port}");
    let r0 = gw
        .rank_command(&[], &unix, &pingpong, &["250", "32"], 0, 2)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let r1 = gw
        .rank_command(&[], &tcp, &pingpong, &["250", "32"], 1, 2)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (o0, o1) = (
        r0.wait_with_output().unwrap(),
        r1.wait_with_output().unwrap(),
    );
    let (code, err, report) = gw.finish();
    drop(silent);
    assert!(o0.status.success() && o1.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&o0.stdout).contains("rank 0 errors=0"));
    assert_eq!(code, 0, "{err}");
    let report = report.unwrap();
    assert_eq!(report["outcome"], "completed");
    // Four refusals, each one logged line naming the peer and why.
    assert_eq!(report["refused_connections"], 4, "{err}");
    let refused: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("mpinetsim: refused a connection from "))
        .collect();
    assert_eq!(refused.len(), 4, "{err}");
    let has = |needle: &str| refused.iter().any(|l| l.contains(needle));
    assert!(has("tcp:127.0.0.1:") && has("more than any Hello"), "{err}");
    assert!(has("not a Hello (unknown frame kind 127)"), "{err}");
    assert!(has("wrong job secret"), "{err}");
    assert!(has("no Hello with the job's secret within 1.0 s"), "{err}");
    // Rank 1 came over TCP, rank 0 over the Unix socket.
    let ranks = report["rank_reports"].as_array().unwrap();
    // Clock probes: 8 at MPI_Init, then a round of 4 at the first MPI call
    // after each further second; the pingpong calls MPI throughout its
    // ≥ 2 s (250 round trips of 2 ms at factor 4), so at least one round,
    // and at most one per second of the job's wall time.
    let wall_s = report["wall_s"].as_f64().unwrap();
    for r in ranks {
        let probes = r["clock_probes"].as_u64().unwrap();
        let most = 8 + 4 * wall_s.ceil() as u64;
        assert!(
            (12..=most).contains(&probes),
            "{probes} probes in {wall_s} s"
        );
    }
    assert_eq!(ranks[0]["connection"], "unix");
    assert!(ranks[1]["connection"]
        .as_str()
        .unwrap()
        .starts_with("tcp:127.0.0.1:"));
}

#[test]
fn default_sockets_live_in_private_folders() {
    if skip_without_mpicc() {
        return;
    }
    ensure_shim();
    // `mpinetsim gateway` without --listen: a Unix socket in a fresh 0700
    // folder, the socket itself 0600.
    let gw = start_gateway_with("private", "1", &[], &[]);
    let path = gw
        .gateway
        .strip_prefix("unix:")
        .expect("a Unix socket by default")
        .to_string();
    let folder = std::path::Path::new(&path).parent().unwrap();
    assert_eq!(mode(folder.to_str().unwrap()), 0o700);
    assert_eq!(mode(&path), 0o600);
    assert!(gw.lib_dir.starts_with(folder.to_str().unwrap()));
    let hello = build_c("hello", "mpicc");
    let o = gw
        .rank_command(&[], &gw.gateway, &hello, &[], 0, 1)
        .output()
        .unwrap();
    assert!(o.status.success());
    let (code, err, _) = gw.finish();
    assert_eq!(code, 0, "{err}");
    assert!(!folder.exists(), "the private folder is removed at the end");

    // `mpinetsim run`: the ranks' MPINETSIM_SOCKET is in a 0700 folder.
    let o = Command::new(bin())
        .args(["run", "-n", "1", "--net", &config("reference.toml"), "--"])
        .args([
            "sh",
            "-c",
            "stat -c %a \"$(dirname \"$MPINETSIM_SOCKET\")\" \"$MPINETSIM_SOCKET\"; echo ${#MPINETSIM_SECRET}",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["700", "600", "32"],
        "{out}"
    );
}
