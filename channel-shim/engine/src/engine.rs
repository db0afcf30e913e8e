//! The façade the C layer calls: one [`Engine`] per process owns the
//! transport and every table (communicators, groups, datatypes, ops,
//! requests, matching queues), and runs the protocols.
//!
//! This module holds the engine's state, its counters and the protocol
//! core (eager, rendezvous, synchronous acks, progress); the MPI calls
//! are in `p2p`, `collectives` and `comm_ops`.

use crate::attr::Attributes;
use crate::comm::{CommId, Comms};
use crate::datatype::{DatatypeId, Datatypes};
use crate::envelope::{CallCode, Envelope, Kind, FLAG_SYNC};
use crate::errhandler::Errhandlers;
use crate::error::{MpiError, MpiResult};
use crate::error_codes::ErrorCodes;
use crate::group::Groups;
use crate::info::CommHints;
use crate::matching::{Arrived, MatchQueues, Pattern, Posted, Source, Tag};
use crate::message_data::MessageData;
use crate::mprobe::ProbedMessages;
use crate::names::Names;
use crate::op::Ops;
use crate::rendezvous::OutStream;
use crate::request::{
    OnDone, Pending, Persist, RecvPhase, Request, RequestId, Requests, SendMode, SentMessage, State,
};
use crate::status::{Completion, Status};
use crate::topo::Topologies;
use crate::transport::{Incoming, Transport};
use std::collections::HashMap;

/// Message-size thresholds of the collective algorithms (bytes), with
/// MPICH's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollThresholds {
    /// Bcast: binomial tree below this (MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288).
    pub bcast_short: u64,
    /// Bcast: scatter + recursive-doubling allgather below this when the size
    /// is a power of two, else scatter + ring (BCAST_LONG_MSG_SIZE = 524288).
    pub bcast_long: u64,
    /// Bcast: binomial tree always below this many ranks (BCAST_MIN_PROCS = 8).
    pub bcast_min_procs: u32,
    /// Allreduce: recursive doubling up to this, Rabenseifner above for
    /// commutative ops (ALLREDUCE_SHORT_MSG_SIZE = 2048).
    pub allreduce_short: u64,
    /// Alltoall: Bruck up to this per block with >= 8 ranks (ALLTOALL_SHORT_MSG_SIZE = 256).
    pub alltoall_short: u64,
    /// Alltoall: all isend/irecv at once up to this per block, pairwise
    /// exchange above (ALLTOALL_MEDIUM_MSG_SIZE = 32768).
    pub alltoall_medium: u64,
    /// Allgather: Bruck below this total for non-powers of two
    /// (ALLGATHER_SHORT_MSG_SIZE = 81920).
    pub allgather_short: u64,
    /// Allgather: recursive doubling below this total for powers of two,
    /// ring above (ALLGATHER_LONG_MSG_SIZE = 524288).
    pub allgather_long: u64,
    /// Intercommunicator gather and scatter: through the receiving
    /// group's rank 0 below this total, linear above
    /// (GATHER_INTER_SHORT_MSG_SIZE, SCATTER_INTER_SHORT_MSG_SIZE = 2048).
    pub inter_short: u64,
}

impl Default for CollThresholds {
    fn default() -> Self {
        CollThresholds {
            bcast_short: 12288,
            bcast_long: 524288,
            bcast_min_procs: 8,
            allreduce_short: 2048,
            alltoall_short: 256,
            alltoall_medium: 32768,
            allgather_short: 81920,
            allgather_long: 524288,
            inter_short: 2048,
        }
    }
}

/// Engine settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Overrides `Transport::eager_limit` when set.
    pub eager_limit: Option<u64>,
    /// Largest valid tag (`MPI_TAG_UB`).
    pub tag_ub: i32,
    /// Collective algorithm thresholds.
    pub coll: CollThresholds,
    /// Largest piece of rendezvous data one message carries, bytes; also
    /// the largest eager message, whatever the eager limit.
    pub rendezvous_chunk: u64,
    /// Pieces of one rendezvous transfer the sender may have sent and not
    /// yet seen acknowledged.
    pub rendezvous_window: u32,
}

