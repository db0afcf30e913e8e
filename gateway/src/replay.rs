//! `mpinetsim replay TRACE --net FILE`: a recorded run (`mpinetsim run
//! --record`) re-timed on a network in pure virtual time — no processes,
//! no time factor.
//!
//! Each rank is two actors: its program and its one-sided service (the
//! rank's NIC). An actor walks its recorded events in order on its own
//! virtual clock: a computation advances the clock by the recorded time
//! divided by the host's `cpu_speed`; a send hands the recorded message
//! (its envelope and as many bytes as it had) to the network model at the
//! clock; taking a message waits until the network delivered it, the
//! clock then being at least its delivery time. So the messages, the
//! rendezvous handshakes and the collective schedules are the ones the
//! program produced, re-timed by the network. The loop is conservative: it
//! runs the actor with the earliest clock while that clock is not after
//! the model's next event, else steps the model, so every injection is at
//! or after the model's time and the result is deterministic.

use crate::capture_files::CaptureFiles;
use crate::cli::ReplayArgs;
use crate::error::Error;
use crate::replay_timeline::{Activity, ReplayTimeline};
use bytes::Bytes;
use mpinetsim_protocol::trace::{Trace, TraceEvent};
use mpinetsim_protocol::trace_calls::CallRecord;
use mpinetsim_protocol::HostCpu;
use netsim::model::NetworkModel;
use netsim::Nanos;
use std::collections::HashMap;

/// A recorded message: where it goes, its size, its envelope, and which
/// message from its sender to that destination it was.
#[derive(Clone, Debug)]
struct Message {
    dst: u32,
    len: u32,
    header: Vec<u8>,
    index: u64,
}

/// One step of a rank's program.
#[derive(Clone, Debug)]
enum Step {
    Compute(u64),
    /// A test or probe that completed or found nothing: the host's poll
    /// cost, as the run charged it.
    Poll,
    Send(Message),
    Take {
        src: u32,
        index: u64,
    },
    End,
}

/// A rank: its program's steps on its own clock, and the messages its
/// library sent in answer to others (sent when those arrive).
struct Rank {
    steps: Vec<Step>,
    at: usize,
    clock: Nanos,
    /// The message it waits for: (sender, index).
    waiting: Option<(u32, u64)>,
    /// When its program ended.
    ended: Option<Nanos>,
    /// Answers by the message they answer (sender, index).
    answers: HashMap<(u32, u64), Vec<Message>>,
}

/// What `replay --report` writes.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ReplayReport {
    /// [`crate::report::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The trace file replayed.
    pub trace: String,
    /// The network's name (or its file).
    pub network: String,
    /// Ranks of the trace.
    pub ranks: u32,
    /// `completed`, or `network_failed` when a partition outlasted its
    /// timeout (the rank ends are then those reached).
    pub outcome: crate::report::Outcome,
    /// The last rank's MPI_Finalize, s of virtual time.
    pub emulated_runtime_s: f64,
    /// What the replay found.
    pub result: ReplayOutcome,
    /// Wall time of the replay, s.
    pub wall_s: f64,
    /// The network's counters.
    pub stats: netsim::model::stats::SimStats,
}

/// How a trace is replayed.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Through {
    /// The program's recorded MPI calls, made again on the MPI engine
    /// (matching, protocols and collectives decide again on the network);
    /// when the trace cannot be (an older trace, a routine the engine
    /// replay does not make), its messages.
    #[default]
    Engine,
    /// The recorded messages, re-timed in the order the recording made them.
    Messages,
}

/// What a replay found.
#[derive(Clone, Debug, Default, serde::Serialize, schemars::JsonSchema)]
pub struct ReplayOutcome {
    /// How the trace was replayed.
    pub through: Through,
    /// Why it was replayed message by message when the engine was asked
    /// for (null otherwise).
    pub messages_because: Option<String>,
    /// When the last rank's program ended (its MPI_Finalize), ns.
    pub runtime_ns: u64,
    /// When each rank's program ended, ns.
    pub rank_end_ns: Vec<u64>,
    /// Computation each rank replayed (after CPU-speed scaling), ns.
    pub rank_compute_ns: Vec<u64>,
    /// Messages handed to the network.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Why the network could not carry the replay on (a partition that
    /// outlasted its timeout), when it could not; the rank ends are then
    /// those reached so far; null when it could.
    pub network_failure: Option<String>,
}

