//! The resumable form of a collective and the engine's tiny executor.
//!
//! Every collective algorithm is an `async` function over a [`Ctx`]. Its
//! sends, receives, waits and reductions are *commands*: awaiting one hands
//! the command to the engine through the task's [`Io`] and suspends the
//! algorithm; the engine executes it (it owns the transport, the queues and
//! the op table) and polls the algorithm again. A wait on a request that is
//! not complete parks the task; the engine polls parked tasks again after it
//! has handled incoming messages ([`Engine::progress`]), which every MPI call
//! that waits or tests does — and, in the shim, every MPI call at all.
//!
//! So one algorithm serves both forms of a collective: the blocking call
//! starts the task and waits for its request; the nonblocking call starts
//! it and hands the request to the program. No async runtime is involved:
//! the waker is a no-op because the engine knows exactly when a task can
//! move (its parked request completed).

use super::Ctx;
use crate::comm::{Comm, CommId};
use crate::context::{AgreeKey, Settled};
use crate::datatype::{DatatypeId, Datatypes};
use crate::engine::Engine;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::op::OpId;
use crate::request::{OnDone, Pending, Request, RequestId, SendMode, State};
use crate::status::{Completion, Status};
use crate::transport::{CollectiveStart, Transport};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

/// What a completed collective hands back: packed bytes for the C layer
/// to unpack with the receive datatype, one packed block per member (the
/// `v` and `w` forms), or a new communicator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CollOutput {
    /// Nothing for this rank (barrier, a non-root of a rooted call).
    #[default]
    None,
    /// One packed buffer.
    Bytes(Vec<u8>),
    /// One packed block per member.
    Blocks(Vec<Vec<u8>>),
    /// A communicator the collective created (`MPI_Comm_idup`), or `None`
    /// (`MPI_COMM_NULL`).
    Comm(Option<CommId>),
}

impl CollOutput {
    /// The bytes of a `Bytes` output (empty otherwise).
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            CollOutput::Bytes(b) => b,
            _ => Vec::new(),
        }
    }

    /// The bytes of a `Bytes` output, `None` otherwise.
    pub fn into_opt_bytes(self) -> Option<Vec<u8>> {
        match self {
            CollOutput::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The blocks of a `Blocks` output, `None` otherwise.
    pub fn into_opt_blocks(self) -> Option<Vec<Vec<u8>>> {
        match self {
            CollOutput::Blocks(b) => Some(b),
            _ => None,
        }
    }

    /// The blocks of a `Blocks` output (empty otherwise).
    pub fn into_blocks(self) -> Vec<Vec<u8>> {
        self.into_opt_blocks().unwrap_or_default()
    }
}

/// Delivers a completed collective's output into program memory: the C
/// layer unpacks with the datatypes the call named (`types`, which stay
/// in the table while the call is under way even if the program frees
/// them); the engine runs it when the program takes the completion.
pub struct CollFinish {
    /// The datatypes `deliver` unpacks with.
    pub types: Vec<DatatypeId>,
    /// Unpacks the output into program memory.
    pub deliver: Deliver,
}

/// Unpacks a collective's output into program memory.
pub type Deliver = Box<dyn FnMut(&Datatypes, CollOutput) -> MpiResult<()> + Send>;

/// What a task's algorithm returns: an output, or communicators for the
/// engine to add (a new intracommunicator, or an intercommunicator with
/// the hidden intracommunicator of its local group).
pub(crate) enum TaskOut {
    Out(CollOutput),
    NewComm {
        comm: Box<Comm>,
        local: Option<Box<Comm>>,
    },
}

impl From<CollOutput> for TaskOut {
    fn from(o: CollOutput) -> TaskOut {
        TaskOut::Out(o)
    }
}

/// A command from an algorithm to the engine.
pub(crate) enum Cmd {
    /// Send `data` to world rank `dst` (a hidden standard-mode request).
    Send {
        dst: u32,
        data: Vec<u8>,
        context: u32,
        tag: i32,
        call: CallCode,
        flags: u8,
    },
    /// Post a receive of at most `len` bytes from world rank `src`.
    Recv {
        src: u32,
        len: usize,
        comm: CommId,
        context: u32,
        tag: i32,
    },
    /// Wait for a request and take its completion.
    Wait(RequestId),
    /// The context-id mask this process offers agreement `key` now (all
    /// blocks when it keeps none: the first bool is false; the second is
    /// true in the agreement's first round).
    OfferMask(AgreeKey, bool, bool),
    /// Ends a round of agreement `key` with the AND of the offers, taking
    /// the block found when the bool is true.
    SettleMask(AgreeKey, Result<Vec<u8>, ()>, bool),
    /// Frees again a context block taken for a communicator not made.
    ReleaseContext(u32),
    /// Lets the other tasks and calls run: the task goes on once another
    /// context-id agreement has ended or a block was freed (a round that
    /// involves no other process and found nothing, which would otherwise
    /// repeat at once forever).
    Yield,
    /// `inout = inp op inout` on packed elements.
    Reduce {
        op: OpId,
        dt: DatatypeId,
        count: usize,
        inp: Vec<u8>,
        inout: Vec<u8>,
    },
}

/// The engine's answer to a command.
pub(crate) enum Reply {
    Req(MpiResult<RequestId>),
    Done(MpiResult<Completion>),
    Reduced(MpiResult<Vec<u8>>),
    Mask(Vec<u8>),
    Settled(Settled),
    /// Done (a command with nothing to answer).
    Ack,
}

#[derive(Default)]
struct Exchange {
    /// The communicator the call was made on (the first its contexts
    /// were made for), whose error handler gets the call's errors.
    comm: Option<CommId>,
    cmd: Option<Cmd>,
    reply: Option<Reply>,
    /// The first error of the call (see [`Ctx`]).
    failed: Option<MpiError>,
}

/// The channel between one task's algorithm and the engine: one command
/// and one reply at a time (an algorithm is sequential), plus the call's
/// first error, shared by every [`Ctx`] of the call.
#[derive(Clone, Default)]
pub(crate) struct Io(Arc<Mutex<Exchange>>);

impl Io {
    fn lock(&self) -> MutexGuard<'_, Exchange> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Issues `cmd` and resolves to the engine's reply.
    pub(crate) fn exec(&self, cmd: Cmd) -> impl Future<Output = Reply> + Send + '_ {
        Command {
            io: self,
            cmd: Some(cmd),
        }
    }

    pub(crate) fn fail(&self, e: MpiError) {
        let mut x = self.lock();
        if x.failed.is_none() {
            x.failed = Some(e);
        }
    }

    pub(crate) fn failure(&self) -> Option<MpiError> {
        self.lock().failed
    }

    /// Records the call's communicator (the first one named).
    pub(crate) fn name_comm(&self, comm: CommId) {
        self.lock().comm.get_or_insert(comm);
    }

    fn take_cmd(&self) -> Option<Cmd> {
        self.lock().cmd.take()
    }

    fn reply(&self, r: Reply) {
        self.lock().reply = Some(r);
    }
}

