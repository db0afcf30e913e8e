//! The wire protocol between the channel shim (inside every MPI rank) and the
//! mpinetsim gateway. Both sides use this crate, so neither re-declares it.
//!
//! A connection carries frames: a little-endian `u32` body length, then the
//! body — one kind byte and the kind's fields, all little-endian. The first
//! frame from the shim is [`Frame::Hello`] (carrying the job secret); the
//! gateway answers [`Frame::Welcome`]. The shim then measures its clock's
//! offset from the gateway's with [`Frame::ClockProbe`] /
//! [`Frame::ClockReply`] pairs and reports it with [`Frame::ClockOffset`],
//! again now and then during the run. The shim sends [`Frame::Send`]s,
//! a [`Frame::Waiting`] when an MPI call has waited a while with nothing
//! arriving, and finally [`Frame::Finalize`] (or [`Frame::Abort`], which the
//! gateway acknowledges with [`Frame::AbortAck`] before the rank exits); the
//! gateway sends [`Frame::Deliver`]s, [`Frame::FinalizeAck`] and, when the
//! job ends abnormally, [`Frame::Abort`].
//!
//! Decoding never panics: a frame that is too large, truncated, of unknown
//! kind or with trailing bytes is an [`DecodeError`].

mod address;
mod clock;
mod clock_sync;
mod compute;
mod secret;
pub mod spawn;
pub mod storage;
pub mod stream;
pub mod trace;
pub mod trace_calls;
pub mod transport;

pub use address::GatewayAddress;
pub use clock::{Piece, ScaledClock, MAX_TIME_FACTOR};
pub use clock_sync::{ClockSample, OffsetEstimate, OffsetFilter};
pub use compute::{ComputeClock, HostCpu, LatenessHistogram, LATENESS_BUCKETS};
pub use secret::JobSecret;

/// Protocol version; Hello and Welcome must carry the same. Version 3 added
/// the job secret to Hello and the clock offset frames; version 4 the
/// network model in Welcome and the collective frames; version 5 the
/// Waiting and AbortAck frames; version 6 the rank's node in Welcome and
/// the collective's name in CollectiveDone; version 7 the compute clock
/// and CPU speed in Welcome and the computation's CPU time, wall time and
/// lateness in Finalize; version 8 the ComputeLate frame; version 9 the
/// one-sided operation counts in Finalize; version 11 the Spawn and
/// Spawned frames; version 12 the poll cost in Welcome and the polls in
/// Finalize; version 13 the emulated time MPI_Init returned in Finalize.
pub const VERSION: u16 = 13;

/// Longest MPI function name a [`Frame::Waiting`] carries, bytes.
pub const MAX_CALL_NAME: usize = 64;

/// Most peers a [`Frame::Waiting`] lists (beyond, it says "and more").
pub const MAX_WAITING_PEERS: usize = 256;

/// Largest Hello body: the gateway refuses a connection announcing a
/// larger first frame before buffering it.
pub const MAX_HELLO_BODY: usize = 64;

/// Largest piece of an MPI message one frame carries, bytes: the shim sends
/// larger messages in pieces of this size (rendezvous, with a bounded
/// window), so a message of any size MPI allows costs the shim and the
/// gateway memory for a few pieces. Also the largest eager limit.
pub const MAX_MESSAGE_PIECE: u64 = 1 << 20;

/// Largest frame body accepted: one piece, its 56-byte MPI envelope and
/// the frame's own fields, with room to spare.
pub const MAX_FRAME_BODY: usize = MAX_MESSAGE_PIECE as usize + 4096;

/// Length of the frame-length prefix.
pub const LENGTH_PREFIX: usize = 4;

/// Environment variable: path of the gateway's Unix socket.
pub const ENV_SOCKET: &str = "MPINETSIM_SOCKET";
/// Environment variable: where the gateway listens, `unix:PATH` or
/// `tcp:HOST:PORT` (set by a user launching ranks with their own launcher;
/// `MPINETSIM_SOCKET` is a Unix socket path set by `mpinetsim run`).
pub const ENV_GATEWAY: &str = "MPINETSIM_GATEWAY";
/// Environment variable: this process's rank.
pub const ENV_RANK: &str = "MPINETSIM_RANK";
/// Environment variable: number of ranks.
pub const ENV_SIZE: &str = "MPINETSIM_SIZE";
/// Environment variable: job id (a number the gateway chose).
pub const ENV_JOB: &str = "MPINETSIM_JOB";
/// Environment variable: the job secret, 32 hex digits ([`JobSecret`]).
pub const ENV_SECRET: &str = "MPINETSIM_SECRET";
/// Environment variable: a file (mode 0600) holding the job secret, read
/// when [`ENV_SECRET`] is not set; it keeps the secret off launchers'
/// command lines, which every local user can read.
pub const ENV_SECRET_FILE: &str = "MPINETSIM_SECRET_FILE";
/// Environment variable: the process id of the `mpinetsim run` that
/// launched this rank; a rank whose parent it is asks the kernel to kill
/// it when that parent dies (`PR_SET_PDEATHSIG`).
pub const ENV_LAUNCHER_PID: &str = "MPINETSIM_LAUNCHER_PID";
/// Folder where each rank writes its timeline spans (`rank-<r>.spans`),
/// set when the job records a timeline.
pub const ENV_TIMELINE_DIR: &str = "MPINETSIM_TIMELINE_DIR";

