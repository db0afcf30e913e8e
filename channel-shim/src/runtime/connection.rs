//! The rank's connection to the gateway, as the engine's [`Transport`]:
//! the handshake (Hello with the job's secret, Welcome, clock probes), the
//! frames of the run, and one clear sentence naming the gateway whenever
//! the connection fails — the rank never waits on a gateway that is gone.

use super::clock::{self, monotonic_ns};
use super::clock_sync::{self, ClockSync};
use super::gateway_stream::{GatewayStream, GatewayWaiter};
use mpinetsim_protocol::trace::{TraceEvent, TRACE_HEADER_BYTES};
use mpinetsim_protocol::transport::TransportKind;
use mpinetsim_protocol::{
    ComputeClock, Frame, GatewayAddress, HostCpu, JobSecret, RankCounters, ScaledClock,
    MAX_FRAME_BODY, VERSION,
};
use mpinetsim_shm::horizon::Horizon;
use shim_engine::envelope::{is_one_sided_message, CallCode, Envelope, Kind};
use shim_engine::transport::{CollectiveStart, Incoming, Transport};
use shim_engine::waiting::Waiting;
use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::time::Duration;

/// How long the gateway may take to answer the Hello and the clock probes.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a rank that aborts waits for the gateway to acknowledge it.
const ABORT_ACK_TIMEOUT: Duration = Duration::from_secs(10);

/// Least wall time between two ComputeLate frames, ns.
const COMPUTE_LATE_EVERY_NS: u64 = 1_000_000;

/// Who this rank is, for the Hello.
pub struct Identity {
    /// Rank.
    pub rank: u32,
    /// Job size.
    pub size: u32,
    /// Job id.
    pub job: u64,
    /// Job secret.
    pub secret: JobSecret,
}

/// Connection to the gateway plus the job's time parameters.
pub struct GatewayTransport {
    stream: GatewayStream,
    /// The gateway's address as given, for messages.
    addr: String,
    handshaking: bool,
    rank: u32,
    size: u32,
    /// Where this process stands among dynamic processes.
    dynamic: DynamicWorld,
    /// The answer to this process's last spawn request, once read.
    spawned: Option<Result<(u32, u32), String>>,
    eager_limit: u64,
    inbuf: Vec<u8>,
    /// What one read takes (allocated once: zeroing 64 KiB per read
    /// cost microseconds per message).
    chunk: Vec<u8>,
    ready: VecDeque<Incoming>,
    out: Vec<u8>,
    /// CLOCK_MONOTONIC (this host) of the latest read, ns: a clock reply's t4.
    last_read_ns: u64,
    sync: ClockSync,
    analytic: bool,
    node: u32,
    compute_clock: ComputeClock,
    host_cpu: HostCpu,
    /// Largest computation lateness not yet told to the gateway, ns.
    late_pending_ns: u64,
    /// When the last ComputeLate was sent (CLOCK_MONOTONIC), ns.
    late_sent_ns: u64,
    coll_seq: HashMap<(u32, u32), u32>,
    /// Collectives reported to the analytic model, by their name there:
    /// where to deliver their release (receive context and tag).
    reported: HashMap<(u32, u32, u32), (u32, i32)>,
    /// Deliver, CollectiveDone and Spawned frames read (see `Frame::Waiting`).
    wakeups: u64,
    /// Deliver and CollectiveDone frames read (see [`super::horizon`]).
    deliveries_read: u64,
    /// While one-sided messages are served outside the program's MPI
    /// calls: the arrival time of the one being served, which stamps what
    /// is sent meanwhile (see [`Transport::try_recv_one_sided`]).
    serving_at_srt_ns: Option<u64>,
    /// Messages delivered so far per sender (a message's arrival index
    /// names it in a recorded trace).
    arrivals: Vec<u64>,
    /// The arrival index of each message in `ready`, in the same order.
    ready_index: VecDeque<u64>,
    /// The message taken last (sender, arrival index).
    last_taken: Option<(u32, u64)>,
    /// The message the engine is handling, whose answers these sends are.
    handling: Option<(u32, u64)>,
    /// The message taken last was taken by the one-sided service.
    last_taken_by_service: bool,
    /// Handling the current message completed a request.
    handling_completed: bool,
}

