//! Timing and transport checks against numbers derived from a written-down
//! model of the network, not from earlier runs.

use bytes::Bytes;
use netsim::base::time::serialization_time;
use netsim::wire::packet::{
    data_frame_wire_len, ETHERNET_GAP, ETHERNET_MIN_FRAME, TCP_SYN_OPTIONS,
};
use netsim::workload::{self, Pattern, Workload};
use netsim::{Nanos, NetworkConfig, Simulator};

const GBPS: u64 = 1_000_000_000;
const PROP_NS: u64 = 500_000;

/// Two hosts on one switch, 1 Gbps, 0.5 ms per link, every segment ACKed at once.
fn two_hosts(extra: &str) -> Simulator {
    let toml = format!(
        "seed = 3\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n[tcp]\ndelayed_ack='0'\n{extra}\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n"
    );
    let cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
    Simulator::from_config(&cfg, "test", 2, false).unwrap()
}

/// One hop of a frame of `wire` bytes: serialisation at 1 Gbps + propagation.
fn hop(wire: u64) -> u64 {
    serialization_time(wire, GBPS).0 + PROP_NS
}

/// Wire bytes of a SYN / SYN-ACK: 14 + 20 + 20 + 8 options + 4 FCS, + gap.
const SYN_WIRE: u64 = 14 + 20 + 20 + TCP_SYN_OPTIONS + 4 + ETHERNET_GAP;
/// Wire bytes of a pure ACK: 58 bytes padded to the 64-byte minimum, + gap.
const ACK_WIRE: u64 = ETHERNET_MIN_FRAME + ETHERNET_GAP;

fn run_until_quiet(sim: &mut Simulator) -> Vec<netsim::Delivery> {
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    out
}

#[test]
fn one_way_time_of_a_single_segment_is_the_sum_of_hops() {
    let mut sim = two_hosts("");
    // First message: handshake (SYN, SYN-ACK), then the final ACK and the data
    // leave back to back, so the data waits one ACK serialisation at h0.
    sim.inject(0, 1, Bytes::from(vec![7u8; 32]), Nanos::ZERO)
        .unwrap();
    let d = run_until_quiet(&mut sim);
    let syn_one_way = 2 * hop(SYN_WIRE);
    let ack_ser = serialization_time(ACK_WIRE, GBPS).0;
    let data_one_way = 2 * hop(data_frame_wire_len(32));
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].delivered_at,
        Nanos(2 * syn_one_way + ack_ser + data_one_way)
    );

    // Second message on the idle, established connection: exactly
    // sum over the two hops of (110 B * 8 / 1 Gbps + 0.5 ms) = 1_001_760 ns.
    let t = Nanos::from_secs(1);
    sim.inject(0, 1, Bytes::from(vec![9u8; 32]), t).unwrap();
    let d = run_until_quiet(&mut sim);
    assert_eq!(data_one_way, 1_001_760);
    assert_eq!(d[0].delivered_at - t, Nanos(data_one_way));
    assert_eq!(&d[0].bytes[..], &[9u8; 32]);
    // Payload per link direction: the two messages' 64 bytes towards h1
    // on both hops (a message is its segment's payload, as the timing
    // above shows), none back (SYN-ACK and ACKs carry no payload).
    let payload = |port: &str| {
        let st = sim.stats();
        let l = st.links.iter().find(|l| l.from_port == port).unwrap();
        l.payload_bytes
    };
    assert_eq!(payload("h0/s"), 64);
    assert_eq!(payload("s/h1"), 64);
    assert_eq!(payload("h1/s"), 0);
    assert_eq!(payload("s/h0"), 0);
}

#[test]
fn ten_thousand_pingpongs_take_ten_thousand_round_trips_plus_handshakes() {
    let mut sim = two_hosts("");
    let w = Workload {
        pattern: Pattern::PingPong,
        size: 32,
        iters: 10_000,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut sim, &w).unwrap();
    assert_eq!(out.messages, 20_000);
    assert_eq!(out.corrupted, 0);
    // H: one way of a SYN; D: one way of a 32-byte data frame; A: a pure ACK's
    // serialisation, which precedes every reply on the replier's NIC (each
    // data segment is ACKed at once, before the application answers).
    let h = 2 * hop(SYN_WIRE);
    let d = 2 * hop(data_frame_wire_len(32));
    let a = serialization_time(ACK_WIRE, GBPS).0;
    let first_ping = 2 * h + a + d; // h0's handshake, then ACK + ping
    let first_pong = first_ping + a + 2 * h + a + d; // h1's ACK, h1's handshake, ACK + pong
    let rtt = 2 * (a + d);
    assert_eq!(out.runtime_ns, first_pong + 9_999 * rtt);
}

