//! TCP timestamps (RFC 7323) on a written-down model: the option's 12
//! bytes come out of every segment's data (as Linux sends 1448 bytes on a
//! 1500-byte MTU), and every ACK of new data gives a round-trip sample
//! equal to the path's closed-form round trip, also the ACK of a
//! retransmission.
//!
//! The network is h0 — s — h1 at 8 Mbps, so a byte takes exactly 1 µs on
//! the wire and every time below is a whole number of microseconds: a
//! sample of the 1 µs timestamp clock is then the exact round trip.

use bytes::Bytes;
use netsim::model::stats::SimStats;
use netsim::wire::packet::ETHERNET_GAP;
use netsim::{Nanos, NetworkConfig, Simulator};

/// Nanoseconds a µs.
const US: u64 = 1_000;
/// Propagation delay of each link, µs.
const P: u64 = 100;
/// When the measured burst is handed over, µs (the warm-up is long done).
const T: u64 = 100_000;
/// MSS of a 1500-byte MTU.
const MSS: u64 = 1460;
/// Data a segment carries with timestamps.
const MSS_TS: u64 = MSS - 12;
/// Headers of a data or ACK frame: Ethernet 14 + FCS 4, IPv4 20, TCP 20.
const HEADERS: u64 = 58;
/// The timestamps option after the SYNs: NOP, NOP, kind, length, 8 bytes.
const TS_OPT: u64 = 12;

/// Wire time of a frame of `frame` bytes at 8 Mbps, µs.
fn wire_us(frame: u64) -> u64 {
    frame.max(64) + ETHERNET_GAP
}

/// A full data segment with timestamps: 1448 + 58 + 12 = 1518-byte frame.
fn d() -> u64 {
    wire_us(MSS_TS + HEADERS + TS_OPT)
}

/// A pure ACK with timestamps: a 70-byte frame.
fn a() -> u64 {
    wire_us(HEADERS + TS_OPT)
}

fn network(timestamps: bool, faults: &str) -> Simulator {
    let toml = format!(
        "seed = 5\n[link_defaults]\nrate='8Mbps'\ndelay='{P}us'\n[tcp]\ndelayed_ack='0'\ntimestamps={timestamps}\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n{faults}"
    );
    let cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
    Simulator::from_config(&cfg, "test", 2, false).unwrap()
}

/// Sends `len` bytes from rank 0 to rank 1 at time zero, runs until quiet,
/// checks the message arrived intact.
fn transfer(timestamps: bool, len: usize) -> SimStats {
    let mut sim = network(timestamps, "");
    let msg: Bytes = (0..len).map(|k| (k % 251) as u8).collect();
    sim.inject(0, 1, msg.clone(), Nanos::ZERO).unwrap();
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].bytes, msg);
    sim.stats()
}

/// Frame bytes h0 put on its link for one transfer of `n` bytes in
/// segments of `seg` bytes, each frame carrying `opt` option bytes after
/// the SYN, whose options take `syn_opt` bytes.
fn h0_frame_bytes(n: u64, seg: u64, opt: u64, syn_opt: u64) -> u64 {
    let full = n / seg;
    let rest = n % seg;
    let frame = |payload: u64| (payload + HEADERS + opt).max(64);
    let syn = (HEADERS + syn_opt).max(64);
    let handshake_ack = frame(0);
    syn + handshake_ack + full * frame(seg) + if rest > 0 { frame(rest) } else { 0 }
}

/// A transfer of N bytes takes ⌈N/(MSS − 12)⌉ segments with timestamps
/// and ⌈N/MSS⌉ without, and h0's link carries exactly those frames: the
/// 20-byte SYN options (MSS, NOP, NOP, TS, NOP, WS) or 8 bytes (MSS, NOP,
/// WS), the handshake ACK and the data, 12 option bytes each with
/// timestamps.
#[test]
fn a_transfer_of_n_bytes_takes_n_over_mss_minus_12_segments() {
    let n: u64 = 100_000;
    for (ts, seg, opt, syn_opt) in [(true, MSS_TS, TS_OPT, 20), (false, MSS, 0, 8)] {
        let st = transfer(ts, n as usize);
        let c = &st.connections[0].stats;
        assert_eq!(c.data_segments, n.div_ceil(seg), "timestamps={ts}");
        assert_eq!(c.data_bytes, n);
        assert_eq!(c.retransmissions, 0);
        let h0 = st.links.iter().find(|l| l.from_port == "h0/s").unwrap();
        assert_eq!(h0.packets, 2 + n.div_ceil(seg), "timestamps={ts}");
        assert_eq!(
            h0.bytes,
            h0_frame_bytes(n, seg, opt, syn_opt),
            "timestamps={ts}"
        );
    }
    assert_eq!(n.div_ceil(MSS_TS), 70);
    assert_eq!(n.div_ceil(MSS), 69);
}