/// Splits each rank's events into its program's steps and its answers,
/// numbering each rank's messages per destination in recorded order.
fn ranks_of(trace: &Trace) -> Vec<Rank> {
    let mut out = Vec::new();
    for events in &trace.ranks {
        let mut rank = Rank {
            steps: Vec::new(),
            at: 0,
            clock: Nanos::ZERO,
            waiting: None,
            ended: None,
            answers: HashMap::new(),
        };
        let mut sent: HashMap<u32, u64> = HashMap::new();
        for e in events {
            match e {
                TraceEvent::Compute { ns } => rank.steps.push(Step::Compute(*ns)),
                TraceEvent::Send {
                    cause,
                    dst,
                    len,
                    header,
                } => {
                    let n = sent.entry(*dst).or_insert(0);
                    let m = Message {
                        dst: *dst,
                        len: *len,
                        header: header.clone(),
                        index: *n,
                    };
                    *n += 1;
                    match cause {
                        Some(c) => rank.answers.entry(*c).or_default().push(m),
                        None => rank.steps.push(Step::Send(m)),
                    }
                }
                // The one-sided service's takes do not hold the program up.
                TraceEvent::Consume { service: true, .. } => {}
                TraceEvent::Consume {
                    service: false,
                    completes: true,
                    src,
                    index,
                } => rank.steps.push(Step::Take {
                    src: *src,
                    index: *index,
                }),
                // Only made the library answer: the answers wait for it.
                TraceEvent::Consume { .. } => {}
                TraceEvent::End => rank.steps.push(Step::End),
                TraceEvent::Call(CallRecord::Progress) => rank.steps.push(Step::Poll),
                // The engine replay's; the messages they caused are here.
                TraceEvent::Call(_) => {}
            }
        }
        out.push(rank);
    }
    out
}

/// Hands `m` from `src` to the model at `at`, remembering which recorded
/// message it is.
fn inject(
    sim: &mut dyn NetworkModel,
    ids: &mut HashMap<netsim::tcp::MessageId, (u32, u32, u64)>,
    out: &mut ReplayOutcome,
    timeline: Option<&mut ReplayTimeline>,
    src: u32,
    m: &Message,
    at: Nanos,
) -> Result<(), Error> {
    let mut bytes = m.header.clone();
    bytes.resize(m.len.max(1) as usize, 0);
    out.messages += 1;
    out.bytes += u64::from(m.len);
    let id = sim
        .inject(src, m.dst, Bytes::from(bytes), at)
        .map_err(|e| format!("rank {src} sends a message the network cannot carry ({e})"))?;
    ids.insert(id, (src, m.dst, m.index));
    if let Some(t) = timeline {
        t.sent((src, m.dst, m.index), at.0, u64::from(m.len));
    }
    Ok(())
}

/// The network's side of a virtual-time replay's loop (message by message
/// and through the engine alike): one event at a time, with the captures
/// flushed every [`netsim::workload::FLUSH_EVERY_EVENTS`] events so that
/// memory stays bounded.
#[derive(Default)]
pub(crate) struct NetworkSteps {
    since_flush: u64,
}

impl NetworkSteps {
    /// Runs `sim`'s next event (calling `flush` when due) and appends what
    /// it delivered to `batch`.
    pub(crate) fn step(
        &mut self,
        sim: &mut dyn NetworkModel,
        flush: &mut impl FnMut(&mut dyn NetworkModel) -> Result<(), Error>,
        batch: &mut Vec<netsim::model::Delivery>,
    ) -> Result<(), Error> {
        sim.step();
        self.since_flush += 1;
        if self.since_flush >= netsim::workload::FLUSH_EVERY_EVENTS {
            self.since_flush = 0;
            flush(sim)?;
        }
        sim.take_deliveries(batch);
        Ok(())
    }
}

