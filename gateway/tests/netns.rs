//! Several hosts without extra machines: network namespaces joined by veth
//! pairs. The gateway runs in namespace G and listens on TCP; ranks run in
//! namespaces A and B, each reaching G over its own veth (10.201.1.0/24 and
//! 10.201.2.0/24). The programs' emulated latencies must match the same
//! runs over a Unix socket on one host within the clock offsets' reported
//! uncertainty plus 2 % (scaled time cannot depend on the transport to the
//! gateway: only the stamps' error, bounded by the uncertainty, can).
//!
//! Needs root and `ip netns`; otherwise each test prints why it is SKIPPED
//! and passes.

mod common;

use common::standalone::{start_gateway_with, StandaloneGateway};
use common::{build_c, config, run, skip_because, skip_without_mpicc};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The time factor of the ping-pong runs.
const PINGPONG_FACTOR: f64 = 8.0;
/// The time factor of the all-to-all runs: four ranks and the gateway on
/// two cores wake late often enough that a late delivery, which the
/// waiting rank's emulated time absorbs, moves the average by ±3 % at
/// factor 8 from one single-host run to the next; the lateness, and with it
/// this noise, shrinks as 1/factor.
const ALLTOALL_FACTOR: f64 = 32.0;
/// Where the gateway is, seen from namespace A and from namespace B.
const GATEWAY_FROM_A: &str = "10.201.1.1";
const GATEWAY_FROM_B: &str = "10.201.2.1";

