//! All-to-all exchanges.

use super::task::{CollOutput, Task, TaskOut};
use super::Form;
use super::{CollInput, Ctx};
use crate::comm::CommId;
use crate::datatype::{DatatypeId, Datatypes, Span};
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::request::RequestId;
use crate::transport::Transport;
use crate::Engine;

/// One member's blocks of an `MPI_Alltoallw`: the send and receive
/// (displacement in bytes, count, datatype) of every member, and the send
/// buffer region (or, in place, the receive buffer's current contents).
#[derive(Clone, Copy, Debug)]
pub struct AlltoallwArgs<'a> {
    /// The send buffer region, or `MPI_IN_PLACE` with the receive region.
    pub input: CollInput<'a>,
    /// (byte displacement, count, datatype) of the block sent to each member.
    pub send: &'a [(i64, usize, DatatypeId)],
    /// (byte displacement, count, datatype) of the block received from each member.
    pub recv: &'a [(i64, usize, DatatypeId)],
}

impl<T: Transport> Engine<T> {
    /// `MPI_Alltoall`: input is the send buffer (`span(stype, scount ×
    /// size)`) or `InPlace(recvbuf region span(rtype, rcount × size))`;
    /// returns all received blocks packed in rank order. Blocks longer than
    /// `rcount` elements of `rtype` are cut (`MPI_ERR_TRUNCATE`).
    pub fn alltoall(
        &mut self,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let t = self.alltoall_task(
            input,
            scount,
            stype,
            rcount,
            rtype,
            comm,
            CallCode::Alltoall,
        )?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Alltoall` or `MPI_Ialltoall`: as [`alltoall`](Self::alltoall), output `Bytes`.
    #[allow(clippy::too_many_arguments)]
    pub fn start_alltoall(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        scount: usize,
        stype: DatatypeId,
        rcount: usize,
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.alltoall_task(
            input,
            scount,
            stype,
            rcount,
            rtype,
            comm,
            form.call(CallCode::Alltoall),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn alltoall_task(
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
            return self.inter_alltoall_task(input, scount, stype, rcount, rtype, comm, call);
        }
        let n = self.comm(comm)?.size() as usize;
        let all = match input {
            CollInput::Buf(b) => {
                self.types.committed(stype)?;
                self.types.pack(stype, scount * n, b)?
            }
            CollInput::InPlace(b) => {
                self.types.committed(rtype)?;
                self.types.pack(rtype, rcount * n, b)?
            }
        };
        let nb = self.types.committed(rtype)?.size as usize * rcount;
        let c = self.ctx(comm, call)?;
        let sb = all.len() / n.max(1);
        let mut blocks: Vec<Vec<u8>> = (0..n).map(|i| all[i * sb..(i + 1) * sb].to_vec()).collect();
        let me = c.me as usize;
        blocks[me] = c.fit(std::mem::take(&mut blocks[me]), nb);
        let report = self.report(&c, sb as u64, nb as u64, false);
        let th = self.cfg.coll;
        Ok(Task::new(c.io().clone(), async move {
            let out = if nb as u64 <= th.alltoall_short && n >= 8 {
                // Bruck forwards blocks for others: all must have the receive size.
                let blocks = blocks.into_iter().map(|b| c.fit(b, nb)).collect();
                alltoall_bruck(&c, blocks, nb).await?
            } else if nb as u64 <= th.alltoall_medium {
                alltoall_scattered(&c, blocks, &vec![nb; n]).await?
            } else {
                alltoall_pairwise(&c, blocks, &vec![nb; n]).await?
            };
            c.outcome(TaskOut::Out(CollOutput::Bytes(out.concat())))
        })
        .reported(report))
    }

    /// `MPI_Alltoallv` (pairwise exchange): input is the send buffer
    /// (`span_blocks(stype, [(sdispls[i], scounts[i])])`) or
    /// `InPlace(recvbuf region span_blocks(rtype, [(rdispls[i], rcounts[i])]))`;
    /// returns one packed block per source rank.
    #[allow(clippy::too_many_arguments)]
    pub fn alltoallv(
        &mut self,
        input: CollInput<'_>,
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
        rcounts: &[usize],
        rdispls: &[i64],
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<Vec<Vec<u8>>> {
        let w = self.v_as_w(input, scounts, sdispls, stype, rcounts, rdispls, rtype)?;
        let t = self.alltoallw_task(&w.args(), comm, CallCode::Alltoallv)?;
        Ok(self.run_task(t)?.into_blocks())
    }

    /// `MPI_Alltoallv` or `MPI_Ialltoallv`: as [`alltoallv`](Self::alltoallv), output `Blocks`.
    #[allow(clippy::too_many_arguments)]
    pub fn start_alltoallv(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
        rcounts: &[usize],
        rdispls: &[i64],
        rtype: DatatypeId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let w = self.v_as_w(input, scounts, sdispls, stype, rcounts, rdispls, rtype)?;
        let t = self.alltoallw_task(&w.args(), comm, form.call(CallCode::Alltoallv))?;
        Ok(self.start_task(t))
    }

    /// `MPI_Alltoallw` (pairwise exchange, as MPICH): returns one packed
    /// block per source member (unpack block i with `recv[i]`'s datatype
    /// and count at its byte displacement).
    pub fn alltoallw(&mut self, args: &AlltoallwArgs<'_>, comm: CommId) -> MpiResult<Vec<Vec<u8>>> {
        let t = self.alltoallw_task(args, comm, CallCode::Alltoallw)?;
        Ok(self.run_task(t)?.into_blocks())
    }

    /// `MPI_Alltoallw` or `MPI_Ialltoallw`: as [`alltoallw`](Self::alltoallw), output `Blocks`.
    pub fn start_alltoallw(
        &mut self,
        form: Form,
        args: &AlltoallwArgs<'_>,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.alltoallw_task(args, comm, form.call(CallCode::Alltoallw))?;
        Ok(self.start_task(t))
    }

    /// The `v` arguments as `w` arguments (byte displacements).
    #[allow(clippy::too_many_arguments)]
    fn v_as_w<'a>(
        &self,
        input: CollInput<'a>,
        scounts: &[usize],
        sdispls: &[i64],
        stype: DatatypeId,
        rcounts: &[usize],
        rdispls: &[i64],
        rtype: DatatypeId,
    ) -> MpiResult<WBlocks<'a>> {
        let ext = |dt: DatatypeId| -> MpiResult<i64> { Ok(self.types.info(dt)?.extent()) };
        let (counts, displs, dt) = match input {
            CollInput::Buf(_) => (scounts, sdispls, stype),
            CollInput::InPlace(_) => (rcounts, rdispls, rtype),
        };
        if counts.len() != displs.len() || rcounts.len() != rdispls.len() {
            return Err(MpiError::Count);
        }
        let (se, re) = (ext(dt)?, ext(rtype)?);
        Ok(WBlocks {
            input,
            send: displs
                .iter()
                .zip(counts)
                .map(|(&d, &k)| (d * se, k, dt))
                .collect(),
            recv: rdispls
                .iter()
                .zip(rcounts)
                .map(|(&d, &k)| (d * re, k, rtype))
                .collect(),
        })
    }

    /// Packs the blocks of `MPI_Alltoallw`'s send side (or, in place, of
    /// its receive side) and the byte sizes of the blocks received.
    pub(crate) fn w_blocks(
        &self,
        args: &AlltoallwArgs<'_>,
    ) -> MpiResult<(Vec<Vec<u8>>, Vec<usize>)> {
        let (region, blocks) = match args.input {
            CollInput::Buf(b) => (b, args.send),
            CollInput::InPlace(b) => (b, args.recv),
        };
        let base = self.types.span_w(blocks)?.base;
        let packed = blocks
            .iter()
            .map(|&(d, k, dt)| {
                self.types.committed(dt)?;
                self.types.pack_at(dt, 0, k, region, base - d)
            })
            .collect::<MpiResult<Vec<_>>>()?;
        let lens = args
            .recv
            .iter()
            .map(|&(_, k, dt)| Ok(self.types.committed(dt)?.size as usize * k))
            .collect::<MpiResult<Vec<_>>>()?;
        Ok((packed, lens))
    }

    fn alltoallw_task(
        &mut self,
        args: &AlltoallwArgs<'_>,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        let k = self.comm(comm)?;
        let peers = k.peers().ranks.len();
        if args.send.len() != peers || args.recv.len() != peers {
            return Err(MpiError::Count);
        }
        let (mut blocks, lens) = self.w_blocks(args)?;
        let inter = k.is_inter();
        let c = self.ctx(comm, call)?;
        let sent: usize = blocks.iter().map(Vec::len).sum();
        let received: usize = lens.iter().sum();
        let n = peers.max(1) as u64;
        let report = self.report(&c, sent as u64 / n, received as u64 / n, false);
        if !inter {
            let me = c.me as usize;
            blocks[me] = c.fit(std::mem::take(&mut blocks[me]), lens[me]);
        }
        Ok(Task::new(c.io().clone(), async move {
            let out = if inter {
                super::inter::alltoall_inter_pairwise(&c, blocks, &lens).await?
            } else {
                alltoall_pairwise_v(&c, blocks, &lens).await?
            };
            c.outcome(TaskOut::Out(CollOutput::Blocks(out)))
        })
        .reported(report))
    }
}

impl Datatypes {
    /// The region of user memory blocks `(byte displacement, count,
    /// datatype)` of one buffer touch (the `w` collectives' buffers).
    pub fn span_w(&self, blocks: &[(i64, usize, DatatypeId)]) -> MpiResult<Span> {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for &(d, k, dt) in blocks {
            let s = self.span(dt, k)?;
            if s.len == 0 {
                continue;
            }
            let a = d.checked_add(s.base).ok_or(MpiError::Count)?;
            let b = a.checked_add(s.len as i64).ok_or(MpiError::Count)?;
            lo = lo.min(a);
            hi = hi.max(b);
        }
        if lo == i64::MAX {
            return Ok(Span::default());
        }
        Ok(Span {
            base: lo,
            len: (hi - lo) as usize,
        })
    }

    /// Unpacks block `data` of a `w` collective into `region` (the buffer's
    /// [`span_w`](Self::span_w)) at byte displacement `disp`.
    pub fn unpack_w(
        &self,
        (disp, count, dt): (i64, usize, DatatypeId),
        data: &[u8],
        region: &mut [u8],
        base: i64,
    ) -> MpiResult<()> {
        self.unpack_at(dt, 0, count, data, region, base - disp)
            .map(|_| ())
    }
}

/// `MPI_Alltoallw`'s blocks with owned lists (built from `v` arguments).
struct WBlocks<'a> {
    input: CollInput<'a>,
    send: Vec<(i64, usize, DatatypeId)>,
    recv: Vec<(i64, usize, DatatypeId)>,
}

impl WBlocks<'_> {
    fn args(&self) -> AlltoallwArgs<'_> {
        AlltoallwArgs {
            input: self.input,
            send: &self.send,
            recv: &self.recv,
        }
    }
}

