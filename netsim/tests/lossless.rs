//! The lossless fabric (`fabric = "lossless"`) in the packet simulator:
//! closed-form latency of one packet, a 16-to-1 incast that finishes at the
//! bottleneck's serialisation bound without a drop (where the TCP fabric
//! drops), and the bound credits put on every queue.
//!
//! Packet sizes: a payload of n bytes travels as ⌈n / mtu⌉ packets, each
//! its payload padded to 4 bytes plus 26 bytes of headers and CRCs (LRH 8,
//! BTH 12, ICRC 4, VCRC 2); the link rate is the data rate (no preamble or
//! gap as on Ethernet).

use bytes::Bytes;
use netsim::{Nanos, NetworkConfig, Simulator};

fn star(hosts: usize, extra: &str) -> NetworkConfig {
    let mut toml = format!(
        "seed = 1\n{extra}\n[link_defaults]\nrate = '100Gbps'\ndelay = '200ns'\nqueue_packets = 32\n\
         [[switch]]\nname = 's'\n"
    );
    for h in 0..hosts {
        toml += &format!("[[host]]\nname = 'h{h}'\n[[link]]\na = 'h{h}'\nb = 's'\n");
    }
    NetworkConfig::from_toml_str(&toml, "star").unwrap()
}

const LOSSLESS: &str =
    "fabric = 'lossless'\n[lossless]\ncredits = 8\nswitch_latency = '150ns'\nmtu = 4096\n";

/// ns to send `bytes` at 100 Gbps (the simulator rounds each frame's
/// serialisation up to a whole ns).
fn ser_ns(bytes: u64) -> f64 {
    (bytes as f64 * 8.0 / 100.0).ceil()
}

/// Wire bytes of a message of `n` payload bytes in 4096-byte packets.
fn wire_bytes(n: u64) -> u64 {
    let full = n / 4096;
    let rest = n % 4096;
    let pad = |p: u64| (4 - p % 4) % 4;
    full * (4096 + 26) + if rest > 0 { rest + pad(rest) + 26 } else { 0 }
}

fn run(cfg: &NetworkConfig, ranks: usize, messages: &[(u32, u32, usize)]) -> (Vec<u64>, Simulator) {
    let mut sim = Simulator::from_config(cfg, "star", ranks, false).unwrap();
    for &(s, d, n) in messages {
        sim.inject(s, d, Bytes::from(vec![7u8; n]), Nanos::ZERO)
            .unwrap();
    }
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), messages.len(), "every message arrives");
    for d in &out {
        assert!(d.bytes.iter().all(|&b| b == 7));
    }
    // In the order the messages were injected (ids count up from 0).
    out.sort_by_key(|d| d.id);
    (out.iter().map(|d| d.delivered_at.0).collect(), sim)
}

#[test]
fn one_packet_takes_two_serialisations_two_delays_and_the_switch_latency() {
    let cfg = star(2, LOSSLESS);
    let (t, _) = run(&cfg, 2, &[(0, 1, 1001)]);
    // 1001 bytes pad to 1004, + 26: 1030 bytes on each of the two links.
    let want = 2.0 * ser_ns(1030) + 2.0 * 200.0 + 150.0;
    assert_eq!(wire_bytes(1001), 1030);
    assert!((t[0] as f64 - want).abs() <= 1.0, "{} vs {want}", t[0]);
}

#[test]
fn a_long_message_streams_at_the_link_rate_and_ends_behind_its_last_full_packet() {
    // 1,000,000 bytes: 244 full packets (4122 bytes on the wire) and one of
    // 576 (602). The full packets leave back to back; the last of them
    // reaches the switch one delay and the switch latency later and
    // crosses the second link, and the short last packet, which arrived
    // meanwhile, follows it (store and forward).
    let cfg = star(2, LOSSLESS);
    let n = 1_000_000u64;
    let (t, _) = run(&cfg, 2, &[(0, 1, n as usize)]);
    assert_eq!(wire_bytes(n), 244 * 4122 + 602);
    let want = 244.0 * ser_ns(4122) + 200.0 + 150.0 + ser_ns(4122) + ser_ns(602) + 200.0;
    assert!((t[0] as f64 - want).abs() <= 1.0, "{} vs {want}", t[0]);
}

