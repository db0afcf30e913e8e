//! Faults: links and nodes that fail and are repaired, links whose rate,
//! delay or loss change, at scheduled or seeded random virtual times.
//!
//! * **Scheduled** (`[[fault]]` with `at`, or `--fault` on the command
//!   line): a link or node goes down or up, or a link is degraded, at a
//!   given time, optionally for a given duration.
//! * **Random** (`[[fault]]` with `mtbf` and `mttr`): every selected link or
//!   node alternates between up times drawn from an exponential distribution
//!   with mean `mtbf` and down times with mean `mttr`, from its own stream of
//!   the fault seed, so the same seed gives the same fault times whatever
//!   else the run does.
//!
//! A link is *dead* while it is down or either of its end nodes is down
//! (a node down is all its links down). When a link dies, the frames queued
//! at both its transmitters, the frames being serialised and the frames
//! propagating on it are lost. Forwarding is not changed at once: tables are
//! recomputed on the graph without the dead links [`FaultSettings::convergence_delay`]
//! after each change, and until then packets routed toward a dead link are
//! dropped (counted as unroutable); TCP recovers by retransmitting. With
//! nothing dead the network's own routing (coordinates, policies) is back.
//!
//! If the ranks' hosts are split into groups that cannot reach each other,
//! the network is *partitioned*: traffic between the groups waits (TCP keeps
//! retransmitting with backoff) until a repair, but a message that has
//! waited `partition_timeout` (counted from when it was sent or the split
//! happened, whichever is later) ends the run with an error naming the
//! groups ([`crate::Simulator::failure`]).
//!
//! Faults are applied lazily, in time order, just before the first network
//! event at or after their time, so a fault schedule never keeps an idle
//! simulation running and random faults can go on for ever. Every change is
//! logged as a [`NetworkEvent`] (in [`crate::model::stats::SimStats`] and, as
//! packet comments, in pcapng captures).
//!
//! [`FaultSettings::convergence_delay`]: crate::config::FaultSettings::convergence_delay

use crate::base::event::EventQueue;
use crate::base::rng::SimRng;
use crate::base::text::glob_match;
use crate::base::time::Nanos;
use crate::config::{
    ConfigError, DurationNs, FaultActionConfig, FaultConfig, NetworkConfig, RateBps,
};
use crate::topology::routing::Routing;
use crate::topology::{LinkId, LinkParams, Network, NodeId, NodeKind};

mod live;

pub(crate) use live::{Crossing, Effect};

/// What a fault acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One link.
    Link(LinkId),
    /// One node (host, switch or router).
    Node(NodeId),
}

/// New values for some of a link's parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Degradation {
    /// Rate in bit/s (0 = unlimited).
    pub rate_bps: Option<u64>,
    /// One-way propagation delay.
    pub delay_ns: Option<u64>,
    /// Loss probability.
    pub loss: Option<f64>,
}

/// A change of state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    /// Fails.
    Down,
    /// Is repaired.
    Up,
    /// Takes these parameters.
    Degrade(Degradation),
    /// Gets back its configured values of the parameters this degradation set.
    Restore(Degradation),
}

/// Why a change happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A scheduled fault.
    Scheduled,
    /// A random failure or repair.
    Random,
}

/// An entry of the lazily applied fault schedule.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Item {
    /// A scheduled change.
    Apply {
        target: Target,
        change: Change,
        cause: Cause,
    },
    /// The next failure (`fail`) or repair of random element `element`.
    Random { element: u32, fail: bool },
    /// Forwarding tables are recomputed.
    Reconverge,
}

/// One link or node failing at random.
#[derive(Clone, Debug)]
struct RandomElement {
    target: Target,
    mtbf_ns: u64,
    mttr_ns: u64,
    rng: SimRng,
}

/// A draw from the exponential distribution with mean `mean_ns`, rounded to
/// the nanosecond, at least 1 ns.
fn exponential(rng: &mut SimRng, mean_ns: u64) -> Nanos {
    let u = rng.next_f64();
    let x = -(mean_ns as f64) * (1.0 - u).ln();
    Nanos((x.round() as u64).max(1))
}

/// The faults of a network file, checked against its graph.
#[derive(Clone, Debug)]
pub struct FaultPlan {
    /// Time from a change to the recomputed forwarding tables.
    pub convergence_delay: Nanos,
    /// How long a message may wait to cross a partition.
    pub partition_timeout: Nanos,
    scheduled: Vec<(Nanos, Target, Change)>,
    random: Vec<RandomElement>,
}

