//! How late the ranks' messages entered the network: the part of lateness
//! that reaches a run's results.
//!
//! maxBehind measures events against the wall clock. Since a rank's
//! emulated time stands still inside MPI calls and the gateway holds
//! events for the horizons of ranks on shared memory, an event that runs
//! behind its wall deadline changes nothing the program sees: a delivery
//! carries its stamp, and the rank's clock takes it. What does change the
//! results is a message that reaches the gateway after the simulator ran
//! events later than its stamp: it enters at the simulator's time instead
//! of its own, and everything after it moves. This recorder keeps that
//! lateness for every injection, punctual ones included (as 0), so its
//! percentiles say which share of the messages entered late and by how
//! much. (A test or probe that finds nothing is the other way lateness
//! can reach a program; it shows in the rank's `polls`.)

use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Collects the lateness of every injection.
pub struct InjectionLateness {
    hist: Histogram<u64>,
    late: u64,
    total_ns: u128,
    max_ns: u64,
}

/// The report's summary of [`InjectionLateness`], in scaled ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InjectionLatenessSummary {
    /// Messages the ranks sent into the network.
    pub injections: u64,
    /// Of those, the ones that entered after their stamp.
    pub late: u64,
    /// Mean lateness over all injections, ns: the error a message
    /// carries on average.
    pub mean_ns: u64,
    /// Median lateness over all injections, ns.
    pub p50_ns: u64,
    /// 99th percentile over all injections, ns.
    pub p99_ns: u64,
    /// Largest, ns.
    pub max_ns: u64,
}

impl Default for InjectionLateness {
    fn default() -> Self {
        InjectionLateness {
            // 0 (punctual) up to an hour, three significant digits.
            hist: Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
                .expect("valid histogram bounds"),
            late: 0,
            total_ns: 0,
            max_ns: 0,
        }
    }
}

impl InjectionLateness {
    /// Records one injection that entered `late_ns` after its stamp.
    pub fn record(&mut self, late_ns: u64) {
        if late_ns > 0 {
            self.late += 1;
            self.max_ns = self.max_ns.max(late_ns);
            self.total_ns += u128::from(late_ns);
        }
        let _ = self.hist.record(late_ns.min(self.hist.high()));
    }

    /// The summary so far.
    pub fn summary(&self) -> InjectionLatenessSummary {
        let q = |p: f64| {
            if self.hist.is_empty() {
                0
            } else {
                self.hist.value_at_quantile(p)
            }
        };
        InjectionLatenessSummary {
            injections: self.hist.len(),
            late: self.late,
            mean_ns: (self.total_ns / u128::from(self.hist.len().max(1))) as u64,
            p50_ns: q(0.5),
            p99_ns: q(0.99).min(self.max_ns),
            max_ns: self.max_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctual_injections_count_as_zero_in_the_percentiles() {
        let mut r = InjectionLateness::default();
        // 98 punctual, 2 late by 5 µs: the p99 is the 99th value, 5 µs.
        for _ in 0..98 {
            r.record(0);
        }
        r.record(5_000);
        r.record(7_000);
        let s = r.summary();
        assert_eq!(
            (s.injections, s.late, s.p50_ns, s.max_ns),
            (100, 2, 0, 7_000)
        );
        assert_eq!(s.mean_ns, 120);
        assert!((4_995..=5_005).contains(&s.p99_ns), "{s:?}");
        // With only one late in 100, the p99 is punctual.
        let mut one = InjectionLateness::default();
        for _ in 0..99 {
            one.record(0);
        }
        one.record(9_000);
        assert_eq!(one.summary().p99_ns, 0);
        assert_eq!(InjectionLateness::default().summary(), Default::default());
    }
}
