//! mpinetsim's TCP against ns-3 3.37 (Debian's libns3-dev) as an
//! independent reference: the same exchange — N bytes from host0 to host1,
//! then N bytes back on a second connection — on the reference network
//! (1 Gbps, 500 µs per link, one forwarding node) and on a 100 Gbps, 500 ns
//! one, with CUBIC and SACK and with NewReno, must end at simulated times
//! within 2 % of each other.
//!
//! bench/ns3/reference_bench.cc models the same network in ns-3 with
//! point-to-point links whose rate is lowered by 1502/1538, so a full
//! segment takes as long as on mpinetsim's Ethernet (PPP frames carry 2
//! bytes of overhead, Ethernet 38), and TCP set as configs/reference.toml
//! sets it (MSS 1460, initial window 10, an ACK every second segment or
//! after 40 ms, 512 KiB windows, no timestamps, no HyStart).

mod common;

use std::path::Path;
use std::process::Command;

fn ns3_available() -> bool {
    let ok = Path::new("/usr/include/ns3/core-module.h").exists()
        && Command::new("g++").arg("--version").output().is_ok();
    ok || !common::skip_because("ns-3 not found (apt-get install libns3-dev)")
}

/// mpinetsim's simulated time of the exchange, s.
fn ours(size: u64, cc: &str, sack: bool, link: &[&str]) -> f64 {
    let mut cmd = Command::new(common::bin());
    cmd.args(["simulate", "--net", &common::config("reference.toml")])
        .args(["--set", &format!("tcp.congestion={cc}")])
        .args(["--set", &format!("tcp.sack={sack}")]);
    for s in link {
        cmd.args(["--set", s]);
    }
    let out = cmd
        .args(["--workload", "pingpong", "--iters", "1"])
        .args(["--size", &size.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("simulated time:"))
        .unwrap_or_else(|| panic!("no simulated time in:\n{text}"));
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// ns-3's simulated time of the exchange, s.
fn ns3(bin: &Path, size: u64, cc: &str, sack: bool, rate: &str, delay: &str) -> f64 {
    let out = Command::new(bin)
        .args([
            "--workload=exchange",
            "--likeMpinetsim=1",
            "--ethernetFraming=1",
        ])
        .arg(format!("--size={size}"))
        .arg(format!("--cc={cc}"))
        .arg(format!("--sack={}", u8::from(sack)))
        .arg(format!("--rate={rate}"))
        .arg(format!("--delay={delay}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let t = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("simulated_s="))
        .unwrap_or_else(|| panic!("no simulated_s in: {text}"));
    t.parse().unwrap()
}

#[test]
fn tcp_exchanges_end_within_two_percent_of_ns3() {
    if !ns3_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("reference_bench");
    let build = Command::new("bash")
        .arg(common::root().join("bench/ns3/build.sh"))
        .arg(&bin)
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let fast = ["link_defaults.rate=100Gbps", "link_defaults.delay=500ns"];
    for (size, cc, sack, link, rate, delay) in [
        (1u64 << 20, "cubic", true, &[][..], "1Gbps", "500us"),
        (8 << 20, "cubic", true, &[][..], "1Gbps", "500us"),
        (8 << 20, "newreno", false, &[][..], "1Gbps", "500us"),
        (8 << 20, "cubic", true, &fast[..], "100Gbps", "500ns"),
    ] {
        let (a, b) = (
            ours(size, cc, sack, link),
            ns3(&bin, size, cc, sack, rate, delay),
        );
        eprintln!("{size} B {cc} sack={sack} at {rate}/{delay}: mpinetsim {a:.9} s, ns-3 {b:.9} s");
        assert!((a / b - 1.0).abs() <= 0.02, "mpinetsim {a} s, ns-3 {b} s");
    }
}