#[test]
fn a_sixteen_to_one_incast_finishes_at_the_bottleneck_bound_without_a_drop() {
    let n = 1_000_000usize;
    let incast: Vec<(u32, u32, usize)> = (1..=16).map(|s| (s, 0, n)).collect();
    let (t, sim) = run(&star(17, LOSSLESS), 17, &incast);
    let stats = sim.stats();
    let drops: u64 = stats
        .links
        .iter()
        .map(|l| l.drops_queue + l.drops_early + l.drops_loss)
        .sum();
    assert_eq!(drops, 0);
    // The switch's port to h0 sends 16 messages back to back: the bound
    // is their serialisation, after the first packet's arrival at the
    // switch (one serialisation, a delay, the switch latency) and before
    // the last one's delay to h0.
    let end = *t.iter().max().unwrap() as f64;
    let first = ser_ns(4096 + 26) + 200.0 + 150.0;
    let bound = first + 16.0 * ser_ns(wire_bytes(n as u64)) + 200.0;
    eprintln!("lossless incast: {end:.0} ns, bound {bound:.0} ns");
    assert!(
        end >= bound - 1.0 && end <= bound * 1.02,
        "{end} vs {bound}"
    );
    // The 16 senders were held back by credits, and the switch's queue to
    // h0 never held more than the credits of its 16 input links.
    let stalls: u64 = stats.links.iter().map(|l| l.credit_stalls).sum();
    assert!(stalls > 0);
    for l in &stats.links {
        assert!(
            l.peak_queue_packets <= 16 * 8,
            "{}: {}",
            l.from_port,
            l.peak_queue_packets
        );
    }
    // The same incast on Ethernet with TCP and 32-frame queues drops.
    let (_, tcp) = run(&star(17, ""), 17, &incast);
    let tcp_drops: u64 = tcp.stats().links.iter().map(|l| l.drops_queue).sum();
    assert!(tcp_drops > 0, "the TCP fabric's incast drops");
}

#[test]
fn the_lossless_fabric_refuses_what_it_cannot_do() {
    let bad = |extra: &str| {
        let cfg = NetworkConfig::from_toml_str(
            &format!("fabric = 'lossless'\n{extra}\n[[host]]\nname = 'a'\n[[host]]\nname = 'b'\n[[link]]\na = 'a'\nb = 'b'\nloss = 0.0\n"),
            "x",
        )
        .unwrap();
        Simulator::from_config(&cfg, "x", 2, false).err().unwrap().0
    };
    assert!(bad("[lossless]\ncredits = 0").contains("`lossless.credits` is 0"));
    assert!(bad("[lossless]\nmtu = 1500").contains("one of 256, 512, 1024, 2048 or 4096"));
    let lossy = NetworkConfig::from_toml_str(
        "fabric = 'lossless'\n[[host]]\nname = 'a'\n[[host]]\nname = 'b'\n[[link]]\na = 'a'\nb = 'b'\nloss = 0.01\n",
        "x",
    )
    .unwrap();
    let e = Simulator::from_config(&lossy, "x", 2, false)
        .err()
        .unwrap()
        .0;
    assert!(
        e.contains("has `loss` 0.01 but `fabric = \"lossless\"`"),
        "{e}"
    );
}

/// Head-of-line blocking, as credit flow control causes it. h1 and h2 send
/// through s1 — s2; h1's flow A goes to h3, whose port at s2 three other
/// senders (h5, h6, h7, on their own links into s2) also load; h2's flow B
/// goes to the idle h4. The port s2 → h3 serves its four backlogged inputs
/// in turn, C/4 each. A's packets fill s2's buffer for the link s1 → s2,
/// so that link sends a packet only when one leaves that buffer, and s1's
/// queue for it holds A's and B's packets alternately (h1 and h2 are held
/// back alike): B, which nothing else slows, moves at A's C/4 and takes
/// 4·S′/C, not the S′/C it takes alone.
#[test]
fn a_flow_behind_a_congested_one_is_blocked_at_the_head_of_the_line() {
    let mut toml = format!(
        "{LOSSLESS}\n[link_defaults]\nrate = '100Gbps'\ndelay = '200ns'\n\
         [[switch]]\nname = 's1'\n[[switch]]\nname = 's2'\n[[link]]\na = 's1'\nb = 's2'\n"
    );
    for (h, sw) in [(1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)] {
        toml += &format!("[[host]]\nname = 'h{h}'\n[[link]]\na = 'h{h}'\nb = 's{sw}'\n");
    }
    let cfg = NetworkConfig::from_toml_str(&toml, "hol").unwrap();
    // Ranks 0..7 on h1..h7.
    let n = 1_000_000usize;
    let alone = run(&cfg, 7, &[(1, 3, n)]).0[0] as f64;
    let (t, _) = run(
        &cfg,
        7,
        &[(0, 2, n), (1, 3, n), (4, 2, n), (5, 2, n), (6, 2, n)],
    );
    let b = t[1] as f64;
    let s = ser_ns(4122) * 244.0 + ser_ns(602);
    eprintln!(
        "B alone {alone:.0} ns, behind A {b:.0} ns (4·S′/C = {:.0})",
        4.0 * s
    );
    assert!((alone - s).abs() <= 0.02 * s, "{alone} vs {s}");
    assert!((b - 4.0 * s).abs() <= 0.05 * 4.0 * s, "{b} vs {}", 4.0 * s);
}
