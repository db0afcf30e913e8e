//! Collectives on intercommunicators, with MPICH's algorithms: the data
//! crosses between the two groups' ranks 0 (or linearly, for long gathers
//! and scatters and for the `v` forms), and each group finishes with an
//! intracommunicator collective on its hidden local communicator.
//!
//! | call | algorithm |
//! |---|---|
//! | barrier | local barrier, then a one-byte broadcast each way |
//! | bcast | root → remote rank 0, local broadcast |
//! | reduce | local reduce to rank 0, which sends to the root |
//! | allreduce | local reduce, ranks 0 exchange, local broadcast |
//! | gather / scatter | through rank 0 and a local gather/scatter (total < inter_short); linear |
//! | gatherv / scatterv | linear |
//! | allgather | local gather, then a broadcast each way (low group first) |
//! | allgatherv | a linear gatherv each way, then a local broadcast |
//! | alltoall(v,w) | pairwise exchange over max(local, remote) steps |
//! | reduce_scatter(_block) | a reduce each way to rank 0, then a local scatterv |
//!
//! Rooted calls take the remote root's rank in the group that receives
//! or sends to it, [`ROOT_HERE`] (`MPI_ROOT`) at the root and
//! [`ROOT_NULL`] (`MPI_PROC_NULL`) at the root's other group members.

use super::bcast::{barrier_dissemination, bcast_bytes, bcast_recv};
use super::gather::{gather_binomial, scatter_binomial};
use super::reduce::{reduce_binomial, Red};
use super::task::{CollOutput, Task, TaskOut};
use super::{CollInput, Ctx, ScatterRecv, ROOT_HERE, ROOT_NULL};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::CollThresholds;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::op::OpId;
use crate::transport::Transport;
use crate::Engine;

/// This rank's part in a rooted intercommunicator call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The root (`MPI_ROOT`).
    Root,
    /// Another member of the root's group (`MPI_PROC_NULL`): no part.
    Idle,
    /// A member of the other group; the root is this remote rank.
    Remote(u32),
}

impl<T: Transport> Engine<T> {
    /// The contexts of one intercommunicator call: between the groups
    /// (`ic`, whose ranks are the remote group) and in the local group (`lc`).
    fn inter_call(&mut self, comm: CommId, call: CallCode) -> MpiResult<(Ctx, Ctx, bool)> {
        let k = self.comm(comm)?;
        let inter = k.inter.as_ref().ok_or(MpiError::Comm)?;
        let (local, is_low) = (inter.local_comm.ok_or(MpiError::Comm)?, inter.is_low);
        let ic = self.ctx(comm, call)?;
        let lc = self.ctx_with(local, call, ic.io())?;
        Ok((ic, lc, is_low))
    }

    fn part(&self, comm: CommId, root: u32) -> MpiResult<Part> {
        match root {
            ROOT_HERE => Ok(Part::Root),
            ROOT_NULL => Ok(Part::Idle),
            r if r < self.comm_remote_size(comm)? => Ok(Part::Remote(r)),
            _ => Err(MpiError::Root),
        }
    }

    fn no_in_place(input: CollInput<'_>) -> MpiResult<&[u8]> {
        match input {
            CollInput::Buf(b) => Ok(b),
            CollInput::InPlace(_) => Err(MpiError::Buffer),
        }
    }

    pub(crate) fn inter_barrier_task(&mut self, comm: CommId, call: CallCode) -> MpiResult<Task> {
        let (ic, lc, is_low) = self.inter_call(comm, call)?;
        let th = self.cfg.coll;
        let report = self.report(&ic, 0, 0, false);
        Ok(Task::new(ic.io().clone(), async move {
            barrier_dissemination(&lc).await?;
            for sending in [is_low, !is_low] {
                if sending {
                    if lc.me == 0 {
                        ic.send(0, vec![0]).await?;
                    }
                } else {
                    remote_bcast_recv(&lc, &ic, th, 0, 1).await?;
                }
            }
            ic.outcome(TaskOut::Out(CollOutput::None))
        })
        .reported(report))
    }