/// Default [`EngineConfig::rendezvous_chunk`]: 1 MiB.
pub const RENDEZVOUS_CHUNK: u64 = 1 << 20;

/// Default [`EngineConfig::rendezvous_window`]: 8 pieces, so one transfer
/// keeps a network with a bandwidth-delay product up to 8 MiB busy (1 Gbps
/// up to 67 ms round trip, 10 Gbps up to 6.7 ms).
pub const RENDEZVOUS_WINDOW: u32 = 8;

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            eager_limit: None,
            tag_ub: i32::MAX,
            coll: CollThresholds::default(),
            rendezvous_chunk: RENDEZVOUS_CHUNK,
            rendezvous_window: RENDEZVOUS_WINDOW,
        }
    }
}

/// Per-process counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// MPI calls made through the engine.
    pub calls: u64,
    /// Messages handed to the transport (every protocol message).
    pub messages_sent: u64,
    /// Bytes handed to the transport, headers included.
    pub bytes_sent: u64,
    /// Messages received from the transport.
    pub messages_received: u64,
    /// Bytes received from the transport, headers included.
    pub bytes_received: u64,
    /// Matches where the message arrived after the receive was posted.
    pub expected: u64,
    /// Matches where the message arrived before the receive was posted.
    pub unexpected: u64,
    /// Queue entries examined without matching.
    pub unsuccessful_matches: u64,
    /// Received messages that were not valid envelopes (dropped).
    pub bad_messages: u64,
    /// One-sided operations this process issued (put, get, the
    /// accumulates, fetch-and-op, compare-and-swap; `MPI_PROC_NULL`
    /// targets not counted).
    pub rma_operations: u64,
    /// Bytes of target memory those operations covered.
    pub rma_bytes: u64,
}

/// A message in the unexpected queue: its envelope and payload.
#[derive(Clone, Debug)]
pub(crate) struct Msg {
    pub env: Envelope,
    pub payload: Vec<u8>,
    /// The transport's name for it (see [`Transport::taken_token`]).
    pub token: u64,
}

/// The MPI engine of one process.
pub struct Engine<T: Transport> {
    pub(crate) t: T,
    pub(crate) cfg: EngineConfig,
    pub(crate) types: Datatypes,
    pub(crate) ops: Ops,
    pub(crate) comms: Comms,
    pub(crate) groups: Groups,
    pub(crate) reqs: Requests,
    pub(crate) queues: MatchQueues<RequestId, Msg>,
    pub(crate) topos: Topologies,
    seq: HashMap<(u32, u32), u32>,
    next_op: u32,
    /// Rendezvous sends waiting for their CTS, by sender op.
    pub(crate) rdv_send: HashMap<u32, RequestId>,
    /// Rendezvous sends streaming their data, by sender op.
    pub(crate) streams_out: HashMap<u32, OutStream>,
    /// Rendezvous receives waiting for data, by receiver op.
    pub(crate) rdv_recv: HashMap<u32, RequestId>,
    pub(crate) sync_send: HashMap<u32, RequestId>,
    /// Sends whose cancel request awaits its reply, by cancel op.
    pub(crate) cancels: HashMap<u32, RequestId>,
    /// Messages taken from the unexpected queue by `MPI_(I)mprobe`.
    pub(crate) probed: ProbedMessages,
    /// The attached buffer for buffered sends: (address, size). The engine
    /// copies messages itself, so only the size is used; the address is
    /// what `MPI_Buffer_detach` hands back.
    pub(crate) bsend_attached: Option<(usize, usize)>,
    pub(crate) bsend_used: usize,
    pub(crate) counters: Counters,
    /// Started collectives that have not finished, in start order.
    pub(crate) tasks: Vec<(RequestId, crate::collectives::task::Task)>,
    pub(crate) attrs: Attributes,
    pub(crate) errhandlers: Errhandlers,
    pub(crate) error_codes: ErrorCodes,
    pub(crate) names: Names,
    /// Hints set on communicators (`MPI_Comm_set_info`); absent: none asserted.
    pub(crate) comm_hints: HashMap<CommId, CommHints>,
    /// The collective sequence number a persistent collective reserved at
    /// its init call, for the collective its start begins on that
    /// communicator (see `persistent_coll`).
    pub(crate) persistent_seq: Option<(CommId, u32)>,
    /// One-sided communication: windows and operations in flight.
    pub(crate) rma: crate::rma::RmaState,
    /// MPI 4.0 sessions open in this process.
    pub(crate) sessions: crate::session::Sessions,
    /// MPI-IO: the open files.
    pub(crate) files: crate::io::Files,
    /// MPI 4.0 partitioned requests.
    pub(crate) part: crate::partitioned::Partitioned,
    /// The ports this process opened (`MPI_Open_port`).
    pub(crate) ports: crate::ports::Ports,
    /// Dynamic processes: the parent intercommunicator, the last refusal.
    pub(crate) spawn: crate::spawn::SpawnState,
    /// Communicators revoked here (`MPIX_Comm_revoke`).
    pub(crate) revoked: crate::revoke::Revocations,
}

