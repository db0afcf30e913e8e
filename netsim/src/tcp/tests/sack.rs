//! Selective acknowledgements: negotiation (RFC 2018), the blocks the
//! receiver reports, and SACK-based loss recovery (RFC 6675) segment by
//! segment.

use super::*;

fn sack_params() -> TcpParams {
    TcpParams {
        sack: true,
        ..params()
    }
}

/// Ten segments in flight (offsets 0..10 000); the segments themselves.
fn ten_in_flight() -> (Conn, Vec<Segment>) {
    let mut k = Conn::new(sack_params());
    let data = k.open(10_000);
    assert_eq!(data.len(), 10);
    (k, data)
}

/// Segment `i` of `data` reaches the receiver at `t` ms; its ACK reaches
/// the sender at `t + 1` ms. Returns (the ACK, what the sender did).
fn deliver(k: &mut Conn, data: &[Segment], i: usize, t: u64) -> (String, Vec<String>) {
    let acks = sent(&k.at_receiver(ms(t), &data[i]));
    assert_eq!(acks.len(), 1, "one ACK per segment");
    let mut out = k.at_sender(ms(t + 1), &acks[0]);
    out.extend(k.transmit(ms(t + 1)));
    let segs = show(
        &sent(&out)
            .into_iter()
            .map(TcpAction::Send)
            .collect::<Vec<_>>(),
    );
    (show_one(&TcpAction::Send(acks[0].clone())), segs)
}

#[test]
fn both_handshake_segments_carry_sack_permitted_when_configured() {
    let mut k = Conn::new(sack_params());
    let syn = sent(&k.send(ms(0), 100)).remove(0);
    assert_eq!(
        show_one(&TcpAction::Send(syn.clone())),
        "→ S seq=1000 ack=0 len=0 win=65535 mss=1000 ws=0 sackok"
    );
    assert_eq!(
        show(&k.at_receiver(ms(1), &syn)),
        ["← SA seq=5000 ack=1001 len=0 win=65535 mss=1000 ws=0 sackok"]
    );
}

#[test]
fn a_receiver_without_sack_does_not_answer_sack_permitted() {
    let mut k = Conn::new(params());
    let mut syn = sent(&Conn::new(sack_params()).send(ms(0), 100)).remove(0);
    syn.sack_permitted = true;
    k.send(ms(0), 100);
    assert_eq!(
        show(&k.at_receiver(ms(1), &syn)),
        ["← SA seq=5000 ack=1001 len=0 win=65535 mss=1000 ws=0"]
    );
}

#[test]
fn a_peer_that_does_not_permit_sack_gets_plain_acks_and_newreno() {
    // The sender offers SACK; the SYN-ACK comes back without it.
    let mut k = Conn::new(sack_params());
    let syn = sent(&k.send(ms(0), 10_000)).remove(0);
    let mut syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    syn_ack.sack_permitted = false;
    k.at_sender(ms(2), &syn_ack);
    assert_eq!(sent(&k.transmit(ms(2))).len(), 10);
    // Three duplicate ACKs: NewReno's inflated window (5000 + 3 MSS).
    for _ in 0..3 {
        k.at_sender(ms(3), &ack_of(0, 65_535));
    }
    assert_eq!(k.c.cwnd(), 8000);
}

