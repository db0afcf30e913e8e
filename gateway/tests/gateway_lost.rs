//! A gateway that is unreachable, or dies in the middle of the run, makes
//! every rank stop promptly with one sentence naming the gateway's address
//! — over a Unix socket and over TCP — instead of hanging.

mod common;

use common::standalone::start_gateway_with;
use common::{build_c, skip_without_mpicc};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long a rank may take to notice a dead gateway: it is blocked in
/// MPI_Recv on the socket, so EOF wakes it at once; 3 s leaves room for a
/// loaded machine.
const NOTICE_WITHIN: Duration = Duration::from_secs(3);

#[test]
fn killing_the_gateway_mid_run_stops_every_rank_with_its_address() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    for (name, listen) in [("lost-unix", None), ("lost-tcp", Some("tcp:127.0.0.1:0"))] {
        let args: Vec<&str> = match listen {
            Some(l) => vec!["--listen", l, "--time-factor", "4"],
            None => vec!["--time-factor", "4"],
        };
        let mut gw = start_gateway_with(name, "2", &[], &args);
        let addr = gw.gateway.clone();
        // A pingpong that would run for minutes.
        let mut ranks: Vec<_> = (0..2)
            .map(|r| {
                gw.rank_command(&[], &addr, &prog, &["100000", "32"], r, 2)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        std::thread::sleep(Duration::from_millis(1500));
        for r in ranks.iter_mut() {
            assert!(
                r.try_wait().unwrap().is_none(),
                "{name}: ranks still running"
            );
        }
        gw.child.kill().unwrap();
        let killed = Instant::now();
        let _ = gw.child.wait();
        // SIGKILL left its private folder (socket, libraries) behind.
        let private = std::path::Path::new(&gw.lib_dir).parent().unwrap();
        assert!(private
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("mpinetsim-"));
        let _ = std::fs::remove_dir_all(private);
        for (rank, r) in ranks.into_iter().enumerate() {
            let mut r = r;
            while r.try_wait().unwrap().is_none() && killed.elapsed() < NOTICE_WITHIN {
                std::thread::sleep(Duration::from_millis(10));
            }
            let alive = r.try_wait().unwrap().is_none();
            if alive {
                let _ = r.kill();
            }
            let o = r.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                !alive,
                "{name}: rank {rank} still runs {NOTICE_WITHIN:?} after the gateway died"
            );
            assert!(!o.status.success(), "{name}: rank {rank} exited 0");
            let lines: Vec<&str> = err.lines().collect();
            assert_eq!(lines.len(), 1, "{name}: one line: {err}");
            assert!(
                lines[0].starts_with(&format!(
                    "mpinetsim: lost the mpinetsim gateway at {addr}: "
                )) && lines[0].contains("(it ended, died or was restarted); this rank stops"),
                "{name}: {err}"
            );
        }
    }
}

#[test]
fn an_unreachable_tcp_gateway_fails_the_rank_at_once() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    // A port nobody listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let gw = start_gateway_with("unreachable", "1", &[], &[]);
    let addr = format!("tcp:127.0.0.1:{port}");
    let started = Instant::now();
    let o = gw
        .rank_command(&[], &addr, &prog, &[], 0, 1)
        .output()
        .unwrap();
    assert!(started.elapsed() < NOTICE_WITHIN);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        e.trim(),
        format!("mpinetsim: cannot reach the mpinetsim gateway at {addr}: Connection refused (os error 111)")
    );
    // The real gateway is still waiting; a rank pointed at it ends it.
    let ok = gw
        .rank_command(&[], &gw.gateway.clone(), &prog, &[], 0, 1)
        .output()
        .unwrap();
    assert!(ok.status.success());
    let (code, err, _) = gw.finish();
    assert_eq!(code, 0, "{err}");
}
