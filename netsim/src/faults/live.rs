//! The fault schedule as the simulation runs: the simulator asks for the
//! entries that are due ([`FaultState::apply_next`]), reports traffic that
//! may cross a partition and asks for partition checks; the fault state
//! keeps which links are dead, their epochs, the forwarding tables around
//! them and the network event log, and answers with the [`Effect`]s the
//! simulator carries out on what it owns (transmitters, learned MAC tables,
//! connections' first hops, capture comments).

use super::{
    classes, describe_groups, groups, short_list, Cause, Change, FaultState, Item, NetworkEvent,
    NetworkEventKind, NetworkFailure, Partition, Target, MAX_RECORDED_NETWORK_EVENTS,
};
use crate::base::time::Nanos;
use crate::topology::routing::Routing;
use crate::topology::{LinkId, Network, NodeId};

/// What a fault did that the simulator must carry out, in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// The link died: the frames being serialised and queued at both its
    /// ends are lost (frames propagating on it carry an older epoch).
    LinkDied(LinkId),
    /// The link came back: connections waiting for room at its ends may
    /// send.
    LinkRevived(LinkId),
    /// The node went down or came back: it has forgotten the MAC addresses
    /// it learned.
    NodeForgot(NodeId),
    /// New forwarding tables are in force ([`FaultState::routes`]): the
    /// connections' first hops change and every learned MAC table is
    /// forgotten.
    Rerouted,
    /// A network event, as one line for the captures' comments.
    Note(String),
}

/// One connection as a partition check sees it.
pub(crate) struct Crossing {
    /// Host of the sending rank.
    pub src_host: NodeId,
    /// Host of the receiving rank.
    pub dst_host: NodeId,
    /// The sending rank.
    pub src_rank: u32,
    /// The receiving rank.
    pub dst_rank: u32,
    /// When its oldest undelivered message was sent.
    pub oldest_undelivered: Option<Nanos>,
}

/// A network event before it is logged: kind, target, detail.
type EventText = (NetworkEventKind, String, String);

impl FaultState {
    /// Forwarding tables around the dead links, while any are dead (None:
    /// the network's own routing applies).
    pub fn routes(&self) -> Option<&Routing> {
        self.routes.as_ref()
    }

    /// Per link: how often it died (frames carry the value they left with).
    #[inline]
    pub fn epoch(&self, l: LinkId) -> u32 {
        self.epoch[l as usize]
    }

    /// True while link `l` is dead.
    #[inline]
    pub fn is_dead(&self, l: LinkId) -> bool {
        self.dead[l as usize]
    }

    /// When to look for messages that waited too long at a partition.
    #[inline]
    pub fn check_at(&self) -> Option<Nanos> {
        self.check_at
    }

    /// Applies the next schedule entry, moving `now` to its time if later;
    /// what the simulator must do goes to `out`.
    pub fn apply_next(
        &mut self,
        now: &mut Nanos,
        net: &mut Network,
        rank_hosts: &[NodeId],
        out: &mut Vec<Effect>,
    ) {
        let Some((t, item)) = self.schedule.pop() else {
            return;
        };
        *now = (*now).max(t);
        let at = *now;
        match item {
            Item::Apply {
                target,
                change,
                cause,
            } => self.apply_change(at, net, rank_hosts, (target, change, cause), out),
            Item::Random { element, fail } => {
                let (target, change) = self.random_change(at, element, fail);
                let what = (target, change, Cause::Random);
                self.apply_change(at, net, rank_hosts, what, out);
            }
            Item::Reconverge => self.reconverge(at, net, out),
        }
    }

    /// Logs a network event (and notes it for the captures); past
    /// [`MAX_RECORDED_NETWORK_EVENTS`] it only counts it (the captures get
    /// one note saying so).
    fn log(&mut self, now: Nanos, (kind, target, detail): EventText, out: &mut Vec<Effect>) {
        if self.log.len() >= MAX_RECORDED_NETWORK_EVENTS {
            if self.unrecorded == 0 {
                out.push(Effect::Note(format!(
                    "further network events are counted, not recorded (more than {MAX_RECORDED_NETWORK_EVENTS})"
                )));
            }
            self.unrecorded += 1;
            return;
        }
        let ev = NetworkEvent {
            at_ns: now.0,
            kind,
            target,
            detail,
        };
        out.push(Effect::Note(ev.line()));
        self.log.push(ev);
    }

