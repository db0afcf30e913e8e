//! Forwarding: which port a host, router or static switch sends a packet
//! out of, toward a destination host.
//!
//! * Every generated or listed network can be routed on **exact shortest
//!   paths** counted in links, through routers and switches (hosts never
//!   forward). They are computed lazily, one breadth-first search per
//!   destination host actually used ([`tables`]), so memory grows with the
//!   destinations in use, not with the square of the network.
//! * Regular generated networks (mesh, torus, ring, hypercube, tree,
//!   fat-tree, dragonfly) are routed from their coordinates instead
//!   ([`structured`]): the same exact shortest paths from a closed-form
//!   distance, or dimension-order / e-cube routing when asked for, in memory
//!   linear in the routers.
//!
//! Tie-break (both ways alike, so they choose the same paths): among the
//! ports that lead one link closer to the destination, in port order, node
//! `n` sends traffic for host index `d` out of candidate number
//! `mix(n, d) mod count` ([`tie_break`]): a fixed per-destination spread
//! like ECMP hashing, so one flow never reorders and a fat-tree's uplinks
//! share the load.
//!
//! With `routing = "ecmp"` the candidates are the same, but each flow (a
//! direction of a TCP connection) chooses by its own seeded 5-tuple hash
//! ([`flow`]; [`Spread::Flow`]), so the flows toward one host spread over
//! every equally short path instead of sharing one. With `routing =
//! "spray"` every packet chooses anew at every node, by a value the
//! simulator draws from its seeded generator ([`Routing::is_spray`]).
//! [`Spread::pick`] is the one place a candidate is chosen. Functions named
//! `*_spread` take the [`Spread`] to use; the others choose by destination.
//!
//! Static switches forward along the same shortest-path tree: a frame a
//! router addressed to the next L3 hop's MAC reaches it because the router
//! computed that MAC by following this tree through the switches.

pub mod detour;
pub mod flow;
pub mod structured;
pub mod tables;

use crate::base::addr::MacAddr;
use crate::topology::{Network, NodeId, NodeKind, PortId};
use detour::DragonflyGroups;
use structured::Structured;
use tables::ShortestTables;

/// Where an L3 node sends a packet for one destination host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Output port.
    pub port: PortId,
    /// Destination MAC for the frame (the next L3 hop's interface).
    pub next_hop_mac: MacAddr,
}

/// Chooses among `count` equally good candidates for traffic at `node`
/// toward host index `dst`: a fixed hash, documented in the module.
pub fn tie_break(node: NodeId, dst: u32, count: usize) -> usize {
    let mut x = ((node as u64) << 32) | dst as u64;
    // splitmix64 finaliser.
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x % count as u64) as usize
}

/// How a node chooses among its equally short next hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// By destination host ([`tie_break`]): every flow toward a host
    /// takes the same path (`routing = "shortest"`).
    Destination,
    /// By the flow's hash ([`flow::pick`]; `routing = "ecmp"`).
    Flow(u64),
    /// The candidate at this position (modulo their number): a rule that
    /// chose it from the destination's coordinates (`routing = "dmodk"`).
    Fixed(u32),
}

impl Spread {
    /// Which of `count` candidates node `node` takes toward host index `di`.
    pub fn choose(self, node: NodeId, di: u32, count: usize) -> usize {
        match self {
            Spread::Destination => tie_break(node, di, count),
            Spread::Flow(hash) => flow::pick(hash, node, count),
            Spread::Fixed(i) => i as usize % count,
        }
    }

    /// The candidate node `node` takes toward host index `di` among those
    /// `candidates` yields (equally short next hops, in port order);
    /// `None` when there are none. The first 64 are kept while counting,
    /// so only a larger radix walks the candidates twice.
    pub fn pick<T: Copy + Default>(
        self,
        node: NodeId,
        di: u32,
        candidates: impl Iterator<Item = T> + Clone,
    ) -> Option<T> {
        let mut first = [T::default(); 64];
        let mut count = 0usize;
        for c in candidates.clone() {
            if let Some(slot) = first.get_mut(count) {
                *slot = c;
            }
            count += 1;
        }
        if count == 0 {
            return None;
        }
        let i = self.choose(node, di, count);
        match first.get(i) {
            Some(&c) => Some(c),
            None => candidates.into_iter().nth(i),
        }
    }
}

/// How this network's paths are computed.
#[derive(Debug)]
enum Strategy {
    Tables(ShortestTables),
    Structured(Structured),
}

