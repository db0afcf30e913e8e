//! NewReno congestion control (RFC 5681 + RFC 6582), in bytes.

use super::window::{window_hooks, Window};
use super::CongestionControl;
use crate::base::time::Nanos;

/// Congestion window state of one sender.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Window, threshold and recovery state.
    pub w: Window,
    acked_in_ca: u64,
}

impl NewReno {
    /// Starts in slow start with `initial_segments` × MSS.
    pub fn new(mss: u64, initial_segments: u32) -> NewReno {
        NewReno {
            w: Window::new(mss, initial_segments),
            acked_in_ca: 0,
        }
    }
}

impl CongestionControl for NewReno {
    window_hooks!(w);

    /// New data acknowledged outside recovery (NewReno's growth does not
    /// depend on time): one segment per window of acknowledged bytes.
    fn on_ack(&mut self, acked: u64, _now: Nanos, _srtt: Option<Nanos>) {
        if self.w.in_slow_start() {
            self.w.slow_start(acked);
        } else {
            self.acked_in_ca += acked;
            if self.acked_in_ca >= self.w.cwnd {
                self.acked_in_ca -= self.w.cwnd;
                self.w.cwnd += self.w.mss;
            }
        }
    }

    /// Third duplicate ACK: halve and enter fast recovery.
    fn on_triple_dupack(&mut self, flight: u64, snd_max: u64) {
        self.w.enter_recovery(flight / 2, true, snd_max);
    }

    /// SACK-based recovery: halve, without inflation.
    fn on_sack_recovery(&mut self, flight: u64, snd_max: u64) {
        self.w.enter_recovery(flight / 2, false, snd_max);
    }

    fn on_full_ack(&mut self, flight_after: u64) {
        self.w.full_ack(flight_after);
        self.acked_in_ca = 0;
    }

    /// ECN-Echo: halve the window (RFC 3168 §6.1.2: cwnd/2, as Linux's
    /// Reno does for ECN and loss alike).
    fn on_ecn_echo(&mut self) {
        self.w.ecn_reduce(self.w.cwnd / 2);
        self.acked_in_ca = 0;
    }

    /// Retransmission timeout: back to one segment.
    fn on_timeout(&mut self, flight: u64, snd_max: u64) {
        self.w.timeout(flight / 2, snd_max);
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
            let segs = c.w.cwnd / 1000;
            for _ in 0..segs {
                c.on_ack(1000, Nanos(0), None);
            }
        }
        assert_eq!(c.w.cwnd, 16_000);
        c.on_triple_dupack(16_000, 100_000);
        assert_eq!(c.w.ssthresh, 8_000);
        assert_eq!(c.w.cwnd, 11_000);
        c.on_full_ack(0);
        assert_eq!(c.w.cwnd, 2_000);
        c.w.cwnd = 8_000;
        // Congestion avoidance: one MSS per cwnd of acked bytes.
        for _ in 0..8 {
            c.on_ack(1000, Nanos(0), None);
        }
        assert_eq!(c.w.cwnd, 9_000);
    }
}