/// Socket options both ends of a TCP connection use (the gateway on the
/// sockets it accepts, the shim on the one it connects), so a vanished peer
/// is noticed and small frames are not delayed.
pub mod tcp_tuning {
    /// Idle time before the first keepalive probe, s.
    pub const KEEPALIVE_IDLE_S: u64 = 5;
    /// Interval between keepalive probes, s.
    pub const KEEPALIVE_INTERVAL_S: u64 = 1;
    /// Unanswered probes after which the connection is dead: a silently
    /// vanished peer is noticed after idle + probes × interval = 10 s.
    pub const KEEPALIVE_PROBES: u32 = 5;
    /// Sent data unacknowledged this long kills the connection (covers a
    /// peer that vanishes while data is in flight, where keepalive does not
    /// run), ms.
    pub const USER_TIMEOUT_MS: u64 = 10_000;
    /// Send and receive buffer sizes requested, bytes (the kernel caps
    /// them at net.core.wmem_max / rmem_max).
    pub const BUFFER_BYTES: usize = 4 << 20;
    /// How long the shim tries to connect before giving up, ms.
    pub const CONNECT_TIMEOUT_MS: u64 = 5_000;
}

/// Operation codes of [`Frame::Collective`] (the same numbers as netsim's
/// `analytic::CollectiveOp`; a gateway test checks they agree).
pub mod coll_op {
    #![allow(missing_docs)]
    pub const BARRIER: u8 = 1;
    pub const BCAST: u8 = 2;
    pub const REDUCE: u8 = 3;
    pub const ALLREDUCE: u8 = 4;
    pub const GATHER: u8 = 5;
    pub const GATHERV: u8 = 6;
    pub const SCATTER: u8 = 7;
    pub const SCATTERV: u8 = 8;
    pub const ALLGATHER: u8 = 9;
    pub const ALLGATHERV: u8 = 10;
    pub const ALLTOALL: u8 = 11;
    pub const ALLTOALLV: u8 = 12;
    pub const REDUCE_SCATTER: u8 = 13;
    pub const REDUCE_SCATTER_BLOCK: u8 = 14;
    pub const SCAN: u8 = 15;
    pub const EXSCAN: u8 = 16;
}

/// Counters a rank reports at MPI_Finalize, for the job report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankCounters {
    /// MPI calls made.
    pub calls: u64,
    /// Messages sent (point-to-point and inside collectives).
    pub messages_sent: u64,
    /// Payload bytes sent.
    pub bytes_sent: u64,
    /// Messages received.
    pub messages_received: u64,
    /// Messages that found a posted receive (arrived after it was posted).
    pub expected: u64,
    /// Messages that arrived before a matching receive was posted.
    pub unexpected: u64,
    /// Queue entries examined without matching.
    pub unsuccessful_matches: u64,
    /// Scaled time spent computing between MPI calls (the measured
    /// computation ÷ the host's CPU speed), ns.
    pub compute_ns: u64,
    /// CPU time the process consumed between MPI calls (all threads), ns.
    pub compute_cpu_ns: u64,
    /// Wall time between MPI calls (before the time-factor sleep), ns.
    pub compute_wall_ns: u64,
    /// Largest lateness of a computation (scaled time), ns.
    pub compute_late_max_ns: u64,
    /// SRT at which the latest computation ended, ns.
    pub compute_late_max_at_ns: u64,
    /// Scaled time spent blocked inside MPI calls, ns.
    pub blocked_ns: u64,
    /// Wall time slept to stretch computation by the time factor, ns.
    pub slept_ns: u64,
    /// The rank's emulated time at MPI_Finalize (scaled real time plus
    /// its offset from it), ns.
    pub finalize_srt_ns: u64,
    /// Lateness of every computation between MPI calls, scaled ns (0 when
    /// on schedule).
    pub compute_lateness: LatenessHistogram,
    /// One-sided operations the rank issued.
    pub rma_operations: u64,
    /// Bytes of target memory they covered.
    pub rma_bytes: u64,
    /// Computations not counted, being shorter than the host's
    /// `cpu_threshold`.
    pub below_threshold: u64,
    /// What they measured together (before the CPU speed), ns.
    pub below_threshold_ns: u64,
    /// Tests and probes that completed or found nothing, each costing the
    /// host's `poll_cost` of emulated time.
    pub polls: u64,
    /// The rank's emulated time when MPI_Init (or its first session)
    /// returned, ns: the start of the job's runtime is the latest of these,
    /// not when the ranks connected, so the wall time a rank's start-up
    /// took (processes starting on busy cores) does not count, divided by
    /// the factor, into the runtime.
    pub init_srt_ns: u64,
}

