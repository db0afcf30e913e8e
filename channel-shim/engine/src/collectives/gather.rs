//! Gather, scatter and allgather, with their v variants.

use super::task::{CollOutput, Task, TaskOut};
use super::Form;
use super::{CollInput, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::CollThresholds;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::request::RequestId;
use crate::transport::Transport;
use crate::Engine;

/// The receive side of a scatter: `(rcount, rtype)`, or `None` for
/// `MPI_IN_PLACE` at the root.
pub type ScatterRecv = Option<(usize, DatatypeId)>;

impl<T: Transport> Engine<T> {
    /// Packs this rank's contribution: the send buffer, or for in-place its
    /// block `(first, count)` of the receive region described by `blocks`.
    pub(crate) fn own_block(
        &self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rtype: DatatypeId,
        blocks: &[(i64, usize)],
        own: (i64, usize),
    ) -> MpiResult<Vec<u8>> {
        match input {
            CollInput::Buf(b) => {
                self.types.committed(stype)?;
                self.types.pack(stype, scount, b)
            }
            CollInput::InPlace(region) => {
                self.types.committed(rtype)?;
                let base = self.types.span_blocks(rtype, blocks)?.base;
                self.types.pack_at(rtype, own.0, own.1, region, base)
            }
        }
    }

    /// A root that must be a member (intracommunicators).
    fn intra_root(&self, comm: CommId, root: u32) -> MpiResult<()> {
        if root >= self.comm(comm)?.size() {
            return Err(MpiError::Root);
        }
        Ok(())
    }

    /// `MPI_Gather` (binomial): input is the send buffer, or at the root
    /// `InPlace(recvbuf region span(rtype, rcount × size))`. The root gets
    /// all blocks packed in rank order (unpack with `rtype`, count
    /// `rcount × size`); blocks longer than `rcount` elements of `rtype`
    /// are cut (`MPI_ERR_TRUNCATE` at the root).
    #[allow(clippy::too_many_arguments)]
    pub fn gather(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let t = self.gather_task(
            input,
            scount,
            stype,
            rcount,
            rtype,
            root,
            comm,
            CallCode::Gather,
        )?;
        Ok(self.run_task(t)?.into_opt_bytes())
    }

    /// `MPI_Gather` or `MPI_Igather`: as [`gather`](Self::gather); output `Bytes` at the root.
    #[allow(clippy::too_many_arguments)]
    pub fn start_gather(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.gather_task(
            input,
            scount,
            stype,
            rcount,
            rtype,
            root,
            comm,
            form.call(CallCode::Gather),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn gather_task(
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
        if self.comm(comm)?.is_inter() {
            return self.inter_gather_task(input, scount, stype, rcount, rtype, root, comm, call);
        }
        self.intra_root(comm, root)?;
        let k = self.comm(comm)?;
        let (n, me) = (k.size(), k.rank);
        let own = (me as i64 * rcount as i64, rcount);
        let mine = self.own_block(
            input,
            scount,
            stype,
            rtype,
            &[(0, rcount * n as usize)],
            own,
        )?;
        // Every rank gathers blocks of its own block's size; the root's
        // blocks are `rcount` elements of `rtype`.
        let nb = if me == root {
            self.types.committed(rtype)?.size as usize * rcount
        } else {
            mine.len()
        };
        let c = self.ctx(comm, call)?;
        let received = if me == root { nb } else { 0 };
        let sent = if me == root && matches!(input, CollInput::InPlace(_)) {
            nb
        } else {
            mine.len()
        };
        let report = self.report(&c, sent as u64, received as u64, me == root);
        Ok(Task::new(c.io().clone(), async move {
            let out = gather_binomial(&c, c.fit(mine, nb), nb, root).await?;
            c.outcome(TaskOut::Out(match out {
                Some(b) => CollOutput::Bytes(b),
                None => CollOutput::None,
            }))
        })
        .reported(report))
    }

    /// `MPI_Gatherv` (linear): input is the send buffer, or at the root
    /// `InPlace(recvbuf region span_blocks(rtype, [(displs[root], rcounts[root])]))`.
    /// The root gets one packed block per rank (unpack block i at
    /// displacement `displs[i]` with count `rcounts[i]`).
    #[allow(clippy::too_many_arguments)]
    pub fn gatherv(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        displs: &[i64],
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<Vec<u8>>>> {
        let t = self.gatherv_task(
            input,
            scount,
            stype,
            rcounts,
            displs,
            rtype,
            root,
            comm,
            CallCode::Gatherv,
        )?;
        Ok(self.run_task(t)?.into_opt_blocks())
    }

    /// `MPI_Gatherv` or `MPI_Igatherv`: as [`gatherv`](Self::gatherv); output `Blocks` at the root.
    #[allow(clippy::too_many_arguments)]
    pub fn start_gatherv(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        displs: &[i64],
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.gatherv_task(
            input,
            scount,
            stype,
            rcounts,
            displs,
            rtype,
            root,
            comm,
            form.call(CallCode::Gatherv),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn gatherv_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        displs: &[i64],
        rtype: DatatypeId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_gatherv_task(input, scount, stype, rcounts, rtype, root, comm, call);
        }
        self.intra_root(comm, root)?;
        let k = self.comm(comm)?;
        let (n, me) = (k.size(), k.rank);
        if me != root {
            let mine = self.own_block(input, scount, stype, rtype, &[], (0, 0))?;
            let c = self.ctx(comm, call)?;
            let report = self.report(&c, mine.len() as u64, 0, false);
            return Ok(Task::new(c.io().clone(), async move {
                c.send(root, mine).await?;
                Ok(TaskOut::Out(CollOutput::None))
            })
            .reported(report));
        }
        if rcounts.len() != n as usize || displs.len() != n as usize {
            return Err(MpiError::Count);
        }
        let r = root as usize;
        let own = (displs[r], rcounts[r]);
        let mine = self.own_block(input, scount, stype, rtype, &[own], own)?;
        let size = self.types.committed(rtype)?.size as usize;
        let lens: Vec<usize> = rcounts.iter().map(|k| k * size).collect();
        let c = self.ctx(comm, call)?;
        let mean = (lens.iter().sum::<usize>() / lens.len().max(1)) as u64;
        let sent = if matches!(input, CollInput::InPlace(_)) {
            mean
        } else {
            mine.len() as u64
        };
        let report = self.report(&c, sent, mean, true);
        Ok(Task::new(c.io().clone(), async move {
            let out = gatherv_linear(&c, mine, &lens).await?;
            c.outcome(TaskOut::Out(CollOutput::Blocks(out)))
        })
        .reported(report))
    }

    /// `MPI_Scatter` (binomial): `sendbuf` is the root's region
    /// `span(stype, scount × size)`; `recv` is `(rcount, rtype)`, or `None`
    /// for `MPI_IN_PLACE` at the root (which then gets `None`).
    pub fn scatter(
        &mut self,
        sendbuf: &[u8],
        scount: usize,
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let t = self.scatter_task(sendbuf, scount, stype, recv, root, comm, CallCode::Scatter)?;
        Ok(self.run_task(t)?.into_opt_bytes())
    }

    /// `MPI_Scatter` or `MPI_Iscatter`: as [`scatter`](Self::scatter); output `Bytes`.
    #[allow(clippy::too_many_arguments)]
    pub fn start_scatter(
        &mut self,
        form: Form,
        sendbuf: &[u8],
        scount: usize,
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.scatter_task(
            sendbuf,
            scount,
            stype,
            recv,
            root,
            comm,
            form.call(CallCode::Scatter),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn scatter_task(
        &mut self,
        sendbuf: &[u8],
        scount: usize,
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_scatter_task(sendbuf, scount, stype, recv, root, comm, call);
        }
        self.intra_root(comm, root)?;
        let k = self.comm(comm)?;
        let (n, me) = (k.size(), k.rank);
        let nb = if me == root {
            self.types.committed(stype)?.size as usize * scount
        } else {
            let (rcount, rtype) = recv.ok_or(MpiError::Buffer)?;
            self.types.committed(rtype)?.size as usize * rcount
        };
        let want = match recv {
            Some((rcount, rtype)) => Some(self.types.committed(rtype)?.size as usize * rcount),
            None => None,
        };
        let mut tmp = Vec::new();
        if me == root {
            tmp = self.types.pack(stype, scount * n as usize, sendbuf)?;
            let k = (root as usize * nb).min(tmp.len());
            tmp.rotate_left(k);
        }
        let c = self.ctx(comm, call)?;
        let sent = if me == root { nb } else { 0 };
        let report = self.report(&c, sent as u64, want.unwrap_or(sent) as u64, me == root);
        Ok(Task::new(c.io().clone(), async move {
            let tmp = scatter_binomial(&c, tmp, nb, root).await?;
            let out = match want {
                None => CollOutput::None,
                Some(want) if c.me == root => {
                    // The root's own block, `scount` of `stype`, into its receive buffer.
                    let mut tmp = tmp;
                    tmp.truncate(nb);
                    CollOutput::Bytes(c.fit(tmp, want))
                }
                Some(_) => CollOutput::Bytes(c.fit(tmp, nb)),
            };
            c.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    /// `MPI_Scatterv` (linear): `sendbuf` is the root's region
    /// `span_blocks(stype, [(sdispls[i], scounts[i]) for all i])`; `recv` as
    /// in [`scatter`](Self::scatter).
    #[allow(clippy::too_many_arguments)]
    pub fn scatterv(
        &mut self,
        sendbuf: &[u8],
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let t = self.scatterv_task(
            sendbuf,
            scounts,
            sdispls,
            stype,
            recv,
            root,
            comm,
            CallCode::Scatterv,
        )?;
        Ok(self.run_task(t)?.into_opt_bytes())
    }

    /// `MPI_Scatterv` or `MPI_Iscatterv`: as [`scatterv`](Self::scatterv); output `Bytes`.
    #[allow(clippy::too_many_arguments)]
    pub fn start_scatterv(
        &mut self,
        form: Form,
        sendbuf: &[u8],
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
        recv: ScatterRecv,
        root: u32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.scatterv_task(
            sendbuf,
            scounts,
            sdispls,
            stype,
            recv,
            root,
            comm,
            form.call(CallCode::Scatterv),
        )?;
        Ok(self.start_task(t))
    }

    /// Packs the root's blocks of a scatterv.
    pub(crate) fn scatterv_blocks(
        &self,
        sendbuf: &[u8],
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
    ) -> MpiResult<Vec<Vec<u8>>> {
        self.types.committed(stype)?;
        let blocks: Vec<(i64, usize)> = sdispls
            .iter()
            .copied()
            .zip(scounts.iter().copied())
            .collect();
        let base = self.types.span_blocks(stype, &blocks)?.base;
        blocks
            .iter()
            .map(|&(d, k)| self.types.pack_at(stype, d, k, sendbuf, base))
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn scatterv_task(
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
        if self.comm(comm)?.is_inter() {
            return self
                .inter_scatterv_task(sendbuf, scounts, sdispls, stype, recv, root, comm, call);
        }
        self.intra_root(comm, root)?;
        let k = self.comm(comm)?;
        let (n, me) = (k.size(), k.rank);
        let want = match recv {
            Some((rcount, rtype)) => Some(self.types.committed(rtype)?.size as usize * rcount),
            None => None,
        };
        if me != root {
            let want = want.ok_or(MpiError::Buffer)?;
            let c = self.ctx(comm, call)?;
            let report = self.report(&c, 0, want as u64, false);
            return Ok(Task::new(c.io().clone(), async move {
                let got = c.recv(root, want).await?;
                c.outcome(TaskOut::Out(CollOutput::Bytes(got)))
            })
            .reported(report));
        }
        if scounts.len() != n as usize || sdispls.len() != n as usize {
            return Err(MpiError::Count);
        }
        let mut blocks = self.scatterv_blocks(sendbuf, scounts, sdispls, stype)?;
        let c = self.ctx(comm, call)?;
        let mean = (blocks.iter().map(Vec::len).sum::<usize>() / blocks.len().max(1)) as u64;
        let report = self.report(&c, mean, want.map_or(mean, |w| w as u64), true);
        Ok(Task::new(c.io().clone(), async move {
            let mine = std::mem::take(&mut blocks[root as usize]);
            scatterv_linear(&c, blocks).await?;
            let out = match want {
                None => CollOutput::None,
                Some(want) => CollOutput::Bytes(c.fit(mine, want)),
            };
            c.outcome(TaskOut::Out(out))
        })
        .reported(report))
    }

    /// `MPI_Allgather`: input is the send buffer or `InPlace(recvbuf region
    /// span(rtype, rcount × size))`; returns all blocks packed in rank order.
    /// A send block longer than `rcount` elements of `rtype` is cut
    /// (`MPI_ERR_TRUNCATE`, as MPICH's local copy).
    pub fn allgather(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let t = self.allgather_task(
            input,
            scount,
            stype,
            rcount,
            rtype,
            comm,
            CallCode::Allgather,
        )?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Allgather` or `MPI_Iallgather`: as [`allgather`](Self::allgather); output `Bytes`.
    #[allow(clippy::too_many_arguments)]
    pub fn start_allgather(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.allgather_task(
            input,
            scount,
            stype,
            rcount,
            rtype,
            comm,
            form.call(CallCode::Allgather),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn allgather_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_allgather_task(input, scount, stype, rcount, rtype, comm, call);
        }
        let k = self.comm(comm)?;
        let (n, me) = (k.size() as usize, k.rank);
        let own = (me as i64 * rcount as i64, rcount);
        let mine = self.own_block(input, scount, stype, rtype, &[(0, rcount * n)], own)?;
        let nb = self.types.committed(rtype)?.size as usize * rcount;
        let c = self.ctx(comm, call)?;
        let sent = if matches!(input, CollInput::InPlace(_)) {
            nb
        } else {
            mine.len()
        };
        let report = self.report(&c, sent as u64, nb as u64, false);
        let th = self.cfg.coll;
        Ok(Task::new(c.io().clone(), async move {
            let all = allgather_bytes(&c, th, c.fit(mine, nb)).await?;
            c.outcome(TaskOut::Out(CollOutput::Bytes(all)))
        })
        .reported(report))
    }

    /// `MPI_Allgatherv` (ring): input is the send buffer or `InPlace(recvbuf
    /// region span_blocks(rtype, [(displs[me], rcounts[me])]))`; returns one
    /// packed block per rank.
    #[allow(clippy::too_many_arguments)]
    pub fn allgatherv(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        displs: &[i64],
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<Vec<Vec<u8>>> {
        let t = self.allgatherv_task(
            input,
            scount,
            stype,
            rcounts,
            displs,
            rtype,
            comm,
            CallCode::Allgatherv,
        )?;
        Ok(self.run_task(t)?.into_blocks())
    }

    /// `MPI_Allgatherv` or `MPI_Iallgatherv`: as [`allgatherv`](Self::allgatherv); output `Blocks`.
    #[allow(clippy::too_many_arguments)]
    pub fn start_allgatherv(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        displs: &[i64],
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.allgatherv_task(
            input,
            scount,
            stype,
            rcounts,
            displs,
            rtype,
            comm,
            form.call(CallCode::Allgatherv),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn allgatherv_task(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcounts: &[usize],
        displs: &[i64],
        rtype: DatatypeId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_allgatherv_task(input, scount, stype, rcounts, rtype, comm, call);
        }
        let k = self.comm(comm)?;
        let (n, me) = (k.size() as usize, k.rank as usize);
        if rcounts.len() != n || displs.len() != n {
            return Err(MpiError::Count);
        }
        let own = (displs[me], rcounts[me]);
        let mine = self.own_block(input, scount, stype, rtype, &[own], own)?;
        let size = self.types.committed(rtype)?.size as usize;
        let lens: Vec<usize> = rcounts.iter().map(|k| k * size).collect();
        let c = self.ctx(comm, call)?;
        let mean = (lens.iter().sum::<usize>() / n.max(1)) as u64;
        let sent = if matches!(input, CollInput::InPlace(_)) {
            mean
        } else {
            mine.len() as u64
        };
        let report = self.report(&c, sent, mean, false);
        Ok(Task::new(c.io().clone(), async move {
            let mine = c.fit(mine, lens[me]);
            let blocks = allgather_ring(&c, mine, &lens).await?;
            c.outcome(TaskOut::Out(CollOutput::Blocks(blocks)))
        })
        .reported(report))
    }
}

/// Binomial gather of every member's `mine` (blocks of `nb` bytes) to
/// `root`, which gets them in rank order.
pub(crate) async fn gather_binomial(
    c: &Ctx,
    mine: Vec<u8>,
    nb: usize,
    root: u32,
) -> MpiResult<Option<Vec<u8>>> {
    let rel = (c.me + c.n - root) % c.n;
    let real = |r: u32| (r + root) % c.n;
    let mut buf = mine;
    let mut mask = 1;
    while mask < c.n {
        if rel & mask == 0 {
            let src = rel | mask;
            if src < c.n {
                let blocks = mask.min(c.n - src) as usize;
                let got = c.recv(real(src), blocks * nb).await?;
                buf.extend_from_slice(&got);
            }
        } else {
            c.send(real(rel & !mask), buf).await?;
            return Ok(None);
        }
        mask <<= 1;
    }
    // Root: blocks are in relative order; rotate to rank order.
    let k = (root as usize * nb).min(buf.len());
    buf.rotate_right(k);
    Ok(Some(buf))
}

/// The root of a linear gatherv: receives block i (`lens[i]` bytes) from
/// every other member; its own is `mine`.
pub(crate) async fn gatherv_linear(
    c: &Ctx,
    mine: Vec<u8>,
    lens: &[usize],
) -> MpiResult<Vec<Vec<u8>>> {
    let mut reqs = Vec::with_capacity(lens.len());
    for i in 0..c.n {
        reqs.push(if i == c.me {
            None
        } else {
            Some(c.irecv(i, lens[i as usize]).await?)
        });
    }
    let mut out = Vec::with_capacity(reqs.len());
    let mut mine = Some(mine);
    for (q, &len) in reqs.into_iter().zip(lens) {
        out.push(match q {
            None => c.fit(mine.take().unwrap_or_default(), len),
            Some(q) => c.wait_recv(q, len).await?,
        });
    }
    Ok(out)
}

/// Binomial scatter from `root` of `tmp` (the root's blocks of `nb` bytes
/// in relative order); returns this member's subtree's blocks, its own first.
pub(crate) async fn scatter_binomial(
    c: &Ctx,
    mut tmp: Vec<u8>,
    nb: usize,
    root: u32,
) -> MpiResult<Vec<u8>> {
    let rel = (c.me + c.n - root) % c.n;
    let real = |r: u32| (r + root) % c.n;
    let mut mask = 1;
    while mask < c.n {
        if rel & mask != 0 {
            // The subtree of `mask` ranks from here (fewer at the end).
            let blocks = mask.min(c.n - rel) as usize;
            tmp = c.recv(real(rel - mask), blocks * nb).await?;
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < c.n {
            let at = (mask as usize * nb).min(tmp.len());
            let part = tmp.split_off(at);
            c.send(real(rel + mask), part).await?;
        }
        mask >>= 1;
    }
    Ok(tmp)
}

/// The root of a linear scatterv: sends block i to every other member i
/// (the root's own block is empty by then).
pub(crate) async fn scatterv_linear(c: &Ctx, blocks: Vec<Vec<u8>>) -> MpiResult<()> {
    let mut reqs = Vec::new();
    for (i, data) in blocks.into_iter().enumerate() {
        if i as u32 != c.me {
            reqs.push(c.isend(i as u32, data).await?);
        }
    }
    for q in reqs {
        c.wait(q).await?;
    }
    Ok(())
}

/// Allgather of equal blocks (this member's is `mine`) with MPICH's
/// choice of algorithm; returns the blocks in rank order, concatenated.
pub(crate) async fn allgather_bytes(
    c: &Ctx,
    th: CollThresholds,
    mine: Vec<u8>,
) -> MpiResult<Vec<u8>> {
    let (n, nb) = (c.n as usize, mine.len());
    let total = (nb * n) as u64;
    if c.n.is_power_of_two() && total < th.allgather_long {
        allgather_recdbl(c, mine).await
    } else if total < th.allgather_short {
        allgather_bruck(c, mine).await
    } else {
        Ok(allgather_ring(c, mine, &vec![nb; n]).await?.concat())
    }
}

async fn allgather_recdbl(c: &Ctx, mine: Vec<u8>) -> MpiResult<Vec<u8>> {
    let nb = mine.len();
    let me = c.me as usize;
    let mut buf = vec![0u8; nb * c.n as usize];
    buf[me * nb..(me + 1) * nb].copy_from_slice(&mine);
    let mut mask = 1usize;
    while mask < c.n as usize {
        let dst = me ^ mask;
        let (mine_at, theirs_at) = (me & !(mask - 1), dst & !(mask - 1));
        let got = c
            .sendrecv(
                dst as u32,
                buf[mine_at * nb..(mine_at + mask) * nb].to_vec(),
                dst as u32,
                mask * nb,
            )
            .await?;
        buf[theirs_at * nb..(theirs_at + mask) * nb].copy_from_slice(&got);
        mask <<= 1;
    }
    Ok(buf)
}

async fn allgather_bruck(c: &Ctx, mine: Vec<u8>) -> MpiResult<Vec<u8>> {
    let (n, me, nb) = (c.n as usize, c.me as usize, mine.len());
    let mut tmp = mine;
    let mut pof2 = 1usize;
    while pof2 <= n / 2 {
        let (src, dst) = ((me + pof2) % n, (me + n - pof2) % n);
        let len = tmp.len();
        let got = c.sendrecv(dst as u32, tmp.clone(), src as u32, len).await?;
        tmp.extend_from_slice(&got);
        pof2 *= 2;
    }
    let rem = n - pof2;
    if rem > 0 {
        let (src, dst) = ((me + pof2) % n, (me + n - pof2) % n);
        let got = c
            .sendrecv(dst as u32, tmp[..rem * nb].to_vec(), src as u32, rem * nb)
            .await?;
        tmp.extend_from_slice(&got);
    }
    // Block i of tmp belongs to rank (me + i) % n.
    tmp.rotate_right(me * nb);
    Ok(tmp)
}

/// Ring allgather of blocks of any sizes (block i has `lens[i]` bytes);
/// returns the blocks in rank order.
pub(crate) async fn allgather_ring(
    c: &Ctx,
    mine: Vec<u8>,
    lens: &[usize],
) -> MpiResult<Vec<Vec<u8>>> {
    let (n, me) = (c.n as usize, c.me as usize);
    let mut blocks = vec![Vec::new(); n];
    blocks[me] = mine;
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let (mut j, mut jnext) = (me, left);
    for _ in 1..n {
        let want = lens.get(jnext).copied().unwrap_or(0);
        let got = c
            .sendrecv(right as u32, blocks[j].clone(), left as u32, want)
            .await?;
        blocks[jnext] = got;
        j = jnext;
        jnext = (jnext + n - 1) % n;
    }
    Ok(blocks)
}
