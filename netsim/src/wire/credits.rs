//! Credit-based link-level flow control, the lossless fabric's answer to
//! a full queue: each link direction's sending port holds one credit per
//! packet of buffer at the receiving end, spends one for every packet it
//! starts sending, and gets it back when that packet leaves the receiving
//! node's buffer (starts onto its next link, or is taken by the host),
//! one link delay later, as the credit travels back. A port without
//! credit waits, however long its queue; nothing is ever dropped. A node
//! whose buffer from one link fills with packets waiting for a busy
//! output stops that link for every destination: the head-of-line
//! blocking and congestion spreading of real credit flow control.

use crate::base::ids::PortId;

/// The credits of every port.
#[derive(Debug, Clone)]
pub struct Credits {
    available: Vec<u32>,
    /// Times a port had a packet to send and no credit.
    pub stalls: Vec<u64>,
}

impl Credits {
    /// `per_port` credits for each of `ports` ports.
    pub fn new(ports: usize, per_port: u32) -> Credits {
        Credits {
            available: vec![per_port; ports],
            stalls: vec![0; ports],
        }
    }

    /// True when `port` may start a packet.
    pub fn has(&self, port: PortId) -> bool {
        self.available[port as usize] > 0
    }

    /// Spends one of `port`'s credits (it has one).
    pub fn take(&mut self, port: PortId) {
        let c = &mut self.available[port as usize];
        debug_assert!(*c > 0, "a port sends only with credit");
        *c -= 1;
    }

    /// A credit of `port` came back.
    pub fn give_back(&mut self, port: PortId) {
        self.available[port as usize] += 1;
    }

    /// Notes that `port` waited for credit.
    pub fn stalled(&mut self, port: PortId) {
        self.stalls[port as usize] += 1;
    }

    /// Credits `port` holds now.
    pub fn available(&self, port: PortId) -> u32 {
        self.available[port as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_sends_only_while_it_has_credit() {
        let mut c = Credits::new(2, 2);
        c.take(0);
        c.take(0);
        assert!(!c.has(0) && c.has(1));
        c.give_back(0);
        assert!(c.has(0));
        assert_eq!(c.available(0), 1);
    }
}
