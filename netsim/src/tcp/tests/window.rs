//! The peer's window: limits, updates, scaling, zero windows, and the
//! receiver's constant advertisement.

use super::*;

/// Opens with the SYN-ACK's window field set to `win` (and window scale
/// `ws`); the data segments sent at 2 ms.
fn open_with_window(k: &mut Conn, len: usize, win: u16, ws: u8) -> Vec<TcpAction> {
    let syn = sent(&k.send(ms(0), len)).remove(0);
    let mut syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    syn_ack.window = win;
    syn_ack.wscale = Some(ws);
    let ack = sent(&k.at_sender(ms(2), &syn_ack)).remove(0);
    k.at_receiver(ms(3), &ack);
    k.transmit(ms(2))
}

#[test]
fn the_peer_window_limits_the_bytes_in_flight_below_the_congestion_window() {
    let mut k = Conn::new(params());
    assert_eq!(
        show(&open_with_window(&mut k, 10_000, 3000, 0)),
        [
            "→ A seq=1001 ack=5001 len=1000 win=65535",
            "rto @202ms",
            "→ A seq=2001 ack=5001 len=1000 win=65535",
            "→ A seq=3001 ack=5001 len=1000 win=65535",
        ]
    );
}

#[test]
fn a_window_update_without_new_data_opens_the_window_and_is_no_duplicate_ack() {
    let mut k = Conn::new(params());
    open_with_window(&mut k, 10_000, 3000, 0);
    for (i, win) in [4000u16, 5000, 6000].into_iter().enumerate() {
        assert!(k.at_sender(ms(3 + i as u64), &ack_of(0, win)).is_empty());
    }
    assert_eq!(k.c.stats.fast_retransmits, 0);
    assert_eq!(
        show(&k.transmit(ms(6))),
        [
            "→ A seq=4001 ack=5001 len=1000 win=65535",
            "→ A seq=5001 ack=5001 len=1000 win=65535",
            "→ A seq=6001 ack=5001 len=1000 win=65535",
        ]
    );
}

#[test]
fn an_ack_moving_the_window_right_lets_as_many_new_bytes_out_as_it_acked() {
    let mut k = Conn::new(params());
    open_with_window(&mut k, 10_000, 3000, 0);
    assert!(k.at_sender(ms(5), &ack_of(2000, 3000)).is_empty());
    assert_eq!(
        show(&k.transmit(ms(5))),
        [
            "→ A seq=4001 ack=5001 len=1000 win=65535",
            "→ A seq=5001 ack=5001 len=1000 win=65535",
        ]
    );
}

#[test]
fn the_window_scale_from_the_syn_ack_multiplies_later_window_fields() {
    let mut k = Conn::new(params());
    assert_eq!(sent(&open_with_window(&mut k, 20_000, 65_535, 2)).len(), 10);
    // 1000 << 2 = 4000 bytes of window; 9000 are in flight after this ACK.
    assert!(k.at_sender(ms(4), &ack_of(1000, 1000)).is_empty());
    assert!(k.transmit(ms(4)).is_empty());
    // 2000 in flight after this one: two more segments.
    assert!(k.at_sender(ms(5), &ack_of(8000, 1000)).is_empty());
    assert_eq!(
        show(&k.transmit(ms(5))),
        [
            "→ A seq=11001 ack=5001 len=1000 win=65535",
            "→ A seq=12001 ack=5001 len=1000 win=65535",
        ]
    );
}

#[test]
fn a_zero_window_still_lets_one_segment_out_as_a_probe_and_no_more() {
    // The model has no persist timer: it treats a window below one MSS as
    // one MSS, so one segment is always in flight to elicit a new window.
    let mut k = Conn::new(params());
    assert_eq!(
        show(&open_with_window(&mut k, 3000, 0, 0)),
        ["→ A seq=1001 ack=5001 len=1000 win=65535", "rto @202ms"]
    );
    assert!(k.transmit(ms(3)).is_empty());
    assert!(k.at_sender(ms(4), &ack_of(1000, 0)).is_empty());
    assert_eq!(
        show(&k.transmit(ms(4))),
        ["→ A seq=2001 ack=5001 len=1000 win=65535"]
    );
    // The window opens: the rest goes.
    k.at_sender(ms(5), &ack_of(2000, 65_535));
    assert_eq!(
        show(&k.transmit(ms(5))),
        ["→ PA seq=3001 ack=5001 len=1000 win=65535"]
    );
}

#[test]
fn the_receiver_advertises_its_whole_buffer_while_it_holds_out_of_order_data() {
    let mut k = Conn::new(TcpParams {
        receive_window: 4000,
        ..params()
    });
    let data = k.open(4000);
    for seg in &data[1..] {
        assert_eq!(
            show(&k.at_receiver(ms(3), seg)),
            ["← A seq=5001 ack=1001 len=0 win=4000"]
        );
    }
}

#[test]
fn an_out_of_order_segment_beyond_the_window_is_not_kept() {
    let mut k = Conn::new(TcpParams {
        receive_window: 2000,
        ..params()
    });
    let data = k.open(2000);
    let mut far = data[1].clone();
    far.seq_off = 2000; // ends at 3000 > rcv_nxt 0 + window 2000
    far.seq = ISS + 1 + 2000;
    assert_eq!(
        show(&k.at_receiver(ms(3), &far)),
        ["← A seq=5001 ack=1001 len=0 win=2000"]
    );
    k.at_receiver(ms(3), &data[0]);
    // Had `far` been kept, filling offsets 1000..2000 would also take it.
    assert_eq!(
        show(&k.at_receiver(ms(3), &data[1])),
        ["deliver #0 2000B", "← A seq=5001 ack=3001 len=0 win=2000"]
    );
}