#[test]
fn out_of_order_segments_are_acked_with_the_newest_block_first() {
    let (mut k, data) = ten_in_flight();
    let ack = |k: &mut Conn, i: usize| show(&k.at_receiver(ms(3), &data[i]));
    assert_eq!(ack(&mut k, 0), ["← A seq=5001 ack=2001 len=0 win=65535"]);
    assert_eq!(
        ack(&mut k, 2),
        ["← A seq=5001 ack=2001 len=0 win=65535 sack=3001-4001"]
    );
    assert_eq!(
        ack(&mut k, 4),
        ["← A seq=5001 ack=2001 len=0 win=65535 sack=5001-6001,3001-4001"]
    );
    assert_eq!(
        ack(&mut k, 5),
        ["← A seq=5001 ack=2001 len=0 win=65535 sack=5001-7001,3001-4001"]
    );
    for i in [7, 9] {
        ack(&mut k, i);
    }
    // Four blocks fit (no timestamps): 9, 7, then 4-5 and 2.
    assert_eq!(
        ack(&mut k, 9),
        ["← A seq=5001 ack=2001 len=0 win=65535 sack=10001-11001,8001-9001,5001-7001,3001-4001"]
    );
    // Segment 1 fills the first hole: the blocks below the ACK go.
    assert_eq!(
        ack(&mut k, 1),
        ["← A seq=5001 ack=4001 len=0 win=65535 sack=10001-11001,8001-9001,5001-7001"]
    );
}

#[test]
fn three_losses_in_one_window_are_all_resent_within_one_round_trip() {
    // Segments 1, 3 and 5 of ten are lost. NewReno would resend one per
    // round trip; with SACK, the third duplicate ACK resends 1 and the
    // ACKs of 7 and 8 (pipe falling below cwnd) resend 3 and 5.
    let (mut k, data) = ten_in_flight();
    assert_eq!(deliver(&mut k, &data, 0, 3).1, Vec::<String>::new());
    assert_eq!(deliver(&mut k, &data, 2, 3).1, Vec::<String>::new());
    assert_eq!(deliver(&mut k, &data, 4, 3).1, Vec::<String>::new());
    let (ack, out) = deliver(&mut k, &data, 6, 3);
    assert_eq!(
        ack,
        "← A seq=5001 ack=2001 len=0 win=65535 sack=7001-8001,5001-6001,3001-4001"
    );
    assert_eq!(out, ["→ A seq=2001 ack=5001 len=1000 win=65535 (re)"]);
    // ssthresh = 9000 in flight / 2; the window is not inflated.
    assert_eq!(k.c.cwnd(), 4500);
    assert_eq!(k.c.stats.fast_retransmits, 1);
    // Pipe: resent 1 + holes 3 and 5 (not yet lost) + 7, 8, 9 = 6000 B.
    let (_, out) = deliver(&mut k, &data, 7, 4);
    // 3 is lost now (3000 B SACKed above it); pipe 4000 B + 1 MSS > cwnd.
    assert!(out.is_empty(), "{out:?}");
    let (ack, out) = deliver(&mut k, &data, 8, 4);
    assert_eq!(
        ack,
        "← A seq=5001 ack=2001 len=0 win=65535 sack=7001-10001,5001-6001,3001-4001"
    );
    // Pipe 2000 B (resent 1, segment 9): room for two.
    assert_eq!(
        out,
        [
            "→ A seq=4001 ack=5001 len=1000 win=65535 (re)",
            "→ A seq=6001 ack=5001 len=1000 win=65535 (re)"
        ]
    );
    assert!(deliver(&mut k, &data, 9, 4).1.is_empty());
    assert_eq!(k.c.stats.retransmissions, 3);
    // The three retransmissions arrive: two partial ACKs, then the whole
    // message; no further segment leaves (no rescue: nothing unsacked
    // above HighRxt).
    let mut resent = sent(&k.transmit(ms(5)));
    assert!(resent.is_empty());
    for (t, seq) in [(6, 2001u32), (6, 4001), (6, 6001)] {
        let s = data.iter().find(|s| s.seq == seq).unwrap().clone();
        resent.push(Segment {
            retransmission: true,
            ..s
        });
        let acks = sent(&k.at_receiver(ms(t), resent.last().unwrap()));
        let mut out = k.at_sender(ms(t + 1), &acks[0]);
        out.extend(k.transmit(ms(t + 1)));
        assert!(sent(&out).is_empty(), "{:?}", show(&out));
    }
    assert_eq!(k.c.unacked_bytes(), 0);
    // Out of recovery: min(ssthresh, nothing in flight + 1 MSS + 1 MSS).
    assert_eq!(k.c.cwnd(), 2000);
    assert_eq!(k.c.stats.retransmissions, 3);
    assert_eq!(k.c.stats.timeouts, 0);
}

