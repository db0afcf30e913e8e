//! Reassembly: segments out of order, duplicated or overlapping become the
//! messages the application sent, each delivered once and in order.

use super::*;

fn delivered(actions: &[TcpAction]) -> Vec<(u64, Bytes)> {
    actions
        .iter()
        .filter_map(|a| match a {
            TcpAction::Deliver(r, b) => Some((r.id, b.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn segments_arriving_in_reverse_order_deliver_the_message_once_with_its_bytes() {
    let mut k = Conn::new(params());
    let data = k.open(5000);
    let mut out = Vec::new();
    for seg in data.iter().rev() {
        out.extend(k.at_receiver(ms(3), seg));
    }
    let d = delivered(&out);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].0, 0);
    assert_eq!(&d[0].1[..], &k.stream[..]);
    // Four duplicate ACKs, then the ACK of everything.
    assert_eq!(
        show(
            &sent(&out)
                .into_iter()
                .map(TcpAction::Send)
                .collect::<Vec<_>>()
        )[3..],
        [
            "← A seq=5001 ack=1001 len=0 win=65535",
            "← A seq=5001 ack=6001 len=0 win=65535"
        ]
    );
}

#[test]
fn a_duplicated_out_of_order_segment_is_held_once() {
    let mut k = Conn::new(params());
    let data = k.open(3000);
    k.at_receiver(ms(3), &data[2]);
    k.at_receiver(ms(3), &data[2]);
    k.at_receiver(ms(3), &data[1]);
    let out = k.at_receiver(ms(4), &data[0]);
    let d = delivered(&out);
    assert_eq!(d.len(), 1);
    assert_eq!(&d[0].1[..], &k.stream[..]);
    assert_eq!(k.c.stats.messages_delivered, 1);
}

#[test]
fn a_segment_overlapping_received_data_contributes_only_its_new_bytes() {
    let mut k = Conn::new(params());
    let data = k.open(3000);
    k.at_receiver(ms(3), &data[0]);
    k.at_receiver(ms(3), &data[1]);
    // Offsets 1500..3000 in one segment: the first 500 B are old.
    let mut overlap = data[2].clone();
    overlap.seq_off = 1500;
    overlap.seq = ISS + 1 + 1500;
    overlap.payload = Bytes::copy_from_slice(&k.stream[1500..3000]);
    let out = k.at_receiver(ms(4), &overlap);
    assert_eq!(
        show(&out),
        ["deliver #0 3000B", "← A seq=5001 ack=4001 len=0 win=65535"]
    );
    assert_eq!(&delivered(&out)[0].1[..], &k.stream[..]);
}

#[test]
fn several_messages_in_one_segment_are_delivered_separately_in_order() {
    let mut k = Conn::new(params());
    let first = k.open(300);
    k.send(ms(2), 200);
    k.send(ms(2), 500);
    let mut out = k.at_receiver(ms(3), &first[0]);
    // The two later messages share the next segment (Nagle off, 700 B).
    let next = sent(&k.transmit(ms(2)));
    assert_eq!(next.len(), 1);
    out.extend(k.at_receiver(ms(3), &next[0]));
    let d = delivered(&out);
    assert_eq!(
        d.iter().map(|(id, b)| (*id, b.len())).collect::<Vec<_>>(),
        [(0, 300), (1, 200), (2, 500)]
    );
    let all: Vec<u8> = d.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    assert_eq!(all, k.stream);
}

#[test]
fn an_empty_message_is_delivered_when_the_stream_reaches_it() {
    let mut k = Conn::new(params());
    let first = k.open(1000);
    k.send(ms(2), 0);
    k.send(ms(2), 1000);
    let second = sent(&k.transmit(ms(2)));
    assert_eq!(
        show(&k.at_receiver(ms(3), &first[0]))[..2],
        ["deliver #0 1000B", "deliver #1 0B"]
    );
    assert_eq!(
        show(&k.at_receiver(ms(3), &second[0]))[0],
        "deliver #2 1000B"
    );
}

#[test]
fn an_empty_first_message_is_delivered_when_the_handshake_completes() {
    let mut k = Conn::new(params());
    let syn = sent(&k.send(ms(0), 0)).remove(0);
    let syn_ack = sent(&k.at_receiver(ms(1), &syn)).remove(0);
    assert_eq!(
        show(&k.at_sender(ms(2), &syn_ack)),
        ["→ A seq=1001 ack=5001 len=0 win=65535", "deliver #0 0B"]
    );
}
