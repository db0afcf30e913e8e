//! The gateway's sans-IO core: every decision of the real-time loop, with
//! bytes and the wall clock as inputs and frames and [`Action`]s as
//! outputs. It admits or refuses connections (the Hello checks, the
//! handshake timeout), turns frames into simulator injections (with their
//! lateness), runs the simulator's events that are due (the lookahead,
//! maxBehind), queues the deliveries and factor switches for the ranks,
//! applies backpressure, and decides how the job ends (Finalize, Abort,
//! a lost rank, a stall). It opens no socket and reads no clock of its
//! own: the shell ([`crate::realtime`]: epoll, timerfd, the listening
//! sockets) feeds it what it read and carries out what it asks, and the
//! unit tests (`core/tests`) drive it with a clock they set.

pub mod connection;
mod events;
mod frames;
mod hello;
pub mod horizon_hold;
mod lookahead;
mod turn;

#[cfg(test)]
mod tests;

pub use connection::{ConnState, Peer, RankConnection};
pub use events::DueEvents;
pub use lookahead::{Lookahead, DEFAULT_LOOKAHEAD_NS};

use crate::adaptive::{AdaptiveController, AdaptivePolicy, FactorChange};
use crate::clock::{Monotonic, TimeMap, WallClock};
use crate::lateness::LatenessRecorder;
use crate::network_model::Model;
use mpinetsim_protocol::{Frame, JobSecret};
use std::collections::VecDeque;

/// How long a new connection may take to send a Hello with the job's
/// secret before it is dropped (`--handshake-timeout`).
pub const DEFAULT_HANDSHAKE_TIMEOUT_NS: u64 = 5_000_000_000;

/// Output buffered for one rank beyond which the gateway stops reading new
/// messages from every rank until it drains (backpressure, bounded memory).
pub const OUTPUT_LIMIT_BYTES: usize = 64 << 20;

/// A rank whose connection closed before MPI_Finalize ends the job this
/// long (wall ns) after, unless the supervisor reported a better reason
/// (the process's exit status) meanwhile.
pub const LOST_RANK_GRACE_NS: u64 = 500_000_000;

/// Events run between two flushes of the capture and time-series buffers.
pub const EVENTS_PER_CAPTURE_FLUSH: u64 = 1 << 16;

/// A connection's number: its index in the core's table and in the
/// shell's (never reused in a job).
pub type ConnId = usize;

/// What the core asks the shell to do with a connection's socket or the
/// terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Write the connection's queued output now rather than at the end of
    /// the turn (a clock reply, the acknowledgement of an Abort).
    Flush(ConnId),
    /// The peer closed its end: stop watching the socket (the connection
    /// stays, for the report).
    Unwatch(ConnId),
    /// Close the socket and forget it (refused, or a stray client that
    /// left before its Hello).
    Close(ConnId),
    /// One line for the user (stderr, after `mpinetsim: `).
    Say(String),
}

/// How the job ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobOutcome {
    /// Every rank called MPI_Finalize and disconnected.
    Completed,
    /// A rank died or disconnected before MPI_Finalize.
    RankFailed {
        /// The rank.
        rank: u32,
        /// One sentence: how it ended.
        reason: String,
    },
    /// A rank called MPI_Abort.
    Aborted {
        /// The rank.
        rank: u32,
        /// Its error code.
        code: i32,
        /// Its message.
        text: String,
    },
    /// A rank broke the protocol.
    ProtocolError {
        /// The rank (or None before Hello).
        rank: Option<u32>,
        /// Process id of the peer (from the socket's credentials).
        pid: Option<u32>,
        /// What was wrong.
        message: String,
    },
    /// The gateway itself cannot go on (its event loop failed); one sentence.
    GatewayFailed(String),
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// The simulated network cannot carry the job on (a partition outlasted
    /// its timeout); one sentence.
    NetworkFailed(String),
    /// A capture or time-series file could not be written (a full disk);
    /// one sentence.
    CaptureFailed(String),
    /// No progress for the quiet period (see [`crate::stall`]); one
    /// sentence saying who waits for whom.
    Stalled(String),
}

/// The job's parameters as the core needs them.
#[derive(Clone, Debug)]
pub struct CoreSettings {
    /// Ranks expected.
    pub ranks: u32,
    /// Time factor.
    pub factor: f64,
    /// Rendezvous threshold announced to ranks.
    pub eager_limit: u64,
    /// Job id ranks must present.
    pub job_id: u64,
    /// The secret every Hello must carry.
    pub secret: JobSecret,
    /// A connection without a valid Hello after this long is dropped, ns.
    pub handshake_timeout_ns: u64,
    /// How far before its deadline an event may run.
    pub lookahead: Lookahead,
    /// Output queued for one rank beyond which no rank's input is read.
    pub output_limit_bytes: usize,
    /// Change the factor during the run (`--time-factor auto`).
    pub adaptive: Option<AdaptivePolicy>,
    /// What a job that makes no progress gets.
    pub stall: crate::stall::StallPolicy,
    /// How ranks measure their computation.
    pub compute_clock: mpinetsim_protocol::ComputeClock,
    /// The CPU of each rank's host (missing ranks: this machine's, every
    /// computation counted).
    pub rank_cpus: Vec<mpinetsim_protocol::HostCpu>,
    /// How long after its deadline an event may wait for the ranks'
    /// horizons, wall ns; 0: never (see [`horizon_hold`]).
    pub hold_cap_ns: u64,
}

