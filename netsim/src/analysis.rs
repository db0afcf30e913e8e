//! Static analysis of a network and its routing, without simulating:
//! node and link counts, diameter, hop counts and zero-load latencies of a
//! traffic pattern, and how many messages every switch and router handles
//! (the xSim thesis's topology figures, as numbers). Used by
//! `mpinetsim topo`; deterministic and free of I/O like the simulator.
//!
//! **Hops** count the links between network nodes. A host that is the only
//! host on its router *is* that router's node (direct networks: ring, mesh,
//! torus, hypercube), so its link to the router is not a hop; hosts on a
//! shared switch or router (star, tree, fat-tree) count their links. A
//! message's **zero-load latency** is the store-and-forward time of its TCP
//! segments (with Ethernet, IPv4 and TCP headers) across the routed path on
//! an otherwise idle network: no handshake, no ACK, no slow start.

pub mod link_load;

use crate::base::rng::SimRng;
use crate::base::time::serialization_time;
use crate::topology::routing::flow::FlowKey;
use crate::topology::routing::Routing;
use crate::topology::{Network, NodeId, NodeKind, PortId};
use crate::wire::packet::data_frame_wire_len;
use std::collections::VecDeque;

/// Which host pairs a report covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `pairs` pairs of distinct hosts drawn uniformly with a seed.
    Random {
        /// Number of pairs.
        pairs: u64,
        /// Seed of the draw.
        seed: u64,
    },
    /// Host i to host i+1 (the last to the first).
    Ring,
    /// Every ordered pair of distinct hosts.
    AllToAll,
}

/// What [`analyse`] finds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Analysis {
    /// Hosts in the network.
    pub hosts: usize,
    /// Switches.
    pub switches: usize,
    /// Routers.
    pub routers: usize,
    /// Links.
    pub links: usize,
    /// Largest hop count between two hosts, when computed (closed form, or
    /// breadth-first search for networks of at most [`DIAMETER_BFS_HOSTS`] hosts).
    pub diameter_hops: Option<u32>,
    /// Host pairs analysed.
    pub pairs: u64,
    /// Mean hops per pair.
    pub mean_hops: f64,
    /// Most hops of any pair.
    pub max_hops: u32,
    /// Mean links per pair (hops plus attachment links).
    pub mean_links: f64,
    /// Mean zero-load latency per pair, in nanoseconds.
    pub mean_latency_ns: f64,
    /// Message size the latency is for, in bytes.
    pub message_bytes: u64,
    /// Pairs with no route.
    pub unreachable_pairs: u64,
    /// For all-to-all: messages each switch and router received or
    /// forwarded, by node name (a router standing for its host does not
    /// count the messages that host sends).
    pub handled: Vec<(String, u64)>,
}

/// Above this many hosts, the diameter of networks without a closed form
/// is not computed (one search per host).
pub const DIAMETER_BFS_HOSTS: usize = 4096;

/// Which hosts are the only host on their router (they are that node).
pub fn merged_hosts(net: &Network) -> Vec<bool> {
    net.hosts
        .iter()
        .map(|&h| {
            let ports = &net.nodes[h as usize].ports;
            if ports.len() != 1 {
                return false;
            }
            let r = net.peer_node(ports[0]);
            net.nodes[r as usize].kind == NodeKind::Router
                && net.nodes[r as usize]
                    .ports
                    .iter()
                    .filter(|&&p| net.nodes[net.peer_node(p) as usize].kind == NodeKind::Host)
                    .count()
                    == 1
        })
        .collect()
}

/// What the latency model needs of one link, per output port.
#[derive(Debug, Clone, Copy)]
struct PortCost {
    rate_bps: u64,
    delay_ns: u64,
    mtu: u32,
}

/// Zero-load latency calculator: per-port link costs gathered once.
pub struct Latency {
    cost: Vec<PortCost>,
    done: Vec<u64>,
}

