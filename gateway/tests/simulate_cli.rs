//! `mpinetsim simulate` end to end: the command, its report, and its pcaps
//! checked by tshark (Wireshark's decoder) as an independent reference.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mpinetsim")
}

fn config(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../configs")
        .join(name)
}

fn simulate(args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .arg("simulate")
        .args(args)
        .output()
        .expect("run mpinetsim")
}

/// Runs `mpinetsim simulate` and asserts it succeeded.
fn simulate_ok(args: &[&str]) -> std::process::Output {
    let out = simulate(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// tshark's filter for what a clean capture never shows.
const WARNINGS: &str = "_ws.malformed || _ws.expert.severity >= warning";

/// [`WARNINGS`] less TCP's sequence analysis, which losses raise.
const WARNINGS_BUT_LOSS_ANALYSIS: &str =
    "_ws.malformed || (_ws.expert.severity >= warning && !tcp.analysis.flags)";

/// [`WARNINGS`] and TCP's sequence analysis: a run without losses.
const WARNINGS_OR_ANALYSIS: &str =
    "_ws.malformed || tcp.analysis.flags || _ws.expert.severity >= warning";

/// Asserts that tshark finds no frame of `file` matching `filter`.
fn assert_tshark_clean(file: &Path, filter: &str) {
    let bad = tshark(file, &["-Y", filter]);
    assert_eq!(
        lines(&bad),
        0,
        "{} has warnings:\n{}",
        file.display(),
        bad.lines().take(5).collect::<Vec<_>>().join("\n")
    );
}

/// Writes `<dir>/<name>.toml`: `header` (seed, defaults, `[tcp]`), then
/// host0 and host1 on switch0, host0's link with the keys `host0_link`.
fn two_hosts(dir: &Path, name: &str, header: &str, host0_link: &str) -> PathBuf {
    let net = dir.join(format!("{name}.toml"));
    let toml = format!(
        "{header}[[host]]\nname = 'host0'\n[[host]]\nname = 'host1'\n[[switch]]\nname = 'switch0'\n\
         [[link]]\na = 'host0'\nb = 'switch0'\n{host0_link}[[link]]\na = 'host1'\nb = 'switch0'\n"
    );
    std::fs::write(&net, toml).unwrap();
    net
}

/// Simulates a verified ping-pong on `net` (`size` bytes, `iters` times),
/// capturing into `caps` beside it; returns that folder.
fn pingpong_captures(net: &Path, size: &str, iters: &str) -> PathBuf {
    let caps = net.with_file_name("caps");
    simulate_ok(&[
        "--net",
        net.to_str().unwrap(),
        "--workload",
        "pingpong",
        "--size",
        size,
        "--iters",
        iters,
        "--verify",
        "--capture",
        caps.to_str().unwrap(),
    ]);
    caps
}

fn tshark_available() -> bool {
    let ok = Command::new("tshark")
        .arg("-v")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok || !common::skip_because(
        "tshark is not installed (apt-get install tshark); capture decoding not checked",
    )
}

fn tshark(file: &Path, extra: &[&str]) -> String {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(extra)
        .output()
        .expect("run tshark");
    assert!(
        out.status.success(),
        "tshark failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn lines(s: &str) -> usize {
    s.lines().filter(|l| !l.trim().is_empty()).count()
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn pingpong_report_and_clean_captures() {
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    let rep = dir.path().join("report.json");
    let out = simulate_ok(&[
        "--net",
        config("reference.toml").to_str().unwrap(),
        "--workload",
        "pingpong",
        "--size",
        "32",
        "--iters",
        "200",
        "--capture",
        caps.to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("events per s"), "{stdout}");
    let r = report(&rep);
    assert_eq!(r["outcome"], "completed");
    assert_eq!(r["result"]["messages"], 400);
    // Frames on host0's link, as counted by the simulator: both directions.
    let links = r["stats"]["links"].as_array().unwrap();
    let count = |port: &str| {
        links.iter().find(|l| l["from_port"] == port).unwrap()["packets"]
            .as_u64()
            .unwrap()
    };
    let host0_frames = count("host0/switch0") + count("switch0/host0");
    if !tshark_available() {
        return;
    }
    let all = tshark(&caps.join("host0.pcap"), &[]);
    assert_eq!(
        lines(&all) as u64,
        host0_frames,
        "tshark sees every frame the simulator sent"
    );
    for f in std::fs::read_dir(&caps).unwrap() {
        let f = f.unwrap().path();
        if f.ends_with("hosts") {
            continue;
        }
        assert_tshark_clean(&f, WARNINGS_OR_ANALYSIS);
        let protos = tshark(&f, &["-T", "fields", "-e", "frame.protocols"]);
        assert!(
            protos
                .lines()
                .all(|l| l == "eth:ethertype:ip:tcp" || l == "eth:ethertype:ip:tcp:data"),
            "{protos}"
        );
    }
    // The payload is the message bytes: byte i of a message = hash(i).
    let payloads = tshark(
        &caps.join("host1.pcap"),
        &["-Y", "tcp.len == 32", "-T", "fields", "-e", "tcp.payload"],
    );
    let first = payloads.lines().next().unwrap().replace(':', "");
    let expected: String = netsim::workload::pattern_bytes(32)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(first, expected);
    // Timestamps are virtual time: the first 32-byte frame leaves host0 after
    // the handshake (SYN + SYN-ACK, 2 x 2 hops) and the final ACK's 672 ns.
    let t = tshark(
        &caps.join("host0.pcap"),
        &[
            "-Y",
            "tcp.len == 32",
            "-T",
            "fields",
            "-e",
            "frame.time_relative",
        ],
    );
    // SYN wire bytes: 14 + 20 + 28 (TCP with options) + 4 FCS + 20 gap = 86.
    let syn_hop = 500_000 + (86 * 8);
    let expect_ns = 4 * syn_hop + 672;
    let got_ns = (t.lines().next().unwrap().trim().parse::<f64>().unwrap() * 1e9).round() as i64;
    assert_eq!(got_ns, expect_ns);
}

#[test]
fn same_seed_gives_byte_identical_captures_and_routers_decrement_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let run = |sub: &str, seed: &str| {
        let caps = dir.path().join(sub);
        simulate_ok(&[
            "--net",
            config("slow-rank0.toml").to_str().unwrap(),
            "--workload",
            "random",
            "-n",
            "6",
            "--size",
            "20KiB",
            "--iters",
            "30",
            "--seed",
            seed,
            "--capture",
            caps.to_str().unwrap(),
        ]);
        caps
    };
    let a = run("a", "5");
    let b = run("b", "5");
    let c = run("c", "6");
    let mut names: Vec<_> = std::fs::read_dir(&a)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        11,
        "4 hosts + 2 router ports + 4 switch ports, and the hosts file"
    );
    assert!(names.iter().any(|n| n == "hosts"));
    let mut differs = false;
    for n in &names {
        let fa = std::fs::read(a.join(n)).unwrap();
        assert_eq!(
            fa,
            std::fs::read(b.join(n)).unwrap(),
            "{n:?} differs between identical runs"
        );
        differs |= fa != std::fs::read(c.join(n)).unwrap();
    }
    assert!(differs, "another seed must give another run");
    if !tshark_available() {
        return;
    }
    // Every packet crossing router0 shows TTL 64 on the host side and 63 on
    // the switch side (one hop), for both directions.
    let fields = [
        "-T", "fields", "-e", "ip.src", "-e", "ip.id", "-e", "ip.ttl",
    ];
    let host_side = tshark(&a.join("router0-host0.pcap"), &fields);
    let switch_side = tshark(&a.join("router0-switch0.pcap"), &fields);
    let parse = |s: &str| -> std::collections::HashMap<(String, String), u8> {
        s.lines()
            .map(|l| {
                let v: Vec<&str> = l.split('\t').collect();
                ((v[0].to_string(), v[1].to_string()), v[2].parse().unwrap())
            })
            .collect()
    };
    let (h, s) = (parse(&host_side), parse(&switch_side));
    assert_eq!(h.len(), s.len());
    assert!(!h.is_empty());
    for (k, ttl_h) in &h {
        let ttl_s = s[k];
        if k.0 == "10.0.0.1" {
            assert_eq!((*ttl_h, ttl_s), (64, 63), "{k:?} leaving host0");
        } else {
            assert_eq!((ttl_s, *ttl_h), (64, 63), "{k:?} toward host0");
        }
    }
}

/// With `format = "pcapng"`, router0's file has one interface per port,
/// described by port, peer and link; every packet shows on its ingress
/// interface (inbound) with TTL 64 and on its egress interface (outbound)
/// with TTL 63, in that order.
#[test]
fn a_router_pcapng_shows_each_packet_on_both_interfaces_with_ttl_one_apart() {
    if !tshark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(config("slow-rank0.toml")).unwrap();
    let net = dir.path().join("net.toml");
    std::fs::write(
        &net,
        text.replace("[capture]", "[capture]\nformat = \"pcapng\""),
    )
    .unwrap();
    let caps = dir.path().join("caps");
    simulate_ok(&[
        "--net",
        net.to_str().unwrap(),
        "--workload",
        "alltoall",
        "--size",
        "50KiB",
        "--iters",
        "2",
        "--capture",
        caps.to_str().unwrap(),
    ]);
    let rows = tshark(
        &caps.join("router0.pcapng"),
        &[
            "-T",
            "fields",
            "-e",
            "frame.interface_name",
            "-e",
            "frame.interface_description",
            "-e",
            "frame.packet_flags_direction",
            "-e",
            "ip.src",
            "-e",
            "ip.id",
            "-e",
            "ip.ttl",
        ],
    );
    // (source, IP id) -> every sighting as (interface, direction flags, TTL).
    type Sightings = Vec<(String, String, u8)>;
    let mut seen: std::collections::HashMap<(String, String), Sightings> =
        std::collections::HashMap::new();
    for l in rows.lines() {
        let v: Vec<&str> = l.split('\t').collect();
        let (iface, descr, dir) = (v[0], v[1], v[2]);
        // The description names the port, its peer and the link.
        match iface {
            "router0/host0" => assert_eq!(
                descr,
                "router interface router0/host0 to peer host0/router0 on link host0-router0 (100 Mbps, 500 us delay, MTU 1500)"
            ),
            "router0/switch0" => assert_eq!(
                descr,
                "router interface router0/switch0 to peer switch0/router0 on link router0-switch0 (1 Gbps, 1 ms delay, MTU 1500)"
            ),
            other => panic!("unexpected interface {other}"),
        }
        seen.entry((v[3].to_string(), v[4].to_string()))
            .or_default()
            .push((iface.to_string(), dir.to_string(), v[5].parse().unwrap()));
    }
    // 4 ranks, 50 KiB to each other rank, twice: host0 sends and receives
    // 3 x 2 x 50 KiB through the router, at least 36 segments each way.
    assert!(seen.len() > 72, "{} packets", seen.len());
    for (k, v) in &seen {
        let (ingress, egress) = if k.0 == "10.0.0.1" {
            ("router0/host0", "router0/switch0")
        } else {
            ("router0/switch0", "router0/host0")
        };
        // Direction flags: 0x1 inbound, 0x2 outbound.
        assert_eq!(
            v,
            &[
                (ingress.to_string(), "0x00000001".to_string(), 64),
                (egress.to_string(), "0x00000002".to_string(), 63)
            ],
            "{k:?}"
        );
    }
}

#[test]
fn bad_input_gets_one_sentence_and_exit_code_two() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[host]]\nname='h0'\n[[link]]\na='h0'\nb='s0'\nspeed='1Gbps'\n",
    )
    .unwrap();
    for (args, needle) in [
        (vec!["--net", bad.to_str().unwrap()], "link[0]"),
        (
            vec!["--net", "/nonexistent.toml"],
            "cannot read network file",
        ),
        (
            vec![
                "--net",
                config("reference.toml").to_str().unwrap(),
                "--workload",
                "chaos",
            ],
            "unknown workload",
        ),
        (
            vec![
                "--net",
                config("reference.toml").to_str().unwrap(),
                "--size",
                "12 bananas",
            ],
            "--size",
        ),
        (
            vec![
                "--net",
                config("reference.toml").to_str().unwrap(),
                "-n",
                "1",
            ],
            "at least 2 ranks",
        ),
    ] {
        let out = simulate(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line, got: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn lossless_bulk_transfer_has_no_tcp_analysis_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    let out = simulate_ok(&[
        "--net",
        config("reference.toml").to_str().unwrap(),
        "--workload",
        "alltoall",
        "--size",
        "3MiB",
        "--iters",
        "2",
        "--verify",
        "--capture",
        caps.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("retransmissions:  0   drops: 0"));
    if !tshark_available() {
        return;
    }
    for name in ["host0.pcap", "switch0-host3.pcap"] {
        let f = caps.join(name);
        assert_tshark_clean(&f, WARNINGS_OR_ANALYSIS);
        // Segments are at most one MSS (1460 B) and frames at most 1514 B.
        let max = tshark(&f, &["-T", "fields", "-e", "frame.len"])
            .lines()
            .map(|l| l.parse::<u32>().unwrap())
            .max();
        assert_eq!(max, Some(1514));
    }
}

/// The simulated time `simulate` prints, ns.
fn simulated_ns(o: &std::process::Output) -> u64 {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.starts_with("simulated time:"))
        .unwrap_or_else(|| panic!("no simulated time in {out}"));
    let secs = line.split_whitespace().nth(2).unwrap();
    let (s, frac) = secs.split_once('.').unwrap();
    s.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap()
}

/// `--set` on `simulate` (as on every command taking `--net`): links of
/// 250 µs instead of 500 µs take 2 × 250 µs off each of the pingpong's
/// 2,000 one-way trips and 4 × 250 µs off each of the two connections'
/// handshakes (one round trip each): exactly 1.002 s less. A key the file
/// format does not know is one sentence and exit code 2.
#[test]
fn set_changes_one_key_of_the_network_for_simulate() {
    let net = config("reference.toml");
    let net = net.to_str().unwrap();
    let base = simulate(&["--net", net, "--workload", "pingpong", "--size", "1000"]);
    let set = ["--set", "link_defaults.delay=250us"];
    let args = ["--net", net, "--workload", "pingpong", "--size", "1000"];
    let faster = simulate(&[&args[..], &set[..]].concat());
    assert!(base.status.success() && faster.status.success());
    assert_eq!(simulated_ns(&base) - simulated_ns(&faster), 1_002_000_000);
    let bad = simulate(&["--net", net, "--set", "link_defaults.dela=250us"]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("unknown field `dela`"), "{err}");
}

/// `sack = true` on a lossy link: the SYNs carry SACK-permitted, the ACKs
/// for out-of-order data SACK blocks, and tshark decodes both without a
/// malformed frame or any warning but its own sequence analysis (which
/// losses rightly raise: retransmissions, out-of-order segments).
#[test]
fn sack_options_decode_in_tshark() {
    let dir = tempfile::tempdir().unwrap();
    let net = two_hosts(
        dir.path(),
        "sack",
        "seed = 7\n[link_defaults]\nrate = '1Gbps'\ndelay = '500us'\n[tcp]\nsack = true\ndelayed_ack = '0'\n",
        "loss = 0.02\n",
    );
    let caps = pingpong_captures(&net, "256KiB", "4");
    if !tshark_available() {
        return;
    }
    for f in ["host0.pcap", "host1.pcap"] {
        let f = caps.join(f);
        assert_tshark_clean(&f, WARNINGS_BUT_LOSS_ANALYSIS);
    }
    let cap = caps.join("host0.pcap");
    // SYN and SYN-ACK of both connections (0 → 1 and 1 → 0; more if the
    // loss hit one): SACK permitted, and a 32-byte header (MSS, NOP, NOP,
    // SACK_PERM, NOP, WS).
    let syns = tshark(
        &cap,
        &[
            "-Y",
            "tcp.flags.syn == 1",
            "-T",
            "fields",
            "-e",
            "tcp.options.sack_perm",
            "-e",
            "tcp.hdr_len",
        ],
    );
    assert!(lines(&syns) >= 4, "{syns}");
    for l in syns.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(!f[0].is_empty(), "no SACK permitted: {l}");
        assert_eq!(f[1], "32", "{l}");
    }
    // ACKs with blocks: each block above the ACK, its left edge below its
    // right, at most 4 blocks, and the header 20 + 4 + 8 bytes a block.
    let sacks = tshark(
        &cap,
        &[
            "-Y",
            "tcp.options.sack",
            "-T",
            "fields",
            "-e",
            "tcp.ack",
            "-e",
            "tcp.options.sack_le",
            "-e",
            "tcp.options.sack_re",
            "-e",
            "tcp.hdr_len",
        ],
    );
    assert!(lines(&sacks) > 10, "too few SACKs:\n{sacks}");
    for l in sacks.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        let num = |s: &str| -> Vec<u64> { s.split(',').map(|x| x.parse().unwrap()).collect() };
        let ack = num(f[0])[0];
        let (le, re) = (num(f[1]), num(f[2]));
        assert_eq!(le.len(), re.len(), "{l}");
        assert!((1..=4).contains(&le.len()), "{l}");
        for (a, b) in le.iter().zip(&re) {
            assert!(ack < *a && a < b, "{l}");
        }
        assert_eq!(f[3], (24 + 8 * le.len()).to_string(), "{l}");
    }
}

