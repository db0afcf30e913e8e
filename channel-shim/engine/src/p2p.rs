//! Point-to-point MPI calls: sends in four modes, receives, persistent
//! requests, the test/wait family, cancel, probe, and `MPI_PROC_NULL`.
//!
//! Send buffers are user-memory regions as given by
//! [`Datatypes::span`](crate::datatype::Datatypes::span) for the
//! (datatype, count): a slice, packed during the call, or a
//! [`UserBuffer`] the engine keeps while the operation is in progress, so a
//! large message is streamed from and into program memory piece by piece
//! (the `*_from`, `*_into` and `*_with` calls). Receives without a
//! `UserBuffer` return packed bytes in their [`Completion`] for the C layer
//! to unpack with
//! [`Datatypes::unpack`](crate::datatype::Datatypes::unpack); receives with
//! one have stored their data when they complete (`data` is `None`).
//!
//! Errors of a single request (truncation) are reported in its status;
//! multi-request calls leave the choice of `MPI_ERR_IN_STATUS` to the caller.

use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::{Engine, BSEND_OVERHEAD};
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::matching::{Pattern, Source, Tag};
use crate::message_data::{MessageData, ProgramData, UserBuffer};
use crate::request::{Dest, Pending, Persist, RecvPhase, Request, RequestId, SendMode, State};
use crate::status::{Completion, Status};
use crate::transport::Transport;

/// Result of `MPI_Testany`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestAny {
    /// Every entry is null or inactive (flag true, index `MPI_UNDEFINED`).
    NoneActive,
    /// Entry `usize` completed.
    Done(usize, Completion),
    /// Nothing completed yet (flag false).
    Pending,
}

fn send_call(mode: SendMode, blocking: bool) -> CallCode {
    match (mode, blocking) {
        (SendMode::Standard, true) => CallCode::Send,
        (SendMode::Standard, false) => CallCode::Isend,
        (SendMode::Synchronous, true) => CallCode::Ssend,
        (SendMode::Synchronous, false) => CallCode::Issend,
        (SendMode::Buffered, true) => CallCode::Bsend,
        (SendMode::Buffered, false) => CallCode::Ibsend,
        (SendMode::Ready, true) => CallCode::Rsend,
        (SendMode::Ready, false) => CallCode::Irsend,
    }
}

/// A send's buffer: a slice valid during the call, or program memory the
/// engine may keep.
pub(crate) enum SendBuf<'a> {
    Slice(&'a [u8]),
    Program(Box<dyn UserBuffer>),
}

