//! The message transport of the lossless fabric (`fabric = "lossless"`),
//! modelled on InfiniBand's reliable connection: a queue pair between two
//! ranks sends each message as SEND packets of at most one MTU of payload
//! (first, middle, last, or only), numbered by a 24-bit packet sequence
//! number, in order, as fast as the host's port takes them. The fabric
//! never drops a packet, so there are no acknowledgements, no windows and
//! no retransmission: a message is delivered when its last byte arrives.
//! (Real InfiniBand acknowledges for the rare bit error; on a simulated
//! lossless fabric the acknowledgements would only add traffic.) The
//! receiver accepts packets in any order (adaptive routing may reorder
//! flowlets) and delivers messages in the order they were sent.
//!
//! Deterministic and free of I/O like the TCP model: the simulator hands
//! it messages and room, it hands back segments and deliveries.

use bytes::Bytes;
use std::collections::{BTreeMap, VecDeque};

/// Packet sequence numbers wrap at 2²⁴.
pub const PSN_MODULUS: u32 = 1 << 24;

/// Where a packet sits in its message (the SEND opcode it carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendPart {
    /// The first of several packets.
    First,
    /// Neither the first nor the last.
    Middle,
    /// The last of several packets.
    Last,
    /// The message's only packet.
    Only,
}

/// One packet to send.
#[derive(Debug, Clone)]
pub struct RdmaSegment {
    /// Stream offset of the first payload byte.
    pub offset: u64,
    /// Payload bytes.
    pub payload: Bytes,
    /// Its place in the message.
    pub part: SendPart,
    /// Packet sequence number (mod 2²⁴).
    pub psn: u32,
}

/// Counters of one queue pair.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RdmaStats {
    /// Packets sent.
    pub packets: u64,
    /// Payload bytes sent.
    pub bytes: u64,
    /// Messages delivered to the receiving rank.
    pub messages_delivered: u64,
    /// Packets that arrived ahead of an earlier one.
    pub out_of_order: u64,
}

/// A message being sent: its record `M`, its bytes, and how much has gone.
#[derive(Debug)]
struct Outgoing<M> {
    record: M,
    bytes: Bytes,
    sent: usize,
    /// Stream offset of its first byte.
    start: u64,
}

/// One direction of a queue pair, both ends (the simulator holds both).
#[derive(Debug)]
pub struct RdmaConnection<M> {
    mtu: usize,
    next_psn: u32,
    /// Stream offset after the last byte queued.
    queued_end: u64,
    send_queue: VecDeque<Outgoing<M>>,
    /// Messages every byte of which was sent, not yet delivered: (record,
    /// bytes, stream offset after their last byte).
    in_flight: VecDeque<(M, Bytes, u64)>,
    /// Every byte below this offset has arrived.
    received_upto: u64,
    /// Ranges that arrived above `received_upto`: start → end.
    early: BTreeMap<u64, u64>,
    /// Counters.
    pub stats: RdmaStats,
}

impl<M> RdmaConnection<M> {
    /// A queue pair whose packets carry at most `mtu` payload bytes.
    pub fn new(mtu: u32) -> RdmaConnection<M> {
        RdmaConnection {
            mtu: mtu.max(1) as usize,
            next_psn: 0,
            queued_end: 0,
            send_queue: VecDeque::new(),
            in_flight: VecDeque::new(),
            received_upto: 0,
            early: BTreeMap::new(),
            stats: RdmaStats::default(),
        }
    }

    /// Queues a message (`bytes` not empty) for sending.
    pub fn app_send(&mut self, record: M, bytes: Bytes) {
        let start = self.queued_end;
        self.queued_end += bytes.len() as u64;
        self.send_queue.push_back(Outgoing {
            record,
            bytes,
            sent: 0,
            start,
        });
    }

    /// True while packets wait to be sent.
    pub fn has_data(&self) -> bool {
        !self.send_queue.is_empty()
    }