#[test]
fn all_to_all_of_16_mib_is_within_ten_percent_of_the_downlink_bound() {
    let cfg = netsim::loader::from_file(
        std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/reference.toml"
        )),
        std::fs::read_to_string,
    )
    .unwrap();
    let mut sim = Simulator::from_config(&cfg, "reference.toml", 4, false).unwrap();
    let size = 16 * 1024 * 1024usize;
    let w = Workload {
        pattern: Pattern::AllToAll,
        size,
        iters: 1,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut sim, &w).unwrap();
    assert_eq!(out.messages, 12);
    assert_eq!(out.corrupted, 0);
    // Each host receives 3 messages of `size` bytes in full-MSS frames plus
    // one short frame per message; its downlink can carry them no faster than
    // wire bytes * 8 / rate.
    let mss = 1460u64;
    let full = size as u64 / mss;
    let rest = size as u64 % mss;
    let wire_per_msg = full * data_frame_wire_len(mss)
        + if rest > 0 {
            data_frame_wire_len(rest)
        } else {
            0
        };
    let bound = serialization_time(3 * wire_per_msg, GBPS).0;
    let runtime = out.runtime_ns;
    eprintln!(
        "all-to-all runtime {runtime} ns, bound {bound} ns, ratio {:.4}",
        runtime as f64 / bound as f64
    );
    assert!(
        runtime >= bound,
        "runtime {runtime} ns below the downlink bound {bound} ns"
    );
    assert!(
        (runtime as f64) <= bound as f64 * 1.10,
        "runtime {runtime} ns more than 10% above the downlink bound {bound} ns"
    );
}

#[test]
fn one_percent_loss_still_delivers_every_byte_and_counts_retransmissions() {
    let toml = "seed = 11\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\nloss=0.01\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[host]]\nname='h2'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n[[link]]\na='h2'\nb='s'\n";
    let cfg = NetworkConfig::from_toml_str(toml, "lossy").unwrap();
    let mut sim = Simulator::from_config(&cfg, "lossy", 3, false).unwrap();
    let w = Workload {
        pattern: Pattern::AllToAll,
        size: 1_000_000,
        iters: 3,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut sim, &w).unwrap();
    assert_eq!(out.messages, 3 * 6);
    assert_eq!(
        out.corrupted, 0,
        "reassembled content differs from what was sent"
    );
    assert_eq!(out.bytes, 18 * 1_000_000);
    let st = sim.stats();
    let frames: u64 = st.links.iter().map(|l| l.packets).sum();
    let lost: u64 = st.links.iter().map(|l| l.drops_loss).sum();
    let retrans: u64 = st.connections.iter().map(|c| c.stats.retransmissions).sum();
    // Lost frames ~ Binomial(frames, 0.01): within 5 standard deviations.
    let mean = frames as f64 * 0.01;
    let sd = (frames as f64 * 0.01 * 0.99).sqrt();
    assert!(
        (lost as f64 - mean).abs() < 5.0 * sd,
        "lost {lost} of {frames}"
    );
    assert!(retrans > 0 && lost > 0);
    let host_retrans: u64 = st.nodes.iter().map(|n| n.retransmissions).sum();
    assert_eq!(host_retrans, retrans);
}

#[test]
fn messages_larger_than_the_window_and_many_small_ones_keep_order() {
    let mut sim = two_hosts("");
    let mut sent = Vec::new();
    for i in 0..200u32 {
        let len = 1 + (i as usize * 7919) % 40_000;
        let b: Bytes = (0..len)
            .map(|k| (k as u32 ^ i) as u8)
            .collect::<Vec<_>>()
            .into();
        sim.inject(0, 1, b.clone(), Nanos(i as u64 * 1_000))
            .unwrap();
        sent.push(b);
    }
    let got = run_until_quiet(&mut sim);
    assert_eq!(got.len(), sent.len());
    for (g, s) in got.iter().zip(&sent) {
        assert_eq!(&g.bytes, s);
    }
}

