//! Queue disciplines: what a port does with a frame that finds its
//! serialiser busy — keep it, and in which order it leaves, or drop it.
//! Each discipline is a file implementing [`QueueDiscipline`] (drop-tail
//! FIFO, RED and ECN threshold marking today; priority queues would be
//! further files), [`PortQueue`] chooses one per port as the network file's
//! `queue` key says, and a [`crate::wire::transmitter::Transmitter`] puts
//! it in front of its [`crate::wire::serialiser::Serialiser`].

/// The [`QueueDiscipline`] counters of a discipline that keeps its frames
/// in a [`DropTail`] field `fifo` and only decides what enters it: they
/// are the FIFO's.
macro_rules! counts_of_fifo {
    () => {
        #[inline]
        fn len(&self) -> usize {
            self.fifo.len()
        }

        fn queued_bytes(&self) -> u64 {
            self.fifo.queued_bytes()
        }

        #[inline]
        fn room(&self) -> usize {
            self.fifo.room()
        }

        fn peak_packets(&self) -> u32 {
            self.fifo.peak_packets()
        }

        fn peak_bytes(&self) -> u64 {
            self.fifo.peak_bytes()
        }
    };
}

mod drop_tail;
mod ecn_threshold;
mod red;

pub use drop_tail::DropTail;
pub use ecn_threshold::EcnThreshold;
pub use red::Red;

use crate::base::time::Nanos;
use crate::wire::packet::PacketId;

/// What a discipline did with an arriving frame: the two ways to drop one
/// are counted apart (`drops_early` and `drops_queue` in the statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The frame waits for the wire.
    Queued,
    /// The frame waits for the wire, marked Congestion Experienced (an
    /// ECN-marking discipline's answer where it would otherwise signal
    /// congestion by a drop; counted in `ecn_marks`).
    Marked,
    /// Dropped before the queue was full, by the discipline's choice
    /// (RED's early drop).
    DroppedEarly,
    /// Dropped because the queue's packet or byte limit was reached.
    DroppedFull,
}

impl Admission {
    /// True when the frame was kept (marked or not).
    pub fn is_queued(self) -> bool {
        matches!(self, Admission::Queued | Admission::Marked)
    }
}

/// The frames waiting at one port for the wire.
pub trait QueueDiscipline {
    /// Offers a frame of `frame_bytes` arriving at `now`; says whether the
    /// discipline keeps it, and if not, why.
    fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64, now: Nanos) -> Admission;

    /// [`QueueDiscipline::enqueue`] for a frame whose IPv4 ECN field is
    /// ECT or CE when `ecn_capable` (RFC 3168): a marking discipline may
    /// answer [`Admission::Marked`] for it. Disciplines that do not mark
    /// treat it as any frame.
    fn enqueue_ecn(
        &mut self,
        pkt: PacketId,
        frame_bytes: u64,
        ecn_capable: bool,
        now: Nanos,
    ) -> Admission {
        let _ = ecn_capable;
        self.enqueue(pkt, frame_bytes, now)
    }

    /// The frame to serialise next, taken at `now`.
    fn dequeue(&mut self, now: Nanos) -> Option<PacketId>;

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

/// The discipline of one port, as its link's `queue` key chose it.
#[derive(Debug)]
pub enum PortQueue {
    /// `queue = "droptail"` (the default).
    DropTail(DropTail),
    /// `queue = "red"`.
    Red(Box<Red>),
    /// `queue = "ecn-threshold"`.
    EcnThreshold(EcnThreshold),
}

impl Default for PortQueue {
    fn default() -> PortQueue {
        PortQueue::DropTail(DropTail::default())
    }
}

macro_rules! each {
    ($self:expr, $q:ident => $e:expr) => {
        match $self {
            PortQueue::DropTail($q) => $e,
            PortQueue::Red($q) => $e,
            PortQueue::EcnThreshold($q) => $e,
        }
    };
}

impl QueueDiscipline for PortQueue {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, frame_bytes: u64, now: Nanos) -> Admission {
        each!(self, q => q.enqueue(pkt, frame_bytes, now))
    }

    #[inline]
    fn enqueue_ecn(
        &mut self,
        pkt: PacketId,
        frame_bytes: u64,
        ecn_capable: bool,
        now: Nanos,
    ) -> Admission {
        each!(self, q => q.enqueue_ecn(pkt, frame_bytes, ecn_capable, now))
    }

    #[inline]
    fn dequeue(&mut self, now: Nanos) -> Option<PacketId> {
        each!(self, q => q.dequeue(now))
    }

    #[inline]
    fn len(&self) -> usize {
        each!(self, q => q.len())
    }

    fn queued_bytes(&self) -> u64 {
        each!(self, q => q.queued_bytes())
    }

    #[inline]
    fn room(&self) -> usize {
        each!(self, q => q.room())
    }

    fn peak_packets(&self) -> u32 {
        each!(self, q => q.peak_packets())
    }

    fn peak_bytes(&self) -> u64 {
        each!(self, q => q.peak_bytes())
    }
}
