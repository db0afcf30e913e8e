//! Clock offset between a rank's host and the gateway's, measured the NTP
//! way. A rank sends [`crate::Frame::ClockProbe`] stamped `t1` on its own
//! CLOCK_MONOTONIC; the gateway stamps `t2` when it reads the probe and `t3`
//! when it writes [`crate::Frame::ClockReply`]; the rank stamps `t4` when
//! it reads the reply. With a forward delay d₁, a return delay d₂ and a true
//! offset θ (gateway clock − rank clock):
//!
//! - offset estimate = ((t2 − t1) + (t3 − t4)) / 2 = θ + (d₁ − d₂) / 2
//! - round trip      = (t4 − t1) − (t3 − t2)       = d₁ + d₂
//!
//! Since |d₁ − d₂| ≤ d₁ + d₂, the estimate is within round trip / 2 of θ
//! whatever the asymmetry: that half round trip is the *uncertainty*. The
//! sample with the smallest round trip gives the tightest bound, so an
//! [`OffsetFilter`] keeps the latest few samples and uses the best one.

/// The four timestamps of one probe, ns (t1, t4 on the rank's clock; t2,
/// t3 on the gateway's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSample {
    /// Rank: probe written.
    pub t1_ns: u64,
    /// Gateway: probe read.
    pub t2_ns: u64,
    /// Gateway: reply written.
    pub t3_ns: u64,
    /// Rank: reply read.
    pub t4_ns: u64,
}

impl ClockSample {
    /// Estimated gateway clock − rank clock, ns.
    pub fn offset_ns(&self) -> i64 {
        let forward = self.t2_ns as i128 - self.t1_ns as i128;
        let back = self.t3_ns as i128 - self.t4_ns as i128;
        ((forward + back) / 2) as i64
    }

    /// Time the probe and its reply spent travelling (the gateway's
    /// turnaround excluded), ns.
    pub fn rtt_ns(&self) -> u64 {
        let total = self.t4_ns.saturating_sub(self.t1_ns);
        total.saturating_sub(self.t3_ns.saturating_sub(self.t2_ns))
    }

    /// The estimate this sample alone gives.
    pub fn estimate(&self) -> OffsetEstimate {
        OffsetEstimate {
            offset_ns: self.offset_ns(),
            uncertainty_ns: self.rtt_ns().div_ceil(2),
        }
    }
}

/// A clock offset and the bound on its error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OffsetEstimate {
    /// Gateway clock − rank clock, ns: gateway time ≈ rank time + offset.
    pub offset_ns: i64,
    /// The true offset lies within ± this, ns (half the sample's round trip).
    pub uncertainty_ns: u64,
}

impl OffsetEstimate {
    /// `rank_ns` on the rank's clock as a time on the gateway's clock.
    pub fn to_gateway_ns(&self, rank_ns: u64) -> u64 {
        (rank_ns as i128 + self.offset_ns as i128).max(0) as u64
    }
}

/// The latest samples of one rank; the estimate is the minimum-round-trip
/// sample among them (older samples drop out so that the estimate follows
/// a slowly drifting clock).
#[derive(Clone, Debug)]
pub struct OffsetFilter {
    samples: Vec<ClockSample>,
    window: usize,
}

impl OffsetFilter {
    /// Keeps the latest `window` (≥ 1) samples.
    pub fn new(window: usize) -> OffsetFilter {
        OffsetFilter {
            samples: Vec::with_capacity(window.max(1)),
            window: window.max(1),
        }
    }

    /// Adds a sample; a sample whose reply came before its probe left
    /// (t4 < t1) or that claims the gateway answered before asking
    /// (t3 < t2) is impossible and ignored.
    pub fn add(&mut self, s: ClockSample) {
        if s.t4_ns < s.t1_ns || s.t3_ns < s.t2_ns {
            return;
        }
        if self.samples.len() == self.window {
            self.samples.remove(0);
        }
        self.samples.push(s);
    }

    /// The best estimate, once there is a sample.
    pub fn best(&self) -> Option<OffsetEstimate> {
        self.samples
            .iter()
            .min_by_key(|s| s.rtt_ns())
            .map(ClockSample::estimate)
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True before the first sample.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One probe against a gateway whose clock reads `theta` ns more than
    /// the rank's, with forward delay `d1`, gateway turnaround `hold` and
    /// return delay `d2`, sent at rank time `t1`.
    fn probe(t1: u64, theta: i64, d1: u64, hold: u64, d2: u64) -> ClockSample {
        let t2 = (t1 as i64 + d1 as i64 + theta) as u64;
        let t3 = t2 + hold;
        let t4 = (t3 as i64 - theta) as u64 + d2;
        ClockSample {
            t1_ns: t1,
            t2_ns: t2,
            t3_ns: t3,
            t4_ns: t4,
        }
    }

    #[test]
    fn symmetric_delays_give_the_exact_offset() {
        // The gateway's clock is 3.5 s ahead; 40 µs each way, 7 µs turnaround.
        let s = probe(1_000_000_000, 3_500_000_000, 40_000, 7_000, 40_000);
        assert_eq!(s.offset_ns(), 3_500_000_000);
        assert_eq!(s.rtt_ns(), 80_000);
        assert_eq!(s.estimate().uncertainty_ns, 40_000);
    }

    #[test]
    fn asymmetric_delays_err_by_half_the_difference_within_the_bound() {
        // The gateway's clock is 2 ms *behind*; 1 ms + 30 µs forward (a
        // netem delay on the rank's side), 30 µs back.
        let theta = -2_000_000;
        let s = probe(50_000_000, theta, 1_030_000, 5_000, 30_000);
        let e = s.estimate();
        // θ + (d1 − d2)/2 = −2 ms + 0.5 ms.
        assert_eq!(e.offset_ns, theta + 500_000);
        assert_eq!(s.rtt_ns(), 1_060_000);
        assert_eq!(e.uncertainty_ns, 530_000);
        assert!((e.offset_ns - theta).unsigned_abs() <= e.uncertainty_ns);
        // Rank time 10 ms is gateway time 10 ms + offset.
        assert_eq!(e.to_gateway_ns(10_000_000), 8_500_000);
    }

    #[test]
    fn the_minimum_round_trip_sample_wins_and_old_ones_drop_out() {
        let theta = 123_456_789;
        let mut f = OffsetFilter::new(4);
        assert!(f.best().is_none());
        // Round trips 300, 100 (asymmetric: 90 forward, 10 back), 500 µs.
        f.add(probe(1_000_000, theta, 150_000, 1_000, 150_000));
        f.add(probe(2_000_000, theta, 90_000, 1_000, 10_000));
        f.add(probe(3_000_000, theta, 250_000, 1_000, 250_000));
        let best = f.best().unwrap();
        assert_eq!(best.offset_ns, theta + 40_000);
        assert_eq!(best.uncertainty_ns, 50_000);
        // Impossible samples are ignored.
        f.add(ClockSample {
            t1_ns: 10,
            t2_ns: 5,
            t3_ns: 6,
            t4_ns: 9,
        });
        assert_eq!(f.len(), 3);
        // Three more samples push the 100 µs one out of a window of four.
        for k in 0..3 {
            f.add(probe(4_000_000 + k, theta, 120_000, 1_000, 120_000));
        }
        assert_eq!(f.len(), 4);
        assert_eq!(
            f.best().unwrap(),
            OffsetEstimate {
                offset_ns: theta,
                uncertainty_ns: 120_000
            }
        );
    }
}
