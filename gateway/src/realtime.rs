//! The real-time loop: one thread, epoll (mio) and a timerfd. Every
//! simulation event runs at its wall deadline `epoch + v × factor`; messages
//! from ranks enter the simulator at the SRT stamp their shim put on them;
//! deliveries are written to ranks when their virtual arrival time comes.

use crate::capture_files::CaptureFiles;
use crate::clock::{monotonic_ns, TimeMap};
use crate::conn::{ConnState, RankConnection};
use crate::lateness::LatenessRecorder;
use crate::listen::Listener;
use crate::network_model::{packet_mut, Model};
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use mpinetsim_protocol::{Frame, GatewayAddress, JobSecret, VERSION};
use netsim::Nanos;
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const TIMER: Token = Token(0);
/// Listener i has token FIRST_LISTENER + i.
const FIRST_LISTENER: usize = 1;
/// Most `--listen` addresses.
pub const MAX_LISTENERS: usize = 16;
const FIRST_CONN: usize = FIRST_LISTENER + MAX_LISTENERS;

/// How long a new connection may take to send a Hello with the job's
/// secret before it is dropped (`--handshake-timeout`).
pub const DEFAULT_HANDSHAKE_TIMEOUT_NS: u64 = 5_000_000_000;

/// How far ahead of its wall deadline an event may run. Deliveries carry
/// their virtual arrival time and the shim holds them until then, so
/// running a little early hides wake-up latencies; a message a rank sends
/// inside this window after an event it could have affected already ran is
/// injected at that event's time instead (counted as lateness).
pub const DEFAULT_LOOKAHEAD_NS: u64 = 250_000;

/// Output buffered for one rank beyond which the gateway stops reading new
/// messages from every rank until it drains (backpressure, bounded memory).
pub const OUTPUT_LIMIT_BYTES: usize = 64 << 20;

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

/// Job parameters of the gateway.
#[derive(Clone, Debug)]
pub struct GatewaySettings {
    /// Ranks expected.
    pub ranks: u32,
    /// Time factor.
    pub factor: f64,
    /// Rendezvous threshold announced to ranks.
    pub eager_limit: u64,
    /// Addresses to listen on (Unix sockets, TCP endpoints).
    pub listen: Vec<GatewayAddress>,
    /// Job id ranks must present.
    pub job_id: u64,
    /// The secret every Hello must carry.
    pub secret: JobSecret,
    /// A connection without a valid Hello after this long is dropped, ns.
    pub handshake_timeout_ns: u64,
    /// Wall nanoseconds an event may run before its deadline.
    pub lookahead_ns: u64,
    /// Change the factor during the run (`--time-factor auto`).
    pub adaptive: Option<crate::adaptive::AdaptivePolicy>,
    /// What a job that makes no progress gets.
    pub stall: crate::stall::StallPolicy,
    /// How ranks measure their computation.
    pub compute_clock: mpinetsim_protocol::ComputeClock,
    /// The CPU speed of each rank's host (missing ranks: 1).
    pub rank_cpu_speeds: Vec<f64>,
}

/// The gateway's live state, also readable by the supervisor callback.
pub struct Gateway {
    /// The network model (packet simulator or analytic model).
    pub sim: Model,
    /// Time map of the job.
    pub time: TimeMap,
    /// Lateness of events.
    pub lateness: LatenessRecorder,
    /// Connections by token index − FIRST_CONN.
    pub conns: Vec<Option<RankConnection>>,
    /// The node each rank runs on, told to it in its Welcome.
    rank_nodes: Vec<u32>,
    settings: GatewaySettings,
    poll: Poll,
    listeners: Vec<Listener>,
    /// Listeners whose queue may hold connections an `accept` could not
    /// take (out of descriptors): retried every turn, since no new
    /// readiness event announces connections already queued.
    accept_blocked: Vec<bool>,
    /// Processes this gateway launched: a connection from one of them that
    /// breaks the handshake is a failed rank (the job ends); from anyone
    /// else it is refused and the job goes on.
    pub own_pids: Vec<u32>,
    /// Connections refused (wrong secret, garbage, no Hello in time).
    pub refused: u64,
    timer: TimerFd,
    captures: Option<CaptureFiles>,
    /// Time-series files, flushed with the captures.
    pub vectors: Option<crate::vector_files::VectorFiles>,
    /// Every delivered message, for the timeline's arrows (when recording one).
    pub arrows: Option<Vec<crate::timeline::Arrow>>,
    /// The storage node ranks' file accesses go through (`[[storage]]`).
    pub storage: Option<crate::storage_node::StorageNode>,
    adaptive: Option<crate::adaptive::AdaptiveController>,
    /// Factor switches made by the adaptive controller.
    pub factor_changes: Vec<crate::adaptive::FactorChange>,
    undelivered: Vec<VecDeque<Frame>>,
    rank_conn: Vec<Option<usize>>,
    interrupted: Arc<AtomicBool>,
    /// Messages received from ranks.
    pub messages_in: u64,
    /// Messages delivered to ranks.
    pub messages_out: u64,
    /// Wall time when a rank's connection closed before MPI_Finalize.
    lost: Vec<(u32, u64)>,
    events_since_flush: u64,
    /// The first capture write error, ending the job at the next loop turn.
    capture_failure: Option<String>,
    next_supervise_ns: u64,
    armed_ns: Option<u64>,
    /// When a rank last did something or an event last ran.
    last_progress_ns: u64,
    /// The current stall was reported (with `--on-stall wait`).
    stall_reported: bool,
}