impl Latency {
    /// Prepares the per-port costs of `net`.
    pub fn new(net: &Network) -> Latency {
        let cost = net
            .ports
            .iter()
            .map(|p| {
                let l = &net.links[p.link as usize].params;
                PortCost {
                    rate_bps: l.rate_bps,
                    delay_ns: l.delay_ns,
                    mtu: l.mtu,
                }
            })
            .collect();
        Latency {
            cost,
            done: Vec::new(),
        }
    }

    /// Zero-load latency of a `bytes`-byte message along `path` (output
    /// ports in order), segmented at the path's smallest MTU; segments
    /// pipeline through the store-and-forward hops.
    pub fn of_path(&mut self, path: &[PortId], bytes: u64) -> u64 {
        let bytes = bytes.max(1);
        let mtu = path
            .iter()
            .map(|&p| self.cost[p as usize].mtu as u64)
            .min()
            .unwrap_or(1500);
        let mss = mtu - 40;
        let segments = bytes.div_ceil(mss);
        self.done.clear();
        self.done.resize(path.len(), 0);
        // All segments but the last are full: k identical frames through
        // store-and-forward hops, all ready at time 0, leave hop l at
        // Σ_{j≤l} t_j + Σ_{j<l} d_j + (k − 1) · max_{j≤l} t_j (the
        // slowest hop so far paces the train), so a message of any size
        // costs one pass over the path.
        let full = segments - 1;
        if full > 0 {
            let t_full = data_frame_wire_len(mss);
            let (mut before, mut slowest) = (0u64, 0u64);
            for (l, &p) in path.iter().enumerate() {
                let c = self.cost[p as usize];
                let t = serialization_time(t_full, c.rate_bps).0;
                slowest = slowest.max(t);
                self.done[l] = before
                    .saturating_add(t)
                    .saturating_add((full - 1).saturating_mul(slowest));
                before = before.saturating_add(t).saturating_add(c.delay_ns);
            }
        }
        let wire = data_frame_wire_len(bytes - full * mss);
        let mut arrive = 0u64;
        for (l, &p) in path.iter().enumerate() {
            let c = self.cost[p as usize];
            let start = arrive.max(self.done[l]);
            let end = start.saturating_add(serialization_time(wire, c.rate_bps).0);
            self.done[l] = end;
            arrive = end.saturating_add(c.delay_ns);
        }
        arrive
    }
}

/// Zero-load latency of a `bytes`-byte message along `path` (see [`Latency`]).
pub fn zero_load_latency_ns(net: &Network, path: &[PortId], bytes: u64) -> u64 {
    Latency::new(net).of_path(path, bytes)
}

/// Analyses `pattern` on `net` routed by `routing`, for messages of
/// `message_bytes` bytes.
pub fn analyse(net: &Network, routing: &Routing, pattern: Pattern, message_bytes: u64) -> Analysis {
    let merged = merged_hosts(net);
    let h = net.hosts.len();
    let count = |k: fn(&NodeKind) -> bool| net.nodes.iter().filter(|n| k(&n.kind)).count();
    let mut a = Analysis {
        hosts: h,
        switches: count(|k| matches!(k, NodeKind::Switch(_))),
        routers: count(|k| *k == NodeKind::Router),
        links: net.links.len(),
        diameter_hops: diameter(net, routing, &merged),
        pairs: 0,
        mean_hops: 0.0,
        max_hops: 0,
        mean_links: 0.0,
        mean_latency_ns: 0.0,
        message_bytes,
        unreachable_pairs: 0,
        handled: Vec::new(),
    };
    let mut handled = vec![
        0u64;
        if pattern == Pattern::AllToAll {
            net.nodes.len()
        } else {
            0
        }
    ];
    let (mut hops_sum, mut links_sum, mut latency_sum) = (0u64, 0u64, 0f64);
    let mut path = Vec::new();
    let mut latency = Latency::new(net);
    let mut visit = |s: usize, d: usize| {
        path.clear();
        let spread = routing.spread(&flow_of(net, s, d));
        if routing
            .walk_spread(net, net.hosts[s], net.hosts[d], spread, |p| path.push(p))
            .is_none()
        {
            a.unreachable_pairs += 1;
            return;
        }
        let links = path.len() as u32;
        let hops = links - merged[s] as u32 - merged[d] as u32;
        a.pairs += 1;
        hops_sum += hops as u64;
        links_sum += links as u64;
        a.max_hops = a.max_hops.max(hops);
        latency_sum += latency.of_path(&path, message_bytes) as f64;
        if !handled.is_empty() {
            for (i, &p) in path.iter().enumerate() {
                let node = net.peer_node(p);
                let skip = i == 0 && merged[s];
                if !skip && net.nodes[node as usize].kind != NodeKind::Host {
                    handled[node as usize] += 1;
                }
            }
        }
    };
    for_each_pair(pattern, h, &mut visit);
    if a.pairs > 0 {
        let n = a.pairs as f64;
        a.mean_hops = hops_sum as f64 / n;
        a.mean_links = links_sum as f64 / n;
        a.mean_latency_ns = latency_sum / n;
    }
    a.handled = handled
        .iter()
        .enumerate()
        .filter(|&(i, _)| net.nodes[i].kind != NodeKind::Host)
        .map(|(i, &c)| (net.nodes[i].name.clone(), c))
        .collect();
    a
}

