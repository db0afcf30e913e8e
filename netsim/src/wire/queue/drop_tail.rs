//! Drop-tail FIFO: frames leave in arrival order; a frame that would take
//! the queue past its frame or byte limit is dropped.

use super::{Admission, QueueDiscipline};
use crate::base::time::Nanos;
use crate::wire::packet::PacketId;
use std::collections::VecDeque;

/// A FIFO bounded in frames and in bytes.
#[derive(Debug, Default)]
pub struct DropTail {
    queue: VecDeque<(PacketId, u64)>,
    queued_bytes: u64,
    limit_packets: u32,
    limit_bytes: u64,
    peak_packets: u32,
    peak_bytes: u64,
}

impl DropTail {
    /// An empty queue holding at most `limit_packets` frames and
    /// `limit_bytes` bytes.
    pub fn new(limit_packets: u32, limit_bytes: u64) -> DropTail {
        DropTail {
            limit_packets,
            limit_bytes,
            ..Default::default()
        }
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64, _now: Nanos) -> Admission {
        if self.queue.len() as u32 >= self.limit_packets
            || self.queued_bytes + frame_bytes > self.limit_bytes
        {
            return Admission::DroppedFull;
        }
        self.queue.push_back((pkt, frame_bytes));
        self.queued_bytes += frame_bytes;
        self.peak_packets = self.peak_packets.max(self.queue.len() as u32);
        self.peak_bytes = self.peak_bytes.max(self.queued_bytes);
        Admission::Queued
    }

    #[inline]
    fn dequeue(&mut self, _now: Nanos) -> Option<PacketId> {
        let (p, b) = self.queue.pop_front()?;
        self.queued_bytes -= b;
        Some(p)
    }

    #[inline]
    fn len(&self) -> usize {
        self.queue.len()
    }

    fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    #[inline]
    fn room(&self) -> usize {
        (self.limit_packets as usize).saturating_sub(self.queue.len())
    }

    fn peak_packets(&self) -> u32 {
        self.peak_packets
    }

    fn peak_bytes(&self) -> u64 {
        self.peak_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_on_either_limit() {
        let mut t = DropTail::new(2, 3000);
        let now = Nanos::ZERO;
        assert_eq!(t.enqueue(1, 1500, now), Admission::Queued);
        assert_eq!(t.enqueue(2, 1500, now), Admission::Queued);
        assert_eq!(
            t.enqueue(3, 64, now),
            Admission::DroppedFull,
            "packet limit"
        );
        assert_eq!(t.dequeue(now), Some(1));
        assert_eq!(
            t.enqueue(4, 1501, now),
            Admission::DroppedFull,
            "byte limit"
        );
        assert_eq!(t.enqueue(5, 1500, now), Admission::Queued);
        assert_eq!((t.peak_packets(), t.peak_bytes()), (2, 3000));
        assert_eq!((t.len(), t.room(), t.queued_bytes()), (2, 0, 3000));
    }
}
