//! Non-minimal paths on a dragonfly: Valiant's detour through an
//! intermediate group.
//!
//! A packet between two groups may first go minimally to an intermediate
//! group K (local link to the router holding the global link to K, then
//! that global link), and from the router where it lands in K minimally
//! to its destination: at most local, global, local, global, local router
//! links. Which K, and whether to detour at all, is the simulator's
//! choice ([`crate::sim`]'s adaptive routing); this module only knows the
//! groups and the paths.

use crate::topology::generators::dragonfly_global_router;
use crate::topology::generators::Layout;
use crate::topology::{Network, NodeId};

/// The group structure of a generated dragonfly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DragonflyGroups {
    first_router: NodeId,
    routers: u32,
    groups: u32,
    /// Routers per group.
    a: u32,
    /// Global links per router.
    h: u32,
}

impl DragonflyGroups {
    /// The groups of `net`, when it was generated as a dragonfly.
    pub fn of(net: &Network) -> Option<DragonflyGroups> {
        let shape = net.shape.as_ref()?;
        match shape.layout {
            Layout::Dragonfly { groups, a, h } => Some(DragonflyGroups {
                first_router: shape.first_router,
                routers: groups * a,
                groups,
                a,
                h,
            }),
            _ => None,
        }
    }

    /// Number of groups.
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// The group of router node `node`, or `None` for a host.
    pub fn group_of_router(&self, node: NodeId) -> Option<u32> {
        let r = node.checked_sub(self.first_router)?;
        (r < self.routers).then_some(r / self.a)
    }

    /// The group of the router host `host` is attached to.
    pub fn group_of_host(&self, net: &Network, host: NodeId) -> Option<u32> {
        self.group_of_router(net.attachment(host)?)
    }

    /// The router of group `to` at which the global link from group
    /// `from` arrives (`from != to`).
    pub fn landing_router(&self, from: u32, to: u32) -> NodeId {
        self.first_router + to * self.a + dragonfly_global_router(to, from, self.groups, self.h)
    }

    /// Groups a packet from group `src` to group `dst` may detour through:
    /// every group but those two.
    pub fn intermediates(&self, src: u32, dst: u32) -> u32 {
        self.groups.saturating_sub(if src == dst { 1 } else { 2 })
    }

    /// The intermediate group number `pick` (taken modulo
    /// [`DragonflyGroups::intermediates`]) for a packet from group `src`
    /// to group `dst`: the groups other than those two, in order. `None`
    /// when there is none (two groups).
    pub fn intermediate(&self, src: u32, dst: u32, pick: u64) -> Option<u32> {
        let n = self.intermediates(src, dst);
        if n == 0 {
            return None;
        }
        let mut k = (pick % n as u64) as u32;
        // Skip src and dst, smaller first.
        let (lo, hi) = (src.min(dst), src.max(dst));
        if k >= lo {
            k += 1;
        }
        if hi != lo && k >= hi {
            k += 1;
        }
        Some(k)
    }
}

/// A hash of a flow (its seeded 5-tuple hash, [`super::flow`]) and the
/// number of one of its flowlets: which intermediate group Valiant routing
/// sends that flowlet through ([`DragonflyGroups::intermediate`]), and
/// where UGAL starts its candidates.
pub fn flowlet_pick(flow_hash: u64, flowlet: u64) -> u64 {
    let mut x = flow_hash ^ flowlet.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetworkConfig;

    fn dragonfly() -> Network {
        let cfg = NetworkConfig::from_toml_str(
            "[topology]\nkind='dragonfly'\ngroups=5\nrouters_per_group=4\nhosts_per_router=2\nglobal_links_per_router=1\n",
            "t",
        )
        .unwrap();
        Network::from_config(&cfg, "t").unwrap()
    }

    #[test]
    fn intermediates_are_every_other_group_once() {
        let g = DragonflyGroups::of(&dragonfly()).unwrap();
        for (s, d) in [(0, 1), (3, 1), (4, 0), (2, 2)] {
            let mut seen: Vec<u32> = (0..g.intermediates(s, d) as u64)
                .map(|p| g.intermediate(s, d, p).unwrap())
                .collect();
            seen.sort();
            let want: Vec<u32> = (0..5).filter(|&k| k != s && k != d).collect();
            assert_eq!(seen, want, "{s} -> {d}");
        }
    }

    #[test]
    fn a_detour_crosses_two_global_links_through_its_group() {
        use crate::config::RoutingPolicy;
        use crate::topology::routing::{Routing, Spread};
        let mut net = dragonfly();
        net.routing = RoutingPolicy::Valiant;
        let routing = Routing::new(&net);
        let g = routing.detours(&net).unwrap();
        // Hosts 0..8 are in group 0, 8..16 in group 1.
        for (src, dst) in [(0u32, 9u32), (3, 15), (7, 8)] {
            let at = net.attachment(src).unwrap();
            for via in 2..5 {
                let mut groups_seen = Vec::new();
                let (mut links, mut global) = (0, 0);
                routing
                    .walk_detour(&net, &g, (at, dst), Some(via), Spread::Destination, |p| {
                        let (a, b) = (net.ports[p as usize].node, net.peer_node(p));
                        links += 1;
                        if let (Some(x), Some(y)) = (g.group_of_router(a), g.group_of_router(b)) {
                            global += u32::from(x != y);
                            groups_seen.push(y);
                        }
                    })
                    .unwrap();
                // At most local and global links to the intermediate group,
                // then a shortest path (the router diameter is 3: local,
                // global, local, or two global links where that is
                // shorter), then the link to the host.
                assert!(links <= 6, "{src} -> {dst} via {via}: {links} links");
                assert!((2..=3).contains(&global), "{src} -> {dst} via {via}");
                assert!(groups_seen.contains(&via));
            }
            // A shortest path never visits a third group here.
            let mut global = 0;
            routing
                .walk_detour(&net, &g, (at, dst), None, Spread::Destination, |p| {
                    let (a, b) = (net.ports[p as usize].node, net.peer_node(p));
                    if let (Some(x), Some(y)) = (g.group_of_router(a), g.group_of_router(b)) {
                        global += u32::from(x != y);
                    }
                })
                .unwrap();
            assert_eq!(global, 1);
        }
        // Other policies have no detours.
        net.routing = RoutingPolicy::Shortest;
        assert!(Routing::new(&net).detours(&net).is_none());
    }

    #[test]
    fn the_landing_router_is_the_global_links_far_end() {
        let net = dragonfly();
        let g = DragonflyGroups::of(&net).unwrap();
        for from in 0..5 {
            for to in (0..5).filter(|&t| t != from) {
                let landing = g.landing_router(from, to);
                let departing = g.landing_router(to, from);
                assert_eq!(g.group_of_router(landing), Some(to));
                assert_eq!(g.group_of_router(departing), Some(from));
                let linked = net.nodes[departing as usize]
                    .ports
                    .iter()
                    .any(|&p| net.peer_node(p) == landing);
                assert!(linked, "{from} -> {to}");
            }
        }
    }
}
