//! The analytic network model, after Dimemas: a machine of SMP nodes whose
//! messages take latency + size ÷ bandwidth plus the time they wait for a
//! free link and bus, and whose collectives are timed as one operation
//! (synchronisation, fan-in, fan-out) instead of as messages.
//!
//! [`AnalyticSim`] offers the driver the packet simulator's interface —
//! inject at a virtual time, step through events, take deliveries — so the
//! gateway can run either. Like the rest of netsim it is deterministic and
//! does no I/O.
//!
//! | module | concept |
//! |---|---|
//! | `config` | `model = "…"` and the `[analytic]` table |
//! | `params` | the resolved machine: latencies, bandwidths, L, B, rank → node |
//! | `resources` | FIFO pools of identical servers (links, buses) |
//! | `p2p` | one message's transfer through links and buses |
//! | `collectives` | phase models, size rules, defaults per MPI collective |

pub mod collectives;
mod model;

pub mod p2p;
pub mod params;
pub mod resources;

pub use crate::config::analytic::{AnalyticConfig, ModelKind};
pub use collectives::{
    collective_ns, log_steps, CollectiveModel, CollectiveOp, CollectiveShape, PhaseModel, SizeRule,
};
pub use params::MachineParams;

use crate::base::event::EventQueue;
use crate::base::time::Nanos;
use crate::config::{ConfigError, NetworkConfig};
pub use crate::model::collective::{CollectiveEntry, CollectiveKey, Release};
use crate::model::stats::SimStats;
use crate::model::{Delivery, EventClass, InjectError};
use bytes::Bytes;
use p2p::NetworkResources;
use params::after;
use std::collections::{BTreeMap, HashMap};

/// Counters of an analytic run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnalyticStats {
    /// The machine the run used.
    pub machine: Option<MachineParams>,
    /// Point-to-point messages timed by the model.
    pub messages: u64,
    /// Of those, messages between nodes.
    pub inter_node_messages: u64,
    /// Total time messages waited for a link or bus, ns.
    pub contention_wait_ns: u64,
    /// Longest such wait, ns.
    pub max_contention_wait_ns: u64,
    /// Collectives completed.
    pub collectives: u64,
    /// Total modelled time of their fan-in and fan-out phases, ns.
    pub collective_ns: u64,
    /// Messages carried for collectives without network timing.
    pub untimed_messages: u64,
}

enum Event {
    /// A message's latency is over: it asks for links and a bus.
    Request(Box<Delivery>),
    /// A message arrives.
    Deliver(Box<Delivery>, EventClass),
    /// A collective ends for these members.
    Release(CollectiveKey, Vec<u32>),
}

struct Gathering {
    op: CollectiveOp,
    members: u32,
    entered: Vec<(u32, Nanos, CollectiveEntry)>,
}

/// The analytic model as an event-driven simulator.
pub struct AnalyticSim {
    machine: MachineParams,
    resources: NetworkResources,
    models: BTreeMap<CollectiveOp, CollectiveModel>,
    queue: EventQueue<Event>,
    now: Nanos,
    events_run: u64,
    next_id: u64,
    deliveries: Vec<Delivery>,
    releases: Vec<Release>,
    pair_last: HashMap<(u32, u32), Nanos>,
    gathering: HashMap<CollectiveKey, Gathering>,
    injected: u64,
    delivered: u64,
    stats: AnalyticStats,
}

