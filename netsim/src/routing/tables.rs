//! Exact shortest paths by breadth-first search, one search per destination
//! host, computed the first time a packet needs that destination and kept.
//! A search stores one distance (in links) per node: memory is
//! nodes × destinations in use, never nodes × all hosts.

use super::tie_break;
use crate::topology::{Network, NodeId, NodeKind, PortId};
use std::cell::OnceCell;
use std::collections::VecDeque;

/// Distance meaning "cannot reach the destination".
const UNREACHABLE: u32 = u32::MAX;

/// Lazily computed distances toward every destination host.
#[derive(Debug)]
pub struct ShortestTables {
    /// `toward[host index][node]`: links from node to that host.
    toward: Vec<OnceCell<Box<[u32]>>>,
}

impl ShortestTables {
    /// Empty tables for `hosts` destinations.
    pub fn new(hosts: usize) -> ShortestTables {
        ShortestTables {
            toward: (0..hosts).map(|_| OnceCell::new()).collect(),
        }
    }

    /// Distances toward host `dst` (index `di`), computing them once.
    pub fn distances(&self, net: &Network, dst: NodeId, di: u32) -> &[u32] {
        self.toward[di as usize].get_or_init(|| bfs_toward(net, dst))
    }

    /// The next port from `at` toward `dst` on a shortest path.
    pub fn next_port(&self, net: &Network, at: NodeId, dst: NodeId, di: u32) -> Option<PortId> {
        if at == dst {
            return None;
        }
        let dist = self.distances(net, dst, di);
        let d = dist[at as usize];
        if d == UNREACHABLE || d == 0 {
            return None;
        }
        let leads_closer = |&&p: &&PortId| {
            let peer = net.peer_node(p);
            dist[peer as usize] == d - 1
                && (peer == dst || net.nodes[peer as usize].kind != NodeKind::Host)
        };
        let ports = &net.nodes[at as usize].ports;
        let count = ports.iter().filter(leads_closer).count();
        if count == 0 {
            return None;
        }
        let pick = tie_break(at, di, count);
        ports.iter().filter(leads_closer).nth(pick).copied()
    }
}

/// Links from every node to `dst`, along paths whose inner nodes are
/// routers or switches.
fn bfs_toward(net: &Network, dst: NodeId) -> Box<[u32]> {
    let mut dist = vec![UNREACHABLE; net.nodes.len()].into_boxed_slice();
    let mut queue = VecDeque::new();
    dist[dst as usize] = 0;
    queue.push_back(dst);
    while let Some(u) = queue.pop_front() {
        if u != dst && net.nodes[u as usize].kind == NodeKind::Host {
            continue;
        }
        let du = dist[u as usize];
        for &p in &net.nodes[u as usize].ports {
            let v = net.peer_node(p);
            if dist[v as usize] == UNREACHABLE {
                dist[v as usize] = du + 1;
                queue.push_back(v);
            }
        }
    }
    dist
}
