//! Routing of regular generated networks from router coordinates: no
//! per-destination state, so a 65,536-host torus or fat-tree routes any
//! number of pairs in memory linear in its size.
//!
//! Shortest-path routing here is the gradient of an exact closed-form
//! distance between routers ([`Structured::router_distance`]): at each
//! router, the ports whose neighbour is one link closer, split by
//! [`super::tie_break`] (or, under ECMP, by the flow's hash) exactly as the
//! tables split them, so both ways give the same paths. Dimension-order (mesh, torus, ring) and e-cube
//! (hypercube) routing pick one fixed shortest path instead; a directed
//! ring always goes to router i+1.

use super::Spread;
use crate::config::RoutingPolicy;
use crate::topology::generators::dragonfly_global_router;
use crate::topology::generators::{Layout, Shape};
use crate::topology::{Network, NodeId, NodeKind, PortId};

/// Coordinate routing for one generated network.
#[derive(Debug, Clone)]
pub struct Structured {
    shape: Shape,
    policy: RoutingPolicy,
    routers: u32,
    /// Grid: index distance between neighbours along each dimension.
    strides: Vec<u32>,
    /// Router r's router neighbours are `adj[adj_start[r]..adj_start[r+1]]`
    /// as (port, neighbour router), in port order: one contiguous block per
    /// router, so a step touches one cache line or two.
    adj_start: Vec<u32>,
    adj: Vec<(PortId, u32)>,
}

/// Most dimensions the grid fast path handles without allocating.
const MAX_FAST_DIMS: usize = 8;