/// All forwarding decisions of a network.
#[derive(Debug)]
pub struct Routing {
    strategy: Strategy,
    /// Host index of every node (`u32::MAX` for switches and routers).
    host_index: Vec<u32>,
    /// The seed of the per-flow hash under `routing = "ecmp"`; `None`
    /// when ties are split by destination.
    ecmp_seed: Option<u64>,
    /// True under `routing = "spray"`: the simulator draws every packet's
    /// choice ([`Spread::Flow`] with a random value) at every hop.
    spray: bool,
}

impl Routing {
    /// Prepares routing for `net` (computes nothing per destination yet).
    pub fn new(net: &Network) -> Routing {
        let mut host_index = vec![u32::MAX; net.nodes.len()];
        for (i, &h) in net.hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        let strategy = match Structured::for_network(net) {
            Some(s) => Strategy::Structured(s),
            None => Strategy::Tables(ShortestTables::new(net.hosts.len())),
        };
        Routing {
            strategy,
            host_index,
            ecmp_seed: ecmp_seed(net),
            spray: net.routing == crate::config::RoutingPolicy::Spray,
        }
    }

    /// Shortest-path tables on the graph without the links marked in
    /// `dead` (indexed by link id): how routing converges after faults.
    /// Coordinate routing and routing policies do not apply to such a graph,
    /// except ECMP's per-flow choice among the shortest paths left.
    pub fn without_links(net: &Network, dead: Box<[bool]>) -> Routing {
        let mut host_index = vec![u32::MAX; net.nodes.len()];
        for (i, &h) in net.hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        Routing {
            strategy: Strategy::Tables(ShortestTables::without_links(net.hosts.len(), dead)),
            host_index,
            ecmp_seed: ecmp_seed(net),
            spray: net.routing == crate::config::RoutingPolicy::Spray,
        }
    }

    /// Prepares routing by tables even where the network has a regular
    /// shape (tests compare the two).
    pub fn with_tables(net: &Network) -> Routing {
        let mut r = Routing::new(net);
        r.strategy = Strategy::Tables(ShortestTables::new(net.hosts.len()));
        r
    }

    /// The closed-form largest distance between routers that have hosts,
    /// for regular shapes routed from coordinates.
    pub fn router_diameter(&self) -> Option<u32> {
        match &self.strategy {
            Strategy::Structured(s) => s.router_diameter(),
            Strategy::Tables(_) => None,
        }
    }

    /// True when paths come from coordinates rather than tables.
    pub fn is_structured(&self) -> bool {
        matches!(self.strategy, Strategy::Structured(_))
    }

    /// True when ties are split per flow (`routing = "ecmp"`).
    pub fn is_ecmp(&self) -> bool {
        self.ecmp_seed.is_some() && !self.spray
    }

    /// True when ties are split per packet (`routing = "spray"`): the
    /// caller draws each packet's [`Spread::Flow`] value from its seeded
    /// generator; [`Routing::spread`] then only fixes the first hop of a
    /// host with several links.
    pub fn is_spray(&self) -> bool {
        self.spray
    }

    /// How the flow `key` chooses among equal next hops: by its hash under
    /// ECMP, else by destination.
    pub fn spread(&self, key: &flow::FlowKey) -> Spread {
        match self.ecmp_seed {
            Some(seed) => Spread::Flow(key.hash(seed)),
            None => Spread::Destination,
        }
    }

    /// The groups of a dragonfly routed by coordinates under
    /// `routing = "valiant"` or `"ugal"`: the networks whose packets may
    /// detour through an intermediate group. `None` otherwise, and while
    /// faults have routing recomputed by tables (then every path is a
    /// shortest one).
    pub fn detours(&self, net: &Network) -> Option<DragonflyGroups> {
        use crate::config::RoutingPolicy::{Ugal, Valiant};
        match (&self.strategy, net.routing) {
            (Strategy::Structured(_), Valiant | Ugal) => DragonflyGroups::of(net),
            _ => None,
        }
    }

    /// [`Routing::detours`] when every flowlet between groups detours
    /// (`routing = "valiant"`), as opposed to UGAL, which decides by queues.
    pub fn valiant(&self, net: &Network) -> Option<DragonflyGroups> {
        self.detours(net)
            .filter(|_| net.routing == crate::config::RoutingPolicy::Valiant)
    }

    /// The route from router `at` toward router `router` on a shortest
    /// path (a detour's first leg), when paths come from coordinates.
    pub fn route_to_router(&self, net: &Network, at: NodeId, router: NodeId) -> Option<Route> {
        let Strategy::Structured(s) = &self.strategy else {
            return None;
        };
        let port = s.next_port_to_router(at, router)?;
        let peer = net.ports[port as usize].peer;
        Some(Route {
            port,
            next_hop_mac: net.ports[peer as usize].mac,
        })
    }

