//! CUBIC congestion control (RFC 9438), Linux's default, in bytes.
//!
//! After a congestion event at window W_max the window restarts at
//! β·W_max and then follows W(t) = C·(t − K)³ + W_max, t being the time
//! since the window began to grow again and K = ∛(W_max·(1 − β)/C) the
//! time it takes to climb back to W_max: fast while far below W_max,
//! flat near it (concave), then probing faster and faster beyond it
//! (convex). Each ACK moves the window toward W(t + RTT), by at most half
//! the window per round trip. Where standard TCP would grow faster (short
//! round trips, small windows) the window follows the Reno-friendly
//! estimate instead. Fast convergence lowers W_max when a flow loses
//! before regaining its previous maximum. Recovery itself (what is
//! retransmitted, inflation by duplicate ACKs) is as with NewReno; only the
//! reduction (β = 0.7 instead of ½) and the growth differ.

use super::window::{window_hooks, Window};
use super::CongestionControl;
use crate::base::time::Nanos;

/// CUBIC's scaling constant C, segments per second³ (RFC 9438 §5.1).
pub const CUBIC_C: f64 = 0.4;

/// CUBIC's multiplicative decrease factor β_cubic (RFC 9438 §4.6).
pub const CUBIC_BETA: f64 = 0.7;

/// The Reno-friendly estimate's additive increase, segments per round
/// trip: 3·(1 − β)/(1 + β) (RFC 9438 §4.3).
pub const RENO_FRIENDLY_ALPHA: f64 = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);

/// The round trip assumed before the first RTT sample, ns.
const RTT_BEFORE_SAMPLE_NS: u64 = 100_000_000;

/// Congestion window state of one CUBIC sender.
#[derive(Clone, Debug)]
pub struct Cubic {
    /// Window, threshold and recovery state.
    pub w: Window,
    /// The window before the last reduction, segments.
    w_max_segments: f64,
    /// When the current growth period (congestion avoidance after a
    /// reduction) began; None until the first ACK of it.
    epoch_start: Option<Nanos>,
    /// Time to climb from the window at `epoch_start` to `w_max`, s.
    k_s: f64,
    /// The Reno-friendly estimate, segments.
    w_est_segments: f64,
    /// Bytes acknowledged in congestion avoidance not yet turned into
    /// window (the window grows by whole bytes).
    growth_credit: f64,
}

impl Cubic {
    /// Starts in slow start with `initial_segments` × MSS.
    pub fn new(mss: u64, initial_segments: u32) -> Cubic {
        Cubic {
            w: Window::new(mss, initial_segments),
            w_max_segments: 0.0,
            epoch_start: None,
            k_s: 0.0,
            w_est_segments: 0.0,
            growth_credit: 0.0,
        }
    }

    /// The window before the last reduction, segments (W_max).
    pub fn w_max_segments(&self) -> f64 {
        self.w_max_segments
    }

    /// K of the current growth period, s.
    pub fn k_s(&self) -> f64 {
        self.k_s
    }

    /// W_cubic(t) of the current growth period, segments.
    pub fn w_cubic_segments(&self, t_s: f64) -> f64 {
        CUBIC_C * (t_s - self.k_s).powi(3) + self.w_max_segments
    }

    fn cwnd_segments(&self) -> f64 {
        self.w.cwnd as f64 / self.w.mss as f64
    }

    /// A congestion event: remembers W_max (lowered by fast convergence
    /// when the window had not regained the previous one) and returns the
    /// new slow-start threshold, β × the window, bytes.
    fn reduce(&mut self) -> u64 {
        let w = self.cwnd_segments();
        self.w_max_segments = if w < self.w_max_segments {
            w * (1.0 + CUBIC_BETA) / 2.0
        } else {
            w
        };
        self.epoch_start = None;
        self.growth_credit = 0.0;
        (self.w.cwnd as f64 * CUBIC_BETA).round() as u64
    }

