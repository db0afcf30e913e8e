//! Nagle's algorithm and sender-side silly window avoidance, and the NIC
//! room the host gives a connection.

use super::*;

fn nagle() -> TcpParams {
    TcpParams {
        nagle: true,
        ..params()
    }
}

#[test]
fn with_nagle_a_short_tail_waits_while_data_is_unacknowledged() {
    let mut k = Conn::new(nagle());
    assert_eq!(
        show(
            &k.open(1500)
                .iter()
                .cloned()
                .map(TcpAction::Send)
                .collect::<Vec<_>>()
        ),
        ["→ A seq=1001 ack=5001 len=1000 win=65535"]
    );
    assert!(k.transmit(ms(3)).is_empty());
    k.at_sender(ms(4), &ack_of(1000, 65_535));
    assert_eq!(
        show(&k.transmit(ms(4))),
        ["→ PA seq=2001 ack=5001 len=500 win=65535"]
    );
}

#[test]
fn without_nagle_the_short_tail_goes_at_once() {
    let mut k = Conn::new(params());
    let segs = k.open(1500);
    assert_eq!(
        segs.iter().map(|s| s.payload.len()).collect::<Vec<_>>(),
        [1000, 500]
    );
}

#[test]
fn with_nagle_a_small_message_goes_at_once_when_nothing_is_in_flight() {
    let mut k = Conn::new(nagle());
    k.open(1000);
    k.at_sender(ms(4), &ack_of(1000, 65_535));
    k.send(ms(5), 10);
    // The timer's event queued for 202 ms is still pending and will re-arm
    // for the new 205 ms deadline, so no second event is scheduled.
    assert_eq!(
        show(&k.transmit(ms(5))),
        ["→ PA seq=2001 ack=5001 len=10 win=65535"]
    );
    // A second small one waits for that ACK.
    k.send(ms(5), 10);
    assert!(k.transmit(ms(5)).is_empty());
}

#[test]
fn the_sender_sends_no_sliver_of_a_segment_into_a_nearly_full_window() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 5000)).remove(0);
    let mut syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    syn_ack.window = 2500;
    k.at_sender(ms(2), &syn_ack);
    // 500 B of window are left after two segments, with 3000 B pending.
    assert_eq!(
        sent(&k.transmit(ms(2)))
            .iter()
            .map(|s| s.payload.len())
            .collect::<Vec<_>>(),
        [1000, 1000]
    );
}

#[test]
fn a_full_nic_queue_stops_the_sender_and_says_so() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 5000)).remove(0);
    let syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    k.at_sender(ms(2), &syn_ack);
    let (blocked, out) = k.poll(ms(2), 2);
    assert!(blocked);
    assert_eq!(sent(&out).len(), 2);
    let (blocked, out) = k.poll(ms(3), 10);
    assert!(!blocked);
    assert_eq!(
        show(&out),
        [
            "→ A seq=3001 ack=5001 len=1000 win=65535",
            "→ A seq=4001 ack=5001 len=1000 win=65535",
            "→ PA seq=5001 ack=5001 len=1000 win=65535",
        ]
    );
}
