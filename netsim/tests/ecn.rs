//! ECN (RFC 3168) with a threshold-marking queue, on a model written
//! down: n senders at 1 Gbps into one 1 Gbps bottleneck (switch s → the
//! receiver hr) whose port holds B = 200 frames and marks from K = 20.
//! D is a full frame's time on a link, R₀ = 2(D + P) + 2(A + P) the round
//! trip without queues, R_K = R₀ + K·D the round trip of a frame that
//! found K waiting.
//!
//! * With ECN the senders slow down before the buffer fills: no drop and
//!   no retransmission, every mark reaches the receiver (CE received =
//!   marks), and each connection reduces its window at most once per
//!   mark and at most once a round trip of marked data: a second reduction
//!   needs the echo of a mark on data sent after the first (the echo of
//!   older marks stops at the CWR segment), and a marked frame's round
//!   trip is at least R_K; so at most 1 + (transfer time ÷ R_K) times.
//! * The reductions cost no throughput: the last byte arrives less than
//!   R_K after the bottleneck could have sent every frame.
//! * Without ECN the same queue is drop-tail for the senders' (non-ECT)
//!   frames: slow start overflows B, frames are dropped and resent, and
//!   the run is byte for byte the run of `queue = "droptail"`.
//! * The queue's peak: marking starts when a frame finds K waiting; the
//!   senders hear of it R_K later (the frames they sent until then arrive
//!   by then), plus the time the frames already in their NIC queues (at
//!   most `nic_queue_packets` = 2 each) and on the wire take. Meanwhile n
//!   links bring at most n frames a D and the bottleneck sends one: peak
//!   ≤ K + (n − 1)·⌈R_K / D⌉ + n·(2 + 1), below B. (With two senders the
//!   bound is 50 frames and the peak 47: slow start sends two frames for
//!   each one forwarded, so the queue grows by about one a D for R_K.)

use bytes::Bytes;
use netsim::base::time::serialization_time;
use netsim::model::stats::SimStats;
use netsim::wire::packet::{data_frame_wire_len, ETHERNET_GAP, ETHERNET_MIN_FRAME};
use netsim::{Nanos, NetworkConfig, Simulator};

const GBPS: u64 = 1_000_000_000;
/// Propagation delay of every link, ns.
const P: u64 = 5_000;
/// Marking threshold, frames.
const K: u64 = 20;
/// Bottleneck buffer, frames.
const B: u64 = 200;
/// Bytes each sender sends.
const SIZE: usize = 2 << 20;
const MSS: u64 = 1460;
/// Frames TCP may keep waiting in a sender's NIC queue.
const NIC: u64 = 2;

/// Serialisation of a full data frame (1538 wire bytes), ns.
fn d() -> u64 {
    serialization_time(data_frame_wire_len(MSS), GBPS).0
}

/// Serialisation of a pure ACK (64-byte minimum frame), ns.
fn a() -> u64 {
    serialization_time(ETHERNET_MIN_FRAME + ETHERNET_GAP, GBPS).0
}

/// The base round trip: a data frame over two links, its ACK back over
/// two, no queue.
fn r0() -> u64 {
    2 * (d() + P) + 2 * (a() + P)
}

/// `senders` hosts and hr on switch s; the link s-hr is the bottleneck.
fn network(senders: usize, ecn: bool, queue: &str, congestion: &str) -> Simulator {
    let mut toml = format!(
        "seed = 11\n[link_defaults]\nrate='1Gbps'\ndelay='{P}ns'\n\
         [tcp]\ndelayed_ack='0'\necn={ecn}\ncongestion='{congestion}'\nnic_queue_packets={NIC}\n"
    );
    for i in 0..senders {
        toml += &format!("[[host]]\nname='h{i}'\n");
    }
    toml += "[[host]]\nname='hr'\n[[switch]]\nname='s'\n";
    for i in 0..senders {
        toml += &format!("[[link]]\na='h{i}'\nb='s'\n");
    }
    toml += &format!(
        "[[link]]\na='s'\nb='hr'\nqueue='{queue}'\necn_threshold={K}\nqueue_packets={B}\nred_ecn=true\n"
    );
    let cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
    Simulator::from_config(&cfg, "test", senders + 1, false).unwrap()
}

/// Every sender rank sends [`SIZE`] bytes to the last rank at time 0;
/// returns the statistics and when the last message arrived.
fn run(senders: usize, ecn: bool, queue: &str, congestion: &str) -> (SimStats, u64) {
    let mut sim = network(senders, ecn, queue, congestion);
    let msg: Bytes = (0..SIZE).map(|k| (k % 251) as u8).collect();
    for r in 0..senders as u32 {
        sim.inject(r, senders as u32, msg.clone(), Nanos::ZERO)
            .unwrap();
    }
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), senders);
    assert!(out.iter().all(|d| d.bytes == msg), "delivered intact");
    let last = out.iter().map(|d| d.delivered_at.0).max().unwrap();
    (sim.stats(), last)
}

fn bottleneck(st: &SimStats) -> &netsim::model::stats::LinkDirectionStats {
    st.links.iter().find(|l| l.from_port == "s/hr").unwrap()
}

fn drops(st: &SimStats) -> u64 {
    st.links
        .iter()
        .map(|l| l.drops_queue + l.drops_early + l.drops_loss)
        .sum()
}

