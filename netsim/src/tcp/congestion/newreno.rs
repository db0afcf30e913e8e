//! NewReno congestion control (RFC 5681 + RFC 6582), in bytes.

use super::CongestionControl;

/// Congestion window state of one sender.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
    mss: u64,
    acked_in_ca: u64,
    /// In fast recovery until `recover` is acknowledged.
    pub in_recovery: bool,
    /// Highest sequence sent when recovery began.
    pub recover: u64,
}

impl NewReno {
    /// Starts in slow start with `initial_segments` × MSS.
    pub fn new(mss: u64, initial_segments: u32) -> NewReno {
        NewReno {
            cwnd: mss * initial_segments.max(1) as u64,
            ssthresh: u64::MAX,
            mss,
            acked_in_ca: 0,
            in_recovery: false,
            recover: 0,
        }
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn recovery_point(&self) -> u64 {
        self.recover
    }

    /// Changes the segment size (after the handshake agreed on one).
    fn set_mss(&mut self, mss: u64, initial_segments: u32) {
        self.mss = mss;
        self.cwnd = mss * initial_segments.max(1) as u64;
    }

    /// New data acknowledged outside recovery.
    fn on_ack(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            self.cwnd += acked.min(self.mss);
        } else {
            self.acked_in_ca += acked;
            if self.acked_in_ca >= self.cwnd {
                self.acked_in_ca -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    /// Third duplicate ACK: halve and enter fast recovery.
    fn on_triple_dupack(&mut self, flight: u64, snd_max: u64) {
        self.ssthresh = (flight / 2).max(2 * self.mss);
        self.cwnd = self.ssthresh + 3 * self.mss;
        self.in_recovery = true;
        self.recover = snd_max;
    }

    /// SACK-based recovery: halve, without inflation.
    fn on_sack_recovery(&mut self, flight: u64, snd_max: u64) {
        self.ssthresh = (flight / 2).max(2 * self.mss);
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
        self.recover = snd_max;
    }

    /// A further duplicate ACK during recovery inflates the window.
    fn on_extra_dupack(&mut self) {
        self.cwnd += self.mss;
    }

    /// A partial ACK during recovery (RFC 6582 partial deflation).
    fn on_partial_ack(&mut self, acked: u64) {
        self.cwnd = self.cwnd.saturating_sub(acked) + self.mss;
        self.cwnd = self.cwnd.max(self.mss);
    }

    /// The ACK covering `recover` ends recovery.
    fn on_full_ack(&mut self, flight_after: u64) {
        self.cwnd = self.ssthresh.min(flight_after.max(self.mss) + self.mss);
        self.in_recovery = false;
        self.acked_in_ca = 0;
    }

    /// Retransmission timeout: back to one segment.
    fn on_timeout(&mut self, flight: u64, snd_max: u64) {
        self.ssthresh = (flight / 2).max(2 * self.mss);
        self.cwnd = self.mss;
        self.in_recovery = false;
        self.recover = snd_max;
        self.acked_in_ca = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_doubles_per_round_then_linear() {
        let mut c = NewReno::new(1000, 1);
        // One round: cwnd segments acked, each adds one MSS.
        for _ in 0..4 {
            let segs = c.cwnd / 1000;
            for _ in 0..segs {
                c.on_ack(1000);
            }
        }
        assert_eq!(c.cwnd, 16_000);
        c.on_triple_dupack(16_000, 100_000);
        assert_eq!(c.ssthresh, 8_000);
        assert_eq!(c.cwnd, 11_000);
        c.on_full_ack(0);
        assert_eq!(c.cwnd, 2_000);
        c.cwnd = 8_000;
        // Congestion avoidance: one MSS per cwnd of acked bytes.
        for _ in 0..8 {
            c.on_ack(1000);
        }
        assert_eq!(c.cwnd, 9_000);
    }
}
