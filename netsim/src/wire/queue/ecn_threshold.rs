//! ECN threshold marking, as data-centre switches do for DCTCP (Alizadeh
//! et al., "Data Center TCP", SIGCOMM 2010): a FIFO that sets Congestion
//! Experienced (RFC 3168) on an ECN-capable frame arriving to find `K` or
//! more frames waiting, instead of waiting for the queue to overflow.
//! Frames that are not ECN-capable are kept or dropped as drop-tail would
//! (only the hard limits refuse them), so a network without ECN senders
//! behaves exactly as with `droptail`. The instantaneous queue length
//! decides (no average, no randomness): the same arrivals mark the same
//! frames.

use super::{Admission, DropTail, QueueDiscipline};
use crate::base::time::Nanos;
use crate::wire::packet::PacketId;

/// An ECN-marking FIFO of one port.
#[derive(Debug)]
pub struct EcnThreshold {
    fifo: DropTail,
    /// K: frames waiting (not counting the one on the wire) from which an
    /// arriving ECN-capable frame is marked.
    threshold: u32,
}

impl EcnThreshold {
    /// An empty queue holding at most `limit_packets` frames and
    /// `limit_bytes` bytes, marking from `threshold` frames waiting on.
    pub fn new(threshold: u32, limit_packets: u32, limit_bytes: u64) -> EcnThreshold {
        EcnThreshold {
            fifo: DropTail::new(limit_packets, limit_bytes),
            threshold,
        }
    }
}

impl QueueDiscipline for EcnThreshold {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64, now: Nanos) -> Admission {
        self.fifo.enqueue(pkt, frame_bytes, now)
    }

    #[inline]
    fn enqueue_ecn(
        &mut self,
        pkt: PacketId,
        frame_bytes: u64,
        ecn_capable: bool,
        now: Nanos,
    ) -> Admission {
        let mark = ecn_capable && self.fifo.len() >= self.threshold as usize;
        match self.fifo.enqueue(pkt, frame_bytes, now) {
            Admission::Queued if mark => Admission::Marked,
            a => a,
        }
    }

    #[inline]
    fn dequeue(&mut self, now: Nanos) -> Option<PacketId> {
        self.fifo.dequeue(now)
    }

    counts_of_fifo!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_capable_frames_from_k_waiting_and_drops_only_when_full() {
        let mut q = EcnThreshold::new(2, 4, u64::MAX);
        let now = Nanos::ZERO;
        assert_eq!(q.enqueue_ecn(1, 1500, true, now), Admission::Queued);
        assert_eq!(q.enqueue_ecn(2, 1500, true, now), Admission::Queued);
        // Two waiting: K reached.
        assert_eq!(q.enqueue_ecn(3, 1500, true, now), Admission::Marked);
        assert_eq!(q.enqueue_ecn(4, 1500, false, now), Admission::Queued);
        // Full: both kinds are refused.
        assert_eq!(q.enqueue_ecn(5, 1500, true, now), Admission::DroppedFull);
        assert_eq!(q.enqueue_ecn(6, 1500, false, now), Admission::DroppedFull);
        assert_eq!(q.dequeue(now), Some(1));
        assert_eq!(q.dequeue(now), Some(2));
        assert_eq!(q.dequeue(now), Some(3));
        // One waiting, below K.
        assert_eq!(q.enqueue_ecn(7, 1500, true, now), Admission::Queued);
        assert_eq!(
            q.enqueue(8, 1500, now),
            Admission::Queued,
            "not ECN-capable"
        );
        assert_eq!((q.len(), q.peak_packets()), (3, 4));
    }
}
