//! The sending side of one link direction: a drop-tail output queue in front
//! of a serialiser running at the link rate.

use crate::wire::packet::PacketId;
use std::collections::VecDeque;

/// Output queue + wire of one port. The frame being serialised is not in
/// `queue`; the limits count only frames waiting.
#[derive(Debug, Default)]
pub struct Transmitter {
    queue: VecDeque<(PacketId, u64)>,
    queued_bytes: u64,
    /// The frame on the wire, if any.
    pub busy: Option<PacketId>,
    limit_packets: u32,
    limit_bytes: u64,
    /// Highest number of frames waiting at once.
    pub peak_packets: u32,
    /// Highest number of frame bytes waiting at once.
    pub peak_bytes: u64,
}

impl Transmitter {
    /// An idle transmitter with the given queue limits.
    pub fn new(limit_packets: u32, limit_bytes: u64) -> Transmitter {
        Transmitter {
            limit_packets,
            limit_bytes,
            ..Default::default()
        }
    }

    /// Queues a frame of `frame_bytes`; false (drop-tail) when a limit would
    /// be exceeded.
    pub fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64) -> bool {
        if self.queue.len() as u32 >= self.limit_packets
            || self.queued_bytes + frame_bytes > self.limit_bytes
        {
            return false;
        }
        self.queue.push_back((pkt, frame_bytes));
        self.queued_bytes += frame_bytes;
        self.peak_packets = self.peak_packets.max(self.queue.len() as u32);
        self.peak_bytes = self.peak_bytes.max(self.queued_bytes);
        true
    }

    /// Takes the next waiting frame.
    pub fn dequeue(&mut self) -> Option<PacketId> {
        let (p, b) = self.queue.pop_front()?;
        self.queued_bytes -= b;
        Some(p)
    }

    /// Free places in the queue (what a local TCP sender may still add).
    pub fn room(&self) -> usize {
        (self.limit_packets as usize).saturating_sub(self.queue.len())
    }

    /// Frames waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Bytes of the frames waiting.
    pub fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_on_either_limit() {
        let mut t = Transmitter::new(2, 3000);
        assert!(t.enqueue(1, 1500));
        assert!(t.enqueue(2, 1500));
        assert!(!t.enqueue(3, 64), "packet limit");
        assert_eq!(t.dequeue(), Some(1));
        assert!(!t.enqueue(4, 1501), "byte limit");
        assert!(t.enqueue(5, 1500));
        assert_eq!(t.peak_packets, 2);
    }
}
