//! Round-trip time estimation and retransmission timeout (RFC 6298).

use crate::base::time::Nanos;

/// Smoothed RTT, variance and the resulting RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    rto_min: u64,
    rto_max: u64,
    rto_initial: u64,
    backoff: u32,
}

impl RttEstimator {
    /// An estimator with no samples yet.
    pub fn new(rto_initial: Nanos, rto_min: Nanos, rto_max: Nanos) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            rto_min: rto_min.0,
            rto_max: rto_max.0,
            rto_initial: rto_initial.0,
            backoff: 0,
        }
    }

    /// Feeds one RTT measurement (never from a retransmitted segment).
    pub fn sample(&mut self, rtt: Nanos) {
        let r = rtt.0;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                let diff = s.abs_diff(r);
                self.rttvar = (3 * self.rttvar + diff) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.backoff = 0;
    }

    /// Doubles the timeout after it expired.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    /// Clears the backoff once new data is acknowledged.
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The current timeout.
    pub fn rto(&self) -> Nanos {
        let base = match self.srtt {
            None => self.rto_initial,
            Some(s) => (s + (4 * self.rttvar).max(1_000_000)).max(self.rto_min),
        };
        Nanos(base.saturating_mul(1u64 << self.backoff).min(self.rto_max))
    }

    /// Smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<Nanos> {
        self.srtt.map(Nanos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc6298_and_backs_off() {
        let mut e = RttEstimator::new(
            Nanos::from_secs(1),
            Nanos::from_millis(200),
            Nanos::from_secs(60),
        );
        assert_eq!(e.rto(), Nanos::from_secs(1));
        e.sample(Nanos::from_millis(100));
        // srtt 100 ms, rttvar 50 ms: 100 + 4*50 = 300 ms.
        assert_eq!(e.rto(), Nanos::from_millis(300));
        e.back_off();
        assert_eq!(e.rto(), Nanos::from_millis(600));
        e.sample(Nanos::from_millis(2));
        // Small RTTs are floored at rto_min.
        assert!(e.rto() >= Nanos::from_millis(200));
    }
}
