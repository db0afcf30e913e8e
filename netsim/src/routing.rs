//! Static forwarding computed from the graph before a run.
//!
//! * L3 (hosts and routers): for every destination host, the output port and
//!   the MAC of the next L3 hop, on a shortest path counted in links. Only
//!   routers forward; hosts are path endpoints. Ties go to the lowest output
//!   port id, then the lowest next-hop node id, so tables are deterministic.
//! * L2 (static switches): for every L3 interface MAC, the port on a shortest
//!   switch-only path toward it (breadth-first, ports in id order).

use crate::addr::MacAddr;
use crate::fasthash::FastMap;
use crate::topology::{Network, NodeId, NodeKind, PortId};
use std::collections::{BinaryHeap, VecDeque};

/// Where an L3 node sends a packet for one destination host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Output port.
    pub port: PortId,
    /// Destination MAC for the frame (the next L3 hop's interface).
    pub next_hop_mac: MacAddr,
    /// Links from here to the destination host.
    pub hops: u32,
}

/// An L3 neighbour reachable through one L2 segment.
#[derive(Debug, Clone, Copy)]
struct Adjacency {
    out_port: PortId,
    neighbour: NodeId,
    neighbour_mac: MacAddr,
    links: u32,
}

/// All forwarding state of a network.
#[derive(Debug, Clone)]
pub struct RouteTable {
    /// `l3[node][host_index]`: route from an L3 node toward a host.
    l3: Vec<Vec<Option<Route>>>,
    /// `l2[node]`: MAC → output port, for static switches.
    l2: Vec<FastMap<MacAddr, PortId>>,
    host_index: FastMap<NodeId, usize>,
}

impl RouteTable {
    /// Computes every table of `net`.
    pub fn compute(net: &Network) -> RouteTable {
        let n = net.nodes.len();
        let mut l2: Vec<FastMap<MacAddr, PortId>> = vec![FastMap::default(); n];
        let mut adj: Vec<Vec<Adjacency>> = vec![Vec::new(); n];
        // L2 breadth-first search from every L3 interface.
        for (pid, port) in net.ports.iter().enumerate() {
            let owner = port.node;
            if !net.nodes[owner as usize].kind.is_l3() {
                continue;
            }
            let peer = &net.ports[port.peer as usize];
            let first = peer.node;
            if net.nodes[first as usize].kind.is_l3() {
                adj[owner as usize].push(Adjacency {
                    out_port: pid as PortId,
                    neighbour: first,
                    neighbour_mac: peer.mac,
                    links: 1,
                });
                continue;
            }
            // Switch domain: BFS; `toward` = port of each switch leading back to `pid`.
            let mut depth: FastMap<NodeId, u32> = FastMap::default();
            let mut queue = VecDeque::new();
            depth.insert(first, 1);
            l2[first as usize].entry(port.mac).or_insert(port.peer);
            queue.push_back(first);
            while let Some(sw) = queue.pop_front() {
                let d = depth[&sw];
                for &sp in &net.nodes[sw as usize].ports {
                    let far = &net.ports[net.ports[sp as usize].peer as usize];
                    let far_node = far.node;
                    if far_node == owner && net.ports[sp as usize].peer == pid as PortId {
                        continue;
                    }
                    match net.nodes[far_node as usize].kind {
                        NodeKind::Switch(_) => {
                            if let std::collections::hash_map::Entry::Vacant(e) =
                                depth.entry(far_node)
                            {
                                e.insert(d + 1);
                                l2[far_node as usize]
                                    .entry(port.mac)
                                    .or_insert(net.ports[sp as usize].peer);
                                queue.push_back(far_node);
                            }
                        }
                        _ => {
                            if far_node != owner {
                                adj[owner as usize].push(Adjacency {
                                    out_port: pid as PortId,
                                    neighbour: far_node,
                                    neighbour_mac: far.mac,
                                    links: d + 1,
                                });
                            }
                        }
                    }
                }
            }
        }
        for a in &mut adj {
            a.sort_by_key(|x| (x.out_port, x.neighbour, x.links));
        }
        // L3 Dijkstra toward every host.
        let host_index: FastMap<NodeId, usize> =
            net.hosts.iter().enumerate().map(|(i, &h)| (h, i)).collect();
        let mut l3 = vec![vec![None; net.hosts.len()]; n];
        for (hi, &dst) in net.hosts.iter().enumerate() {
            let dist = distances_to(net, &adj, dst);
            for node in 0..n {
                if node as NodeId == dst || !net.nodes[node].kind.is_l3() {
                    continue;
                }
                let mut best: Option<(u32, PortId, NodeId, MacAddr)> = None;
                for a in &adj[node] {
                    let via = if a.neighbour == dst {
                        Some(0)
                    } else if net.nodes[a.neighbour as usize].kind == NodeKind::Router {
                        dist[a.neighbour as usize]
                    } else {
                        None
                    };
                    if let Some(rest) = via {
                        let key = (a.links + rest, a.out_port, a.neighbour, a.neighbour_mac);
                        if best.is_none_or(|b| (key.0, key.1, key.2) < (b.0, b.1, b.2)) {
                            best = Some(key);
                        }
                    }
                }
                l3[node][hi] = best.map(|(hops, port, _, mac)| Route {
                    port,
                    next_hop_mac: mac,
                    hops,
                });
            }
        }
        RouteTable { l3, l2, host_index }
    }