async fn alltoall_bruck(c: &Ctx, blocks: Vec<Vec<u8>>, nb: usize) -> MpiResult<Vec<Vec<u8>>> {
    let (n, me) = (c.n as usize, c.me as usize);
    // Rotate so that index i holds the block for rank (me + i) % n.
    let mut tmp: Vec<Vec<u8>> = (0..n).map(|i| blocks[(me + i) % n].clone()).collect();
    let mut pof2 = 1usize;
    while pof2 < n {
        let (dst, src) = ((me + pof2) % n, (me + n - pof2) % n);
        let idx: Vec<usize> = (0..n).filter(|i| i & pof2 != 0).collect();
        let send: Vec<u8> = idx.iter().flat_map(|&i| tmp[i].iter().copied()).collect();
        let got = c
            .sendrecv(dst as u32, send, src as u32, idx.len() * nb)
            .await?;
        for (k, &i) in idx.iter().enumerate() {
            tmp[i] = got[k * nb..(k + 1) * nb].to_vec();
        }
        pof2 *= 2;
    }
    // Index i now holds the block from rank (me - i) % n.
    Ok((0..n)
        .map(|j| std::mem::take(&mut tmp[(me + n - j) % n]))
        .collect())
}

/// All receives and sends at once; the block from member i has `lens[i]` bytes.
async fn alltoall_scattered(
    c: &Ctx,
    mut blocks: Vec<Vec<u8>>,
    lens: &[usize],
) -> MpiResult<Vec<Vec<u8>>> {
    let (n, me) = (c.n as usize, c.me as usize);
    let mut recvs = Vec::new();
    for i in 1..n {
        let src = (me + i) % n;
        recvs.push((src, c.irecv(src as u32, lens[src]).await?));
    }
    let mut sends = Vec::new();
    for i in 1..n {
        let dst = (me + n - i) % n;
        sends.push(
            c.isend(dst as u32, std::mem::take(&mut blocks[dst]))
                .await?,
        );
    }
    let mut out = vec![Vec::new(); n];
    out[me] = std::mem::take(&mut blocks[me]);
    for (src, q) in recvs {
        out[src] = c.wait_recv(q, lens[src]).await?;
    }
    for q in sends {
        c.wait(q).await?;
    }
    Ok(out)
}

