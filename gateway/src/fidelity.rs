//! Whether a run's timings can be trusted. A message that reaches the
//! gateway after the simulator ran events later than its stamp enters the
//! network late, and everything after it moves; once that lateness is far
//! above the network's smallest latency, the program's timings say more
//! about the machine running the emulation than about the network. A poll
//! (a test or probe finding nothing) made while the simulator ran far
//! behind the wall clock (maxBehind) may have missed a message already
//! due. The report then warns, naming the time factor at which the
//! lateness would fall below that latency if it shrinks in proportion —
//! the power of two `mpinetsim calibrate` would reach on its way up. Events
//! late against the wall clock alone change nothing the program sees (its
//! emulated time stands still inside MPI calls): no warning.

use netsim::NetworkModel;

/// maxBehind more than this many times the smallest latency is warned about.
pub const FAR_ABOVE: u64 = 10;

/// Distinct rank hosts sampled for the smallest latency (pairs grow with
/// the square).
const SAMPLED_HOSTS: usize = 32;

/// The smallest zero-load latency between two hosts with ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct SmallestLatency {
    /// One way, for a one-byte message, ns.
    pub ns: u64,
    /// The two hosts.
    pub between: (String, String),
}

/// The smallest latency between the first `SAMPLED_HOSTS` distinct
/// hosts with ranks (packet model; `None` with one host, unroutable hosts
/// or the analytic model).
pub fn smallest_latency(model: &dyn NetworkModel) -> Option<SmallestLatency> {
    let sim = crate::network_model::packet(model)?;
    let net = sim.network();
    let mut hosts: Vec<netsim::topology::NodeId> = Vec::new();
    for &h in sim.rank_hosts() {
        if !hosts.contains(&h) && hosts.len() < SAMPLED_HOSTS {
            hosts.push(h);
        }
    }
    let routing = netsim::topology::routing::Routing::new(net);
    let mut latency = netsim::analysis::Latency::new(net);
    let mut best: Option<(u64, usize, usize)> = None;
    let mut path = Vec::new();
    for i in 0..hosts.len() {
        for j in 0..hosts.len() {
            path.clear();
            if i == j
                || routing
                    .walk(net, hosts[i], hosts[j], |p| path.push(p))
                    .is_none()
            {
                continue;
            }
            let ns = latency.of_path(&path, 1);
            match best {
                Some((b, _, _)) if b <= ns => {}
                _ => best = Some((ns, i, j)),
            }
        }
    }
    let (ns, i, j) = best?;
    let name = |k: usize| net.nodes[hosts[k] as usize].name.clone();
    Some(SmallestLatency {
        ns,
        between: (name(i), name(j)),
    })
}

/// What a run measured of its lateness, for [`warning`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RunLateness {
    /// maxBehind: the latest event against the wall clock, ns.
    pub max_behind_ns: u64,
    /// Messages that entered the network after their stamp.
    pub late_injections: u64,
    /// Messages the ranks sent into the network.
    pub injections: u64,
    /// The latest of them, ns.
    pub max_late_injection_ns: u64,
    /// Tests and probes that found nothing, all ranks.
    pub polls: u64,
}

