//! Exact shortest paths by breadth-first search, one search per destination
//! host, computed the first time a packet needs that destination and kept.
//! A search stores one distance (in links) and one cached next port per
//! node: memory is 8 bytes × nodes × destinations in use, never nodes × all
//! hosts.
//!
//! Tables can be built for the graph minus a set of dead links (faults,
//! [`ShortestTables::without_links`]): searches then never cross those
//! links, and nodes whose every path crosses them are unreachable.

use super::Spread;
use crate::topology::{Network, NodeId, NodeKind, PortId};
use std::cell::{Cell, OnceCell};
use std::collections::VecDeque;

/// Distance meaning "cannot reach the destination".
const UNREACHABLE: u32 = u32::MAX;

/// "Next port not worked out yet" in [`Toward::next`].
const UNKNOWN: u32 = u32::MAX;
/// "No next port" (unreachable) in [`Toward::next`].
const NONE: u32 = u32::MAX - 1;

/// Everything known about one destination host.
#[derive(Debug)]
struct Toward {
    /// Links from each node to the destination.
    dist: Box<[u32]>,
    /// Each node's chosen output port, filled in as packets need it (so a
    /// big switch scans its ports once per destination, not per frame).
    next: Box<[Cell<u32>]>,
}

/// Lazily computed distances toward every destination host.
#[derive(Debug)]
pub struct ShortestTables {
    /// `toward[host index]`, computed on first use.
    toward: Vec<OnceCell<Toward>>,
    /// Per link: true when the link may not be used (failed, or an end node
    /// is down). Empty when every link is usable.
    dead: Box<[bool]>,
}

impl ShortestTables {
    /// Empty tables for `hosts` destinations.
    pub fn new(hosts: usize) -> ShortestTables {
        ShortestTables {
            toward: (0..hosts).map(|_| OnceCell::new()).collect(),
            dead: Box::default(),
        }
    }

    /// Empty tables for `hosts` destinations on the graph without the links
    /// whose entry in `dead` (indexed by link) is true.
    pub fn without_links(hosts: usize, dead: Box<[bool]>) -> ShortestTables {
        ShortestTables {
            toward: (0..hosts).map(|_| OnceCell::new()).collect(),
            dead,
        }
    }

    fn toward(&self, net: &Network, dst: NodeId, di: u32) -> &Toward {
        self.toward[di as usize].get_or_init(|| Toward {
            dist: bfs_toward(net, dst, &self.dead),
            next: (0..net.nodes.len()).map(|_| Cell::new(UNKNOWN)).collect(),
        })
    }

    /// Distances toward host `dst` (index `di`), computing them once.
    pub fn distances(&self, net: &Network, dst: NodeId, di: u32) -> &[u32] {
        &self.toward(net, dst, di).dist
    }

    /// The next port from `at` toward `dst` on a shortest path, ties split
    /// by `spread` (a choice by destination is kept; any other is made anew).
    pub fn next_port(
        &self,
        net: &Network,
        at: NodeId,
        dst: NodeId,
        di: u32,
        spread: Spread,
    ) -> Option<PortId> {
        if at == dst {
            return None;
        }
        let toward = self.toward(net, dst, di);
        if spread != Spread::Destination {
            return choose(net, &toward.dist, &self.dead, at, dst, di, spread);
        }
        let cached = toward.next[at as usize].get();
        if cached != UNKNOWN {
            return (cached != NONE).then_some(cached);
        }
        let chosen = choose(net, &toward.dist, &self.dead, at, dst, di, spread);
        toward.next[at as usize].set(chosen.unwrap_or(NONE));
        chosen
    }
}

/// The shortest-path next port of `at` toward `dst`, ties split by `spread`.
fn choose(
    net: &Network,
    dist: &[u32],
    dead: &[bool],
    at: NodeId,
    dst: NodeId,
    di: u32,
    spread: Spread,
) -> Option<PortId> {
    let d = dist[at as usize];
    if d == UNREACHABLE || d == 0 {
        return None;
    }
    let leads_closer = |&&p: &&PortId| {
        let peer = net.peer_node(p);
        !is_dead(dead, net, p)
            && dist[peer as usize] == d - 1
            && (peer == dst || net.nodes[peer as usize].kind != NodeKind::Host)
    };
    let ports = &net.nodes[at as usize].ports;
    spread.pick(at, di, ports.iter().filter(leads_closer).copied())
}

/// True when the link of port `p` is in the dead set.
fn is_dead(dead: &[bool], net: &Network, p: PortId) -> bool {
    !dead.is_empty() && dead[net.ports[p as usize].link as usize]
}

/// Links from every node to `dst`, along paths whose inner nodes are
/// routers or switches and that use no dead link.
fn bfs_toward(net: &Network, dst: NodeId, dead: &[bool]) -> Box<[u32]> {
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
            if is_dead(dead, net, p) {
                continue;
            }
            let v = net.peer_node(p);
            if dist[v as usize] == UNREACHABLE {
                dist[v as usize] = du + 1;
                queue.push_back(v);
            }
        }
    }
    dist
}