/// Replays `trace` on `sim` (which has as many ranks); `cpus[r]` makes
/// rank r's computations emulated time. `flush` runs every so many events (for
/// captures). The error says why the replay cannot finish.
///
/// A rank's program walks its steps on its clock: a computation advances
/// it by the recorded time over the CPU speed, a send hands the message to
/// the model at the clock, taking a message waits until the model
/// delivered it. An answer (a message the library sent while handling
/// another) leaves when the message it answers arrives, or, if the
/// program is computing then, when that computation ends (the library
/// handles messages inside MPI calls).
pub fn replay(
    trace: &Trace,
    sim: &mut dyn NetworkModel,
    cpus: &[HostCpu],
    mut flush: impl FnMut(&mut dyn NetworkModel) -> Result<(), Error>,
    mut timeline: Option<&mut ReplayTimeline>,
) -> Result<ReplayOutcome, Error> {
    let mut ranks = ranks_of(trace);
    let mut out = ReplayOutcome {
        rank_end_ns: vec![0; ranks.len()],
        rank_compute_ns: vec![0; ranks.len()],
        ..Default::default()
    };
    let mut ids = HashMap::new();
    // Delivery time of each message by (sender, receiver, index).
    let mut delivered: HashMap<(u32, u32, u64), Nanos> = HashMap::new();
    let mut batch = Vec::new();
    let mut steps = NetworkSteps::default();
    loop {
        let next_event = sim.next_event_time();
        let runnable = ranks
            .iter()
            .enumerate()
            .filter(|(_, r)| r.ended.is_none() && r.waiting.is_none())
            .min_by_key(|(i, r)| (r.clock, *i))
            .map(|(i, r)| (i, r.clock));
        match (runnable, next_event) {
            (Some((i, clock)), t) if t.is_none_or(|t| clock <= t) => {
                let rank = i as u32;
                let r = &mut ranks[i];
                match r.steps[r.at].clone() {
                    Step::Compute(ns) => {
                        let cpu = cpus.get(i).copied().unwrap_or(HostCpu::NATIVE);
                        let scaled = cpu.emulated_ns(ns);
                        if let Some(t) = timeline.as_deref_mut() {
                            t.span(rank, Activity::Compute, r.clock.0, r.clock.0 + scaled);
                        }
                        r.clock += Nanos(scaled);
                        out.rank_compute_ns[i] += scaled;
                    }
                    Step::Poll => {
                        r.clock += Nanos(cpus.get(i).map_or(0, |c| c.poll_ns));
                    }
                    Step::Send(m) => inject(
                        sim,
                        &mut ids,
                        &mut out,
                        timeline.as_deref_mut(),
                        rank,
                        &m,
                        r.clock,
                    )?,
                    Step::Take { src, index } => match delivered.get(&(src, rank, index)) {
                        Some(&at) => {
                            if let Some(t) = timeline.as_deref_mut() {
                                t.span(rank, Activity::Wait, r.clock.0, at.0);
                            }
                            r.clock = r.clock.max(at)
                        }
                        None => {
                            r.waiting = Some((src, index));
                            continue;
                        }
                    },
                    Step::End => {
                        r.ended = Some(r.clock);
                        continue;
                    }
                }
                r.at += 1;
            }
            (_, Some(_)) => {
                steps.step(sim, &mut flush, &mut batch)?;
                for d in std::mem::take(&mut batch) {
                    let Some((src, dst, index)) = ids.remove(&d.id) else {
                        continue;
                    };
                    let t = d.delivered_at;
                    delivered.insert((src, dst, index), t);
                    if let Some(tl) = timeline.as_deref_mut() {
                        tl.delivered((src, dst, index), t.0);
                    }
                    let r = &mut ranks[dst as usize];
                    // A program still runnable at t is computing past it.
                    let in_mpi = r.ended.is_some() || r.waiting.is_some();
                    let answer_at = if in_mpi { t } else { t.max(r.clock) };
                    let answers = r.answers.remove(&(src, index)).unwrap_or_default();
                    if r.waiting == Some((src, index)) {
                        if let Some(tl) = timeline.as_deref_mut() {
                            tl.span(dst, Activity::Wait, r.clock.0, t.0);
                        }
                        r.waiting = None;
                        r.clock = r.clock.max(t);
                        r.at += 1;
                    }
                    for m in &answers {
                        inject(
                            sim,
                            &mut ids,
                            &mut out,
                            timeline.as_deref_mut(),
                            dst,
                            m,
                            answer_at,
                        )?;
                    }
                }
            }
            (None, None) => break,
            (Some(_), None) => unreachable!("a runnable rank runs when the model is idle"),
        }
    }
    flush(sim)?;
    if let Some(f) = sim.failure() {
        out.network_failure = Some(f.message.clone());
        for (i, r) in ranks.iter().enumerate() {
            out.rank_end_ns[i] = r.ended.unwrap_or(r.clock).0;
        }
        out.runtime_ns = out.rank_end_ns.iter().copied().max().unwrap_or(0);
        return Ok(out);
    }
    for (i, r) in ranks.iter().enumerate() {
        let Some(end) = r.ended else {
            let (src, index) = r.waiting.unwrap_or_default();
            return Err(Error::Usage(format!(
                "the replay cannot finish: rank {i} waits for message {index} from rank {src}, which the trace never delivers (the trace is inconsistent)"
            )));
        };
        out.rank_end_ns[i] = end.0;
        out.runtime_ns = out.runtime_ns.max(end.0);
    }
    Ok(out)
}

