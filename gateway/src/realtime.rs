//! The real-time loop's shell: one thread, epoll (mio) and a timerfd
//! around the sans-IO [`GatewayCore`]. The shell owns the sockets (the
//! listeners and each rank's stream), the timer and the capture files; it
//! reads what the sockets have into the core, writes what the core queued,
//! sleeps until the core's next deadline or a socket's readiness, and
//! carries out the core's [`Action`]s. Every decision (what runs when, what
//! is late, who is refused, how the job ends) is the core's.

use crate::capture_files::CaptureFiles;
use crate::error::Error;
use crate::listen::Listener;
use crate::loop_core::{Action, ConnId, ConnState, DueEvents, GatewayCore, Peer};
use crate::network_model::{packet_mut, Model};
use crate::rank_link::{RankLink, ReadOutcome};
use crate::wakeup::WakeupRecorder;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use mpinetsim_protocol::GatewayAddress;
use mpinetsim_shm::spin::Spinner;
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::loop_core::{CoreSettings, JobOutcome};

const TIMER: Token = Token(0);
/// Listener i has token FIRST_LISTENER + i.
const FIRST_LISTENER: usize = 1;
/// Most `--listen` addresses.
pub const MAX_LISTENERS: usize = 16;
/// Connection i's socket has token FIRST_CONN + 2i, its shared-memory
/// doorbell (if any) FIRST_CONN + 2i + 1.
const FIRST_CONN: usize = FIRST_LISTENER + MAX_LISTENERS;

/// Job parameters of the gateway: the core's, and where to listen.
#[derive(Clone, Debug)]
pub struct GatewaySettings {
    /// What the core needs.
    pub core: CoreSettings,
    /// Addresses to listen on (Unix sockets, TCP endpoints).
    pub listen: Vec<GatewayAddress>,
}

