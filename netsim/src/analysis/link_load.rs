//! Per-link load of a traffic pattern under one routing: how many of the
//! pattern's flows cross each link direction, summarised over the links
//! between switches and routers and, on a fat-tree, over the links of its
//! core routers. `mpinetsim topo` puts the routing choices side by side
//! with it ("is ECMP on the fat-tree balanced?").
//!
//! A flow is the TCP connection the packet simulator opens from the rank
//! on one host to the rank on another (one rank per host, in host order:
//! [`super::flow_of`]); under ECMP it follows the path its 5-tuple hashes
//! to, so these counts are the flows the simulator's links carry.

use super::{flow_of, for_each_pair, Pattern};
use crate::topology::generators::Layout;
use crate::topology::routing::detour::{flowlet_pick, DragonflyGroups};
use crate::topology::routing::flow::FlowKey;
use crate::topology::routing::{Routing, Spread};
use crate::topology::{Network, NodeId, NodeKind, PortId};

/// Minimum, mean and maximum flows over a set of link directions (under
/// packet spraying, the expected share of flows: fractions).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LoadSummary {
    /// Link directions in the set.
    pub directions: usize,
    /// Fewest flows on one direction.
    pub min: f64,
    /// Mean flows per direction.
    pub mean: f64,
    /// Most flows on one direction.
    pub max: f64,
    /// `max / mean`: 1 is perfectly balanced; `null` when nothing crosses
    /// the set.
    pub max_over_mean: Option<f64>,
}

impl LoadSummary {
    /// The summary of `loads` (flows per direction); `None` for an empty set.
    pub fn of(loads: &[f64]) -> Option<LoadSummary> {
        let first = *loads.first()?;
        let min = loads.iter().copied().fold(first, f64::min);
        let max = loads.iter().copied().fold(first, f64::max);
        let mean = loads.iter().sum::<f64>() / loads.len() as f64;
        Some(LoadSummary {
            directions: loads.len(),
            min,
            mean,
            max,
            max_over_mean: (mean > 0.0).then(|| max / mean),
        })
    }
}

/// The load of one pattern under one routing.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RoutingLoad {
    /// The routing's name, as the network file's `routing` key spells it.
    pub routing: String,
    /// Flows routed (pairs of the pattern that have a route).
    pub flows: u64,
    /// Over every direction of every link between two switches or routers;
    /// `None` when the network has no such link.
    pub network_links: Option<LoadSummary>,
    /// Over every direction of every link of a fat-tree's core routers;
    /// `None` on other shapes.
    pub core_links: Option<LoadSummary>,
}

/// Flows of `pattern` crossing each port (link direction, by its
/// transmitting port) of `net` routed by `routing`, and the flows routed.
pub fn flows_per_port(net: &Network, routing: &Routing, pattern: Pattern) -> (Vec<u64>, u64) {
    let mut load = vec![0u64; net.ports.len()];
    let mut flows = 0;
    let valiant = routing.valiant(net);
    for_each_pair(pattern, net.hosts.len(), &mut |s, d| {
        let flow = flow_of(net, s, d);
        let spread = routing.spread(&flow);
        let (src, dst) = (net.hosts[s], net.hosts[d]);
        let mut path = Vec::new();
        let walked = match valiant {
            Some(groups) => valiant_walk(net, routing, &groups, (src, dst), &flow, &mut path),
            None => routing.walk_spread(net, src, dst, spread, |p| path.push(p)),
        };
        if walked.is_some() {
            flows += 1;
            for p in path {
                load[p as usize] += 1;
            }
        }
    });
    (load, flows)
}

/// The ports of the path Valiant routing gives the first flowlet of
/// `flow` from host `src` to host `dst` (what the simulator's source
/// router chooses for it; later flowlets hash to other groups).
fn valiant_walk(
    net: &Network,
    routing: &Routing,
    groups: &DragonflyGroups,
    (src, dst): (NodeId, NodeId),
    flow: &FlowKey,
    path: &mut Vec<PortId>,
) -> Option<()> {
    let first = *net.nodes[src as usize].ports.first()?;
    path.push(first);
    let at = net.peer_node(first);
    let (from, to) = (groups.group_of_router(at)?, groups.group_of_host(net, dst)?);
    let via = (from != to)
        .then(|| groups.intermediate(from, to, flowlet_pick(flow.hash(net.routing_seed), 0)))
        .flatten();
    let spread = routing.spread(flow);
    routing.walk_detour(net, groups, (at, dst), via, spread, |p| path.push(p))
}

