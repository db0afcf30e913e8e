//! `mpinetsim replay` through the MPI engine: each recorded rank's program
//! calls the same engine the shim runs (matching, eager and rendezvous
//! protocols, collective algorithms), in virtual time, against the network
//! model. So on another network the engine decides again — which message a
//! receive meets first, when a rendezvous handshake happens, how a
//! collective's steps interleave — instead of repeating the order the
//! recording network produced.
//!
//! Each rank runs as a coroutine on one thread, so one at a time: a
//! rank's engine suspends to the scheduler (this module) when its program
//! computes or when it must wait for a message ([`transport`]). The scheduler is conservative, like the
//! message-level replay: it lets the runnable rank with the earliest clock
//! run while that clock is not after the network's next event, else steps
//! the network and hands deliveries to their ranks. A rank computes by
//! advancing its clock (recorded time ÷ its host's `cpu_speed`, nothing
//! below its `cpu_threshold`) and waits
//! for a message by blocking until the network delivers one. Calls take no
//! virtual time of their own, but for a test or probe that completed or
//! found nothing: the host's `poll_cost`, as in the run.

pub mod calls;
pub mod program;
pub mod transport;

use crate::error::Error;
use crate::replay::{NetworkSteps, ReplayOutcome};
use crate::replay_timeline::{Activity, ReplayTimeline};
use bytes::Bytes;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use mpinetsim_protocol::trace_calls::CallRecord;
use mpinetsim_protocol::HostCpu;
use netsim::model::NetworkModel;
use netsim::Nanos;
use program::Step;
use shim_engine::transport::Incoming;
use shim_engine::{Engine, EngineConfig};
use std::collections::HashMap;
use transport::{Resume, Then, VirtualTransport, Yield};

/// Stack of one replayed rank's coroutine, bytes (reserved, not committed).
const RANK_STACK_BYTES: usize = 8 << 20;

/// A replayed rank's program on its engine.
type RankCoroutine = Coroutine<Resume, Yield, Yield, DefaultStack>;

/// Where a rank is, for the scheduler.
#[derive(Debug, PartialEq, Eq)]
enum State {
    /// Waits for its next turn.
    Ready,
    /// Its engine waits for a message and none was delivered.
    Blocked,
    /// Its program ended.
    Done,
}

struct Rank {
    clock: Nanos,
    state: State,
    /// Delivered since its last turn.
    delivered: Vec<Incoming>,
    program: RankCoroutine,
    /// When it blocked (for the timeline's wait spans).
    blocked_at: Nanos,
    ended: Option<Nanos>,
    cpu: HostCpu,
}

/// The engine settings a rank's recording used (its Start record).
fn engine_config(steps: &[Step]) -> EngineConfig {
    steps
        .iter()
        .find_map(|s| match s {
            Step::Call(CallRecord::Start {
                eager_limit,
                rendezvous_chunk,
            }) => Some(EngineConfig {
                eager_limit: Some(*eager_limit),
                rendezvous_chunk: *rendezvous_chunk,
                ..EngineConfig::default()
            }),
            _ => None,
        })
        .unwrap_or_default()
}

/// Runs a rank's `steps` on its own engine until its program ends; an
/// error is one sentence.
fn run_rank(steps: &[Step], t: VirtualTransport<'_>) -> Yield {
    let mut e = Engine::new(t, engine_config(steps));
    let mut names = calls::Names::default();
    for step in steps {
        match step {
            Step::Compute(ns) => e.transport_mut().hand_back(Then::Compute(*ns)),
            Step::Call(c) => {
                if let Err(why) = calls::make(&mut e, &mut names, c) {
                    return e.transport_mut().last_turn(Then::Failed(why.to_string()));
                }
                if *c == CallRecord::Progress {
                    e.transport_mut().hand_back(Then::Poll);
                }
            }
            Step::End => break,
        }
    }
    e.transport_mut().last_turn(Then::Done)
}

/// Replays every rank's `programs` on `sim` through the engine;
/// `cpus[r]` makes rank r's computations emulated time. `flush` runs every so many
/// network events (for captures). The error says why the replay cannot
/// finish.
pub fn replay(
    programs: Vec<Vec<Step>>,
    sim: &mut dyn NetworkModel,
    cpus: &[HostCpu],
    mut flush: impl FnMut(&mut dyn NetworkModel) -> Result<(), Error>,
    timeline: Option<&mut ReplayTimeline>,
) -> Result<ReplayOutcome, Error> {
    let n = programs.len() as u32;
    let nodes = sim.rank_nodes();
    let mut ranks = Vec::with_capacity(programs.len());
    for (r, steps) in programs.into_iter().enumerate() {
        let eager = engine_config(&steps).eager_limit.unwrap_or(0);
        let where_ = (r as u32, n, nodes.get(r).copied().unwrap_or(0));
        let stack = DefaultStack::new(RANK_STACK_BYTES)
            .map_err(|e| format!("cannot make the replay of rank {r} a stack: {e}"))?;
        let program = Coroutine::with_stack(stack, move |yielder, first: Resume| {
            run_rank(&steps, VirtualTransport::new(where_, eager, yielder, first))
        });
        ranks.push(Rank {
            clock: Nanos::ZERO,
            state: State::Ready,
            delivered: Vec::new(),
            program,
            blocked_at: Nanos::ZERO,
            ended: None,
            cpu: cpus.get(r).copied().unwrap_or(HostCpu::NATIVE),
        });
    }
    schedule(&mut ranks, sim, &mut flush, timeline)
}