impl RankCounters {
    const FIELDS: usize = 21;
    fn to_array(&self) -> [u64; Self::FIELDS] {
        [
            self.calls,
            self.messages_sent,
            self.bytes_sent,
            self.messages_received,
            self.expected,
            self.unexpected,
            self.unsuccessful_matches,
            self.compute_ns,
            self.blocked_ns,
            self.slept_ns,
            self.finalize_srt_ns,
            self.compute_cpu_ns,
            self.compute_wall_ns,
            self.compute_late_max_ns,
            self.compute_late_max_at_ns,
            self.rma_operations,
            self.rma_bytes,
            self.below_threshold,
            self.below_threshold_ns,
            self.polls,
            self.init_srt_ns,
        ]
    }
    fn from_array(a: [u64; Self::FIELDS]) -> RankCounters {
        RankCounters {
            calls: a[0],
            messages_sent: a[1],
            bytes_sent: a[2],
            messages_received: a[3],
            expected: a[4],
            unexpected: a[5],
            unsuccessful_matches: a[6],
            compute_ns: a[7],
            blocked_ns: a[8],
            slept_ns: a[9],
            finalize_srt_ns: a[10],
            compute_cpu_ns: a[11],
            compute_wall_ns: a[12],
            compute_late_max_ns: a[13],
            compute_late_max_at_ns: a[14],
            compute_lateness: LatenessHistogram::default(),
            rma_operations: a[15],
            rma_bytes: a[16],
            below_threshold: a[17],
            below_threshold_ns: a[18],
            polls: a[19],
            init_srt_ns: a[20],
        }
    }
}

/// One protocol frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    /// Shim → gateway, first frame: who is connecting.
    Hello {
        /// Must equal [`VERSION`].
        version: u16,
        /// The rank.
        rank: u32,
        /// Ranks in the job as the shim sees it.
        size: u32,
        /// Process id.
        pid: u32,
        /// Job id from the environment.
        job: u64,
        /// The job secret from the environment.
        secret: JobSecret,
    },
    /// Gateway → shim: accepted; the job's time parameters.
    Welcome {
        /// Must equal [`VERSION`].
        version: u16,
        /// Time factor: wall time = factor × scaled real time.
        factor: f64,
        /// CLOCK_MONOTONIC time of the job's epoch, ns.
        epoch_ns: u64,
        /// Messages above this many payload bytes use rendezvous.
        eager_limit: u64,
        /// The factor may change during the run ([`Frame::Factor`]); the
        /// rank then checks for changes at every MPI call.
        adaptive: bool,
        /// The job runs on the analytic network model: the rank reports
        /// each collective as one [`Frame::Collective`] and sends the
        /// collective's data as [`Frame::CollectiveData`].
        analytic: bool,
        /// The simulated node the rank runs on (ranks on one node share
        /// memory: `MPI_COMM_TYPE_SHARED`).
        node: u32,
        /// How the rank measures its computation between MPI calls.
        compute_clock: ComputeClock,
        /// Speed of the rank's emulated CPU relative to this machine's
        /// (0.5: computation takes twice as long).
        cpu_speed: f64,
        /// Computations measured shorter than this are not counted (the
        /// host's `cpu_threshold`), ns.
        cpu_threshold_ns: u64,
        /// Emulated cost of a test or probe that completes or finds
        /// nothing (the host's `poll_cost`), ns.
        poll_ns: u64,
    },
    /// Shim → gateway: a clock probe sent at `t1_ns` on the rank's
    /// CLOCK_MONOTONIC (see [`ClockSample`]).
    ClockProbe {
        /// Rank's clock when the probe was written, ns.
        t1_ns: u64,
    },
    /// Gateway → shim: the answer to a probe.
    ClockReply {
        /// The probe's `t1_ns`, echoed.
        t1_ns: u64,
        /// Gateway's clock when it read the probe, ns.
        t2_ns: u64,
        /// Gateway's clock when it wrote this reply, ns.
        t3_ns: u64,
    },
    /// Shim → gateway: the offset the rank applies to its clock now, and
    /// its uncertainty (for the report and maxBehind).
    ClockOffset {
        /// Gateway clock − rank clock, ns.
        offset_ns: i64,
        /// Half the round trip of the sample it came from, ns.
        uncertainty_ns: u64,
    },
    /// Gateway → shim: from scaled time `at_srt_ns` on, the time factor is
    /// `factor` (see [`ScaledClock::change`]).
    Factor {
        /// SRT of the switch, ns.
        at_srt_ns: u64,
        /// The new factor.
        factor: f64,
    },
    /// Shim → gateway: a message for rank `dst`, sent at scaled time `srt_ns`.
    Send {
        /// Destination rank.
        dst: u32,
        /// Scaled real time of the sending call, ns.
        srt_ns: u64,
        /// The message (the shim's envelope and payload; opaque here).
        bytes: Vec<u8>,
    },
    /// Gateway → shim: a message from `src` that arrived at virtual time `vtime_ns`.
    Deliver {
        /// Source rank.
        src: u32,
        /// Virtual arrival time, ns.
        vtime_ns: u64,
        /// The message as sent.
        bytes: Vec<u8>,
    },
    /// Shim → gateway: MPI_Finalize with the rank's counters.
    Finalize(RankCounters),
    /// Gateway → shim: finalize recorded; the rank may exit.
    FinalizeAck,
    /// Either direction: the job is aborted with this code and reason.
    Abort {
        /// Exit code requested.
        code: i32,
        /// One line of explanation.
        text: String,
    },
    /// Shim → gateway, analytic model only: a message carrying a
    /// collective's data. The gateway delivers it at `srt_ns` without
    /// network timing: the collective's [`Frame::Collective`] is timed.
    CollectiveData {
        /// Destination rank.
        dst: u32,
        /// Scaled real time of the sending call, ns.
        srt_ns: u64,
        /// The message (opaque here).
        bytes: Vec<u8>,
    },
    /// Shim → gateway, analytic model only: this rank entered a collective
    /// at `srt_ns`; it waits for [`Frame::CollectiveDone`].
    Collective {
        /// The communicator's collective context id.
        context: u32,
        /// World rank of the communicator's rank 0.
        leader: u32,
        /// Collectives this rank called on the communicator before.
        seq: u32,
        /// Operation code (netsim's `CollectiveOp` discriminant).
        op: u8,
        /// Members of the communicator.
        members: u32,
        /// This rank is the operation's root.
        is_root: bool,
        /// Bytes of the call's send arguments (count × type size).
        sent_bytes: u64,
        /// Bytes of the call's receive arguments.
        received_bytes: u64,
        /// Scaled real time the rank entered the call, ns.
        srt_ns: u64,
    },
    /// Gateway → shim, analytic model only: the collective
    /// (`context`, `leader`, `seq` of its [`Frame::Collective`]) ended at
    /// virtual time `vtime_ns`.
    CollectiveDone {
        /// The communicator's collective context id.
        context: u32,
        /// World rank of the communicator's rank 0.
        leader: u32,
        /// The collective's sequence number.
        seq: u32,
        /// Virtual end time, ns.
        vtime_ns: u64,
    },
    /// Shim → gateway: an MPI call has waited a while (200 ms of wall
    /// time) with nothing arriving. The gateway reports a job whose ranks
    /// all wait, with nothing in flight, as stalled (a deadlock).
    Waiting {
        /// The MPI function the program is in (e.g. `MPI_Recv`).
        call: String,
        /// A receive from `MPI_ANY_SOURCE` is among what it waits for.
        any_source: bool,
        /// World ranks its unfinished operations wait for, ascending (at
        /// most [`MAX_WAITING_PEERS`]).
        peers: Vec<u32>,
        /// There were more peers than listed.
        more_peers: bool,
        /// Deliver and CollectiveDone frames the rank had read when it
        /// sent this: fewer than the gateway sent means one is on its way
        /// (the rank will not wait long), so the gateway ignores it.
        wakeups: u64,
    },
    /// Gateway → shim: the rank's Abort is recorded; it may exit.
    AbortAck,
    /// Shim → gateway, adaptive runs only: the rank's computations ran up
    /// to `late_ns` of scaled time late since its previous ComputeLate
    /// (they waited for a CPU), so the factor controller can raise the
    /// factor during the run (the full distribution comes with Finalize).
    ComputeLate {
        /// Largest lateness since the previous frame, scaled ns.
        late_ns: u64,
    },
    /// Shim → gateway: the root of an `MPI_Comm_spawn` asks for new
    /// processes at scaled time `srt_ns`; the gateway answers
    /// [`Frame::Spawned`].
    Spawn {
        /// Scaled real time of the call, ns.
        srt_ns: u64,
        /// The request ([`spawn::SpawnRequest::encode`]).
        request: Vec<u8>,
    },
    /// Gateway → shim: the answer to [`Frame::Spawn`].
    Spawned {
        /// Rank of the first new process (the others follow it).
        first: u32,
        /// Processes started (0 when `error` is set).
        count: u32,
        /// Why nothing was started; empty on success.
        error: String,
    },
}

