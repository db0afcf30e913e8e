//! The clock handshake under an asymmetric path: a proxy in front of the
//! gateway delays every byte from one rank by 1 ms and nothing on the way
//! back (what `tc netem delay` on the rank's side would do). The model:
//! a probe travels d₁ = 1 ms + δ₁ and its reply δ₂, so the rank estimates
//! the offset (d₁ − d₂)/2 = 0.5 ms + (δ₁ − δ₂)/2 — the true offset is 0,
//! both run on this machine's CLOCK_MONOTONIC — with the uncertainty
//! (d₁ + d₂)/2 = 0.5 ms + (δ₁ + δ₂)/2, which therefore still covers it.

mod common;

use common::standalone::start_gateway_with;
use common::{build_c, skip_without_mpicc};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DELAY: Duration = Duration::from_millis(1);
const FACTOR: f64 = 8.0;

/// Copies `from` to `to`, each chunk `delay` after it was read, in order.
fn pump(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        for (at, chunk) in rx {
            let due = at + delay;
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
            if to.write_all(&chunk).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}

/// A proxy on a free loopback port forwarding to `port`, delaying the
/// client → server direction by [`DELAY`]; returns its port.
fn one_way_delay_proxy(port: u16) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let mine = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in l.incoming().map_while(Result::ok) {
            let server = TcpStream::connect(("127.0.0.1", port)).unwrap();
            client.set_nodelay(true).unwrap();
            server.set_nodelay(true).unwrap();
            pump(
                client.try_clone().unwrap(),
                server.try_clone().unwrap(),
                DELAY,
            );
            pump(server, client, Duration::ZERO);
        }
    });
    mine
}

#[test]
fn a_one_way_delay_shifts_the_offset_by_half_and_stays_within_the_bound() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let gw = start_gateway_with(
        "one-way-delay",
        "2",
        &[],
        &["--listen", "tcp:127.0.0.1:0", "--time-factor", "8"],
    );
    let port = gw.tcp_port();
    let delayed = format!("tcp:127.0.0.1:{}", one_way_delay_proxy(port));
    let direct = format!("tcp:127.0.0.1:{port}");
    let ranks: Vec<_> = [&delayed, &direct]
        .iter()
        .enumerate()
        .map(|(r, addr)| {
            gw.rank_command(&[], addr, &prog, &["100", "32"], r as u32, 2)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for r in ranks {
        let o = r.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (code, err, rep) = gw.finish();
    assert_eq!(code, 0, "{err}");
    let rep = rep.unwrap();
    let ranks = rep["rank_reports"].as_array().unwrap();
    let clock = |r: usize| {
        (
            ranks[r]["offset_ns"].as_f64().unwrap(),
            ranks[r]["uncertainty_ns"].as_f64().unwrap(),
        )
    };
    let half_ns = DELAY.as_nanos() as f64 / 2.0;
    let (o0, u0) = clock(0);
    eprintln!("rank 0 behind a 1 ms one-way delay: offset {o0} ns ± {u0} ns");
    // |offset − 0.5 ms| = |δ₁ − δ₂|/2 ≤ (δ₁ + δ₂)/2 = uncertainty − 0.5 ms.
    assert!(u0 >= half_ns, "uncertainty {u0} ns");
    assert!((o0 - half_ns).abs() <= u0 - half_ns, "offset {o0} ± {u0}");
    assert!(o0.abs() <= u0, "the true offset 0 lies within the bound");
    // Rank 1, straight to the gateway, keeps a small bound around zero.
    let (o1, u1) = clock(1);
    eprintln!("rank 1 direct: offset {o1} ns ± {u1} ns");
    assert!(u1 < half_ns && o1.abs() <= u1, "rank 1: {o1} ± {u1}");
    // Rank 0's stamps may be off by its uncertainty, and maxBehind says so.
    let max_behind = rep["max_behind"]["max_ns"].as_f64().unwrap();
    assert!(
        max_behind >= (u0 / FACTOR).floor(),
        "maxBehind {max_behind} ns"
    );
}