/// Message numbering and counting of the injections.
#[derive(Default)]
struct Injections {
    /// Which message each injected one is: (src, dst, index).
    ids: HashMap<u64, (u32, u32, u64)>,
    sent: HashMap<(u32, u32), u64>,
}

/// The scheduler's loop; see the module's documentation.
fn schedule(
    ranks: &mut [Rank],
    sim: &mut dyn NetworkModel,
    flush: &mut impl FnMut(&mut dyn NetworkModel) -> Result<(), Error>,
    mut timeline: Option<&mut ReplayTimeline>,
) -> Result<ReplayOutcome, Error> {
    let n = ranks.len();
    let mut out = ReplayOutcome {
        rank_end_ns: vec![0; n],
        rank_compute_ns: vec![0; n],
        ..Default::default()
    };
    let mut inj = Injections::default();
    let mut batch = Vec::new();
    let mut steps = NetworkSteps::default();
    loop {
        if sim.failure().is_some() {
            break;
        }
        let next_event = sim.next_event_time();
        let runnable = ranks
            .iter()
            .enumerate()
            .filter(|(_, r)| r.state == State::Ready)
            .min_by_key(|(i, r)| (r.clock, *i))
            .map(|(i, r)| (i, r.clock));
        match (runnable, next_event) {
            (Some((i, clock)), t) if t.is_none_or(|t| clock <= t) => {
                let who = i as u32;
                let r = &mut ranks[i];
                let resume = Resume {
                    clock_ns: r.clock.0,
                    delivered: std::mem::take(&mut r.delivered),
                };
                let program = &mut r.program;
                let turn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    program.resume(resume)
                }));
                let y = match turn {
                    Ok(CoroutineResult::Yield(y) | CoroutineResult::Return(y)) => y,
                    Err(_) => {
                        return Err(Error::internal(format!(
                            "the replay of rank {i} failed (an internal error of its engine)"
                        )))
                    }
                };
                for (dst, bytes) in y.sends {
                    let len = bytes.len() as u64;
                    let index = inj.sent.entry((who, dst)).or_insert(0);
                    let key = (who, dst, *index);
                    *index += 1;
                    let id = sim
                        .inject(who, dst, Bytes::from(bytes), r.clock)
                        .map_err(|e| {
                            format!("rank {who} sends a message the network cannot carry ({e})")
                        })?;
                    inj.ids.insert(id, key);
                    out.messages += 1;
                    out.bytes += len;
                    if let Some(t) = timeline.as_deref_mut() {
                        t.sent(key, r.clock.0, len);
                    }
                }
                match y.then {
                    Then::Compute(ns) => {
                        let scaled = r.cpu.emulated_ns(ns);
                        if let Some(t) = timeline.as_deref_mut() {
                            t.span(who, Activity::Compute, r.clock.0, r.clock.0 + scaled);
                        }
                        r.clock += Nanos(scaled);
                        out.rank_compute_ns[who as usize] += scaled;
                    }
                    Then::Poll => r.clock += Nanos(r.cpu.poll_ns),
                    Then::Recv => {
                        r.state = State::Blocked;
                        r.blocked_at = r.clock;
                    }
                    Then::Done => {
                        r.state = State::Done;
                        r.ended = Some(r.clock);
                    }
                    Then::Failed(why) => return Err(Error::Usage(format!("rank {who}: {why}"))),
                }
            }
            (_, Some(_)) => {
                steps.step(sim, flush, &mut batch)?;
                for d in batch.drain(..) {
                    let at = d.delivered_at;
                    if let (Some(key), Some(t)) = (inj.ids.remove(&d.id), timeline.as_deref_mut()) {
                        t.delivered(key, at.0);
                    }
                    let r = &mut ranks[d.dst as usize];
                    if r.state == State::Blocked {
                        if let Some(t) = timeline.as_deref_mut() {
                            t.span(d.dst, Activity::Wait, r.blocked_at.0, at.0);
                        }
                        r.clock = r.clock.max(at);
                        r.state = State::Ready;
                    }
                    r.delivered.push(Incoming {
                        src: d.src,
                        vtime_ns: at.0,
                        bytes: d.bytes.to_vec(),
                    });
                }
            }
            (None, None) => break,
            (Some(_), None) => unreachable!("a runnable rank runs when the network is idle"),
        }
    }
    flush(sim)?;
    if let Some(f) = sim.failure() {
        out.network_failure = Some(f.message.clone());
    } else if let Some(i) = ranks.iter().position(|r| r.state != State::Done) {
        return Err(Error::Usage(format!(
            "the replay cannot finish: rank {i} waits for a message that no rank sends (the trace is inconsistent)"
        )));
    }
    for (i, r) in ranks.iter().enumerate() {
        out.rank_end_ns[i] = r.ended.unwrap_or(r.clock).0;
    }
    out.runtime_ns = out.rank_end_ns.iter().copied().max().unwrap_or(0);
    Ok(out)
}

#[cfg(test)]
mod tests;