    /// Congestion avoidance: `acked` bytes acknowledged at `now`.
    fn grow(&mut self, acked: u64, now: Nanos, srtt: Option<Nanos>) {
        let w = self.cwnd_segments();
        let start = *self.epoch_start.get_or_insert_with(|| {
            // A new growth period: W(t) starts from the current window.
            if w < self.w_max_segments {
                self.k_s = ((self.w_max_segments - w) / CUBIC_C).cbrt();
            } else {
                self.k_s = 0.0;
                self.w_max_segments = w;
            }
            self.w_est_segments = w;
            now
        });
        let rtt_s = srtt.map_or(RTT_BEFORE_SAMPLE_NS, |r| r.0) as f64 / 1e9;
        let t_s = now.0.saturating_sub(start.0) as f64 / 1e9;
        let acked_segments = acked as f64 / self.w.mss as f64;
        self.w_est_segments += RENO_FRIENDLY_ALPHA * acked_segments / w;
        let cubic_now = self.w_cubic_segments(t_s);
        let increase_segments = if cubic_now < self.w_est_segments {
            // Reno-friendly region: at least as fast as standard TCP.
            (self.w_est_segments - w).max(0.0)
        } else {
            let target = self.w_cubic_segments(t_s + rtt_s).clamp(w, 1.5 * w);
            (target - w) / w * acked_segments
        };
        self.growth_credit += increase_segments * self.w.mss as f64;
        let whole = self.growth_credit.floor();
        self.growth_credit -= whole;
        self.w.cwnd += whole as u64;
    }
}

impl CongestionControl for Cubic {
    window_hooks!(w);

    fn on_ack(&mut self, acked: u64, now: Nanos, srtt: Option<Nanos>) {
        if self.w.in_slow_start() {
            // Linux's slow start: what the ACK covered (ns-3's TcpCubic
            // counts bytes here too; NewReno keeps RFC 5681's one
            // segment per ACK).
            self.w.slow_start_bytes(acked);
        } else {
            self.grow(acked, now, srtt);
        }
    }

    /// Third duplicate ACK: reduce by β and enter fast recovery.
    fn on_triple_dupack(&mut self, _flight: u64, snd_max: u64) {
        let ssthresh = self.reduce();
        self.w.enter_recovery(ssthresh, true, snd_max);
    }

    /// SACK-based recovery: reduce by β, without inflation.
    fn on_sack_recovery(&mut self, _flight: u64, snd_max: u64) {
        let ssthresh = self.reduce();
        self.w.enter_recovery(ssthresh, false, snd_max);
    }

    /// The ACK covering the recovery point: the window is the reduced one.
    fn on_full_ack(&mut self, flight_after: u64) {
        self.w.full_ack(flight_after);
    }

    /// ECN-Echo: reduce by β as for a loss (W_max remembered, a new
    /// growth period), without recovery (RFC 9438 §4.6 and §4.9).
    fn on_ecn_echo(&mut self) {
        let ssthresh = self.reduce();
        self.w.ecn_reduce(ssthresh);
    }