/// An `MPI_Comm_spawn` a rank asked for, waiting for the shell to start
/// its processes (see [`GatewayCore::take_spawn_requests`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnAsk {
    /// The spawning root.
    pub rank: u32,
    /// Scaled time of its call, ns.
    pub srt_ns: u64,
    /// What to start.
    pub request: mpinetsim_protocol::spawn::SpawnRequest,
}

/// The loop's state and decisions, without sockets or a clock of its own.
pub struct GatewayCore<C: WallClock = Monotonic> {
    /// The network model (packet simulator or analytic model).
    pub sim: Model,
    /// Time map of the job.
    pub time: TimeMap,
    /// Lateness of events.
    pub lateness: LatenessRecorder,
    /// How late the ranks' messages entered the network (the lateness
    /// that reaches results).
    pub injection_lateness: crate::injection_lateness::InjectionLateness,
    /// Processes this gateway launched: a connection from one of them that
    /// breaks the handshake is a failed rank (the job ends); from anyone
    /// else it is refused and the job goes on.
    pub own_pids: Vec<u32>,
    /// Connections refused (wrong secret, garbage, no Hello in time).
    pub refused: u64,
    /// Every delivered message, for the timeline's arrows (when recording one).
    pub arrows: Option<Vec<crate::timeline::Arrow>>,
    /// The storage node ranks' file accesses go through (`[[storage]]`).
    pub storage: Option<crate::storage_node::StorageNode>,
    /// Factor switches made by the adaptive controller.
    pub factor_changes: Vec<FactorChange>,
    /// Messages received from ranks.
    pub messages_in: u64,
    /// Messages delivered to ranks.
    pub messages_out: u64,
    /// Events that waited for ranks' horizons.
    pub holds: horizon_hold::HoldStats,
    /// The event waiting for a rank's horizon now.
    hold: Option<horizon_hold::Hold>,
    settings: CoreSettings,
    clock: C,
    /// Connections by [`ConnId`]; None once refused or dropped.
    conns: Vec<Option<RankConnection>>,
    /// The connection of each rank that sent its Hello.
    rank_conn: Vec<Option<ConnId>>,
    /// The node each rank runs on, told to it in its Welcome.
    rank_nodes: Vec<u32>,
    /// Deliveries to ranks that have not connected yet.
    undelivered: Vec<VecDeque<Frame>>,
    adaptive: Option<AdaptiveController>,
    /// Wall time when a rank's connection closed before MPI_Finalize.
    lost: Vec<(u32, u64)>,
    /// Spawns asked for and not yet handed to the shell.
    spawn_requests: Vec<SpawnAsk>,
    events_since_flush: u64,
    /// When a rank last did something or an event last ran.
    last_progress_ns: u64,
    /// The current stall was reported (with `--on-stall wait`).
    stall_reported: bool,
    actions: Vec<Action>,
}

impl<C: WallClock> GatewayCore<C> {
    /// The core of a job on `sim` whose SRT zero is wall time `epoch_ns`,
    /// reading the wall clock from `clock`.
    pub fn new(settings: CoreSettings, sim: Model, epoch_ns: u64, clock: C) -> GatewayCore<C> {
        let n = settings.ranks as usize;
        GatewayCore {
            time: TimeMap::new(epoch_ns, settings.factor),
            adaptive: (settings.adaptive.clone())
                .map(|p| AdaptiveController::new(p, settings.factor, epoch_ns)),
            factor_changes: Vec::new(),
            rank_nodes: sim.rank_nodes(),
            sim,
            lateness: LatenessRecorder::default(),
            injection_lateness: Default::default(),
            conns: Vec::new(),
            own_pids: Vec::new(),
            refused: 0,
            arrows: None,
            storage: None,
            undelivered: vec![VecDeque::new(); n],
            rank_conn: vec![None; n],
            messages_in: 0,
            messages_out: 0,
            holds: Default::default(),
            hold: None,
            lost: Vec::new(),
            spawn_requests: Vec::new(),
            events_since_flush: 0,
            last_progress_ns: clock.now_ns(),
            stall_reported: false,
            actions: Vec::new(),
            clock,
            settings,
        }
    }

    /// The wall clock now, ns, as the core reads it.
    pub fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    /// The number the next accepted connection gets.
    pub fn next_conn_id(&self) -> ConnId {
        self.conns.len()
    }

