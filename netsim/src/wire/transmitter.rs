//! The sending side of one link direction: a queue discipline in front of
//! a serialiser running at the link rate.

use crate::wire::queue::{DropTail, QueueDiscipline};
use crate::wire::serialiser::Serialiser;

/// Output queue + wire of one port. The frame being serialised is not in
/// `queue`; the queue's limits count only frames waiting.
#[derive(Debug, Default)]
pub struct Transmitter<Q: QueueDiscipline = DropTail> {
    /// Frames waiting for the wire.
    pub queue: Q,
    /// The frame on the wire.
    pub wire: Serialiser,
}

impl Transmitter<DropTail> {
    /// An idle transmitter with a drop-tail queue of the given limits.
    pub fn new(limit_packets: u32, limit_bytes: u64) -> Transmitter {
        Transmitter {
            queue: DropTail::new(limit_packets, limit_bytes),
            wire: Serialiser::default(),
        }
    }
}

impl<Q: QueueDiscipline> Transmitter<Q> {
    /// True when no frame is on the wire or waiting.
    #[inline]
    pub fn is_idle(&self) -> bool {
        !self.wire.is_busy() && self.queue.is_empty()
    }
}