/// The gateway: the core and the sockets, timer and files around it.
pub struct Gateway {
    /// Every decision of the loop, and the job's state the report reads.
    pub core: GatewayCore,
    /// Time-series files, flushed with the captures.
    pub vectors: Option<crate::vector_files::VectorFiles>,
    poll: Poll,
    listeners: Vec<Listener>,
    /// Listeners whose queue may hold connections an `accept` could not
    /// take (out of descriptors): retried every turn, since no new
    /// readiness event announces connections already queued.
    accept_blocked: Vec<bool>,
    /// Connections by [`ConnId`] (None once closed).
    transports: Vec<Option<RankLink>>,
    /// How long the loop spins on shared-memory rings before it sleeps.
    spinner: Spinner,
    timer: TimerFd,
    captures: Option<CaptureFiles>,
    interrupted: Arc<AtomicBool>,
    /// The first capture write error, ending the job at the next loop turn.
    capture_failure: Option<String>,
    next_supervise_ns: u64,
    armed_ns: Option<u64>,
    /// The core's actions being carried out (kept to reuse its memory).
    actions: Vec<Action>,
    /// How late the timer woke the loop.
    pub wakeups: WakeupRecorder,
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
    ) -> Result<Gateway, Error> {
        let poll = Poll::new()
            .map_err(|e| Error::internal(format!("cannot create an epoll instance: {e}")))?;
        if settings.listen.is_empty() || settings.listen.len() > MAX_LISTENERS {
            return Err(Error::Usage(format!(
                "give between 1 and {MAX_LISTENERS} --listen addresses"
            )));
        }
        let mut listeners = Vec::new();
        for (i, addr) in settings.listen.iter().enumerate() {
            let mut l = Listener::bind(addr)?;
            poll.registry()
                .register(&mut l, Token(FIRST_LISTENER + i), Interest::READABLE)
                .map_err(|e| {
                    Error::internal(format!("cannot watch the listening socket {addr}: {e}"))
                })?;
            listeners.push(l);
        }
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )
        .map_err(|e| Error::internal(format!("cannot create a timerfd: {e}")))?;
        poll.registry()
            .register(&mut SourceFd(&timer.as_fd_raw()), TIMER, Interest::READABLE)
            .map_err(|e| Error::internal(format!("cannot watch the timerfd: {e}")))?;
        Ok(Gateway {
            core: GatewayCore::new(settings.core, sim, epoch_ns, crate::clock::Monotonic),
            vectors: None,
            poll,
            accept_blocked: vec![false; listeners.len()],
            listeners,
            transports: Vec::new(),
            spinner: Spinner::default(),
            timer,
            captures,
            interrupted,
            capture_failure: None,
            next_supervise_ns: 0,
            armed_ns: None,
            actions: Vec::new(),
            wakeups: WakeupRecorder::default(),
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
    pub fn flush_captures(&mut self) -> Result<(), Error> {
        let Some(sim) = packet_mut(self.core.sim.as_mut()) else {
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
    pub fn run(
        &mut self,
        mut supervise: impl FnMut(&mut GatewayCore) -> Option<JobOutcome>,
    ) -> JobOutcome {
        let mut events = Events::with_capacity(256);
        // The timer wakes the loop for events the lookahead cannot run
        // early; Linux lets a thread's timers fire up to its slack late
        // (50 µs by default), which at factor F is 50/F µs of every such
        // event's lateness. 1 ns asks for the timer's own precision.
        let _ = nix::sys::prctl::set_timerslack(1);
        loop {
            if self.interrupted.load(Ordering::Relaxed) {
                return JobOutcome::Interrupted;
            }
            // Horizons first, then the rings: a rank publishes after it
            // wrote what it sent, so every message sent before the
            // horizon read is in the core before events run past it.
            self.read_horizons();
            if let Err(o) = self.read_all() {
                return o;
            }
            self.run_due_events();
            if let Some(message) = self.capture_failure.take() {
                return JobOutcome::CaptureFailed(message);
            }
            self.flush_all();
            let now = self.core.now_ns();
            if self.core.adapt(now) {
                self.armed_ns = None; // deadlines moved
            }
            // A spawn waits for the supervisor, which starts processes.
            if now >= self.next_supervise_ns || self.core.has_spawn_requests() {
                self.next_supervise_ns = now + SUPERVISE_EVERY_NS;
                if let Some(o) = supervise(&mut self.core) {
                    return o;
                }
            }
            for l in 0..self.listeners.len() {
                if self.accept_blocked[l] {
                    self.accept_all(l);
                }
            }
            let ends = self.core.check(now);
            self.carry_out_actions();
            if let Some(o) = ends {
                return o;
            }
            self.arm_timer();
            let timeout = self.sleep_or_spin();
            let polled = self.poll.poll(&mut events, Some(timeout));
            self.end_sleep();
            match polled {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
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
                        if let Some(deadline) = self.armed_ns {
                            self.wakeups.woke(deadline, self.core.now_ns());
                        }
                        self.armed_ns = None; // fired: must be armed again
                    }
                    Token(t) => {
                        let (id, bell) = ((t - FIRST_CONN) / 2, (t - FIRST_CONN) % 2 == 1);
                        if let Some(Some(c)) = self.transports.get_mut(id) {
                            if bell {
                                c.wants_read = true;
                            } else if ev.is_readable() || ev.is_read_closed() {
                                c.wants_read = true;
                                c.socket_event = true;
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

    /// Hands the core the horizons the ranks on shared memory published.
    fn read_horizons(&mut self) {
        for (id, t) in self.transports.iter().enumerate() {
            if let Some((h, reads)) = t.as_ref().and_then(RankLink::horizon) {
                self.core.set_horizon(id, h, reads);
            }
        }
    }

    /// The connection of the rank an event waits for, and its horizon as
    /// the core saw it.
    fn holder(&self) -> Option<(usize, mpinetsim_shm::horizon::Horizon)> {
        let hold = self.core.hold()?;
        let seen = self.core.connection(hold.holder)?.horizon?;
        Some((hold.holder, seen))
    }

    /// Runs the events that are due, flushing the capture files between
    /// batches as the core asks.
    fn run_due_events(&mut self) {
        while self.core.run_due_events() == DueEvents::FlushCaptures {
            if let Err(e) = self.flush_captures() {
                self.capture_failure.get_or_insert(e.to_string());
            }
        }
    }

    /// Accepts every queued connection of `listener`. Out of descriptors,
    /// it says so once and leaves the rest queued for the next turns.
    fn accept_all(&mut self, listener: usize) {
        loop {
            match self.listeners[listener].accept() {
                Ok(mut stream) => {
                    if self.accept_blocked[listener] {
                        self.accept_blocked[listener] = false;
                        tracing::info!("descriptors are free again; accepting connections");
                    }
                    let id = self.core.next_conn_id();
                    if self
                        .poll
                        .registry()
                        .register(
                            &mut stream,
                            Token(FIRST_CONN + 2 * id),
                            Interest::READABLE | Interest::WRITABLE,
                        )
                        .is_ok()
                    {
                        let peer = Peer {
                            description: stream.peer(),
                            pid: stream.peer_pid(),
                            tcp: stream.is_tcp(),
                        };
                        let accepted = self.core.accept(peer);
                        debug_assert_eq!(accepted, id);
                        self.transports.push(Some(RankLink::new(stream)));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.accept_blocked[listener] = false;
                    return;
                }
                // The peer gave up before it was accepted: take the next.
                Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => {}
                Err(e) => {
                    if !self.accept_blocked[listener] {
                        self.accept_blocked[listener] = true;
                        tracing::warn!(
                            "cannot accept a connection on {} ({e}); it waits until descriptors free up (connections refused or closed, or a higher ulimit -n)",
                            self.listeners[listener].address
                        );
                    }
                    return;
                }
            }
        }
    }

    /// Reads every connection with data waiting into the core and lets it
    /// handle the frames — unless backpressure holds all input back.
    fn read_all(&mut self) -> Result<(), JobOutcome> {
        if !self.core.accepts_input() {
            return Ok(());
        }
        for id in 0..self.transports.len() {
            let (Some(t), Some(c)) = (self.transports[id].as_mut(), self.core.connection_mut(id))
            else {
                continue;
            };
            if !t.should_read() || c.state == ConnState::Closed {
                continue;
            }
            let eof = match t.read_into(c) {
                Ok(ReadOutcome::Open) => false,
                Ok(ReadOutcome::SwitchedToShm) => {
                    if let Some(fd) = t.bell_fd() {
                        let registered = self.poll.registry().register(
                            &mut SourceFd(&fd.as_raw_fd()),
                            Token(FIRST_CONN + 2 * id + 1),
                            Interest::READABLE,
                        );
                        match registered {
                            Ok(()) => false,
                            Err(e) => {
                                eprintln!("mpinetsim: cannot watch a rank's shared-memory doorbell ({e}); its connection is closed");
                                true
                            }
                        }
                    } else {
                        false
                    }
                }
                Ok(ReadOutcome::Ended(why)) => {
                    if let Some(why) = why {
                        eprintln!(
                            "mpinetsim: refused a connection from {}: {why}",
                            t.stream.peer()
                        );
                    }
                    true
                }
                Err(_) => true,
            };
            let handled = self.core.on_input(id, eof);
            self.carry_out_actions();
            handled?;
        }
        Ok(())
    }

    /// Does what the core asked.
    fn carry_out_actions(&mut self) {
        let mut actions = std::mem::take(&mut self.actions);
        self.core.take_actions(&mut actions);
        for a in actions.drain(..) {
            match a {
                Action::Flush(id) => self.flush(id),
                Action::Unwatch(id) => {
                    if let Some(t) = self.transports[id].as_mut() {
                        unwatch(&self.poll, t);
                        t.end_sleep();
                        t.watched = false;
                    }
                }
                Action::Close(id) => {
                    if let Some(mut t) = self.transports[id].take() {
                        unwatch(&self.poll, &mut t);
                    }
                }
                Action::Say(line) => eprintln!("mpinetsim: {line}"),
            }
        }
        self.actions = actions;
    }

    /// Writes what connection `id` has queued, as far as its socket takes
    /// it now (a peer that went away is noticed by its read side).
    fn flush(&mut self, id: ConnId) {
        if let (Some(t), Some(c)) = (self.transports[id].as_mut(), self.core.connection_mut(id)) {
            let _ = t.flush_from(c);
        }
    }

    fn flush_all(&mut self) {
        for id in 0..self.transports.len() {
            let due = self
                .core
                .connection(id)
                .is_some_and(|c| c.pending_out() > 0 && c.state != ConnState::Closed);
            if due {
                self.flush(id);
            }
        }
    }

    /// Before the loop waits in epoll: with shared-memory connections,
    /// spins a while (adaptively, never past the next deadline) looking
    /// at their rings, then asks each rank to ring its doorbell when it
    /// writes. Returns how long epoll may sleep: zero when bytes are
    /// already there.
    fn sleep_or_spin(&mut self) -> Duration {
        const IDLE: Duration = Duration::from_millis(20);
        // Backpressure: bytes waiting in a ring are no reason to wake.
        if !self.core.accepts_input()
            || !self
                .transports
                .iter()
                .flatten()
                .any(RankLink::is_watched_shm)
        {
            return IDLE;
        }
        let now = self.core.now_ns();
        let until_deadline = self
            .core
            .timer_deadline()
            .map_or(u64::MAX, |d| d.saturating_sub(now));
        let holder = self.holder();
        let transports = &self.transports;
        let link = |id: usize| transports.get(id).and_then(Option::as_ref);
        // An event waits for this rank: its horizon moving is input too.
        let horizon_moved = || {
            holder.is_some_and(|(id, seen)| {
                link(id).and_then(RankLink::horizon).map(|h| h.0) != Some(seen)
            })
        };
        if until_deadline > self.spinner.budget_ns() {
            let found = self.spinner.spin(u64::MAX, || {
                transports.iter().flatten().any(RankLink::ring_readable) || horizon_moved()
            });
            if found {
                return Duration::ZERO;
            }
        }
        let mut sleep =
            holder.is_none_or(|(id, seen)| link(id).is_none_or(|t| t.hold_for_horizon(seen)));
        for t in self.transports.iter_mut().flatten() {
            sleep &= t.begin_sleep();
        }
        if sleep {
            IDLE
        } else {
            Duration::ZERO
        }
    }

    /// After epoll returned: the ranks need not ring any more.
    fn end_sleep(&mut self) {
        for t in self.transports.iter_mut().flatten() {
            t.end_sleep();
        }
        if let Some(t) = self
            .holder()
            .and_then(|(id, _)| self.transports.get(id)?.as_ref())
        {
            t.release_horizon();
        }
    }

    /// Arms the timerfd for the core's next wake-up (a syscall only when
    /// that instant changed).
    fn arm_timer(&mut self) {
        let want = self.core.timer_deadline();
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
}

/// Stops watching a connection's socket and doorbell.
fn unwatch(poll: &Poll, t: &mut RankLink) {
    if let Some(fd) = t.bell_fd() {
        let _ = poll.registry().deregister(&mut SourceFd(&fd.as_raw_fd()));
    }
    let _ = poll.registry().deregister(&mut t.stream);
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
