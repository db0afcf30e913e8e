//! The wire end of one link direction: at most one frame at a time is
//! being serialised, for its wire length at the link's rate.

use crate::base::time::{serialization_time, Nanos};
use crate::wire::packet::PacketId;

/// The frame on the wire, if any.
#[derive(Debug, Default)]
pub struct Serialiser {
    on_wire: Option<PacketId>,
}

impl Serialiser {
    /// True while a frame is being serialised.
    #[inline]
    pub fn is_busy(&self) -> bool {
        self.on_wire.is_some()
    }

    /// Puts `pkt` of `wire_bytes` (preamble and gap included) on an idle
    /// wire at `rate_bps`; how long it takes.
    #[inline]
    pub fn start(&mut self, pkt: PacketId, wire_bytes: u64, rate_bps: u64) -> Nanos {
        debug_assert!(self.on_wire.is_none(), "the wire is busy");
        self.on_wire = Some(pkt);
        serialization_time(wire_bytes, rate_bps)
    }

    /// The frame whose serialisation ended (or that a dead link lost),
    /// leaving the wire idle.
    #[inline]
    pub fn finish(&mut self) -> Option<PacketId> {
        self.on_wire.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_frame_at_a_time_for_its_wire_time() {
        let mut s = Serialiser::default();
        assert!(!s.is_busy());
        // 1538 wire bytes at 1 Gb/s: 12304 ns.
        assert_eq!(s.start(7, 1538, 1_000_000_000), Nanos(12_304));
        assert!(s.is_busy());
        assert_eq!(s.finish(), Some(7));
        assert_eq!(s.finish(), None);
    }
}
