//! SACK-based loss recovery (RFC 2018 + RFC 6675) against NewReno on a
//! written-down model: three segments of one window are lost, and the
//! message completes one round trip after the loss is detected with SACK,
//! three without.

use bytes::Bytes;
use netsim::base::time::serialization_time;
use netsim::wire::packet::{data_frame_wire_len, ETHERNET_GAP, ETHERNET_MIN_FRAME};
use netsim::{Nanos, NetworkConfig, Simulator};

const GBPS: u64 = 1_000_000_000;
/// Propagation delay of each link.
const P: u64 = 500_000;
/// When the measured message is handed over (the warm-up is long done).
const T: u64 = 10_000_000;
/// Segments of the measured message: exactly the initial window.
const SEGMENTS: u64 = 10;
/// The segments lost on their way out of h0.
const LOST: [u64; 3] = [1, 3, 5];
const MSS: u64 = 1460;

/// Serialisation of a full data frame at 1 Gbps (1538 wire bytes).
fn d() -> u64 {
    serialization_time(data_frame_wire_len(MSS), GBPS).0
}

/// Serialisation of a pure ACK carrying `blocks` SACK blocks: 58 bytes of
/// headers plus the option (two NOPs, kind, length, 8 bytes a block),
/// padded to the 64-byte minimum frame, plus preamble and gap.
fn a(blocks: u64) -> u64 {
    let opt = if blocks == 0 { 0 } else { 4 + 8 * blocks };
    serialization_time((58 + opt).max(ETHERNET_MIN_FRAME) + ETHERNET_GAP, GBPS).0
}

/// h0 — s — h1 at 1 Gbps, 0.5 ms a link, every segment ACKed at once; the
/// link h0-s loses (with probability 1 − 1e-9: a loss probability must be
/// below 1) whatever finishes leaving either end within half a data frame
/// of the moment segment `i` of the burst finishes leaving h0, for `i` in
/// [`LOST`]. Nothing else crosses h0-s then: the burst's ACKs come back
/// two milliseconds later.
fn network(sack: bool) -> Simulator {
    let mut faults = String::new();
    for i in LOST {
        let done = T + (i + 1) * d();
        faults += &format!(
            "[[fault]]\nlink='h0-s'\nloss=0.999999999\nat={}\nfor={}\n",
            done - d() / 2,
            d()
        );
    }
    let toml = format!(
        "seed = 3\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n[tcp]\ndelayed_ack='0'\nsack={sack}\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n{faults}"
    );
    let cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
    Simulator::from_config(&cfg, "test", 2, false).unwrap()
}

/// Runs the warm-up (one byte, which opens the connection and leaves the
/// window at 10 segments + 1 byte) and the measured message of
/// [`SEGMENTS`] full segments handed over at [`T`]; returns when that
/// message was delivered, and the simulator.
fn run(sack: bool) -> (u64, Simulator) {
    let mut sim = network(sack);
    sim.inject(0, 1, Bytes::from_static(&[1]), Nanos::ZERO)
        .unwrap();
    // Not until quiet: the SYN's cancelled timer would still move the
    // clock to 1 s.
    sim.advance_to(Nanos(T));
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1);
    assert!(out[0].delivered_at < Nanos(T));
    let msg: Bytes = (0..SEGMENTS * MSS).map(|k| (k % 251) as u8).collect();
    sim.inject(0, 1, msg.clone(), Nanos(T)).unwrap();
    while sim.step().is_some() {}
    out.clear();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].bytes, msg, "delivered intact");
    (out[0].delivered_at.0, sim)
}

