//! Keeping this rank's clock on the gateway's: probe rounds (see
//! `mpinetsim_protocol::ClockSample`), the best recent sample as the
//! offset, and when to measure again. At MPI_Init the connection runs
//! [`INITIAL_PROBES`] probes back to back; afterwards a round of
//! [`PROBES_PER_ROUND`] probes starts at the first MPI call after
//! [`ROUND_EVERY_NS`] of wall time, each probe sent when the previous
//! reply is read, so the program never waits for them.

use mpinetsim_protocol::{ClockSample, OffsetEstimate, OffsetFilter};
use std::sync::atomic::{AtomicU64, Ordering};

/// Probes at MPI_Init.
pub const INITIAL_PROBES: u32 = 8;
/// Probes per periodic round.
pub const PROBES_PER_ROUND: u32 = 4;
/// Wall time between periodic rounds, ns.
pub const ROUND_EVERY_NS: u64 = 1_000_000_000;
/// Samples the estimate is chosen from (the latest two rounds).
pub const WINDOW: usize = 8;

/// When the next round is due (CLOCK_MONOTONIC ns); read at every MPI call
/// without taking a lock.
static NEXT_ROUND_NS: AtomicU64 = AtomicU64::new(u64::MAX);

/// True when a periodic round should start.
pub fn round_due(now_ns: u64) -> bool {
    now_ns >= NEXT_ROUND_NS.load(Ordering::Relaxed)
}

/// The probe state of the connection.
#[derive(Debug)]
pub struct ClockSync {
    filter: OffsetFilter,
    /// t1 of the probe in flight.
    outstanding: Option<u64>,
    /// Probes still to send in this round after the outstanding one.
    left_in_round: u32,
    reported: Option<OffsetEstimate>,
}

impl Default for ClockSync {
    fn default() -> Self {
        ClockSync {
            filter: OffsetFilter::new(WINDOW),
            outstanding: None,
            left_in_round: 0,
            reported: None,
        }
    }
}

impl ClockSync {
    /// Starts a probe sent at `t1_ns`; returns false when one is in flight.
    pub fn start_probe(&mut self, t1_ns: u64, more_after: u32) -> bool {
        if self.outstanding.is_some() {
            return false;
        }
        self.outstanding = Some(t1_ns);
        self.left_in_round = more_after;
        NEXT_ROUND_NS.store(u64::MAX, Ordering::Relaxed);
        true
    }

    /// A reply read at `t4_ns`. Returns whether another probe of the round
    /// should be sent now. A reply to no probe in flight is ignored.
    pub fn on_reply(&mut self, t1_ns: u64, t2_ns: u64, t3_ns: u64, t4_ns: u64) -> bool {
        if self.outstanding != Some(t1_ns) {
            return false;
        }
        self.outstanding = None;
        self.filter.add(ClockSample {
            t1_ns,
            t2_ns,
            t3_ns,
            t4_ns,
        });
        if self.left_in_round > 0 {
            self.left_in_round -= 1;
            return true;
        }
        NEXT_ROUND_NS.store(t4_ns.saturating_add(ROUND_EVERY_NS), Ordering::Relaxed);
        false
    }

    /// True while a probe is in flight.
    pub fn probing(&self) -> bool {
        self.outstanding.is_some()
    }

    /// The best estimate, if it differs from the one last reported (then
    /// it counts as reported).
    pub fn take_new_estimate(&mut self) -> Option<OffsetEstimate> {
        let best = self.filter.best()?;
        if self.reported == Some(best) {
            return None;
        }
        self.reported = Some(best);
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_chains_its_probes_and_reports_only_changes() {
        let mut s = ClockSync::default();
        // Gateway 1 ms ahead; 20 µs each way.
        let reply = |s: &mut ClockSync, t1: u64, rtt: u64| {
            s.on_reply(
                t1,
                t1 + rtt / 2 + 1_000_000,
                t1 + rtt / 2 + 1_000_000,
                t1 + rtt,
            )
        };
        assert!(s.start_probe(100, 1));
        assert!(!s.start_probe(101, 0), "one probe in flight at a time");
        assert!(!s.on_reply(99, 0, 0, 0), "a stray reply is ignored");
        assert!(reply(&mut s, 100, 40_000), "one more in this round");
        let e = s.take_new_estimate().unwrap();
        assert_eq!((e.offset_ns, e.uncertainty_ns), (1_000_000, 20_000));
        assert!(s.start_probe(200_000, 0));
        assert!(!reply(&mut s, 200_000, 60_000), "the round is over");
        // The 40 µs sample is still the best: nothing new to report.
        assert_eq!(s.take_new_estimate(), None);
        assert!(!round_due(200_000 + 60_000 + ROUND_EVERY_NS - 1));
        assert!(round_due(200_000 + 60_000 + ROUND_EVERY_NS));
    }
}