    /// Calls `visit` with every output port on the path a packet at
    /// router `at` takes to host `dst` when it first goes to the dragonfly
    /// group `via` (a Valiant detour; `None`: minimally), ties split by
    /// `spread`; `None` when a step has no route.
    pub fn walk_detour(
        &self,
        net: &Network,
        groups: &DragonflyGroups,
        (mut at, dst): (NodeId, NodeId),
        mut via: Option<u32>,
        spread: Spread,
        mut visit: impl FnMut(PortId),
    ) -> Option<()> {
        let mut guard = net.nodes.len() + 1;
        while at != dst {
            let here = groups.group_of_router(at);
            if via.is_some() && via == here {
                via = None;
            }
            let port = match (via, here) {
                (Some(k), Some(g)) => {
                    self.route_to_router(net, at, groups.landing_router(g, k))?
                        .port
                }
                _ => self.next_port_spread(net, at, dst, spread)?,
            };
            visit(port);
            at = net.peer_node(port);
            guard = guard.checked_sub(1)?;
        }
        Some(())
    }

    /// The port `at` (any node) sends a packet for host `dst` out of, or
    /// `None` when `dst` is unreachable from there (or is `at`).
    pub fn next_port(&self, net: &Network, at: NodeId, dst: NodeId) -> Option<PortId> {
        self.next_port_spread(net, at, dst, Spread::Destination)
    }

    /// [`Routing::next_port`] for a packet whose ties are split by `spread`.
    pub fn next_port_spread(
        &self,
        net: &Network,
        at: NodeId,
        dst: NodeId,
        spread: Spread,
    ) -> Option<PortId> {
        let di = self.host_index[dst as usize];
        debug_assert!(di != u32::MAX, "destinations are hosts");
        match &self.strategy {
            Strategy::Tables(t) => t.next_port(net, at, dst, di, spread),
            Strategy::Structured(s) => s.next_port(net, at, dst, di, spread),
        }
    }

    /// The route from L3 node `at` toward host `dst`, if reachable.
    pub fn route(&self, net: &Network, at: NodeId, dst: NodeId) -> Option<Route> {
        self.route_spread(net, at, dst, Spread::Destination)
    }

    /// [`Routing::route`] for a packet whose ties are split by `spread`
    /// (the switches on the way to the next L3 node split them alike).
    pub fn route_spread(
        &self,
        net: &Network,
        at: NodeId,
        dst: NodeId,
        spread: Spread,
    ) -> Option<Route> {
        let port = self.next_port_spread(net, at, dst, spread)?;
        // Follow the path through any switches to the next L3 node.
        let mut via = port;
        loop {
            let peer = net.ports[via as usize].peer;
            let node = net.ports[peer as usize].node;
            if net.nodes[node as usize].kind.is_l3() {
                return Some(Route {
                    port,
                    next_hop_mac: net.ports[peer as usize].mac,
                });
            }
            via = self.next_port_spread(net, node, dst, spread)?;
        }
    }

    /// The port a static switch forwards a frame for host `dst` out of.
    pub fn switch_port(&self, net: &Network, switch: NodeId, dst: NodeId) -> Option<PortId> {
        self.next_port(net, switch, dst)
    }

    /// Calls `visit` with every output port on the path from host `src` to
    /// host `dst`, in order; `None` if `dst` is unreachable.
    pub fn walk(
        &self,
        net: &Network,
        src: NodeId,
        dst: NodeId,
        visit: impl FnMut(PortId),
    ) -> Option<()> {
        self.walk_spread(net, src, dst, Spread::Destination, visit)
    }

    /// [`Routing::walk`] for a flow whose ties are split by `spread`.
    pub fn walk_spread(
        &self,
        net: &Network,
        src: NodeId,
        dst: NodeId,
        spread: Spread,
        mut visit: impl FnMut(PortId),
    ) -> Option<()> {
        if let Strategy::Structured(s) = &self.strategy {
            let di = self.host_index[dst as usize];
            return s.walk(net, src, dst, di, spread, &mut visit);
        }
        let mut at = src;
        let mut guard = net.nodes.len() + 1;
        while at != dst {
            let p = self.next_port_spread(net, at, dst, spread)?;
            visit(p);
            at = net.peer_node(p);
            guard -= 1;
            if guard == 0 {
                return None;
            }
        }
        Some(())
    }