/// How a fault entry is named in errors: `fault[i]` or its `--fault` spec.
fn entry_name(i: usize, f: &FaultConfig) -> String {
    match &f.source {
        Some(spec) => format!("--fault '{spec}'"),
        None => format!("fault[{i}]"),
    }
}

/// Links a `link` value selects: a name or `*` pattern matching link names,
/// or, when that matches nothing, "x-y" naming the two end nodes in either order.
fn select_links(net: &Network, pat: &str) -> Vec<LinkId> {
    let by_name: Vec<LinkId> = (0..net.links.len() as LinkId)
        .filter(|&l| glob_match(pat, &net.links[l as usize].name))
        .collect();
    if !by_name.is_empty() || pat.contains('*') {
        return by_name;
    }
    let mut out = Vec::new();
    for (i, _) in pat.match_indices('-') {
        let (x, y) = (&pat[..i], &pat[i + 1..]);
        let (Some(a), Some(b)) = (net.node_by_name(x), net.node_by_name(y)) else {
            continue;
        };
        for &p in &net.nodes[a as usize].ports {
            if net.peer_node(p) == b {
                out.push(net.ports[p as usize].link);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn select_nodes(net: &Network, pat: &str) -> Vec<NodeId> {
    (0..net.nodes.len() as NodeId)
        .filter(|&n| glob_match(pat, &net.nodes[n as usize].name))
        .collect()
}

impl FaultPlan {
    /// Checks `[faults]` and every `[[fault]]` entry of `cfg` against `net`;
    /// `None` when there are no faults. Errors are one sentence naming the
    /// entry (`fault[2]`, or the `--fault` spec it came from).
    pub fn resolve(
        cfg: &NetworkConfig,
        net: &Network,
        origin: &str,
    ) -> Result<Option<FaultPlan>, ConfigError> {
        if cfg.fault_entries.is_empty() {
            return Ok(None);
        }
        let seed = cfg.faults.seed.unwrap_or(cfg.seed);
        let mut plan = FaultPlan {
            convergence_delay: Nanos(cfg.faults.convergence_delay.0),
            partition_timeout: Nanos(cfg.faults.partition_timeout.0),
            scheduled: Vec::new(),
            random: Vec::new(),
        };
        for (i, f) in cfg.fault_entries.iter().enumerate() {
            let name = entry_name(i, f);
            let fail = |msg: String| {
                let where_ = if f.source.is_some() {
                    String::new()
                } else {
                    format!("{origin}: ")
                };
                ConfigError(format!("{where_}{name} {msg}"))
            };
            let targets: Vec<Target> = match (&f.link, &f.node) {
                (Some(_), Some(_)) => {
                    return Err(fail(
                        "names both a link and a node; give one of them per fault".into(),
                    ))
                }
                (None, None) => {
                    return Err(fail(
                        "names no link and no node; say what fails, e.g. link = \"host0-switch0\""
                            .into(),
                    ))
                }
                (Some(l), None) => {
                    let links = select_links(net, l);
                    if links.is_empty() {
                        return Err(fail(format!(
                            "names link '{l}', which matches no link; links are named by their `name` or \"a-b\" after their two ends (e.g. \"{}\")",
                            net.links.first().map(|l| l.name.as_str()).unwrap_or("host0-switch0")
                        )));
                    }
                    links.into_iter().map(Target::Link).collect()
                }
                (None, Some(n)) => {
                    let nodes = select_nodes(net, n);
                    if nodes.is_empty() {
                        return Err(fail(format!(
                            "names node '{n}', which matches no host, switch or router"
                        )));
                    }
                    nodes.into_iter().map(Target::Node).collect()
                }
            };
            let degrade = Degradation {
                rate_bps: f.rate.map(|r| r.0),
                delay_ns: f.delay.map(|d| d.0),
                loss: f.loss,
            };
            let degrades = degrade != Degradation::default();
            if let Some(l) = f.loss {
                if !(0.0..1.0).contains(&l) {
                    return Err(fail(format!(
                        "sets loss {l}; a loss probability must be at least 0 and below 1"
                    )));
                }
            }
            if f.mtbf.is_some() || f.mttr.is_some() {
                let (Some(mtbf), Some(mttr)) = (f.mtbf, f.mttr) else {
                    return Err(fail(
                        "gives only one of `mtbf` and `mttr`; random faults need both".into(),
                    ));
                };
                if f.at.is_some() || f.duration.is_some() || degrades {
                    return Err(fail(
                        "mixes random faults (`mtbf`, `mttr`) with `at`, `for`, `rate`, `delay` or `loss`; write scheduled and random faults as separate entries".into(),
                    ));
                }
                if f.action.is_some_and(|a| a != FaultActionConfig::Down) {
                    return Err(fail(
                        "gives `action` with random faults; random faults are always down, then up"
                            .into(),
                    ));
                }
                if mtbf.0 < MIN_RANDOM_PERIOD_NS || mttr.0 < MIN_RANDOM_PERIOD_NS {
                    return Err(fail(format!(
                        "has `mtbf` {} ns and `mttr` {} ns; both must be at least 1us (an element that fails more often changes state thousands of times per simulated millisecond and the simulator cannot keep up)",
                        mtbf.0, mttr.0
                    )));
                }
                for t in targets {
                    let id = match t {
                        Target::Link(l) => l as u64,
                        Target::Node(n) => (1 << 32) | n as u64,
                    };
                    let mut rng = SimRng::new(
                        seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                            ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03),
                    );
                    rng.next_u64();
                    plan.random.push(RandomElement {
                        target: t,
                        mtbf_ns: mtbf.0,
                        mttr_ns: mttr.0,
                        rng,
                    });
                }
                continue;
            }
            let Some(at) = f.at else {
                return Err(fail(
                    "has no `at`; give the virtual time of the fault (e.g. at = \"10ms\"), or `mtbf` and `mttr` for random faults".into(),
                ));
            };
            let action = match f.action {
                Some(a) => a,
                None if degrades => FaultActionConfig::Degrade,
                None => FaultActionConfig::Down,
            };
            if action != FaultActionConfig::Degrade && degrades {
                return Err(fail(format!(
                    "sets rate, delay or loss with action {}; those keys need action \"degrade\"",
                    action_name(action)
                )));
            }
            if f.duration.is_some_and(|d| d.0 == 0) {
                return Err(fail(
                    "has `for` 0; give a duration longer than 0, or leave `for` out for a lasting change".into(),
                ));
            }
            let at = Nanos(at.0);
            let until = f.duration.map(|d| at + Nanos(d.0));
            let (change, undo) = match action {
                FaultActionConfig::Down => (Change::Down, Change::Up),
                FaultActionConfig::Up => {
                    if f.duration.is_some() {
                        return Err(fail(
                            "has action \"up\" with `for`; an up is for good (write a down with `for` instead)".into(),
                        ));
                    }
                    (Change::Up, Change::Down)
                }
                FaultActionConfig::Degrade => {
                    if !degrades {
                        return Err(fail(
                            "has action \"degrade\" but no rate, delay or loss to change".into(),
                        ));
                    }
                    if targets.iter().any(|t| matches!(t, Target::Node(_))) {
                        return Err(fail(
                            "degrades a node; only links have a rate, delay and loss (name the link)".into(),
                        ));
                    }
                    (Change::Degrade(degrade), Change::Restore(degrade))
                }
            };
            for &t in &targets {
                plan.scheduled.push((at, t, change));
                if let Some(u) = until {
                    plan.scheduled.push((u, t, undo));
                }
            }
        }
        // Stable: entries for the same time keep their order in the file.
        plan.scheduled.sort_by_key(|&(t, _, _)| t);
        Ok(Some(plan))
    }

    /// The random elements' first failures and every scheduled change, as
    /// the initial schedule.
    pub(crate) fn initial_schedule(&mut self) -> EventQueue<Item> {
        let mut q = EventQueue::default();
        for &(t, target, change) in &self.scheduled {
            q.push(
                t,
                Item::Apply {
                    target,
                    change,
                    cause: Cause::Scheduled,
                },
            );
        }
        for (i, e) in self.random.iter_mut().enumerate() {
            let t = exponential(&mut e.rng, e.mtbf_ns);
            q.push(
                t,
                Item::Random {
                    element: i as u32,
                    fail: true,
                },
            );
        }
        q
    }
}

fn action_name(a: FaultActionConfig) -> &'static str {
    match a {
        FaultActionConfig::Down => "\"down\"",
        FaultActionConfig::Up => "\"up\"",
        FaultActionConfig::Degrade => "\"degrade\"",
    }
}

/// What happened to the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum NetworkEventKind {
    /// A link failed.
    LinkDown,
    /// A link was repaired.
    LinkUp,
    /// A node failed (all its links are dead).
    NodeDown,
    /// A node was repaired.
    NodeUp,
    /// A link's rate, delay or loss changed.
    LinkDegraded,
    /// A link got its configured rate, delay or loss back.
    LinkRestored,
    /// Forwarding tables were recomputed.
    RoutesRecomputed,
    /// The ranks' hosts were split into groups that cannot reach each other.
    Partitioned,
    /// Every rank's host can reach every other again.
    PartitionHealed,
    /// A message waited longer than the partition timeout: the run ended.
    PartitionTimeout,
}

impl NetworkEventKind {
    /// The kebab-case name, as in JSON reports ("link-down").
    pub fn name(self) -> &'static str {
        match self {
            NetworkEventKind::LinkDown => "link-down",
            NetworkEventKind::LinkUp => "link-up",
            NetworkEventKind::NodeDown => "node-down",
            NetworkEventKind::NodeUp => "node-up",
            NetworkEventKind::LinkDegraded => "link-degraded",
            NetworkEventKind::LinkRestored => "link-restored",
            NetworkEventKind::RoutesRecomputed => "routes-recomputed",
            NetworkEventKind::Partitioned => "partitioned",
            NetworkEventKind::PartitionHealed => "partition-healed",
            NetworkEventKind::PartitionTimeout => "partition-timeout",
        }
    }
}