/// `timestamps = true` (with `sack = true`, on a lossy link): every frame
/// carries TSval and TSecr and tshark decodes them. The SYNs carry the
/// 20 bytes of options Linux sends (a 40-byte header: MSS, SACK_PERM, TS,
/// NOP, WS), the SYN TSecr 0 and the SYN-ACK's the SYN's TSval; after the
/// handshake every header is 32 bytes (NOP, NOP, TS) plus 4 + 8 bytes a
/// SACK block, at most three blocks, and no segment carries more than
/// MSS − 12 = 1448 bytes. No malformed frame, no warning but the sequence
/// analysis the losses raise.
#[test]
fn timestamps_decode_in_tshark() {
    let dir = tempfile::tempdir().unwrap();
    let net = two_hosts(
        dir.path(),
        "ts",
        "seed = 7\n[link_defaults]\nrate = '1Gbps'\ndelay = '500us'\n[tcp]\nsack = true\ntimestamps = true\ndelayed_ack = '0'\n",
        "loss = 0.02\n",
    );
    let caps = pingpong_captures(&net, "256KiB", "4");
    if !tshark_available() {
        return;
    }
    for f in ["host0.pcap", "host1.pcap"] {
        let f = caps.join(f);
        assert_tshark_clean(&f, WARNINGS_BUT_LOSS_ANALYSIS);
    }
    let cap = caps.join("host0.pcap");
    let rows = tshark(
        &cap,
        &[
            "-T",
            "fields",
            "-e",
            "tcp.flags.syn",
            "-e",
            "tcp.flags.ack",
            "-e",
            "tcp.options.timestamp.tsval",
            "-e",
            "tcp.options.timestamp.tsecr",
            "-e",
            "tcp.hdr_len",
            "-e",
            "tcp.options.sack_le",
            "-e",
            "tcp.len",
        ],
    );
    let all = lines(&rows);
    assert!(all > 300, "{rows}");
    let (mut syns, mut sacks) = (0, 0);
    for l in rows.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        f[2].parse::<u32>()
            .unwrap_or_else(|_| panic!("no TSval: {l}"));
        let tsecr: u32 = f[3].parse().unwrap_or_else(|_| panic!("no TSecr: {l}"));
        let blocks = if f[5].is_empty() {
            0
        } else {
            f[5].split(',').count()
        };
        assert!(blocks <= 3, "{l}");
        assert!(f[6].parse::<u32>().unwrap() <= 1448, "{l}");
        if f[0] == "1" {
            syns += 1;
            assert_eq!(f[4], "40", "{l}");
            assert_eq!(tsecr == 0, f[1] == "0", "TSecr 0 on the SYN only: {l}");
        } else {
            assert_ne!(tsecr, 0, "{l}");
            assert_eq!(
                f[4],
                (32 + if blocks > 0 { 4 + 8 * blocks } else { 0 }).to_string(),
                "{l}"
            );
        }
        sacks += usize::from(blocks > 0);
    }
    assert!(syns >= 4, "{rows}");
    assert!(sacks > 10, "too few SACKs:\n{rows}");
    // The SYN-ACK echoes the SYN's TSval.
    let syn_rows = tshark(
        &cap,
        &[
            "-Y",
            "tcp.flags.syn == 1",
            "-T",
            "fields",
            "-e",
            "tcp.stream",
            "-e",
            "tcp.flags.ack",
            "-e",
            "tcp.options.timestamp.tsval",
            "-e",
            "tcp.options.timestamp.tsecr",
        ],
    );
    let mut syn_val = std::collections::HashMap::new();
    for l in syn_rows.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f[1] == "0" {
            syn_val.insert(f[0].to_string(), f[2].to_string());
        } else {
            assert_eq!(syn_val.get(f[0]), Some(&f[3].to_string()), "{syn_rows}");
        }
    }
}

