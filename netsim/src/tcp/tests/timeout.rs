//! The retransmission timer: expiry, exponential backoff, its reset, RTT
//! samples and Karn's rule.

use super::*;

/// Three segments in flight (offsets 0..3000); RTO 200 ms armed at 2 ms.
fn three_in_flight(p: TcpParams) -> Conn {
    let mut k = Conn::new(p);
    assert_eq!(k.open(3000).len(), 3);
    k
}

#[test]
fn an_expired_rto_resends_the_first_segment_with_one_segment_of_window() {
    let mut k = three_in_flight(params());
    assert_eq!(
        show(&k.fire(ms(202), TimerKind::Retransmit)),
        [
            "→ A seq=1001 ack=5001 len=1000 win=65535 (re)",
            "rto @602ms"
        ]
    );
    assert_eq!(k.c.cwnd(), 1000);
    assert_eq!(k.c.stats.timeouts, 1);
    // One segment of window: nothing else goes until an ACK.
    assert!(k.transmit(ms(203)).is_empty());
}

#[test]
fn each_further_expiry_doubles_the_timeout() {
    let mut k = three_in_flight(params());
    k.fire(ms(202), TimerKind::Retransmit);
    assert_eq!(
        show(&k.fire(ms(602), TimerKind::Retransmit)),
        [
            "→ A seq=1001 ack=5001 len=1000 win=65535 (re)",
            "rto @1402ms"
        ]
    );
    assert_eq!(
        show(&k.fire(ms(1402), TimerKind::Retransmit))[1],
        "rto @3002ms"
    );
    assert_eq!(k.c.stats.timeouts, 3);
}

#[test]
fn the_backed_off_timeout_stops_at_rto_max() {
    let mut k = three_in_flight(TcpParams {
        rto_max: ms(500),
        ..params()
    });
    assert_eq!(
        show(&k.fire(ms(202), TimerKind::Retransmit))[1],
        "rto @602ms"
    );
    assert_eq!(
        show(&k.fire(ms(602), TimerKind::Retransmit))[1],
        "rto @1102ms"
    );
    assert_eq!(
        show(&k.fire(ms(1102), TimerKind::Retransmit))[1],
        "rto @1602ms"
    );
}

#[test]
fn an_ack_of_new_data_after_a_timeout_resets_the_backoff_and_resends_the_rest() {
    let mut k = three_in_flight(params());
    k.fire(ms(202), TimerKind::Retransmit);
    // The base RTO again (200 ms), earlier than the pending 602 ms event.
    assert_eq!(
        show(&k.at_sender(ms(300), &ack_of(1000, 65_535))),
        ["rto @500ms"]
    );
    // Slow start from one segment: two go, both re-sent bytes.
    assert_eq!(
        show(&k.transmit(ms(300))),
        [
            "→ A seq=2001 ack=5001 len=1000 win=65535 (re)",
            "→ PA seq=3001 ack=5001 len=1000 win=65535 (re)",
        ]
    );
    assert_eq!(k.c.stats.retransmissions, 3);
}

#[test]
fn an_ack_of_a_segment_sent_once_updates_the_rtt_estimate() {
    let mut k = three_in_flight(params());
    assert_eq!(k.c.srtt(), Some(ms(2)));
    // Sent at 2 ms, acked at 100 ms: srtt = (7 × 2 + 98) / 8.
    k.at_sender(ms(100), &ack_of(1000, 65_535));
    assert_eq!(k.c.srtt(), Some(ms(14)));
}

#[test]
fn an_ack_after_a_retransmission_gives_no_rtt_sample() {
    let mut k = three_in_flight(params());
    k.fire(ms(202), TimerKind::Retransmit);
    k.at_sender(ms(250), &ack_of(1000, 65_535));
    assert_eq!(k.c.srtt(), Some(ms(2)));
}

#[test]
fn a_timer_event_before_the_moved_deadline_rearms_without_resending() {
    let mut k = three_in_flight(params());
    // New data acked at 100 ms moves the deadline to 300 ms; the queued
    // 202 ms event stays.
    assert!(k.at_sender(ms(100), &ack_of(1000, 65_535)).is_empty());
    assert_eq!(
        show(&k.fire(ms(202), TimerKind::Retransmit)),
        ["rto @300ms"]
    );
    assert_eq!(k.c.stats.timeouts, 0);
}

#[test]
fn the_timer_stops_when_everything_is_acked() {
    let mut k = three_in_flight(params());
    k.at_sender(ms(4), &ack_of(3000, 65_535));
    assert_eq!(k.c.unacked_bytes(), 0);
    assert!(k.fire(ms(202), TimerKind::Retransmit).is_empty());
    assert_eq!(k.c.stats.timeouts, 0);
}
