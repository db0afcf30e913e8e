//! Collective operations as point-to-point algorithms on the
//! communicator's collective context, with MPICH's algorithm choices (see
//! [`CollThresholds`](crate::engine::CollThresholds) for the sizes):
//!
//! | call | algorithm |
//! |---|---|
//! | barrier | dissemination |
//! | bcast | binomial tree (short or < 8 ranks); scatter + recursive-doubling allgather (medium, power of two); scatter + ring allgather (long) |
//! | reduce | binomial tree (non-commutative ops: rooted at 0 in rank order, then sent to the root) |
//! | allreduce | recursive doubling (short, non-commutative, or count < 2^⌊log2 p⌋); Rabenseifner reduce-scatter + allgather (long) |
//! | gather / scatter | binomial tree |
//! | gatherv / scatterv | linear |
//! | allgather | recursive doubling (power of two, total < long); Bruck (total < short); ring |
//! | allgatherv | ring |
//! | alltoall | Bruck (block ≤ short, ≥ 8 ranks); all isend/irecv at once (block ≤ medium); pairwise exchange |
//! | alltoallv | pairwise exchange |
//! | reduce_scatter(_block) | recursive halving (commutative); binomial reduce + linear scatterv (non-commutative) |
//! | scan / exscan | recursive doubling |
//!
//! Non-powers of two fold the extra ranks into their neighbours first, as
//! MPICH does. Every algorithm works on packed bytes; results are packed
//! bytes for the C layer to unpack with the receive datatype.
//!
//! `MPI_IN_PLACE` is [`CollInput::InPlace`], which carries the current
//! contents of the receive buffer: the region given by
//! [`Datatypes::span`](crate::datatype::Datatypes::span) (or `span_blocks`)
//! that each method names.

mod alltoall;
pub(crate) mod bcast;
pub(crate) mod gather;
mod inter;
mod neighbor;
pub(crate) mod reduce;
pub(crate) mod task;

pub use alltoall::AlltoallwArgs;
pub use gather::ScatterRecv;
pub use task::{CollFinish, CollOutput};

/// Which form of a collective the program called. Both run the same
/// algorithm; they differ in the call code their messages carry and in
/// what the network model is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `MPI_Bcast` and the like: the caller waits for the request.
    Blocking,
    /// `MPI_Ibcast` and the like: the program gets the request.
    Nonblocking,
}

impl Form {
    /// The call code of blocking call `call` in this form.
    pub fn call(self, call: CallCode) -> CallCode {
        match self {
            Form::Blocking => call,
            Form::Nonblocking => call.nonblocking(),
        }
    }
}

/// `MPI_ROOT` as the root of a rooted collective on an intercommunicator
/// (this rank is the root).
pub const ROOT_HERE: u32 = u32::MAX;
/// `MPI_PROC_NULL` as the root of a rooted collective on an
/// intercommunicator (another member of this group is the root).
pub const ROOT_NULL: u32 = u32::MAX - 1;

use crate::comm::CommId;
use crate::envelope::{CallCode, FLAG_COLL_ERROR};
use crate::error::{MpiError, MpiResult};
use crate::request::RequestId;
use crate::status::Completion;
use crate::transport::{CollectiveStart, Transport};
use crate::Engine;
use reduce::Red;
use task::{Cmd, Io, Reply};