/// Calls `visit(s, d)` with the host indices of every pair of `pattern`
/// on `hosts` hosts, in a fixed order.
pub fn for_each_pair(pattern: Pattern, hosts: usize, visit: &mut dyn FnMut(usize, usize)) {
    let h = hosts;
    match pattern {
        Pattern::Random { pairs, seed } => {
            if h >= 2 {
                let mut rng = SimRng::new(seed);
                for _ in 0..pairs {
                    let s = rng.below(h as u64) as usize;
                    let d = (s + 1 + rng.below(h as u64 - 1) as usize) % h;
                    visit(s, d);
                }
            }
        }
        Pattern::Ring => {
            if h >= 2 {
                for s in 0..h {
                    visit(s, (s + 1) % h);
                }
            }
        }
        Pattern::AllToAll => {
            for s in 0..h {
                for d in 0..h {
                    if s != d {
                        visit(s, d);
                    }
                }
            }
        }
    }
}

/// The flow the packet simulator opens from the rank on host index `s` to
/// the rank on host index `d` when every host runs one rank in host order
/// (rank r on host r): their addresses and the connection's ports
/// ([`crate::wire::packet::connection_ports`]).
pub fn flow_of(net: &Network, s: usize, d: usize) -> FlowKey {
    let ip = |h: usize| {
        net.nodes[net.hosts[h] as usize]
            .ip
            .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED)
    };
    let (src_port, dst_port) = crate::wire::packet::connection_ports(s as u32, d as u32);
    FlowKey {
        src_ip: ip(s),
        dst_ip: ip(d),
        src_port,
        dst_port,
    }
}

/// The largest hop count between two hosts.
fn diameter(net: &Network, routing: &Routing, merged: &[bool]) -> Option<u32> {
    let h = net.hosts.len();
    if h < 2 {
        return Some(0);
    }
    if let Some(d) = routing.router_diameter() {
        // Generated shapes: every host attaches the same way.
        let attach_links = if merged[0] { 0 } else { 2 };
        return Some(d + attach_links);
    }
    if h > DIAMETER_BFS_HOSTS {
        return None;
    }
    let host_index: Vec<Option<usize>> = {
        let mut v = vec![None; net.nodes.len()];
        for (i, &n) in net.hosts.iter().enumerate() {
            v[n as usize] = Some(i);
        }
        v
    };
    let mut best = 0;
    let mut dist = vec![u32::MAX; net.nodes.len()];
    let mut queue = VecDeque::new();
    for (s, &src) in net.hosts.iter().enumerate() {
        dist.fill(u32::MAX);
        dist[src as usize] = 0;
        queue.push_back(src);
        while let Some(u) = queue.pop_front() {
            let du = dist[u as usize];
            if let Some(d) = host_index[u as usize] {
                if d != s {
                    best = best.max(du - merged[s] as u32 - merged[d] as u32);
                    continue;
                }
            }
            for &p in &net.nodes[u as usize].ports {
                let v: NodeId = net.peer_node(p);
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = du + 1;
                    queue.push_back(v);
                }
            }
        }
    }
    Some(best)
}