/// A replay on one network.
pub struct Replayed {
    /// What it found.
    pub outcome: ReplayOutcome,
    /// The network model's statistics.
    pub stats: netsim::model::stats::SimStats,
    /// Wall time the replay took, s.
    pub wall_s: f64,
    /// The capture files written.
    pub captures: Vec<std::path::PathBuf>,
}

/// Replays `trace` on network `cfg` (named `origin`) `through` the engine
/// or its messages, writing captures into `capture` and collecting spans
/// and messages into `timeline` if given; the error is one sentence.
pub fn replay_network(
    trace: &Trace,
    cfg: &netsim::NetworkConfig,
    origin: &str,
    through: Through,
    capture: Option<&std::path::Path>,
    timeline: Option<&mut ReplayTimeline>,
) -> Result<Replayed, Error> {
    let ranks = trace.ranks.len();
    // The analytic model re-times each message as latency + size ÷
    // bandwidth plus its waits for links and buses.
    let mut sim =
        crate::network_model::from_config(cfg, origin, ranks as u32, capture.is_some(), false)?;
    let speeds: Vec<HostCpu> = sim
        .rank_host_names()
        .iter()
        .map(|name| {
            HostCpu::new(cfg.cpu_speed(name), cfg.cpu_threshold_ns(name))
                .with_poll_ns(cfg.poll_cost_ns(name))
        })
        .collect();
    let mut files = match capture {
        Some(dir) => {
            let packet = crate::network_model::packet_mut(sim.as_mut());
            Some(CaptureFiles::create(
                dir,
                packet.ok_or("captures need the packet model")?,
            )?)
        }
        None => None,
    };
    let started = std::time::Instant::now();
    let flush = |sim: &mut dyn NetworkModel| match files.as_mut() {
        Some(f) => match crate::network_model::packet_mut(sim) {
            Some(packet) => f.flush(packet),
            None => Ok(()),
        },
        None => Ok(()),
    };
    let programs = match through {
        Through::Engine => {
            crate::engine_replay::program::programs(trace).map_err(|e| e.to_string())
        }
        Through::Messages => Err(String::new()),
    };
    let outcome = match programs {
        Ok(p) => crate::engine_replay::replay(p, sim.as_mut(), &speeds, flush, timeline).map_err(
            |e| {
                e.map_sentence(|s| {
                    format!("{s}; `--through messages` replays the recorded messages instead")
                })
            },
        )?,
        Err(why) => {
            let mut o = replay(trace, sim.as_mut(), &speeds, flush, timeline)?;
            o.through = Through::Messages;
            o.messages_because = (!why.is_empty()).then_some(why);
            o
        }
    };
    Ok(Replayed {
        outcome,
        stats: sim.stats(),
        wall_s: started.elapsed().as_secs_f64(),
        captures: files.map(|f| f.paths().to_vec()).unwrap_or_default(),
    })
}

