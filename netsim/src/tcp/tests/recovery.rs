//! Fast retransmit and NewReno fast recovery (RFC 5681, RFC 6582).

use super::*;

/// Ten segments in flight (offsets 0..10 000), `extra` more bytes queued;
/// the congestion window is 10 000 B.
fn ten_in_flight(extra: usize) -> Conn {
    let mut k = Conn::new(params());
    assert_eq!(k.open(10_000 + extra).len(), 10);
    k
}

fn dup(k: &mut Conn, t: u64, off: u64) -> Vec<String> {
    show(&k.at_sender(ms(t), &ack_of(off, 65_535)))
}

#[test]
fn two_duplicate_acks_change_nothing() {
    let mut k = ten_in_flight(0);
    assert!(dup(&mut k, 3, 0).is_empty());
    assert!(dup(&mut k, 3, 0).is_empty());
    assert_eq!(k.c.cwnd(), 10_000);
    assert_eq!(k.c.stats.retransmissions, 0);
}

#[test]
fn the_third_duplicate_ack_resends_the_first_unacked_segment_and_halves_the_window() {
    let mut k = ten_in_flight(0);
    dup(&mut k, 3, 0);
    dup(&mut k, 3, 0);
    assert_eq!(
        dup(&mut k, 4, 0),
        ["→ A seq=1001 ack=5001 len=1000 win=65535 (re)"]
    );
    // ssthresh = 10 000 / 2; cwnd = ssthresh + 3 MSS.
    assert_eq!(k.c.cwnd(), 8000);
    assert_eq!(k.c.stats.fast_retransmits, 1);
    assert_eq!(k.c.stats.retransmissions, 1);
}

#[test]
fn further_duplicate_acks_inflate_the_window_until_new_data_fits() {
    let mut k = ten_in_flight(5000);
    for _ in 0..3 {
        dup(&mut k, 3, 0);
    }
    for cwnd in [9000, 10_000] {
        assert!(dup(&mut k, 4, 0).is_empty());
        assert_eq!(k.c.cwnd(), cwnd);
        assert!(k.transmit(ms(4)).is_empty());
    }
    dup(&mut k, 4, 0);
    assert_eq!(k.c.cwnd(), 11_000);
    assert_eq!(
        show(&k.transmit(ms(4))),
        ["→ A seq=11001 ack=5001 len=1000 win=65535"]
    );
}

#[test]
fn a_partial_ack_resends_the_next_hole_at_once_and_deflates_the_window() {
    let mut k = ten_in_flight(0);
    for _ in 0..3 {
        dup(&mut k, 3, 0);
    }
    // Segments 0 and 3 were lost: the resent 0 brings the ACK to 3000.
    assert_eq!(
        dup(&mut k, 5, 3000),
        ["→ A seq=4001 ack=5001 len=1000 win=65535 (re)"]
    );
    // cwnd 8000 - 3000 acked + 1 MSS.
    assert_eq!(k.c.cwnd(), 6000);
    assert_eq!(k.c.stats.retransmissions, 2);
    assert_eq!(k.c.stats.fast_retransmits, 1);
}

#[test]
fn the_ack_reaching_the_recovery_point_ends_recovery_with_a_small_window() {
    let mut k = ten_in_flight(5000);
    for _ in 0..3 {
        dup(&mut k, 3, 0);
    }
    assert!(dup(&mut k, 5, 10_000).is_empty());
    // min(ssthresh 5000, max(nothing in flight, 1 MSS) + 1 MSS).
    assert_eq!(k.c.cwnd(), 2000);
    assert_eq!(
        show(&k.transmit(ms(5))),
        [
            "→ A seq=11001 ack=5001 len=1000 win=65535",
            "→ A seq=12001 ack=5001 len=1000 win=65535"
        ]
    );
    // Out of recovery, below ssthresh: slow start again.
    k.at_sender(ms(6), &ack_of(11_000, 65_535));
    assert_eq!(k.c.cwnd(), 3000);
}

#[test]
fn duplicate_acks_with_nothing_outstanding_are_ignored() {
    let mut k = ten_in_flight(0);
    k.at_sender(ms(4), &ack_of(10_000, 65_535));
    for _ in 0..4 {
        assert!(dup(&mut k, 5, 10_000).is_empty());
    }
    assert_eq!(k.c.stats.fast_retransmits, 0);
}

#[test]
fn a_receiver_missing_one_segment_sends_the_duplicate_acks_that_trigger_the_resend() {
    // Both halves: segment 0 lost, 1..3 produce three duplicate ACKs.
    let mut k = ten_in_flight(0);
    let data = {
        let mut k2 = Conn::new(params());
        k2.open(10_000)
    };
    let mut out = Vec::new();
    for seg in &data[1..4] {
        let acks = sent(&k.at_receiver(ms(3), seg));
        assert_eq!(acks.len(), 1);
        out.extend(k.at_sender(ms(4), &acks[0]));
    }
    assert_eq!(
        show(&out),
        ["→ A seq=1001 ack=5001 len=1000 win=65535 (re)"]
    );
    let resent = sent(&out).remove(0);
    assert_eq!(
        show(&k.at_receiver(ms(5), &resent)),
        ["← A seq=5001 ack=5001 len=0 win=65535"]
    );
}