/// Why bytes could not be decoded into a frame.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// Length prefix above [`MAX_FRAME_BODY`].
    #[error("frame of {0} bytes exceeds the {MAX_FRAME_BODY}-byte limit")]
    TooLarge(usize),
    /// Zero-length body.
    #[error("empty frame")]
    Empty,
    /// Unknown kind byte.
    #[error("unknown frame kind {0}")]
    UnknownKind(u8),
    /// Body shorter than its fields.
    #[error("frame kind {0} is truncated")]
    Truncated(u8),
    /// Body longer than its fields.
    #[error("frame kind {0} has {1} trailing bytes")]
    Trailing(u8, usize),
    /// Abort text not UTF-8.
    #[error("abort text is not UTF-8")]
    BadText,
    /// A count or length beyond what the frame kind allows.
    #[error("frame kind {0} has a field out of range")]
    OutOfRange(u8),
}

const K_HELLO: u8 = 1;
const K_WELCOME: u8 = 2;
const K_SEND: u8 = 3;
const K_DELIVER: u8 = 4;
const K_FINALIZE: u8 = 5;
const K_FINALIZE_ACK: u8 = 6;
const K_ABORT: u8 = 7;
const K_FACTOR: u8 = 8;
const K_CLOCK_PROBE: u8 = 9;
const K_CLOCK_REPLY: u8 = 10;
const K_CLOCK_OFFSET: u8 = 11;
const K_COLLECTIVE_DATA: u8 = 32;
const K_COLLECTIVE: u8 = 33;
const K_COLLECTIVE_DONE: u8 = 34;
const K_WAITING: u8 = 12;
const K_ABORT_ACK: u8 = 13;
const K_COMPUTE_LATE: u8 = 14;
const K_SPAWN: u8 = 15;
const K_SPAWNED: u8 = 16;