    /// The route from L3 node `from` toward host node `to`, if reachable.
    pub fn route(&self, from: NodeId, to: NodeId) -> Option<Route> {
        let hi = *self.host_index.get(&to)?;
        self.l3[from as usize][hi]
    }

    /// The output port a static switch uses for `mac`, if known.
    pub fn switch_port(&self, switch: NodeId, mac: MacAddr) -> Option<PortId> {
        self.l2[switch as usize].get(&mac).copied()
    }
}

/// Links from every node to `dst`, expanding only through routers.
fn distances_to(net: &Network, adj: &[Vec<Adjacency>], dst: NodeId) -> Vec<Option<u32>> {
    let mut dist: Vec<Option<u32>> = vec![None; net.nodes.len()];
    let mut heap = BinaryHeap::new();
    dist[dst as usize] = Some(0);
    heap.push(std::cmp::Reverse((0u32, dst)));
    while let Some(std::cmp::Reverse((d, node))) = heap.pop() {
        if dist[node as usize] != Some(d) {
            continue;
        }
        if node != dst && net.nodes[node as usize].kind != NodeKind::Router {
            continue;
        }
        for a in &adj[node as usize] {
            let nd = d + a.links;
            let m = a.neighbour as usize;
            if dist[m].is_none_or(|old| nd < old) {
                dist[m] = Some(nd);
                heap.push(std::cmp::Reverse((nd, a.neighbour)));
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetworkConfig;

    fn net(toml: &str) -> Network {
        let cfg = NetworkConfig::from_toml_str(toml, "t").unwrap();
        Network::from_config(&cfg, "t").unwrap()
    }

    #[test]
    fn star_through_a_switch_is_two_links() {
        let n = net("[[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n[[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n");
        let rt = RouteTable::compute(&n);
        let r = rt.route(0, 1).unwrap();
        assert_eq!(r.hops, 2);
        assert_eq!(r.next_hop_mac, n.ports[n.nodes[1].ports[0] as usize].mac);
        // The switch knows h1's MAC on the port facing h1.
        let sw = n.node_by_name("s").unwrap();
        let p = rt.switch_port(sw, r.next_hop_mac).unwrap();
        assert_eq!(n.ports[n.ports[p as usize].peer as usize].node, 1);
    }

    #[test]
    fn router_chain_picks_next_router_mac() {
        // h0 - r0 - r1 - h1: three hops, first hop MAC is r0's interface.
        let n = net("[[host]]\nname='h0'\n[[host]]\nname='h1'\n[[router]]\nname='r0'\n[[router]]\nname='r1'\n[[link]]\na='h0'\nb='r0'\n[[link]]\na='r0'\nb='r1'\n[[link]]\na='r1'\nb='h1'\n");
        let rt = RouteTable::compute(&n);
        let r = rt.route(0, 1).unwrap();
        assert_eq!(r.hops, 3);
        let r0 = n.node_by_name("r0").unwrap();
        assert_eq!(n.ports[r.port as usize].peer, n.nodes[r0 as usize].ports[0]);
        // Hosts never forward: with h1 only reachable through another host, no route.
        let n2 = net("[[host]]\nname='a'\n[[host]]\nname='b'\n[[host]]\nname='c'\n[[link]]\na='a'\nb='b'\n[[link]]\na='b'\nb='c'\n");
        let rt2 = RouteTable::compute(&n2);
        assert!(rt2.route(0, 2).is_none());
        assert_eq!(rt2.route(0, 1).unwrap().hops, 1);
    }
}