/// The input of a collective: a send buffer, or `MPI_IN_PLACE` with the
/// receive buffer's current contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollInput<'a> {
    /// The send buffer region (`span` of the send datatype and count).
    Buf(&'a [u8]),
    /// `MPI_IN_PLACE`: the receive buffer region each method documents.
    InPlace(&'a [u8]),
}

/// One collective call's view of a communicator: the members its rank
/// numbers name, its own matching (context and a tag unique to the call),
/// and the channel to the engine that runs its commands.
///
/// As in MPICH, an algorithm that meets an error (a truncated receive, a
/// message flagged by a rank that failed before) goes on to the end, so
/// every rank finishes the call and no message is left behind; its later
/// messages carry [`FLAG_COLL_ERROR`] so the ranks downstream fail too
/// (with `MPI_ERR_OTHER`), and the call returns the first error. The first
/// error is shared by every `Ctx` of one call.
pub(crate) struct Ctx {
    pub comm: CommId,
    /// Context its messages are received on.
    pub context: u32,
    /// Context its messages are sent on (the remote group's receive
    /// context on an intercommunicator, else `context`).
    pub send_context: u32,
    /// World rank of each member that rank numbers name here (on an
    /// intercommunicator: the remote group).
    pub ranks: Vec<u32>,
    /// This process's rank (in its local group).
    pub me: u32,
    /// Number of members in `ranks`.
    pub n: u32,
    /// Number of members of this rank's own group (`n` on an
    /// intracommunicator).
    pub local_n: u32,
    pub call: CallCode,
    /// The call's tag: its sequence number on the communicator and its
    /// call code, so concurrent collectives never match each other.
    pub tag: i32,
    /// Envelope flags of every message (the intercommunicator flag).
    pub flags: u8,
    io: Io,
}

/// The tag of the `seq`-th collective call on a communicator: the sequence
/// number (23 bits) above the call code (8 bits), never negative.
pub fn coll_tag(seq: u32, call: CallCode) -> i32 {
    (((seq & 0x7F_FFFF) << 8) | call as u32) as i32
}

impl Ctx {
    /// Records `e` unless an earlier error of the call was recorded.
    pub(crate) fn fail(&self, e: MpiError) {
        self.io.fail(e)
    }

    /// The first error recorded, if any.
    pub(crate) fn failure(&self) -> Option<MpiError> {
        self.io.failure()
    }

    /// `value`, or the first error recorded during the call.
    pub(crate) fn outcome<R>(&self, value: R) -> MpiResult<R> {
        match self.failure() {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }

    /// `data` cut or padded to the `len` bytes this rank expects of a
    /// block: more is a truncation (recorded, as MPICH's receive into a
    /// `len`-byte buffer fails); less leaves the rest zero, as MPICH leaves
    /// the buffer's rest unwritten.
    pub(crate) fn fit(&self, mut data: Vec<u8>, len: usize) -> Vec<u8> {
        if data.len() > len {
            self.fail(MpiError::Truncate);
        }
        data.resize(len, 0);
        data
    }

    /// Starts sending `data` to member `to`, flagged when this rank
    /// already failed.
    pub(crate) async fn isend(&self, to: u32, data: Vec<u8>) -> MpiResult<RequestId> {
        let flags = self.flags
            | if self.failure().is_some() {
                FLAG_COLL_ERROR
            } else {
                0
            };
        let cmd = Cmd::Send {
            dst: self.ranks[to as usize],
            data,
            context: self.send_context,
            tag: self.tag,
            call: self.call,
            flags,
        };
        match self.io.exec(cmd).await {
            Reply::Req(r) => r,
            _ => Err(MpiError::Other),
        }
    }

    /// Posts the receive of a message from member `from` into `len` bytes.
    pub(crate) async fn irecv(&self, from: u32, len: usize) -> MpiResult<RequestId> {
        let cmd = Cmd::Recv {
            src: self.ranks[from as usize],
            len,
            comm: self.comm,
            context: self.context,
            tag: self.tag,
        };
        match self.io.exec(cmd).await {
            Reply::Req(r) => r,
            _ => Err(MpiError::Other),
        }
    }

    /// Waits for a request and takes its completion.
    pub(crate) async fn wait(&self, r: RequestId) -> MpiResult<Completion> {
        match self.io.exec(Cmd::Wait(r)).await {
            Reply::Done(c) => c,
            _ => Err(MpiError::Other),
        }
    }

    /// Waits for a receive of `len` bytes: records its error (truncated, or
    /// flagged by a failed sender) and returns exactly `len` bytes.
    pub(crate) async fn wait_recv(&self, r: RequestId, len: usize) -> MpiResult<Vec<u8>> {
        let done = self.wait(r).await?;
        if let Some(e) = done.status.error {
            self.fail(e);
        }
        Ok(self.fit(done.data.unwrap_or_default(), len))
    }

    /// Waits for a receive of `len` bytes, returning what arrived (at most
    /// `len` bytes) and recording the receive's error.
    pub(crate) async fn wait_recv_raw(&self, r: RequestId) -> MpiResult<(Vec<u8>, bool)> {
        let done = self.wait(r).await?;
        let failed = done.status.error.is_some();
        if let Some(e) = done.status.error {
            self.fail(e);
        }
        Ok((done.data.unwrap_or_default(), failed))
    }

    /// Sends `data` to member `to` and waits until the send is done.
    pub(crate) async fn send(&self, to: u32, data: Vec<u8>) -> MpiResult<()> {
        let r = self.isend(to, data).await?;
        self.wait(r).await.map(|_| ())
    }

    /// Receives `len` bytes from member `from` (see [`Ctx::wait_recv`]).
    pub(crate) async fn recv(&self, from: u32, len: usize) -> MpiResult<Vec<u8>> {
        let r = self.irecv(from, len).await?;
        self.wait_recv(r, len).await
    }

    /// Sends `data` to `to` while receiving `len` bytes from `from`.
    pub(crate) async fn sendrecv(
        &self,
        to: u32,
        data: Vec<u8>,
        from: u32,
        len: usize,
    ) -> MpiResult<Vec<u8>> {
        let r = self.irecv(from, len).await?;
        let s = self.isend(to, data).await?;
        self.wait(s).await?;
        self.wait_recv(r, len).await
    }

    /// `inout = inp op inout` on packed elements.
    pub(crate) async fn reduce(&self, r: Red, inp: &[u8], inout: &mut [u8]) -> MpiResult<()> {
        let cmd = Cmd::Reduce {
            op: r.op,
            dt: r.dt,
            count: inp.len().checked_div(r.es).unwrap_or(0),
            inp: inp.to_vec(),
            inout: inout.to_vec(),
        };
        match self.io.exec(cmd).await {
            Reply::Reduced(Ok(out)) => {
                inout.copy_from_slice(&out);
                Ok(())
            }
            Reply::Reduced(Err(e)) => Err(e),
            _ => Err(MpiError::Other),
        }
    }

    /// `acc = acc op later` where `later` comes from higher ranks.
    pub(crate) async fn reduce_after(
        &self,
        r: Red,
        acc: &mut Vec<u8>,
        mut later: Vec<u8>,
    ) -> MpiResult<()> {
        self.reduce(r, acc, &mut later).await?;
        *acc = later;
        Ok(())
    }
}

/// Largest power of two not above `n` (n ≥ 1).
pub(crate) fn pof2_floor(n: u32) -> u32 {
    1 << (31 - n.leading_zeros())
}

impl<T: Transport> Engine<T> {
    /// A new call's context on `comm` (counted as an MPI call).
    pub(crate) fn ctx(&mut self, comm: CommId, call: CallCode) -> MpiResult<Ctx> {
        self.note_call();
        self.ctx_with(comm, call, &Io::default())
    }

    /// The context of a call on `comm` whose commands go through `io`
    /// (an intercommunicator's call also works on its local group): takes
    /// the communicator's next collective sequence number.
    pub(crate) fn ctx_with(&mut self, comm: CommId, call: CallCode, io: &Io) -> MpiResult<Ctx> {
        let c = self.comms.get_mut(comm)?;
        let seq = match self.persistent_seq {
            // A persistent collective's start: the number its init took.
            Some((pc, seq)) if pc == comm => {
                self.persistent_seq = None;
                seq
            }
            _ => {
                let seq = c.coll_seq;
                c.coll_seq = seq.wrapping_add(1);
                seq
            }
        };
        // A collective on a revoked communicator fails, having taken its
        // number like on the members that began it before they knew.
        self.check_revoked(comm)?;
        self.ctx_tagged(comm, call, coll_tag(seq, call), io)
    }

    /// The context of a call on `comm` with tag `tag`, which takes no
    /// sequence number (calls of a subset of its members, such as
    /// `MPI_Comm_create_group` and `MPI_Intercomm_create`, use negative
    /// tags derived from the program's tag).
    pub(crate) fn ctx_tagged(
        &self,
        comm: CommId,
        call: CallCode,
        tag: i32,
        io: &Io,
    ) -> MpiResult<Ctx> {
        let c = self.comms.get(comm)?;
        io.name_comm(comm);
        Ok(Ctx {
            comm,
            context: c.coll_context(),
            send_context: c.send_coll_context(),
            ranks: c.peers().ranks.clone(),
            me: c.rank,
            n: c.peers().ranks.len() as u32,
            local_n: c.size(),
            call,
            tag,
            flags: c.envelope_flags(),
            io: io.clone(),
        })
    }

    /// Starts sending `data` to member `to` of `c` from code that runs to
    /// its end in one call (not as a task), flagged when `c` already failed.
    pub(crate) fn c_isend(&mut self, c: &Ctx, to: u32, data: Vec<u8>) -> RequestId {
        let r = self.reqs.add(crate::request::Request::new(
            crate::request::State::Inactive,
        ));
        let flags = c.flags
            | if c.failure().is_some() {
                FLAG_COLL_ERROR
            } else {
                0
            };
        let dst = c.ranks[to as usize];
        self.start_send(
            r,
            crate::request::SendMode::Standard,
            data,
            dst,
            c.send_context,
            c.tag,
            c.call,
            flags,
        );
        r
    }

    /// Posts the receive of `len` bytes from member `from` of `c` (see
    /// [`c_isend`](Self::c_isend)).
    pub(crate) fn c_irecv(&mut self, c: &Ctx, from: u32, len: usize) -> MpiResult<RequestId> {
        self.irecv_world(len as u64, c.ranks[from as usize], c.tag, c.comm, c.context)
    }

    /// Waits for a receive of `len` bytes (see [`c_isend`](Self::c_isend)):
    /// records its error and returns exactly `len` bytes.
    pub(crate) fn c_wait(&mut self, c: &Ctx, r: RequestId, len: usize) -> MpiResult<Vec<u8>> {
        let done = self.wait_internal(r)?;
        if let Some(e) = done.status.error {
            c.fail(e);
        }
        Ok(c.fit(done.data.unwrap_or_default(), len))
    }

    /// Agrees over `parent` on the context block of a communicator made
    /// from it (the topology constructors); a member that gets no
    /// communicator (`keep` false) takes part without taking the block.
    pub(crate) fn agree_context(
        &mut self,
        parent: CommId,
        call: CallCode,
        keep: bool,
    ) -> MpiResult<u32> {
        let c = self.ctx(parent, call)?;
        let th = self.cfg.coll;
        let t = task::Task::new(c.io().clone(), async move {
            let ctx = crate::comm_create::agree_intra(&c, th, keep).await?;
            Ok(CollOutput::Bytes(ctx.to_le_bytes().to_vec()).into())
        });
        let b = self.run_task(t)?.into_bytes();
        Ok(u32::from_le_bytes(
            b.try_into().map_err(|_| MpiError::Other)?,
        ))
    }

    /// What the network model is told about call `c`: its members, root
    /// and the bytes its arguments describe.
    pub(crate) fn report(
        &self,
        c: &Ctx,
        sent: u64,
        received: u64,
        is_root: bool,
    ) -> CollectiveStart {
        let comm = self.comms.get_any(c.comm);
        let (leader, members) = match comm {
            Some(k) => (k.leader(), k.total_size()),
            None => (c.ranks.first().copied().unwrap_or(0), c.n),
        };
        CollectiveStart {
            context: c.context.min(c.send_context),
            recv_context: c.context,
            tag: c.tag,
            leader,
            call: c.call,
            members,
            is_root,
            sent_bytes: sent,
            received_bytes: received,
        }
    }
}

#[cfg(test)]
mod inter_tests;
#[cfg(test)]
mod mismatch_tests;
#[cfg(test)]
mod nonblocking_tests;
#[cfg(test)]
mod tests;