/// Runs the warm-up (one byte at time zero: handshake and one segment)
/// and a burst of ten full segments handed over at [`T`], with the
/// TOML `faults`; returns the statistics after the run.
fn warm_up_and_burst(timestamps: bool, faults: &str) -> SimStats {
    let mut sim = network(timestamps, faults);
    sim.inject(0, 1, Bytes::from_static(&[1]), Nanos::ZERO)
        .unwrap();
    sim.advance_to(Nanos(T * US));
    let seg = if timestamps { MSS_TS } else { MSS };
    let msg: Bytes = (0..10 * seg).map(|k| (k % 251) as u8).collect();
    sim.inject(0, 1, msg.clone(), Nanos(T * US)).unwrap();
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].bytes, msg);
    sim.stats()
}

/// The model, in µs. The handshake: SYN and SYN-ACK (20 option bytes:
/// 98 µs on the wire) each cross two links: 4·98 + 4P. The warm-up byte
/// (a 71-byte frame) leaves behind the handshake's ACK, sent at the same
/// moment, and its ACK comes back: a + 2(91 + P) + 2(a + P). The burst leaves
/// h0 back to back at T, all ten stamped with the clock at T; segment k
/// reaches h1 at T + (k+2)·D + 2P (the switch forwards each as the one
/// before finishes), its ACK — echoing the burst's TSval — reaches h0
/// 2(a + P) later: a sample of (k+2)·D + 2a + 4P, the time segment k
/// waited behind the k before it in h0's NIC included (Linux stamps a
/// segment when TCP sends it, before the NIC queue).
///
/// Samples with timestamps: 1 + 1 + 10, the smallest the handshake's
/// (792 µs; the byte's is 852), the largest segment 9's. Without: the handshake, then one a
/// round trip from a timed segment: 3.
#[test]
fn every_ack_of_new_data_samples_the_closed_form_round_trip() {
    let handshake = 4 * wire_us(HEADERS + 20) + 4 * P;
    let byte = a() + 2 * (wire_us(1 + HEADERS + TS_OPT) + P) + 2 * (a() + P);
    let burst = |k: u64| (k + 2) * d() + 2 * a() + 4 * P;
    assert_eq!(
        (handshake, byte, burst(0), burst(9)),
        (792, 852, 3656, 17498)
    );
    let st = warm_up_and_burst(true, "");
    let c = &st.connections[0].stats;
    assert_eq!(c.rtt_samples, 12);
    assert_eq!(c.rtt_min_ns, handshake * US);
    assert_eq!(c.rtt_max_ns, burst(9) * US);
    let st = warm_up_and_burst(false, "");
    assert_eq!(st.connections[0].stats.rtt_samples, 3);
}

/// The burst's last segment is lost (the link h0-s loses what finishes
/// leaving it within 100 µs of T + 10·D; the ACKs crossing it then finish
/// 480 µs or more away). The retransmission timer resends it on an idle
/// path, and its ACK echoes the retransmission's TSval: a sample of
/// exactly 2D + 2a + 4P (Karn's rule needs no exception: the echo names
/// the copy). So 12 samples again (handshake, byte, segments 0–8, the
/// retransmission), the largest segment 8's; without timestamps Karn
/// forbids the sample and there are 3.
#[test]
fn the_ack_of_a_retransmission_is_sampled_from_its_echo() {
    let burst = |k: u64| (k + 2) * d() + 2 * a() + 4 * P;
    for ts in [true, false] {
        let seg_d = if ts { d() } else { wire_us(MSS + HEADERS) };
        let done = T + 10 * seg_d;
        let fault = format!(
            "[[fault]]\nlink='h0-s'\nloss=0.999999999\nat={}\nfor={}\n",
            (done - 100) * US,
            200 * US
        );
        let st = warm_up_and_burst(ts, &fault);
        let lost: u64 = st.links.iter().map(|l| l.drops_loss).sum();
        assert_eq!(lost, 1, "timestamps={ts}: only segment 9");
        let c = &st.connections[0].stats;
        assert_eq!((c.retransmissions, c.timeouts), (1, 1), "timestamps={ts}");
        if ts {
            assert_eq!(c.rtt_samples, 12);
            assert_eq!(c.rtt_max_ns, burst(8) * US);
        } else {
            assert_eq!(c.rtt_samples, 3);
        }
    }
}

#[test]
fn timestamps_that_are_no_boolean_are_refused_in_one_sentence() {
    let err = NetworkConfig::from_toml_str("[tcp]\ntimestamps = 1\n", "net.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("tcp.timestamps"), "{err}");
    assert!(!err.contains('\n'), "{err}");
}