impl<T: Transport> std::fmt::Debug for Engine<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("rank", &self.t.rank())
            .field("size", &self.t.size())
            .field("counters", &self.counters())
            .finish()
    }
}

/// `MPI_BSEND_OVERHEAD` of MPICH: bytes of attached buffer each buffered
/// message costs on top of its data.
pub const BSEND_OVERHEAD: usize = 96;

impl<T: Transport> Engine<T> {
    /// An engine for this process, with world and self communicators.
    pub fn new(transport: T, cfg: EngineConfig) -> Engine<T> {
        let comms = Comms::new(transport.rank(), transport.world());
        Engine {
            t: transport,
            cfg,
            types: Datatypes::new(),
            ops: Ops::new(),
            comms,
            groups: Groups::new(),
            reqs: Requests::default(),
            queues: MatchQueues::new(),
            topos: Topologies::default(),
            seq: HashMap::new(),
            next_op: 1,
            rdv_send: HashMap::new(),
            streams_out: HashMap::new(),
            rdv_recv: HashMap::new(),
            sync_send: HashMap::new(),
            cancels: HashMap::new(),
            probed: ProbedMessages::default(),
            bsend_attached: None,
            bsend_used: 0,
            counters: Counters::default(),
            tasks: Vec::new(),
            persistent_seq: None,
            attrs: Attributes::new(),
            errhandlers: Errhandlers::new(),
            error_codes: ErrorCodes::new(),
            names: Names::new(),
            comm_hints: HashMap::new(),
            rma: Default::default(),
            sessions: Default::default(),
            files: Default::default(),
            part: Default::default(),
            ports: Default::default(),
            spawn: Default::default(),
            revoked: Default::default(),
        }
    }

    /// World rank of this process.
    pub fn rank(&self) -> u32 {
        self.t.rank()
    }

    /// Number of world ranks.
    pub fn size(&self) -> u32 {
        self.t.size()
    }

    /// The transport (e.g. for its clock).
    pub fn transport(&self) -> &T {
        &self.t
    }

    /// The transport, mutably (to finalize or abort the connection).
    pub fn transport_mut(&mut self) -> &mut T {
        &mut self.t
    }

    /// The settings this engine was made with (e.g. `tag_ub` for `MPI_TAG_UB`).
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// The datatype table (sizes, extents, spans, pack/unpack).
    pub fn datatypes(&self) -> &Datatypes {
        &self.types
    }

    /// The datatype table, for constructors, commit and free.
    pub fn datatypes_mut(&mut self) -> &mut Datatypes {
        &mut self.types
    }

    /// Whether `op` is commutative (false for an unknown operation).
    pub fn ops_commutative(&self, op: crate::op::OpId) -> bool {
        self.ops.commutative(op).unwrap_or(false)
    }

    /// The op table (create, free, commutative).
    pub fn ops_mut(&mut self) -> &mut Ops {
        &mut self.ops
    }

    /// `MPI_Op_free`: the op is dropped once no started collective may
    /// still reduce with it.
    pub fn op_free(&mut self, op: crate::op::OpId) -> MpiResult<()> {
        self.ops.free(op)?;
        if self.tasks.is_empty() {
            self.ops.purge_freed();
        }
        Ok(())
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        let m = self.queues.counters();
        Counters {
            expected: m.expected,
            unexpected: m.unexpected,
            unsuccessful_matches: m.unsuccessful,
            ..self.counters
        }
    }