    /// The output ports on the path from host `src` to host `dst`.
    pub fn path(&self, net: &Network, src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        let mut ports = Vec::new();
        self.walk(net, src, dst, |p| ports.push(p))?;
        Some(ports)
    }

    /// The output ports on the path of a flow from host `src` to host
    /// `dst` whose ties are split by `spread`.
    pub fn path_spread(
        &self,
        net: &Network,
        src: NodeId,
        dst: NodeId,
        spread: Spread,
    ) -> Option<Vec<PortId>> {
        let mut ports = Vec::new();
        self.walk_spread(net, src, dst, spread, |p| ports.push(p))?;
        Some(ports)
    }

    /// Links on the path from host `src` to host `dst`.
    pub fn links(&self, net: &Network, src: NodeId, dst: NodeId) -> Option<u32> {
        let mut n = 0;
        self.walk(net, src, dst, |_| n += 1)?;
        Some(n)
    }

    /// Routers a packet from `src` to `dst` passes (each lowers its TTL).
    pub fn routers_on_path(&self, net: &Network, src: NodeId, dst: NodeId) -> Option<u32> {
        let mut n = 0;
        self.walk(net, src, dst, |p| {
            if net.nodes[net.peer_node(p) as usize].kind == NodeKind::Router {
                n += 1;
            }
        })?;
        Some(n)
    }
}

/// The per-flow hash seed of `net`'s routing, under ECMP (and under
/// spraying, for the first hop a connection's host caches).
fn ecmp_seed(net: &Network) -> Option<u64> {
    use crate::config::RoutingPolicy::{Ecmp, Spray};
    matches!(net.routing, Ecmp | Spray).then_some(net.routing_seed)
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
        let rt = Routing::new(&n);
        assert_eq!(rt.links(&n, 0, 1), Some(2));
        let r = rt.route(&n, 0, 1).unwrap();
        assert_eq!(r.next_hop_mac, n.ports[n.nodes[1].ports[0] as usize].mac);
        // The switch sends frames for h1 out of the port facing h1.
        let sw = n.node_by_name("s").unwrap();
        let p = rt.switch_port(&n, sw, 1).unwrap();
        assert_eq!(n.peer_node(p), 1);
    }

    #[test]
    fn router_chain_picks_next_router_mac() {
        // h0 - r0 - r1 - h1: three links, first hop MAC is r0's interface.
        let n = net("[[host]]\nname='h0'\n[[host]]\nname='h1'\n[[router]]\nname='r0'\n[[router]]\nname='r1'\n[[link]]\na='h0'\nb='r0'\n[[link]]\na='r0'\nb='r1'\n[[link]]\na='r1'\nb='h1'\n");
        let rt = Routing::new(&n);
        assert_eq!(rt.links(&n, 0, 1), Some(3));
        assert_eq!(rt.routers_on_path(&n, 0, 1), Some(2));
        let r = rt.route(&n, 0, 1).unwrap();
        let r0 = n.node_by_name("r0").unwrap();
        assert_eq!(n.ports[r.port as usize].peer, n.nodes[r0 as usize].ports[0]);
        // Hosts never forward: with c only reachable through host b, no route.
        let n2 = net("[[host]]\nname='a'\n[[host]]\nname='b'\n[[host]]\nname='c'\n[[link]]\na='a'\nb='b'\n[[link]]\na='b'\nb='c'\n");
        let rt2 = Routing::new(&n2);
        assert!(rt2.route(&n2, 0, 2).is_none());
        assert_eq!(rt2.links(&n2, 0, 1), Some(1));
    }

    #[test]
    fn a_router_behind_switches_is_addressed_by_its_own_mac() {
        // h0 - s0 - s1 - r - h1: h0's next L3 hop is r, two switches away.
        let n = net("[[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s0'\n[[switch]]\nname='s1'\n[[router]]\nname='r'\n[[link]]\na='h0'\nb='s0'\n[[link]]\na='s0'\nb='s1'\n[[link]]\na='s1'\nb='r'\n[[link]]\na='r'\nb='h1'\n");
        let rt = Routing::new(&n);
        let r = rt.route(&n, 0, 1).unwrap();
        let router = n.node_by_name("r").unwrap();
        assert_eq!(
            r.next_hop_mac,
            n.ports[n.nodes[router as usize].ports[0] as usize].mac
        );
        assert_eq!(rt.links(&n, 0, 1), Some(4));
    }

    #[test]
    fn tie_break_spreads_destinations_over_candidates() {
        let mut seen = [0u32; 4];
        for d in 0..400 {
            seen[tie_break(7, d, 4)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 60), "{seen:?}");
    }
}