    fn apply_change(
        &mut self,
        now: Nanos,
        net: &mut Network,
        rank_hosts: &[NodeId],
        (target, change, cause): (Target, Change, Cause),
        out: &mut Vec<Effect>,
    ) {
        let cause = match cause {
            Cause::Scheduled => "scheduled",
            Cause::Random => "random",
        };
        match change {
            Change::Down | Change::Up => {
                let Some(holding) = self.count(target, change) else {
                    return; // an up of something that is not down
                };
                let down = change == Change::Down;
                let (kind, name, links) = match target {
                    Target::Link(l) => (
                        if down {
                            NetworkEventKind::LinkDown
                        } else {
                            NetworkEventKind::LinkUp
                        },
                        net.links[l as usize].name.clone(),
                        vec![l],
                    ),
                    Target::Node(n) => {
                        let node = &net.nodes[n as usize];
                        (
                            if down {
                                NetworkEventKind::NodeDown
                            } else {
                                NetworkEventKind::NodeUp
                            },
                            node.name.clone(),
                            node.ports
                                .iter()
                                .map(|&p| net.ports[p as usize].link)
                                .collect(),
                        )
                    }
                };
                if let Target::Node(n) = target {
                    // A node that restarts has forgotten what it learned.
                    out.push(Effect::NodeForgot(n));
                }
                let detail = match (down, holding) {
                    (true, 2..) => format!("{cause}; already down ({holding} faults)"),
                    (false, 1..) => format!("{cause}; still down ({holding} more faults)"),
                    _ => cause.to_string(),
                };
                self.log(now, (kind, name, detail), out);
                self.refresh_links(now, net, rank_hosts, &links, out);
            }
            Change::Degrade(d) | Change::Restore(d) => {
                let Target::Link(l) = target else {
                    return; // rejected when the plan was resolved
                };
                let base = self.base_params[l as usize];
                let p = &mut net.links[l as usize].params;
                let restore = matches!(change, Change::Restore(_));
                let mut parts = Vec::new();
                if let Some(r) = d.rate_bps {
                    p.rate_bps = if restore { base.rate_bps } else { r };
                    parts.push(format!(
                        "rate {}",
                        crate::base::units::format_rate(p.rate_bps)
                    ));
                }
                if let Some(v) = d.delay_ns {
                    p.delay_ns = if restore { base.delay_ns } else { v };
                    parts.push(format!("delay {}", Nanos(p.delay_ns)));
                }
                if let Some(v) = d.loss {
                    p.loss = if restore { base.loss } else { v };
                    parts.push(format!("loss {}", p.loss));
                }
                let kind = if restore {
                    NetworkEventKind::LinkRestored
                } else {
                    NetworkEventKind::LinkDegraded
                };
                let name = net.links[l as usize].name.clone();
                let detail = format!("{} ({cause})", parts.join(", "));
                self.log(now, (kind, name, detail), out);
            }
        }
    }

    /// Brings the dead state of `links` up to date: a link that died loses
    /// every frame on it and queued for it; one that came back lets waiting
    /// connections send. Any change schedules new forwarding tables.
    fn refresh_links(
        &mut self,
        now: Nanos,
        net: &Network,
        rank_hosts: &[NodeId],
        links: &[LinkId],
        out: &mut Vec<Effect>,
    ) {
        let mut changed = false;
        for &l in links {
            let dead = self.should_be_dead(net, l);
            if dead == self.dead[l as usize] {
                continue;
            }
            self.dead[l as usize] = dead;
            changed = true;
            if dead {
                self.dead_count += 1;
                self.epoch[l as usize] = self.epoch[l as usize].wrapping_add(1);
                out.push(Effect::LinkDied(l));
            } else {
                self.dead_count -= 1;
                out.push(Effect::LinkRevived(l));
            }
        }
        if changed {
            self.generation += 1;
            (self.schedule).push(now + self.convergence_delay, Item::Reconverge);
            self.update_partition(now, net, rank_hosts, out);
        }
    }