    /// Counts one MPI call (the C layer may call this for calls the engine
    /// does not see, such as `MPI_Wtime`).
    pub fn note_call(&mut self) {
        self.counters.calls += 1;
    }

    /// Number of messages waiting in the unexpected queue.
    pub fn unexpected_len(&self) -> usize {
        self.queues.unexpected_len()
    }

    /// Number of receives waiting in the posted queue.
    pub fn posted_len(&self) -> usize {
        self.queues.posted_len()
    }

    pub(crate) fn eager_limit(&self) -> u64 {
        self.cfg.eager_limit.unwrap_or_else(|| self.t.eager_limit())
    }

    /// Messages up to this many bytes go eager: the eager limit, but never
    /// more than one piece of rendezvous data.
    pub(crate) fn eager_threshold(&self) -> u64 {
        self.eager_limit().min(self.cfg.rendezvous_chunk)
    }

    pub(crate) fn new_op(&mut self) -> u32 {
        let op = self.next_op;
        self.next_op = self.next_op.wrapping_add(1).max(1);
        op
    }

    pub(crate) fn tsend(&mut self, dst: u32, env: &Envelope, payload: &[u8]) {
        self.tsend_encoded(dst, env.encode(payload));
    }

    /// Sends an encoded message (envelope and payload).
    pub(crate) fn tsend_encoded(&mut self, dst: u32, bytes: Vec<u8>) {
        self.counters.messages_sent += 1;
        self.counters.bytes_sent += bytes.len() as u64;
        self.t.send(dst, bytes);
    }

    /// Reads every message the transport has; with `block`, waits for one
    /// if there was none. Returns whether a message was handled.
    pub fn progress(&mut self, block: bool) -> bool {
        let mut any = false;
        while let Some(m) = self.t.try_recv() {
            self.handle_taken(m);
            any = true;
        }
        if !any && block {
            let m = match self.t.recv_within(crate::waiting::REPORT_WAITING_AFTER) {
                Some(m) => m,
                None => {
                    // Nothing for a while: say what this rank waits for
                    // (once per wait), then wait on.
                    let w = self.waiting();
                    self.t.report_waiting(&w);
                    self.t.recv_blocking()
                }
            };
            self.handle_taken(m);
            any = true;
        }
        if any {
            self.advance_tasks();
            self.advance_partitioned();
        }
        any
    }

    /// Handles a message the transport just handed over, telling it so.
    pub(crate) fn handle_taken(&mut self, m: Incoming) {
        self.t.handling_message(true);
        self.handle(m);
        self.t.handling_message(false);
    }

    pub(crate) fn handle(&mut self, m: Incoming) {
        if m.src >= self.t.size() {
            // From an endpoint that is no rank: a storage node's reply.
            if !self
                .files
                .storage
                .as_mut()
                .is_some_and(|s| s.answered(&m.bytes))
            {
                self.counters.bad_messages += 1;
            }
            return;
        }
        self.counters.messages_received += 1;
        self.counters.bytes_received += m.bytes.len() as u64;
        let Ok((env, payload)) = Envelope::decode(&m.bytes) else {
            self.counters.bad_messages += 1;
            return;
        };
        if self.on_revocation_notice(&env) {
            return;
        }
        match env.kind {
            Kind::Control if env.src != self.t.rank() => self.counters.bad_messages += 1,
            Kind::Eager | Kind::Rts | Kind::Control => {
                let arrived = Arrived {
                    context: env.context,
                    src: env.src,
                    tag: env.tag,
                    vtime_ns: m.vtime_ns,
                    item: Msg {
                        payload: payload.to_vec(),
                        env,
                        token: self.t.taken_token(),
                    },
                };
                if let Some((posted, msg)) = self.queues.arrive(arrived) {
                    self.matched(posted.item, msg.item);
                }
            }
            Kind::Cts => self.on_cts(env),
            Kind::Data => self.on_data(env, payload),
            Kind::PieceAck => self.on_piece_ack(env),
            Kind::SyncAck => {
                if let Some(req) = self.sync_send.remove(&env.sender_op) {
                    self.finish(req, Completion::inactive());
                }
            }
            Kind::CancelRequest => self.on_cancel_request(env),
            Kind::CancelReply => self.on_cancel_reply(env),
            Kind::RmaPut
            | Kind::RmaGet
            | Kind::RmaAccumulate
            | Kind::RmaGetAccumulate
            | Kind::RmaCompareSwap
            | Kind::RmaAck
            | Kind::RmaReply
            | Kind::RmaPost
            | Kind::RmaComplete
            | Kind::RmaLock
            | Kind::RmaLockGranted
            | Kind::RmaUnlock => self.on_rma(env, payload),
        }
    }

