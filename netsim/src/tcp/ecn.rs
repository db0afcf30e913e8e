//! Explicit Congestion Notification at the two ends of a connection (RFC
//! 3168 §6.1): the receiver echoes a Congestion Experienced mark with ECE
//! on its ACKs until the sender's CWR says the sender reacted; the sender
//! reduces its window at most once a window of data for the echoes and
//! sets CWR on its next new segment. Negotiated on the handshake: a SYN
//! with ECE and CWR, a SYN-ACK with ECE alone.

/// The data sender's ECN state.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnSender {
    /// Both ends agreed on ECN: new data goes out ECT(0).
    pub agreed: bool,
    /// A reduction happened and no new segment has carried CWR yet.
    cwr_pending: bool,
    /// The highest offset sent at the last reduction: echoes of data up
    /// to it were caused by marks the reduction already answered.
    answered_to: Option<u64>,
}

impl EcnSender {
    /// The SYN-ACK arrived with `ece` and `cwr`; `offered` says whether
    /// this end offered ECN. Agreed when the SYN-ACK has ECE without CWR.
    pub fn on_syn_ack(&mut self, offered: bool, ece: bool, cwr: bool) {
        self.agreed = offered && ece && !cwr;
    }

    /// True when an ACK of offset `ack` with `ece` calls for a window
    /// reduction: ECN agreed, ECE set, and the ACK covers data sent after
    /// the last reduction (once a window of data, RFC 3168 §6.1.2).
    pub fn should_reduce(&self, ece: bool, ack: u64) -> bool {
        self.agreed && ece && self.answered_to.is_none_or(|a| ack > a)
    }

    /// The window was reduced with `snd_max` the highest offset sent.
    pub fn reduced(&mut self, snd_max: u64) {
        self.answered_to = Some(snd_max);
        self.cwr_pending = true;
    }

    /// Whether the new data segment about to leave carries CWR (the first
    /// one after a reduction does).
    pub fn take_cwr(&mut self) -> bool {
        std::mem::take(&mut self.cwr_pending)
    }
}

/// The data receiver's ECN state.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnReceiver {
    /// Both ends agreed on ECN.
    pub agreed: bool,
    /// Set ECE on every ACK.
    echo: bool,
}

impl EcnReceiver {
    /// The SYN arrived with `ece` and `cwr`; `offered` says whether this
    /// end does ECN. Agreed when the SYN has both.
    pub fn on_syn(&mut self, offered: bool, ece: bool, cwr: bool) {
        self.agreed = offered && ece && cwr;
    }

    /// A data segment arrived with `cwr` and, when `ce`, marked Congestion
    /// Experienced: CWR stops the echo, CE (also on that segment) starts
    /// it. Returns true when the echo just started (the receiver ACKs at
    /// once then, as Linux does, so the sender learns within a round
    /// trip whatever the delayed-ACK timer).
    pub fn on_data(&mut self, cwr: bool, ce: bool) -> bool {
        if !self.agreed {
            return false;
        }
        let before = self.echo;
        if cwr {
            self.echo = false;
        }
        if ce {
            self.echo = true;
        }
        self.echo && !before
    }

    /// ECE on the next ACK.
    pub fn ece(&self) -> bool {
        self.agreed && self.echo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_needs_ece_and_cwr_on_the_syn_and_ece_alone_on_the_syn_ack() {
        let mut r = EcnReceiver::default();
        r.on_syn(true, true, false);
        assert!(!r.agreed);
        r.on_syn(true, true, true);
        assert!(r.agreed);
        r.on_syn(false, true, true);
        assert!(!r.agreed);
        let mut s = EcnSender::default();
        s.on_syn_ack(true, true, true);
        assert!(!s.agreed, "a reflected SYN is no agreement");
        s.on_syn_ack(true, true, false);
        assert!(s.agreed);
    }

    #[test]
    fn the_receiver_echoes_from_ce_until_cwr() {
        let mut r = EcnReceiver::default();
        r.on_syn(true, true, true);
        assert!(!r.on_data(false, false) && !r.ece());
        assert!(r.on_data(false, true), "echo starts");
        assert!(!r.on_data(false, false) && r.ece(), "and goes on");
        assert!(!r.on_data(true, false) && !r.ece(), "CWR ends it");
        assert!(r.on_data(true, true) && r.ece(), "CE on the CWR segment");
    }

    #[test]
    fn the_sender_reduces_once_a_window_and_sets_cwr_once() {
        let mut s = EcnSender::default();
        s.on_syn_ack(true, true, false);
        assert!(!s.should_reduce(false, 1000));
        assert!(s.should_reduce(true, 1000));
        s.reduced(10_000);
        assert!(!s.should_reduce(true, 10_000), "data sent before");
        assert!(s.should_reduce(true, 10_001));
        assert!(s.take_cwr());
        assert!(!s.take_cwr());
    }
}
