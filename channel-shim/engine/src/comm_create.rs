//! Creating communicators, as collective tasks over the parent (so the
//! nonblocking `MPI_Comm_idup` is the same algorithm as `MPI_Comm_dup`):
//! dup, create, split, split by node, create over a group, and the
//! intercommunicator calls (create, merge, and dup/create/split of an
//! intercommunicator). Every new communicator's context block is agreed
//! on with [`crate::context`]'s mask algorithm.

use crate::collectives::bcast::bcast_bytes;
use crate::collectives::gather::allgather_bytes;
use crate::collectives::reduce::{allreduce_bytes, Red};
use crate::collectives::task::{Cmd, CollOutput, Io, Reply, Task, TaskOut};
use crate::collectives::Ctx;
use crate::comm::{Comm, CommId};
use crate::context::{Settled, MASK_WORDS};
use crate::datatype::{BuiltinType, DatatypeId};
use crate::engine::CollThresholds;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::group::{Group, GroupId};
use crate::op::{BuiltinOp, OpId};
use crate::request::RequestId;
use crate::transport::Transport;
use crate::Engine;

/// `MPI_Comm_split_type`'s kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitType {
    /// `MPI_COMM_TYPE_SHARED`: the ranks on one simulated host.
    Shared,
    /// `MPI_UNDEFINED`: this rank gets no communicator.
    Undefined,
}

/// The bitwise AND of context masks.
fn band() -> Red {
    Red {
        op: OpId::Builtin(BuiltinOp::Band),
        dt: DatatypeId::Builtin(BuiltinType::UnsignedLong),
        es: 8,
        commutative: true,
    }
}

/// Agrees with the members of `c` on a context block free at all of them
/// (rounds of an allreduce of masks until one succeeds); a member that
/// gets no communicator (`keep` false) takes part without constraining
/// the choice or taking the block.
pub(crate) async fn agree_intra(c: &Ctx, th: CollThresholds, keep: bool) -> MpiResult<u32> {
    let key = (c.context, c.tag);
    let mut first = true;
    loop {
        let was_first = std::mem::take(&mut first);
        let mine = offer(c.io(), key, keep, was_first).await?;
        let all = allreduce_bytes(c, th, band(), mine, MASK_WORDS).await;
        match settle(c.io(), key, &all, keep).await? {
            Settled::Context(x) => return Ok(x),
            // Alone after the first round, the next round would find the
            // same (another agreement holds the mask): wait until one
            // gives it back or ends.
            Settled::Retry if c.n == 1 && !was_first => yield_now(c.io()).await?,
            Settled::Retry => {}
            Settled::Exhausted => return Err(all.err().unwrap_or(MpiError::Other)),
        }
    }
}

/// Lets the other tasks run until messages have arrived.
async fn yield_now(io: &Io) -> MpiResult<()> {
    match io.exec(Cmd::Yield).await {
        Reply::Ack => Ok(()),
        _ => Err(MpiError::Other),
    }
}

/// Agrees with both groups of an intercommunicator on one context block
/// free at all of them: an allreduce in each group (`lc`), an exchange
/// between the groups' ranks 0 (`ic`) and a broadcast in each group.
pub(crate) async fn agree_inter(lc: &Ctx, ic: &Ctx, th: CollThresholds) -> MpiResult<u32> {
    let key = (lc.context, lc.tag);
    let mut first = true;
    loop {
        let mine = offer(lc.io(), key, true, std::mem::take(&mut first)).await?;
        let all = async {
            let mut all = allreduce_bytes(lc, th, band(), mine, MASK_WORDS).await?;
            if lc.me == 0 {
                let len = all.len();
                let theirs = ic.sendrecv(0, all.clone(), 0, len).await?;
                for (a, b) in all.iter_mut().zip(theirs) {
                    *a &= b;
                }
            }
            let len = all.len();
            bcast_bytes(lc, th, 0, &mut all, len).await?;
            Ok(all)
        }
        .await;
        match settle(lc.io(), key, &all, true).await? {
            Settled::Context(x) => return Ok(x),
            Settled::Retry => {}
            Settled::Exhausted => return Err(all.err().unwrap_or(MpiError::Other)),
        }
    }
}

/// Frees again a context block taken for a communicator that is not
/// made after all.
async fn release(io: &Io, context: u32) -> MpiResult<()> {
    match io.exec(Cmd::ReleaseContext(context)).await {
        Reply::Ack => Ok(()),
        _ => Err(MpiError::Other),
    }
}