#[test]
fn with_ecn_no_frame_is_dropped_and_the_window_falls_once_a_round_trip() {
    let r_k = r0() + K * d();
    let peak_bound = |n: u64| K + (n - 1) * r_k.div_ceil(d()) + n * (NIC + 1);
    for congestion in ["newreno", "cubic"] {
        for senders in [2, 4] {
            let (st, last) = run(senders, true, "ecn-threshold", congestion);
            let what = format!("{congestion}, {senders} senders");
            let q = bottleneck(&st);
            assert_eq!(drops(&st), 0, "{what}");
            assert!(q.ecn_marks > 0, "{what}: the queue reached K");
            let mut ce = 0;
            for c in &st.connections {
                let c = &c.stats;
                assert_eq!(c.retransmissions, 0, "{what}");
                assert!(c.ecn_reductions >= 1, "{what}");
                assert!(c.ecn_reductions <= c.ce_received, "{what}: {c:?}");
                assert!(
                    c.ecn_reductions <= 1 + last / r_k,
                    "{what}: {} reductions in {} round trips",
                    c.ecn_reductions,
                    last / r_k
                );
                ce += c.ce_received;
            }
            assert_eq!(ce, q.ecn_marks, "{what}: every mark arrives");
            // The bottleneck is not starved by the reductions: all n·⌈SIZE/MSS⌉
            // frames cross it, back to back but for less than R_K in all.
            let busy = senders as u64 * (SIZE as u64).div_ceil(MSS) * d();
            assert!(
                busy <= last && last <= busy + r_k,
                "{what}: done at {last} ns, busy {busy} ns"
            );
            let bound = peak_bound(senders as u64);
            eprintln!(
                "{what}: peak {} (bound {bound}), marks {}, reductions {:?}, done at {} us",
                q.peak_queue_packets,
                q.ecn_marks,
                st.connections
                    .iter()
                    .map(|c| c.stats.ecn_reductions)
                    .collect::<Vec<_>>(),
                last / 1000
            );
            assert!(
                u64::from(q.peak_queue_packets) <= bound,
                "{what}: peak {} above K + burst = {bound}",
                q.peak_queue_packets
            );
            assert!(bound < B);
        }
    }
}

#[test]
fn without_ecn_the_buffer_overflows_and_the_marking_queue_is_drop_tail() {
    for congestion in ["newreno", "cubic"] {
        let (st, last) = run(2, false, "ecn-threshold", congestion);
        let q = bottleneck(&st);
        assert_eq!(q.ecn_marks, 0, "no ECT frame to mark");
        assert_eq!(u64::from(q.peak_queue_packets), B, "{congestion}: full");
        assert!(q.drops_queue > 0, "{congestion}");
        let retransmissions: u64 = st.connections.iter().map(|c| c.stats.retransmissions).sum();
        assert!(retransmissions > 0, "{congestion}");
        assert!(st.connections.iter().all(|c| c.stats.ecn_reductions == 0));
        // Exactly the drop-tail run.
        let (dt, dt_last) = run(2, false, "droptail", congestion);
        assert_eq!(last, dt_last, "{congestion}");
        assert_eq!(
            serde_json::to_string(&st).unwrap(),
            serde_json::to_string(&dt).unwrap(),
            "{congestion}"
        );
        // ECN senders on a queue that does not mark: the same losses.
        let (e, _) = run(2, true, "droptail", congestion);
        assert!(drops(&e) > 0 && bottleneck(&e).ecn_marks == 0);
    }
}

#[test]
fn an_ecn_that_is_no_boolean_and_an_unknown_queue_are_refused_in_one_sentence() {
    let err = NetworkConfig::from_toml_str("[tcp]\necn = 'on'\n", "net.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("tcp.ecn"), "{err}");
    assert!(!err.contains('\n'), "{err}");
    let err = NetworkConfig::from_toml_str("[link_defaults]\nqueue = 'codel'\n", "net.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("queue"), "{err}");
    assert!(err.contains("ecn-threshold"), "{err}");
    assert!(!err.contains('\n'), "{err}");
}

/// RED with `red_ecn` on the same bottleneck (defaults min_th 5, max_th
/// 15, max_p 0.02, w_q 0.002): ECN senders' frames are marked where RED
/// would drop them, so nothing is dropped or resent; without ECN the
/// same queue drops early and the senders resend.
#[test]
fn red_with_ecn_marks_instead_of_dropping_early() {
    for congestion in ["newreno", "cubic"] {
        let (st, _) = run(2, true, "red", congestion);
        let q = bottleneck(&st);
        assert_eq!(drops(&st), 0, "{congestion}");
        assert!(q.ecn_marks > 0, "{congestion}");
        let ce: u64 = st.connections.iter().map(|c| c.stats.ce_received).sum();
        assert_eq!(ce, q.ecn_marks, "{congestion}");
        assert!(st.connections.iter().all(|c| c.stats.retransmissions == 0));
        let (st, _) = run(2, false, "red", congestion);
        let q = bottleneck(&st);
        assert!(q.drops_early > 0 && q.ecn_marks == 0, "{congestion}");
        assert!(st.connections.iter().any(|c| c.stats.retransmissions > 0));
    }
}