impl Frame {
    /// Appends the frame, length prefix included, to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        match self {
            Frame::Hello {
                version,
                rank,
                size,
                pid,
                job,
                secret,
            } => {
                out.push(K_HELLO);
                out.extend_from_slice(&version.to_le_bytes());
                out.extend_from_slice(&rank.to_le_bytes());
                out.extend_from_slice(&size.to_le_bytes());
                out.extend_from_slice(&pid.to_le_bytes());
                out.extend_from_slice(&job.to_le_bytes());
                out.extend_from_slice(&secret.0.to_le_bytes());
            }
            Frame::ClockProbe { t1_ns } => {
                out.push(K_CLOCK_PROBE);
                out.extend_from_slice(&t1_ns.to_le_bytes());
            }
            Frame::ClockReply {
                t1_ns,
                t2_ns,
                t3_ns,
            } => {
                out.push(K_CLOCK_REPLY);
                for v in [t1_ns, t2_ns, t3_ns] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            Frame::ClockOffset {
                offset_ns,
                uncertainty_ns,
            } => {
                out.push(K_CLOCK_OFFSET);
                out.extend_from_slice(&offset_ns.to_le_bytes());
                out.extend_from_slice(&uncertainty_ns.to_le_bytes());
            }
            Frame::Welcome {
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
            } => {
                out.push(K_WELCOME);
                out.extend_from_slice(&version.to_le_bytes());
                out.extend_from_slice(&factor.to_le_bytes());
                out.extend_from_slice(&epoch_ns.to_le_bytes());
                out.extend_from_slice(&eager_limit.to_le_bytes());
                out.push(*adaptive as u8);
                out.push(*analytic as u8);
                out.extend_from_slice(&node.to_le_bytes());
                out.push(compute_clock.to_u8());
                out.extend_from_slice(&cpu_speed.to_le_bytes());
                out.extend_from_slice(&cpu_threshold_ns.to_le_bytes());
                out.extend_from_slice(&poll_ns.to_le_bytes());
            }
            Frame::Factor { at_srt_ns, factor } => {
                out.push(K_FACTOR);
                out.extend_from_slice(&at_srt_ns.to_le_bytes());
                out.extend_from_slice(&factor.to_le_bytes());
            }
            Frame::Send { dst, srt_ns, bytes } => {
                out.push(K_SEND);
                out.extend_from_slice(&dst.to_le_bytes());
                out.extend_from_slice(&srt_ns.to_le_bytes());
                out.extend_from_slice(bytes);
            }
            Frame::Deliver {
                src,
                vtime_ns,
                bytes,
            } => {
                out.truncate(start);
                encode_deliver(*src, *vtime_ns, bytes, out);
                return;
            }
            Frame::Finalize(c) => {
                out.push(K_FINALIZE);
                for v in c.to_array() {
                    out.extend_from_slice(&v.to_le_bytes());
                }
                c.compute_lateness.encode(out);
            }
            Frame::FinalizeAck => out.push(K_FINALIZE_ACK),
            Frame::Abort { code, text } => {
                out.push(K_ABORT);
                out.extend_from_slice(&code.to_le_bytes());
                out.extend_from_slice(text.as_bytes());
            }
            Frame::CollectiveData { dst, srt_ns, bytes } => {
                out.push(K_COLLECTIVE_DATA);
                out.extend_from_slice(&dst.to_le_bytes());
                out.extend_from_slice(&srt_ns.to_le_bytes());
                out.extend_from_slice(bytes);
            }
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
            } => {
                out.push(K_COLLECTIVE);
                out.extend_from_slice(&context.to_le_bytes());
                out.extend_from_slice(&leader.to_le_bytes());
                out.extend_from_slice(&seq.to_le_bytes());
                out.push(*op);
                out.extend_from_slice(&members.to_le_bytes());
                out.push(*is_root as u8);
                out.extend_from_slice(&sent_bytes.to_le_bytes());
                out.extend_from_slice(&received_bytes.to_le_bytes());
                out.extend_from_slice(&srt_ns.to_le_bytes());
            }
            Frame::CollectiveDone {
                context,
                leader,
                seq,
                vtime_ns,
            } => {
                out.push(K_COLLECTIVE_DONE);
                out.extend_from_slice(&context.to_le_bytes());
                out.extend_from_slice(&leader.to_le_bytes());
                out.extend_from_slice(&seq.to_le_bytes());
                out.extend_from_slice(&vtime_ns.to_le_bytes());
            }
            Frame::Waiting {
                call,
                any_source,
                peers,
                more_peers,
                wakeups,
            } => {
                out.push(K_WAITING);
                out.extend_from_slice(&wakeups.to_le_bytes());
                let name = &call.as_bytes()[..call.len().min(MAX_CALL_NAME)];
                out.push(name.len() as u8);
                out.extend_from_slice(name);
                out.push(*any_source as u8 | (*more_peers as u8) << 1);
                let listed = &peers[..peers.len().min(MAX_WAITING_PEERS)];
                out.extend_from_slice(&(listed.len() as u32).to_le_bytes());
                for p in listed {
                    out.extend_from_slice(&p.to_le_bytes());
                }
            }
            Frame::AbortAck => out.push(K_ABORT_ACK),
            Frame::ComputeLate { late_ns } => {
                out.push(K_COMPUTE_LATE);
                out.extend_from_slice(&late_ns.to_le_bytes());
            }
            Frame::Spawn { srt_ns, request } => {
                out.push(K_SPAWN);
                out.extend_from_slice(&srt_ns.to_le_bytes());
                out.extend_from_slice(request);
            }
            Frame::Spawned {
                first,
                count,
                error,
            } => {
                out.push(K_SPAWNED);
                out.extend_from_slice(&first.to_le_bytes());
                out.extend_from_slice(&count.to_le_bytes());
                out.extend_from_slice(error.as_bytes());
            }
        }
        let len = (out.len() - start - LENGTH_PREFIX) as u32;
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }

    /// The frame kind's name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Frame::Hello { .. } => "Hello",
            Frame::Welcome { .. } => "Welcome",
            Frame::ClockProbe { .. } => "ClockProbe",
            Frame::ClockReply { .. } => "ClockReply",
            Frame::ClockOffset { .. } => "ClockOffset",
            Frame::Factor { .. } => "Factor",
            Frame::Send { .. } => "Send",
            Frame::Deliver { .. } => "Deliver",
            Frame::Finalize(_) => "Finalize",
            Frame::FinalizeAck => "FinalizeAck",
            Frame::Abort { .. } => "Abort",
            Frame::CollectiveData { .. } => "CollectiveData",
            Frame::Collective { .. } => "Collective",
            Frame::CollectiveDone { .. } => "CollectiveDone",
            Frame::Waiting { .. } => "Waiting",
            Frame::AbortAck => "AbortAck",
            Frame::ComputeLate { .. } => "ComputeLate",
            Frame::Spawn { .. } => "Spawn",
            Frame::Spawned { .. } => "Spawned",
        }
    }

    /// The frame as a new byte vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.encode(&mut v);
        v
    }

    /// Tries to take one frame from the front of `buf`. Returns the frame
    /// and the bytes it used, `Ok(None)` when more bytes are needed.
    pub fn decode(buf: &[u8]) -> Result<Option<(Frame, usize)>, DecodeError> {
        if buf.len() < LENGTH_PREFIX {
            return Ok(None);
        }
        let len = u32::from_le_bytes(buf[..4].try_into().unwrap()) as usize;
        if len > MAX_FRAME_BODY {
            return Err(DecodeError::TooLarge(len));
        }
        if len == 0 {
            return Err(DecodeError::Empty);
        }
        if buf.len() < LENGTH_PREFIX + len {
            return Ok(None);
        }
        let body = &buf[LENGTH_PREFIX..LENGTH_PREFIX + len];
        let frame = Self::decode_body(body)?;
        Ok(Some((frame, LENGTH_PREFIX + len)))
    }

    /// Decodes one frame body (without the length prefix).
    pub fn decode_body(body: &[u8]) -> Result<Frame, DecodeError> {
        let kind = body[0];
        let mut r = Reader {
            buf: &body[1..],
            kind,
        };
        let frame = match kind {
            K_HELLO => Frame::Hello {
                version: r.u16()?,
                rank: r.u32()?,
                size: r.u32()?,
                pid: r.u32()?,
                job: r.u64()?,
                secret: JobSecret(u128::from_le_bytes(r.take()?)),
            },
            K_CLOCK_PROBE => Frame::ClockProbe { t1_ns: r.u64()? },
            K_CLOCK_REPLY => Frame::ClockReply {
                t1_ns: r.u64()?,
                t2_ns: r.u64()?,
                t3_ns: r.u64()?,
            },
            K_CLOCK_OFFSET => Frame::ClockOffset {
                offset_ns: r.u64()? as i64,
                uncertainty_ns: r.u64()?,
            },
            K_WELCOME => Frame::Welcome {
                version: r.u16()?,
                factor: f64::from_bits(r.u64()?),
                epoch_ns: r.u64()?,
                eager_limit: r.u64()?,
                adaptive: r.u8()? != 0,
                analytic: r.u8()? != 0,
                node: r.u32()?,
                compute_clock: ComputeClock::from_u8(r.u8()?)
                    .ok_or(DecodeError::OutOfRange(kind))?,
                cpu_speed: f64::from_bits(r.u64()?),
                cpu_threshold_ns: r.u64()?,
                poll_ns: r.u64()?,
            },
            K_FACTOR => Frame::Factor {
                at_srt_ns: r.u64()?,
                factor: f64::from_bits(r.u64()?),
            },
            K_SEND => Frame::Send {
                dst: r.u32()?,
                srt_ns: r.u64()?,
                bytes: r.rest(),
            },
            K_DELIVER => Frame::Deliver {
                src: r.u32()?,
                vtime_ns: r.u64()?,
                bytes: r.rest(),
            },
            K_FINALIZE => {
                let mut a = [0u64; RankCounters::FIELDS];
                for v in &mut a {
                    *v = r.u64()?;
                }
                let mut counters = RankCounters::from_array(a);
                let n = r.u16()? as usize;
                if n > LATENESS_BUCKETS {
                    return Err(DecodeError::OutOfRange(kind));
                }
                let pairs = (0..n)
                    .map(|_| Ok((r.u16()?, r.u64()?)))
                    .collect::<Result<Vec<_>, DecodeError>>()?;
                counters.compute_lateness = LatenessHistogram::from_pairs(pairs.into_iter())
                    .ok_or(DecodeError::OutOfRange(kind))?;
                Frame::Finalize(counters)
            }
            K_FINALIZE_ACK => Frame::FinalizeAck,
            K_ABORT => {
                let code = r.u32()? as i32;
                let text = String::from_utf8(r.rest()).map_err(|_| DecodeError::BadText)?;
                Frame::Abort { code, text }
            }
            K_COLLECTIVE_DATA => Frame::CollectiveData {
                dst: r.u32()?,
                srt_ns: r.u64()?,
                bytes: r.rest(),
            },
            K_COLLECTIVE => Frame::Collective {
                context: r.u32()?,
                leader: r.u32()?,
                seq: r.u32()?,
                op: r.u8()?,
                members: r.u32()?,
                is_root: r.u8()? != 0,
                sent_bytes: r.u64()?,
                received_bytes: r.u64()?,
                srt_ns: r.u64()?,
            },
            K_COLLECTIVE_DONE => Frame::CollectiveDone {
                context: r.u32()?,
                leader: r.u32()?,
                seq: r.u32()?,
                vtime_ns: r.u64()?,
            },
            K_WAITING => {
                let wakeups = r.u64()?;
                let len = r.u8()? as usize;
                if len > MAX_CALL_NAME {
                    return Err(DecodeError::OutOfRange(kind));
                }
                let name = r.bytes(len)?;
                let call = String::from_utf8(name).map_err(|_| DecodeError::BadText)?;
                let flags = r.u8()?;
                let n = r.u32()? as usize;
                if n > MAX_WAITING_PEERS {
                    return Err(DecodeError::OutOfRange(kind));
                }
                let peers = (0..n).map(|_| r.u32()).collect::<Result<_, _>>()?;
                Frame::Waiting {
                    call,
                    any_source: flags & 1 != 0,
                    peers,
                    more_peers: flags & 2 != 0,
                    wakeups,
                }
            }
            K_ABORT_ACK => Frame::AbortAck,
            K_COMPUTE_LATE => Frame::ComputeLate { late_ns: r.u64()? },
            K_SPAWN => Frame::Spawn {
                srt_ns: r.u64()?,
                request: r.rest(),
            },
            K_SPAWNED => Frame::Spawned {
                first: r.u32()?,
                count: r.u32()?,
                error: String::from_utf8(r.rest()).map_err(|_| DecodeError::BadText)?,
            },
            k => return Err(DecodeError::UnknownKind(k)),
        };
        if !r.buf.is_empty() {
            return Err(DecodeError::Trailing(kind, r.buf.len()));
        }
        Ok(frame)
    }
}