/// The model. The burst leaves h0 back to back from `T`: segment `i`
/// finishes leaving at T + (i+1)·D, and one not lost reaches h1 at
/// T + (i+2)·D + 2P (the switch forwards each frame as the previous one
/// finishes). h1 ACKs at once; an ACK with `n` blocks reaches h0
/// 2·(a(n) + P) later. Segments 2, 4 and 6 arrive above the first hole:
/// the ACK of 6 is the third duplicate, at
///
///   t_FR = T + 8D + 4P + 2·a(n₆)
///
/// (n₆ = 3 blocks with SACK — {6}, {4}, {2} — and 0 without), and the
/// sender resends segment 1 at once on an idle NIC.
///
/// * NewReno: each retransmission's ACK is a partial ACK that resends the
///   next hole one round trip R = 2(D + P) + 2(a(0) + P) later, so 5 leaves
///   at t_FR + 2R and the message is complete when it reaches h1:
///   t_FR + 2R + 2(D + P) — three round trips of recovery.
/// * SACK (RFC 6675): cwnd = ssthresh = 9 segments in flight / 2 = 4.5
///   segments. Pipe after resending 1 is 6 segments (1 resent, holes 3
///   and 5 not yet lost, 7-9); the ACK of 7 makes 3 lost (three segments
///   SACKed above it), pipe 4; the ACK of 8, at t_FR + 2D, makes 5 lost,
///   pipe 2: both are resent then, back to back after 1 (which finished
///   leaving at t_FR + D), so 5 finishes leaving h0 at t_FR + 4D and
///   reaches h1 at t_FR + 5D + 2P — all holes resent within the first
///   round trip.
#[test]
fn three_losses_in_one_window_take_one_round_trip_with_sack_and_three_without() {
    let d = d();
    let (newreno, nr_sim) = run(false);
    let (sack, sack_sim) = run(true);
    let t_fr = |blocks: u64| T + 8 * d + 4 * P + 2 * a(blocks);
    let r = 2 * (d + P) + 2 * (a(0) + P);
    let newreno_model = t_fr(0) + 2 * r + 2 * (d + P);
    let sack_model = t_fr(3) + 5 * d + 2 * P;
    eprintln!(
        "NewReno {} ns after the burst (model {}), SACK {} ns (model {}); round trip {r} ns",
        newreno - T,
        newreno_model - T,
        sack - T,
        sack_model - T
    );
    assert_eq!(newreno, newreno_model, "NewReno");
    assert_eq!(sack, sack_model, "SACK");
    // The two differ by the two round trips SACK saves (less the frames
    // SACK sends back to back, and its longer ACKs).
    assert_eq!(
        newreno_model - sack_model,
        2 * r + 2 * a(0) - 2 * a(3) - 3 * d
    );
    for (sim, name) in [(&nr_sim, "NewReno"), (&sack_sim, "SACK")] {
        let st = sim.stats();
        let lost: u64 = st.links.iter().map(|l| l.drops_loss).sum();
        assert_eq!(lost, 3, "{name}: exactly the three chosen frames");
        let c = &st.connections[0].stats;
        assert_eq!(c.retransmissions, 3, "{name}: each lost segment once");
        assert_eq!(c.fast_retransmits, 1, "{name}: one recovery episode");
        assert_eq!(c.timeouts, 0, "{name}");
    }
}

/// A lossless run is the same with SACK on and off but for the SYNs'
/// four bytes of SACK-permitted option.
#[test]
fn without_loss_sack_changes_only_the_handshake() {
    let deliver = |sack: bool| {
        let toml = format!(
            "seed = 3\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n[tcp]\nsack={sack}\n\
             [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
             [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n"
        );
        let cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
        let mut sim = Simulator::from_config(&cfg, "test", 2, false).unwrap();
        sim.inject(0, 1, Bytes::from(vec![7u8; 100_000]), Nanos::ZERO)
            .unwrap();
        while sim.step().is_some() {}
        let mut out = Vec::new();
        sim.take_deliveries(&mut out);
        out[0].delivered_at.0
    };
    // SYN and SYN-ACK each cross two links with 4 more bytes.
    let extra = 4 * serialization_time(4, GBPS).0;
    assert_eq!(deliver(true), deliver(false) + extra);
}

#[test]
fn a_sack_that_is_no_boolean_is_refused_in_one_sentence() {
    let err = NetworkConfig::from_toml_str("[tcp]\nsack = 'yes'\n", "net.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("sack"), "{err}");
    assert!(!err.contains('\n'), "{err}");
}
