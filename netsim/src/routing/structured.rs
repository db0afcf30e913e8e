//! Routing of regular generated networks from router coordinates: no
//! per-destination state, so a 65,536-host torus or fat-tree routes any
//! number of pairs in memory linear in its size.
//!
//! Shortest-path routing here is the gradient of an exact closed-form
//! distance between routers ([`Structured::router_distance`]): at each
//! router, the ports whose neighbour is one link closer, split by
//! [`super::tie_break`] exactly as the tables split them, so both ways give
//! the same paths. Dimension-order (mesh, torus, ring) and e-cube
//! (hypercube) routing pick one fixed shortest path instead; a directed
//! ring always goes to router i+1.

use super::tie_break;
use crate::config::RoutingPolicy;
use crate::generators::dragonfly_global_router;
use crate::generators::{Layout, Shape};
use crate::topology::{Network, NodeId, NodeKind, PortId};

/// Coordinate routing for one generated network.
#[derive(Debug, Clone)]
pub struct Structured {
    shape: Shape,
    policy: RoutingPolicy,
    routers: u32,
    /// Grid: index distance between neighbours along each dimension.
    strides: Vec<u32>,
}

impl Structured {
    /// Coordinate routing for `net`, when it has a regular shape.
    pub fn for_network(net: &Network) -> Option<Structured> {
        let shape = net.shape.clone()?;
        let routers = net.nodes.len() as u32 - shape.first_router;
        let strides = match &shape.layout {
            Layout::Grid { dims, .. } => {
                let mut s = vec![1u32; dims.len()];
                for k in (0..dims.len().saturating_sub(1)).rev() {
                    s[k] = s[k + 1] * dims[k + 1];
                }
                s
            }
            _ => Vec::new(),
        };
        Some(Structured {
            shape,
            policy: net.routing,
            routers,
            strides,
        })
    }

    /// The layout routed.
    pub fn layout(&self) -> &Layout {
        &self.shape.layout
    }

    fn router_index(&self, node: NodeId) -> Option<u32> {
        node.checked_sub(self.shape.first_router)
            .filter(|&r| r < self.routers)
    }

    fn port_to_router(&self, net: &Network, at: NodeId, router: u32) -> Option<PortId> {
        let target = self.shape.first_router + router;
        net.nodes[at as usize]
            .ports
            .iter()
            .copied()
            .find(|&p| net.peer_node(p) == target)
    }

    /// The next port from `at` toward host `dst` (host index `di`).
    pub fn next_port(&self, net: &Network, at: NodeId, dst: NodeId, di: u32) -> Option<PortId> {
        if at == dst {
            return None;
        }
        let node = &net.nodes[at as usize];
        if node.kind == NodeKind::Host {
            return node.ports.first().copied();
        }
        let u = self.router_index(at)?;
        let attach = net.attachment(dst)?;
        let t = self.router_index(attach)?;
        if u == t {
            return node
                .ports
                .iter()
                .copied()
                .find(|&p| net.peer_node(p) == dst);
        }
        match (&self.shape.layout, self.policy) {
            (Layout::DirectedRing { n }, _) => self.port_to_router(net, at, (u + 1) % n),
            (Layout::Grid { dims, wrap }, RoutingPolicy::DimensionOrder) => {
                let next = self.dimension_order_step(dims, wrap, u, t);
                self.port_to_router(net, at, next)
            }
            (Layout::Hypercube { .. }, RoutingPolicy::ECube) => {
                let bit = (u ^ t).trailing_zeros();
                self.port_to_router(net, at, u ^ (1 << bit))
            }
            _ => self.gradient_step(net, at, u, t, di),
        }
    }

    /// Dimension order: the first dimension whose coordinates differ, the
    /// shorter way round when it wraps (+1 when both ways are equal).
    fn dimension_order_step(&self, dims: &[u32], wrap: &[bool], u: u32, t: u32) -> u32 {
        for (k, &d) in dims.iter().enumerate() {
            let s = self.strides[k];
            let (cu, ct) = ((u / s) % d, (t / s) % d);
            if cu == ct {
                continue;
            }
            let forward = if wrap[k] {
                let ahead = (ct + d - cu) % d;
                ahead <= d - ahead
            } else {
                ct > cu
            };
            let c = if forward {
                (cu + 1) % d
            } else {
                (cu + d - 1) % d
            };
            return u - cu * s + c * s;
        }
        u
    }

    fn gradient_step(&self, net: &Network, at: NodeId, u: u32, t: u32, di: u32) -> Option<PortId> {
        let d = self.router_distance(u, t);
        let closer = |&&p: &&PortId| {
            self.router_index(net.peer_node(p))
                .is_some_and(|v| self.router_distance(v, t) + 1 == d)
        };
        let ports = &net.nodes[at as usize].ports;
        let count = ports.iter().filter(closer).count();
        if count == 0 {
            return None;
        }
        ports
            .iter()
            .filter(closer)
            .nth(tie_break(at, di, count))
            .copied()
    }

