//! Congestion control behind one trait, one file per algorithm. The
//! connection reports what the network told it (new data acknowledged,
//! duplicate ACKs, partial and full ACKs in recovery, a timeout) and sends
//! no more than [`CongestionControl::cwnd`] allows.

mod newreno;

pub use newreno::NewReno;

/// The algorithm every connection's sender uses. A concrete type rather
/// than a generic parameter of the connection or a trait object: with
/// `TcpConnection<C: CongestionControl>` the pingpong bench ran about 12 %
/// fewer events per second (same instruction count under cachegrind, so
/// code placement), see docs/performance.md. Another algorithm is a new
/// file implementing [`CongestionControl`] and this alias (or an enum of
/// the algorithms, when the configuration is to choose).
pub type Congestion = NewReno;

/// A sender's congestion window, in bytes, and how ACKs and losses move
/// it. The connection detects the events (RFC 5681's duplicate-ACK count,
/// RFC 6582's recovery point) and calls these hooks.
pub trait CongestionControl: std::fmt::Debug {
    /// The congestion window in bytes.
    fn cwnd(&self) -> u64;

    /// True while in fast recovery.
    fn in_recovery(&self) -> bool;

    /// The highest stream offset sent when recovery (or the last timeout)
    /// began; an ACK reaching it ends recovery.
    fn recovery_point(&self) -> u64;

    /// The segment size changed (the handshake agreed on one): restart
    /// the window at `initial_segments` × MSS.
    fn set_mss(&mut self, mss: u64, initial_segments: u32);

    /// `acked` bytes of new data acknowledged outside recovery.
    fn on_ack(&mut self, acked: u64);

    /// The third duplicate ACK with `flight` bytes outstanding and
    /// `snd_max` the highest offset sent: enter fast recovery.
    fn on_triple_dupack(&mut self, flight: u64, snd_max: u64);

    /// Loss detected by a SACK-capable sender (RFC 6675 step 4.2) with
    /// `flight` bytes outstanding and `snd_max` the highest offset sent:
    /// enter recovery with the window at the new slow-start threshold,
    /// not inflated (the sender counts the bytes in the network itself).
    /// Partial ACKs and further duplicate ACKs of that recovery are not
    /// reported; the ACK reaching the recovery point is
    /// ([`CongestionControl::on_full_ack`]).
    fn on_sack_recovery(&mut self, flight: u64, snd_max: u64);

    /// A further duplicate ACK during recovery.
    fn on_extra_dupack(&mut self);

    /// An ACK of `acked` new bytes during recovery that stops short of the
    /// recovery point.
    fn on_partial_ack(&mut self, acked: u64);

    /// The ACK reaching the recovery point; `flight_after` bytes remain
    /// outstanding.
    fn on_full_ack(&mut self, flight_after: u64);

    /// The retransmission timer expired with `flight` bytes outstanding.
    fn on_timeout(&mut self, flight: u64, snd_max: u64);
}
