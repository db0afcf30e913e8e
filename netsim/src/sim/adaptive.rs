//! Adaptive routing on a dragonfly (`routing = "valiant"` or `"ugal"`).
//!
//! The decision is taken once per *flowlet* at the packet's source router
//! (the router its host is attached to): a flow's packets keep the path
//! of the first packet of their flowlet, and a packet that comes after the
//! flow was idle for `topology.flowlet_gap` starts a new flowlet, which
//! chooses again. Packets of a flowlet never overtake one another, so TCP
//! sees no reordering from the routing; between flowlets the gap lets the
//! previous path drain (a gap longer than the paths' difference in delay
//! keeps the order entirely).
//!
//! * **Valiant**: every flowlet between two groups detours through an
//!   intermediate group chosen by a seeded hash of the flow and the
//!   flowlet's number (never the source's or the destination's group).
//! * **UGAL** (universal globally-adaptive load-balanced routing, Singh
//!   2005; the "UGAL-G" variant of Jiang, Kim & Dally 2009, which reads the
//!   queues along the whole path): the minimal path and up to
//!   [`UGAL_CANDIDATES`] Valiant paths are priced as the sum over their
//!   ports of queued bytes ÷ rate, one frame's serialisation and the
//!   link's delay; the flowlet takes the cheapest, the minimal path on a
//!   tie. On an idle network the minimal path always wins (it is the
//!   shortest); when its global link's queue holds more than a detour's
//!   extra links cost, traffic spills onto detours.
//!
//! Packets within one group, and every packet while faults have routing
//! recomputed, take minimal paths.

use super::Simulator;
use crate::base::fasthash::FastMap;
use crate::base::time::serialization_time;
use crate::config::RoutingPolicy;
use crate::topology::routing::detour::{flowlet_pick, DragonflyGroups};
use crate::topology::routing::flow::FlowKey;
use crate::topology::routing::{Route, Spread};
use crate::topology::{NodeId, NodeKind, PortId};
use crate::wire::packet::PacketId;
use crate::wire::queue::QueueDiscipline;

/// Valiant paths UGAL prices besides the minimal one (fewer when the
/// dragonfly has fewer intermediate groups), starting at a hashed one.
pub const UGAL_CANDIDATES: u32 = 4;

/// The path of the current flowlet of one flow.
#[derive(Debug, Clone, Copy)]
struct Flowlet {
    /// When the flow's latest packet reached its source router, ns.
    last_ns: u64,
    /// The intermediate group of the current flowlet (`None`: minimal).
    via: Option<u32>,
    /// Flowlets of this flow so far.
    index: u64,
}

/// Every flow's current flowlet, and counts for the report.
#[derive(Debug, Default)]
pub(crate) struct Flowlets {
    flows: FastMap<u64, Flowlet>,
    /// Flowlets that chose a path.
    pub decisions: u64,
    /// Flowlets that took a detour.
    pub detoured: u64,
}

impl Flowlets {
    /// The detour for a packet of flow `flow` reaching its source router
    /// at `now_ns`: the current flowlet's, or — when the flow is new or
    /// was idle for `gap_ns` — what `choose` gives for the new flowlet's
    /// number.
    fn path(
        &mut self,
        flow: u64,
        now_ns: u64,
        gap_ns: u64,
        choose: impl FnOnce(u64) -> Option<u32>,
    ) -> Option<u32> {
        let entry = self.flows.entry(flow).or_insert(Flowlet {
            last_ns: 0,
            via: None,
            index: u64::MAX,
        });
        let fresh = entry.index == u64::MAX || now_ns.saturating_sub(entry.last_ns) >= gap_ns;
        entry.last_ns = now_ns;
        if fresh {
            entry.index = entry.index.wrapping_add(1);
            entry.via = choose(entry.index);
            self.decisions += 1;
            self.detoured += u64::from(entry.via.is_some());
        }
        entry.via
    }
}

