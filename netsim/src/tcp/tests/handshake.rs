//! Opening the connection: SYN, SYN-ACK, ACK, their options, a lost SYN.

use super::*;

#[test]
fn the_first_message_sends_a_syn_with_its_options_and_arms_the_initial_rto() {
    let mut k = Conn::new(params());
    assert_eq!(
        show(&k.send(ms(0), 100)),
        [
            "→ S seq=1000 ack=0 len=0 win=65535 mss=1000 ws=0",
            "rto @1000ms"
        ]
    );
    // A second message before the handshake completes sends nothing more.
    assert!(k.send(ms(0), 100).is_empty());
}

#[test]
fn the_receiver_answers_a_syn_with_a_syn_ack_acknowledging_iss_plus_one() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 100)).remove(0);
    assert_eq!(
        show(&k.at_receiver(ms(1), &syn)),
        ["← SA seq=5000 ack=1001 len=0 win=65535 mss=1000 ws=0"]
    );
}

#[test]
fn the_syn_ack_establishes_the_sender_which_acks_and_samples_the_rtt() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 100)).remove(0);
    let syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    assert!(!k.c.is_established());
    assert_eq!(
        show(&k.at_sender(ms(2), &syn_ack)),
        ["→ A seq=1001 ack=5001 len=0 win=65535"]
    );
    assert!(k.c.is_established());
    assert_eq!(k.c.srtt(), Some(ms(2)));
    // The SYN's timer is cancelled: its event finds nothing to do.
    assert!(k.fire(ms(1000), TimerKind::Retransmit).is_empty());
    assert_eq!(k.c.stats.timeouts, 0);
}

#[test]
fn no_data_leaves_before_the_syn_ack() {
    let mut k = Conn::new(params());
    k.send(ms(0), 5000);
    let (blocked, out) = k.poll(ms(0), 10);
    assert!(!blocked);
    assert!(out.is_empty());
}

#[test]
fn a_lost_syn_is_resent_after_the_initial_rto_and_the_handshake_gives_no_rtt_sample() {
    let mut k = Conn::new(params());
    k.send(ms(0), 100);
    assert_eq!(
        show(&k.fire(ms(1000), TimerKind::Retransmit)),
        [
            "→ S seq=1000 ack=0 len=0 win=65535 mss=1000 ws=0",
            "rto @3000ms"
        ]
    );
    assert_eq!(k.c.stats.timeouts, 1);
    assert_eq!(k.c.stats.retransmissions, 1);
    let syn = sent(&k.fire(ms(3000), TimerKind::Retransmit)).remove(0);
    let syn_ack = sent(&k.at_receiver(ms(3001), &syn)).remove(0);
    k.at_sender(ms(3002), &syn_ack);
    assert!(k.c.is_established());
    // Karn: which SYN the SYN-ACK answers is unknown.
    assert_eq!(k.c.srtt(), None);
}

#[test]
fn a_smaller_mss_in_the_syn_ack_sizes_the_segments() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 1500)).remove(0);
    let mut syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    syn_ack.mss = Some(536);
    k.at_sender(ms(2), &syn_ack);
    assert_eq!(
        show(&k.transmit(ms(2))),
        [
            "→ A seq=1001 ack=5001 len=536 win=65535",
            "rto @202ms",
            "→ A seq=1537 ack=5001 len=536 win=65535",
            "→ PA seq=2073 ack=5001 len=428 win=65535",
        ]
    );
}

#[test]
fn a_large_receive_buffer_is_announced_with_a_window_scale() {
    // 1 MiB >> 5 = 32768 is the first shift that fits 16 bits.
    let mut k = Conn::new(TcpParams {
        receive_window: 1 << 20,
        ..params()
    });
    let syn = sent(&k.send(ms(0), 10)).remove(0);
    assert_eq!(
        show_one(&TcpAction::Send(syn.clone())),
        "→ S seq=1000 ack=0 len=0 win=65535 mss=1000 ws=5"
    );
    let syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    assert_eq!(syn_ack.wscale, Some(5));
    let ack = sent(&k.at_sender(ms(2), &syn_ack)).remove(0);
    assert_eq!(ack.window, 32_768);
    k.at_receiver(ms(3), &ack);
    let data = sent(&k.transmit(ms(2))).remove(0);
    assert_eq!(
        show(&k.at_receiver(ms(3), &data)),
        ["deliver #0 10B", "← A seq=5001 ack=1011 len=0 win=32768"]
    );
}

#[test]
fn a_repeated_syn_is_answered_again_until_data_arrives_then_ignored() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 100)).remove(0);
    k.at_receiver(ms(1), &syn);
    // The SYN-ACK was lost; the sender's retransmitted SYN gets another.
    assert_eq!(
        show(&k.at_receiver(ms(1001), &syn)),
        ["← SA seq=5000 ack=1001 len=0 win=65535 mss=1000 ws=0"]
    );
    let syn_ack = sent(&k.at_receiver(ms(1001), &syn)).remove(0);
    let ack = sent(&k.at_sender(ms(1002), &syn_ack)).remove(0);
    k.at_receiver(ms(1003), &ack);
    let data = sent(&k.transmit(ms(1002))).remove(0);
    k.at_receiver(ms(1003), &data);
    assert!(k.at_receiver(ms(1004), &syn).is_empty());
}
