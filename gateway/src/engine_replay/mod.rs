//! `mpinetsim replay` through the MPI engine: each recorded rank's program
//! calls the same engine the shim runs (matching, eager and rendezvous
//! protocols, collective algorithms), in virtual time, against the network
//! model. So on another network the engine decides again — which message a
//! receive meets first, when a rendezvous handshake happens, how a
//! collective's steps interleave — instead of repeating the order the
//! recording network produced.
//!
//! Each rank runs on its own thread, but only one at a time: a rank's
//! engine asks the scheduler (this module) for everything that touches the
//! world ([`transport::Ask`]). The scheduler is conservative, like the
//! message-level replay: it lets the runnable rank with the earliest clock
//! run while that clock is not after the network's next event, else steps
//! the network and hands deliveries to their ranks. A rank computes by
//! advancing its clock (recorded time ÷ its host's `cpu_speed`) and waits
//! for a message by blocking until the network delivers one. Calls take no
//! virtual time of their own.

pub mod calls;
pub mod program;
pub mod transport;

use crate::replay::ReplayOutcome;
use crate::replay_timeline::{Activity, ReplayTimeline};
use bytes::Bytes;
use mpinetsim_protocol::trace_calls::CallRecord;
use netsim::model::NetworkModel;
use netsim::Nanos;
use program::Step;
use shim_engine::transport::Incoming;
use shim_engine::{Engine, EngineConfig};
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender};
use transport::{Abandoned, Answer, Ask, VirtualTransport};

/// Where a rank is, for the scheduler.
#[derive(Debug, PartialEq, Eq)]
enum State {
    /// Waits to be resumed with its pending answer.
    Ready,
    /// In a blocking receive with nothing delivered.
    Blocked,
    /// Its program ended.
    Done,
}

struct Rank {
    clock: Nanos,
    state: State,
    pending: Option<Answer>,
    inbox: VecDeque<Incoming>,
    answers: Sender<Answer>,
    /// When it blocked (for the timeline's wait spans).
    blocked_at: Nanos,
    ended: Option<Nanos>,
    speed: f64,
}

/// What a rank's thread reports when its program cannot go on.
enum Failure {
    /// A recorded call the replay could not make (one sentence).
    Call(String),
}

/// Runs rank `rank`'s `steps` on its own engine (on this thread) until its
/// program ends; an error is one sentence.
fn run_rank(steps: Vec<Step>, t: VirtualTransport) -> Result<(), String> {
    t.wait_for_start();
    let cfg = steps
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
        .unwrap_or_default();
    let mut e = Engine::new(t, cfg);
    let mut names = calls::Names::default();
    for step in &steps {
        match step {
            Step::Compute(ns) => {
                e.transport().ask(Ask::Compute(*ns));
            }
            Step::Call(c) => calls::make(&mut e, &mut names, c)?,
            Step::End => break,
        }
    }
    e.transport().ask(Ask::Done);
    Ok(())
}

/// Replays every rank's `programs` on `sim` through the engine; `nodes[r]`
/// is rank r's simulated host and `cpu_speed[r]` divides its computation.
/// `flush` runs every so many network events (for captures). The error
/// says why the replay cannot finish.
pub fn replay(
    programs: Vec<Vec<Step>>,
    sim: &mut dyn NetworkModel,
    cpu_speed: &[f64],
    mut flush: impl FnMut(&mut dyn NetworkModel) -> Result<(), String>,
    timeline: Option<&mut ReplayTimeline>,
) -> Result<ReplayOutcome, String> {
    let n = programs.len();
    let nodes = sim.rank_nodes();
    let (ask_tx, asks) = channel::<(u32, Ask)>();
    let (fail_tx, failures) = channel::<(u32, Failure)>();
    let mut ranks = Vec::with_capacity(n);
    let mut threads = Vec::with_capacity(n);
    for (r, steps) in programs.into_iter().enumerate() {
        let (answer_tx, answer_rx) = channel();
        let t = VirtualTransport::new(
            r as u32,
            n as u32,
            nodes.get(r).copied().unwrap_or(0),
            0,
            ask_tx.clone(),
            answer_rx,
        );
        let (fail_tx, ask_tx) = (fail_tx.clone(), ask_tx.clone());
        let t = t.with_eager_limit_of(&steps);
        let thread = std::thread::Builder::new()
            .name(format!("replay-rank-{r}"))
            .spawn(move || {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_rank(steps, t)))
                {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        let _ = fail_tx.send((r as u32, Failure::Call(e)));
                        // Wakes the scheduler, which reads the failure.
                        let _ = ask_tx.send((r as u32, Ask::Done));
                    }
                    Err(p) if p.is::<Abandoned>() => {}
                    Err(_) => {
                        let _ = fail_tx.send((
                            r as u32,
                            Failure::Call("the replayed engine failed (an internal error)".into()),
                        ));
                        let _ = ask_tx.send((r as u32, Ask::Done));
                    }
                }
            })
            .map_err(|e| format!("cannot start the replay of rank {r}: {e}"))?;
        threads.push(thread);
        ranks.push(Rank {
            clock: Nanos::ZERO,
            state: State::Ready,
            pending: Some(Answer::Go),
            inbox: VecDeque::new(),
            answers: answer_tx,
            blocked_at: Nanos::ZERO,
            ended: None,
            speed: cpu_speed.get(r).copied().unwrap_or(1.0),
        });
    }
    drop(ask_tx);
    drop(fail_tx);
    let result = schedule(&mut ranks, &asks, &failures, sim, &mut flush, timeline);
    // Ends the threads still waiting (a failure or a deadlock): their
    // answer channels close and they unwind quietly.
    ranks.clear();
    drop(asks);
    for t in threads {
        let _ = t.join();
    }
    result
}