impl<T: Transport> Engine<T> {
    /// Program memory holding `count` instances of `dt` (its region must
    /// be exactly the span of the (datatype, count)).
    fn program_data(
        &self,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<ProgramData> {
        let ty = self.types.committed_shared(dt)?;
        let span = self.types.span(dt, count)?;
        ty.size.checked_mul(count as u64).ok_or(MpiError::Count)?;
        if mem.bytes().len() != span.len {
            return Err(MpiError::Buffer);
        }
        Ok(ProgramData {
            mem,
            ty,
            count,
            base: span.base,
        })
    }

    /// The data of a send: packed now when it is a slice, goes eager or is
    /// buffered (the program may reuse its buffer when the call returns),
    /// else left in program memory to be streamed.
    fn send_data(
        &self,
        mode: SendMode,
        buf: SendBuf,
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<MessageData> {
        let mem = match buf {
            SendBuf::Slice(b) => return self.pack_send(b, count, dt).map(MessageData::Packed),
            SendBuf::Program(mem) => mem,
        };
        let p = self.program_data(mem, count, dt)?;
        if mode == SendMode::Buffered || p.ty.size * count as u64 <= self.eager_threshold() {
            return self
                .pack_send(p.mem.bytes(), count, dt)
                .map(MessageData::Packed);
        }
        Ok(MessageData::Program(p))
    }

    /// Where a receive's data goes: program memory, or (without a buffer)
    /// packed bytes handed back in the completion.
    pub(crate) fn recv_target(
        &self,
        mem: Option<Box<dyn UserBuffer>>,
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<MessageData> {
        Ok(match mem {
            Some(mem) => MessageData::Program(self.program_data(mem, count, dt)?),
            None => MessageData::default(),
        })
    }

    pub(crate) fn check_tag(&self, tag: i32) -> MpiResult<()> {
        if (0..=self.cfg.tag_ub).contains(&tag) {
            Ok(())
        } else {
            Err(MpiError::Tag)
        }
    }

    /// Sends already-packed data (shared by p2p calls and persistent starts)
    /// on `context`, the communicator's send context.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn isend_packed(
        &mut self,
        mode: SendMode,
        data: MessageData,
        dest: Dest,
        tag: i32,
        comm: CommId,
        context: u32,
        call: CallCode,
        req: Option<RequestId>,
    ) -> MpiResult<RequestId> {
        self.check_revoked(comm)?;
        let done = || State::Done(Completion::inactive());
        let req = match req {
            Some(r) => r,
            None => self.reqs.add(Request::new(State::Inactive)),
        };
        self.reqs.get_mut(req)?.comm = Some(comm);
        let dst = match dest {
            Dest::ProcNull => {
                self.reqs.get_mut(req)?.state = done();
                return Ok(req);
            }
            Dest::Rank(r) => self.comm(comm)?.world_of(r)?,
        };
        let flags = self.comm(comm)?.envelope_flags();
        if mode == SendMode::Buffered {
            let need = (data.len() as usize).saturating_add(BSEND_OVERHEAD);
            let avail = self
                .bsend_attached
                .map_or(0, |(_, size)| size)
                .saturating_sub(self.bsend_used);
            if need > avail {
                self.reqs.get_mut(req)?.state = done();
                return Err(MpiError::Buffer);
            }
            self.bsend_used += need;
            let mut hidden = Request::new(State::Inactive);
            hidden.free_when_done = true;
            hidden.bsend_bytes = need;
            let h = self.reqs.add(hidden);
            let sent = self.start_send(h, SendMode::Standard, data, dst, context, tag, call, flags);
            let r = self.reqs.get_mut(req)?;
            r.state = done();
            r.sent = Some(sent);
        } else {
            self.reqs.get_mut(req)?.state = State::Inactive;
            self.start_send(req, mode, data, dst, context, tag, call, flags);
        }
        Ok(req)
    }

    fn pack_send(&self, buf: &[u8], count: usize, dt: DatatypeId) -> MpiResult<Vec<u8>> {
        self.types.committed(dt)?;
        self.types.pack(dt, count, buf)
    }

    /// `MPI_Isend`, `MPI_Issend`, `MPI_Ibsend`, `MPI_Irsend`.
    #[allow(clippy::too_many_arguments)]
    pub fn isend(
        &mut self,
        mode: SendMode,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.isend_call(
            mode,
            SendBuf::Slice(buf),
            count,
            dt,
            dest,
            tag,
            comm,
            send_call(mode, false),
        )
    }

    /// `MPI_Isend` and the other nonblocking sends from program memory the
    /// engine keeps until the send completes.
    #[allow(clippy::too_many_arguments)]
    pub fn isend_from(
        &mut self,
        mode: SendMode,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        let call = send_call(mode, false);
        self.isend_call(
            mode,
            SendBuf::Program(mem),
            count,
            dt,
            dest,
            tag,
            comm,
            call,
        )
    }

    /// `MPI_Send` and the other blocking sends from program memory.
    #[allow(clippy::too_many_arguments)]
    pub fn send_from(
        &mut self,
        mode: SendMode,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
    ) -> MpiResult<()> {
        self.note_call();
        let call = send_call(mode, true);
        let r = self.isend_call(
            mode,
            SendBuf::Program(mem),
            count,
            dt,
            dest,
            tag,
            comm,
            call,
        )?;
        self.wait_internal(r).map(|_| ())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn isend_call(
        &mut self,
        mode: SendMode,
        buf: SendBuf,
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<RequestId> {
        self.check_tag(tag)?;
        let c = self.comm(comm)?;
        let context = c.send_context;
        if let Dest::Rank(r) = dest {
            c.world_of(r)?;
        }
        let data = self.send_data(mode, buf, count, dt)?;
        self.isend_packed(mode, data, dest, tag, comm, context, call, None)
    }

    /// `MPI_Send`, `MPI_Ssend`, `MPI_Bsend`, `MPI_Rsend`.
    #[allow(clippy::too_many_arguments)]
    pub fn send(
        &mut self,
        mode: SendMode,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
    ) -> MpiResult<()> {
        self.note_call();
        let call = send_call(mode, true);
        let r = self.isend_call(mode, SendBuf::Slice(buf), count, dt, dest, tag, comm, call)?;
        self.wait_internal(r).map(|_| ())
    }

    /// Posts a receive into request `req` (or a new one).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn irecv_raw(
        &mut self,
        capacity: u64,
        src: Source,
        tag: Tag,
        comm: CommId,
        context: u32,
        req: Option<RequestId>,
        target: MessageData,
    ) -> MpiResult<RequestId> {
        self.check_revoked(comm)?;
        let src_world = match src {
            Source::ProcNull => {
                let c = Completion {
                    status: Status::proc_null(),
                    data: Some(Vec::new()),
                    output: Default::default(),
                    freed: false,
                };
                let r = match req {
                    Some(r) => {
                        self.reqs.get_mut(r)?.state = State::Done(c);
                        r
                    }
                    None => self.reqs.add(Request::new(State::Done(c))),
                };
                self.reqs.get_mut(r)?.comm = Some(comm);
                return Ok(r);
            }
            Source::Any => None,
            Source::Rank(r) => Some(self.comm(comm)?.world_of(r)?),
        };
        let pending = State::Pending(Pending::Recv {
            comm,
            capacity,
            phase: RecvPhase::Posted,
            target,
            error: None,
        });
        let req = match req {
            Some(r) => {
                self.reqs.get_mut(r)?.state = pending;
                r
            }
            None => self.reqs.add(Request::new(pending)),
        };
        self.reqs.get_mut(req)?.comm = Some(comm);
        let tag = match tag {
            Tag::Any => None,
            Tag::Value(t) => Some(t),
        };
        self.post_recv(req, context, src_world, tag);
        Ok(req)
    }

    pub(crate) fn check_recv(
        &self,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<(u64, u32)> {
        let c = self.comm(comm)?;
        if let Source::Rank(r) = src {
            c.world_of(r)?;
        }
        if let Tag::Value(t) = tag {
            self.check_tag(t)?;
        }
        let size = self.types.committed(dt)?.size;
        Ok((size * count as u64, c.context))
    }

    /// `MPI_Irecv`.
    pub fn irecv(
        &mut self,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        let (cap, ctx) = self.check_recv(count, dt, src, tag, comm)?;
        self.irecv_raw(cap, src, tag, comm, ctx, None, MessageData::default())
    }

    /// `MPI_Irecv` into program memory the engine keeps: the data is there
    /// when the request completes.
    pub fn irecv_into(
        &mut self,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.post_into(mem, count, dt, src, tag, comm)
    }

    /// `MPI_Recv` into program memory: the status (whose `error` is
    /// `Some(Truncate)` when the message was longer than the buffer).
    pub fn recv_into(
        &mut self,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<Status> {
        self.note_call();
        let r = self.post_into(mem, count, dt, src, tag, comm)?;
        Ok(self.wait_internal(r)?.status)
    }

    fn post_into(
        &mut self,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let (cap, ctx) = self.check_recv(count, dt, src, tag, comm)?;
        let target = self.recv_target(Some(mem), count, dt)?;
        self.irecv_raw(cap, src, tag, comm, ctx, None, target)
    }

    /// `MPI_Recv`: the packed bytes received and the status (whose `error`
    /// is `Some(Truncate)` when the message was longer than the buffer).
    pub fn recv(
        &mut self,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<(Vec<u8>, Status)> {
        self.note_call();
        let (cap, ctx) = self.check_recv(count, dt, src, tag, comm)?;
        let r = self.irecv_raw(cap, src, tag, comm, ctx, None, MessageData::default())?;
        let c = self.wait_internal(r)?;
        Ok((c.data.unwrap_or_default(), c.status))
    }

    /// `MPI_Sendrecv`: returns the packed bytes received and the status.
    #[allow(clippy::too_many_arguments)]
    pub fn sendrecv(
        &mut self,
        sbuf: &[u8],
        scount: usize,
        stype: DatatypeId,
        dest: Dest,
        stag: i32,
        rcount: usize,
        rtype: DatatypeId,
        src: Source,
        rtag: Tag,
        comm: CommId,
    ) -> MpiResult<(Vec<u8>, Status)> {
        let send = (SendBuf::Slice(sbuf), scount, stype, dest, stag);
        let recv = (None, rcount, rtype, src, rtag);
        let c = self.blocking_exchange(send, recv, comm)?;
        Ok((c.data.unwrap_or_default(), c.status))
    }

    /// `MPI_Sendrecv` between program memories: the receive's status.
    #[allow(clippy::too_many_arguments)]
    pub fn sendrecv_with(
        &mut self,
        smem: Box<dyn UserBuffer>,
        scount: usize,
        stype: DatatypeId,
        dest: Dest,
        stag: i32,
        rmem: Box<dyn UserBuffer>,
        rcount: usize,
        rtype: DatatypeId,
        src: Source,
        rtag: Tag,
        comm: CommId,
    ) -> MpiResult<Status> {
        let send = (SendBuf::Program(smem), scount, stype, dest, stag);
        let recv = (Some(rmem), rcount, rtype, src, rtag);
        Ok(self.blocking_exchange(send, recv, comm)?.status)
    }

    /// `MPI_Sendrecv`: a receive (into program memory, or packed) posted
    /// before a standard send, both waited for; the receive's completion.
    #[allow(clippy::type_complexity)]
    fn blocking_exchange(
        &mut self,
        (sbuf, scount, stype, dest, stag): (SendBuf, usize, DatatypeId, Dest, i32),
        (rmem, rcount, rtype, src, rtag): (
            Option<Box<dyn UserBuffer>>,
            usize,
            DatatypeId,
            Source,
            Tag,
        ),
        comm: CommId,
    ) -> MpiResult<Completion> {
        self.note_call();
        let (cap, ctx) = self.check_recv(rcount, rtype, src, rtag, comm)?;
        let target = self.recv_target(rmem, rcount, rtype)?;
        let r = self.irecv_raw(cap, src, rtag, comm, ctx, None, target)?;
        let call = CallCode::Sendrecv;
        let s = self.isend_call(
            SendMode::Standard,
            sbuf,
            scount,
            stype,
            dest,
            stag,
            comm,
            call,
        )?;
        self.wait_internal(s)?;
        self.wait_internal(r)
    }

    /// `MPI_Send_init`, `MPI_Ssend_init`, `MPI_Bsend_init`, `MPI_Rsend_init`.
    #[allow(clippy::too_many_arguments)]
    pub fn send_init(
        &mut self,
        mode: SendMode,
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.check_tag(tag)?;
        let c = self.comm(comm)?;
        if let Dest::Rank(r) = dest {
            c.world_of(r)?;
        }
        self.types.committed(dt)?;
        let call = match mode {
            SendMode::Standard => CallCode::Send_init,
            SendMode::Synchronous => CallCode::Ssend_init,
            SendMode::Buffered => CallCode::Bsend_init,
            SendMode::Ready => CallCode::Rsend_init,
        };
        let mut r = Request::new(State::Inactive);
        r.persistent = Some(Persist::Send {
            mode,
            count,
            dt,
            dest,
            tag,
            comm,
            call,
        });
        r.comm = Some(comm);
        self.types.add_use(dt);
        Ok(self.reqs.add(r))
    }

    /// `MPI_Recv_init`.
    pub fn recv_init(
        &mut self,
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.check_recv(count, dt, src, tag, comm)?;
        let mut r = Request::new(State::Inactive);
        r.persistent = Some(Persist::Recv {
            count,
            dt,
            src,
            tag,
            comm,
        });
        r.comm = Some(comm);
        self.types.add_use(dt);
        Ok(self.reqs.add(r))
    }

    /// `MPI_Start`: `buf` is the send buffer region of a persistent send
    /// (ignored for receives).
    pub fn start(&mut self, req: RequestId, buf: Option<&[u8]>) -> MpiResult<()> {
        self.note_call();
        self.start_buf(req, buf.map(SendBuf::Slice), None)
    }

    /// `MPI_Start` with the request's buffer as program memory the engine
    /// keeps while the operation runs (a send's data is streamed from it, a
    /// receive's stored into it).
    pub fn start_with(&mut self, req: RequestId, mem: Box<dyn UserBuffer>) -> MpiResult<()> {
        self.note_call();
        let is_send = matches!(self.reqs.get(req)?.persistent, Some(Persist::Send { .. }));
        if is_send {
            self.start_buf(req, Some(SendBuf::Program(mem)), None)
        } else {
            self.start_buf(req, None, Some(mem))
        }
    }

    fn start_buf(
        &mut self,
        req: RequestId,
        send: Option<SendBuf>,
        recv: Option<Box<dyn UserBuffer>>,
    ) -> MpiResult<()> {
        let r = self.reqs.get(req)?;
        if !matches!(r.state, State::Inactive) {
            return Err(MpiError::Request);
        }
        match r.persistent.clone().ok_or(MpiError::Request)? {
            Persist::Send {
                mode,
                count,
                dt,
                dest,
                tag,
                comm,
                call,
            } => {
                let data = self.send_data(mode, send.ok_or(MpiError::Buffer)?, count, dt)?;
                let ctx = self.comm(comm)?.send_context;
                self.isend_packed(mode, data, dest, tag, comm, ctx, call, Some(req))?;
            }
            Persist::Recv {
                count,
                dt,
                src,
                tag,
                comm,
            } => {
                let (cap, ctx) = self.check_recv(count, dt, src, tag, comm)?;
                let target = self.recv_target(recv, count, dt)?;
                self.irecv_raw(cap, src, tag, comm, ctx, Some(req), target)?;
            }
            Persist::Partitioned(spec) => {
                let mem: Box<dyn UserBuffer> = match (send, recv) {
                    (Some(SendBuf::Program(m)), _) | (None, Some(m)) => m,
                    (Some(SendBuf::Slice(b)), _) => Box::new(b.to_vec()),
                    (None, None) => {
                        let span = self.types.span(spec.dt, spec.total_count())?;
                        Box::new(vec![0u8; span.len])
                    }
                };
                self.partitioned_start(req, &spec, mem)?;
            }
            // Started by the C layer's starter (see persistent_coll).
            Persist::Coll { .. } => return Err(MpiError::Request),
        }
        Ok(())
    }

    fn active(&self, r: Option<RequestId>) -> MpiResult<Option<RequestId>> {
        match r {
            None => Ok(None),
            Some(id) => match self.reqs.get(id)?.state {
                State::Inactive => Ok(None),
                _ => Ok(Some(id)),
            },
        }
    }

    /// `MPI_Test`: the completion if the request is complete.
    pub fn test(&mut self, req: RequestId) -> MpiResult<Option<Completion>> {
        self.note_call();
        self.reqs.get(req)?;
        self.progress(false);
        self.take_completion(req)
    }

    /// `MPI_Wait`.
    pub fn wait(&mut self, req: RequestId) -> MpiResult<Completion> {
        self.note_call();
        self.wait_internal(req)
    }

    /// `MPI_Request_get_status`: the status if complete, leaving the request.
    pub fn request_get_status(&mut self, req: RequestId) -> MpiResult<Option<Status>> {
        self.note_call();
        self.progress(false);
        Ok(match &self.reqs.get(req)?.state {
            State::Pending(_) => None,
            State::Inactive => Some(Status::empty()),
            State::Done(c) => Some(c.status),
        })
    }

    /// `MPI_Waitall`: one completion per entry (null and inactive entries
    /// get the empty status).
    pub fn waitall(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<Vec<Completion>> {
        self.note_call();
        for r in reqs.iter().flatten() {
            self.reqs.get(*r)?;
        }
        while !self.all_complete(reqs)? {
            self.progress(true);
        }
        self.take_all(reqs)
    }

    fn all_complete(&self, reqs: &[Option<RequestId>]) -> MpiResult<bool> {
        for r in reqs.iter().flatten() {
            if !self.is_complete(*r)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn take_all(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<Vec<Completion>> {
        reqs.iter()
            .map(|r| match self.active(*r)? {
                None => Ok(Completion::inactive()),
                Some(id) => Ok(self.take_completion(id)?.expect("complete")),
            })
            .collect()
    }

    /// `MPI_Testall`: all completions if every request is complete, else
    /// `None` (and nothing is deallocated).
    pub fn testall(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<Option<Vec<Completion>>> {
        self.note_call();
        self.progress(false);
        if self.all_complete(reqs)? {
            self.take_all(reqs).map(Some)
        } else {
            Ok(None)
        }
    }

    /// `MPI_Testany`.
    pub fn testany(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<TestAny> {
        self.note_call();
        self.progress(false);
        self.any_done(reqs)
    }

    fn any_done(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<TestAny> {
        let mut active = false;
        for (i, r) in reqs.iter().enumerate() {
            if let Some(id) = self.active(*r)? {
                active = true;
                if self.is_complete(id)? {
                    let c = self.take_completion(id)?.expect("complete");
                    return Ok(TestAny::Done(i, c));
                }
            }
        }
        Ok(if active {
            TestAny::Pending
        } else {
            TestAny::NoneActive
        })
    }

    /// Makes progress without blocking and tells whether every request of
    /// `reqs` is complete or inactive, without completing any (so a caller
    /// can wait without holding a lock, then call [`Engine::waitall`]).
    pub fn testall_done(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<bool> {
        self.progress(false);
        for r in reqs.iter().flatten() {
            if !self.is_complete(*r)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Makes progress without blocking and tells whether a wait on any of
    /// `reqs` would return at once (one is complete, or none is active).
    pub fn testany_done(&mut self, reqs: &[Option<RequestId>]) -> MpiResult<bool> {
        self.progress(false);
        let mut active = false;
        for r in reqs.iter() {
            if let Some(id) = self.active(*r)? {
                active = true;
                if self.is_complete(id)? {
                    return Ok(true);
                }
            }
        }
        Ok(!active)
    }

    /// `MPI_Waitany`: `None` when every entry is null or inactive.
    pub fn waitany(
        &mut self,
        reqs: &[Option<RequestId>],
    ) -> MpiResult<Option<(usize, Completion)>> {
        self.note_call();
        loop {
            match self.any_done(reqs)? {
                TestAny::NoneActive => return Ok(None),
                TestAny::Done(i, c) => return Ok(Some((i, c))),
                TestAny::Pending => {
                    self.progress(true);
                }
            }
        }
    }

    fn some_done(
        &mut self,
        reqs: &[Option<RequestId>],
    ) -> MpiResult<Option<Vec<(usize, Completion)>>> {
        let mut active = false;
        let mut out = Vec::new();
        for (i, r) in reqs.iter().enumerate() {
            if let Some(id) = self.active(*r)? {
                active = true;
                if self.is_complete(id)? {
                    out.push((i, self.take_completion(id)?.expect("complete")));
                }
            }
        }
        Ok(if active { Some(out) } else { None })
    }

    /// `MPI_Testsome`: `None` (outcount `MPI_UNDEFINED`) when every entry is
    /// null or inactive, else the completed entries (possibly none).
    pub fn testsome(
        &mut self,
        reqs: &[Option<RequestId>],
    ) -> MpiResult<Option<Vec<(usize, Completion)>>> {
        self.note_call();
        self.progress(false);
        self.some_done(reqs)
    }

    /// `MPI_Waitsome`: like `testsome` but waits for at least one.
    pub fn waitsome(
        &mut self,
        reqs: &[Option<RequestId>],
    ) -> MpiResult<Option<Vec<(usize, Completion)>>> {
        self.note_call();
        loop {
            match self.some_done(reqs)? {
                Some(v) if v.is_empty() => {
                    self.progress(true);
                }
                other => return Ok(other),
            }
        }
    }

    /// `MPI_Request_free`: deallocates now if complete or inactive, else
    /// when the operation completes.
    pub fn request_free(&mut self, req: RequestId) -> MpiResult<()> {
        self.note_call();
        let r = self.reqs.get_mut(req)?;
        match r.state {
            State::Pending(_) => {
                r.free_when_done = true;
                Ok(())
            }
            _ => self.drop_request(req),
        }
    }

    pub(crate) fn probe_pattern(
        &self,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<Option<Pattern>> {
        let c = self.comm(comm)?;
        let src = match src {
            Source::ProcNull => return Ok(None),
            Source::Any => None,
            Source::Rank(r) => Some(c.world_of(r)?),
        };
        let tag = match tag {
            Tag::Any => None,
            Tag::Value(t) => {
                self.check_tag(t)?;
                Some(t)
            }
        };
        Ok(Some(Pattern {
            context: c.context,
            src,
            tag,
        }))
    }

    fn peek_status(&self, pat: &Pattern, comm: CommId) -> Option<Status> {
        let m = self.queues.peek(pat)?;
        let c = self.comms.get_any(comm)?;
        Some(Status {
            source: c.rank_of_world(m.src).map_or(Source::Any, Source::Rank),
            tag: Tag::Value(m.tag),
            error: None,
            count_bytes: m.item.env.msg_len,
            cancelled: false,
        })
    }

    /// `MPI_Iprobe`.
    pub fn iprobe(&mut self, src: Source, tag: Tag, comm: CommId) -> MpiResult<Option<Status>> {
        self.note_call();
        let Some(pat) = self.probe_pattern(src, tag, comm)? else {
            return Ok(Some(Status::proc_null()));
        };
        self.progress(false);
        Ok(self.peek_status(&pat, comm))
    }

    /// `MPI_Probe`.
    pub fn probe(&mut self, src: Source, tag: Tag, comm: CommId) -> MpiResult<Status> {
        self.note_call();
        let Some(pat) = self.probe_pattern(src, tag, comm)? else {
            return Ok(Status::proc_null());
        };
        loop {
            self.progress(false);
            if let Some(s) = self.peek_status(&pat, comm) {
                return Ok(s);
            }
            self.progress(true);
        }
    }

    /// `MPI_Buffer_attach` of `size` bytes at address `addr` (only the
    /// size matters: the engine copies data).
    pub fn buffer_attach(&mut self, addr: usize, size: usize) -> MpiResult<()> {
        self.note_call();
        if self.bsend_attached.is_some() {
            return Err(MpiError::Buffer);
        }
        self.bsend_attached = Some((addr, size));
        Ok(())
    }

    /// Whether every buffered message has left (so `MPI_Buffer_detach`
    /// would not wait); makes progress without blocking.
    pub fn buffered_sends_done(&mut self) -> bool {
        self.progress(false);
        self.bsend_used == 0
    }

    /// `MPI_Buffer_detach`: waits until every buffered message is sent and
    /// returns the attached buffer's address and size.
    pub fn buffer_detach(&mut self) -> MpiResult<(usize, usize)> {
        self.note_call();
        let attached = self.bsend_attached.ok_or(MpiError::Buffer)?;
        while self.bsend_used > 0 {
            self.progress(true);
        }
        self.bsend_attached = None;
        Ok(attached)
    }
}

#[cfg(test)]
#[path = "p2p_tests.rs"]
mod tests;
