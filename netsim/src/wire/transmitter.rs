//! The sending side of one link direction: a queue discipline in front of
//! a serialiser running at the link rate.

use crate::config::QueueKind;
use crate::topology::graph::LinkParams;
use crate::wire::queue::{DropTail, EcnThreshold, PortQueue, QueueDiscipline, Red};
use crate::wire::serialiser::Serialiser;

/// Output queue + wire of one port. The frame being serialised is not in
/// `queue`; the queue's limits count only frames waiting.
#[derive(Debug, Default)]
pub struct Transmitter<Q: QueueDiscipline = PortQueue> {
    /// Frames waiting for the wire.
    pub queue: Q,
    /// The frame on the wire.
    pub wire: Serialiser,
}

impl Transmitter<PortQueue> {
    /// An idle transmitter with the queue discipline and limits of a link
    /// with `params`; `seed` seeds a discipline that draws random numbers.
    pub fn new(params: &LinkParams, seed: u64) -> Transmitter {
        let queue = match params.queue {
            QueueKind::DropTail => {
                PortQueue::DropTail(DropTail::new(params.queue_packets, params.queue_bytes))
            }
            QueueKind::Red => PortQueue::Red(Box::new(Red::new(
                params.red,
                params.queue_packets,
                params.queue_bytes,
                packet_time_ns(params),
                seed,
            ))),
            QueueKind::EcnThreshold => PortQueue::EcnThreshold(EcnThreshold::new(
                params.ecn_threshold,
                params.queue_packets,
                params.queue_bytes,
            )),
        };
        Transmitter {
            queue,
            wire: Serialiser::default(),
        }
    }
}

/// The time the link takes to send one MTU-sized packet, ns (0 at an
/// unlimited rate): RED's unit of idle time.
fn packet_time_ns(params: &LinkParams) -> u64 {
    (u64::from(params.mtu) * 8 * 1_000_000_000)
        .checked_div(params.rate_bps)
        .unwrap_or(0)
}

impl<Q: QueueDiscipline> Transmitter<Q> {
    /// True when no frame is on the wire or waiting.
    #[inline]
    pub fn is_idle(&self) -> bool {
        !self.wire.is_busy() && self.queue.is_empty()
    }
}