/// How often the supervisor callback (process reaping) runs.
const SUPERVISE_EVERY_NS: u64 = 5_000_000;

impl Gateway {
    /// Listens on the socket and prepares the loop. `epoch_ns` is SRT zero.
    pub fn new(
        settings: GatewaySettings,
        sim: Model,
        captures: Option<CaptureFiles>,
        epoch_ns: u64,
        interrupted: Arc<AtomicBool>,
    ) -> Result<Gateway, String> {
        let poll = Poll::new().map_err(|e| format!("cannot create an epoll instance: {e}"))?;
        if settings.listen.is_empty() || settings.listen.len() > MAX_LISTENERS {
            return Err(format!(
                "give between 1 and {MAX_LISTENERS} --listen addresses"
            ));
        }
        let mut listeners = Vec::new();
        for (i, addr) in settings.listen.iter().enumerate() {
            let mut l = Listener::bind(addr)?;
            poll.registry()
                .register(&mut l, Token(FIRST_LISTENER + i), Interest::READABLE)
                .map_err(|e| format!("cannot watch the listening socket {addr}: {e}"))?;
            listeners.push(l);
        }
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )
        .map_err(|e| format!("cannot create a timerfd: {e}"))?;
        poll.registry()
            .register(&mut SourceFd(&timer.as_fd_raw()), TIMER, Interest::READABLE)
            .map_err(|e| format!("cannot watch the timerfd: {e}"))?;
        let n = settings.ranks as usize;
        Ok(Gateway {
            time: TimeMap::new(epoch_ns, settings.factor),
            adaptive: settings
                .adaptive
                .clone()
                .map(|p| crate::adaptive::AdaptiveController::new(p, settings.factor, epoch_ns)),
            factor_changes: Vec::new(),
            rank_nodes: sim.rank_nodes(),
            sim,
            lateness: LatenessRecorder::default(),
            conns: Vec::new(),
            poll,
            accept_blocked: vec![false; listeners.len()],
            listeners,
            own_pids: Vec::new(),
            refused: 0,
            timer,
            captures,
            vectors: None,
            arrows: None,
            storage: None,
            undelivered: vec![VecDeque::new(); n],
            rank_conn: vec![None; n],
            interrupted,
            messages_in: 0,
            messages_out: 0,
            lost: Vec::new(),
            events_since_flush: 0,
            capture_failure: None,
            next_supervise_ns: 0,
            armed_ns: None,
            last_progress_ns: monotonic_ns(),
            stall_reported: false,
            settings,
        })
    }

    /// The addresses ranks should use, one per listener (TCP port 0
    /// resolved, a wildcard host replaced by this host's name).
    pub fn advertised_addresses(&self) -> Vec<GatewayAddress> {
        self.listeners.iter().map(Listener::advertised).collect()
    }

    /// Capture files being written.
    pub fn captures(&self) -> Option<&CaptureFiles> {
        self.captures.as_ref()
    }

    /// Writes pending capture bytes and time series to their files.
    pub fn flush_captures(&mut self) -> Result<(), String> {
        let Some(sim) = packet_mut(self.sim.as_mut()) else {
            return Ok(()); // the analytic model has neither
        };
        // Both are flushed even when one fails; each reports its first
        // failure once.
        let vectors = self.vectors.as_mut().map_or(Ok(()), |v| v.flush(sim));
        let captures = self.captures.as_mut().map_or(Ok(()), |c| c.flush(sim));
        captures.and(vectors)
    }

    /// Runs the job until it ends. `supervise` is called at least every
    /// 20 ms and may end the job (e.g. when a rank process died).
    pub fn run(&mut self, mut supervise: impl FnMut(&Gateway) -> Option<JobOutcome>) -> JobOutcome {
        let mut events = Events::with_capacity(256);
        loop {
            if self.interrupted.load(Ordering::Relaxed) {
                return JobOutcome::Interrupted;
            }
            self.run_due_events();
            if let Some(message) = self.capture_failure.take() {
                return JobOutcome::CaptureFailed(message);
            }
            if let Err(o) = self.flush_all() {
                return o;
            }
            let now = monotonic_ns();
            self.adapt(now);
            if now >= self.next_supervise_ns {
                self.next_supervise_ns = now + SUPERVISE_EVERY_NS;
                if let Some(o) = supervise(self) {
                    return o;
                }
            }
            if let Some(o) = self.check_lost() {
                return o;
            }
            if let Err(o) = self.expire_handshakes(now) {
                return o;
            }
            for l in 0..self.listeners.len() {
                if self.accept_blocked[l] {
                    self.accept_all(l);
                }
            }
            if let Some(o) = self.check_stall(now) {
                return o;
            }
            if self.all_done() {
                self.finish_simulation();
                return JobOutcome::Completed;
            }
            self.arm_timer();
            match self.poll.poll(&mut events, Some(Duration::from_millis(20))) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return JobOutcome::GatewayFailed(format!(
                        "the gateway cannot wait for its sockets (epoll_wait: {e})"
                    ));
                }
            }
            for ev in events.iter() {
                match ev.token() {
                    Token(t) if (FIRST_LISTENER..FIRST_CONN).contains(&t) => {
                        self.accept_all(t - FIRST_LISTENER)
                    }
                    TIMER => {
                        let _ = self.timer.wait(); // non-blocking read of the expiration count
                        self.armed_ns = None; // fired: must be armed again
                    }
                    Token(t) => {
                        if let Some(Some(c)) = self.conns.get_mut(t - FIRST_CONN) {
                            if ev.is_readable() || ev.is_read_closed() {
                                c.wants_read = true;
                            }
                        }
                    }
                }
            }
            if let Err(o) = self.read_all() {
                return o;
            }
        }
    }

    /// Lets the adaptive controller switch the factor: at an SRT instant a
    /// little ahead, on the gateway's clock and every connected rank's.
    fn adapt(&mut self, now: u64) {
        let Some(a) = self.adaptive.as_mut() else {
            return;
        };
        let Some(factor) = a.decide(now) else {
            return;
        };
        let lead = a.policy().lead_wall_ns;
        let at = self.time.srt(now + lead);
        if !self.time.clock.change(at, factor) {
            return;
        }
        self.factor_changes.push(crate::adaptive::FactorChange {
            at_srt_s: at as f64 / 1e9,
            factor,
        });
        let frame = Frame::Factor {
            at_srt_ns: at,
            factor,
        };
        for c in self.conns.iter_mut().flatten() {
            if c.rank.is_some() && matches!(c.state, ConnState::Active) {
                c.queue(&frame);
            }
        }
        self.armed_ns = None; // deadlines moved
    }

    /// Accepts every queued connection of `listener`. Out of descriptors,
    /// it says so once and leaves the rest queued for the next turns.
    fn accept_all(&mut self, listener: usize) {
        loop {
            match self.listeners[listener].accept() {
                Ok(mut stream) => {
                    if self.accept_blocked[listener] {
                        self.accept_blocked[listener] = false;
                        eprintln!("mpinetsim: descriptors are free again; accepting connections");
                    }
                    let idx = self.conns.len();
                    if self
                        .poll
                        .registry()
                        .register(
                            &mut stream,
                            Token(FIRST_CONN + idx),
                            Interest::READABLE | Interest::WRITABLE,
                        )
                        .is_ok()
                    {
                        self.conns
                            .push(Some(RankConnection::new(stream, monotonic_ns())));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    self.accept_blocked[listener] = false;
                    return;
                }
                // The peer gave up before it was accepted: take the next.
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionAborted => {}
                Err(e) => {
                    if !self.accept_blocked[listener] {
                        self.accept_blocked[listener] = true;
                        eprintln!(
                            "mpinetsim: cannot accept a connection on {} ({e}); it waits until descriptors free up (connections refused or closed, or a higher ulimit -n)",
                            self.listeners[listener].address
                        );
                    }
                    return;
                }
            }
        }
    }

    fn backpressured(&self) -> bool {
        self.conns
            .iter()
            .flatten()
            .any(|c| c.pending_out() > OUTPUT_LIMIT_BYTES)
    }

    fn read_all(&mut self) -> Result<(), JobOutcome> {
        if self.backpressured() {
            return Ok(());
        }
        for idx in 0..self.conns.len() {
            let Some(c) = self.conns[idx].as_mut() else {
                continue;
            };
            if !c.wants_read || c.state == ConnState::Closed {
                continue;
            }
            let eof = c.read_available().unwrap_or(true);
            // Until the connection has no complete frame, or was refused.
            while let Some(c) = self.conns[idx].as_mut() {
                if let Some(len) = c.announces_oversized_hello() {
                    self.refuse(
                        idx,
                        format!("its first frame announces {len} bytes, more than any Hello"),
                        "it sent a malformed frame (not a Hello)".into(),
                    )?;
                    break;
                }
                let frame = match c.next_frame() {
                    Ok(Some(f)) => f,
                    Ok(None) => break,
                    Err(e) if c.state == ConnState::AwaitHello => {
                        self.refuse(
                            idx,
                            format!("it sent bytes that are not a Hello ({e})"),
                            format!("it sent a malformed frame ({e})"),
                        )?;
                        break;
                    }
                    Err(e) => {
                        return Err(JobOutcome::ProtocolError {
                            rank: c.rank,
                            pid: c.peer_pid(),
                            message: format!("it sent a malformed frame ({e})"),
                        })
                    }
                };
                if !matches!(frame, Frame::ClockProbe { .. } | Frame::ClockOffset { .. }) {
                    if !matches!(frame, Frame::Waiting { .. }) {
                        c.waiting = None;
                    }
                    self.progress();
                }
                self.handle_frame(idx, frame)?;
            }
            let Some(c) = self.conns[idx].as_mut() else {
                continue;
            };
            if c.state == ConnState::Active && c.pending_out() > 0 {
                let _ = c.flush(); // a clock reply goes out at once
            }
            if eof {
                let c = self.conns[idx].as_mut().unwrap();
                let was = c.state;
                c.state = ConnState::Closed;
                let _ = self.poll.registry().deregister(&mut c.stream);
                if was != ConnState::Finalized {
                    if let Some(r) = c.rank {
                        self.lost.push((r, monotonic_ns()));
                    } else if was == ConnState::AwaitHello {
                        self.conns[idx] = None; // a probe or a stray client
                    }
                }
            }
        }
        Ok(())
    }

    /// Drops connection `idx`, which failed the handshake (`why`, for the
    /// log line) — unless it comes from a process this gateway launched:
    /// that is a rank breaking the protocol (`as_rank`), and the job ends.
    fn refuse(&mut self, idx: usize, why: String, as_rank: String) -> Result<(), JobOutcome> {
        let c = self.conns[idx].as_mut().expect("a connection to refuse");
        if c.peer_pid().is_some_and(|p| self.own_pids.contains(&p)) {
            return Err(self.protocol_error(idx, as_rank));
        }
        eprintln!("mpinetsim: refused a connection from {}: {why}", c.peer);
        let _ = self.poll.registry().deregister(&mut c.stream);
        self.conns[idx] = None;
        self.refused += 1;
        Ok(())
    }

    /// Refuses connections that have not completed the handshake in time.
    fn expire_handshakes(&mut self, now: u64) -> Result<(), JobOutcome> {
        let limit = self.settings.handshake_timeout_ns;
        for idx in 0..self.conns.len() {
            let stale = self.conns[idx].as_ref().is_some_and(|c| {
                c.state == ConnState::AwaitHello && now.saturating_sub(c.accepted_ns) > limit
            });
            if stale {
                self.refuse(
                    idx,
                    format!(
                        "no Hello with the job's secret within {:.1} s",
                        limit as f64 / 1e9
                    ),
                    "it sent no Hello".into(),
                )?;
            }
        }
        Ok(())
    }

    fn protocol_error(&self, idx: usize, message: String) -> JobOutcome {
        let c = self.conns[idx].as_ref();
        JobOutcome::ProtocolError {
            rank: c.and_then(|c| c.rank),
            pid: c.and_then(|c| c.peer_pid()),
            message,
        }
    }

    /// Why a Hello carrying the job's secret cannot join this job, as a
    /// clause about the connection ("its Hello ..."); None when it can.
    fn unfit_hello(&self, version: u16, rank: u32, size: u32, job: u64) -> Option<String> {
        let n = self.settings.ranks;
        let mine = self.settings.job_id;
        if version != VERSION {
            return Some(format!(
                "its Hello speaks protocol version {version} but this gateway speaks {VERSION}; start the ranks with the shim built with this mpinetsim"
            ));
        }
        if job != mine {
            return Some(format!(
                "its Hello names job {job}, not this gateway's job {mine}; set MPINETSIM_JOB to the value the gateway printed"
            ));
        }
        if size != n {
            return Some(format!(
                "its Hello (rank {rank}) says the job has {size} ranks but this gateway runs {n}; start {n} ranks, or the gateway with -n {size}"
            ));
        }
        if rank >= n {
            return Some(format!(
                "its Hello names rank {rank}, but a job of {n} ranks has ranks 0 to {}",
                n - 1
            ));
        }
        if let Some(other) = self.rank_conn[rank as usize] {
            let pid = self.conns[other].as_ref().map_or(0, |c| c.pid);
            return Some(format!(
                "its Hello names rank {rank}, which is already connected (pid {pid}); give every rank its own number"
            ));
        }
        None
    }

    fn handle_frame(&mut self, idx: usize, frame: Frame) -> Result<(), JobOutcome> {
        let state = self.conns[idx].as_ref().unwrap().state;
        let n = self.settings.ranks;
        match (state, frame) {
            (
                ConnState::AwaitHello,
                Frame::Hello {
                    version,
                    rank,
                    size,
                    pid,
                    job,
                    secret,
                },
            ) => {
                if !secret.matches(self.settings.secret) {
                    let why = if version != VERSION {
                        format!("it speaks protocol version {version}, not {VERSION}")
                    } else {
                        "wrong job secret".into()
                    };
                    return self.refuse(
                        idx,
                        why,
                        "it sent a Hello without the job's secret".into(),
                    );
                }
                // The secret is right but the Hello cannot join this job:
                // refuse this connection alone (a rank of another job with
                // the same secret file, a stray copy of a rank); the ranks
                // that joined go on.
                if let Some(why) = self.unfit_hello(version, rank, size, job) {
                    return self.refuse(idx, why.clone(), why);
                }
                self.rank_conn[rank as usize] = Some(idx);
                let srt = self.time.srt(monotonic_ns());
                let c = self.conns[idx].as_mut().unwrap();
                c.rank = Some(rank);
                c.pid = pid;
                c.state = ConnState::Active;
                c.hello_srt_ns = srt;
                c.queue(&Frame::Welcome {
                    version: VERSION,
                    factor: self.settings.factor,
                    epoch_ns: self.time.clock.epoch_ns(),
                    eager_limit: self.settings.eager_limit,
                    adaptive: self.settings.adaptive.is_some(),
                    analytic: self.sim.times_collectives(),
                    node: self.rank_nodes.get(rank as usize).copied().unwrap_or(0),
                    compute_clock: self.settings.compute_clock,
                    cpu_speed: (self.settings.rank_cpu_speeds)
                        .get(rank as usize)
                        .copied()
                        .unwrap_or(1.0),
                });
                // A rank that connects after factor switches learns them all.
                for p in &self.time.clock.pieces()[1..] {
                    c.queue(&Frame::Factor {
                        at_srt_ns: p.srt_ns,
                        factor: p.factor,
                    });
                }
                while let Some(f) = self.undelivered[rank as usize].pop_front() {
                    c.queue(&f);
                    c.wakeups += 1;
                }
                Ok(())
            }
            (ConnState::Active | ConnState::Finalized, Frame::ClockProbe { t1_ns }) => {
                let c = self.conns[idx].as_mut().unwrap();
                c.clock_probes += 1;
                let t2_ns = c.last_read_ns;
                c.queue(&Frame::ClockReply {
                    t1_ns,
                    t2_ns,
                    t3_ns: monotonic_ns(),
                });
                Ok(())
            }
            (
                ConnState::Active | ConnState::Finalized,
                Frame::ClockOffset {
                    offset_ns,
                    uncertainty_ns,
                },
            ) => {
                self.conns[idx]
                    .as_mut()
                    .unwrap()
                    .set_clock(offset_ns, uncertainty_ns);
                Ok(())
            }
            (ConnState::Active, Frame::Send { dst, srt_ns, bytes }) => {
                let conn = self.conns[idx].as_ref().unwrap();
                let src = conn.rank.unwrap();
                let uncertainty_ns = conn.clock_uncertainty_ns;
                let to_storage = self.storage.as_ref().is_some_and(|s| s.endpoint() == dst);
                if dst >= n && !to_storage {
                    return Err(self.protocol_error(
                        idx,
                        format!(
                            "it sent a message to rank {dst}, but the job has ranks 0 to {}",
                            n - 1
                        ),
                    ));
                }
                self.messages_in += 1;
                let at = Nanos(srt_ns).max(self.sim.now());
                // The simulator may already have run past the send time:
                // the message enters late by the difference. And the stamp
                // itself is only as good as the rank's clock offset: it may
                // be late by up to the offset's uncertainty (wall ns, so
                // divided by the factor to be scaled time).
                let uncertain_srt_ns =
                    (uncertainty_ns as f64 / self.time.factor_at(srt_ns)).ceil() as u64;
                let late = at.0 - srt_ns + uncertain_srt_ns;
                if late > 0 {
                    self.lateness.record(late, netsim::EventClass::Inject, at.0);
                }
                if let Err(e) = self.sim.inject(src, dst, bytes.into(), at) {
                    return Err(self.protocol_error(
                        idx,
                        format!("it sent a message the network cannot carry ({e})"),
                    ));
                }
                Ok(())
            }
            (ConnState::Active, Frame::CollectiveData { dst, srt_ns, bytes }) => {
                let src = self.conns[idx].as_ref().unwrap().rank.unwrap();
                // Untimed: it arrives as soon as the gateway has it (not at
                // its stamp, which IPC has already passed: that is no
                // network lateness).
                let at = Nanos(srt_ns.max(self.time.srt(monotonic_ns()))).max(self.sim.now());
                let Some(model) = self.sim.collectives() else {
                    return Err(self.protocol_error(
                        idx,
                        "it sent collective data, which only the analytic model takes".into(),
                    ));
                };
                self.messages_in += 1;
                if let Err(e) = model.inject_untimed(src, dst, bytes.into(), at) {
                    return Err(self.protocol_error(
                        idx,
                        format!("it sent a message the network cannot carry ({e})"),
                    ));
                }
                Ok(())
            }
            (
                ConnState::Active,
                Frame::Collective {
                    context,
                    leader,
                    seq,
                    op,
                    members,
                    is_root,
                    sent_bytes,
                    received_bytes,
                    srt_ns,
                },
            ) => {
                let rank = self.conns[idx].as_ref().unwrap().rank.unwrap();
                let Some(op) = netsim::analytic::CollectiveOp::from_code(op) else {
                    return Err(self.protocol_error(
                        idx,
                        format!("it reported an unknown collective (code {op})"),
                    ));
                };
                let entry = netsim::analytic::CollectiveEntry {
                    key: netsim::analytic::CollectiveKey {
                        context,
                        leader,
                        seq,
                    },
                    op,
                    members,
                    is_root,
                    sent_bytes,
                    received_bytes,
                };
                let Some(model) = self.sim.collectives() else {
                    return Err(self.protocol_error(
                        idx,
                        "it reported a collective, which only the analytic model takes".into(),
                    ));
                };
                if let Err(e) = model.enter_collective(rank, entry, Nanos(srt_ns)) {
                    return Err(self.protocol_error(idx, e));
                }
                Ok(())
            }
            (ConnState::Active, Frame::ComputeLate { late_ns }) => {
                // The full distribution comes with Finalize; this is for
                // the factor controller only.
                if let Some(a) = self.adaptive.as_mut() {
                    a.observe(late_ns);
                }
                Ok(())
            }
            (ConnState::Active, Frame::Finalize(counters)) => {
                self.lateness.record_computations(&counters);
                let c = self.conns[idx].as_mut().unwrap();
                c.counters = Some(counters);
                c.state = ConnState::Finalized;
                c.queue(&Frame::FinalizeAck);
                Ok(())
            }
            (ConnState::Active, Frame::Abort { code, text }) => {
                // The rank waits for this before it exits, so the reason is
                // here before the launcher can see the process end.
                let c = self.conns[idx].as_mut().unwrap();
                c.queue(&Frame::AbortAck);
                let _ = c.flush();
                let rank = c.rank.unwrap_or(u32::MAX);
                Err(JobOutcome::Aborted { rank, code, text })
            }
            (
                ConnState::Active,
                Frame::Waiting {
                    call,
                    any_source,
                    peers,
                    more_peers,
                    wakeups,
                },
            ) => {
                let c = self.conns[idx].as_mut().unwrap();
                // Stale when a delivery crossed it on the way.
                if wakeups >= c.wakeups {
                    c.waiting = Some(crate::stall::RankWaiting {
                        call,
                        any_source,
                        peers,
                        more_peers,
                    });
                }
                Ok(())
            }
            (ConnState::AwaitHello, frame) => self.refuse(
                idx,
                format!("its first frame was {}, not Hello", frame.name()),
                format!("it sent a {} frame before its Hello", frame.name()),
            ),
            (state, frame) => {
                let what = frame.name();
                Err(self.protocol_error(
                    idx,
                    format!("it sent a {what} frame out of order (connection state {state:?})"),
                ))
            }
        }
    }

    /// Runs every event whose wall deadline has passed, recording lateness,
    /// and queues the resulting deliveries.
    fn run_due_events(&mut self) {
        let mut deliveries = Vec::new();
        let mut releases = Vec::new();
        loop {
            let now = monotonic_ns();
            let Some(t) = self.sim.next_event_time() else {
                break;
            };
            let deadline = self.time.deadline(t.0);
            if deadline > now + self.settings.lookahead_ns {
                break;
            }
            let (t, class) = self.sim.step_classified().expect("an event is pending");
            self.last_progress_ns = now;
            self.stall_reported = false;
            let late = (now.saturating_sub(deadline) as f64 / self.time.factor_at(t.0)) as u64;
            self.lateness.record(late, class, t.0);
            if let Some(a) = self.adaptive.as_mut() {
                a.observe(late);
            }
            self.sim.take_deliveries(&mut deliveries);
            for d in deliveries.drain(..) {
                self.messages_out += 1;
                if let Some(a) = self.arrows.as_mut() {
                    a.push(crate::timeline::Arrow {
                        src: d.src,
                        dst: d.dst,
                        sent_ns: d.injected_at.0,
                        arrived_ns: d.delivered_at.0,
                        bytes: d.bytes.len() as u64,
                    });
                }
                if let Some(st) = self.storage.as_mut() {
                    if st.on_delivery(&d, self.sim.as_mut()) {
                        continue;
                    }
                }
                match self.rank_conn[d.dst as usize] {
                    Some(ci) => {
                        if let Some(c) = self.conns[ci].as_mut() {
                            if matches!(c.state, ConnState::Active | ConnState::Finalized) {
                                c.queue_deliver(d.src, d.delivered_at.0, &d.bytes);
                            }
                        }
                    }
                    // Not connected yet: keep it until its Hello.
                    None => self.undelivered[d.dst as usize].push_back(Frame::Deliver {
                        src: d.src,
                        vtime_ns: d.delivered_at.0,
                        bytes: d.bytes.to_vec(),
                    }),
                }
            }
            if let Some(c) = self.sim.collectives() {
                c.take_releases(&mut releases);
            }
            for r in releases.drain(..) {
                // Every member of a collective is connected: it sent the
                // Collective frame.
                if let Some(c) =
                    self.rank_conn[r.rank as usize].and_then(|ci| self.conns[ci].as_mut())
                {
                    c.queue(&Frame::CollectiveDone {
                        context: r.key.context,
                        leader: r.key.leader,
                        seq: r.key.seq,
                        vtime_ns: r.at.0,
                    });
                    c.wakeups += 1;
                    c.waiting = None;
                }
            }
            self.events_since_flush += 1;
            if self.events_since_flush >= 1 << 16 {
                self.events_since_flush = 0;
                if let Err(e) = self.flush_captures() {
                    self.capture_failure.get_or_insert(e);
                }
            }
        }
    }

    fn flush_all(&mut self) -> Result<(), JobOutcome> {
        for c in self.conns.iter_mut().flatten() {
            if c.pending_out() > 0 && c.state != ConnState::Closed {
                let _ = c.flush(); // a peer that went away is noticed by its read side
            }
        }
        Ok(())
    }

    /// Arms the timerfd for the next event's deadline minus the lookahead
    /// (a syscall only when that instant changed).
    fn arm_timer(&mut self) {
        let want = self.sim.next_event_time().map(|t| {
            self.time
                .deadline(t.0)
                .saturating_sub(self.settings.lookahead_ns)
                .max(1)
        });
        if want == self.armed_ns {
            return;
        }
        self.armed_ns = want;
        match want {
            Some(d) => {
                let ts = TimeSpec::new((d / 1_000_000_000) as i64, (d % 1_000_000_000) as i64);
                let _ = self.timer.set(
                    Expiration::OneShot(ts),
                    TimerSetTimeFlags::TFD_TIMER_ABSTIME,
                );
            }
            None => {
                let _ = self.timer.unset();
            }
        }
    }

    /// Ranks whose connection closed before Finalize end the job once the
    /// supervisor has had half a second to report a better reason.
    fn check_lost(&self) -> Option<JobOutcome> {
        let now = monotonic_ns();
        self.lost
            .iter()
            .find(|(_, at)| now - at > 500_000_000)
            .map(|&(rank, _)| JobOutcome::RankFailed {
                rank,
                reason: "closed its connection to the gateway before MPI_Finalize".into(),
            })
    }

    /// A rank did something: a stall, if any, is over.
    fn progress(&mut self) {
        self.last_progress_ns = monotonic_ns();
        self.stall_reported = false;
    }

    /// Where every rank is, if the job is stalled (see [`crate::stall`]):
    /// every connected rank that has not finished waits, nothing is in
    /// flight in the network or on its way to a rank.
    fn stalled_ranks(&self) -> Option<Vec<crate::stall::RankState<'_>>> {
        use crate::stall::RankState;
        if self.sim.messages_in_flight() > 0 || self.undelivered.iter().any(|q| !q.is_empty()) {
            return None;
        }
        let mut states = Vec::with_capacity(self.rank_conn.len());
        for (r, ci) in self.rank_conn.iter().enumerate() {
            let conn = ci.and_then(|ci| self.conns[ci].as_ref());
            states.push(match conn {
                None => RankState::NotConnected(self.own_pids.get(r).copied()),
                Some(c) if c.pending_out() > 0 => return None,
                Some(c) if c.counters.is_some() => RankState::Finished,
                Some(c) => match &c.waiting {
                    Some(w) if c.state == ConnState::Active => RankState::Waiting(w),
                    _ => return None, // computing, or gone (see check_lost)
                },
            });
        }
        Some(states)
    }

    /// Reports a stall that has lasted the quiet period: ends the job with
    /// `--on-stall stop`, else says so once and waits on.
    fn check_stall(&mut self, now: u64) -> Option<JobOutcome> {
        let quiet = self.settings.stall.quiet_ns?;
        if self.stall_reported || now.saturating_sub(self.last_progress_ns) < quiet {
            return None;
        }
        let text = crate::stall::describe(&self.stalled_ranks()?, quiet);
        if self.settings.stall.stop {
            return Some(JobOutcome::Stalled(text));
        }
        eprintln!("mpinetsim: {text}; the job keeps waiting (--on-stall stop would end it)");
        self.stall_reported = true;
        None
    }

    fn all_done(&self) -> bool {
        let n = self.settings.ranks as usize;
        let mut finished = 0;
        for ci in self.rank_conn.iter().flatten() {
            if let Some(c) = &self.conns[*ci] {
                if c.state == ConnState::Closed && c.counters.is_some() {
                    finished += 1;
                }
            }
        }
        finished == n
    }

    /// After every rank has finished, runs the remaining events (ACKs,
    /// timers) at once: nobody waits for them any more.
    fn finish_simulation(&mut self) {
        while self.sim.step().is_some() {}
        let mut d = Vec::new();
        self.sim.take_deliveries(&mut d);
    }

    /// Ranks that connected, with their connection.
    pub fn rank_connections(&self) -> impl Iterator<Item = (u32, &RankConnection)> {
        self.rank_conn.iter().enumerate().filter_map(|(r, ci)| {
            ci.and_then(|ci| self.conns[ci].as_ref())
                .map(|c| (r as u32, c))
        })
    }
}

trait RawFdOf {
    fn as_fd_raw(&self) -> std::os::fd::RawFd;
}
impl RawFdOf for TimerFd {
    fn as_fd_raw(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsFd;
        self.as_fd().as_raw_fd()
    }
}