/// A process's world, universe and parent (see
/// [`mpinetsim_protocol::spawn`]): every rank of the job unless a spawn
/// started it.
#[derive(Clone, Copy, Debug)]
pub struct DynamicWorld {
    /// `MPI_COMM_WORLD`: first rank and count.
    pub world: (u32, u32),
    /// The rank of the spawning root, for a spawned process.
    pub parent: Option<u32>,
    /// `MPI_UNIVERSE_SIZE`.
    pub universe: u32,
    /// `MPI_APPNUM`.
    pub appnum: i32,
    /// Ranks may join during the run: no rank number is known to be
    /// beyond the job (false with a storage node, whose endpoint follows
    /// the ranks).
    pub open_ended: bool,
}

/// Envelope offset of the context id (see `shim_engine::envelope`).
const CONTEXT_OFFSET: usize = 20;
/// Envelope offset of the call code.
const CALL_OFFSET: usize = 4;

/// True for a message the analytic model's collective timing covers: one
/// on a collective context (odd context ids), except a neighbourhood
/// collective's, whose messages are timed one by one like point-to-point
/// ones (the model has no neighbourhood operation), and a partition of a
/// partitioned send's (point-to-point, on that context only to stay apart
/// from the program's receives).
fn is_collective_message(bytes: &[u8]) -> bool {
    let odd = bytes
        .get(CONTEXT_OFFSET..CONTEXT_OFFSET + 4)
        .is_some_and(|c| u32::from_le_bytes(c.try_into().unwrap()) & 1 == 1);
    let timed_alone = bytes
        .get(CALL_OFFSET)
        .and_then(|&c| shim_engine::envelope::CallCode::from_u8(c))
        .is_some_and(|c| c.is_neighborhood() || c == CallCode::Pready);
    odd && !timed_alone
}