/// The future of one command: the first poll hands the command over, a
/// later one takes the reply.
struct Command<'a> {
    io: &'a Io,
    cmd: Option<Cmd>,
}

impl Future for Command<'_> {
    type Output = Reply;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Reply> {
        let this = self.get_mut();
        let mut x = this.io.lock();
        if let Some(c) = this.cmd.take() {
            x.cmd = Some(c);
            return Poll::Pending;
        }
        match x.reply.take() {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }
}

/// The waker of every task: the engine knows when a task can move (the
/// request it awaits completed), so nothing needs waking.
struct NoWake;

impl Wake for NoWake {
    fn wake(self: Arc<Self>) {}
}

type TaskFuture = Pin<Box<dyn Future<Output = MpiResult<TaskOut>> + Send>>;

/// A collective ready to start: its algorithm and what the network model
/// is told about it.
pub(crate) struct Task {
    fut: TaskFuture,
    io: Io,
    /// Reported to the transport when the task starts (public calls only).
    report: Option<CollectiveStart>,
    /// The request whose completion the algorithm awaits.
    parked: Option<RequestId>,
    /// The reserved handle a new communicator gets (`MPI_Comm_idup`).
    into: Option<CommId>,
    /// The new communicator is a duplicate: it gets the parent's hints.
    dup: bool,
    /// Hints it gets instead of the parent's (`MPI_Comm_idup_with_info`).
    hints: Option<crate::info::CommHints>,
    /// It yielded when the context-id agreements were at this generation
    /// (see [`Cmd::Yield`]).
    yielded_at: Option<u64>,
}

impl Task {
    /// A task running `body`, whose every [`Ctx`] uses `io`.
    pub(crate) fn new(
        io: Io,
        body: impl Future<Output = MpiResult<TaskOut>> + Send + 'static,
    ) -> Task {
        Task {
            fut: Box::pin(body),
            io,
            report: None,
            parked: None,
            into: None,
            dup: false,
            hints: None,
            yielded_at: None,
        }
    }

    /// The communicator the task creates duplicates the call's: it gets
    /// its hints too.
    pub(crate) fn duplicate(mut self) -> Task {
        self.dup = true;
        self
    }

    /// The duplicate gets `hints` instead of its parent's.
    pub(crate) fn with_hints(mut self, hints: crate::info::CommHints) -> Task {
        self.hints = Some(hints);
        self
    }

    /// Stores the communicator the task creates under reserved handle `id`.
    pub(crate) fn into_comm(mut self, id: CommId) -> Task {
        self.into = Some(id);
        self
    }