impl VirtualTransport {
    /// The transport with the eager limit the rank's recording used.
    fn with_eager_limit_of(self, steps: &[Step]) -> VirtualTransport {
        let limit = steps.iter().find_map(|s| match s {
            Step::Call(CallRecord::Start { eager_limit, .. }) => Some(*eager_limit),
            _ => None,
        });
        self.set_eager_limit(limit.unwrap_or(0))
    }
}

/// The scheduler's loop; see the module's documentation.
fn schedule(
    ranks: &mut [Rank],
    asks: &Receiver<(u32, Ask)>,
    failures: &Receiver<(u32, Failure)>,
    sim: &mut dyn NetworkModel,
    flush: &mut impl FnMut(&mut dyn NetworkModel) -> Result<(), String>,
    mut timeline: Option<&mut ReplayTimeline>,
) -> Result<ReplayOutcome, String> {
    let n = ranks.len();
    let mut out = ReplayOutcome {
        rank_end_ns: vec![0; n],
        rank_compute_ns: vec![0; n],
        ..Default::default()
    };
    // Which recorded message each injected one is: (src, dst, index).
    let mut ids: HashMap<u64, (u32, u32, u64)> = HashMap::new();
    let mut sent: HashMap<(u32, u32), u64> = HashMap::new();
    let mut batch = Vec::new();
    let mut since_flush = 0u64;
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
                let answer = ranks[i].pending.take().unwrap_or(Answer::Go);
                if ranks[i].answers.send(answer).is_err() {
                    return Err(format!("the replay of rank {i} stopped unexpectedly"));
                }
                // Serve rank i until it yields.
                loop {
                    let Ok((who, ask)) = asks.recv() else {
                        return Err("every replayed rank stopped unexpectedly".into());
                    };
                    if let Ok((r, Failure::Call(e))) = failures.try_recv() {
                        return Err(format!("rank {r}: {e}"));
                    }
                    let r = &mut ranks[who as usize];
                    match ask {
                        Ask::Send { dst, bytes } => {
                            let len = bytes.len() as u64;
                            let index = sent.entry((who, dst)).or_insert(0);
                            let key = (who, dst, *index);
                            *index += 1;
                            let id =
                                sim.inject(who, dst, Bytes::from(bytes), r.clock)
                                    .map_err(|e| {
                                        format!(
                                        "rank {who} sends a message the network cannot carry ({e})"
                                    )
                                    })?;
                            ids.insert(id, key);
                            out.messages += 1;
                            out.bytes += len;
                            if let Some(t) = timeline.as_deref_mut() {
                                t.sent(key, r.clock.0, len);
                            }
                            let _ = r.answers.send(Answer::Go);
                        }
                        Ask::TryRecv => {
                            let m = r.inbox.pop_front();
                            let _ = r.answers.send(Answer::Message(m));
                        }
                        Ask::Now => {
                            let _ = r.answers.send(Answer::Now(r.clock.0));
                        }
                        Ask::Recv => match r.inbox.pop_front() {
                            Some(m) => {
                                let _ = r.answers.send(Answer::Message(Some(m)));
                            }
                            None => {
                                r.state = State::Blocked;
                                r.blocked_at = r.clock;
                                break;
                            }
                        },
                        Ask::Compute(ns) => {
                            let scaled = (ns as f64 / r.speed).round() as u64;
                            if let Some(t) = timeline.as_deref_mut() {
                                t.span(who, Activity::Compute, r.clock.0, r.clock.0 + scaled);
                            }
                            r.clock += Nanos(scaled);
                            out.rank_compute_ns[who as usize] += scaled;
                            r.pending = Some(Answer::Go);
                            r.state = State::Ready;
                            break;
                        }
                        Ask::Done => {
                            if let Ok((r, Failure::Call(e))) = failures.try_recv() {
                                return Err(format!("rank {r}: {e}"));
                            }
                            r.state = State::Done;
                            r.ended = Some(r.clock);
                            break;
                        }
                    }
                }
            }
            (_, Some(_)) => {
                sim.step();
                since_flush += 1;
                if since_flush >= netsim::workload::FLUSH_EVERY_EVENTS {
                    since_flush = 0;
                    flush(sim)?;
                }
                sim.take_deliveries(&mut batch);
                for d in batch.drain(..) {
                    let at = d.delivered_at;
                    if let Some(key) = ids.remove(&d.id) {
                        if let Some(t) = timeline.as_deref_mut() {
                            t.delivered(key, at.0);
                        }
                    }
                    let r = &mut ranks[d.dst as usize];
                    let m = Incoming {
                        src: d.src,
                        vtime_ns: at.0,
                        bytes: d.bytes.to_vec(),
                    };
                    if r.state == State::Blocked {
                        if let Some(t) = timeline.as_deref_mut() {
                            t.span(d.dst, Activity::Wait, r.blocked_at.0, at.0);
                        }
                        r.clock = r.clock.max(at);
                        r.pending = Some(Answer::Message(Some(m)));
                        r.state = State::Ready;
                    } else {
                        r.inbox.push_back(m);
                    }
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
        return Err(format!(
            "the replay cannot finish: rank {i} waits for a message that no rank sends (the trace is inconsistent)"
        ));
    }
    for (i, r) in ranks.iter().enumerate() {
        out.rank_end_ns[i] = r.ended.unwrap_or(r.clock).0;
    }
    out.runtime_ns = out.rank_end_ns.iter().copied().max().unwrap_or(0);
    Ok(out)
}