/// Three namespaces (G, A, B) and the veths G–A and G–B; deleted on drop,
/// also when the test fails.
struct Hosts {
    g: String,
    a: String,
    b: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let o = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

impl Hosts {
    /// Creates the namespaces, named after this process and `tag` so that
    /// parallel tests never collide.
    fn create(tag: &str) -> Result<Hosts, String> {
        let uid = Command::new("id")
            .arg("-u")
            .output()
            .map_err(|e| e.to_string())?;
        if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
            return Err("not root".into());
        }
        let name = |h: &str| format!("mns{}{tag}{h}", std::process::id());
        let hosts = Hosts {
            g: name("g"),
            a: name("a"),
            b: name("b"),
        };
        for ns in [&hosts.g, &hosts.a, &hosts.b] {
            ip(&["netns", "add", ns])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        for (peer, dev_g, dev_p, net) in [(&hosts.a, "ga", "ag", "1"), (&hosts.b, "gb", "bg", "2")]
        {
            ip(&[
                "-n", &hosts.g, "link", "add", dev_g, "type", "veth", "peer", "name", dev_p,
                "netns", peer,
            ])?;
            ip(&[
                "-n",
                &hosts.g,
                "addr",
                "add",
                &format!("10.201.{net}.1/24"),
                "dev",
                dev_g,
            ])?;
            ip(&[
                "-n",
                peer,
                "addr",
                "add",
                &format!("10.201.{net}.2/24"),
                "dev",
                dev_p,
            ])?;
            ip(&["-n", &hosts.g, "link", "set", dev_g, "up"])?;
            ip(&["-n", peer, "link", "set", dev_p, "up"])?;
        }
        Ok(hosts)
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in [&self.g, &self.a, &self.b] {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

/// The namespaces, or None after printing why the test is skipped.
fn hosts_or_skip(tag: &str) -> Option<Hosts> {
    if skip_without_mpicc() {
        return None;
    }
    match Hosts::create(tag) {
        Ok(h) => Some(h),
        Err(why) => {
            skip_because(&format!("network namespaces are not available ({why}); run as root with `ip netns` permitted"));
            None
        }
    }
}

/// Runs `prog args` on `ranks` ranks, rank r in namespace A if r is even
/// and B if odd, against a gateway in G listening on TCP. Returns rank 0's
/// stdout and the report.
fn run_across(
    hosts: &Hosts,
    name: &str,
    prog: &Path,
    args: &[&str],
    ranks: u32,
    factor: f64,
) -> (String, serde_json::Value) {
    let in_g = ["ip", "netns", "exec", hosts.g.as_str()];
    let gw: StandaloneGateway = start_gateway_with(
        name,
        &ranks.to_string(),
        &in_g,
        &[
            "--listen",
            "tcp:0.0.0.0:0",
            "--time-factor",
            &factor.to_string(),
        ],
    );
    let port = gw.tcp_port();
    let children: Vec<_> = (0..ranks)
        .map(|r| {
            let (ns, host) = if r % 2 == 0 {
                (hosts.a.as_str(), GATEWAY_FROM_A)
            } else {
                (hosts.b.as_str(), GATEWAY_FROM_B)
            };
            gw.rank_command(
                &["ip", "netns", "exec", ns],
                &format!("tcp:{host}:{port}"),
                prog,
                args,
                r,
                ranks,
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let (code, err, report) = gw.finish();
    for (r, o) in outputs.iter().enumerate() {
        assert!(
            o.status.success(),
            "{name}: rank {r}: {}\ngateway: {err}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(code, 0, "{name}: {err}");
    eprint!("{err}");
    let report = report.expect("a report");
    assert_eq!(report["outcome"], "completed");
    (
        String::from_utf8_lossy(&outputs[0].stdout).into_owned(),
        report,
    )
}

/// The same program through `mpinetsim run` (Unix socket, one host).
fn run_local(prog: &Path, args: &[&str], ranks: u32, factor: f64) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let o = run(
        &[
            "-n",
            &ranks.to_string(),
            "--net",
            &config("reference.toml"),
            "--time-factor",
            &factor.to_string(),
            "--report",
            rep.to_str().unwrap(),
        ],
        prog,
        args,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        serde_json::from_str(&std::fs::read_to_string(rep).unwrap()).unwrap(),
    )
}

fn value_after(out: &str, key: &str) -> f64 {
    let start = out.find(key).unwrap_or_else(|| panic!("{key} in {out}")) + key.len();
    out[start..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The largest clock uncertainty any rank reported during the run, in
/// scaled µs (the wall uncertainty divided by the factor); checks that
/// every rank reported one and that its TCP peer is where it should be.
fn max_uncertainty_srt_us(report: &serde_json::Value, over_tcp: bool, factor: f64) -> f64 {
    let mut max = 0.0f64;
    for r in report["rank_reports"].as_array().unwrap() {
        let u = r["max_uncertainty_ns"].as_f64().expect("an uncertainty");
        let offset = r["offset_ns"].as_f64().expect("an offset");
        let now_u = r["uncertainty_ns"].as_f64().unwrap();
        // Every namespace shares this machine's CLOCK_MONOTONIC: the true
        // offset is 0, and must lie within the reported bound.
        assert!(
            offset.abs() <= now_u,
            "offset {offset} ns beyond ± {now_u} ns"
        );
        let conn = r["connection"].as_str().unwrap();
        if over_tcp {
            let rank = r["rank"].as_u64().unwrap();
            let net = if rank % 2 == 0 { "1" } else { "2" };
            assert!(conn.starts_with(&format!("tcp:10.201.{net}.2:")), "{conn}");
        } else {
            assert_eq!(conn, "unix");
        }
        max = max.max(u / factor / 1e3);
    }
    max
}

#[test]
fn pingpong_across_namespaces_matches_the_single_host_run() {
    let Some(hosts) = hosts_or_skip("p") else {
        return;
    };
    let prog = build_c("pingpong", "mpicc");
    let args = ["300", "32"];
    let f = PINGPONG_FACTOR;
    let (tcp_out, tcp_rep) = run_across(&hosts, "netns-pingpong", &prog, &args, 2, f);
    let (unix_out, unix_rep) = run_local(&prog, &args, 2, f);
    let tcp_us = value_after(&tcp_out, "one_way_us=");
    let unix_us = value_after(&unix_out, "one_way_us=");
    let u = max_uncertainty_srt_us(&tcp_rep, true, f) + max_uncertainty_srt_us(&unix_rep, false, f);
    let tolerance = u + 0.02 * unix_us;
    eprintln!(
        "pingpong one way: tcp {tcp_us} us, unix {unix_us} us, uncertainty {u:.3} us (scaled)"
    );
    assert!(
        (tcp_us - unix_us).abs() <= tolerance,
        "one way over TCP {tcp_us} us, over a Unix socket {unix_us} us, tolerance {tolerance} us"
    );
}

#[test]
fn alltoall_across_namespaces_matches_the_single_host_run() {
    let Some(hosts) = hosts_or_skip("x") else {
        return;
    };
    let prog = build_c("alltoall_timed", "mpicc");
    let args = ["1024", "20"];
    let f = ALLTOALL_FACTOR;
    let (tcp_out, tcp_rep) = run_across(&hosts, "netns-alltoall", &prog, &args, 4, f);
    let (unix_out, unix_rep) = run_local(&prog, &args, 4, f);
    // The median iteration: one iteration that a busy machine delayed by
    // milliseconds would move the mean of 20 past the tolerance.
    let tcp_us = value_after(&tcp_out, "median_s=") * 1e6;
    let unix_us = value_after(&unix_out, "median_s=") * 1e6;
    let u = max_uncertainty_srt_us(&tcp_rep, true, f) + max_uncertainty_srt_us(&unix_rep, false, f);
    let tolerance = u + 0.02 * unix_us;
    eprintln!("all-to-all: tcp {tcp_us} us, unix {unix_us} us, uncertainty {u:.3} us (scaled)");
    assert!(
        (tcp_us - unix_us).abs() <= tolerance,
        "all-to-all over TCP {tcp_us} us, over a Unix socket {unix_us} us, tolerance {tolerance} us"
    );
}