impl Simulator {
    /// Sets the detour of packet `pkt` arriving at router `node` from
    /// port `in_port`, and returns it: the source router chooses one for
    /// a new flowlet; a packet reaching its intermediate group drops it.
    pub(super) fn adaptive_detour(
        &mut self,
        node: NodeId,
        in_port: PortId,
        pkt: PacketId,
    ) -> Option<u32> {
        let groups = self.routes().detours(&self.net)?;
        let here = groups.group_of_router(node)?;
        let from = self.net.peer_node(in_port);
        let p = self.packets.get(pkt);
        if self.net.nodes[from as usize].kind == NodeKind::Host {
            let dst_group = groups.group_of_host(&self.net, p.dst_host)?;
            if dst_group == here {
                return None;
            }
            let key = FlowKey {
                src_ip: p.src_ip,
                dst_ip: p.dst_ip,
                src_port: p.src_port,
                dst_port: p.dst_port,
            };
            let flow = key.hash(self.net.routing_seed);
            let dst = p.dst_host;
            let spread = self.packet_spread(pkt);
            let (now, gap) = (self.now.0, self.net.flowlet_gap_ns);
            let mut flowlets = std::mem::take(&mut self.flowlets);
            let via = flowlets.path(flow, now, gap, |index| {
                let pick = flowlet_pick(flow, index);
                match self.net.routing {
                    RoutingPolicy::Ugal => {
                        self.ugal_choice(&groups, node, dst, (here, dst_group), pick, spread)
                    }
                    _ => groups.intermediate(here, dst_group, pick),
                }
            });
            self.flowlets = flowlets;
            self.packets.get_mut(pkt).detour = via;
            return via;
        }
        let via = p.detour.filter(|&k| k != here);
        self.packets.get_mut(pkt).detour = via;
        via
    }

    /// The route from router `node` toward the dragonfly group `via` its
    /// packet detours through.
    pub(super) fn detour_route(&self, node: NodeId, via: u32) -> Option<Route> {
        let groups = self.routes().detours(&self.net)?;
        let here = groups.group_of_router(node)?;
        (self.routes()).route_to_router(&self.net, node, groups.landing_router(here, via))
    }

    /// UGAL's choice at source router `at` for a flowlet toward host `dst`
    /// between groups `(src, dst)`: the cheapest of the minimal path and
    /// the Valiant paths through up to [`UGAL_CANDIDATES`] intermediate
    /// groups starting at number `pick`.
    fn ugal_choice(
        &self,
        groups: &DragonflyGroups,
        at: NodeId,
        dst: NodeId,
        (src_group, dst_group): (u32, u32),
        pick: u64,
        spread: Spread,
    ) -> Option<u32> {
        let mut best = (self.path_cost_ns(groups, at, dst, None, spread)?, None);
        let n = groups.intermediates(src_group, dst_group);
        for i in 0..u64::from(n.min(UGAL_CANDIDATES)) {
            let k = groups.intermediate(src_group, dst_group, pick.wrapping_add(i))?;
            if let Some(cost) = self.path_cost_ns(groups, at, dst, Some(k), spread) {
                if cost < best.0 {
                    best = (cost, Some(k));
                }
            }
        }
        best.1
    }

    /// What the path from router `at` to host `dst` through group `via`
    /// would delay a full-sized frame by now, ns: every port's queue
    /// drained at its rate (plus the frame on the wire), the frame's own
    /// serialisation and the link's delay.
    fn path_cost_ns(
        &self,
        groups: &DragonflyGroups,
        at: NodeId,
        dst: NodeId,
        via: Option<u32>,
        spread: Spread,
    ) -> Option<u64> {
        let mut cost = 0u64;
        (self.routes()).walk_detour(&self.net, groups, (at, dst), via, spread, |port| {
            let t = &self.tx[port as usize];
            let l = &self.net.links[self.net.ports[port as usize].link as usize].params;
            let frame = u64::from(l.mtu) + 38;
            let waiting = t.queue.queued_bytes() + if t.wire.is_busy() { frame } else { 0 };
            cost += serialization_time(waiting + frame, l.rate_bps).0 + l.delay_ns;
        })?;
        Some(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flowlet_keeps_its_path_until_the_flow_is_idle_for_the_gap() {
        let mut f = Flowlets::default();
        let mut next = [Some(3), None, Some(1)].into_iter();
        let mut choose = |_| next.next().unwrap();
        assert_eq!(f.path(7, 100, 50, &mut choose), Some(3));
        // 49 ns after the last packet: the same flowlet, every time.
        assert_eq!(f.path(7, 149, 50, &mut choose), Some(3));
        assert_eq!(f.path(7, 198, 50, &mut choose), Some(3));
        // Idle for the gap: a new flowlet chooses again.
        assert_eq!(f.path(7, 248, 50, &mut choose), None);
        // Another flow has its own flowlets.
        assert_eq!(f.path(8, 249, 50, &mut choose), Some(1));
        assert_eq!((f.decisions, f.detoured), (3, 2));
    }

    #[test]
    fn flowlet_picks_differ_between_flowlets_and_flows() {
        let picks: Vec<u64> = (0..4).map(|i| flowlet_pick(1, i) % 3).collect();
        assert!(picks.windows(2).any(|w| w[0] != w[1]), "{picks:?}");
        assert_ne!(flowlet_pick(1, 0), flowlet_pick(2, 0));
    }
}