    /// Reports the call to the transport when it starts; a model that
    /// times collectives then releases it (see [`Transport::collective_begin`]).
    pub(crate) fn reported(mut self, report: CollectiveStart) -> Task {
        self.report = Some(report);
        self
    }
}

impl<T: Transport> Engine<T> {
    /// Starts `task`: reports it, runs it as far as it goes without
    /// waiting, and returns its request (complete or pending).
    pub(crate) fn start_task(&mut self, mut task: Task) -> RequestId {
        let mut r = Request::new(State::Pending(Pending::Coll));
        r.comm = task.io.lock().comm;
        let req = self.reqs.add(r);
        if let Some(report) = task.report.take() {
            if self.t.collective_begin(&report) {
                let (io, body) = (task.io.clone(), task.fut);
                let me = self.t.rank();
                task.fut = Box::pin(async move {
                    let out = body.await;
                    await_release(&io, me, report.recv_context, report.tag).await?;
                    out
                });
            }
        }
        let generation = self.comms.ids.generation;
        if let Some(t) = self.drive(req, task) {
            self.tasks.push((req, t));
        }
        if self.comms.ids.generation != generation {
            // An agreement ended: tasks that yielded may go on.
            self.advance_tasks();
        }
        req
    }

    /// Starts `task` and waits for it (the blocking form of a collective).
    pub(crate) fn run_task(&mut self, task: Task) -> MpiResult<CollOutput> {
        let req = self.start_task(task);
        self.wait_collective(req)
    }

    /// Has `f` deliver the output of collective `req` into program memory
    /// when the program takes its completion (a test or wait, or
    /// [`wait_collective`](Self::wait_collective)); the call then fails if
    /// `f` does.
    pub fn on_collective_done(&mut self, req: RequestId, f: CollFinish) -> MpiResult<()> {
        self.reqs.get(req)?;
        for &dt in &f.types {
            self.types.add_use(dt);
        }
        self.reqs.get_mut(req)?.on_done = Some(OnDone(f));
        Ok(())
    }

    /// Waits for a started collective and takes its output (the call's
    /// error as `Err`).
    pub fn wait_collective(&mut self, req: RequestId) -> MpiResult<CollOutput> {
        let c = self.wait_internal(req)?;
        match c.status.error {
            Some(e) => Err(e),
            None => Ok(c.output),
        }
    }

    /// True while a started collective has not finished.
    pub fn has_pending_collectives(&self) -> bool {
        !self.tasks.is_empty()
    }

    /// Polls every parked task whose request completed (after messages
    /// were handled).
    pub(crate) fn advance_tasks(&mut self) {
        // Again while agreements ended meanwhile: a task that yielded
        // earlier in the pass may go on now.
        loop {
            let generation = self.comms.ids.generation;
            self.advance_tasks_once();
            if self.comms.ids.generation == generation {
                break;
            }
        }
    }

    fn advance_tasks_once(&mut self) {
        let mut i = 0;
        while i < self.tasks.len() {
            let t = &self.tasks[i].1;
            let movable = match (t.parked, t.yielded_at) {
                (Some(r), _) => !matches!(self.is_complete(r), Ok(false)),
                (None, Some(g)) => g != self.comms.ids.generation,
                (None, None) => true,
            };
            if !movable {
                i += 1;
                continue;
            }
            let (req, mut task) = self.tasks.remove(i);
            task.yielded_at = None;
            if let Some(task) = self.drive(req, task) {
                self.tasks.insert(i, (req, task));
                i += 1;
            }
        }
    }

