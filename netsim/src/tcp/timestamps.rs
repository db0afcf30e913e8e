//! TCP timestamps (RFC 7323): each end's timestamp clock, the TS.Recent
//! it echoes, and round-trip samples taken from an echoed TSval (RTTM).
//!
//! The clock ticks once a microsecond of virtual time ([`TS_TICK_NS`]).
//! Linux's clock ticks once a millisecond (its `tcp_usec_ts` route
//! option, Linux 6.7, makes it a microsecond), but on the simulated
//! networks round trips are often tens of microseconds: a millisecond
//! clock would measure most of them as 0 or 1 ms, and RTTM would be no
//! better than no measurement. With 1 µs, a sample is the true round trip
//! rounded to the microsecond (exact when the round trip is a whole number
//! of microseconds). Each end's clock starts at an offset, its initial
//! sequence number, as Linux randomises the offset per connection; TSval
//! is never the same across connections by accident.

use crate::base::time::Nanos;
use crate::wire::packet::TcpTimestamps;

/// Nanoseconds of virtual time per tick of the timestamp clock: 1 µs.
pub const TS_TICK_NS: u64 = 1_000;

/// One end's timestamp state: its clock and TS.Recent, the newest TSval
/// from the peer that it echoes as TSecr.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimestampEnd {
    /// Both ends offered timestamps on the handshake.
    pub agreed: bool,
    offset: u32,
    recent: u32,
}

/// True when timestamp `a` is not older than `b` (modulo 2^32, RFC 7323
/// §5.2's comparison).
fn not_older(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

impl TimestampEnd {
    /// An end whose clock reads `offset` at virtual time zero.
    pub fn new(offset: u32) -> TimestampEnd {
        TimestampEnd {
            agreed: false,
            offset,
            recent: 0,
        }
    }

    /// The clock at `now`: microseconds of virtual time plus the offset,
    /// modulo 2^32.
    pub fn clock(&self, now: Nanos) -> u32 {
        ((now.0 / TS_TICK_NS) as u32).wrapping_add(self.offset)
    }

    /// The option of a SYN sent at `now` (TSecr 0: nothing to echo yet).
    pub fn syn_option(&self, now: Nanos) -> TcpTimestamps {
        TcpTimestamps {
            val: self.clock(now),
            ecr: 0,
        }
    }

    /// The option of a segment sent at `now` once timestamps are agreed:
    /// TSval the clock, TSecr TS.Recent; None otherwise.
    pub fn option(&self, now: Nanos) -> Option<TcpTimestamps> {
        self.agreed.then(|| TcpTimestamps {
            val: self.clock(now),
            ecr: self.recent,
        })
    }

    /// The peer's SYN or SYN-ACK arrived with `ts` (None: the peer does
    /// not do timestamps); `offered` says whether this end offers them.
    /// Agrees when both do, and starts TS.Recent at the peer's TSval.
    pub fn on_handshake(&mut self, offered: bool, ts: Option<TcpTimestamps>) {
        self.agreed = offered && ts.is_some();
        if let (true, Some(ts)) = (self.agreed, ts) {
            self.recent = ts.val;
        }
    }

    /// A segment arrived carrying `ts`; `in_window_edge` is RFC 7323
    /// §4.3's SEG.SEQ ≤ Last.ACK.sent (the segment starts at or below the
    /// edge this end last acknowledged, so an out-of-order segment cannot
    /// move TS.Recent and a delayed ACK echoes the oldest segment it
    /// acknowledges). TS.Recent never goes back.
    pub fn on_segment(&mut self, ts: Option<TcpTimestamps>, in_window_edge: bool) {
        if let (true, Some(ts), true) = (self.agreed, ts, in_window_edge) {
            if not_older(ts.val, self.recent) {
                self.recent = ts.val;
            }
        }
    }

    /// The round trip measured by an ACK echoing `ecr` at `now` (RFC 7323
    /// §4.1): the clock's advance since it read `ecr`, in nanoseconds.
    /// None when timestamps are off, for TSecr 0 (Linux ignores it, as a
    /// peer that echoes nothing) and for an echo from the future.
    pub fn rtt_sample(&self, now: Nanos, ecr: u32) -> Option<Nanos> {
        if !self.agreed || ecr == 0 {
            return None;
        }
        let ticks = self.clock(now).wrapping_sub(ecr);
        (ticks as i32 >= 0).then(|| Nanos(ticks as u64 * TS_TICK_NS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_ticks_in_microseconds_from_its_offset_and_wraps() {
        let e = TimestampEnd::new(u32::MAX - 1);
        assert_eq!(e.clock(Nanos(999)), u32::MAX - 1);
        assert_eq!(e.clock(Nanos(1_000)), u32::MAX);
        assert_eq!(e.clock(Nanos(3_500)), 1);
    }

    #[test]
    fn rtt_sample_is_the_clock_advance_since_the_echoed_value() {
        let mut e = TimestampEnd::new(u32::MAX - 10);
        e.on_handshake(true, Some(TcpTimestamps { val: 7, ecr: 0 }));
        let sent = e.option(Nanos(5_000)).unwrap().val;
        // 37.2 µs later on a clock that wrapped past zero in between.
        assert_eq!(e.rtt_sample(Nanos(42_200), sent), Some(Nanos(37_000)));
        assert_eq!(e.rtt_sample(Nanos(1_000), sent), None, "from the future");
        assert_eq!(e.rtt_sample(Nanos(9_000), 0), None);
    }

    #[test]
    fn ts_recent_moves_only_forward_and_only_at_the_edge() {
        let mut e = TimestampEnd::new(0);
        e.on_handshake(true, Some(TcpTimestamps { val: 100, ecr: 0 }));
        e.on_segment(Some(TcpTimestamps { val: 120, ecr: 1 }), false);
        assert_eq!(e.option(Nanos(0)).unwrap().ecr, 100, "out of order");
        e.on_segment(Some(TcpTimestamps { val: 130, ecr: 1 }), true);
        e.on_segment(Some(TcpTimestamps { val: 125, ecr: 1 }), true);
        assert_eq!(e.option(Nanos(0)).unwrap().ecr, 130, "never back");
    }

    #[test]
    fn no_agreement_when_either_end_does_not_offer() {
        let mut e = TimestampEnd::new(0);
        e.on_handshake(true, None);
        assert!(e.option(Nanos(0)).is_none());
        e.on_handshake(false, Some(TcpTimestamps { val: 1, ecr: 0 }));
        assert!(e.option(Nanos(0)).is_none());
    }
}