    /// Marks `req` done, dropping it if it is hidden or freed.
    pub(crate) fn finish(&mut self, req: RequestId, c: Completion) {
        self.t.completed_request();
        let Ok(r) = self.reqs.get_mut(req) else {
            return;
        };
        if r.cancelling.is_some() && !c.status.cancelled {
            // MPI_Cancel asked the destination: the reply decides.
            r.state = State::Pending(Pending::CancelReply);
            return;
        }
        r.state = State::Done(c);
        let parent = r.parent;
        if r.free_when_done {
            if let Ok(r) = self.reqs.remove(req) {
                self.bsend_used -= r.bsend_bytes;
                self.retire(&r);
            }
        }
        if let Some(p) = parent {
            self.half_done(p);
            self.inner_done(p);
        }
    }

    /// Lets go of what a request removed from the table held (a persistent
    /// request's use of its datatype).
    pub(crate) fn retire(&mut self, r: &Request) {
        match &r.persistent {
            Some(Persist::Send { dt, .. }) | Some(Persist::Recv { dt, .. }) => {
                self.types.release_use(*dt)
            }
            Some(Persist::Partitioned(spec)) => {
                self.types.release_use(spec.dt);
                self.partitioned_retire(spec);
            }
            Some(Persist::Coll { .. }) => {
                if let Some(crate::request::OnDone(f)) = &r.on_done {
                    for dt in &f.types {
                        self.types.release_use(*dt);
                    }
                }
            }
            None => {}
        }
    }

    /// Removes a request from the table and lets go of what it held.
    pub(crate) fn drop_request(&mut self, req: RequestId) -> MpiResult<()> {
        let r = self.reqs.remove(req)?;
        self.retire(&r);
        Ok(())
    }

    /// The communicator a program's request was made on.
    pub fn request_comm(&self, req: RequestId) -> Option<CommId> {
        self.reqs.get(req).ok().and_then(|r| r.comm)
    }

    /// Remembers, for the C layer, the address of a persistent request's
    /// buffer (which it hands back as program memory at each start).
    pub fn set_request_buffer_address(&mut self, req: RequestId, addr: usize) -> MpiResult<()> {
        self.reqs.get_mut(req)?.buffer_addr = Some(addr);
        Ok(())
    }

    /// The buffer address remembered for a persistent request.
    pub fn request_buffer_address(&self, req: RequestId) -> Option<usize> {
        self.reqs.get(req).ok().and_then(|r| r.buffer_addr)
    }

    /// The (count, datatype) of a persistent request's buffer.
    pub fn persistent_buffer(&self, req: RequestId) -> Option<(usize, DatatypeId)> {
        match self.reqs.get(req).ok()?.persistent.as_ref()? {
            Persist::Send { count, dt, .. } | Persist::Recv { count, dt, .. } => {
                Some((*count, *dt))
            }
            Persist::Partitioned(s) => Some((s.total_count(), s.dt)),
            Persist::Coll { .. } => None,
        }
    }

