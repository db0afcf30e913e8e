//! When the receiver acknowledges: at once, after a second segment, on its
//! timer, and always at once for out-of-order, hole-filling and old data.

use super::*;

/// Delayed ACKs of 40 ms, at most 2 segments unacknowledged.
fn delayed() -> TcpParams {
    TcpParams {
        delayed_ack: ms(40),
        ..params()
    }
}

#[test]
fn without_delayed_acks_every_in_order_segment_is_acked_at_once() {
    let mut k = Conn::new(params());
    let data = k.open(2000);
    assert_eq!(
        show(&k.at_receiver(ms(3), &data[0])),
        ["← A seq=5001 ack=2001 len=0 win=65535"]
    );
    assert_eq!(
        show(&k.at_receiver(ms(3), &data[1])),
        ["deliver #0 2000B", "← A seq=5001 ack=3001 len=0 win=65535"]
    );
    assert_eq!(k.c.stats.acks_sent, 2);
}

#[test]
fn a_first_segment_arms_the_delayed_ack_timer_and_a_second_is_acked_at_once() {
    let mut k = Conn::new(delayed());
    let data = k.open(3000);
    assert_eq!(show(&k.at_receiver(ms(3), &data[0])), ["delack @43ms"]);
    assert_eq!(
        show(&k.at_receiver(ms(4), &data[1])),
        ["← A seq=5001 ack=3001 len=0 win=65535"]
    );
    // The count starts again: the third segment waits.
    assert_eq!(show(&k.at_receiver(ms(5), &data[2])), ["deliver #0 3000B"]);
}

#[test]
fn the_delayed_ack_timer_acks_a_lone_segment() {
    let mut k = Conn::new(delayed());
    let data = k.open(1000);
    assert_eq!(
        show(&k.at_receiver(ms(3), &data[0])),
        ["deliver #0 1000B", "delack @43ms"]
    );
    assert_eq!(
        show(&k.fire(ms(43), TimerKind::DelayedAck)),
        ["← A seq=5001 ack=2001 len=0 win=65535"]
    );
}

#[test]
fn a_delayed_ack_timer_whose_ack_already_went_sends_nothing() {
    let mut k = Conn::new(delayed());
    let data = k.open(2000);
    k.at_receiver(ms(3), &data[0]);
    k.at_receiver(ms(4), &data[1]); // acked at once
    assert!(k.fire(ms(43), TimerKind::DelayedAck).is_empty());
    assert_eq!(k.c.stats.acks_sent, 1);
}

#[test]
fn a_later_deadline_reuses_the_pending_timer_event_and_is_rescheduled_when_it_fires() {
    let mut k = Conn::new(delayed());
    let data = k.open(3000);
    assert_eq!(show(&k.at_receiver(ms(3), &data[0])), ["delack @43ms"]);
    k.at_receiver(ms(4), &data[1]); // ACK at once; the 43 ms event stays queued
                                    // The third segment wants 50 ms: the queued 43 ms event will do.
    assert_eq!(show(&k.at_receiver(ms(10), &data[2])), ["deliver #0 3000B"]);
    // At 43 ms the deadline has not come: the timer re-arms for 50 ms.
    assert_eq!(
        show(&k.fire(ms(43), TimerKind::DelayedAck)),
        ["delack @50ms"]
    );
    assert_eq!(
        show(&k.fire(ms(50), TimerKind::DelayedAck)),
        ["← A seq=5001 ack=4001 len=0 win=65535"]
    );
}

#[test]
fn an_out_of_order_segment_is_acked_at_once_with_the_expected_sequence() {
    let mut k = Conn::new(delayed());
    let data = k.open(3000);
    assert_eq!(
        show(&k.at_receiver(ms(3), &data[1])),
        ["← A seq=5001 ack=1001 len=0 win=65535"]
    );
}

#[test]
fn the_segment_filling_a_hole_is_acked_at_once_up_to_the_end_of_the_held_data() {
    let mut k = Conn::new(delayed());
    let data = k.open(3000);
    k.at_receiver(ms(3), &data[1]);
    k.at_receiver(ms(3), &data[2]);
    assert_eq!(
        show(&k.at_receiver(ms(4), &data[0])),
        ["deliver #0 3000B", "← A seq=5001 ack=4001 len=0 win=65535"]
    );
}

#[test]
fn a_segment_the_receiver_already_has_is_acked_at_once() {
    let mut k = Conn::new(delayed());
    let data = k.open(2000);
    k.at_receiver(ms(3), &data[0]);
    k.at_receiver(ms(3), &data[1]);
    assert_eq!(
        show(&k.at_receiver(ms(300), &data[0])),
        ["← A seq=5001 ack=3001 len=0 win=65535"]
    );
}