async fn offer(io: &Io, key: (u32, i32), keep: bool, first: bool) -> MpiResult<Vec<u8>> {
    match io.exec(Cmd::OfferMask(key, keep, first)).await {
        Reply::Mask(m) => Ok(m),
        _ => Err(MpiError::Other),
    }
}

async fn settle(
    io: &Io,
    key: (u32, i32),
    all: &MpiResult<Vec<u8>>,
    keep: bool,
) -> MpiResult<Settled> {
    let agreed = all.clone().map_err(|_| ());
    match io.exec(Cmd::SettleMask(key, agreed, keep)).await {
        Reply::Settled(s) => Ok(s),
        _ => Err(MpiError::Other),
    }
}

/// Exchanges `mine` for the other group's block between the two ranks 0
/// of an intercommunicator and broadcasts it in each group: a length
/// first, then the bytes.
async fn swap_and_share(
    lc: &Ctx,
    ic: &Ctx,
    th: CollThresholds,
    mine: Vec<u8>,
) -> MpiResult<Vec<u8>> {
    let mut len = Vec::new();
    let mut theirs = Vec::new();
    if lc.me == 0 {
        let l = ic
            .sendrecv(0, (mine.len() as u32).to_le_bytes().to_vec(), 0, 4)
            .await?;
        len = l.clone();
        let n = word(&l, 0)? as usize;
        theirs = ic.sendrecv(0, mine, 0, n).await?;
    }
    bcast_bytes(lc, th, 0, &mut len, 4).await?;
    let n = word(&len, 0)? as usize;
    bcast_bytes(lc, th, 0, &mut theirs, n).await?;
    Ok(theirs)
}