    /// Retransmission timeout: one segment, W_max remembered.
    fn on_timeout(&mut self, _flight: u64, snd_max: u64) {
        let ssthresh = self.reduce();
        self.w.timeout(ssthresh, snd_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1_000;

    /// A clean path: every round trip of `rtt_ns` acknowledges the whole
    /// window, one ACK per segment spread evenly over the round trip.
    /// Returns (t since the reduction in s, cwnd in segments) at the start
    /// of each round trip.
    fn clean_path(c: &mut Cubic, start_ns: u64, rtt_ns: u64, rounds: u32) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        let mut now = start_ns;
        for _ in 0..rounds {
            out.push(((now - start_ns) as f64 / 1e9, c.w.cwnd as f64 / MSS as f64));
            let segments = c.w.cwnd / MSS;
            for i in 0..segments {
                let at = now + rtt_ns * (i + 1) / segments;
                c.on_ack(MSS, Nanos(at), Some(Nanos(rtt_ns)));
            }
            now += rtt_ns;
        }
        out
    }

    #[test]
    fn after_a_loss_the_window_follows_the_cubic_curve_within_one_segment() {
        // W_max = 1,000 segments, a loss, then 100 ms round trips: the
        // window restarts at β·W_max = 700 and K = ∛(1000·0.3/0.4) =
        // ∛750 = 9.086 s; sample both the concave part (t < K) and the
        // convex part up to 2 K, where W = C·K³ + W_max = 1,300. The Reno-friendly estimate
        // (700 + 0.529 segments per round trip) stays below W(t) there.
        let mut c = Cubic::new(MSS, 10);
        c.w.cwnd = 1_000 * MSS;
        c.w.ssthresh = 0;
        c.on_sack_recovery(c.w.cwnd, 5_000_000);
        assert_eq!(c.w.cwnd, 700 * MSS);
        c.on_full_ack(c.w.cwnd);
        assert_eq!(c.w.cwnd, 700 * MSS);
        let k = (1_000.0f64 * (1.0 - CUBIC_BETA) / CUBIC_C).cbrt();
        assert!((k - 9.0856).abs() < 1e-3, "{k}");
        let rtt_ns = 100_000_000;
        let samples = clean_path(&mut c, 1_000_000_000, rtt_ns, 185);
        assert!((c.k_s() - k).abs() < 1e-9);
        let mut worst = 0.0f64;
        for &(t, w) in &samples[1..] {
            let model = CUBIC_C * (t - k).powi(3) + 1_000.0;
            worst = worst.max((w - model).abs());
        }
        assert!(worst <= 1.0, "max deviation {worst} segments");
        // The samples reach past K and past W_max (convex region).
        let &(t_last, w_last) = samples.last().unwrap();
        assert!(t_last > 2.0 * k && w_last > 1_290.0, "{t_last} {w_last}");
    }

    #[test]
    fn newreno_under_the_same_path_does_not_follow_the_curve() {
        // The same loss and path with NewReno: halved to 500, then one
        // segment per round trip (684 after 18.4 s, where the cubic curve
        // is at 1,300): the comparison above can fail.
        let mut n = super::super::NewReno::new(MSS, 10);
        n.w.cwnd = 1_000 * MSS;
        n.on_sack_recovery(1_000 * MSS, 5_000_000);
        n.on_full_ack(n.w.cwnd);
        let k = (1_000.0f64 * (1.0 - CUBIC_BETA) / CUBIC_C).cbrt();
        let mut worst = 0.0f64;
        for round in 0..185u64 {
            let t = round as f64 * 0.1;
            let model = CUBIC_C * (t - k).powi(3) + 1_000.0;
            worst = worst.max((n.w.cwnd as f64 / MSS as f64 - model).abs());
            for _ in 0..n.w.cwnd / MSS {
                n.on_ack(MSS, Nanos(1_000_000_000 + round * 100_000_000), None);
            }
        }
        assert_eq!(n.w.cwnd / MSS, 685);
        assert!(worst > 200.0, "{worst}");
    }

    #[test]
    fn a_short_round_trip_grows_like_reno_and_fast_convergence_lowers_w_max() {
        // W_max 20 segments, 1 ms round trips: W(t) needs K = ∛15 = 2.47 s
        // to climb back, Reno-friendly growth 0.53 segments per round
        // trip gets there in 11 round trips.
        let mut c = Cubic::new(MSS, 10);
        c.w.cwnd = 20 * MSS;
        c.on_sack_recovery(c.w.cwnd, 1);
        c.on_full_ack(c.w.cwnd);
        assert_eq!(c.w.cwnd, 14 * MSS);
        clean_path(&mut c, 0, 1_000_000, 12);
        assert!(c.w.cwnd >= 20 * MSS, "{}", c.w.cwnd);
        // A loss at 16 segments, below W_max 20: W_max = 16·1.7/2 = 13.6.
        let mut d = Cubic::new(MSS, 10);
        d.w.cwnd = 20 * MSS;
        d.on_sack_recovery(d.w.cwnd, 1);
        d.w.cwnd = 16 * MSS;
        d.on_sack_recovery(d.w.cwnd, 2);
        assert!((d.w_max_segments() - 13.6).abs() < 1e-9);
    }
}
