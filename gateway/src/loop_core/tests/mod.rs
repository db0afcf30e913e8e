//! The core's decisions, driven without processes, sockets or sleeps: the
//! test plays the ranks (frames in), sets the wall clock, and reads the
//! frames the core queued and the actions it asked for. The network is
//! [`fixed_latency::FixedLatency`], so every time is closed form.

mod admission;
mod endings;
mod fixed_latency;
mod horizons;
mod spawning;
mod timing;

use super::{Action, ConnId, CoreSettings, GatewayCore, JobOutcome, Peer};
use crate::clock::WallClock;
use mpinetsim_protocol::{ComputeClock, Frame, JobSecret, VERSION};
use netsim::Nanos;
use std::cell::Cell;
use std::rc::Rc;

/// The job's secret in these tests.
const SECRET: JobSecret = JobSecret(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
/// The job's id.
const JOB: u64 = 77;
/// Wall time of SRT zero, ns.
const EPOCH: u64 = 1_000_000_000;
/// One-way time of every message, virtual ns.
const LATENCY: u64 = 1_000_000;
/// Pids of the test's ranks are this plus the rank.
const FIRST_PID: u32 = 4000;

/// A wall clock the test sets.
#[derive(Clone, Default)]
struct TestClock(Rc<Cell<u64>>);

impl WallClock for TestClock {
    fn now_ns(&self) -> u64 {
        self.0.get()
    }
}

/// A job of `ranks` ranks at `factor`, with the defaults of `run`.
fn settings(ranks: u32, factor: f64) -> CoreSettings {
    CoreSettings {
        ranks,
        factor,
        eager_limit: 65536,
        job_id: JOB,
        secret: SECRET,
        handshake_timeout_ns: super::DEFAULT_HANDSHAKE_TIMEOUT_NS,
        lookahead: super::Lookahead::fixed(super::DEFAULT_LOOKAHEAD_NS),
        output_limit_bytes: super::OUTPUT_LIMIT_BYTES,
        adaptive: None,
        stall: crate::stall::StallPolicy::default(),
        compute_clock: ComputeClock::Cpu,
        rank_cpus: Vec::new(),
        hold_cap_ns: super::horizon_hold::DEFAULT_HOLD_CAP_NS,
    }
}

/// The core, its clock, and the test's view of the connections.
struct Job {
    core: GatewayCore<TestClock>,
    clock: TestClock,
    ranks: u32,
}

impl Job {
    /// A job with `settings` on the fixed-latency network; the clock at
    /// the epoch.
    fn new(settings: CoreSettings) -> Job {
        let clock = TestClock::default();
        clock.0.set(EPOCH);
        let ranks = settings.ranks;
        let model = Box::new(fixed_latency::FixedLatency::new(ranks, Nanos(LATENCY)));
        Job {
            core: GatewayCore::new(settings, model, EPOCH, clock.clone()),
            clock,
            ranks,
        }
    }

    /// Sets the wall clock, ns.
    fn at(&self, wall_ns: u64) {
        self.clock.0.set(wall_ns);
    }

    /// The wall time at which scaled time `srt_ns` is reached.
    fn wall_of(&self, srt_ns: u64) -> u64 {
        self.core.time.deadline(srt_ns)
    }

    /// A new connection from a local process `pid`.
    fn connect(&mut self, pid: Option<u32>) -> ConnId {
        self.core.accept(Peer {
            description: "a local process".into(),
            pid,
            tcp: false,
        })
    }

    /// Connection `id` sends `bytes` (read now).
    fn send_bytes(&mut self, id: ConnId, bytes: &[u8]) -> Result<(), JobOutcome> {
        let now = self.clock.now_ns();
        let c = self.core.connection_mut(id).expect("an open connection");
        c.received(bytes, now);
        self.core.on_input(id, false)
    }

    /// Connection `id` sends `frame`.
    fn send(&mut self, id: ConnId, frame: &Frame) -> Result<(), JobOutcome> {
        self.send_bytes(id, &frame.to_bytes())
    }

    /// Connection `id` closes its end.
    fn close(&mut self, id: ConnId) -> Result<(), JobOutcome> {
        self.core.on_input(id, true)
    }

    /// The Hello of `rank` with the job's secret and id.
    fn hello(&self, rank: u32) -> Frame {
        Frame::Hello {
            version: VERSION,
            rank,
            size: self.ranks,
            pid: FIRST_PID + rank,
            job: JOB,
            secret: SECRET,
        }
    }

    /// Connects `rank` (a process this gateway launched) and takes its
    /// Welcome.
    fn join(&mut self, rank: u32) -> ConnId {
        let id = self.connect(Some(FIRST_PID + rank));
        self.core.own_pids.push(FIRST_PID + rank);
        self.send(id, &self.hello(rank)).expect("admitted");
        let out = self.output(id);
        assert!(
            matches!(out[0], Frame::Welcome { .. }),
            "rank {rank} got {out:?}"
        );
        // The core asked for the Welcome to go out at once.
        assert_eq!(self.actions(), vec![Action::Flush(id)]);
        id
    }

    /// Connects `rank` and sends its Hello, leaving its output queued.
    fn join_keeping_output(&mut self, rank: u32) -> ConnId {
        let id = self.connect(Some(FIRST_PID + rank));
        self.send(id, &self.hello(rank)).expect("admitted");
        id
    }

    /// The frames the core queued for connection `id` (written out).
    fn output(&mut self, id: ConnId) -> Vec<Frame> {
        let mut bytes = Vec::new();
        let c = self.core.connection_mut(id).expect("an open connection");
        c.flush_to(&mut bytes).expect("a Vec takes everything");
        let mut frames = Vec::new();
        let mut at = 0;
        while let Some((f, used)) = Frame::decode(&bytes[at..]).expect("well-formed output") {
            frames.push(f);
            at += used;
        }
        assert_eq!(at, bytes.len(), "whole frames only");
        frames
    }

    /// The actions asked for since the last call.
    fn actions(&mut self) -> Vec<Action> {
        let mut a = Vec::new();
        self.core.take_actions(&mut a);
        a
    }

    /// Runs every event that is due now.
    fn run_due(&mut self) {
        while self.core.run_due_events() != super::DueEvents::Done {}
    }
}