/// The warning for a run at (largest) time factor `factor` with lateness
/// `late`, if it is far above `smallest`: messages that entered late, or
/// else polls made while events ran late.
pub fn warning(late: &RunLateness, factor: f64, smallest: &SmallestLatency) -> Option<String> {
    let far = |ns: u64| smallest.ns > 0 && ns > FAR_ABOVE * smallest.ns;
    let ratio = |ns: u64| ns as f64 / smallest.ns as f64;
    let suggested = |ns: u64| {
        let wanted = (factor * ratio(ns)).min(mpinetsim_protocol::MAX_TIME_FACTOR);
        2f64.powi(wanted.log2().ceil() as i32)
            .min(mpinetsim_protocol::MAX_TIME_FACTOR)
    };
    let latency = format!(
        "the network's smallest latency ({}, {} to {})",
        duration(smallest.ns),
        smallest.between.0,
        smallest.between.1
    );
    let rerun = "if it shrinks in proportion to the factor, which is where `mpinetsim calibrate` would look — or let calibrate find the smallest factor from which the results stop changing";
    let ns = late.max_late_injection_ns;
    if far(ns) {
        return Some(format!(
            "{} of {} messages entered the network after events later than their stamps, up to {}, {:.0} times {latency}: the emulated times may be off by as much; rerun at a larger time factor — about {} brings that under the latency {rerun}",
            late.late_injections,
            late.injections,
            duration(ns),
            ratio(ns),
            suggested(ns)
        ));
    }
    let ns = late.max_behind_ns;
    (far(ns) && late.polls > 0).then(|| {
        format!(
            "maxBehind {} is {:.0} times {latency}, and the ranks' tests and probes found nothing {} times: one made while the simulator was that far behind may have missed a message already due, so the emulated times may be off by as much; rerun at a larger time factor — about {} brings maxBehind under that latency {rerun}",
            duration(ns),
            ratio(ns),
            late.polls,
            suggested(ns)
        )
    })
}

/// "2.9 us" below a millisecond, "312.000 ms" above.
fn duration(ns: u64) -> String {
    if ns < 1_000_000 {
        format!("{:.1} us", ns as f64 / 1e3)
    } else {
        format!("{:.3} ms", ns as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_ms() -> SmallestLatency {
        SmallestLatency {
            ns: 1_000_000,
            between: ("host0".into(), "host1".into()),
        }
    }

    fn behind(max_behind_ns: u64, polls: u64) -> RunLateness {
        RunLateness {
            max_behind_ns,
            polls,
            ..RunLateness::default()
        }
    }

    fn entered_late(max_late_injection_ns: u64) -> RunLateness {
        RunLateness {
            late_injections: 3,
            injections: 200,
            max_late_injection_ns,
            ..RunLateness::default()
        }
    }

    #[test]
    fn messages_entering_far_behind_their_stamps_are_warned_with_a_power_of_two_factor() {
        // A 128-rank all-to-all at factor 8 whose messages entered up to
        // 312 ms late on a 1 ms network: 8 x 312 = 2496 -> 4096.
        let w = warning(&entered_late(312_000_000), 8.0, &one_ms()).unwrap();
        assert!(w.starts_with("3 of 200 messages entered the network after events later than their stamps, up to 312.000 ms, 312 times the network's smallest latency (1.000 ms, host0 to host1)"), "{w}");
        assert!(w.contains("about 4096 brings that under"), "{w}");
        // 10 times the latency or less: no warning.
        assert_eq!(warning(&entered_late(10_000_000), 8.0, &one_ms()), None);
        assert!(warning(&entered_late(10_000_001), 1.0, &one_ms())
            .unwrap()
            .contains("about 16 brings"));
        // Never beyond the largest factor; nothing to compare with a zero latency.
        assert!(warning(&entered_late(u64::MAX), 1e6, &one_ms())
            .unwrap()
            .contains("about 1000000 brings"));
        let zero = SmallestLatency { ns: 0, ..one_ms() };
        assert_eq!(warning(&entered_late(1_000_000_000), 1.0, &zero), None);
    }

    #[test]
    fn events_late_against_the_wall_clock_are_warned_only_where_ranks_polled() {
        // Every message entered at its stamp: lateness of events alone
        // changed nothing the program saw.
        assert_eq!(warning(&behind(312_000_000, 0), 8.0, &one_ms()), None);
        let w = warning(&behind(312_000_000, 5), 8.0, &one_ms()).unwrap();
        assert!(w.starts_with("maxBehind 312.000 ms is 312 times the network's smallest latency (1.000 ms, host0 to host1), and the ranks' tests and probes found nothing 5 times"), "{w}");
        assert!(w.contains("about 4096 brings maxBehind under"), "{w}");
        assert_eq!(warning(&behind(10_000_000, 5), 8.0, &one_ms()), None);
    }
}