/// `ecn = true` with `queue = "ecn-threshold"`: four ranks' all-to-all
/// congests every switch port towards a host, which marks from K = 4
/// frames waiting. On host0's capture tshark decodes the negotiation (SYN
/// with ECE and CWR, SYN-ACK with ECE alone), ECT(0) or CE
/// (`ip.dsfield.ecn` 2 or 3) on every data segment, CE on some host0
/// receives,
/// ECE on ACKs and CWR on data segments, Not-ECT on every segment
/// without data; no frame is malformed or raises a warning (no loss, so
/// no sequence analysis either).
#[test]
fn ecn_decodes_in_tshark() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("ecn.toml");
    let mut toml = String::from(
        "seed = 3\n[link_defaults]\nrate = '1Gbps'\ndelay = '10us'\nqueue = 'ecn-threshold'\necn_threshold = 4\n\
         [tcp]\necn = true\ndelayed_ack = '0'\n[[switch]]\nname = 'switch0'\n",
    );
    for i in 0..4 {
        toml += &format!("[[host]]\nname = 'host{i}'\n[[link]]\na = 'host{i}'\nb = 'switch0'\n");
    }
    std::fs::write(&net, toml).unwrap();
    let caps = dir.path().join("caps");
    let report_file = dir.path().join("report.json");
    simulate_ok(&[
        "--net",
        net.to_str().unwrap(),
        "-n",
        "4",
        "--workload",
        "alltoall",
        "--size",
        "512KiB",
        "--iters",
        "2",
        "--verify",
        "--capture",
        caps.to_str().unwrap(),
        "--report",
        report_file.to_str().unwrap(),
    ]);
    let text = report(&report_file).to_string();
    assert!(text.contains("\"ecn_marks\""), "{text}");
    if !tshark_available() {
        return;
    }
    let cap = caps.join("host0.pcap");
    assert_tshark_clean(&cap, WARNINGS);
    let rows = tshark(
        &cap,
        &[
            "-T",
            "fields",
            "-e",
            "ip.src",
            "-e",
            "ip.dsfield.ecn",
            "-e",
            "tcp.flags.syn",
            "-e",
            "tcp.flags.ack",
            "-e",
            "tcp.flags.ece",
            "-e",
            "tcp.flags.cwr",
            "-e",
            "tcp.len",
        ],
    );
    let (mut syn, mut syn_ack, mut ce, mut ece, mut cwr, mut sent) = (0, 0, 0, 0, 0, 0);
    for l in rows.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        let flag = |i: usize| f[i] == "1" || f[i] == "True";
        let ecn: u8 = f[1].parse().unwrap_or_else(|_| panic!("no ECN field: {l}"));
        let len: u32 = f[6].parse().unwrap();
        if flag(2) {
            assert_eq!(ecn, 0, "SYNs are not ECT: {l}");
            assert!(flag(4), "ECE on every SYN: {l}");
            if flag(3) {
                syn_ack += 1;
                assert!(!flag(5), "no CWR on a SYN-ACK: {l}");
            } else {
                syn += 1;
                assert!(flag(5), "CWR on a SYN: {l}");
            }
        } else if len == 0 {
            assert_eq!(ecn, 0, "pure ACKs are not ECT: {l}");
            ece += usize::from(flag(4));
        } else {
            assert!(ecn == 2 || ecn == 3, "data is ECT(0) or CE: {l}");
            // host0's own NIC queue marks too (the link's `queue` is both
            // ends'): count CE on what host0 receives.
            if f[0] == "10.0.0.1" {
                sent += 1;
            } else {
                ce += usize::from(ecn == 3);
            }
            cwr += usize::from(flag(5));
        }
    }
    // host0 opens 3 connections and accepts 3.
    assert_eq!((syn, syn_ack), (6, 6), "{rows}");
    assert!(sent > 100, "{rows}");
    assert!(
        ce > 0 && ece > 0 && cwr > 0,
        "CE {ce}, ECE {ece}, CWR {cwr}"
    );
}

