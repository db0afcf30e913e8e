//! ECN (RFC 3168) segment by segment: negotiation, ECT(0) on new data
//! only, the receiver's echo until CWR, and the sender's one reduction a
//! window without a retransmission.

use super::*;
use crate::wire::packet::Ecn;

fn ecn_params() -> TcpParams {
    TcpParams {
        ecn: true,
        ..params()
    }
}

/// `seg` arrives at the receiver marked Congestion Experienced.
fn at_receiver_ce(k: &mut Conn, now: Nanos, seg: &Segment) -> Vec<TcpAction> {
    assert!(seg.ect, "only ECT frames are marked");
    let mut p = packet(seg);
    p.ecn = Ecn::Ce;
    let mut out = Vec::new();
    k.c.on_receiver_segment(now, &p, &mut out);
    out
}

#[test]
fn the_handshake_offers_and_accepts_ecn_and_data_leaves_ect() {
    let mut k = Conn::new(ecn_params());
    let syn = sent(&k.send(ms(0), 2000)).remove(0);
    assert_eq!(
        show_one(&TcpAction::Send(syn.clone())),
        "→ SEC seq=1000 ack=0 len=0 win=65535 mss=1000 ws=0"
    );
    let syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    assert_eq!(
        show_one(&TcpAction::Send(syn_ack.clone())),
        "← SAE seq=5000 ack=1001 len=0 win=65535 mss=1000 ws=0"
    );
    assert_eq!(
        show(&k.at_sender(ms(2), &syn_ack)),
        ["→ A seq=1001 ack=5001 len=0 win=65535"]
    );
    assert_eq!(
        show(&k.transmit(ms(2))),
        [
            "→ A seq=1001 ack=5001 len=1000 win=65535 ect",
            "rto @202ms",
            "→ PA seq=2001 ack=5001 len=1000 win=65535 ect"
        ]
    );
}

#[test]
fn a_peer_without_ecn_leaves_the_connection_without_it() {
    let mut k = Conn::new(params());
    let syn = sent(&Conn::new(ecn_params()).send(ms(0), 100)).remove(0);
    k.send(ms(0), 100);
    assert_eq!(
        show(&k.at_receiver(ms(1), &syn)),
        ["← SA seq=5000 ack=1001 len=0 win=65535 mss=1000 ws=0"]
    );
    // And a sender whose SYN-ACK has no ECE sends Not-ECT data.
    let mut k = Conn::new(ecn_params());
    let syn = sent(&k.send(ms(0), 100)).remove(0);
    let mut syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    syn_ack.flags.ece = false;
    k.at_sender(ms(2), &syn_ack);
    assert_eq!(
        show(&k.transmit(ms(2))),
        ["→ PA seq=1001 ack=5001 len=100 win=65535", "rto @202ms"]
    );
}

/// Ten segments in flight (window 10 000 bytes). Segment 0 arrives CE:
/// its ACK carries ECE, and so does every ACK after it until a segment
/// with CWR arrives. The first ECE halves the window to 5 000 bytes; the
/// echoes of the other nine are for data sent before the reduction and
/// change nothing. Nothing is resent; the first new segment carries CWR,
/// and the receiver's echo stops there.
#[test]
fn one_mark_halves_the_window_once_and_the_next_new_segment_carries_cwr() {
    let mut k = Conn::new(ecn_params());
    let data = k.open(10_000);
    assert_eq!(data.len(), 10);
    assert!(data.iter().all(|s| s.ect));
    let ack0 = sent(&at_receiver_ce(&mut k, ms(3), &data[0])).remove(0);
    assert!(ack0.flags.ece);
    k.at_sender(ms(4), &ack0);
    assert_eq!(k.c.cwnd(), 5_000, "halved");
    assert_eq!(k.c.stats.ecn_reductions, 1);
    let mut acks = Vec::new();
    for (i, seg) in data.iter().enumerate().skip(1) {
        let a = sent(&k.at_receiver(ms(3 + i as u64), seg)).remove(0);
        assert!(a.flags.ece, "echo goes on until CWR");
        acks.push(a);
    }
    // Offsets 1 000 … 10 000 acknowledged: data sent before the reduction.
    for (i, a) in acks.iter().enumerate() {
        k.at_sender(ms(5 + i as u64), a);
    }
    assert_eq!(k.c.stats.ecn_reductions, 1, "once a window");
    assert_eq!(k.c.stats.retransmissions, 0);
    // Congestion avoidance from 5 000: nine ACKs of 1 000 bytes add one
    // segment (5 000 acknowledged bytes a segment).
    assert_eq!(k.c.cwnd(), 6_000);
    k.send(ms(20), 3_000);
    assert_eq!(
        show(&k.transmit(ms(20))),
        [
            "→ AC seq=11001 ack=5001 len=1000 win=65535 ect",
            "→ A seq=12001 ack=5001 len=1000 win=65535 ect",
            "→ PA seq=13001 ack=5001 len=1000 win=65535 ect",
        ]
    );
    assert_eq!(k.c.stats.ce_received, 1);
}

/// The receiver echoes from a CE mark until a segment with CWR arrives,
/// and a CE on the CWR segment itself starts the echo again.
#[test]
fn the_echo_stops_at_cwr() {
    let mut k = Conn::new(ecn_params());
    let data = k.open(10_000);
    let ack0 = sent(&at_receiver_ce(&mut k, ms(3), &data[0])).remove(0);
    k.at_sender(ms(4), &ack0);
    let mut last = ack0;
    for (i, seg) in data.iter().enumerate().skip(1) {
        last = sent(&k.at_receiver(ms(4 + i as u64), seg)).remove(0);
        assert!(last.flags.ece, "segment {i}");
    }
    // The cumulative ACK of all ten: nothing in flight, room for new data.
    k.at_sender(ms(15), &last);
    k.send(ms(15), 1_000);
    let cwr = sent(&k.transmit(ms(15))).remove(0);
    assert!(cwr.flags.cwr && cwr.ect && cwr.seq_off == 10_000);
    let a = sent(&k.at_receiver(ms(20), &cwr)).remove(0);
    assert!(!a.flags.ece, "CWR ends the echo");
    let a = sent(&at_receiver_ce(&mut k, ms(21), &cwr)).remove(0);
    assert!(a.flags.ece, "a marked CWR segment starts it again");
    assert_eq!(k.c.stats.ce_received, 2);
}

/// A retransmission leaves Not-ECT (RFC 3168 §6.1.5), new data ECT(0).
#[test]
fn retransmissions_are_not_ect() {
    let mut k = Conn::new(ecn_params());
    let data = k.open(3_000);
    assert_eq!(data.len(), 3);
    // Segment 0 is lost; the RTO (200 ms floor after the handshake's
    // 2 ms sample) resends it.
    assert_eq!(
        show(&k.fire(ms(202), TimerKind::Retransmit)),
        [
            "→ A seq=1001 ack=5001 len=1000 win=65535 (re)",
            "rto @602ms"
        ]
    );
}
