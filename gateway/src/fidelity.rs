//! Whether a run's timings can be trusted. maxBehind is how late the
//! simulator ran events; once it is far above the network's smallest
//! latency, messages may arrive later in emulated time than the network
//! would have delivered them, and the program's timings say more about the
//! machine running the emulation than about the network. The report then
//! warns, naming the time factor at which the lateness would fall below
//! that latency if it shrinks in proportion — the power of two `mpinetsim
//! calibrate` would reach on its way up.

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

/// The warning for a run at (largest) time factor `factor` whose
/// maxBehind was `max_behind_ns`, if it is far above `smallest`.
pub fn warning(max_behind_ns: u64, factor: f64, smallest: &SmallestLatency) -> Option<String> {
    if smallest.ns == 0 || max_behind_ns <= FAR_ABOVE * smallest.ns {
        return None;
    }
    let ratio = max_behind_ns as f64 / smallest.ns as f64;
    let wanted = (factor * ratio).min(mpinetsim_protocol::MAX_TIME_FACTOR);
    let suggested = 2f64
        .powi(wanted.log2().ceil() as i32)
        .min(mpinetsim_protocol::MAX_TIME_FACTOR);
    Some(format!(
        "maxBehind {} is {ratio:.0} times the network's smallest latency ({}, {} to {}): events ran up to that late, so the emulated times may be off by as much; rerun at a larger time factor — about {suggested} brings maxBehind under that latency if it shrinks in proportion to the factor, which is where `mpinetsim calibrate` would look — or let calibrate find the smallest factor from which the results stop changing",
        duration(max_behind_ns),
        duration(smallest.ns),
        smallest.between.0,
        smallest.between.1
    ))
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

    #[test]
    fn lateness_far_above_the_latency_is_warned_with_a_power_of_two_factor() {
        // The case: a 128-rank all-to-all at factor 8 with
        // maxBehind 312 ms on a 1 ms network: 8 x 312 = 2496 -> 4096.
        let w = warning(312_000_000, 8.0, &one_ms()).unwrap();
        assert!(w.starts_with("maxBehind 312.000 ms is 312 times the network's smallest latency (1.000 ms, host0 to host1)"), "{w}");
        assert!(
            w.contains("about 4096 brings maxBehind under that latency"),
            "{w}"
        );
        // 10 times the latency or less: no warning.
        assert_eq!(warning(10_000_000, 8.0, &one_ms()), None);
        assert!(warning(10_000_001, 1.0, &one_ms())
            .unwrap()
            .contains("about 16 brings"));
        // Never beyond the largest factor; nothing to compare with a zero latency.
        assert!(warning(u64::MAX, 1e6, &one_ms())
            .unwrap()
            .contains("about 1000000 brings"));
        let zero = SmallestLatency { ns: 0, ..one_ms() };
        assert_eq!(warning(1_000_000_000, 1.0, &zero), None);
    }
}