/// Pairwise exchange (partners by xor on powers of two); the block from
/// member i has `lens[i]` bytes.
async fn alltoall_pairwise(
    c: &Ctx,
    mut blocks: Vec<Vec<u8>>,
    lens: &[usize],
) -> MpiResult<Vec<Vec<u8>>> {
    let (n, me) = (c.n as usize, c.me as usize);
    let mut out = vec![Vec::new(); n];
    out[me] = std::mem::take(&mut blocks[me]);
    for i in 1..n {
        let (src, dst) = if n.is_power_of_two() {
            (me ^ i, me ^ i)
        } else {
            ((me + n - i) % n, (me + i) % n)
        };
        out[src] = c
            .sendrecv(
                dst as u32,
                std::mem::take(&mut blocks[dst]),
                src as u32,
                lens[src],
            )
            .await?;
    }
    Ok(out)
}

/// Pairwise exchange of `MPI_Alltoallv`/`w` (ring partners).
async fn alltoall_pairwise_v(
    c: &Ctx,
    mut blocks: Vec<Vec<u8>>,
    lens: &[usize],
) -> MpiResult<Vec<Vec<u8>>> {
    let (n, me) = (c.n as usize, c.me as usize);
    let mut out = vec![Vec::new(); n];
    out[me] = std::mem::take(&mut blocks[me]);
    for i in 1..n {
        let (src, dst) = ((me + n - i) % n, (me + i) % n);
        let send = std::mem::take(&mut blocks[dst]);
        out[src] = c.sendrecv(dst as u32, send, src as u32, lens[src]).await?;
    }
    Ok(out)
}
