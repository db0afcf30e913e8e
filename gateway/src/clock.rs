//! The job's clock: CLOCK_MONOTONIC nanoseconds shared by the gateway and
//! every rank on this host, and the map between wall time and scaled real
//! time (SRT) that the time factor defines.

use nix::time::{clock_gettime, ClockId};

/// CLOCK_MONOTONIC now, in nanoseconds.
pub fn monotonic_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always available");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// Wall time = epoch + factor × SRT.
#[derive(Clone, Copy, Debug)]
pub struct TimeMap {
    /// CLOCK_MONOTONIC of SRT zero, ns.
    pub epoch_ns: u64,
    /// Time factor (≥ 1).
    pub factor: f64,
}

impl TimeMap {
    /// SRT corresponding to monotonic time `wall_ns` (0 before the epoch).
    pub fn srt(&self, wall_ns: u64) -> u64 {
        (wall_ns.saturating_sub(self.epoch_ns) as f64 / self.factor) as u64
    }

    /// Monotonic wall time at which SRT `v` is reached.
    pub fn deadline(&self, v_ns: u64) -> u64 {
        self.epoch_ns + (v_ns as f64 * self.factor).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srt_and_deadline_invert() {
        let m = TimeMap {
            epoch_ns: 1_000,
            factor: 4.0,
        };
        assert_eq!(m.deadline(250), 2_000);
        assert_eq!(m.srt(2_000), 250);
        assert_eq!(m.srt(500), 0);
        let a = monotonic_ns();
        assert!(monotonic_ns() >= a);
    }
}