    /// Installs forwarding tables for the graph as it is now (the network's
    /// own routing when nothing is dead).
    fn reconverge(&mut self, now: Nanos, net: &Network, out: &mut Vec<Effect>) {
        if self.generation == self.routed_generation {
            return; // an earlier recomputation already saw this state
        }
        self.routed_generation = self.generation;
        self.routes = (self.dead_count > 0)
            .then(|| Routing::without_links(net, self.dead.clone().into_boxed_slice()));
        out.push(Effect::Rerouted);
        let summary = self.summary();
        let event = (NetworkEventKind::RoutesRecomputed, String::new(), summary);
        self.log(now, event, out);
    }

    /// Works out whether the ranks' hosts are split, logging splits and heals.
    fn update_partition(
        &mut self,
        now: Nanos,
        net: &Network,
        rank_hosts: &[NodeId],
        out: &mut Vec<Effect>,
    ) {
        let class = classes(net, &self.dead);
        let groups = groups(&class, rank_hosts);
        if groups.len() <= 1 {
            if self.partition.take().is_some() {
                self.check_at = None;
                let event = (
                    NetworkEventKind::PartitionHealed,
                    String::new(),
                    "every rank's host can reach every other again".into(),
                );
                self.log(now, event, out);
            }
            return;
        }
        let since = self.partition.as_ref().map_or(now, |p| p.since);
        let same = self.partition.as_ref().is_some_and(|p| p.groups == groups);
        let text = format!(
            "the ranks' hosts are split into {} groups that cannot reach each other: {}; traffic between them waits (TCP retransmits) until a repair, each message at most {} (faults.partition_timeout)",
            groups.len(),
            describe_groups(net, rank_hosts, &groups),
            self.partition_timeout
        );
        self.partition = Some(Partition {
            since,
            class,
            groups,
        });
        self.check_at = Some(now.max(since + self.partition_timeout));
        if !same {
            let event = (NetworkEventKind::Partitioned, String::new(), text);
            self.log(now, event, out);
        }
    }

    /// A message entered a connection from `src_host` to `dst_host` at
    /// `now`: if it must cross a partition, make sure its wait is checked.
    pub fn note_traffic(&mut self, now: Nanos, src_host: NodeId, dst_host: NodeId) {
        let Some(p) = &self.partition else {
            return;
        };
        if p.class[src_host as usize] != p.class[dst_host as usize] {
            let deadline = now.max(p.since) + self.partition_timeout;
            self.check_at = Some(self.check_at.map_or(deadline, |t| t.min(deadline)));
        }
    }