/// Appends a Deliver frame (length prefix included) built from borrowed
/// bytes: the gateway's hot path need not own a message to send it.
pub fn encode_deliver(src: u32, vtime_ns: u64, bytes: &[u8], out: &mut Vec<u8>) {
    let len = (1 + 4 + 8 + bytes.len()) as u32;
    out.reserve(LENGTH_PREFIX + len as usize);
    out.extend_from_slice(&len.to_le_bytes());
    out.push(K_DELIVER);
    out.extend_from_slice(&src.to_le_bytes());
    out.extend_from_slice(&vtime_ns.to_le_bytes());
    out.extend_from_slice(bytes);
}

struct Reader<'a> {
    buf: &'a [u8],
    kind: u8,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        if self.buf.len() < N {
            return Err(DecodeError::Truncated(self.kind));
        }
        let (a, b) = self.buf.split_at(N);
        self.buf = b;
        Ok(a.try_into().unwrap())
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.take()?))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.take()?))
    }
    fn bytes(&mut self, n: usize) -> Result<Vec<u8>, DecodeError> {
        if self.buf.len() < n {
            return Err(DecodeError::Truncated(self.kind));
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a.to_vec())
    }
    fn rest(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf).to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        let frames = vec![
            Frame::Hello {
                version: VERSION,
                rank: 3,
                size: 4,
                pid: 1234,
                job: 99,
                secret: JobSecret(0xfeed_beef << 64 | 7),
            },
            Frame::ClockProbe { t1_ns: 11 },
            Frame::ClockReply {
                t1_ns: 11,
                t2_ns: 1 << 40,
                t3_ns: (1 << 40) + 5,
            },
            Frame::ClockOffset {
                offset_ns: -42_000,
                uncertainty_ns: 3_000,
            },
            Frame::Welcome {
                version: VERSION,
                factor: 2.5,
                epoch_ns: 77,
                eager_limit: 65536,
                adaptive: true,
                analytic: true,
                node: 3,
                compute_clock: ComputeClock::Wall,
                cpu_speed: 0.5,
                cpu_threshold_ns: 2_000,
                poll_ns: 20,
            },
            Frame::Factor {
                at_srt_ns: 123,
                factor: 8.0,
            },
            Frame::Send {
                dst: 1,
                srt_ns: 5,
                bytes: vec![1, 2, 3],
            },
            Frame::Deliver {
                src: 0,
                vtime_ns: 6,
                bytes: vec![],
            },
            Frame::Finalize(RankCounters {
                calls: 1,
                unexpected: 7,
                finalize_srt_ns: 9,
                init_srt_ns: 4,
                compute_cpu_ns: 10,
                compute_late_max_at_ns: 11,
                compute_lateness: {
                    let mut h = LatenessHistogram::default();
                    h.record(0);
                    h.record(123_456);
                    h
                },
                ..Default::default()
            }),
            Frame::FinalizeAck,
            Frame::Abort {
                code: 7,
                text: "rank 2 called MPI_Abort".into(),
            },
            Frame::CollectiveData {
                dst: 2,
                srt_ns: 11,
                bytes: vec![9; 5],
            },
            Frame::Collective {
                context: 5,
                leader: 1,
                seq: 3,
                op: 4,
                members: 6,
                is_root: true,
                sent_bytes: 800,
                received_bytes: 1600,
                srt_ns: 12,
            },
            Frame::CollectiveDone {
                context: 5,
                leader: 2,
                seq: 9,
                vtime_ns: 13,
            },
            Frame::Waiting {
                call: "MPI_Recv".into(),
                any_source: true,
                peers: vec![1, 7],
                more_peers: false,
                wakeups: 12,
            },
            Frame::Waiting {
                call: String::new(),
                any_source: false,
                peers: vec![],
                more_peers: true,
                wakeups: 0,
            },
            Frame::AbortAck,
            Frame::ComputeLate { late_ns: 42_000 },
            Frame::Spawn {
                srt_ns: 14,
                request: vec![1, 2, 3],
            },
            Frame::Spawned {
                first: 4,
                count: 2,
                error: String::new(),
            },
            Frame::Spawned {
                first: 0,
                count: 0,
                error: "no such program".into(),
            },
        ];
        let mut buf = Vec::new();
        for f in &frames {
            f.encode(&mut buf);
        }
        let mut off = 0;
        for f in &frames {
            let (g, used) = Frame::decode(&buf[off..]).unwrap().unwrap();
            assert_eq!(&g, f);
            off += used;
        }
        assert_eq!(off, buf.len());
        // A partial frame asks for more.
        assert_eq!(Frame::decode(&buf[..3]).unwrap(), None);
    }

    #[test]
    fn frame_sizes_on_the_wire() {
        // Length prefix 4 + kind 1 + fields (docs/distributed.md lists these).
        let hello = Frame::Hello {
            version: VERSION,
            rank: 0,
            size: 1,
            pid: 1,
            job: 1,
            secret: JobSecret(1),
        };
        assert_eq!(hello.to_bytes().len(), 4 + 1 + 2 + 4 + 4 + 4 + 8 + 16);
        assert!(hello.to_bytes().len() - LENGTH_PREFIX <= MAX_HELLO_BODY);
        assert_eq!(Frame::ClockProbe { t1_ns: 0 }.to_bytes().len(), 13);
        let reply = Frame::ClockReply {
            t1_ns: 0,
            t2_ns: 0,
            t3_ns: 0,
        };
        assert_eq!(reply.to_bytes().len(), 29);
        let offset = Frame::ClockOffset {
            offset_ns: 0,
            uncertainty_ns: 0,
        };
        assert_eq!(offset.to_bytes().len(), 21);
        let send = Frame::Send {
            dst: 0,
            srt_ns: 0,
            bytes: vec![0; 100],
        };
        assert_eq!(send.to_bytes().len(), 17 + 100);
        let mut d = Vec::new();
        encode_deliver(0, 0, &[0; 100], &mut d);
        assert_eq!(d.len(), 17 + 100);
        let welcome = Frame::Welcome {
            version: VERSION,
            factor: 1.0,
            epoch_ns: 0,
            eager_limit: 0,
            adaptive: false,
            analytic: false,
            node: 0,
            compute_clock: ComputeClock::Cpu,
            cpu_speed: 1.0,
            cpu_threshold_ns: 0,
            poll_ns: 0,
        };
        assert_eq!(welcome.to_bytes().len(), 62);
        let mut counters = RankCounters::default();
        assert_eq!(Frame::Finalize(counters.clone()).to_bytes().len(), 175);
        counters.compute_lateness.record(0);
        counters.compute_lateness.record(1_000_000);
        assert_eq!(Frame::Finalize(counters).to_bytes().len(), 175 + 2 * 10);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert_eq!(Frame::decode(&[0, 0, 0, 0]), Err(DecodeError::Empty));
        assert_eq!(
            Frame::decode(&[1, 0, 0, 0, 99]),
            Err(DecodeError::UnknownKind(99))
        );
        assert_eq!(
            Frame::decode(&[2, 0, 0, 0, K_HELLO, 1]),
            Err(DecodeError::Truncated(K_HELLO))
        );
        assert_eq!(
            Frame::decode(&[2, 0, 0, 0, K_FINALIZE_ACK, 1]),
            Err(DecodeError::Trailing(K_FINALIZE_ACK, 1))
        );
        assert!(matches!(
            Frame::decode(&[0xff, 0xff, 0xff, 0xff]),
            Err(DecodeError::TooLarge(_))
        ));
        // Every 1- and 2-byte body decodes to Ok or Err, never panics.
        for a in 0..=255u8 {
            for b in [0u8, 1, 255] {
                let _ = Frame::decode(&[2, 0, 0, 0, a, b]);
            }
            let _ = Frame::decode(&[1, 0, 0, 0, a]);
        }
    }
}