/// The network as a Graphviz DOT graph: hosts as boxes, switches as
/// diamonds, routers as ellipses, links labelled with their name when it
/// is not the default `a-b`.
pub fn dot(net: &Network) -> String {
    let mut out = String::from("graph network {\n  layout=neato; overlap=false; splines=true;\n");
    for n in &net.nodes {
        let shape = match n.kind {
            NodeKind::Host => "box",
            NodeKind::Switch(_) => "diamond",
            NodeKind::Router => "ellipse",
        };
        out.push_str(&format!("  \"{}\" [shape={shape}];\n", n.name));
    }
    for l in &net.links {
        let a = &net.nodes[net.ports[l.ends[0] as usize].node as usize].name;
        let b = &net.nodes[net.ports[l.ends[1] as usize].node as usize].name;
        if l.name == format!("{a}-{b}") {
            out.push_str(&format!("  \"{a}\" -- \"{b}\";\n"));
        } else {
            out.push_str(&format!("  \"{a}\" -- \"{b}\" [label=\"{}\"];\n", l.name));
        }
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every frame through every hop, one at a time (what the closed form
    /// replaces).
    fn frame_by_frame(cost: &[PortCost], bytes: u64) -> u64 {
        let mss = cost.iter().map(|c| c.mtu as u64).min().unwrap() - 40;
        let segments = bytes.max(1).div_ceil(mss);
        let mut done = vec![0u64; cost.len()];
        let mut arrive = 0;
        for s in 0..segments {
            let payload = if s + 1 == segments {
                bytes.max(1) - s * mss
            } else {
                mss
            };
            let wire = data_frame_wire_len(payload);
            arrive = 0;
            for (l, c) in cost.iter().enumerate() {
                let end = arrive.max(done[l]) + serialization_time(wire, c.rate_bps).0;
                done[l] = end;
                arrive = end + c.delay_ns;
            }
        }
        arrive
    }

    #[test]
    fn the_closed_form_train_equals_frame_by_frame_pipelining() {
        let mut rng = crate::base::rng::SimRng::new(7);
        for _ in 0..300 {
            let hops = 1 + rng.below(6) as usize;
            let cost: Vec<PortCost> = (0..hops)
                .map(|_| PortCost {
                    rate_bps: [0, 1_000_000, 100_000_000, 1_000_000_000, 10_000_000_000]
                        [rng.below(5) as usize],
                    delay_ns: rng.below(1_000_000),
                    mtu: [576, 1500, 9000][rng.below(3) as usize],
                })
                .collect();
            let mut lat = Latency {
                cost: cost.clone(),
                done: Vec::new(),
            };
            let path: Vec<PortId> = (0..hops as PortId).collect();
            for bytes in [
                0,
                1,
                536,
                1460,
                1461,
                8960,
                100_000,
                1 + rng.below(3_000_000),
            ] {
                assert_eq!(
                    lat.of_path(&path, bytes),
                    frame_by_frame(&cost, bytes),
                    "{bytes} bytes over {cost:?}"
                );
            }
        }
    }

    #[test]
    fn a_message_of_any_size_is_one_pass() {
        let cost = vec![
            PortCost {
                rate_bps: 1_000_000_000,
                delay_ns: 500_000,
                mtu: 1500,
            };
            2
        ];
        let mut lat = Latency {
            cost,
            done: Vec::new(),
        };
        // 2^53 + 1 bytes: 6.2e12 frames of 12.304 µs, done in one pass.
        let t = lat.of_path(&[0, 1], (1 << 53) + 1);
        let frames = ((1u64 << 53) + 1).div_ceil(1460);
        assert!(
            t > (frames - 1) * 12_304 && t < frames * 12_304 + 2_000_000,
            "{t}"
        );
        assert_eq!(lat.of_path(&[0, 1], u64::MAX), u64::MAX, "saturates");
    }
}