    /// Runs `task` until it parks on an incomplete request (returned back)
    /// or finishes (its request completes).
    fn drive(&mut self, req: RequestId, mut task: Task) -> Option<Task> {
        let waker = Waker::from(Arc::new(NoWake));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Some(r) = task.parked {
                match self.is_complete(r) {
                    Ok(false) => return Some(task),
                    Ok(true) => {
                        let c = self
                            .take_completion(r)
                            .map(|c| c.unwrap_or_else(Completion::inactive));
                        task.io.reply(Reply::Done(c));
                    }
                    Err(e) => task.io.reply(Reply::Done(Err(e))),
                }
                task.parked = None;
            }
            match task.fut.as_mut().poll(&mut cx) {
                Poll::Ready(out) => {
                    self.finish_task(req, out, &task);
                    return None;
                }
                Poll::Pending => match task.io.take_cmd() {
                    Some(Cmd::Wait(r)) => task.parked = Some(r),
                    Some(Cmd::Yield) => {
                        // Driven again by advance_tasks once an agreement
                        // ended or a block was freed.
                        task.yielded_at = Some(self.comms.ids.generation);
                        task.io.reply(Reply::Ack);
                        return Some(task);
                    }
                    Some(cmd) => {
                        let reply = self.execute(cmd);
                        task.io.reply(reply);
                    }
                    None => {
                        // Only commands suspend an algorithm.
                        self.finish_task(req, Err(MpiError::Other), &task);
                        return None;
                    }
                },
            }
        }
    }

    fn execute(&mut self, cmd: Cmd) -> Reply {
        match cmd {
            Cmd::Send {
                dst,
                data,
                context,
                tag,
                call,
                flags,
            } => {
                let r = self.reqs.add(Request::new(State::Inactive));
                self.start_send(r, SendMode::Standard, data, dst, context, tag, call, flags);
                Reply::Req(Ok(r))
            }
            Cmd::Recv {
                src,
                len,
                comm,
                context,
                tag,
            } => Reply::Req(
                self.check_revoked(comm)
                    .and_then(|()| self.irecv_world(len as u64, src, tag, comm, context)),
            ),
            Cmd::Wait(_) | Cmd::Yield => unreachable!("waits and yields park the task"),
            Cmd::ReleaseContext(c) => {
                self.comms.ids.release(c);
                Reply::Ack
            }
            Cmd::OfferMask(key, true, true) => Reply::Mask(self.comms.ids.offer_first(key)),
            Cmd::OfferMask(key, true, false) => Reply::Mask(self.comms.ids.offer(key)),
            Cmd::OfferMask(_, false, _) => Reply::Mask(self.comms.ids.offer_all()),
            Cmd::SettleMask(key, agreed, keep) => Reply::Settled(self.comms.ids.settle(
                key,
                agreed.as_deref().map_err(|_| ()),
                keep,
            )),
            Cmd::Reduce {
                op,
                dt,
                count,
                inp,
                mut inout,
            } => Reply::Reduced(
                self.ops
                    .reduce(&self.types, op, dt, count, &inp, &mut inout)
                    .map(|_| inout),
            ),
        }
    }

    fn finish_task(&mut self, req: RequestId, out: MpiResult<TaskOut>, task: &Task) {
        let (error, output) = match out {
            Ok(TaskOut::Out(o)) => (None, o),
            Ok(TaskOut::NewComm { comm, local }) => {
                let mut comm = *comm;
                if let Some(l) = local {
                    let id = self.comms.add(*l);
                    comm.set_local_comm(id);
                }
                let id = match task.into {
                    Some(id) => {
                        self.comms.fill(id, comm);
                        id
                    }
                    None => self.comms.add(comm),
                };
                if let Some(parent) = self.reqs.get(req).ok().and_then(|r| r.comm) {
                    self.inherit_errhandler(parent, id);
                    if task.dup {
                        if let Some(h) = task.hints.or_else(|| self.comm_hints(parent).ok()) {
                            let _ = self.set_comm_hints(id, h);
                        }
                        if let Some(t) = self.topos.get(parent).cloned() {
                            self.topos.set(id, t);
                        }
                    }
                }
                (None, CollOutput::Comm(Some(id)))
            }
            Err(e) => (Some(e), CollOutput::None),
        };
        if self.tasks.is_empty() {
            // No collective under way can still use a freed op.
            self.ops.purge_freed();
        }
        let status = Status {
            error,
            ..Status::empty()
        };
        self.finish(
            req,
            Completion {
                status,
                data: None,
                output,
                freed: false,
            },
        );
    }

    /// Posts a receive from world rank `src` on `context` (a collective's
    /// own matching: its context and tag).
    pub(crate) fn irecv_world(
        &mut self,
        capacity: u64,
        src: u32,
        tag: i32,
        comm: CommId,
        context: u32,
    ) -> MpiResult<RequestId> {
        let req = self.reqs.add(Request::new(State::Pending(Pending::Recv {
            comm,
            capacity,
            phase: crate::request::RecvPhase::Posted,
            target: crate::message_data::MessageData::default(),
            error: None,
        })));
        self.post_recv(req, context, Some(src), Some(tag));
        Ok(req)
    }
}

/// Waits for the network model's release of a timed collective: a
/// [`Kind::Control`](crate::envelope::Kind::Control) message the transport delivers from this rank itself
/// on the call's context and tag, at the modelled end time.
async fn await_release(io: &Io, me: u32, context: u32, tag: i32) -> MpiResult<()> {
    let Reply::Req(r) = io
        .exec(Cmd::Recv {
            src: me,
            len: 0,
            comm: CommId::SELF,
            context,
            tag,
        })
        .await
    else {
        return Err(MpiError::Other);
    };
    match io.exec(Cmd::Wait(r?)).await {
        Reply::Done(c) => c.map(|_| ()),
        _ => Err(MpiError::Other),
    }
}

impl Ctx {
    /// The task's channel to the engine.
    pub(crate) fn io(&self) -> &Io {
        &self.io
    }
}
