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
mod bcast;
mod gather;
mod neighbor;
pub(crate) mod reduce;

use crate::comm::CommId;
use crate::envelope::{CallCode, FLAG_COLL_ERROR};
use crate::error::{MpiError, MpiResult};
use crate::matching::{Source, Tag};
use crate::message_data::MessageData;
use crate::request::{Request, RequestId, SendMode, State};
use crate::transport::Transport;
use crate::Engine;
use std::cell::Cell;

/// The input of a collective: a send buffer, or `MPI_IN_PLACE` with the
/// receive buffer's current contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollInput<'a> {
    /// The send buffer region (`span` of the send datatype and count).
    Buf(&'a [u8]),
    /// `MPI_IN_PLACE`: the receive buffer region each method documents.
    InPlace(&'a [u8]),
}

/// One collective call's view of its communicator, and the first error
/// its algorithm met.
///
/// As in MPICH, an algorithm that meets an error (a truncated receive, a
/// message flagged by a rank that failed before) goes on to the end, so
/// every rank finishes the call and no message is left behind; its later
/// messages carry [`FLAG_COLL_ERROR`] so the ranks downstream fail too
/// (with `MPI_ERR_OTHER`), and the call returns the first error.
#[derive(Clone, Debug)]
pub(crate) struct Ctx {
    pub comm: CommId,
    pub context: u32,
    pub ranks: Vec<u32>,
    pub me: u32,
    pub n: u32,
    pub call: CallCode,
    failed: Cell<Option<MpiError>>,
}

impl Ctx {
    /// Records `e` unless an earlier error was recorded.
    pub(crate) fn fail(&self, e: MpiError) {
        if self.failed.get().is_none() {
            self.failed.set(Some(e));
        }
    }

    /// The first error recorded, if any.
    pub(crate) fn failure(&self) -> Option<MpiError> {
        self.failed.get()
    }

    /// `value`, or the first error recorded during the call.
    pub(crate) fn outcome<R>(&self, value: R) -> MpiResult<R> {
        match self.failed.get() {
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
}

/// Largest power of two not above `n` (n ≥ 1).
pub(crate) fn pof2_floor(n: u32) -> u32 {
    1 << (31 - n.leading_zeros())
}

impl<T: Transport> Engine<T> {
    pub(crate) fn ctx(&mut self, comm: CommId, call: CallCode) -> MpiResult<Ctx> {
        self.note_call();
        let c = self.comm(comm)?;
        Ok(Ctx {
            comm,
            context: c.coll_context(),
            ranks: c.group.ranks.clone(),
            me: c.rank,
            n: c.size(),
            call,
            failed: Cell::new(None),
        })
    }

    /// Sends `data` to member `to`, flagged when this rank already failed.
    pub(crate) fn c_isend(&mut self, c: &Ctx, to: u32, data: Vec<u8>) -> RequestId {
        let req = self.reqs.add(Request::new(State::Inactive));
        let flags = if c.failure().is_some() {
            FLAG_COLL_ERROR
        } else {
            0
        };
        self.start_send(
            req,
            SendMode::Standard,
            data,
            c.ranks[to as usize],
            c.context,
            c.call as i32,
            c.call,
            flags,
        );
        req
    }

    /// Posts the receive of a message from member `from` into `len` bytes.
    pub(crate) fn c_irecv(&mut self, c: &Ctx, from: u32, len: usize) -> MpiResult<RequestId> {
        self.irecv_raw(
            len as u64,
            Source::Rank(from),
            Tag::Value(c.call as i32),
            c.comm,
            c.context,
            None,
            MessageData::default(),
        )
    }

    /// Waits for a receive of `len` bytes: records its error (truncated, or
    /// flagged by a failed sender) and returns exactly `len` bytes.
    pub(crate) fn c_wait(&mut self, c: &Ctx, r: RequestId, len: usize) -> MpiResult<Vec<u8>> {
        let done = self.wait_internal(r)?;
        if let Some(e) = done.status.error {
            c.fail(e);
        }
        Ok(c.fit(done.data.unwrap_or_default(), len))
    }

    pub(crate) fn c_send(&mut self, c: &Ctx, to: u32, data: Vec<u8>) -> MpiResult<()> {
        let r = self.c_isend(c, to, data);
        self.wait_internal(r).map(|_| ())
    }

    /// Receives `len` bytes from member `from` (see [`c_wait`](Self::c_wait)).
    pub(crate) fn c_recv(&mut self, c: &Ctx, from: u32, len: usize) -> MpiResult<Vec<u8>> {
        let r = self.c_irecv(c, from, len)?;
        self.c_wait(c, r, len)
    }

    /// Sends `data` to `to` while receiving `len` bytes from `from`.
    pub(crate) fn c_sendrecv(
        &mut self,
        c: &Ctx,
        to: u32,
        data: Vec<u8>,
        from: u32,
        len: usize,
    ) -> MpiResult<Vec<u8>> {
        let r = self.c_irecv(c, from, len)?;
        let s = self.c_isend(c, to, data);
        self.wait_internal(s)?;
        self.c_wait(c, r, len)
    }
}

#[cfg(test)]
mod mismatch_tests;
#[cfg(test)]
mod tests;