    /// A connection the shell accepted from `peer`; its number.
    pub fn accept(&mut self, peer: Peer) -> ConnId {
        let now = self.clock.now_ns();
        self.conns.push(Some(RankConnection::new(peer, now)));
        self.conns.len() - 1
    }

    /// Connection `id`, unless it was refused or dropped.
    pub fn connection(&self, id: ConnId) -> Option<&RankConnection> {
        self.conns.get(id)?.as_ref()
    }

    /// Connection `id`, mutably (the shell hands it bytes and writes its
    /// output).
    pub fn connection_mut(&mut self, id: ConnId) -> Option<&mut RankConnection> {
        self.conns.get_mut(id)?.as_mut()
    }

    /// Ranks that connected, with their connection.
    pub fn rank_connections(&self) -> impl Iterator<Item = (u32, &RankConnection)> {
        self.rank_conn.iter().enumerate().filter_map(|(r, ci)| {
            ci.and_then(|ci| self.conns[ci].as_ref())
                .map(|c| (r as u32, c))
        })
    }

    /// Ranks of the job so far: those it started with and those spawned.
    pub fn rank_count(&self) -> u32 {
        self.rank_conn.len() as u32
    }

    /// Whether a spawn waits for the shell.
    pub fn has_spawn_requests(&self) -> bool {
        !self.spawn_requests.is_empty()
    }

    /// The spawns ranks asked for since the last call; the shell starts
    /// their processes ([`GatewayCore::add_rank`] for each) and answers
    /// with [`GatewayCore::answer_spawn`].
    pub fn take_spawn_requests(&mut self) -> Vec<SpawnAsk> {
        std::mem::take(&mut self.spawn_requests)
    }

    /// A rank the network model has just added (its number must be the
    /// next one), on a host with `cpu`: from now on its Hello is
    /// admitted, messages to it wait for it, and the job ends only once
    /// it has finished too.
    pub fn add_rank(&mut self, rank: u32, cpu: mpinetsim_protocol::HostCpu) {
        debug_assert_eq!(rank as usize, self.rank_conn.len());
        self.rank_conn.push(None);
        self.undelivered.push(VecDeque::new());
        let cpus = &mut self.settings.rank_cpus;
        cpus.resize(rank as usize, mpinetsim_protocol::HostCpu::NATIVE);
        cpus.push(cpu);
        self.rank_nodes = self.sim.rank_nodes();
    }

    /// Answers `rank`'s spawn: `first` and `count` of the new ranks, or
    /// why none were started.
    pub fn answer_spawn(&mut self, rank: u32, result: Result<(u32, u32), String>) {
        let frame = match result {
            Ok((first, count)) => Frame::Spawned {
                first,
                count,
                error: String::new(),
            },
            Err(error) => Frame::Spawned {
                first: 0,
                count: 0,
                error,
            },
        };
        let conn = self.rank_conn.get(rank as usize).copied().flatten();
        if let Some(c) = conn.and_then(|ci| self.conns[ci].as_mut()) {
            c.queue(&frame);
            c.wakeups += 1;
        }
        self.progress();
    }

    /// Moves the actions asked for so far to the end of `into`.
    pub fn take_actions(&mut self, into: &mut Vec<Action>) {
        into.append(&mut self.actions);
    }

    /// False while some rank's queued output exceeds the limit: the shell
    /// then reads no rank's input until it drains (backpressure).
    pub fn accepts_input(&self) -> bool {
        let limit = self.settings.output_limit_bytes;
        !self.conns.iter().flatten().any(|c| c.pending_out() > limit)
    }

    /// A rank did something: a stall, if any, is over.
    fn progress(&mut self) {
        self.last_progress_ns = self.clock.now_ns();
        self.stall_reported = false;
    }

    /// Drops connection `idx`, which failed the handshake (`why`, for the
    /// log line) — unless it comes from a process this gateway launched:
    /// that is a rank breaking the protocol (`as_rank`), and the job ends.
    fn refuse(&mut self, idx: ConnId, why: String, as_rank: String) -> Result<(), JobOutcome> {
        let c = self.conns[idx].as_ref().expect("a connection to refuse");
        if c.peer_pid.is_some_and(|p| self.own_pids.contains(&p)) {
            return Err(self.protocol_error(idx, as_rank));
        }
        let line = format!("refused a connection from {}: {why}", c.peer);
        self.actions.push(Action::Say(line));
        self.actions.push(Action::Close(idx));
        self.conns[idx] = None;
        self.refused += 1;
        Ok(())
    }

    fn protocol_error(&self, idx: ConnId, message: String) -> JobOutcome {
        let c = self.conns[idx].as_ref();
        JobOutcome::ProtocolError {
            rank: c.and_then(|c| c.rank),
            pid: c.and_then(|c| c.peer_pid),
            message,
        }
    }
}