/// A destination router with its grid coordinates worked out once per path.
struct Target {
    router: u32,
    coords: [u32; MAX_FAST_DIMS],
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
        let first = shape.first_router;
        let mut adj_start = Vec::with_capacity(routers as usize + 1);
        let mut adj = Vec::new();
        for r in 0..routers {
            adj_start.push(adj.len() as u32);
            for &p in &net.nodes[(first + r) as usize].ports {
                if let Some(v) = net.peer_node(p).checked_sub(first).filter(|&v| v < routers) {
                    adj.push((p, v));
                }
            }
        }
        adj_start.push(adj.len() as u32);
        Some(Structured {
            shape,
            policy: net.routing,
            routers,
            strides,
            adj_start,
            adj,
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

    fn neighbours(&self, u: u32) -> &[(PortId, u32)] {
        &self.adj[self.adj_start[u as usize] as usize..self.adj_start[u as usize + 1] as usize]
    }

    fn port_to_router(&self, u: u32, v: u32) -> Option<(PortId, u32)> {
        self.neighbours(u).iter().copied().find(|&(_, w)| w == v)
    }

    /// The next port from `at` toward host `dst` (host index `di`), ties
    /// split by `spread`.
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
        let node = &net.nodes[at as usize];
        if node.kind == NodeKind::Host {
            return node.ports.first().copied();
        }
        let u = self.router_index(at)?;
        let t = self.router_index(net.attachment(dst)?)?;
        if u == t {
            return port_to_host(net, at, dst);
        }
        self.step(u, &self.target(t), di, spread).map(|(p, _)| p)
    }

    /// The next port from router `at` toward router `router` on a
    /// shortest path (ties split by the target router's number).
    pub fn next_port_to_router(&self, at: NodeId, router: NodeId) -> Option<PortId> {
        let (u, t) = (self.router_index(at)?, self.router_index(router)?);
        if u == t {
            return None;
        }
        let key = u32::MAX - t;
        (self.step(u, &self.target(t), key, Spread::Destination)).map(|(p, _)| p)
    }

    /// Calls `visit` with each output port from host `src` to host `dst`
    /// (host index `di`), stepping on router numbers only; ties split by
    /// `spread`.
    pub fn walk(
        &self,
        net: &Network,
        src: NodeId,
        dst: NodeId,
        di: u32,
        spread: Spread,
        visit: &mut dyn FnMut(PortId),
    ) -> Option<()> {
        if src == dst {
            return Some(());
        }
        let first = *net.nodes[src as usize].ports.first()?;
        visit(first);
        let mut u = self.router_index(net.peer_node(first))?;
        let t = self.router_index(net.attachment(dst)?)?;
        let target = self.target(t);
        let mut guard = self.routers;
        while u != t {
            let (p, v) = self.step(u, &target, di, spread)?;
            visit(p);
            u = v;
            guard = guard.checked_sub(1)?;
        }
        visit(port_to_host(net, self.shape.first_router + t, dst)?);
        Some(())
    }

    fn target(&self, t: u32) -> Target {
        let mut coords = [0; MAX_FAST_DIMS];
        if let Layout::Grid { dims, .. } = &self.shape.layout {
            for (k, &d) in dims.iter().enumerate().take(MAX_FAST_DIMS) {
                coords[k] = (t / self.strides[k]) % d;
            }
        }
        Target { router: t, coords }
    }

    /// One step from router `u` toward router `target` (`u != target`): the
    /// port and the next router.
    fn step(&self, u: u32, target: &Target, di: u32, spread: Spread) -> Option<(PortId, u32)> {
        let t = target.router;
        match (&self.shape.layout, self.policy) {
            (Layout::DirectedRing { n }, _) => self.port_to_router(u, (u + 1) % n),
            (Layout::Grid { dims, wrap }, RoutingPolicy::DimensionOrder) => {
                let next = self.dimension_order_step(dims, wrap, u, t);
                self.port_to_router(u, next)
            }
            (Layout::Hypercube { .. }, RoutingPolicy::ECube) => {
                let bit = (u ^ t).trailing_zeros();
                self.port_to_router(u, u ^ (1 << bit))
            }
            (Layout::FatTree { k }, RoutingPolicy::DModK) => {
                // Routers: cores, then aggregation, then edge routers; an
                // edge router's uplinks go to aggregation routers 0..k/2 and
                // an aggregation router's to its cores in order, so the
                // candidate's position is the router's number. Going down
                // there is one candidate.
                let half = k / 2;
                let aggs_end = half * half + k * half;
                let digit = if u >= aggs_end {
                    di % half
                } else {
                    (di / half) % half
                };
                self.gradient_step(u, target, di, Spread::Fixed(digit))
            }
            _ => self.gradient_step(u, target, di, spread),
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

    fn gradient_step(
        &self,
        u: u32,
        target: &Target,
        di: u32,
        spread: Spread,
    ) -> Option<(PortId, u32)> {
        let t = target.router;
        let adj = self.neighbours(u);
        let node = self.shape.first_router + u;
        match &self.shape.layout {
            Layout::Grid { dims, wrap } if dims.len() <= MAX_FAST_DIMS => {
                let grid = GridStep::new(dims, wrap, &self.strides, u, &target.coords);
                let closer = adj.iter().filter(|&&(_, v)| grid.moves_closer(u, v));
                spread.pick(node, di, closer.copied())
            }
            _ => {
                let d = self.router_distance(u, t);
                let closer = adj
                    .iter()
                    .filter(|&&(_, v)| self.router_distance(v, t) + 1 == d);
                spread.pick(node, di, closer.copied())
            }
        }
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

/// One grid router's coordinates relative to a target, so that each
/// neighbour is judged without divisions.
struct GridStep<'a> {
    dims: &'a [u32],
    wrap: &'a [bool],
    strides: &'a [u32],
    /// Coordinates of u and of the target along each dimension.
    cu: [u32; MAX_FAST_DIMS],
    ct: [u32; MAX_FAST_DIMS],
}

impl<'a> GridStep<'a> {
    fn new(
        dims: &'a [u32],
        wrap: &'a [bool],
        strides: &'a [u32],
        u: u32,
        ct: &[u32; MAX_FAST_DIMS],
    ) -> Self {
        let mut g = GridStep {
            dims,
            wrap,
            strides,
            cu: [0; MAX_FAST_DIMS],
            ct: *ct,
        };
        for k in 0..dims.len() {
            g.cu[k] = (u / strides[k]) % dims[k];
        }
        g
    }

    fn delta(&self, k: usize, c: u32) -> u32 {
        let d = c.abs_diff(self.ct[k]);
        if self.wrap[k] {
            d.min(self.dims[k] - d)
        } else {
            d
        }
    }

    /// Whether neighbour `v` of `u` is one link closer to the target.
    fn moves_closer(&self, u: u32, v: u32) -> bool {
        let diff = v.abs_diff(u);
        for k in 0..self.dims.len() {
            let (s, d) = (self.strides[k], self.dims[k]);
            let c = self.cu[k];
            let moved = if diff == s && d > 1 {
                // A neighbour along k without wrapping; which way?
                if v > u {
                    c + 1
                } else {
                    c - 1
                }
            } else if self.wrap[k] && diff == (d - 1) * s {
                if v > u {
                    d - 1
                } else {
                    0
                }
            } else {
                continue;
            };
            // Strides can coincide only for dimensions of size 1, skipped above.
            return self.delta(k, moved) + 1 == self.delta(k, c);
        }
        false
    }
}

/// The port of node `at` that leads straight to host `dst`.
fn port_to_host(net: &Network, at: NodeId, dst: NodeId) -> Option<PortId> {
    net.nodes[at as usize]
        .ports
        .iter()
        .copied()
        .find(|&p| net.peer_node(p) == dst)
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
