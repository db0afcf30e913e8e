//! How far ahead of its wall deadline an event may run.
//!
//! Deliveries carry their virtual arrival time and the shim holds them
//! until then, so running events early hides the gateway's and the
//! ranks' wake-up latency. The price: a message a rank sends inside that
//! window, after an event it could have affected already ran, enters the
//! network at that event's time instead of its own (injection lateness).
//! A fixed 250 µs of wall time is harmless on millisecond networks, but
//! at factor 16 it is 15.6 µs of emulated time: on a network of 1 µs
//! hops, a pingpong's every reply was injected ~0.6 µs late (the median
//! injection lateness), behind the acknowledgements already run. So the
//! lookahead is also bounded by a share of the network's smallest
//! latency, in emulated time: the error it can cause stays a small part
//! of the latencies the user studies, whatever the factor.

/// The lookahead when the network's latencies do not bound it, wall ns.
pub const DEFAULT_LOOKAHEAD_NS: u64 = 250_000;

/// The share of the network's smallest latency the lookahead may span in
/// emulated time (1/LATENCY_SHARE_DIVISOR).
pub const LATENCY_SHARE_DIVISOR: u64 = 10;

/// The lookahead of a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lookahead {
    /// The most, wall ns.
    pub max_wall_ns: u64,
    /// The most, emulated (scaled) ns; None: unbounded.
    pub max_srt_ns: Option<u64>,
}

impl Lookahead {
    /// A fixed wall-time lookahead.
    pub fn fixed(wall_ns: u64) -> Lookahead {
        Lookahead {
            max_wall_ns: wall_ns,
            max_srt_ns: None,
        }
    }

    /// The default wall lookahead, bounded by a tenth of the network's
    /// smallest latency `smallest_latency_ns` (None: not known, as with
    /// the analytic model or a single host).
    pub fn for_network(smallest_latency_ns: Option<u64>) -> Lookahead {
        Lookahead {
            max_wall_ns: DEFAULT_LOOKAHEAD_NS,
            max_srt_ns: smallest_latency_ns.map(|ns| ns / LATENCY_SHARE_DIVISOR),
        }
    }

    /// The lookahead at time factor `factor`, wall ns.
    pub fn wall_ns(&self, factor: f64) -> u64 {
        match self.max_srt_ns {
            Some(srt) => self.max_wall_ns.min((srt as f64 * factor) as u64),
            None => self.max_wall_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_microsecond_network_shortens_the_lookahead_by_the_factor() {
        // 1 µs host to host: at most 100 ns of emulated time.
        let l = Lookahead::for_network(Some(1_000));
        assert_eq!(l.wall_ns(16.0), 1_600);
        assert_eq!(l.wall_ns(256.0), 25_600);
        // From factor 2,500 on, the wall bound rules.
        assert_eq!(l.wall_ns(4_096.0), DEFAULT_LOOKAHEAD_NS);
    }

    #[test]
    fn a_millisecond_network_keeps_the_default_from_factor_3() {
        let l = Lookahead::for_network(Some(1_000_000));
        assert_eq!(l.wall_ns(1.0), 100_000);
        assert_eq!(l.wall_ns(2.0), 200_000);
        assert_eq!(l.wall_ns(3.0), DEFAULT_LOOKAHEAD_NS);
    }

    #[test]
    fn unknown_latencies_keep_the_default() {
        assert_eq!(
            Lookahead::for_network(None).wall_ns(1.0),
            DEFAULT_LOOKAHEAD_NS
        );
        assert_eq!(Lookahead::fixed(7).wall_ns(1e6), 7);
    }
}