#[test]
fn a_lost_last_segment_is_resent_by_the_rescue_retransmission() {
    // Segments 1 and 9 lost: after the partial ACK of the resent 1,
    // nothing above the ACK is SACKed, so no rule but the rescue finds 9.
    let (mut k, data) = ten_in_flight();
    deliver(&mut k, &data, 0, 3);
    deliver(&mut k, &data, 2, 3);
    deliver(&mut k, &data, 3, 3);
    let (_, out) = deliver(&mut k, &data, 4, 3);
    assert_eq!(out, ["→ A seq=2001 ack=5001 len=1000 win=65535 (re)"]);
    for i in 5..9 {
        assert!(deliver(&mut k, &data, i, 4).1.is_empty());
    }
    let resent = Segment {
        retransmission: true,
        ..data[1].clone()
    };
    let acks = sent(&k.at_receiver(ms(6), &resent));
    assert_eq!(
        show_one(&TcpAction::Send(acks[0].clone())),
        "← A seq=5001 ack=10001 len=0 win=65535"
    );
    let mut out = k.at_sender(ms(7), &acks[0]);
    out.extend(k.transmit(ms(7)));
    assert_eq!(
        show(
            &sent(&out)
                .into_iter()
                .map(TcpAction::Send)
                .collect::<Vec<_>>()
        ),
        ["→ PA seq=10001 ack=5001 len=1000 win=65535 (re)"]
    );
    // Once per episode: a further poll sends nothing.
    assert!(k.transmit(ms(7)).is_empty());
}

#[test]
fn after_a_timeout_the_go_back_skips_what_the_receiver_sacked() {
    // Segments 0, 2, 7 and 9 are lost; of the ACKs, only the first two
    // duplicates get back before the RTO, too few for a fast retransmit.
    let (mut k, data) = ten_in_flight();
    let mut acks = Vec::new();
    for i in [1, 3, 4, 5, 6, 8] {
        acks.push(sent(&k.at_receiver(ms(3), &data[i])).remove(0));
    }
    k.at_sender(ms(4), &acks[0]);
    k.at_sender(ms(4), &acks[1]);
    assert_eq!(k.c.stats.fast_retransmits, 0);
    let out = k.fire(ms(202), TimerKind::Retransmit);
    assert_eq!(
        show(
            &sent(&out)
                .into_iter()
                .map(TcpAction::Send)
                .collect::<Vec<_>>()
        ),
        ["→ A seq=1001 ack=5001 len=1000 win=65535 (re)"]
    );
    // cwnd 1 MSS. The resent 0 brings the ACK to 2000 with the blocks
    // 3-6 and 8: cwnd 2 MSS; 2 is resent, then 3-6 are skipped but count
    // in the flight, which fills the window.
    let a = sent(&k.at_receiver(ms(203), &data[0])).remove(0);
    assert_eq!(
        show_one(&TcpAction::Send(a.clone())),
        "← A seq=5001 ack=3001 len=0 win=65535 sack=9001-10001,4001-8001"
    );
    k.at_sender(ms(204), &a);
    assert_eq!(
        show(&k.transmit(ms(204))),
        ["→ A seq=3001 ack=5001 len=1000 win=65535 (re)"]
    );
    // The resent 2 brings the ACK to 7000: 7 and 9 are resent, 8 skipped.
    let a = sent(&k.at_receiver(ms(205), &data[2])).remove(0);
    k.at_sender(ms(206), &a);
    assert_eq!(
        show(&k.transmit(ms(206))),
        [
            "→ A seq=8001 ack=5001 len=1000 win=65535 (re)",
            "→ PA seq=10001 ack=5001 len=1000 win=65535 (re)"
        ]
    );
    assert_eq!(k.c.stats.retransmissions, 4);
}