/// Expected flows of `pattern` crossing each port of `net` routed by
/// `routing`, and the flows routed: [`flows_per_port`], except under
/// packet spraying (`routing = "spray"`), where every flow's packets split
/// evenly over the equally short next ports at every node, so a port
/// carries the sum of the shares of the flows that reach it.
pub fn expected_flows_per_port(
    net: &Network,
    routing: &Routing,
    pattern: Pattern,
) -> (Vec<f64>, u64) {
    if !routing.is_spray() {
        let (load, flows) = flows_per_port(net, routing, pattern);
        return (load.into_iter().map(|l| l as f64).collect(), flows);
    }
    let mut load = vec![0f64; net.ports.len()];
    let mut flows = 0;
    for_each_pair(pattern, net.hosts.len(), &mut |s, d| {
        let mut share = vec![0f64; net.ports.len()];
        if sprayed_shares(net, routing, (net.hosts[s], net.hosts[d]), &mut share).is_some() {
            flows += 1;
            for (l, s) in load.iter_mut().zip(share) {
                *l += s;
            }
        }
    });
    (load, flows)
}

/// Adds to `share` (per port) the part of one flow from host `src` to
/// host `dst` each port carries when every node splits it evenly over its
/// equally short next ports; `None` when `dst` is unreachable.
fn sprayed_shares(
    net: &Network,
    routing: &Routing,
    (src, dst): (NodeId, NodeId),
    share: &mut [f64],
) -> Option<()> {
    // Every step is one link closer, so the flow moves a tier at a time.
    let mut tier: Vec<(NodeId, f64)> = vec![(src, 1.0)];
    let mut guard = net.nodes.len() + 1;
    while tier.iter().any(|&(n, _)| n != dst) {
        let mut next: Vec<(NodeId, f64)> = Vec::new();
        for (at, part) in tier {
            if at == dst {
                next.push((at, part));
                continue;
            }
            // The candidates, in order: position i of count is Fixed(i).
            let first = routing.next_port_spread(net, at, dst, Spread::Fixed(0))?;
            let mut ports = vec![first];
            for i in 1..net.nodes[at as usize].ports.len() as u32 {
                let p = routing.next_port_spread(net, at, dst, Spread::Fixed(i))?;
                if p == first {
                    break;
                }
                ports.push(p);
            }
            let each = part / ports.len() as f64;
            for p in ports {
                share[p as usize] += each;
                let v = net.peer_node(p);
                match next.iter_mut().find(|(n, _)| *n == v) {
                    Some((_, s)) => *s += each,
                    None => next.push((v, each)),
                }
            }
        }
        tier = next;
        guard = guard.checked_sub(1)?;
    }
    Some(())
}

/// The load of `pattern` on `net` routed by `routing`, named `name`.
pub fn routing_load(net: &Network, routing: &Routing, pattern: Pattern, name: &str) -> RoutingLoad {
    let (load, flows) = expected_flows_per_port(net, routing, pattern);
    let core = core_routers(net);
    let (mut inner, mut cores) = (Vec::new(), Vec::new());
    for (p, port) in net.ports.iter().enumerate() {
        let (from, to) = (port.node, net.peer_node(p as u32));
        let is_host = |n: u32| net.nodes[n as usize].kind == NodeKind::Host;
        if !is_host(from) && !is_host(to) {
            inner.push(load[p]);
        }
        if let Some(core) = &core {
            if core[from as usize] || core[to as usize] {
                cores.push(load[p]);
            }
        }
    }
    RoutingLoad {
        routing: name.to_string(),
        flows,
        network_links: LoadSummary::of(&inner),
        core_links: core.and_then(|_| LoadSummary::of(&cores)),
    }
}

/// Per node: true for a fat-tree's core routers; `None` on other shapes.
fn core_routers(net: &Network) -> Option<Vec<bool>> {
    let shape = net.shape.as_ref()?;
    let Layout::FatTree { k } = shape.layout else {
        return None;
    };
    let cores = (k / 2) * (k / 2);
    let first = shape.first_router;
    Some(
        (0..net.nodes.len() as u32)
            .map(|n| n >= first && n - first < cores)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_min_mean_max_and_their_ratio() {
        let s = LoadSummary::of(&[2.0, 4.0, 6.0]).unwrap();
        assert_eq!((s.directions, s.min, s.max), (3, 2.0, 6.0));
        assert_eq!(s.mean, 4.0);
        assert_eq!(s.max_over_mean, Some(1.5));
        assert_eq!(LoadSummary::of(&[]), None);
        assert_eq!(LoadSummary::of(&[0.0, 0.0]).unwrap().max_over_mean, None);
    }
}