#[test]
fn bad_injections_are_refused() {
    let mut sim = two_hosts("");
    assert!(sim
        .inject(0, 5, Bytes::from_static(b"x"), Nanos::ZERO)
        .is_err());
    assert!(sim.inject(0, 1, Bytes::new(), Nanos::ZERO).is_err());
}

/// Vectors: sampling never changes a run, and a saturated 1 Gbit/s link
/// shows utilisation 1 while a queue builds behind it.
#[test]
fn vectors_sample_without_changing_the_run() {
    let toml = "[link_defaults]\nrate='1Gbps'\ndelay='10us'\n[[host]]\nname='a'\n[[host]]\nname='b'\n[[switch]]\nname='s'\n[[link]]\na='a'\nb='s'\n[[link]]\na='b'\nb='s'\n";
    let cfg = netsim::NetworkConfig::from_toml_str(toml, "v").unwrap();
    let run = |vectors: bool| {
        let mut sim = netsim::Simulator::from_config(&cfg, "v", 2, false).unwrap();
        if vectors {
            sim.enable_vectors(netsim::Nanos::from_micros(100));
        }
        sim.inject(
            0,
            1,
            bytes::Bytes::from(vec![7u8; 4 << 20]),
            netsim::Nanos::ZERO,
        )
        .unwrap();
        let mut events = Vec::new();
        while let Some(t) = sim.step() {
            events.push(t);
        }
        (events, sim.take_samples())
    };
    let (plain, none) = run(false);
    let (sampled, samples) = run(true);
    assert_eq!(plain, sampled);
    assert!(none.links.is_empty() && none.tcp.is_empty());
    // 4 MiB at 1 Gbit/s take over 33 ms: the sender's link is busy for the
    // middle samples, within one frame's time per 100 us interval.
    let sender_port = 0;
    let busy: Vec<f64> = samples
        .links
        .iter()
        .filter(|s| s.port == sender_port && s.t_ns > 5_000_000 && s.t_ns < 25_000_000)
        .map(|s| s.utilisation)
        .collect();
    assert!(busy.len() >= 190, "{}", busy.len());
    let frame_ns = 12_304.0; // 1538 wire bytes at 1 Gbit/s
    assert!(
        busy.iter()
            .all(|u| (u - 1.0).abs() <= frame_ns / 100_000.0 + 1e-9),
        "{busy:?}"
    );
    // The congestion window only grows on a lossless path.
    let cwnd: Vec<u64> = samples
        .tcp
        .iter()
        .filter(|s| s.src_rank == 0)
        .map(|s| s.cwnd_bytes)
        .collect();
    assert!(cwnd.windows(2).all(|w| w[1] >= w[0]) && cwnd.len() > 100);
    assert!(samples.tcp.iter().any(|s| s.srtt_ns.is_some()));
}

#[test]
fn an_endpoint_that_is_no_rank_exchanges_messages_exactly_like_a_rank_on_its_host() {
    // Rank 1 on h1, and (in the second simulator) a non-rank endpoint on
    // h1 in its place: the same messages take the same times.
    let exchange = |sim: &mut Simulator, peer: u32| {
        sim.inject(0, peer, Bytes::from(vec![1u8; 100_000]), Nanos::ZERO)
            .unwrap();
        sim.inject(peer, 0, Bytes::from(vec![2u8; 3000]), Nanos(10_000))
            .unwrap();
        run_until_quiet(sim)
            .iter()
            .map(|d| (d.src, d.dst, d.bytes.len(), d.delivered_at))
            .collect::<Vec<_>>()
    };
    let ranks = exchange(&mut two_hosts(""), 1);
    let toml = "seed = 3\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n[tcp]\ndelayed_ack='0'\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n";
    let cfg = NetworkConfig::from_toml_str(toml, "test").unwrap();
    let mut sim = Simulator::from_config(&cfg, "test", 1, false).unwrap();
    let h1 = sim
        .network()
        .nodes
        .iter()
        .position(|n| n.name == "h1")
        .unwrap();
    let e = sim.add_endpoint(h1 as u32);
    assert_eq!(e, 1, "the endpoint is numbered after the one rank");
    assert_eq!(exchange(&mut sim, e), ranks);
    assert!(sim
        .inject(0, 2, Bytes::from_static(b"x"), Nanos::ZERO)
        .is_err());
}