/// Little-endian word `i` of `b`.
fn word(b: &[u8], i: usize) -> MpiResult<u32> {
    b.get(4 * i..4 * i + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or(MpiError::Other)
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn read_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// Bytes each member contributes to a split's exchange: colour defined
/// (0/1), colour, key, as little-endian words.
const SPLIT_ENTRY_LEN: usize = 12;

fn split_entry(color: Option<i32>, key: i32) -> Vec<u8> {
    words(&[
        u32::from(color.is_some()),
        color.unwrap_or(0) as u32,
        key as u32,
    ])
}

/// (colour, key) of every member from a split's exchange.
fn split_entries(all: &[u8]) -> MpiResult<Vec<(Option<i32>, i32)>> {
    all.chunks(SPLIT_ENTRY_LEN)
        .map(|b| {
            let color = (word(b, 0)? != 0).then_some(word(b, 1)? as i32);
            Ok((color, word(b, 2)? as i32))
        })
        .collect()
}

/// The members (as world ranks, from `ranks`) whose colour is `color`,
/// ordered by (key, rank).
fn members_of(entries: &[(Option<i32>, i32)], ranks: &[u32], color: i32) -> Vec<u32> {
    let mut m: Vec<(i32, usize)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.0 == Some(color))
        .map(|(r, e)| (e.1, r))
        .collect();
    m.sort_unstable();
    m.into_iter().map(|(_, r)| ranks[r]).collect()
}

/// What every intercommunicator built from another keeps: its groups and
/// which one is low.
struct InterShape {
    local: Group,
    remote: Group,
    is_low: bool,
    local_comm: CommId,
}

fn new_inter(recv: u32, send: u32, local: Group, remote: Group, me: u32, is_low: bool) -> TaskOut {
    TaskOut::NewComm {
        local: Some(Box::new(Comm::new(recv + 2, local.clone(), me))),
        comm: Box::new(Comm::new_inter(recv, send, local, remote, me, is_low)),
    }
}

impl<T: Transport> Engine<T> {
    fn inter_shape(&self, comm: CommId) -> MpiResult<Option<InterShape>> {
        let c = self.comm(comm)?;
        Ok(c.inter.as_ref().map(|i| InterShape {
            local: c.group.clone(),
            remote: i.remote.clone(),
            is_low: i.is_low,
            local_comm: i.local_comm.unwrap_or(comm),
        }))
    }

    /// The contexts of one call on an intercommunicator: its local
    /// group's (`lc`) and the one between the groups (`ic`).
    fn inter_ctxs(&mut self, comm: CommId, local: CommId, call: CallCode) -> MpiResult<(Ctx, Ctx)> {
        let ic = self.ctx(comm, call)?;
        let lc = self.ctx_with(local, call, ic.io())?;
        Ok((lc, ic))
    }

    /// Waits for a communicator-creation task: the new communicator, or
    /// `None` (`MPI_COMM_NULL`).
    pub fn wait_comm(&mut self, r: RequestId) -> MpiResult<Option<CommId>> {
        let c = self.wait_internal(r)?;
        match c.status.error {
            Some(e) => Err(e),
            None => new_comm(c.output),
        }
    }

    /// `MPI_Comm_dup` (collective over `comm`).
    pub fn comm_dup(&mut self, comm: CommId) -> MpiResult<CommId> {
        let r = self.start_comm_dup(comm)?;
        self.wait_comm(r)?.ok_or(MpiError::Other)
    }

    /// The task of [`comm_dup`](Self::comm_dup), started: the request's
    /// output is `CollOutput::Comm(Some(id))`.
    pub fn start_comm_dup(&mut self, comm: CommId) -> MpiResult<RequestId> {
        let t = self.dup_task(comm, CallCode::Comm_dup)?;
        Ok(self.start_task(t.duplicate()))
    }

    /// `MPI_Comm_idup`: the new communicator's handle now (with the
    /// parent's error handler; attributes and names may be set at once,
    /// communication waits until the request completes) and the request.
    pub fn comm_idup(&mut self, comm: CommId) -> MpiResult<(CommId, RequestId)> {
        self.idup(comm, None)
    }

    /// `MPI_Comm_idup_with_info`: as [`comm_idup`](Self::comm_idup), the
    /// new communicator with `hints` instead of its parent's.
    pub fn comm_idup_with_hints(
        &mut self,
        comm: CommId,
        hints: crate::info::CommHints,
    ) -> MpiResult<(CommId, RequestId)> {
        self.idup(comm, Some(hints))
    }

    fn idup(
        &mut self,
        comm: CommId,
        hints: Option<crate::info::CommHints>,
    ) -> MpiResult<(CommId, RequestId)> {
        // On the wire both forms are MPI_Comm_idup's agreement.
        let mut t = self.dup_task(comm, CallCode::Comm_idup)?.duplicate();
        if let Some(h) = hints {
            t = t.with_hints(h);
        }
        let placeholder = self.comm(comm)?.pending_copy();
        let id = self.comms.reserve(placeholder);
        if let Some(h) = hints {
            self.set_comm_hints(id, h)?;
        }
        self.inherit_errhandler(comm, id);
        Ok((id, self.start_task(t.into_comm(id))))
    }

    pub(crate) fn dup_task(&mut self, comm: CommId, call: CallCode) -> MpiResult<Task> {
        let th = self.cfg.coll;
        let me = self.t.rank();
        if let Some(s) = self.inter_shape(comm)? {
            let (lc, ic) = self.inter_ctxs(comm, s.local_comm, call)?;
            return Ok(Task::new(ic.io().clone(), async move {
                let recv = agree_intra(&lc, th, true).await?;
                let send = swap_and_share(&lc, &ic, th, words(&[recv])).await?;
                let send = word(&send, 0)?;
                Ok(new_inter(recv, send, s.local, s.remote, me, s.is_low))
            }));
        }
        let group = self.comm(comm)?.group.clone();
        let c = self.ctx(comm, call)?;
        Ok(Task::new(c.io().clone(), async move {
            let ctx = agree_intra(&c, th, true).await?;
            Ok(TaskOut::NewComm {
                comm: Box::new(Comm::new(ctx, group, me)),
                local: None,
            })
        }))
    }

    /// `MPI_Comm_create` (collective over `comm`): members of `group` get the
    /// new communicator, the others `None` (`MPI_COMM_NULL`). On an
    /// intercommunicator `group` is part of the local group, and the result
    /// joins it to the part the other group named (`None` when either part
    /// is empty).
    pub fn comm_create(&mut self, comm: CommId, group: GroupId) -> MpiResult<Option<CommId>> {
        let r = self.start_comm_create(comm, group)?;
        self.wait_comm(r)
    }

    /// The task of [`comm_create`](Self::comm_create), started.
    pub fn start_comm_create(&mut self, comm: CommId, group: GroupId) -> MpiResult<RequestId> {
        let g = self.groups.get(group)?.clone();
        let parent = self.comm(comm)?;
        if g.ranks
            .iter()
            .any(|w| parent.local_rank_of_world(*w).is_none())
        {
            return Err(MpiError::Group);
        }
        let th = self.cfg.coll;
        let me = self.t.rank();
        let call = CallCode::Comm_create;
        let t = if let Some(s) = self.inter_shape(comm)? {
            let (lc, ic) = self.inter_ctxs(comm, s.local_comm, call)?;
            Task::new(ic.io().clone(), async move {
                let member = g.rank_of(me).is_some();
                let recv = agree_intra(&lc, th, member).await?;
                let send = swap_and_share(&lc, &ic, th, words(&[recv])).await?;
                let send = word(&send, 0)?;
                let remote = read_words(&swap_and_share(&lc, &ic, th, words(&g.ranks)).await?);
                if !member || remote.is_empty() {
                    if member {
                        release(lc.io(), recv).await?;
                    }
                    return Ok(TaskOut::Out(CollOutput::Comm(None)));
                }
                let remote = Group { ranks: remote };
                Ok(new_inter(recv, send, g, remote, me, s.is_low))
            })
        } else {
            let c = self.ctx(comm, call)?;
            Task::new(c.io().clone(), async move {
                let ctx = agree_intra(&c, th, g.rank_of(me).is_some()).await?;
                if g.rank_of(me).is_none() {
                    return Ok(TaskOut::Out(CollOutput::Comm(None)));
                }
                Ok(TaskOut::NewComm {
                    comm: Box::new(Comm::new(ctx, g, me)),
                    local: None,
                })
            })
        };
        Ok(self.start_task(t))
    }

    /// `MPI_Comm_split` (collective over `comm`): `color` `None` is
    /// `MPI_UNDEFINED` (the caller gets `None`); any other colour, negative
    /// ones included (MPICH accepts them), names a new communicator whose
    /// members are ordered by (key, rank in `comm`). On an
    /// intercommunicator each colour's members of both groups form a new
    /// intercommunicator (`None` when the other group has none).
    pub fn comm_split(
        &mut self,
        comm: CommId,
        color: Option<i32>,
        key: i32,
    ) -> MpiResult<Option<CommId>> {
        let r = self.start_comm_split(comm, color, key)?;
        self.wait_comm(r)
    }

    /// The task of [`comm_split`](Self::comm_split), started.
    pub fn start_comm_split(
        &mut self,
        comm: CommId,
        color: Option<i32>,
        key: i32,
    ) -> MpiResult<RequestId> {
        let t = self.split_task(comm, color, key, CallCode::Comm_split)?;
        Ok(self.start_task(t))
    }

    /// `MPI_Comm_split_type`: `Shared` groups the ranks by the simulated
    /// host they run on ([`Transport::node`]), ordered by (key, rank).
    pub fn comm_split_type(
        &mut self,
        comm: CommId,
        kind: SplitType,
        key: i32,
    ) -> MpiResult<Option<CommId>> {
        let r = self.start_comm_split_type(comm, kind, key)?;
        self.wait_comm(r)
    }

    /// The task of [`comm_split_type`](Self::comm_split_type), started.
    pub fn start_comm_split_type(
        &mut self,
        comm: CommId,
        kind: SplitType,
        key: i32,
    ) -> MpiResult<RequestId> {
        let color = match kind {
            SplitType::Shared => Some(self.t.node() as i32),
            SplitType::Undefined => None,
        };
        let t = self.split_task(comm, color, key, CallCode::Comm_split_type)?;
        Ok(self.start_task(t))
    }

    fn split_task(
        &mut self,
        comm: CommId,
        color: Option<i32>,
        key: i32,
        call: CallCode,
    ) -> MpiResult<Task> {
        let th = self.cfg.coll;
        let me = self.t.rank();
        if let Some(s) = self.inter_shape(comm)? {
            let (lc, ic) = self.inter_ctxs(comm, s.local_comm, call)?;
            return Ok(Task::new(ic.io().clone(), async move {
                let mine = allgather_bytes(&lc, th, split_entry(color, key)).await?;
                let recv = agree_intra(&lc, th, color.is_some()).await?;
                let send = swap_and_share(&lc, &ic, th, words(&[recv])).await?;
                let send = word(&send, 0)?;
                let theirs = swap_and_share(&lc, &ic, th, mine.clone()).await?;
                let Some(col) = color else {
                    return Ok(TaskOut::Out(CollOutput::Comm(None)));
                };
                let local = members_of(&split_entries(&mine)?, &s.local.ranks, col);
                let remote = members_of(&split_entries(&theirs)?, &s.remote.ranks, col);
                if remote.is_empty() {
                    release(lc.io(), recv).await?;
                    return Ok(TaskOut::Out(CollOutput::Comm(None)));
                }
                Ok(new_inter(
                    recv,
                    send,
                    Group { ranks: local },
                    Group { ranks: remote },
                    me,
                    s.is_low,
                ))
            }));
        }
        let ranks = self.comm(comm)?.group.ranks.clone();
        let c = self.ctx(comm, call)?;
        Ok(Task::new(c.io().clone(), async move {
            let all = allgather_bytes(&c, th, split_entry(color, key)).await?;
            let ctx = agree_intra(&c, th, color.is_some()).await?;
            let Some(col) = color else {
                return Ok(TaskOut::Out(CollOutput::Comm(None)));
            };
            let members = members_of(&split_entries(&all)?, &ranks, col);
            Ok(TaskOut::NewComm {
                comm: Box::new(Comm::new(ctx, Group { ranks: members }, me)),
                local: None,
            })
        }))
    }

    /// `MPI_Comm_create_group`: collective over the members of `group` only
    /// (a part of `comm`'s group), which all get the new communicator;
    /// `tag` tells concurrent calls apart.
    pub fn comm_create_group(
        &mut self,
        comm: CommId,
        group: GroupId,
        tag: i32,
    ) -> MpiResult<CommId> {
        let r = self.start_comm_create_group(comm, group, tag)?;
        self.wait_comm(r)?.ok_or(MpiError::Other)
    }

    /// The task of [`comm_create_group`](Self::comm_create_group), started.
    pub fn start_comm_create_group(
        &mut self,
        comm: CommId,
        group: GroupId,
        tag: i32,
    ) -> MpiResult<RequestId> {
        self.note_call();
        let g = self.groups.get(group)?.clone();
        let parent = self.comm(comm)?;
        if parent.is_inter() {
            return Err(MpiError::Comm);
        }
        if tag < 0 || tag > self.cfg.tag_ub {
            return Err(MpiError::Tag);
        }
        if g.ranks
            .iter()
            .any(|w| parent.local_rank_of_world(*w).is_none())
        {
            return Err(MpiError::Group);
        }
        let me = self.t.rank();
        let my_rank = g.rank_of(me).ok_or(MpiError::Group)?;
        let th = self.cfg.coll;
        let mut c = self.ctx_tagged(comm, CallCode::Comm_create_group, -1 - tag, &Io::default())?;
        c.ranks = g.ranks.clone();
        c.n = g.ranks.len() as u32;
        c.local_n = c.n;
        c.me = my_rank;
        let t = Task::new(c.io().clone(), async move {
            let ctx = agree_intra(&c, th, true).await?;
            Ok(TaskOut::NewComm {
                comm: Box::new(Comm::new(ctx, g, me)),
                local: None,
            })
        });
        Ok(self.start_task(t))
    }

    /// `MPI_Intercomm_create`: the members of `local_comm` and those of
    /// another group, whose leaders (`local_leader` here, `remote_leader`
    /// in `peer_comm`) exchange the groups and the context ids over
    /// `peer_comm` with `tag`.
    pub fn intercomm_create(
        &mut self,
        local_comm: CommId,
        local_leader: u32,
        peer_comm: CommId,
        remote_leader: u32,
        tag: i32,
    ) -> MpiResult<CommId> {
        let r =
            self.start_intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag)?;
        self.wait_comm(r)?.ok_or(MpiError::Other)
    }

    /// The task of [`intercomm_create`](Self::intercomm_create), started.
    pub fn start_intercomm_create(
        &mut self,
        local_comm: CommId,
        local_leader: u32,
        peer_comm: CommId,
        remote_leader: u32,
        tag: i32,
    ) -> MpiResult<RequestId> {
        let lcomm = self.comm(local_comm)?;
        if lcomm.is_inter() {
            return Err(MpiError::Comm);
        }
        if local_leader >= lcomm.size() {
            return Err(MpiError::Rank);
        }
        if tag < 0 || tag > self.cfg.tag_ub {
            return Err(MpiError::Tag);
        }
        let local = lcomm.group.clone();
        let leading = lcomm.rank == local_leader;
        let me = self.t.rank();
        let th = self.cfg.coll;
        let call = CallCode::Intercomm_create;
        let lc = self.ctx(local_comm, call)?;
        let pc = if leading {
            let p = self.comm(peer_comm)?;
            if remote_leader as usize >= p.peers().ranks.len() {
                return Err(MpiError::Rank);
            }
            if p.peers().ranks[remote_leader as usize] == me {
                return Err(MpiError::Rank);
            }
            Some(self.ctx_tagged(peer_comm, call, -1 - tag, lc.io())?)
        } else {
            None
        };
        let t = Task::new(lc.io().clone(), async move {
            let root = local_leader;
            // The leaders swap their groups (size, then world ranks).
            let mut info = Vec::new();
            let mut remote = Vec::new();
            if let Some(pc) = &pc {
                let n = pc
                    .sendrecv(
                        remote_leader,
                        words(&[local.ranks.len() as u32]),
                        remote_leader,
                        4,
                    )
                    .await?;
                let n = word(&n, 0)? as usize;
                remote = pc
                    .sendrecv(remote_leader, words(&local.ranks), remote_leader, 4 * n)
                    .await?;
                let theirs = read_words(&remote);
                let is_low = local.ranks.first() < theirs.first();
                info = words(&[n as u32, u32::from(is_low)]);
            }
            bcast_bytes(&lc, th, root, &mut info, 8).await?;
            let (n, is_low) = (word(&info, 0)? as usize, word(&info, 1)? != 0);
            bcast_bytes(&lc, th, root, &mut remote, 4 * n).await?;
            let remote = Group {
                ranks: read_words(&remote),
            };
            if remote.ranks.iter().any(|w| local.rank_of(*w).is_some()) {
                return Err(MpiError::Comm);
            }
            let recv = agree_intra(&lc, th, true).await?;
            let mut send = Vec::new();
            if let Some(pc) = &pc {
                send = pc
                    .sendrecv(remote_leader, words(&[recv]), remote_leader, 4)
                    .await?;
            }
            bcast_bytes(&lc, th, root, &mut send, 4).await?;
            let send = word(&send, 0)?;
            Ok(new_inter(recv, send, local, remote, me, is_low))
        });
        Ok(self.start_task(t))
    }

    /// `MPI_Intercomm_merge`: an intracommunicator of both groups, the one
    /// whose members pass `high` after the other (MPICH's order when both
    /// pass the same: the low group first).
    pub fn intercomm_merge(&mut self, comm: CommId, high: bool) -> MpiResult<CommId> {
        let r = self.start_intercomm_merge(comm, high)?;
        self.wait_comm(r)?.ok_or(MpiError::Other)
    }

    /// The task of [`intercomm_merge`](Self::intercomm_merge), started.
    pub fn start_intercomm_merge(&mut self, comm: CommId, high: bool) -> MpiResult<RequestId> {
        let s = self.inter_shape(comm)?.ok_or(MpiError::Comm)?;
        let th = self.cfg.coll;
        let me = self.t.rank();
        let (lc, ic) = self.inter_ctxs(comm, s.local_comm, CallCode::Intercomm_merge)?;
        let t = Task::new(ic.io().clone(), async move {
            let mut mine = words(&[u32::from(high)]);
            if lc.me == 0 {
                let theirs = ic.sendrecv(0, mine.clone(), 0, 4).await?;
                if word(&theirs, 0)? == u32::from(high) {
                    mine = words(&[u32::from(!s.is_low)]);
                }
            }
            bcast_bytes(&lc, th, 0, &mut mine, 4).await?;
            let local_high = word(&mine, 0)? != 0;
            let ctx = agree_inter(&lc, &ic, th).await?;
            let (first, second) = if local_high {
                (s.remote, s.local)
            } else {
                (s.local, s.remote)
            };
            let mut ranks = first.ranks;
            ranks.extend(second.ranks);
            Ok(TaskOut::NewComm {
                comm: Box::new(Comm::new(ctx, Group { ranks }, me)),
                local: None,
            })
        });
        Ok(self.start_task(t))
    }
}

/// The communicator a creation task made (`None` is `MPI_COMM_NULL`).
fn new_comm(out: CollOutput) -> MpiResult<Option<CommId>> {
    match out {
        CollOutput::Comm(c) => Ok(c),
        _ => Err(MpiError::Other),
    }
}
