//! How late the real-time loop's timer wakes it: the wall time between the
//! deadline the loop armed and the moment it ran again. An event the
//! lookahead cannot run early waits for that wake-up, so its lateness
//! (maxBehind) cannot be smaller; on a microsecond network at a large
//! factor it is what the time factor must cover. Kept apart from the
//! events' lateness (which is in scaled time) because this is the host's
//! property, not the run's.

use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::Serialize;

/// The timer wake-ups of one run.
pub struct WakeupRecorder {
    hist: Histogram<u64>,
}

impl Default for WakeupRecorder {
    fn default() -> WakeupRecorder {
        WakeupRecorder {
            // 1 ns to 10 s, 3 significant digits.
            hist: Histogram::new_with_bounds(1, 10_000_000_000, 3)
                .expect("constant histogram bounds are valid"),
        }
    }
}

impl WakeupRecorder {
    /// The timer armed for `deadline_ns` woke the loop at `now_ns` (both
    /// CLOCK_MONOTONIC).
    pub fn woke(&mut self, deadline_ns: u64, now_ns: u64) {
        let late = now_ns.saturating_sub(deadline_ns).max(1);
        self.hist.saturating_record(late);
    }

    /// What the report says of them.
    pub fn summary(&self) -> WakeupSummary {
        let at = |q: f64| {
            if self.hist.is_empty() {
                None
            } else {
                Some(self.hist.value_at_quantile(q))
            }
        };
        WakeupSummary {
            wakeups: self.hist.len(),
            p50_ns: at(0.5),
            p99_ns: at(0.99),
            max_ns: at(1.0),
        }
    }
}

/// The loop's timer wake-ups: how long after its deadline the loop ran,
/// wall ns (null when the timer never fired).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WakeupSummary {
    /// Wake-ups by the timer.
    pub wakeups: u64,
    /// Median delay, wall ns.
    pub p50_ns: Option<u64>,
    /// 99th percentile, wall ns.
    pub p99_ns: Option<u64>,
    /// Largest, wall ns.
    pub max_ns: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_measured_from_the_deadline_and_summarised() {
        let mut w = WakeupRecorder::default();
        assert_eq!(w.summary().p50_ns, None);
        // 99 wake-ups 2 µs late and one 1 ms late.
        for i in 0..99 {
            w.woke(1_000_000 * i, 1_000_000 * i + 2_000);
        }
        w.woke(500_000_000, 501_000_000);
        let s = w.summary();
        assert_eq!(s.wakeups, 100);
        // Histogram buckets keep 3 significant digits.
        assert_eq!(s.p50_ns, Some(2_000));
        assert_eq!(s.p99_ns, Some(2_000));
        let max = s.max_ns.unwrap();
        assert!((1_000_000..1_001_000).contains(&max), "{max}");
        // A wake-up before its deadline (clock granularity) counts as 1 ns.
        w.woke(10, 5);
        assert_eq!(w.summary().wakeups, 101);
    }
}
