//! What every loss-based algorithm here shares: the window, the
//! slow-start threshold and fast recovery's bookkeeping (RFC 5681's
//! inflation by duplicate ACKs, RFC 6582's partial ACKs and recovery
//! point). An algorithm decides the threshold at a loss and the growth
//! outside recovery; the rest is this.

/// A sender's window and recovery state, bytes.
#[derive(Clone, Debug)]
pub struct Window {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
    /// Segment size.
    pub mss: u64,
    /// In fast recovery until `recover` is acknowledged.
    pub in_recovery: bool,
    /// Highest sequence sent when recovery began.
    pub recover: u64,
}

impl Window {
    /// Slow start with `initial_segments` × MSS.
    pub fn new(mss: u64, initial_segments: u32) -> Window {
        Window {
            cwnd: mss * initial_segments.max(1) as u64,
            ssthresh: u64::MAX,
            mss,
            in_recovery: false,
            recover: 0,
        }
    }

    /// The segment size changed: restart at `initial_segments` × MSS.
    pub fn set_mss(&mut self, mss: u64, initial_segments: u32) {
        self.mss = mss;
        self.cwnd = mss * initial_segments.max(1) as u64;
    }

    /// Enters recovery at `ssthresh` (at least two segments): the window
    /// is the threshold, plus three segments when `inflate` (the three
    /// duplicate ACKs of RFC 5681; not with SACK, which counts the pipe).
    pub fn enter_recovery(&mut self, ssthresh: u64, inflate: bool, snd_max: u64) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.ssthresh + if inflate { 3 * self.mss } else { 0 };
        self.in_recovery = true;
        self.recover = snd_max;
    }

    /// A further duplicate ACK during recovery inflates the window.
    pub fn extra_dupack(&mut self) {
        self.cwnd += self.mss;
    }

    /// A partial ACK during recovery (RFC 6582 partial deflation).
    pub fn partial_ack(&mut self, acked: u64) {
        self.cwnd = (self.cwnd.saturating_sub(acked) + self.mss).max(self.mss);
    }

    /// The ACK covering the recovery point ends recovery.
    pub fn full_ack(&mut self, flight_after: u64) {
        self.cwnd = self.ssthresh.min(flight_after.max(self.mss) + self.mss);
        self.in_recovery = false;
    }

    /// A retransmission timeout at `ssthresh`: back to one segment.
    pub fn timeout(&mut self, ssthresh: u64, snd_max: u64) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.mss;
        self.in_recovery = false;
        self.recover = snd_max;
    }

    /// A reduction for an ECN-Echo to `ssthresh` (at least two
    /// segments): the window is the threshold; no recovery.
    pub fn ecn_reduce(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.ssthresh;
    }

    /// Slow start: `acked` bytes add at most one segment.
    pub fn slow_start(&mut self, acked: u64) {
        self.cwnd += acked.min(self.mss);
    }

    /// Slow start counting bytes, as Linux does for every algorithm (RFC
    /// 3465 without its limit L: an ACK covering n segments, as a delayed
    /// ACK does, adds n), up to the threshold.
    pub fn slow_start_bytes(&mut self, acked: u64) {
        self.cwnd = (self.cwnd + acked).min(self.ssthresh.max(self.cwnd));
    }

    /// True below the slow-start threshold.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// Implements the hooks every algorithm answers from its [`Window`]
/// (`self.$field`): the getters, the MSS change, and the inflation and
/// deflation of recovery.
macro_rules! window_hooks {
    ($field:ident) => {
        fn cwnd(&self) -> u64 {
            self.$field.cwnd
        }
        fn in_recovery(&self) -> bool {
            self.$field.in_recovery
        }
        fn recovery_point(&self) -> u64 {
            self.$field.recover
        }
        fn set_mss(&mut self, mss: u64, initial_segments: u32) {
            self.$field.set_mss(mss, initial_segments)
        }
        fn on_extra_dupack(&mut self) {
            self.$field.extra_dupack()
        }
        fn on_partial_ack(&mut self, acked: u64) {
            self.$field.partial_ack(acked)
        }
    };
}
pub(crate) use window_hooks;