/// One entry of the fault and routing log.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NetworkEvent {
    /// Virtual time, ns.
    pub at_ns: u64,
    /// What happened.
    pub kind: NetworkEventKind,
    /// The link or node ("" for network-wide events).
    pub target: String,
    /// Cause and details.
    pub detail: String,
}

impl NetworkEvent {
    /// One line: time, kind, target, detail.
    pub fn line(&self) -> String {
        let mut s = format!("{} {}", Nanos(self.at_ns), self.kind.name());
        if !self.target.is_empty() {
            s.push(' ');
            s.push_str(&self.target);
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

/// Why the simulation stopped on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkFailure {
    /// Virtual time the run ended.
    pub at: Nanos,
    /// One sentence naming the partition and the waiting rank pairs.
    pub message: String,
}

/// The split of the ranks' hosts while the network is partitioned.
#[derive(Clone, Debug)]
pub(crate) struct Partition {
    /// When the network split (kept while it stays split, even if the
    /// groups change).
    pub since: Nanos,
    /// Connectivity class of every node.
    pub class: Vec<u32>,
    /// Rank hosts by group, each in rank order.
    pub groups: Vec<Vec<NodeId>>,
}

/// The live fault state of a simulation.
pub(crate) struct FaultState {
    convergence_delay: Nanos,
    partition_timeout: Nanos,
    schedule: EventQueue<Item>,
    random: Vec<RandomElement>,
    link_down: Vec<u32>,
    node_down: Vec<u32>,
    /// Per link: down, or an end node down.
    dead: Vec<bool>,
    dead_count: usize,
    /// Per link: how often it died; frames carry the value they left with.
    epoch: Vec<u32>,
    /// Bumped whenever the dead set changes.
    generation: u64,
    /// The generation the forwarding tables were computed for.
    routed_generation: u64,
    /// Configured link parameters, for restoring after a degradation.
    base_params: Vec<LinkParams>,
    partition: Option<Partition>,
    /// When to look for messages that waited too long at a partition.
    check_at: Option<Nanos>,
    /// The first [`MAX_RECORDED_NETWORK_EVENTS`] events.
    log: Vec<NetworkEvent>,
    /// Events after those, counted but not recorded.
    unrecorded: u64,
    /// Forwarding tables around the dead links, while any are dead.
    routes: Option<Routing>,
}

/// Shortest mean time between failures or to repair a random fault may
/// have, in nanoseconds. Real links take milliseconds to detect a failure;
/// below a microsecond every simulated millisecond would apply thousands of
/// changes per element, and a retransmission backing off for minutes of
/// virtual time would apply billions inside one step.
pub const MIN_RANDOM_PERIOD_NS: u64 = 1_000;

/// Most network events one run records (in the report, the timeline and
/// as pcapng comments). Random faults with a period of milliseconds over
/// minutes of virtual time make millions; beyond this many they are only
/// counted, so memory stays bounded (100,000 events take about 40 MiB).
pub const MAX_RECORDED_NETWORK_EVENTS: usize = 100_000;

impl FaultState {
    pub fn new(mut plan: FaultPlan, net: &Network) -> FaultState {
        let schedule = plan.initial_schedule();
        FaultState {
            convergence_delay: plan.convergence_delay,
            partition_timeout: plan.partition_timeout,
            schedule,
            random: plan.random,
            link_down: vec![0; net.links.len()],
            node_down: vec![0; net.nodes.len()],
            dead: vec![false; net.links.len()],
            dead_count: 0,
            epoch: vec![0; net.links.len()],
            generation: 0,
            routed_generation: 0,
            base_params: net.links.iter().map(|l| l.params).collect(),
            partition: None,
            check_at: None,
            log: Vec::new(),
            unrecorded: 0,
            routes: None,
        }
    }

    /// The network events recorded so far (the first
    /// [`MAX_RECORDED_NETWORK_EVENTS`]).
    pub fn events(&self) -> &[NetworkEvent] {
        &self.log
    }

    /// Network events after those, counted but not recorded.
    pub fn unrecorded(&self) -> u64 {
        self.unrecorded
    }

    /// Time of the next schedule entry.
    pub fn next_time(&self) -> Option<Nanos> {
        self.schedule.peek_time()
    }

    /// Turns a random element's transition into a change, scheduling its next one.
    pub fn random_change(&mut self, at: Nanos, element: u32, fail: bool) -> (Target, Change) {
        let e = &mut self.random[element as usize];
        let (next, mean) = if fail {
            (false, e.mttr_ns)
        } else {
            (true, e.mtbf_ns)
        };
        let t = at + exponential(&mut e.rng, mean);
        let target = e.target;
        self.schedule.push(
            t,
            Item::Random {
                element,
                fail: next,
            },
        );
        (target, if fail { Change::Down } else { Change::Up })
    }

    /// Applies a down/up to the counters and returns the new count of
    /// faults holding the target down; `None` for an up of something that
    /// was not down (nothing changes).
    pub fn count(&mut self, target: Target, change: Change) -> Option<u32> {
        let c = match target {
            Target::Link(l) => &mut self.link_down[l as usize],
            Target::Node(n) => &mut self.node_down[n as usize],
        };
        match change {
            Change::Down => *c += 1,
            Change::Up if *c > 0 => *c -= 1,
            _ => return None,
        }
        Some(*c)
    }

    /// Whether link `l` should be dead now.
    pub fn should_be_dead(&self, net: &Network, l: LinkId) -> bool {
        self.link_down[l as usize] > 0
            || net.links[l as usize]
                .ends
                .iter()
                .any(|&p| self.node_down[net.ports[p as usize].node as usize] > 0)
    }

    /// The dead links and down nodes, for the routing log.
    pub fn summary(&self) -> String {
        let nodes = self.node_down.iter().filter(|&&c| c > 0).count();
        if self.dead_count == 0 {
            return "every link is up: the network's own routing applies again".into();
        }
        format!(
            "shortest paths avoiding {} dead link{} ({} node{} down)",
            self.dead_count,
            if self.dead_count == 1 { "" } else { "s" },
            nodes,
            if nodes == 1 { "" } else { "s" }
        )
    }
}

/// Connectivity classes of every node on the graph without `dead` links:
/// nodes with the same class reach each other. Hosts never forward, so a
/// host with several links is not a bridge: it takes the class of its first
/// live neighbour.
pub(crate) fn classes(net: &Network, dead: &[bool]) -> Vec<u32> {
    let n = net.nodes.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    let multi_homed = |v: NodeId| {
        net.nodes[v as usize].kind == NodeKind::Host && net.nodes[v as usize].ports.len() > 1
    };
    for (l, link) in net.links.iter().enumerate() {
        if dead[l] {
            continue;
        }
        let a = net.ports[link.ends[0] as usize].node;
        let b = net.ports[link.ends[1] as usize].node;
        if multi_homed(a) || multi_homed(b) {
            continue;
        }
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let mut class: Vec<u32> = (0..n as u32).map(|v| find(&mut parent, v)).collect();
    for v in 0..n as NodeId {
        if multi_homed(v) {
            if let Some(&p) = net.nodes[v as usize]
                .ports
                .iter()
                .find(|&&p| !dead[net.ports[p as usize].link as usize])
            {
                class[v as usize] = class[net.peer_node(p) as usize];
            }
        }
    }
    class
}

/// The ranks' distinct hosts grouped by class, groups ordered by their
/// lowest rank.
pub(crate) fn groups(class: &[u32], rank_hosts: &[NodeId]) -> Vec<Vec<NodeId>> {
    let mut groups: Vec<(u32, Vec<NodeId>)> = Vec::new();
    for &h in rank_hosts {
        let c = class[h as usize];
        match groups.iter_mut().find(|(gc, _)| *gc == c) {
            Some((_, g)) => {
                if !g.contains(&h) {
                    g.push(h)
                }
            }
            None => groups.push((c, vec![h])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// "host0 (rank 0)", "host1 (ranks 1, 2)".
pub(crate) fn host_label(net: &Network, rank_hosts: &[NodeId], h: NodeId) -> String {
    let ranks: Vec<String> = rank_hosts
        .iter()
        .enumerate()
        .filter(|&(_, &rh)| rh == h)
        .map(|(r, _)| r.to_string())
        .collect();
    let name = &net.nodes[h as usize].name;
    match ranks.len() {
        0 => name.clone(),
        1 => format!("{name} (rank {})", ranks[0]),
        _ => format!("{name} (ranks {})", short_list(&ranks, 6)),
    }
}

/// At most `max` items joined by ", ", then "and N more".
pub(crate) fn short_list(items: &[String], max: usize) -> String {
    if items.len() <= max {
        return items.join(", ");
    }
    format!("{} and {} more", items[..max].join(", "), items.len() - max)
}

/// "[host0 (rank 0), host1 (rank 1)] and [host2 (rank 2)]".
pub(crate) fn describe_groups(
    net: &Network,
    rank_hosts: &[NodeId],
    groups: &[Vec<NodeId>],
) -> String {
    let parts: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g.iter().map(|&h| host_label(net, rank_hosts, h)).collect();
            format!("[{}]", short_list(&names, 6))
        })
        .collect();
    match parts.len() {
        0 | 1 => parts.join(""),
        n => format!("{} and {}", parts[..n - 1].join(", "), parts[n - 1]),
    }
}

/// Parses a command-line fault: `link NAME|node NAME`, then `down`, `up` or
/// `rate R` / `delay D` / `loss P`, then `at T` and optionally `for D`; or
/// `mtbf D mttr D` for random faults. E.g. `link host0-switch0 down at 10ms
/// for 50ms`, `link router0-router1 rate 100Mbps at 1s`, `node router* mtbf
/// 10s mttr 1s`. The error is one sentence.
pub fn parse_spec(spec: &str) -> Result<FaultConfig, String> {
    let bad = |msg: String| crate::base::text::one_line(&format!("--fault '{spec}': {msg}"));
    let mut f = FaultConfig {
        source: Some(spec.to_string()),
        ..FaultConfig::default()
    };
    let mut words = spec.split_whitespace();
    match (words.next(), words.next()) {
        (Some("link"), Some(name)) => f.link = Some(name.into()),
        (Some("node"), Some(name)) => f.node = Some(name.into()),
        _ => {
            return Err(bad(
                "start with `link NAME` or `node NAME`, e.g. 'link host0-switch0 down at 10ms for 50ms'".into(),
            ))
        }
    }
    let duration = |key: &str, v: Option<&str>| -> Result<DurationNs, String> {
        let v = v.ok_or_else(|| {
            bad(format!(
                "`{key}` needs a duration after it, e.g. '{key} 10ms'"
            ))
        })?;
        crate::base::units::parse_duration_ns(v)
            .map(DurationNs)
            .map_err(|e| bad(format!("`{key} {v}`: {e}")))
    };
    let set_action = |f: &mut FaultConfig, a: FaultActionConfig| -> Result<(), String> {
        if f.action.is_some() {
            return Err(bad("give one of `down` and `up`".into()));
        }
        f.action = Some(a);
        Ok(())
    };
    while let Some(w) = words.next() {
        match w {
            "down" => set_action(&mut f, FaultActionConfig::Down)?,
            "up" => set_action(&mut f, FaultActionConfig::Up)?,
            "at" => f.at = Some(duration("at", words.next())?),
            "for" => f.duration = Some(duration("for", words.next())?),
            "delay" => f.delay = Some(duration("delay", words.next())?),
            "mtbf" => f.mtbf = Some(duration("mtbf", words.next())?),
            "mttr" => f.mttr = Some(duration("mttr", words.next())?),
            "rate" => {
                let v = words
                    .next()
                    .ok_or_else(|| bad("`rate` needs a rate after it, e.g. 'rate 100Mbps'".into()))?;
                f.rate = Some(RateBps(
                    crate::base::units::parse_rate_bps(v).map_err(|e| bad(format!("`rate {v}`: {e}")))?,
                ));
            }
            "loss" => {
                let v = words.next().ok_or_else(|| {
                    bad("`loss` needs a probability after it, e.g. 'loss 0.01'".into())
                })?;
                f.loss = Some(v.parse().map_err(|_| {
                    bad(format!("`loss {v}` is not a probability; write e.g. 'loss 0.01'"))
                })?);
            }
            other => {
                return Err(bad(format!(
                    "unknown word '{other}'; use down, up, rate, delay, loss, at, for, mtbf, mttr (units without a space: 10ms)"
                )))
            }
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(toml: &str) -> (NetworkConfig, Network) {
        let cfg = NetworkConfig::from_toml_str(toml, "t").unwrap();
        let net = Network::from_config(&cfg, "t").unwrap();
        (cfg, net)
    }

    const STAR: &str = "[[host]]\nname='host0'\n[[host]]\nname='host1'\n[[switch]]\nname='switch0'\n[[link]]\na='host0'\nb='switch0'\n[[link]]\na='host1'\nb='switch0'\n";

    fn resolve(extra: &str) -> Result<Option<FaultPlan>, ConfigError> {
        let (cfg, net) = net(&format!("{STAR}{extra}"));
        FaultPlan::resolve(&cfg, &net, "t")
    }

    #[test]
    fn scheduled_entries_resolve_to_timed_changes() {
        let p = resolve("[[fault]]\nlink='switch0-host1'\nat='10ms'\nfor='50ms'\n[[fault]]\nlink='host0-switch0'\nrate='500Mbps'\nat='1ms'\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            p.scheduled,
            vec![
                (
                    Nanos::from_millis(1),
                    Target::Link(0),
                    Change::Degrade(Degradation {
                        rate_bps: Some(500_000_000),
                        ..Default::default()
                    })
                ),
                (Nanos::from_millis(10), Target::Link(1), Change::Down),
                (Nanos::from_millis(60), Target::Link(1), Change::Up),
            ]
        );
        assert_eq!(p.convergence_delay, Nanos::from_millis(100));
        assert!(resolve("").unwrap().is_none());
    }

    #[test]
    fn bad_entries_are_one_sentence_naming_the_entry() {
        for (toml, want) in [
            (
                "[[fault]]\nlink='nowhere'\nat='1ms'\n",
                "fault[0] names link 'nowhere'",
            ),
            ("[[fault]]\nnode='switch0'\n", "has no `at`"),
            (
                "[[fault]]\nnode='switch0'\nlink='host0-switch0'\nat='1ms'\n",
                "both",
            ),
            (
                "[[fault]]\nnode='switch0'\nrate='1Mbps'\nat='1ms'\n",
                "degrades a node",
            ),
            (
                "[[fault]]\nlink='host0-switch0'\naction='down'\nloss=0.1\nat='1ms'\n",
                "need action \"degrade\"",
            ),
            (
                "[[fault]]\nlink='host0-switch0'\nloss=1.5\nat='1ms'\n",
                "below 1",
            ),
            ("[[fault]]\nlink='*'\nmtbf='1s'\n", "only one of"),
            ("[[fault]]\nlink='*'\nmtbf='1s'\nmttr='0'\n", "at least 1us"),
            (
                "[[fault]]\nlink='*'\nmtbf='999ns'\nmttr='1s'\n",
                "`mtbf` 999 ns",
            ),
            (
                "[[fault]]\nlink='host0-switch0'\naction='up'\nat='1ms'\nfor='1ms'\n",
                "an up is for good",
            ),
        ] {
            let e = resolve(toml).unwrap_err().0;
            assert!(e.contains(want), "{toml}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        let e =
            NetworkConfig::from_toml_str(&format!("{STAR}[[fault]]\nlink='x'\nwhen='1ms'\n"), "t")
                .unwrap_err();
        assert!(e.0.contains("fault[0]") && e.0.contains("when"), "{e}");
    }

    #[test]
    fn command_line_specs_parse_or_explain() {
        let f = parse_spec("link host0-switch0 down at 10ms for 50ms").unwrap();
        assert_eq!(f.link.as_deref(), Some("host0-switch0"));
        assert_eq!(f.action, Some(FaultActionConfig::Down));
        assert_eq!(f.at, Some(DurationNs(10_000_000)));
        assert_eq!(f.duration, Some(DurationNs(50_000_000)));
        let f = parse_spec("link a-b rate 100Mbps loss 0.01 delay 2ms at 1s").unwrap();
        assert_eq!(f.rate, Some(RateBps(100_000_000)));
        assert_eq!(f.loss, Some(0.01));
        assert_eq!(f.delay, Some(DurationNs(2_000_000)));
        let f = parse_spec("node router* mtbf 10s mttr 1s").unwrap();
        assert_eq!(f.mttr, Some(DurationNs(1_000_000_000)));
        for (spec, want) in [
            ("host0 down", "start with `link NAME`"),
            ("link x down at", "`at` needs a duration"),
            ("link x down at 10 ms", "`at 10`: '10' is not a duration"),
            ("link x down at soon", "`at soon`"),
            ("link x down up at 1ms", "one of `down` and `up`"),
            ("link x loss lots at 1ms", "not a probability"),
        ] {
            let e = parse_spec(spec).unwrap_err();
            assert!(e.starts_with(&format!("--fault '{spec}'")), "{e}");
            assert!(e.contains(want), "{spec}: {e}");
        }
        // Checked against the network like a file entry, named by its spec.
        let (mut cfg, net) = net(STAR);
        cfg.fault_entries
            .push(parse_spec("node nowhere down at 1ms").unwrap());
        let e = FaultPlan::resolve(&cfg, &net, "t").unwrap_err().0;
        assert!(
            e.starts_with("--fault 'node nowhere down at 1ms' names node 'nowhere'"),
            "{e}"
        );
    }

    #[test]
    fn links_are_found_by_name_pattern_or_ends_in_either_order() {
        let (_, n) = net(STAR);
        assert_eq!(select_links(&n, "host0-switch0"), vec![0]);
        assert_eq!(select_links(&n, "switch0-host0"), vec![0]);
        assert_eq!(select_links(&n, "host*"), vec![0, 1]);
        assert!(select_links(&n, "host0-host1").is_empty());
    }

    #[test]
    fn kind_names_match_the_json_names() {
        use NetworkEventKind::*;
        for k in [
            LinkDown,
            LinkUp,
            NodeDown,
            NodeUp,
            LinkDegraded,
            LinkRestored,
            RoutesRecomputed,
            Partitioned,
            PartitionHealed,
            PartitionTimeout,
        ] {
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
        }
    }

    #[test]
    fn exponential_draws_have_the_requested_mean() {
        // 20000 draws of Exp(mean 1 ms): the sample mean has a standard
        // deviation of mean/sqrt(20000) = 7.07 us; allow 5 of them.
        let mut rng = SimRng::new(5);
        let n = 20_000u64;
        let sum: u64 = (0..n).map(|_| exponential(&mut rng, 1_000_000).0).sum();
        let mean = sum / n;
        assert!(
            (1_000_000 - 35_355..=1_000_000 + 35_355).contains(&mean),
            "{mean}"
        );
    }

    #[test]
    fn classes_split_where_links_are_dead() {
        let (_, n) = net(STAR);
        let c = classes(&n, &[false, false]);
        assert_eq!(groups(&c, &[0, 1]), vec![vec![0, 1]]);
        let c = classes(&n, &[false, true]);
        let g = groups(&c, &[0, 1, 1]);
        assert_eq!(g, vec![vec![0], vec![1]]);
        assert_eq!(
            describe_groups(&n, &[0, 1, 1], &g),
            "[host0 (rank 0)] and [host1 (ranks 1, 2)]"
        );
    }
}