    /// Sends `data` for request `req` (which becomes pending or done),
    /// with the envelope flags `flags` (e.g. [`FLAG_COLL_ERROR`](crate::envelope::FLAG_COLL_ERROR)) besides
    /// the ones the mode sets. Data in program memory must be larger than
    /// the eager threshold (smaller messages are packed by the caller).
    /// Returns the message as its destination knows it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn start_send(
        &mut self,
        req: RequestId,
        mode: SendMode,
        data: impl Into<MessageData>,
        dst: u32,
        context: u32,
        tag: i32,
        call: CallCode,
        flags: u8,
    ) -> SentMessage {
        let data = data.into();
        let me = self.t.rank();
        let seq_slot = self.seq.entry((dst, context)).or_insert(0);
        let seq = *seq_slot;
        *seq_slot = seq.wrapping_add(1);
        let sent = SentMessage {
            dst,
            context,
            seq,
            carrier: req,
        };
        if let Ok(r) = self.reqs.get_mut(req) {
            r.sent = Some(sent);
        }
        let len = data.len();
        let mut env = Envelope {
            kind: Kind::Eager,
            flags,
            call,
            src: me,
            dst,
            tag,
            context,
            seq,
            sender_op: 0,
            receiver_op: 0,
            msg_len: len,
            payload_len: len,
        };
        let state = match data {
            MessageData::Packed(data) if len <= self.eager_threshold() => {
                if mode == SendMode::Synchronous {
                    env.flags |= FLAG_SYNC;
                    env.sender_op = self.new_op();
                    self.sync_send.insert(env.sender_op, req);
                    self.tsend(dst, &env, &data);
                    State::Pending(Pending::Send {
                        data: MessageData::default(),
                        dst,
                    })
                } else {
                    self.tsend(dst, &env, &data);
                    State::Done(Completion::inactive())
                }
            }
            data => {
                env.kind = Kind::Rts;
                env.payload_len = 0;
                env.sender_op = self.new_op();
                self.rdv_send.insert(env.sender_op, req);
                self.tsend(dst, &env, &[]);
                State::Pending(Pending::Send { data, dst })
            }
        };
        match state {
            State::Done(c) => self.finish(req, c),
            s => {
                if let Ok(r) = self.reqs.get_mut(req) {
                    r.state = s;
                }
            }
        }
        sent
    }

    /// Posts receive `req` (already `Pending::Recv` in phase `Posted`).
    pub(crate) fn post_recv(
        &mut self,
        req: RequestId,
        context: u32,
        src: Option<u32>,
        tag: Option<i32>,
    ) {
        let posted = Posted {
            pattern: Pattern { context, src, tag },
            posted_at: self.t.now_srt_ns(),
            item: req,
        };
        if let Some((p, m)) = self.queues.post(posted) {
            // The program's call takes a message that waited unexpected.
            self.t.program_took(m.item.env.src, m.item.token);
            self.matched(p.item, m.item);
        }
    }

    pub(crate) fn matched(&mut self, req: RequestId, msg: Msg) {
        let env = msg.env;
        match env.kind {
            Kind::Rts => {
                let op = self.new_op();
                let cts = Envelope {
                    kind: Kind::Cts,
                    flags: env.flags,
                    src: env.dst,
                    dst: env.src,
                    receiver_op: op,
                    payload_len: 0,
                    ..env.clone()
                };
                self.rdv_recv.insert(op, req);
                self.tsend(env.src, &cts, &[]);
                if let Ok(r) = self.reqs.get_mut(req) {
                    if let State::Pending(Pending::Recv { phase, .. }) = &mut r.state {
                        *phase = RecvPhase::Data {
                            rts: env,
                            received: 0,
                        };
                    }
                }
            }
            _ => {
                if env.is_sync() {
                    let ack = Envelope {
                        kind: Kind::SyncAck,
                        flags: 0,
                        src: env.dst,
                        dst: env.src,
                        msg_len: 0,
                        payload_len: 0,
                        ..env.clone()
                    };
                    self.tsend(env.src, &ack, &[]);
                }
                self.store_received(req, 0, &msg.payload);
                self.complete_recv(req, &env);
            }
        }
    }

    /// Stores packed bytes `offset ..` of the message receive `req` gets,
    /// as far as its buffer holds them.
    pub(crate) fn store_received(&mut self, req: RequestId, offset: u64, piece: &[u8]) {
        let Ok(Request {
            state:
                State::Pending(Pending::Recv {
                    capacity,
                    target,
                    error,
                    ..
                }),
            ..
        }) = self.reqs.get_mut(req)
        else {
            return;
        };
        let fits = capacity.saturating_sub(offset).min(piece.len() as u64) as usize;
        if fits > 0 && error.is_none() {
            if let Err(e) = target.write(offset, &piece[..fits]) {
                *error = Some(e);
            }
        }
    }

    /// Completes receive `req` of the message `env` describes, whose data
    /// is stored.
    pub(crate) fn complete_recv(&mut self, req: RequestId, env: &Envelope) {
        let Ok(r) = self.reqs.get_mut(req) else {
            return;
        };
        let State::Pending(Pending::Recv {
            comm,
            capacity,
            target,
            error: store_error,
            ..
        }) = &mut r.state
        else {
            return;
        };
        let (comm, capacity, store_error) = (*comm, *capacity, *store_error);
        let data = std::mem::take(target).into_received();
        let source = self
            .comms
            .get_any(comm)
            .and_then(|c| c.rank_of_world(env.src))
            .map_or(Source::Any, Source::Rank);
        let mut error = env.is_coll_error().then_some(MpiError::Other);
        if env.msg_len > capacity {
            error = Some(MpiError::Truncate);
        }
        let status = Status {
            source,
            tag: Tag::Value(env.tag),
            error: store_error.or(error),
            count_bytes: env.msg_len.min(capacity),
            cancelled: false,
        };
        self.finish(
            req,
            Completion {
                status,
                data,
                output: Default::default(),
                freed: false,
            },
        );
    }

    /// Whether `req` is complete (or inactive), without changing it.
    pub(crate) fn is_complete(&self, req: RequestId) -> MpiResult<bool> {
        Ok(!matches!(self.reqs.get(req)?.state, State::Pending(_)))
    }

    /// Takes the completion of a complete request: non-persistent ones are
    /// deallocated, persistent ones become inactive.
    pub(crate) fn take_completion(&mut self, req: RequestId) -> MpiResult<Option<Completion>> {
        let r = self.reqs.get_mut(req)?;
        match &r.state {
            State::Pending(_) => Ok(None),
            State::Inactive => Ok(Some(Completion::inactive())),
            State::Done(_) => {
                let mut on_done = r.on_done.take();
                let mut c = if r.persistent.is_some() {
                    let State::Done(c) = std::mem::replace(&mut r.state, State::Inactive) else {
                        unreachable!()
                    };
                    c
                } else {
                    let State::Done(mut c) = self.reqs.remove(req)?.state else {
                        unreachable!()
                    };
                    c.freed = true;
                    c
                };
                if let Some(OnDone(f)) = &mut on_done {
                    if c.status.error.is_none() {
                        let out = std::mem::take(&mut c.output);
                        if let Err(e) = (f.deliver)(&self.types, out) {
                            c.status.error = Some(e);
                        }
                    }
                }
                if !c.freed {
                    if let Ok(r) = self.reqs.get_mut(req) {
                        r.on_done = on_done;
                    }
                } else if let Some(OnDone(f)) = on_done {
                    for dt in f.types {
                        self.types.release_use(dt);
                    }
                }
                Ok(Some(c))
            }
        }
    }

    /// Progresses until `req` is complete, then takes its completion.
    pub(crate) fn wait_internal(&mut self, req: RequestId) -> MpiResult<Completion> {
        while !self.is_complete(req)? {
            self.progress(true);
        }
        Ok(self.take_completion(req)?.expect("complete"))
    }

    /// Cancels a posted receive; true if it was still unmatched.
    pub(crate) fn cancel_recv(&mut self, req: RequestId) -> bool {
        if self.queues.cancel(&req) {
            self.finish_cancelled(req, Some(Vec::new()));
            true
        } else {
            false
        }
    }

    /// Completes `req` as cancelled; `data` is what a receive hands back.
    pub(crate) fn finish_cancelled(&mut self, req: RequestId, data: Option<Vec<u8>>) {
        let status = Status {
            cancelled: true,
            ..Status::empty()
        };
        self.finish(
            req,
            Completion {
                status,
                data,
                ..Completion::inactive()
            },
        );
    }

    /// Validates a communicator.
    pub(crate) fn comm(&self, c: CommId) -> MpiResult<&crate::comm::Comm> {
        self.comms.get(c)
    }
}
