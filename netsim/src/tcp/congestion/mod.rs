//! Congestion control behind one trait, one file per algorithm. The
//! connection reports what the network told it (new data acknowledged,
//! duplicate ACKs, partial and full ACKs in recovery, a timeout) and sends
//! no more than [`CongestionControl::cwnd`] allows.

mod cubic;
mod newreno;
mod window;

use crate::base::time::Nanos;
pub use cubic::{Cubic, CUBIC_BETA, CUBIC_C, RENO_FRIENDLY_ALPHA};
pub use newreno::NewReno;
pub use window::Window;

/// Which algorithm the senders use (the simulator maps `[tcp]
/// congestion` onto it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CongestionAlgorithm {
    /// NewReno (RFC 5681, RFC 6582): halve on loss, one segment per round
    /// trip after.
    #[default]
    NewReno,
    /// CUBIC (RFC 9438), Linux's default: reduce to 0.7 on loss, regrow
    /// along a cubic curve in time.
    Cubic,
}

/// The algorithm every connection's sender uses: an enum of the concrete
/// algorithms rather than a generic parameter of the connection or a
/// trait object (with `TcpConnection<C: CongestionControl>` the pingpong
/// bench ran about 12 % fewer events per second, same instruction count
/// under cachegrind, so code placement; see docs/performance.md).
#[derive(Clone, Debug)]
pub enum Congestion {
    /// NewReno's state.
    NewReno(NewReno),
    /// CUBIC's state.
    Cubic(Cubic),
}

impl Congestion {
    /// A sender of `algorithm` in slow start with `initial_segments` × MSS.
    pub fn new(algorithm: CongestionAlgorithm, mss: u64, initial_segments: u32) -> Congestion {
        match algorithm {
            CongestionAlgorithm::NewReno => {
                Congestion::NewReno(NewReno::new(mss, initial_segments))
            }
            CongestionAlgorithm::Cubic => Congestion::Cubic(Cubic::new(mss, initial_segments)),
        }
    }
}

/// Calls the same method on whichever algorithm `$cc` holds (a match,
/// so each call is direct).
macro_rules! on_algorithm {
    ($cc:expr, $c:ident => $call:expr) => {
        match $cc {
            Congestion::NewReno($c) => $call,
            Congestion::Cubic($c) => $call,
        }
    };
}

impl CongestionControl for Congestion {
    fn cwnd(&self) -> u64 {
        on_algorithm!(self, c => c.cwnd())
    }
    fn in_recovery(&self) -> bool {
        on_algorithm!(self, c => c.in_recovery())
    }
    fn recovery_point(&self) -> u64 {
        on_algorithm!(self, c => c.recovery_point())
    }
    fn set_mss(&mut self, mss: u64, initial_segments: u32) {
        on_algorithm!(self, c => c.set_mss(mss, initial_segments))
    }
    fn on_ack(&mut self, acked: u64, now: Nanos, srtt: Option<Nanos>) {
        on_algorithm!(self, c => c.on_ack(acked, now, srtt))
    }
    fn on_triple_dupack(&mut self, flight: u64, snd_max: u64) {
        on_algorithm!(self, c => c.on_triple_dupack(flight, snd_max))
    }
    fn on_sack_recovery(&mut self, flight: u64, snd_max: u64) {
        on_algorithm!(self, c => c.on_sack_recovery(flight, snd_max))
    }
    fn on_extra_dupack(&mut self) {
        on_algorithm!(self, c => c.on_extra_dupack())
    }
    fn on_partial_ack(&mut self, acked: u64) {
        on_algorithm!(self, c => c.on_partial_ack(acked))
    }
    fn on_full_ack(&mut self, flight_after: u64) {
        on_algorithm!(self, c => c.on_full_ack(flight_after))
    }
    fn on_timeout(&mut self, flight: u64, snd_max: u64) {
        on_algorithm!(self, c => c.on_timeout(flight, snd_max))
    }
    fn on_ecn_echo(&mut self) {
        on_algorithm!(self, c => c.on_ecn_echo())
    }
}

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

    /// `acked` bytes of new data acknowledged outside recovery at `now`,
    /// the smoothed round trip being `srtt` (None before a sample).
    fn on_ack(&mut self, acked: u64, now: Nanos, srtt: Option<Nanos>);

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

    /// An ECN-Echo (RFC 3168 §6.1.2), at most once a window and never
    /// during recovery: reduce the window as for a loss — the threshold
    /// the algorithm picks at a loss, the window set to it — without
    /// entering recovery (nothing is retransmitted).
    fn on_ecn_echo(&mut self);
}
