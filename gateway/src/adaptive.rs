//! The adaptive time factor (`run --time-factor auto`, the MPI-NeTSim
//! paper's future work): watch how late simulation events run, raise the
//! factor when lateness grows, lower it in quiet phases. Every decision is
//! a switch at an SRT instant a little in the future, announced to every
//! rank, so the gateway and all ranks change at the same instant and
//! scaled time stays continuous.
//!
//! Rule, per window of wall time: if the latest event lateness in the
//! window exceeded `raise_above` (scaled time), double the factor (up to
//! `max`); if `calm_windows` windows in a row stayed under a quarter of it,
//! halve the factor (down to `min`).

use schemars::JsonSchema;
use serde::Serialize;

/// The controller's parameters.
#[derive(Clone, Debug)]
pub struct AdaptivePolicy {
    /// Smallest factor.
    pub min: f64,
    /// Largest factor.
    pub max: f64,
    /// Lateness (SRT ns) that calls for a larger factor.
    pub raise_above_ns: u64,
    /// Length of a window, wall ns.
    pub window_ns: u64,
    /// Quiet windows in a row before the factor is lowered.
    pub calm_windows: u32,
    /// How far ahead (wall ns) a switch is scheduled; larger than the
    /// delivery lookahead, so no rank is mid-wait on the old clock.
    pub lead_wall_ns: u64,
}

impl Default for AdaptivePolicy {
    fn default() -> Self {
        AdaptivePolicy {
            min: 1.0,
            max: 256.0,
            raise_above_ns: 100_000,
            window_ns: 20_000_000,
            calm_windows: 10,
            lead_wall_ns: 2_000_000,
        }
    }
}

/// One switch of the factor.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, JsonSchema)]
pub struct FactorChange {
    /// Scaled time of the switch, s.
    pub at_srt_s: f64,
    /// The factor from then on.
    pub factor: f64,
}

/// The controller's state.
#[derive(Debug)]
pub struct AdaptiveController {
    policy: AdaptivePolicy,
    factor: f64,
    window_start_ns: u64,
    window_max_late_ns: u64,
    calm: u32,
}

impl AdaptiveController {
    /// Starts at `factor` at wall time `now`.
    pub fn new(policy: AdaptivePolicy, factor: f64, now_ns: u64) -> Self {
        AdaptiveController {
            policy,
            factor,
            window_start_ns: now_ns,
            window_max_late_ns: 0,
            calm: 0,
        }
    }

    /// An event ran `late_ns` of scaled time late.
    pub fn observe(&mut self, late_ns: u64) {
        self.window_max_late_ns = self.window_max_late_ns.max(late_ns);
    }

    /// The policy.
    pub fn policy(&self) -> &AdaptivePolicy {
        &self.policy
    }

    /// At wall time `now`: the new factor if the window just ended calls
    /// for one.
    pub fn decide(&mut self, now_ns: u64) -> Option<f64> {
        if now_ns < self.window_start_ns + self.policy.window_ns {
            return None;
        }
        let late = std::mem::take(&mut self.window_max_late_ns);
        self.window_start_ns = now_ns;
        let next = if late > self.policy.raise_above_ns {
            self.calm = 0;
            (self.factor * 2.0).min(self.policy.max)
        } else if late < self.policy.raise_above_ns / 4 {
            self.calm += 1;
            if self.calm >= self.policy.calm_windows {
                self.calm = 0;
                (self.factor / 2.0).max(self.policy.min)
            } else {
                self.factor
            }
        } else {
            self.calm = 0;
            self.factor
        };
        if next != self.factor {
            self.factor = next;
            Some(next)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raises_on_lateness_and_lowers_after_quiet_windows() {
        let p = AdaptivePolicy {
            calm_windows: 3,
            ..AdaptivePolicy::default()
        };
        let w = p.window_ns;
        let mut c = AdaptiveController::new(p, 2.0, 0);
        c.observe(500_000);
        assert_eq!(c.decide(w / 2), None, "the window is not over");
        assert_eq!(c.decide(w), Some(4.0));
        c.observe(1_000_000);
        assert_eq!(c.decide(2 * w), Some(8.0));
        // Quiet: three windows under 25 us, then halve.
        assert_eq!(c.decide(3 * w), None);
        c.observe(10_000);
        assert_eq!(c.decide(4 * w), None);
        assert_eq!(c.decide(5 * w), Some(4.0));
        // In between (50 us): neither.
        for k in 6..20 {
            c.observe(50_000);
            assert_eq!(c.decide(k * w), None);
        }
    }
}