    /// Appends up to `room` packets to `out`; true when more wait (the
    /// caller polls again when its port has room).
    pub fn poll_transmit(&mut self, room: usize, out: &mut Vec<RdmaSegment>) -> bool {
        for _ in 0..room {
            let Some(m) = self.send_queue.front_mut() else {
                return false;
            };
            let len = (m.bytes.len() - m.sent).min(self.mtu);
            let part = match (m.sent == 0, m.sent + len == m.bytes.len()) {
                (true, true) => SendPart::Only,
                (true, false) => SendPart::First,
                (false, true) => SendPart::Last,
                (false, false) => SendPart::Middle,
            };
            out.push(RdmaSegment {
                offset: m.start + m.sent as u64,
                payload: m.bytes.slice(m.sent..m.sent + len),
                part,
                psn: self.next_psn,
            });
            self.next_psn = (self.next_psn + 1) % PSN_MODULUS;
            self.stats.packets += 1;
            self.stats.bytes += len as u64;
            m.sent += len;
            if m.sent == m.bytes.len() {
                let m = self.send_queue.pop_front().expect("front exists");
                let end = m.start + m.bytes.len() as u64;
                self.in_flight.push_back((m.record, m.bytes, end));
            }
        }
        !self.send_queue.is_empty()
    }

    /// The receiving end took the packet at stream `offset` with `len`
    /// payload bytes; appends the messages now complete, in order, to
    /// `delivered`.
    pub fn on_segment(&mut self, offset: u64, len: u64, delivered: &mut Vec<(M, Bytes)>) {
        let end = offset + len;
        if offset > self.received_upto {
            self.stats.out_of_order += 1;
            let e = self.early.entry(offset).or_insert(end);
            *e = (*e).max(end);
        } else {
            self.received_upto = self.received_upto.max(end);
        }
        // Close the gaps the early ranges now fill.
        while let Some((&s, &e)) = self.early.first_key_value() {
            if s > self.received_upto {
                break;
            }
            self.received_upto = self.received_upto.max(e);
            self.early.pop_first();
        }
        while self
            .in_flight
            .front()
            .is_some_and(|(_, _, end)| *end <= self.received_upto)
        {
            let (record, bytes, _) = self.in_flight.pop_front().expect("front exists");
            self.stats.messages_delivered += 1;
            delivered.push((record, bytes));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_cut_into_mtu_packets_first_middle_last() {
        let mut c = RdmaConnection::new(4);
        c.app_send("a", Bytes::from_static(b"0123456789"));
        c.app_send("b", Bytes::from_static(b"xy"));
        let mut out = Vec::new();
        assert!(c.poll_transmit(2, &mut out));
        assert!(!c.poll_transmit(10, &mut out));
        let parts: Vec<(u64, usize, SendPart, u32)> = out
            .iter()
            .map(|s| (s.offset, s.payload.len(), s.part, s.psn))
            .collect();
        assert_eq!(
            parts,
            [
                (0, 4, SendPart::First, 0),
                (4, 4, SendPart::Middle, 1),
                (8, 2, SendPart::Last, 2),
                (10, 2, SendPart::Only, 3)
            ]
        );
        assert_eq!(&out[1].payload[..], b"4567");
    }

    #[test]
    fn messages_are_delivered_in_order_when_their_last_byte_arrives() {
        let mut c = RdmaConnection::new(4);
        c.app_send(1, Bytes::from_static(b"0123456789"));
        c.app_send(2, Bytes::from_static(b"xy"));
        let mut out = Vec::new();
        c.poll_transmit(10, &mut out);
        let mut got = Vec::new();
        // The second message's packet and the first's last arrive early.
        c.on_segment(10, 2, &mut got);
        c.on_segment(8, 2, &mut got);
        c.on_segment(0, 4, &mut got);
        assert!(got.is_empty());
        c.on_segment(4, 4, &mut got);
        let ids: Vec<i32> = got.iter().map(|(m, _)| *m).collect();
        assert_eq!(ids, [1, 2]);
        assert_eq!(c.stats.out_of_order, 2);
        assert_eq!(c.stats.messages_delivered, 2);
    }

    #[test]
    fn the_packet_sequence_number_wraps_at_two_to_the_24() {
        let mut c = RdmaConnection::new(1);
        c.next_psn = PSN_MODULUS - 1;
        c.app_send((), Bytes::from_static(b"ab"));
        let mut out = Vec::new();
        c.poll_transmit(2, &mut out);
        assert_eq!((out[0].psn, out[1].psn), (PSN_MODULUS - 1, 0));
    }
}
