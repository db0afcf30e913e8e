//! Requests: the state of every nonblocking operation (and of the hidden
//! operations behind buffered sends and collectives), in a table indexed
//! by [`RequestId`].

use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::envelope::{CallCode, Envelope};
use crate::error::{MpiError, MpiResult};
use crate::matching::{Source, Tag};
use crate::message_data::MessageData;
use crate::opaque::Opaque;
use crate::status::Completion;

/// A request handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RequestId(pub u32);

/// Send mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SendMode {
    /// `MPI_Send`: eager up to the eager limit, else rendezvous.
    Standard,
    /// `MPI_Ssend`: completes only once the receive matched.
    Synchronous,
    /// `MPI_Bsend`: completes at once; the data goes out in the background.
    Buffered,
    /// `MPI_Rsend`: like standard.
    Ready,
}

/// Destination of a send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    /// A rank of the communicator.
    Rank(u32),
    /// `MPI_PROC_NULL`.
    ProcNull,
}

/// Where a receive is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RecvPhase {
    /// In the posted queue.
    Posted,
    /// Matched an RTS; the pieces of the data arrive.
    Data {
        /// The RTS.
        rts: Envelope,
        /// Bytes of the message received so far.
        received: u64,
    },
}

/// An operation in progress.
#[derive(Debug)]
pub(crate) enum Pending {
    /// A send waiting for its CTS (rendezvous) or ack (synchronous eager).
    Send {
        /// The data, kept until the CTS (empty when waiting for an ack).
        data: MessageData,
        /// Destination world rank.
        dst: u32,
    },
    Recv {
        comm: CommId,
        capacity: u64,
        phase: RecvPhase,
        /// Where the data goes (at most `capacity` bytes of it).
        target: MessageData,
        /// The data could not be stored there.
        error: Option<MpiError>,
    },
    /// A collective whose task has not finished.
    Coll,
    /// A generalized request the program has not completed yet.
    Generalized,
    /// A send whose message already left, waiting for the reply to
    /// `MPI_Cancel` (which decides whether it was cancelled).
    CancelReply,
    /// `MPI_Rput` and friends: done when the operation's answers arrived.
    Rma,
    /// `MPI_Isendrecv`: done when both of its hidden requests are.
    Pair {
        /// The receive (its status is the pair's).
        recv: RequestId,
        /// The send.
        send: RequestId,
    },
    /// A started persistent collective: done when the nonblocking
    /// collective it started (a hidden request) is.
    Inner(RequestId),
    /// A started partitioned send or receive (see `crate::partitioned`).
    Partitioned,
}

/// Lifecycle of a request.
#[derive(Debug)]
pub(crate) enum State {
    /// A persistent request not started.
    Inactive,
    Pending(Pending),
    Done(Completion),
}

/// The arguments a persistent request starts with.
#[derive(Clone, Debug)]
pub(crate) enum Persist {
    Send {
        mode: SendMode,
        count: usize,
        dt: DatatypeId,
        dest: Dest,
        tag: i32,
        comm: CommId,
        call: CallCode,
    },
    Recv {
        count: usize,
        dt: DatatypeId,
        src: Source,
        tag: Tag,
        comm: CommId,
    },
    /// A persistent collective (MPI 4.0 `MPI_Bcast_init` …): each start
    /// runs `starter`, which the C layer made at the init call, as
    /// collective number `seq` of `comm` (the init calls order them).
    Coll {
        starter: Opaque,
        comm: CommId,
        seq: u32,
    },
    /// `MPI_Psend_init` / `MPI_Precv_init`.
    Partitioned(crate::partitioned::PartSpec),
}

/// One request.
#[derive(Debug)]
pub(crate) struct Request {
    pub state: State,
    pub persistent: Option<Persist>,
    /// `MPI_Request_free` was called, or it is a hidden request: drop it on completion.
    pub free_when_done: bool,
    /// Bytes of the attached buffer it holds (buffered sends).
    pub bsend_bytes: usize,
    /// The communicator of a program's request (for its error handler).
    pub comm: Option<CommId>,
    /// The address of a persistent request's buffer, which the C layer
    /// hands back to the engine as program memory at each start.
    pub buffer_addr: Option<usize>,
    /// A collective's delivery of its output into program memory, run
    /// when the program takes the completion (see
    /// [`Engine::on_collective_done`](crate::Engine::on_collective_done)).
    pub on_done: Option<OnDone>,
    /// A generalized request's callbacks (`MPI_Grequest_start`).
    pub generalized: Option<Opaque>,
    /// The message a send put on the network (for `MPI_Cancel`).
    pub sent: Option<SentMessage>,
    /// The request whose completion waits for this one (the two halves
    /// of an `MPI_Isendrecv`).
    pub parent: Option<RequestId>,
    /// `MPI_Cancel` asked the destination to drop the message; the reply
    /// is awaited (its cancel operation id).
    pub cancelling: Option<u32>,
}

/// A message as its destination knows it: enough to cancel it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SentMessage {
    /// Destination world rank.
    pub dst: u32,
    /// Context id.
    pub context: u32,
    /// Sequence number per (source, destination, context).
    pub seq: u32,
    /// The request sending it (the send's own, or the hidden one of a
    /// buffered send).
    pub carrier: RequestId,
}

/// A collective's delivery of its output (see [`crate::collectives::CollFinish`]).
pub(crate) struct OnDone(pub crate::collectives::CollFinish);

impl std::fmt::Debug for OnDone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnDone")
    }
}

impl Request {
    pub fn new(state: State) -> Request {
        Request {
            state,
            persistent: None,
            free_when_done: false,
            bsend_bytes: 0,
            comm: None,
            buffer_addr: None,
            on_done: None,
            generalized: None,
            sent: None,
            parent: None,
            cancelling: None,
        }
    }
}

/// The request table.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    slots: Vec<Option<Request>>,
    free: Vec<u32>,
}

impl Requests {
    pub fn add(&mut self, r: Request) -> RequestId {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(r);
                RequestId(i)
            }
            None => {
                self.slots.push(Some(r));
                RequestId(self.slots.len() as u32 - 1)
            }
        }
    }

    /// Whether an operation on `comm` is under way.
    pub fn any_pending_on(&self, comm: crate::comm::CommId) -> bool {
        self.slots
            .iter()
            .flatten()
            .any(|r| r.comm == Some(comm) && matches!(r.state, State::Pending(_)))
    }

    /// Receives pending on any of `comms`.
    pub fn pending_receives_on(&self, comms: &[crate::comm::CommId]) -> Vec<RequestId> {
        (self.slots.iter().enumerate())
            .filter(|(_, r)| {
                r.as_ref().is_some_and(|r| {
                    matches!(&r.state, State::Pending(Pending::Recv { comm, .. }) if comms.contains(comm))
                })
            })
            .map(|(i, _)| RequestId(i as u32))
            .collect()
    }

    pub fn get(&self, id: RequestId) -> MpiResult<&Request> {
        self.slots
            .get(id.0 as usize)
            .and_then(|r| r.as_ref())
            .ok_or(MpiError::Request)
    }

    pub fn get_mut(&mut self, id: RequestId) -> MpiResult<&mut Request> {
        self.slots
            .get_mut(id.0 as usize)
            .and_then(|r| r.as_mut())
            .ok_or(MpiError::Request)
    }

    pub fn remove(&mut self, id: RequestId) -> MpiResult<Request> {
        let r = self
            .slots
            .get_mut(id.0 as usize)
            .and_then(|r| r.take())
            .ok_or(MpiError::Request)?;
        self.free.push(id.0);
        Ok(r)
    }
}