/// Runs the command: its exit code (a network failure is
/// [`crate::exit_code::NETWORK_FAILED`]); the error is one sentence for the user.
pub fn run(a: &ReplayArgs) -> Result<i32, crate::error::Error> {
    let trace = crate::trace_file::read(&a.trace)?;
    let ranks = trace.ranks.len() as u32;
    for (path, option) in [
        (&a.report, "--report"),
        (&a.timeline, "--timeline"),
        (&a.paraver, "--paraver"),
    ] {
        if let Some(path) = path {
            crate::output_file::check_writable(path, option)?;
        }
    }
    let origin = a.net.display().to_string();
    let mut cfg = crate::overrides::load_net(&a.net, Some(ranks), &a.sets)?;
    crate::run::apply_model(&mut cfg, a.model.map(crate::cli::ModelArg::name))?;
    crate::run::add_fault_specs(&mut cfg, &a.faults)?;
    if a.show_net {
        return crate::run::show_net(&cfg, &a.net, Some(ranks));
    }
    let mut timeline = (a.timeline.is_some() || a.paraver.is_some()).then(ReplayTimeline::default);
    let replayed = replay_network(
        &trace,
        &cfg,
        &origin,
        a.through,
        a.capture.as_deref(),
        timeline.as_mut(),
    )?;
    let (outcome, stats, wall) = (replayed.outcome, replayed.stats, replayed.wall_s);
    out!("trace:            {} ({ranks} ranks)", a.trace.display());
    out!(
        "network:          {}",
        cfg.name.as_deref().unwrap_or(&origin)
    );
    out!(
        "emulated runtime: {:.9} s (the last rank's MPI_Finalize)",
        outcome.runtime_ns as f64 / 1e9
    );
    out!(
        "messages:         {} ({} B)",
        outcome.messages,
        outcome.bytes
    );
    out!("events:           {}", stats.events);
    match &outcome.messages_because {
        Some(why) => out!("replayed through: its messages, because {why}"),
        None => out!(
            "replayed through: {}",
            match outcome.through {
                Through::Engine => "the MPI engine (the program's calls)",
                Through::Messages => "its messages (--through messages)",
            }
        ),
    }
    out!("wall time:        {wall:.3} s");
    for (r, end) in outcome.rank_end_ns.iter().enumerate() {
        out!(
            "rank {r:>4}:        ended at {:.9} s, computed {:.9} s",
            *end as f64 / 1e9,
            outcome.rank_compute_ns[r] as f64 / 1e9
        );
    }
    for p in &replayed.captures {
        out!("capture:          {}", p.display());
    }
    if let (Some(path), Some(t)) = (&a.timeline, &timeline) {
        t.write_chrome(path, ranks)?;
        out!("timeline:         {}", path.display());
    }
    if let (Some(path), Some(t)) = (&a.paraver, &timeline) {
        t.write_paraver(path, ranks, outcome.runtime_ns)?;
        out!(
            "paraver:          {} (and {})",
            path.display(),
            path.with_extension("pcf").display()
        );
    }
    if let Some(path) = &a.report {
        let report = crate::report::Report::Replay(Box::new(ReplayReport {
            schema_version: crate::report::SCHEMA_VERSION,
            trace: a.trace.display().to_string(),
            network: cfg.name.clone().unwrap_or(origin.clone()),
            ranks,
            outcome: match outcome.network_failure {
                Some(_) => crate::report::Outcome::NetworkFailed,
                None => crate::report::Outcome::Completed,
            },
            emulated_runtime_s: outcome.runtime_ns as f64 / 1e9,
            result: outcome.clone(),
            wall_s: wall,
            stats,
        }));
        crate::run::write_json(path, &report, "--report")?;
        out!("report:           {}", path.display());
    }
    if let Some(f) = &outcome.network_failure {
        eprintln!("mpinetsim: the replay stopped: {f}");
        return Ok(crate::exit_code::NETWORK_FAILED);
    }
    Ok(crate::exit_code::SUCCESS)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use netsim::base::time::serialization_time;
    use netsim::wire::packet::data_frame_wire_len;
    use netsim::Simulator;

    pub(crate) fn reference(ranks: usize) -> (Simulator, netsim::NetworkConfig) {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/reference.toml");
        let cfg = netsim::loader::load(&path, Some(ranks as u32), std::fs::read_to_string).unwrap();
        let net = netsim::Network::from_config(&cfg, "reference").unwrap();
        (
            Simulator::from_network(net, &cfg, "reference", ranks, false).unwrap(),
            cfg,
        )
    }

    /// `n` round trips of `len`-byte messages; rank 1 computes
    /// `compute_ns` before each answer.
    pub(crate) fn pingpong(n: u64, len: u32, compute_ns: u64) -> Trace {
        let send = |dst| TraceEvent::Send {
            cause: None,
            dst,
            len,
            header: vec![0; 8],
        };
        let take = |src, index| TraceEvent::Consume {
            service: false,
            completes: true,
            src,
            index,
        };
        let mut r0 = Vec::new();
        let mut r1 = Vec::new();
        for i in 0..n {
            r0.extend([send(1), take(1, i)]);
            r1.extend([take(0, i), TraceEvent::Compute { ns: compute_ns }, send(0)]);
        }
        r0.push(TraceEvent::End);
        r1.push(TraceEvent::End);
        Trace {
            ranks: vec![r0, r1],
        }
    }

    fn runtime(t: &Trace, speed: f64) -> u64 {
        let (mut sim, _) = reference(2);
        replay(
            t,
            &mut sim,
            &[HostCpu::NATIVE, HostCpu::new(speed, 0)],
            |_| Ok(()),
            None,
        )
        .unwrap()
        .runtime_ns
    }

    /// Each extra round trip costs two one-way times on the reference
    /// network (two hops of frame serialisation at 1 Gbps + 0.5 ms), and
    /// the recorded computation divided by the CPU speed: the differences
    /// cancel the connections' set-up.
    #[test]
    fn the_timeline_tiles_each_rank_with_its_computations_and_waits() {
        // Rank 0 only sends and waits, so its waits add up to its end;
        // rank 1's two 1 ms computations and its waits add up to its end.
        let (mut sim, _) = reference(2);
        let mut tl = ReplayTimeline::default();
        let out = replay(
            &pingpong(2, 1000, 1_000_000),
            &mut sim,
            &[HostCpu::NATIVE; 2],
            |_| Ok(()),
            Some(&mut tl),
        )
        .unwrap();
        let total = |rank: u32, a: Option<Activity>| -> u64 {
            tl.spans
                .iter()
                .filter(|s| s.rank == rank && (a.is_none() || a == Some(s.activity)))
                .map(|s| s.end_ns - s.start_ns)
                .sum()
        };
        assert_eq!(total(0, None), out.rank_end_ns[0]);
        assert_eq!(total(0, Some(Activity::Compute)), 0);
        assert_eq!(total(1, Some(Activity::Compute)), 2_000_000);
        assert_eq!(total(1, None), out.rank_end_ns[1]);
        assert_eq!(tl.arrows.len(), 4);
        assert!(tl
            .arrows
            .iter()
            .all(|a| a.arrived_ns > a.sent_ns && a.bytes == 1000));
        let dir = std::env::temp_dir().join(format!("replay-paraver-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let prv = dir.join("pp.prv");
        tl.write_paraver(&prv, 2, out.runtime_ns).unwrap();
        let text = std::fs::read_to_string(&prv).unwrap();
        let header = format!(
            "#Paraver (01/01/70 at 00:00):{}_ns:2(1,1):1:2(1:1,1:2)",
            out.runtime_ns
        );
        assert_eq!(text.lines().next(), Some(header.as_str()));
        assert_eq!(
            text.lines().filter(|l| l.starts_with("1:")).count(),
            tl.spans.len()
        );
        assert_eq!(text.lines().filter(|l| l.starts_with("3:")).count(), 4);
        assert!(std::fs::read_to_string(prv.with_extension("pcf"))
            .unwrap()
            .contains("Waiting a message"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_analytic_model_re_times_each_message_as_latency_plus_size_over_bandwidth() {
        // 100 µs + 1000 B at 80 Mbps (10 B/µs) = 200 µs one way; a round
        // trip with rank 1's 1 ms of computation 1.4 ms; 10 of them 14 ms.
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/reference.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let text = format!(
            "model = \"analytic\"\n{text}\n[analytic]\nlatency = \"100us\"\nbandwidth = \"80Mbps\"\n"
        );
        let cfg = netsim::loader::load(std::path::Path::new("analytic.toml"), Some(2), |_| {
            Ok(text.clone())
        })
        .unwrap();
        let r = replay_network(
            &pingpong(10, 1000, 1_000_000),
            &cfg,
            "analytic.toml",
            Through::Engine,
            None,
            None,
        )
        .unwrap();
        assert_eq!(r.outcome.runtime_ns, 14_000_000);
        assert_eq!(r.outcome.messages, 20);
        let dir = std::env::temp_dir().join(format!("replay-analytic-{}", std::process::id()));
        let e = replay_network(
            &pingpong(1, 10, 0),
            &cfg,
            "analytic.toml",
            Through::Engine,
            Some(&dir),
            None,
        )
        .err();
        assert!(e.unwrap().to_string().contains("no captures"));
    }

    #[test]
    fn round_trips_and_computation_take_their_closed_form_time() {
        let len = 1000u32;
        let one_way = 2.0
            * (serialization_time(data_frame_wire_len(u64::from(len)), 1_000_000_000).0 as f64
                + 500_000.0);
        let (short, long) = (
            runtime(&pingpong(10, len, 0), 1.0),
            runtime(&pingpong(110, len, 0), 1.0),
        );
        // The answer leaves behind the receiver's pure ACK of the request
        // on its first hop: one more frame (without payload) of
        // serialisation per round trip.
        let ack = serialization_time(data_frame_wire_len(0), 1_000_000_000).0 as f64;
        let per_trip = (long - short) as f64 / 100.0;
        assert!(
            (per_trip - (2.0 * one_way + ack)).abs() <= 1.0,
            "a round trip took {per_trip} ns; two one-way times and an ACK frame are {} ns",
            2.0 * one_way + ack
        );
        let computing = pingpong(110, len, 1_000_000);
        let (full, half) = (runtime(&computing, 1.0), runtime(&computing, 0.5));
        assert_eq!(
            half - full,
            110 * 1_000_000,
            "110 computations of 1 ms at half speed"
        );
        let t = pingpong(3, len, 0);
        assert_eq!(runtime(&t, 1.0), runtime(&t, 1.0), "deterministic");
    }

    /// A trace whose rank takes a message nobody sent ends in one sentence.
    #[test]
    fn an_inconsistent_trace_is_refused() {
        let mut t = pingpong(1, 10, 0);
        t.ranks[0].insert(
            0,
            TraceEvent::Consume {
                service: false,
                completes: true,
                src: 1,
                index: 5,
            },
        );
        let (mut sim, _) = reference(2);
        let e = replay(&t, &mut sim, &[HostCpu::NATIVE; 2], |_| Ok(()), None).unwrap_err();
        assert!(
            e.to_string()
                .contains("rank 0 waits for message 5 from rank 1"),
            "{e}"
        );
    }
}