impl AnalyticSim {
    /// The model of `cfg` (its `[analytic]` table and, for what that leaves
    /// out, its packet network) for `n_ranks` ranks.
    pub fn from_config(
        cfg: &NetworkConfig,
        origin: &str,
        n_ranks: usize,
    ) -> Result<AnalyticSim, ConfigError> {
        let machine = MachineParams::from_config(cfg, origin, n_ranks)?;
        let mut models = BTreeMap::new();
        for (name, model) in &cfg.analytic.collective {
            let op = CollectiveOp::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = CollectiveOp::ALL.iter().map(|o| o.name()).collect();
                ConfigError(format!(
                    "{origin}: `analytic.collective.{name}` names no collective; use one of {}",
                    names.join(", ")
                ))
            })?;
            models.insert(op, *model);
        }
        Ok(AnalyticSim::new(machine, models))
    }

    /// The model of an explicit machine with these collective models (ops
    /// left out use their defaults).
    pub fn new(
        machine: MachineParams,
        models: BTreeMap<CollectiveOp, CollectiveModel>,
    ) -> AnalyticSim {
        let mut all: BTreeMap<_, _> = CollectiveOp::ALL
            .iter()
            .map(|op| (*op, op.default_model()))
            .collect();
        all.extend(models);
        AnalyticSim {
            resources: NetworkResources::new(&machine),
            stats: AnalyticStats {
                machine: Some(machine.clone()),
                ..Default::default()
            },
            machine,
            models: all,
            queue: EventQueue::default(),
            now: Nanos::ZERO,
            events_run: 0,
            next_id: 0,
            deliveries: Vec::new(),
            releases: Vec::new(),
            pair_last: HashMap::new(),
            gathering: HashMap::new(),
            injected: 0,
            delivered: 0,
        }
    }

    /// The resolved machine.
    pub fn machine(&self) -> &MachineParams {
        &self.machine
    }

    /// Current virtual time.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Nanos> {
        self.queue.peek_time()
    }

    fn check_ranks(&self, src: u32, dst: u32) -> Result<(), InjectError> {
        let ranks = self.machine.node_of_rank.len() as u32;
        for rank in [src, dst] {
            if rank >= ranks {
                return Err(InjectError::NoSuchRank { rank, ranks });
            }
        }
        Ok(())
    }

    fn message(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Box<Delivery> {
        let id = self.next_id;
        self.next_id += 1;
        self.injected += 1;
        Box::new(Delivery {
            id,
            src,
            dst,
            bytes,
            injected_at: at,
            delivered_at: at,
        })
    }

    /// Sends `bytes` from rank `src` to rank `dst` at virtual time `at`
    /// (not before [`AnalyticSim::now`]): it arrives after the latency, any
    /// wait for links and a bus, and size ÷ bandwidth. Messages between one
    /// pair of ranks arrive in the order sent.
    pub fn inject(
        &mut self,
        src: u32,
        dst: u32,
        bytes: Bytes,
        at: Nanos,
    ) -> Result<u64, InjectError> {
        self.check_ranks(src, dst)?;
        let at = at.max(self.now);
        let (latency, _) = self.machine.path(src, dst);
        let m = self.message(src, dst, bytes, at);
        let id = m.id;
        self.queue.push(after(at, latency), Event::Request(m));
        Ok(id)
    }

    /// Carries `bytes` from `src` to `dst` without network timing: it
    /// arrives at `at`. Used for the data of a collective, whose time the
    /// collective model accounts for.
    pub fn inject_untimed(
        &mut self,
        src: u32,
        dst: u32,
        bytes: Bytes,
        at: Nanos,
    ) -> Result<u64, InjectError> {
        self.check_ranks(src, dst)?;
        let at = at.max(self.now);
        let m = self.message(src, dst, bytes, at);
        let id = m.id;
        self.stats.untimed_messages += 1;
        self.queue
            .push(at, Event::Deliver(m, EventClass::LocalDelivery));
        Ok(id)
    }

    /// Rank `rank` entered a collective at virtual time `at`. When the last
    /// member has entered, the collective starts (at the latest entry) and
    /// ends after its fan-in and fan-out phases; every member is then
    /// released ([`AnalyticSim::take_releases`]). Members that disagree on
    /// the operation or the communicator's size are an error.
    pub fn enter_collective(
        &mut self,
        rank: u32,
        e: CollectiveEntry,
        at: Nanos,
    ) -> Result<(), String> {
        self.check_ranks(rank, rank).map_err(|x| x.to_string())?;
        let g = self.gathering.entry(e.key).or_insert_with(|| Gathering {
            op: e.op,
            members: e.members,
            entered: Vec::new(),
        });
        if g.op != e.op || g.members != e.members {
            return Err(format!(
                "rank {rank} entered {:?} on a communicator of {} ranks where another member entered {:?} on {} ranks; every member must call the same collective",
                e.op, e.members, g.op, g.members
            ));
        }
        if g.entered.iter().any(|(r, _, _)| *r == rank) {
            return Err(format!("rank {rank} entered the same collective twice"));
        }
        g.entered.push((rank, at, e));
        if g.entered.len() < g.members as usize {
            return Ok(());
        }
        let g = self.gathering.remove(&e.key).expect("present");
        let start = g.entered.iter().map(|x| x.1).max().unwrap_or(at);
        let d = self.collective_duration_ns(&g);
        self.stats.collectives += 1;
        self.stats.collective_ns += d;
        let end = after(start, d).max(self.now);
        let ranks = g.entered.iter().map(|x| x.0).collect();
        self.queue.push(end, Event::Release(e.key, ranks));
        Ok(())
    }

    fn collective_duration_ns(&self, g: &Gathering) -> u64 {
        let root = g.entered.iter().find(|x| x.2.is_root && g.op.is_rooted());
        let (sent, received) = match root {
            Some(r) => (r.2.sent_bytes, r.2.received_bytes),
            None => (
                g.entered.iter().map(|x| x.2.sent_bytes).max().unwrap_or(0),
                g.entered
                    .iter()
                    .map(|x| x.2.received_bytes)
                    .max()
                    .unwrap_or(0),
            ),
        };
        let first = g.entered[0].0;
        let one_node = g.entered.iter().all(|x| self.machine.same_node(first, x.0));
        let (latency_ns, bandwidth_bps) = if one_node {
            (
                self.machine.local_latency_ns,
                self.machine.local_bandwidth_bps,
            )
        } else {
            (self.machine.latency_ns, self.machine.bandwidth_bps)
        };
        let shape = CollectiveShape {
            members: g.members,
            root_sent_bytes: sent,
            root_received_bytes: received,
            latency_ns,
            bandwidth_bps,
            buses: self.machine.buses,
        };
        collective_ns(&self.models[&g.op], &shape)
    }

    /// Runs the next event; returns its time and kind.
    pub fn step_classified(&mut self) -> Option<(Nanos, EventClass)> {
        let (t, ev) = self.queue.pop()?;
        self.now = t;
        self.events_run += 1;
        let class = match ev {
            Event::Request(mut m) => {
                let tr =
                    self.resources
                        .transfer(&self.machine, m.src, m.dst, m.bytes.len() as u64, t);
                self.stats.messages += 1;
                let local = self.machine.same_node(m.src, m.dst);
                if !local {
                    self.stats.inter_node_messages += 1;
                    self.stats.contention_wait_ns += tr.waited_ns();
                    self.stats.max_contention_wait_ns =
                        self.stats.max_contention_wait_ns.max(tr.waited_ns());
                }
                let last = self.pair_last.entry((m.src, m.dst)).or_insert(Nanos::ZERO);
                let arrive = tr.delivered.max(*last);
                *last = arrive;
                let class = if local {
                    EventClass::LocalDelivery
                } else {
                    EventClass::Arrival
                };
                m.delivered_at = arrive;
                self.queue.push(arrive, Event::Deliver(m, class));
                EventClass::Inject
            }
            Event::Deliver(mut m, class) => {
                m.delivered_at = t;
                self.delivered += 1;
                self.deliveries.push(*m);
                class
            }
            Event::Release(key, ranks) => {
                self.releases
                    .extend(ranks.into_iter().map(|rank| Release { rank, key, at: t }));
                EventClass::Collective
            }
        };
        Some((t, class))
    }

    /// Runs the next event; returns its time.
    pub fn step(&mut self) -> Option<Nanos> {
        self.step_classified().map(|x| x.0)
    }

    /// Runs every event up to and including virtual time `t`.
    pub fn advance_to(&mut self, t: Nanos) {
        while self.next_event_time().is_some_and(|n| n <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Moves the messages delivered so far into `out`.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        out.append(&mut self.deliveries);
    }

    /// Moves the collective releases so far into `out`.
    pub fn take_releases(&mut self, out: &mut Vec<Release>) {
        out.append(&mut self.releases);
    }

    /// Collectives some but not all members have entered.
    pub fn collectives_waiting(&self) -> usize {
        self.gathering.len()
    }

    /// Messages injected and not yet delivered.
    pub fn messages_in_flight(&self) -> u64 {
        self.injected - self.delivered
    }

    /// The model's counters.
    pub fn analytic_stats(&self) -> &AnalyticStats {
        &self.stats
    }

    /// The run's statistics in the packet simulator's shape (no nodes,
    /// links or connections: the analytic model has none).
    pub fn stats(&self) -> SimStats {
        SimStats {
            simulated_ns: self.now.0,
            events: self.events_run,
            messages_injected: self.injected,
            messages_delivered: self.delivered,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests;