    pub(crate) fn inter_bcast_task(
        &mut self,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let part = self.part(comm, root)?;
        let nbytes = self.types.committed(dt)?.size as usize * count;
        let data = if part == Part::Root {
            self.types.pack(dt, count, buf)?
        } else {
            Vec::new()
        };
        let (ic, lc, _) = self.inter_call(comm, call)?;
        let th = self.cfg.coll;
        let report = self.report(&ic, nbytes as u64, nbytes as u64, part == Part::Root);
        Ok(Task::new(ic.io().clone(), async move {
            let out = match part {
                Part::Idle => CollOutput::None,
                Part::Root => {
                    ic.send(0, data).await?;
                    CollOutput::None
                }
                Part::Remote(r) => {
                    CollOutput::Bytes(remote_bcast_recv(&lc, &ic, th, r, nbytes).await?)
                }
            };
            ic.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_reduce_task(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let part = self.part(comm, root)?;
        let (r, data) = match part {
            Part::Remote(_) => {
                self.red_setup(Self::no_in_place(input).map(CollInput::Buf)?, count, dt, op)?
            }
            _ => (self.red_of(dt, op)?, Vec::new()),
        };
        let (ic, lc, _) = self.inter_call(comm, call)?;
        let bytes = (count * r.es) as u64;
        let report = self.report(&ic, bytes, bytes, part == Part::Root);
        Ok(Task::new(ic.io().clone(), async move {
            let out = match part {
                Part::Idle => CollOutput::None,
                Part::Root => CollOutput::Bytes(ic.recv(0, bytes as usize).await?),
                Part::Remote(root) => {
                    if let Some(sum) = reduce_binomial(&lc, r, data, 0).await? {
                        ic.send(root, sum).await?;
                    }
                    CollOutput::None
                }
            };
            ic.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    /// The reduction `op` on `dt` (checked), for a rank that contributes nothing.
    fn red_of(&self, dt: DatatypeId, op: OpId) -> MpiResult<Red> {
        let es = self.types.committed(dt)?.size as usize;
        self.ops.check(&self.types, op, dt)?;
        Ok(Red {
            op,
            dt,
            es,
            commutative: self.ops.commutative(op)?,
        })
    }

    pub(crate) fn inter_allreduce_task(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let b = Self::no_in_place(input)?;
        let (r, data) = self.red_setup(CollInput::Buf(b), count, dt, op)?;
        let (ic, lc, _) = self.inter_call(comm, call)?;
        let th = self.cfg.coll;
        let len = data.len();
        let report = self.report(&ic, len as u64, len as u64, false);
        Ok(Task::new(ic.io().clone(), async move {
            let mine = reduce_binomial(&lc, r, data, 0).await?;
            let mut theirs = Vec::new();
            if let Some(mine) = mine {
                theirs = ic.sendrecv(0, mine, 0, len).await?;
            }
            bcast_bytes(&lc, th, 0, &mut theirs, len).await?;
            ic.outcome(TaskOut::Out(CollOutput::Bytes(theirs)))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_gather_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let part = self.part(comm, root)?;
        let k = self.comm(comm)?;
        let (local_n, remote_n) = (k.size() as usize, self.comm_remote_size(comm)? as usize);
        let (mine, nb, total) = match part {
            Part::Root => {
                let nb = self.types.committed(rtype)?.size as usize * rcount;
                (Vec::new(), nb, nb * remote_n)
            }
            Part::Remote(_) => {
                let b = Self::no_in_place(input)?;
                self.types.committed(stype)?;
                let mine = self.types.pack(stype, scount, b)?;
                let nb = mine.len();
                (mine, nb, nb * local_n)
            }
            Part::Idle => (Vec::new(), 0, 0),
        };
        let short = (total as u64) < self.cfg.coll.inter_short;
        let (ic, lc, _) = self.inter_call(comm, call)?;
        let report = self.report(&ic, nb as u64, nb as u64, part == Part::Root);
        Ok(Task::new(ic.io().clone(), async move {
            let out = match part {
                Part::Idle => CollOutput::None,
                Part::Root if short => CollOutput::Bytes(ic.recv(0, nb * remote_n).await?),
                Part::Root => {
                    let mut reqs = Vec::with_capacity(remote_n);
                    for i in 0..remote_n {
                        reqs.push(ic.irecv(i as u32, nb).await?);
                    }
                    let mut all = Vec::with_capacity(nb * remote_n);
                    for q in reqs {
                        all.extend(ic.wait_recv(q, nb).await?);
                    }
                    CollOutput::Bytes(all)
                }
                Part::Remote(root) if short => {
                    if let Some(all) = gather_binomial(&lc, mine, nb, 0).await? {
                        ic.send(root, all).await?;
                    }
                    CollOutput::None
                }
                Part::Remote(root) => {
                    ic.send(root, mine).await?;
                    CollOutput::None
                }
            };
            ic.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_gatherv_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let part = self.part(comm, root)?;
        let remote_n = self.comm_remote_size(comm)? as usize;
        let (mine, lens) = match part {
            Part::Root => {
                if rcounts.len() != remote_n {
                    return Err(MpiError::Count);
                }
                let size = self.types.committed(rtype)?.size as usize;
                (Vec::new(), rcounts.iter().map(|k| k * size).collect())
            }
            Part::Remote(_) => {
                let b = Self::no_in_place(input)?;
                self.types.committed(stype)?;
                (self.types.pack(stype, scount, b)?, Vec::new())
            }
            Part::Idle => (Vec::new(), Vec::new()),
        };
        let (ic, _lc, _) = self.inter_call(comm, call)?;
        let mean = (lens.iter().sum::<usize>() / remote_n.max(1)) as u64;
        let report = self.report(&ic, mine.len() as u64, mean, part == Part::Root);
        Ok(Task::new(ic.io().clone(), async move {
            let out = match part {
                Part::Idle => CollOutput::None,
                Part::Root => CollOutput::Blocks(gatherv_from_remote(&ic, &lens).await?),
                Part::Remote(root) => {
                    ic.send(root, mine).await?;
                    CollOutput::None
                }
            };
            ic.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_scatter_task(
        &mut self,
        sendbuf: &[u8],
        scount: usize,
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let part = self.part(comm, root)?;
        let k = self.comm(comm)?;
        let (local_n, remote_n) = (k.size() as usize, self.comm_remote_size(comm)? as usize);
        let (data, nb, total) = match part {
            Part::Root => {
                self.types.committed(stype)?;
                let data = self.types.pack(stype, scount * remote_n, sendbuf)?;
                let nb = self.types.committed(stype)?.size as usize * scount;
                (data, nb, nb * remote_n)
            }
            Part::Remote(_) => {
                let (rcount, rtype) = recv.ok_or(MpiError::Buffer)?;
                let nb = self.types.committed(rtype)?.size as usize * rcount;
                (Vec::new(), nb, nb * local_n)
            }
            Part::Idle => (Vec::new(), 0, 0),
        };
        let short = (total as u64) < self.cfg.coll.inter_short;
        let (ic, lc, _) = self.inter_call(comm, call)?;
        let report = self.report(&ic, nb as u64, nb as u64, part == Part::Root);
        Ok(Task::new(ic.io().clone(), async move {
            let out = match part {
                Part::Idle => CollOutput::None,
                Part::Root if short => {
                    ic.send(0, data).await?;
                    CollOutput::None
                }
                Part::Root => {
                    let blocks = data.chunks(nb.max(1)).map(<[u8]>::to_vec).collect();
                    scatter_to_remote(&ic, blocks).await?;
                    CollOutput::None
                }
                Part::Remote(root) if short => {
                    let mut all = Vec::new();
                    if lc.me == 0 {
                        all = ic.recv(root, nb * local_n).await?;
                    }
                    let mine = scatter_binomial(&lc, all, nb, 0).await?;
                    CollOutput::Bytes(lc.fit(mine, nb))
                }
                Part::Remote(root) => CollOutput::Bytes(ic.recv(root, nb).await?),
            };
            ic.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_scatterv_task(
        &mut self,
        sendbuf: &[u8],
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let part = self.part(comm, root)?;
        let remote_n = self.comm_remote_size(comm)? as usize;
        let (blocks, want) = match part {
            Part::Root => {
                if scounts.len() != remote_n || sdispls.len() != remote_n {
                    return Err(MpiError::Count);
                }
                (self.scatterv_blocks(sendbuf, scounts, sdispls, stype)?, 0)
            }
            Part::Remote(_) => {
                let (rcount, rtype) = recv.ok_or(MpiError::Buffer)?;
                (
                    Vec::new(),
                    self.types.committed(rtype)?.size as usize * rcount,
                )
            }
            Part::Idle => (Vec::new(), 0),
        };
        let (ic, _lc, _) = self.inter_call(comm, call)?;
        let mean = (blocks.iter().map(Vec::len).sum::<usize>() / remote_n.max(1)) as u64;
        let report = self.report(&ic, mean, want as u64, part == Part::Root);
        Ok(Task::new(ic.io().clone(), async move {
            let out = match part {
                Part::Idle => CollOutput::None,
                Part::Root => {
                    scatter_to_remote(&ic, blocks).await?;
                    CollOutput::None
                }
                Part::Remote(root) => CollOutput::Bytes(ic.recv(root, want).await?),
            };
            ic.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_allgather_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let b = Self::no_in_place(input)?;
        self.types.committed(stype)?;
        let mine = self.types.pack(stype, scount, b)?;
        let nb_send = mine.len();
        let remote_n = self.comm_remote_size(comm)? as usize;
        let nb = self.types.committed(rtype)?.size as usize * rcount;
        let local_n = self.comm(comm)?.size() as usize;
        let (ic, lc, is_low) = self.inter_call(comm, call)?;
        let th = self.cfg.coll;
        let report = self.report(&ic, nb_send as u64, nb as u64, false);
        Ok(Task::new(ic.io().clone(), async move {
            let gathered = if scount != 0 {
                gather_binomial(&lc, mine, nb_send, 0).await?
            } else {
                None
            };
            let mut got = Vec::new();
            for sending in [is_low, !is_low] {
                if sending {
                    if scount != 0 && lc.me == 0 {
                        let all = gathered.clone().unwrap_or_default();
                        debug_assert_eq!(all.len(), nb_send * local_n);
                        ic.send(0, all).await?;
                    }
                } else if rcount != 0 {
                    got = remote_bcast_recv(&lc, &ic, th, 0, nb * remote_n).await?;
                }
            }
            got.resize(nb * remote_n, 0);
            ic.outcome(TaskOut::Out(CollOutput::Bytes(got)))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_allgatherv_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        rtype: DatatypeId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let b = Self::no_in_place(input)?;
        self.types.committed(stype)?;
        let mine = self.types.pack(stype, scount, b)?;
        let remote_n = self.comm_remote_size(comm)? as usize;
        if rcounts.len() != remote_n {
            return Err(MpiError::Count);
        }
        let size = self.types.committed(rtype)?.size as usize;
        let lens: Vec<usize> = rcounts.iter().map(|k| k * size).collect();
        let (ic, lc, is_low) = self.inter_call(comm, call)?;
        let th = self.cfg.coll;
        let mean = (lens.iter().sum::<usize>() / remote_n.max(1)) as u64;
        let report = self.report(&ic, mine.len() as u64, mean, false);
        Ok(Task::new(ic.io().clone(), async move {
            let mut blocks = Vec::new();
            for gathering in [is_low, !is_low] {
                if gathering {
                    if lc.me == 0 {
                        blocks = gatherv_from_remote(&ic, &lens).await?;
                    }
                } else {
                    ic.send(0, mine.clone()).await?;
                }
            }
            let total: usize = lens.iter().sum();
            let mut all = blocks.concat();
            bcast_bytes(&lc, th, 0, &mut all, total).await?;
            let mut out = Vec::with_capacity(lens.len());
            let mut at = 0;
            for &l in &lens {
                out.push(all[at..at + l].to_vec());
                at += l;
            }
            ic.outcome(TaskOut::Out(CollOutput::Blocks(out)))
        })
        .reported(report))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn inter_alltoall_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let b = Self::no_in_place(input)?;
        let remote_n = self.comm_remote_size(comm)? as usize;
        self.types.committed(stype)?;
        let all = self.types.pack(stype, scount * remote_n, b)?;
        let sb = self.types.committed(stype)?.size as usize * scount;
        let nb = self.types.committed(rtype)?.size as usize * rcount;
        let blocks: Vec<Vec<u8>> = (0..remote_n)
            .map(|i| all[i * sb..(i + 1) * sb].to_vec())
            .collect();
        let (ic, _lc, _) = self.inter_call(comm, call)?;
        let report = self.report(&ic, sb as u64, nb as u64, false);
        Ok(Task::new(ic.io().clone(), async move {
            let out = alltoall_inter_pairwise(&ic, blocks, &vec![nb; remote_n]).await?;
            ic.outcome(TaskOut::Out(CollOutput::Bytes(out.concat())))
        })
        .reported(report))
    }

    pub(crate) fn inter_reduce_scatter_task(
        &mut self,
        input: CollInput<'_>,
        rcounts: &[usize],
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let local_n = self.comm(comm)?.size() as usize;
        if rcounts.len() != local_n {
            return Err(MpiError::Count);
        }
        let total: usize = rcounts.iter().sum();
        let b = Self::no_in_place(input)?;
        let (r, data) = self.red_setup(CollInput::Buf(b), total, dt, op)?;
        let (ic, lc, is_low) = self.inter_call(comm, call)?;
        let me = lc.me as usize;
        let lens: Vec<usize> = rcounts.iter().map(|k| k * r.es).collect();
        let report = self.report(&ic, (total * r.es) as u64, lens[me] as u64, false);
        Ok(Task::new(ic.io().clone(), async move {
            let len = total * r.es;
            let mut reduced = Vec::new();
            for receiving in [is_low, !is_low] {
                if receiving {
                    if lc.me == 0 {
                        reduced = ic.recv(0, len).await?;
                    }
                } else if let Some(sum) = reduce_binomial(&lc, r, data.clone(), 0).await? {
                    ic.send(0, sum).await?;
                }
            }
            let mine;
            if lc.me == 0 {
                let mut at = lens[0];
                let mut reqs = Vec::new();
                for (i, &l) in lens.iter().enumerate().skip(1) {
                    reqs.push(lc.isend(i as u32, reduced[at..at + l].to_vec()).await?);
                    at += l;
                }
                for q in reqs {
                    lc.wait(q).await?;
                }
                mine = reduced[..lens[0]].to_vec();
            } else {
                mine = lc.recv(0, lens[me]).await?;
            }
            ic.outcome(TaskOut::Out(CollOutput::Bytes(mine)))
        })
        .reported(report))
    }
}

/// The receiving group's side of an intercommunicator broadcast whose
/// root is remote rank `root`: rank 0 receives `nbytes` from it, then
/// broadcasts them in the group.
async fn remote_bcast_recv(
    lc: &Ctx,
    ic: &Ctx,
    th: CollThresholds,
    root: u32,
    nbytes: usize,
) -> MpiResult<Vec<u8>> {
    let mut data = Vec::new();
    if lc.me == 0 {
        data = bcast_recv(ic, root, nbytes).await?;
    }
    bcast_bytes(lc, th, 0, &mut data, nbytes).await?;
    Ok(data)
}

/// The root's side of a linear gather from every remote member i
/// (`lens[i]` bytes each).
async fn gatherv_from_remote(ic: &Ctx, lens: &[usize]) -> MpiResult<Vec<Vec<u8>>> {
    let mut reqs = Vec::with_capacity(lens.len());
    for (i, &l) in lens.iter().enumerate() {
        reqs.push(ic.irecv(i as u32, l).await?);
    }
    let mut out = Vec::with_capacity(lens.len());
    for (q, &l) in reqs.into_iter().zip(lens) {
        out.push(ic.wait_recv(q, l).await?);
    }
    Ok(out)
}

/// The root's side of a linear scatter: block i to remote member i.
async fn scatter_to_remote(ic: &Ctx, blocks: Vec<Vec<u8>>) -> MpiResult<()> {
    let mut reqs = Vec::with_capacity(blocks.len());
    for (i, b) in blocks.into_iter().enumerate() {
        reqs.push(ic.isend(i as u32, b).await?);
    }
    for q in reqs {
        ic.wait(q).await?;
    }
    Ok(())
}

/// MPICH's intercommunicator pairwise exchange: in step i (of
/// max(local, remote)) send to remote rank + i and receive from remote
/// rank − i, skipping ranks the remote group does not have. Block j goes
/// to remote member j; the block from remote member j has `lens[j]` bytes.
pub(crate) async fn alltoall_inter_pairwise(
    ic: &Ctx,
    mut blocks: Vec<Vec<u8>>,
    lens: &[usize],
) -> MpiResult<Vec<Vec<u8>>> {
    let remote = ic.n as usize;
    let local = ic.local_n as usize;
    let max = local.max(remote);
    let me = ic.me as usize;
    let mut out = vec![Vec::new(); remote];
    for i in 0..max {
        let src = (me + max - i) % max;
        let dst = (me + i) % max;
        let recv = if src < remote {
            Some(ic.irecv(src as u32, lens[src]).await?)
        } else {
            None
        };
        if dst < remote {
            let s = ic
                .isend(dst as u32, std::mem::take(&mut blocks[dst]))
                .await?;
            ic.wait(s).await?;
        }
        if let Some(q) = recv {
            out[src] = ic.wait_recv(q, lens[src]).await?;
        }
    }
    Ok(out)
}
