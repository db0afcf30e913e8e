//! Queue disciplines: what a port does with a frame that finds its
//! serialiser busy — keep it, and in which order it leaves, or drop it.
//! Each discipline is a file implementing [`QueueDiscipline`] (drop-tail
//! FIFO today; ECN marking or priority queues would be further files), and
//! a [`crate::wire::transmitter::Transmitter`] puts one in front of its
//! [`crate::wire::serialiser::Serialiser`].

mod drop_tail;

pub use drop_tail::DropTail;

use crate::wire::packet::PacketId;

/// The frames waiting at one port for the wire.
pub trait QueueDiscipline {
    /// Offers a frame of `frame_bytes`; false when the discipline drops it.
    fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64) -> bool;

    /// The frame to serialise next.
    fn dequeue(&mut self) -> Option<PacketId>;

    /// Frames waiting.
    fn len(&self) -> usize;

    /// True when nothing waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the frames waiting.
    fn queued_bytes(&self) -> u64;

    /// Frames a local sender may still add before the queue refuses one
    /// (how TCP small queues throttle a host's connections).
    fn room(&self) -> usize;

    /// Highest number of frames waiting at once.
    fn peak_packets(&self) -> u32;

    /// Highest number of frame bytes waiting at once.
    fn peak_bytes(&self) -> u64;
}