/// `fabric = "lossless"`: every packet in the captures is an InfiniBand
/// RC SEND in an ERF record, which tshark decodes without a warning: a
/// 10,000-byte message is SEND First, Middle (4096 bytes of payload each,
/// 4122 on the wire) and Last (1808 bytes, 1834), with consecutive packet
/// sequence numbers, from LID 1 to LID 2 and back.
#[test]
fn lossless_fabric_captures_decode_as_infiniband() {
    let dir = tempfile::tempdir().unwrap();
    let net = two_hosts(
        dir.path(),
        "ib",
        "fabric = 'lossless'\n[link_defaults]\nrate = '100Gbps'\ndelay = '500ns'\n",
        "",
    );
    let caps = pingpong_captures(&net, "10000", "2");
    if !tshark_available() {
        return;
    }
    let cap = caps.join("host0.pcap");
    assert_tshark_clean(&cap, WARNINGS);
    let rows = tshark(
        &cap,
        &[
            "-T",
            "fields",
            "-e",
            "frame.protocols",
            "-e",
            "infiniband.lrh.slid",
            "-e",
            "infiniband.bth.opcode",
            "-e",
            "infiniband.bth.psn",
            "-e",
            "frame.len",
        ],
    );
    // 2 iterations × 2 directions × 3 packets, each seen once at host0.
    assert_eq!(lines(&rows), 12, "{rows}");
    let mut next_psn = [0u32; 2];
    for l in rows.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(f[0].contains("infiniband"), "{l}");
        let from = f[1].parse::<usize>().unwrap() - 1;
        let psn: u32 = f[3].parse().unwrap();
        assert_eq!(psn, next_psn[from], "{l}");
        let (opcode, len) = match psn % 3 {
            0 => ("0", "4122"),
            1 => ("1", "4122"),
            _ => ("2", "1834"),
        };
        assert_eq!((f[2], f[4]), (opcode, len), "{l}");
        next_psn[from] += 1;
    }
    assert_eq!(next_psn, [6, 6]);
}