    /// At `now`: the failure that ends the run if a message of `conns` has
    /// waited the partition timeout to cross the partition; otherwise arms
    /// the next check.
    pub fn check_partition(
        &mut self,
        now: Nanos,
        net: &Network,
        rank_hosts: &[NodeId],
        conns: impl Iterator<Item = Crossing>,
        out: &mut Vec<Effect>,
    ) -> Option<NetworkFailure> {
        self.check_at = None;
        let p = self.partition.as_ref()?;
        let mut waiting = Vec::new();
        let mut next: Option<Nanos> = None;
        for e in conns {
            if p.class[e.src_host as usize] == p.class[e.dst_host as usize] {
                continue;
            }
            let Some(sent) = e.oldest_undelivered else {
                continue;
            };
            let deadline = sent.max(p.since) + self.partition_timeout;
            if deadline <= now {
                waiting.push(format!("rank {} → rank {}", e.src_rank, e.dst_rank));
            } else {
                next = Some(next.map_or(deadline, |t| t.min(deadline)));
            }
        }
        if waiting.is_empty() {
            self.check_at = next;
            return None;
        }
        let message = format!(
            "the network is partitioned since {}: {} cannot reach each other, and messages from {} waited longer than the partition timeout of {} (at {}); repair the network sooner (a fault's `for`, or an `up`) or raise `faults.partition_timeout`",
            p.since,
            describe_groups(net, rank_hosts, &p.groups),
            short_list(&waiting, 6),
            self.partition_timeout,
            now
        );
        let event = (
            NetworkEventKind::PartitionTimeout,
            String::new(),
            message.clone(),
        );
        self.log(now, event, out);
        Some(NetworkFailure { at: now, message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetworkConfig;
    use crate::faults::FaultPlan;

    /// Two hosts on a switch; the link of host1 fails at 10 ms for 50 ms.
    fn star_with_fault() -> (Network, FaultState) {
        let toml = "[[host]]\nname='host0'\n[[host]]\nname='host1'\n[[switch]]\nname='switch0'\n[[link]]\na='host0'\nb='switch0'\n[[link]]\na='host1'\nb='switch0'\n[[fault]]\nlink='switch0-host1'\nat='10ms'\nfor='50ms'\n";
        let cfg = NetworkConfig::from_toml_str(toml, "t").unwrap();
        let net = Network::from_config(&cfg, "t").unwrap();
        let plan = FaultPlan::resolve(&cfg, &net, "t").unwrap().unwrap();
        let state = FaultState::new(plan, &net);
        (net, state)
    }

    /// The effects, with each note shortened to the event kind it names.
    fn shape(effects: &[Effect]) -> Vec<String> {
        let kinds = [
            "link-down",
            "link-up",
            "partitioned",
            "partition-healed",
            "routes-recomputed",
        ];
        effects
            .iter()
            .map(|e| match e {
                Effect::Note(line) => {
                    let kind = (line.split(' ').map(|w| w.trim_end_matches(':')))
                        .find(|w| kinds.contains(w));
                    format!("note {}", kind.unwrap_or(line))
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_link_failure_and_repair_ask_the_simulator_for_these_effects() {
        let (mut net, mut f) = star_with_fault();
        let hosts = [0, 1];
        let mut now = Nanos::ZERO;
        let mut out = Vec::new();
        // Down at 10 ms: the link dies and the ranks' hosts are split.
        f.apply_next(&mut now, &mut net, &hosts, &mut out);
        assert_eq!(now, Nanos::from_millis(10));
        assert_eq!(
            shape(&out),
            ["note link-down", "LinkDied(1)", "note partitioned"]
        );
        assert!(f.is_dead(1) && !f.is_dead(0));
        assert_eq!(f.epoch(1), 1);
        let timeout = f.partition_timeout;
        assert_eq!(f.check_at(), Some(Nanos::from_millis(10) + timeout));
        // Traffic across the split before the check is due keeps it.
        f.note_traffic(Nanos::from_millis(20), 0, 1);
        assert_eq!(f.check_at(), Some(Nanos::from_millis(10) + timeout));
        // Up at 60 ms: it comes back and the split heals.
        out.clear();
        f.apply_next(&mut now, &mut net, &hosts, &mut out);
        assert_eq!(now, Nanos::from_millis(60));
        assert_eq!(
            shape(&out),
            ["note link-up", "LinkRevived(1)", "note partition-healed"]
        );
        assert_eq!((f.is_dead(1), f.epoch(1), f.check_at()), (false, 1, None));
        // The tables are recomputed a convergence delay after the first
        // change (the network's own routing: nothing is dead) ...
        out.clear();
        f.apply_next(&mut now, &mut net, &hosts, &mut out);
        assert_eq!(now, Nanos::from_millis(110));
        assert_eq!(shape(&out), ["Rerouted", "note routes-recomputed"]);
        assert!(f.routes().is_none());
        // ... and once only for the two changes.
        out.clear();
        f.apply_next(&mut now, &mut net, &hosts, &mut out);
        assert_eq!(now, Nanos::from_millis(160));
        assert!(out.is_empty());
        assert_eq!(f.log.len(), 5);
    }
}
