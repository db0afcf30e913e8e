//! The job's clock: CLOCK_MONOTONIC nanoseconds shared by the gateway and
//! every rank on this host, and the map between wall time and scaled real
//! time (SRT) that the time factor — fixed, or changed during an adaptive
//! run — defines (`mpinetsim_protocol::ScaledClock`).

use mpinetsim_protocol::ScaledClock;
use nix::time::{clock_gettime, ClockId};

/// CLOCK_MONOTONIC now, in nanoseconds.
pub fn monotonic_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always available");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// Where the gateway's core reads the wall clock: CLOCK_MONOTONIC in the
/// real loop ([`Monotonic`]), a clock the test sets in the core's unit
/// tests, so every decision the loop makes can be replayed without
/// processes or sleeps.
pub trait WallClock {
    /// The wall clock now, ns (CLOCK_MONOTONIC's scale: the ranks read the
    /// same clock).
    fn now_ns(&self) -> u64;
}

/// The host's CLOCK_MONOTONIC, the clock of a real job.
#[derive(Clone, Copy, Debug, Default)]
pub struct Monotonic;

impl WallClock for Monotonic {
    fn now_ns(&self) -> u64 {
        monotonic_ns()
    }
}

/// Wall time ↔ SRT for the gateway.
#[derive(Clone, Debug)]
pub struct TimeMap {
    /// The job's clock (the ranks keep identical copies).
    pub clock: ScaledClock,
}

impl TimeMap {
    /// SRT zero at `epoch_ns`, at `factor`.
    pub fn new(epoch_ns: u64, factor: f64) -> TimeMap {
        TimeMap {
            clock: ScaledClock::new(epoch_ns, factor),
        }
    }

    /// SRT corresponding to monotonic time `wall_ns` (0 before the epoch).
    pub fn srt(&self, wall_ns: u64) -> u64 {
        self.clock.srt(wall_ns)
    }

    /// Monotonic wall time at which SRT `v` is reached.
    pub fn deadline(&self, v_ns: u64) -> u64 {
        self.clock.wall(v_ns)
    }

    /// The factor in force at SRT `v`.
    pub fn factor_at(&self, v_ns: u64) -> f64 {
        self.clock.factor_at(v_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srt_and_deadline_invert() {
        let m = TimeMap::new(1_000, 4.0);
        assert_eq!(m.deadline(250), 2_000);
        assert_eq!(m.srt(2_000), 250);
        assert_eq!(m.srt(500), 0);
        let a = monotonic_ns();
        assert!(monotonic_ns() >= a);
    }
}
