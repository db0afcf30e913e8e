//! Watching the frames that cross ports without the simulator's event
//! handlers knowing who watches: the simulator tells a [`PortObserver`] of
//! every frame that starts leaving a port, every frame that arrives at one,
//! and every network event; the observer decides which ports it is
//! attached to and what it records (the packet captures,
//! [`crate::wire::capture::PortCaptures`], are one).

use crate::base::ids::PortId;
use crate::base::time::Nanos;
use crate::wire::packet::Packet;

/// Something attached to ports that sees the frames crossing them.
pub trait PortObserver {
    /// `pkt` starts serialising out of `port` at `now`.
    fn departed(&mut self, port: PortId, now: Nanos, pkt: &mut Packet);

    /// The last bit of `pkt` arrived at `port` at `now`.
    fn arrived(&mut self, port: PortId, now: Nanos, pkt: &mut Packet);

    /// A network event happened at `now` (a fault, a route change), as one
    /// line.
    fn note(&mut self, now: Nanos, line: &str);
}