impl GatewayTransport {
    /// Connects, says Hello, waits for Welcome and measures the clock
    /// offset. Errors are one sentence naming the gateway.
    /// `kind` is the transport asked for (shared memory applies to a Unix
    /// address only).
    pub fn connect(
        addr: &GatewayAddress,
        kind: TransportKind,
        me: &Identity,
    ) -> Result<GatewayTransport, String> {
        let mut stream = GatewayStream::connect(addr, kind)
            .map_err(|e| format!("cannot reach the mpinetsim gateway at {addr}: {e}"))?;
        super::horizon::install(stream.horizon_handle());
        let _ = stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT));
        let mut t = GatewayTransport {
            stream,
            addr: addr.to_string(),
            handshaking: true,
            rank: me.rank,
            size: me.size,
            dynamic: DynamicWorld {
                world: (0, me.size),
                parent: None,
                universe: me.size,
                appnum: 0,
                open_ended: false,
            },
            spawned: None,
            eager_limit: 64 * 1024,
            inbuf: Vec::new(),
            chunk: vec![0; 64 * 1024],
            ready: VecDeque::new(),
            out: Vec::new(),
            last_read_ns: 0,
            sync: ClockSync::default(),
            analytic: false,
            node: 0,
            compute_clock: ComputeClock::Cpu,
            host_cpu: HostCpu::NATIVE,
            late_pending_ns: 0,
            late_sent_ns: 0,
            coll_seq: HashMap::new(),
            reported: HashMap::new(),
            wakeups: 0,
            deliveries_read: 0,
            serving_at_srt_ns: None,
            arrivals: vec![0; me.size as usize],
            ready_index: VecDeque::new(),
            last_taken: None,
            handling: None,
            last_taken_by_service: false,
            handling_completed: false,
        };
        t.write_frame(&Frame::Hello {
            version: VERSION,
            rank: me.rank,
            size: me.size,
            pid: std::process::id(),
            job: me.job,
            secret: me.secret,
        });
        match t.read_frame(true) {
            Some(Frame::Welcome {
                version,
                factor,
                epoch_ns,
                eager_limit,
                adaptive,
                analytic,
                node,
                compute_clock,
                cpu_speed,
                cpu_threshold_ns,
                poll_ns,
            }) if version == VERSION => {
                t.analytic = analytic;
                t.node = node;
                t.compute_clock = compute_clock;
                t.host_cpu = HostCpu::new(cpu_speed, cpu_threshold_ns).with_poll_ns(poll_ns);
                clock::start(ScaledClock::new(epoch_ns, factor), adaptive);
                t.eager_limit = eager_limit;
            }
            Some(Frame::Abort { text, .. }) => {
                return Err(format!("the mpinetsim gateway at {} refused this rank: {text}", t.addr))
            }
            other => {
                return Err(format!(
                    "the mpinetsim gateway at {} answered {} instead of Welcome; use the shim built with the gateway's mpinetsim",
                    t.addr,
                    other.map_or("nothing", |f| f.name())
                ))
            }
        }
        t.initial_clock_sync();
        t.handshaking = false;
        // Blocking reads give up after this long, so a rank that waits
        // with nothing arriving can tell the gateway what it waits for.
        let _ = t
            .stream
            .set_read_timeout(Some(shim_engine::waiting::REPORT_WAITING_AFTER));
        Ok(t)
    }

    /// Sets this process's world, universe and parent (from the
    /// environment a spawn gave it).
    pub fn set_dynamic(&mut self, d: DynamicWorld) {
        self.dynamic = d;
    }

    /// Probes back to back until the filter has [`clock_sync::INITIAL_PROBES`]
    /// samples, then applies and reports the offset.
    fn initial_clock_sync(&mut self) {
        for _ in 0..clock_sync::INITIAL_PROBES {
            self.send_probe(0);
            while self.sync.probing() {
                self.pump(true);
            }
        }
        self.apply_new_estimate();
    }

    /// Starts a periodic round of clock probes unless one is running (the
    /// replies are handled whenever frames are read).
    pub fn start_clock_round(&mut self) {
        if !self.sync.probing() {
            self.send_probe(clock_sync::PROBES_PER_ROUND - 1);
        }
    }

    fn send_probe(&mut self, more_after: u32) {
        let t1_ns = monotonic_ns();
        if self.sync.start_probe(t1_ns, more_after) {
            self.write_frame(&Frame::ClockProbe { t1_ns });
        }
    }

    /// Applies a better or newer offset and tells the gateway.
    fn apply_new_estimate(&mut self) {
        if let Some(e) = self.sync.take_new_estimate() {
            clock::set_offset(e.offset_ns);
            self.write_frame(&Frame::ClockOffset {
                offset_ns: e.offset_ns,
                uncertainty_ns: e.uncertainty_ns,
            });
        }
    }

    /// The socket's file descriptor (for waiting on it without the engine
    /// lock when several threads call MPI).
    pub fn raw_fd(&self) -> i32 {
        self.stream.raw_fd()
    }

    /// Rendezvous threshold announced by the gateway.
    pub fn eager_limit_bytes(&self) -> u64 {
        self.eager_limit
    }

    /// How the gateway asked this rank to measure its computation, and
    /// its host's emulated CPU.
    pub fn compute_model(&self) -> (ComputeClock, HostCpu) {
        (self.compute_clock, self.host_cpu)
    }

    /// Waits for the next message (the rank started waiting at emulated
    /// time `waiting_from`) and takes it at its arrival time. A message
    /// that arrived after the rank started waiting resumes the rank at its
    /// arrival on the emulated machine: whatever real time passed beyond
    /// that before the rank took it (it waited for a CPU, or to wake up) is
    /// its lag. One that had arrived before leaves the rank's time as it
    /// was.
    fn take_waiting(&mut self, waiting_from: u64) -> Incoming {
        self.wait_for_delivery(None);
        let due = self.ready.front().unwrap().vtime_ns;
        // Until it takes that message the rank sends nothing, and then
        // at that message's time or its own, whichever is later.
        super::horizon::publish(Horizon::Active(due.max(waiting_from)));
        self.wait_until_srt(due);
        if due > waiting_from {
            clock::take_message_at(due, self.srt_ns());
        }
        self.take_ready(0, false).unwrap()
    }

    /// Reads frames until a delivery is ready (or `deadline` passed:
    /// false), telling the gateway meanwhile that this rank will send
    /// nothing before its next delivery.
    fn wait_for_delivery(&mut self, deadline: Option<std::time::Instant>) -> bool {
        if !self.ready.is_empty() {
            return true;
        }
        super::horizon::publish(Horizon::Idle {
            reads: self.deliveries_read,
        });
        while self.ready.is_empty() {
            if !self.pump(true) && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return false;
            }
        }
        true
    }

    /// Takes message `i` of the ready queue, recording it when the job
    /// records a trace (`service`: the one-sided service took it).
    fn take_ready(&mut self, i: usize, service: bool) -> Option<Incoming> {
        let m = self.ready.remove(i)?;
        let index = self.ready_index.remove(i).unwrap_or(u64::MAX);
        self.last_taken = Some((m.src, index));
        self.last_taken_by_service = service;
        Some(m)
    }

    /// Waits until scaled time reaches `srt_ns`: sleeps while far, then
    /// spins the last stretch for precision.
    fn wait_until_srt(&self, srt_ns: u64) {
        const SPIN_WALL_NS: u64 = 200_000;
        let Some(c) = clock::snapshot() else {
            return;
        };
        let deadline = c.wall(srt_ns);
        loop {
            let now = clock::job_ns();
            if now >= deadline {
                return;
            }
            let left = deadline - now;
            if left > SPIN_WALL_NS {
                std::thread::sleep(std::time::Duration::from_nanos(left - SPIN_WALL_NS));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Scaled real time now, ns.
    pub fn srt_ns(&self) -> u64 {
        clock::srt_now()
    }

    /// The rank's time on the emulated machine: scaled real time plus the
    /// rank's offset from it (see [`clock::emulated_offset_ns`]), ns.
    /// Messages are stamped with it.
    pub fn emulated_srt_ns(&self) -> u64 {
        if let Some(at) = self.serving_at_srt_ns {
            return at;
        }
        clock::emulated_at(self.srt_ns())
    }

    /// What another thread sleeps on until the gateway has sent
    /// something (see [`GatewayStream::waiter`]).
    pub fn waiter(&self) -> std::io::Result<GatewayWaiter> {
        self.stream.waiter()
    }

    /// Reads whatever the gateway has sent (deliveries are kept; factor
    /// changes are applied) without waiting.
    pub fn poll(&mut self) {
        while self.pump(false) {}
    }

    /// Ends the rank with one sentence about the lost gateway.
    fn lost(&self, what: &str) -> ! {
        if self.handshaking {
            super::fatal(&format!(
                "the mpinetsim gateway at {} {what} during the handshake (its output says why); check that {}, {} (or {}) and the rank numbers and count match what it printed",
                self.addr,
                mpinetsim_protocol::ENV_JOB,
                mpinetsim_protocol::ENV_SECRET_FILE,
                mpinetsim_protocol::ENV_SECRET
            ))
        }
        super::fatal(&format!(
            "lost the mpinetsim gateway at {}: it {what} (it ended, died or was restarted); this rank stops",
            self.addr
        ))
    }

    fn write_frame(&mut self, f: &Frame) {
        self.out.clear();
        f.encode(&mut self.out);
        if let Err(e) = self.stream.write_all(&self.out) {
            self.lost(&format!("could not be written to ({e})"));
        }
    }

    /// Reads until one frame is complete; without `block`, returns None
    /// when the socket has nothing more right now, with `block` when
    /// nothing arrived within the read timeout (after the handshake).
    fn read_frame(&mut self, block: bool) -> Option<Frame> {
        loop {
            match Frame::decode(&self.inbuf) {
                Ok(Some((f, used))) => {
                    self.inbuf.drain(..used);
                    return Some(f);
                }
                Ok(None) => {}
                Err(e) => super::fatal(&format!(
                    "the mpinetsim gateway at {} sent a malformed frame ({e})",
                    self.addr
                )),
            }
            let n = if block {
                match self.stream.read(&mut self.chunk) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) =>
                    {
                        if self.handshaking {
                            self.lost(&format!(
                                "did not answer within {} s",
                                HANDSHAKE_TIMEOUT.as_secs()
                            ))
                        }
                        return None;
                    }
                    Err(e) => self.lost(&format!("could not be read from ({e})")),
                }
            } else {
                match self.stream.read_nonblocking(&mut self.chunk) {
                    Ok(Some(n)) => n,
                    Ok(None) => return None,
                    Err(e) => self.lost(&format!("could not be read from ({e})")),
                }
            };
            if n == 0 {
                self.lost("closed the connection");
            }
            self.last_read_ns = monotonic_ns();
            self.inbuf.extend_from_slice(&self.chunk[..n]);
        }
    }

    /// Handles a frame that is not a delivery.
    fn control(&mut self, f: Frame) {
        match f {
            Frame::Abort { code, text } => {
                eprintln!("mpinetsim: {text}");
                std::process::exit(if code == 0 { 1 } else { code });
            }
            Frame::Factor { at_srt_ns, factor } => clock::change(at_srt_ns, factor),
            Frame::ClockReply {
                t1_ns,
                t2_ns,
                t3_ns,
            } => {
                if self.sync.on_reply(t1_ns, t2_ns, t3_ns, self.last_read_ns) {
                    self.send_probe(0);
                } else if !self.handshaking && !self.sync.probing() {
                    self.apply_new_estimate();
                }
            }
            Frame::CollectiveDone {
                context,
                leader,
                seq,
                vtime_ns,
            } => self.release(context, leader, seq, vtime_ns),
            Frame::Spawned {
                first,
                count,
                error,
            } => {
                // The gateway counts it among the frames that wake a rank.
                self.wakeups += 1;
                self.spawned = Some(if error.is_empty() {
                    Ok((first, count))
                } else {
                    Err(error)
                });
            }
            other => super::fatal(&format!(
                "the mpinetsim gateway at {} sent an unexpected {} frame",
                self.addr,
                other.name()
            )),
        }
    }

    /// Reads one frame if there is one (waiting for it with `block`);
    /// returns false when nothing was available.
    fn pump(&mut self, block: bool) -> bool {
        match self.read_frame(block) {
            Some(Frame::Deliver {
                src,
                vtime_ns,
                bytes,
            }) => {
                self.wakeups += 1;
                self.deliveries_read += 1;
                super::horizon::set_reads(self.deliveries_read);
                if src as usize >= self.arrivals.len() && src < RANK_LIMIT {
                    self.arrivals.resize(src as usize + 1, 0);
                }
                let index = self.arrivals.get_mut(src as usize).map_or(u64::MAX, |n| {
                    *n += 1;
                    *n - 1
                });
                self.ready_index.push_back(index);
                self.ready.push_back(Incoming {
                    src,
                    vtime_ns,
                    bytes,
                });
                true
            }
            Some(other) => {
                self.control(other);
                true
            }
            None => false,
        }
    }

    /// Sends Finalize and waits for its acknowledgement (deliveries that
    /// still arrive are dropped: nobody will receive them).
    pub fn finalize(&mut self, counters: RankCounters) {
        self.write_frame(&Frame::Finalize(counters));
        loop {
            match self.read_frame(true) {
                Some(Frame::FinalizeAck) => return,
                Some(Frame::Deliver { .. }) | None => {}
                Some(other) => self.control(other),
            }
        }
    }

    /// A computation ran `late_ns` late (adaptive runs): tells the gateway
    /// the largest lateness at most once per [`COMPUTE_LATE_EVERY_NS`] of
    /// wall time, so a rank making many short calls adds little traffic.
    pub fn note_compute_late(&mut self, late_ns: u64) {
        self.late_pending_ns = self.late_pending_ns.max(late_ns);
        let now = monotonic_ns();
        if now.saturating_sub(self.late_sent_ns) >= COMPUTE_LATE_EVERY_NS {
            let late_ns = std::mem::take(&mut self.late_pending_ns);
            self.late_sent_ns = now;
            self.write_frame(&Frame::ComputeLate { late_ns });
        }
    }

    /// Tells the gateway what the MPI call in progress waits for.
    pub fn send_waiting(&mut self, w: &Waiting) {
        let call = super::pacer(|p| p.call_name()).unwrap_or_default();
        let listed = w.peers.len().min(mpinetsim_protocol::MAX_WAITING_PEERS);
        self.write_frame(&Frame::Waiting {
            call: call.to_string(),
            any_source: w.any_source,
            peers: w.peers[..listed].to_vec(),
            more_peers: listed < w.peers.len(),
            wakeups: self.wakeups,
        });
    }

    /// The analytic model released collective (`context`, `leader`,
    /// `seq`) at virtual time `vtime_ns`: the call's release message (see
    /// [`Transport::collective_begin`]) is delivered like any message, at
    /// that time.
    fn release(&mut self, context: u32, leader: u32, seq: u32, vtime_ns: u64) {
        let Some((recv_context, tag)) = self.reported.remove(&(context, leader, seq)) else {
            super::fatal(&format!(
                "the mpinetsim gateway at {} released a collective this rank never entered",
                self.addr
            ))
        };
        let env = Envelope {
            kind: Kind::Control,
            flags: 0,
            call: CallCode::Other,
            src: self.rank,
            dst: self.rank,
            tag,
            context: recv_context,
            seq: 0,
            sender_op: 0,
            receiver_op: 0,
            msg_len: 0,
            payload_len: 0,
        };
        self.wakeups += 1;
        self.deliveries_read += 1;
        super::horizon::set_reads(self.deliveries_read);
        self.ready_index.push_back(u64::MAX);
        self.ready.push_back(Incoming {
            src: self.rank,
            vtime_ns,
            bytes: env.encode(&[]),
        });
    }

    /// Tells the gateway the job is aborted and waits (at most
    /// [`ABORT_ACK_TIMEOUT`]) until it has recorded that, so the reason
    /// reaches the job's report before this process exits and the gateway
    /// sees it end. False when the gateway could not be told (it is gone),
    /// so the caller prints the reason itself.
    pub fn send_abort(&mut self, code: i32, text: &str) -> bool {
        let f = Frame::Abort {
            code,
            text: text.to_string(),
        };
        if self.stream.write_all(&f.to_bytes()).is_err() {
            return false;
        }
        let deadline = std::time::Instant::now() + ABORT_ACK_TIMEOUT;
        while std::time::Instant::now() < deadline {
            // Frames before the ack (deliveries) no longer matter.
            while let Ok(Some((f, used))) = Frame::decode(&self.inbuf) {
                self.inbuf.drain(..used);
                if f == Frame::AbortAck {
                    return true;
                }
            }
            match self.stream.read(&mut self.chunk) {
                Ok(0) => return true, // the gateway ended the job: it read the Abort
                Ok(n) => self.inbuf.extend_from_slice(&self.chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return true,
            }
        }
        true
    }
}

/// Ranks a job may reach with spawned processes (beyond any network the
/// simulator can build): the bound of rank numbers while ranks may join.
const RANK_LIMIT: u32 = 1 << 20;

impl Transport for GatewayTransport {
    fn rank(&self) -> u32 {
        self.rank
    }
    /// The job's ranks; while ranks may join during the run, every rank
    /// number the gateway could hand out (it refuses a message to a rank
    /// that does not exist).
    fn size(&self) -> u32 {
        if self.dynamic.open_ended {
            RANK_LIMIT
        } else {
            self.size
        }
    }
    fn world(&self) -> (u32, u32) {
        self.dynamic.world
    }
    fn universe_size(&self) -> u32 {
        self.dynamic.universe
    }
    fn appnum(&self) -> i32 {
        self.dynamic.appnum
    }
    fn spawned_by(&self) -> Option<u32> {
        self.dynamic.parent
    }
    /// Asks the gateway, and waits for its answer (the processes are
    /// started, not yet initialised); what arrives meanwhile waits.
    fn spawn(&mut self, request: Vec<u8>) -> Result<(u32, u32), String> {
        self.spawned = None;
        let srt_ns = self.emulated_srt_ns();
        self.write_frame(&Frame::Spawn { srt_ns, request });
        while self.spawned.is_none() {
            self.pump(true);
        }
        self.spawned.take().expect("an answer")
    }
    fn send(&mut self, dst: u32, bytes: Vec<u8>) {
        if bytes.len() + 16 > MAX_FRAME_BODY {
            // The engine sends pieces of at most MAX_MESSAGE_PIECE bytes.
            super::fatal(&format!(
                "internal error: an engine message of {} bytes exceeds the {MAX_FRAME_BODY}-byte frame limit",
                bytes.len(),
            ));
        }
        let srt_ns = self.emulated_srt_ns();
        if super::trace_record::is_on() {
            super::trace_record::record(TraceEvent::Send {
                cause: self.handling,
                dst,
                len: bytes.len() as u32,
                header: bytes[..bytes.len().min(TRACE_HEADER_BYTES)].to_vec(),
            });
        }
        if self.analytic && is_collective_message(&bytes) {
            // The collective model times the whole operation.
            self.write_frame(&Frame::CollectiveData { dst, srt_ns, bytes });
        } else {
            self.write_frame(&Frame::Send { dst, srt_ns, bytes });
        }
    }
    /// A delivery becomes visible only once scaled time reaches its
    /// virtual arrival time: the gateway may write it a little early (its
    /// lookahead) so that neither its own nor this process's wake-up latency
    /// adds to the emulated latency.
    fn try_recv(&mut self) -> Option<Incoming> {
        while self.pump(false) {}
        let now = self.srt_ns();
        let m = match self.ready.front() {
            Some(m) if m.vtime_ns <= now => self.take_ready(0, false)?,
            _ => return None,
        };
        // Taken at emulated time max(arrival, emulated now): the rank was
        // not waiting for it, so it can only bring the rank's time forward.
        clock::take_message_at(m.vtime_ns, now);
        Some(m)
    }
    /// Leaves the rank's lag alone: the program, not the service, is
    /// where the rank is on the emulated machine.
    fn try_recv_one_sided(&mut self) -> Option<Incoming> {
        while self.pump(false) {}
        let now = self.srt_ns();
        let i = self
            .ready
            .iter()
            .take_while(|m| m.vtime_ns <= now)
            .position(|m| is_one_sided_message(&m.bytes))?;
        let m = self.take_ready(i, true)?;
        self.serving_at_srt_ns = Some(m.vtime_ns);
        Some(m)
    }
    fn next_one_sided_srt_ns(&self) -> Option<u64> {
        self.ready
            .iter()
            .filter(|m| is_one_sided_message(&m.bytes))
            .map(|m| m.vtime_ns)
            .min()
    }
    fn end_one_sided_service(&mut self) {
        self.serving_at_srt_ns = None;
    }
    fn handling_message(&mut self, handling: bool) {
        if handling {
            self.handling = self.last_taken;
            self.handling_completed = false;
            return;
        }
        if let (true, Some((src, index))) = (super::trace_record::is_on(), self.handling) {
            super::trace_record::record(TraceEvent::Consume {
                service: self.last_taken_by_service,
                completes: self.handling_completed,
                src,
                index,
            });
        }
        self.handling = None;
    }
    fn completed_request(&mut self) {
        self.handling_completed = true;
    }
    fn taken_token(&self) -> u64 {
        self.last_taken.map_or(u64::MAX, |(_, index)| index)
    }
    fn program_took(&mut self, src: u32, token: u64) {
        if super::trace_record::is_on() && token != u64::MAX {
            super::trace_record::record(TraceEvent::Consume {
                service: false,
                completes: true,
                src,
                index: token,
            });
        }
    }
    fn recv_blocking(&mut self) -> Incoming {
        let waiting_from = self.emulated_srt_ns();
        self.take_waiting(waiting_from)
    }
    fn recv_within(&mut self, timeout: Duration) -> Option<Incoming> {
        let waiting_from = self.emulated_srt_ns();
        let deadline = std::time::Instant::now() + timeout;
        if !self.wait_for_delivery(Some(deadline)) {
            return None;
        }
        Some(self.take_waiting(waiting_from))
    }
    fn report_waiting(&mut self, w: &Waiting) {
        self.send_waiting(w);
    }
    fn now_srt_ns(&self) -> u64 {
        self.emulated_srt_ns()
    }
    fn eager_limit(&self) -> u64 {
        self.eager_limit
    }
    /// Analytic model: reports the call as one operation entered now (its
    /// data goes untimed as [`Frame::CollectiveData`]); the gateway's
    /// [`Frame::CollectiveDone`] becomes the release message.
    fn collective_begin(&mut self, c: &CollectiveStart) -> bool {
        if !self.analytic {
            return false;
        }
        let seq_slot = self.coll_seq.entry((c.context, c.leader)).or_insert(0);
        let seq = *seq_slot;
        *seq_slot += 1;
        self.reported
            .insert((c.context, c.leader, seq), (c.recv_context, c.tag));
        let frame = Frame::Collective {
            context: c.context,
            leader: c.leader,
            seq,
            op: coll_op_of(c.call),
            members: c.members,
            is_root: c.is_root,
            sent_bytes: c.sent_bytes,
            received_bytes: c.received_bytes,
            srt_ns: self.emulated_srt_ns(),
        };
        self.write_frame(&frame);
        true
    }
    fn node(&self) -> u32 {
        self.node
    }
}

/// The analytic model's operation for a collective call (a nonblocking
/// call is timed as its blocking form, `MPI_Alltoallw` as `MPI_Alltoallv`).
fn coll_op_of(call: CallCode) -> u8 {
    use mpinetsim_protocol::coll_op::*;
    match call.blocking() {
        CallCode::Barrier => BARRIER,
        CallCode::Bcast => BCAST,
        CallCode::Reduce => REDUCE,
        CallCode::Allreduce => ALLREDUCE,
        CallCode::Gather => GATHER,
        CallCode::Gatherv => GATHERV,
        CallCode::Scatter => SCATTER,
        CallCode::Scatterv => SCATTERV,
        CallCode::Allgather => ALLGATHER,
        CallCode::Allgatherv => ALLGATHERV,
        CallCode::Alltoall => ALLTOALL,
        CallCode::Alltoallv | CallCode::Alltoallw => ALLTOALLV,
        CallCode::Reduce_scatter => REDUCE_SCATTER,
        CallCode::Reduce_scatter_block => REDUCE_SCATTER_BLOCK,
        CallCode::Scan => SCAN,
        CallCode::Exscan => EXSCAN,
        _ => 0,
    }
}