    /// Exact router-to-router distance in links (for a fat-tree, `t` must
    /// be an edge router and for a tree a leaf, as hosts' routers are).
    pub fn router_distance(&self, u: u32, t: u32) -> u32 {
        match &self.shape.layout {
            Layout::Grid { dims, wrap } => dims
                .iter()
                .enumerate()
                .map(|(k, &d)| {
                    let s = self.strides[k];
                    let delta = ((u / s) % d).abs_diff((t / s) % d);
                    if wrap[k] {
                        delta.min(d - delta)
                    } else {
                        delta
                    }
                })
                .sum(),
            Layout::DirectedRing { n } => (t + n - u) % n,
            Layout::Hypercube { .. } => (u ^ t).count_ones(),
            Layout::Tree { arity, .. } => tree_distance(*arity, u, t),
            Layout::FatTree { k } => fat_tree_distance(*k, u, t),
            Layout::Dragonfly { groups, a, h } => Dragonfly {
                groups: *groups,
                a: *a,
                h: *h,
            }
            .distance(u, t),
        }
    }

    /// The largest distance between two routers that have hosts, where a
    /// closed form exists.
    pub fn router_diameter(&self) -> Option<u32> {
        Some(match &self.shape.layout {
            Layout::Grid { dims, wrap } => dims
                .iter()
                .zip(wrap)
                .map(|(&d, &w)| if w { d / 2 } else { d - 1 })
                .sum(),
            Layout::DirectedRing { n } => n - 1,
            Layout::Hypercube { order } => *order,
            Layout::Tree { arity, levels } => {
                if *arity >= 2 {
                    2 * (levels - 1)
                } else {
                    0
                }
            }
            Layout::FatTree { .. } => 4,
            Layout::Dragonfly { .. } => return None,
        })
    }
}

fn tree_depth(arity: u32, mut i: u32) -> u32 {
    let mut d = 0;
    while i > 0 {
        i = (i - 1) / arity;
        d += 1;
    }
    d
}

/// Links between routers `u` and `v` of a breadth-first numbered tree.
fn tree_distance(arity: u32, mut u: u32, mut v: u32) -> u32 {
    let (mut du, mut dv) = (tree_depth(arity, u), tree_depth(arity, v));
    let mut links = 0;
    while du > dv {
        u = (u - 1) / arity;
        du -= 1;
        links += 1;
    }
    while dv > du {
        v = (v - 1) / arity;
        dv -= 1;
        links += 1;
    }
    while u != v {
        u = (u - 1) / arity;
        v = (v - 1) / arity;
        links += 2;
    }
    links
}

/// Links from router `u` to edge router `t` of a k-ary fat-tree.
fn fat_tree_distance(k: u32, u: u32, t: u32) -> u32 {
    let half = k / 2;
    let cores = half * half;
    let aggs = cores + k * half;
    debug_assert!(t >= aggs, "fat-tree destinations are edge routers");
    let t_pod = (t - aggs) / half;
    if u < cores {
        2
    } else if u < aggs {
        if (u - cores) / half == t_pod {
            1
        } else {
            3
        }
    } else if u == t {
        0
    } else if (u - aggs) / half == t_pod {
        2
    } else {
        4
    }
}

/// Dragonfly adjacency and distances (diameter at most 3: local, global,
/// local), computed by looking two links ahead.
struct Dragonfly {
    groups: u32,
    a: u32,
    h: u32,
}

impl Dragonfly {
    /// The router at the far end of each global link of router `r`.
    fn global_peers(&self, r: u32) -> impl Iterator<Item = u32> + '_ {
        let (g, i) = (r / self.a, r % self.a);
        (i * self.h..(i + 1) * self.h)
            .filter(move |&c| c + 1 < self.groups)
            .map(move |c| {
                let t = (g + c + 1) % self.groups;
                t * self.a + dragonfly_global_router(t, g, self.groups, self.h)
            })
    }

    fn adjacent(&self, x: u32, y: u32) -> bool {
        x != y && (x / self.a == y / self.a || self.global_peers(x).any(|p| p == y))
    }

    fn distance(&self, u: u32, t: u32) -> u32 {
        if u == t {
            return 0;
        }
        if self.adjacent(u, t) {
            return 1;
        }
        let g = u / self.a;
        let locals = (g * self.a..(g + 1) * self.a).filter(|&x| x != u);
        let mut neighbours = locals.chain(self.global_peers(u));
        if neighbours.any(|x| self.adjacent(x, t)) {
            2
        } else {
            3
        }
    }
}
