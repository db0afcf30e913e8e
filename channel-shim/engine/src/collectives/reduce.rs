//! Reductions: reduce, allreduce, reduce_scatter(_block), scan, exscan.

use super::task::{CollOutput, Task, TaskOut};
use super::Form;
use super::{pof2_floor, CollInput, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::CollThresholds;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::op::OpId;
use crate::request::RequestId;
use crate::transport::Transport;
use crate::Engine;

/// What one reduction reduces: op, datatype and element size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Red {
    pub op: OpId,
    pub dt: DatatypeId,
    pub es: usize,
    pub commutative: bool,
}

impl<T: Transport> Engine<T> {
    pub(crate) fn red_setup(
        &self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
    ) -> MpiResult<(Red, Vec<u8>)> {
        let es = self.types.committed(dt)?.size as usize;
        self.ops.check(&self.types, op, dt)?;
        let commutative = self.ops.commutative(op)?;
        let region = match input {
            CollInput::Buf(b) | CollInput::InPlace(b) => b,
        };
        let data = self.types.pack(dt, count, region)?;
        Ok((
            Red {
                op,
                dt,
                es,
                commutative,
            },
            data,
        ))
    }

    /// `MPI_Reduce`: the input is the send buffer, or at the root
    /// `InPlace(recvbuf region span(dt, count))`. The root gets the packed result.
    #[allow(clippy::too_many_arguments)]
    pub fn reduce(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let t = self.reduce_task(input, count, dt, op, root, comm, CallCode::Reduce)?;
        Ok(self.run_task(t)?.into_opt_bytes())
    }

    /// `MPI_Reduce` or `MPI_Ireduce`: as [`reduce`](Self::reduce); output `Bytes` at the root.
    #[allow(clippy::too_many_arguments)]
    pub fn start_reduce(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.reduce_task(
            input,
            count,
            dt,
            op,
            root,
            comm,
            form.call(CallCode::Reduce),
        )?;
        Ok(self.start_task(t))
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce_task(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_reduce_task(input, count, dt, op, root, comm, call);
        }
        if root >= self.comm(comm)?.size() {
            return Err(MpiError::Root);
        }
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let c = self.ctx(comm, call)?;
        let bytes = (count * r.es) as u64;
        let report = self.report(&c, bytes, bytes, c.me == root);
        Ok(Task::new(c.io().clone(), async move {
            let result = reduce_binomial(&c, r, data, root).await?;
            c.outcome(TaskOut::Out(match result {
                Some(b) => CollOutput::Bytes(b),
                None => CollOutput::None,
            }))
        })
        .reported(report))
    }

    /// `MPI_Allreduce`: input is the send buffer or `InPlace(recvbuf region
    /// span(dt, count))`; returns the packed result.
    pub fn allreduce(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let t = self.allreduce_task(input, count, dt, op, comm, CallCode::Allreduce)?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Allreduce` or `MPI_Iallreduce`: as [`allreduce`](Self::allreduce); output `Bytes`.
    pub fn start_allreduce(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.allreduce_task(input, count, dt, op, comm, form.call(CallCode::Allreduce))?;
        Ok(self.start_task(t))
    }

    fn allreduce_task(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_allreduce_task(input, count, dt, op, comm, call);
        }
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let c = self.ctx(comm, call)?;
        let bytes = (count * r.es) as u64;
        let report = self.report(&c, bytes, bytes, false);
        let th = self.cfg.coll;
        Ok(Task::new(c.io().clone(), async move {
            let result = allreduce_bytes(&c, th, r, data, count).await?;
            c.outcome(TaskOut::Out(CollOutput::Bytes(result)))
        })
        .reported(report))
    }

    /// `MPI_Reduce_scatter_block`: input is the send buffer or
    /// `InPlace(recvbuf region span(dt, rcount × size))`; returns this rank's
    /// packed block of `rcount` elements.
    pub fn reduce_scatter_block(
        &mut self,
        input: CollInput<'_>,
        rcount: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let n = self.comm(comm)?.size() as usize;
        let t = self.reduce_scatter_task(
            input,
            &vec![rcount; n],
            dt,
            op,
            comm,
            CallCode::Reduce_scatter_block,
        )?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Reduce_scatter_block` or `MPI_Ireduce_scatter_block`: as
    /// [`reduce_scatter_block`](Self::reduce_scatter_block); output `Bytes`.
    pub fn start_reduce_scatter_block(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        rcount: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let n = self.comm(comm)?.size() as usize;
        let t = self.reduce_scatter_task(
            input,
            &vec![rcount; n],
            dt,
            op,
            comm,
            form.call(CallCode::Reduce_scatter_block),
        )?;
        Ok(self.start_task(t))
    }

    /// `MPI_Reduce_scatter`: input is the send buffer or `InPlace(recvbuf
    /// region span(dt, Σ rcounts))`; returns this rank's packed block.
    pub fn reduce_scatter(
        &mut self,
        input: CollInput<'_>,
        rcounts: &[usize],
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let t = self.reduce_scatter_task(input, rcounts, dt, op, comm, CallCode::Reduce_scatter)?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Reduce_scatter` or `MPI_Ireduce_scatter`: as [`reduce_scatter`](Self::reduce_scatter);
    /// output `Bytes`.
    pub fn start_reduce_scatter(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        rcounts: &[usize],
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.reduce_scatter_task(
            input,
            rcounts,
            dt,
            op,
            comm,
            form.call(CallCode::Reduce_scatter),
        )?;
        Ok(self.start_task(t))
    }

    fn reduce_scatter_task(
        &mut self,
        input: CollInput<'_>,
        rcounts: &[usize],
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_reduce_scatter_task(input, rcounts, dt, op, comm, call);
        }
        if rcounts.len() != self.comm(comm)?.size() as usize {
            return Err(MpiError::Count);
        }
        let total: usize = rcounts.iter().sum();
        let (r, buf) = self.red_setup(input, total, dt, op)?;
        let c = self.ctx(comm, call)?;
        let rcounts = rcounts.to_vec();
        let me = c.me as usize;
        let report = self.report(
            &c,
            (total * r.es) as u64,
            (rcounts[me] * r.es) as u64,
            false,
        );
        Ok(Task::new(c.io().clone(), async move {
            let got = reduce_scatter_bytes(&c, r, buf, &rcounts).await?;
            c.outcome(TaskOut::Out(CollOutput::Bytes(got)))
        })
        .reported(report))
    }

    /// `MPI_Scan`: input is the send buffer or `InPlace(recvbuf region
    /// span(dt, count))`; returns the packed inclusive prefix.
    pub fn scan(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let t = self.scan_task(input, count, dt, op, comm, CallCode::Scan)?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Scan` or `MPI_Iscan`: as [`scan`](Self::scan); output `Bytes`.
    pub fn start_scan(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.scan_task(input, count, dt, op, comm, form.call(CallCode::Scan))?;
        Ok(self.start_task(t))
    }

    /// `MPI_Exscan`: like `scan` but exclusive; rank 0 gets `None`.
    pub fn exscan(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let t = self.scan_task(input, count, dt, op, comm, CallCode::Exscan)?;
        Ok(self.run_task(t)?.into_opt_bytes())
    }

    /// `MPI_Exscan` or `MPI_Iexscan`: as [`exscan`](Self::exscan); output `Bytes` except at rank 0.
    pub fn start_exscan(
        &mut self,
        form: Form,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.scan_task(input, count, dt, op, comm, form.call(CallCode::Exscan))?;
        Ok(self.start_task(t))
    }

    fn scan_task(
        &mut self,
        input: CollInput<'_>,
        count: usize,
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            // Scans are defined on intracommunicators only.
            return Err(MpiError::Comm);
        }
        let exclusive = matches!(call.blocking(), CallCode::Exscan);
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let c = self.ctx(comm, call)?;
        let bytes = (count * r.es) as u64;
        let report = self.report(&c, bytes, bytes, false);
        Ok(Task::new(c.io().clone(), async move {
            let result = scan_recdbl(&c, r, data, exclusive).await?;
            c.outcome(TaskOut::Out(match result {
                Some(b) => CollOutput::Bytes(b),
                None => CollOutput::None,
            }))
        })
        .reported(report))
    }
}

/// Binomial reduction of every member's `buf` (each expects its
/// partners' contributions to be as long as its own) to `root`.
pub(crate) async fn reduce_binomial(
    c: &Ctx,
    r: Red,
    mut buf: Vec<u8>,
    root: u32,
) -> MpiResult<Option<Vec<u8>>> {
    let n = c.n;
    let len = buf.len();
    let lroot = if r.commutative { root } else { 0 };
    let rel = (c.me + n - lroot) % n;
    let real = |x: u32| (x + lroot) % n;
    let mut mask = 1;
    while mask < n {
        if rel & mask == 0 {
            let src = rel | mask;
            if src < n {
                let tmp = c.recv(real(src), len).await?;
                if r.commutative {
                    c.reduce(r, &tmp, &mut buf).await?;
                } else {
                    c.reduce_after(r, &mut buf, tmp).await?;
                }
            }
        } else {
            c.send(real(rel & !mask), buf).await?;
            buf = Vec::new();
            break;
        }
        mask <<= 1;
    }
    if lroot != root {
        if c.me == lroot {
            c.send(root, std::mem::take(&mut buf)).await?;
        } else if c.me == root {
            buf = c.recv(lroot, len).await?;
        }
    }
    Ok(if c.me == root { Some(buf) } else { None })
}

/// Allreduce with MPICH's choice of algorithm: recursive doubling, or
/// Rabenseifner for long messages and commutative ops.
pub(crate) async fn allreduce_bytes(
    c: &Ctx,
    th: CollThresholds,
    r: Red,
    mut buf: Vec<u8>,
    count: usize,
) -> MpiResult<Vec<u8>> {
    let (n, me) = (c.n, c.me);
    if n == 1 {
        return Ok(buf);
    }
    let len = buf.len();
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    let newrank = if me < 2 * rem {
        if me % 2 == 0 {
            c.send(me + 1, buf.clone()).await?;
            None
        } else {
            let tmp = c.recv(me - 1, len).await?;
            c.reduce(r, &tmp, &mut buf).await?;
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    };
    let real = move |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
    if let Some(nr) = newrank {
        let nbytes = (count * r.es) as u64;
        if nbytes <= th.allreduce_short || !r.commutative || count < pof2 as usize {
            let mut mask = 1;
            while mask < pof2 {
                let dst = real(nr ^ mask);
                let tmp = c.sendrecv(dst, buf.clone(), dst, len).await?;
                if r.commutative || dst < me {
                    c.reduce(r, &tmp, &mut buf).await?;
                } else {
                    c.reduce_after(r, &mut buf, tmp).await?;
                }
                mask <<= 1;
            }
        } else {
            rabenseifner(c, r, &mut buf, count, nr, pof2, rem).await?;
        }
    }
    if me < 2 * rem {
        if me % 2 == 1 {
            c.send(me - 1, buf.clone()).await?;
        } else {
            buf = c.recv(me + 1, len).await?;
        }
    }
    Ok(buf)
}

/// Reduce-scatter by recursive halving (partner distance doubling, as
/// MPICH) then allgather by recursive doubling, over `pof2` participants
/// (`rem` extra ranks folded in).
async fn rabenseifner(
    c: &Ctx,
    r: Red,
    buf: &mut [u8],
    count: usize,
    nr: u32,
    pof2: u32,
    rem: u32,
) -> MpiResult<()> {
    let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
    let p = pof2 as usize;
    // Element offset of block i (block sizes differ by at most one).
    let off = |i: usize| (count / p * i + i.min(count % p)) * r.es;
    let (mut lo, mut hi) = (0usize, p);
    let mut steps = Vec::new();
    let mut mask = 1;
    while mask < pof2 {
        let dst = real(nr ^ mask);
        let mid = (lo + hi) / 2;
        let keep_low = nr & mask == 0;
        let (keep, send) = if keep_low {
            ((lo, mid), (mid, hi))
        } else {
            ((mid, hi), (lo, mid))
        };
        let want = off(keep.1) - off(keep.0);
        let send = buf[off(send.0)..off(send.1)].to_vec();
        let tmp = c.sendrecv(dst, send, dst, want).await?;
        c.reduce(r, &tmp, &mut buf[off(keep.0)..off(keep.1)])
            .await?;
        steps.push((dst, keep_low, hi - lo));
        (lo, hi) = keep;
        mask <<= 1;
    }
    for (dst, keep_low, width) in steps.into_iter().rev() {
        let half = width / 2;
        let theirs = if keep_low {
            (hi, hi + half)
        } else {
            (lo - half, lo)
        };
        let want = off(theirs.1) - off(theirs.0);
        let got = c
            .sendrecv(dst, buf[off(lo)..off(hi)].to_vec(), dst, want)
            .await?;
        buf[off(theirs.0)..off(theirs.1)].copy_from_slice(&got);
        (lo, hi) = (lo.min(theirs.0), hi.max(theirs.1));
    }
    Ok(())
}

/// Reduce-scatter of `buf` (the blocks of `rcounts` elements of every
/// member): recursive halving for commutative ops, else a binomial reduce
/// to member 0 and a linear scatterv. Returns this member's block.
pub(crate) async fn reduce_scatter_bytes(
    c: &Ctx,
    r: Red,
    mut buf: Vec<u8>,
    rcounts: &[usize],
) -> MpiResult<Vec<u8>> {
    let mut starts = vec![0usize; rcounts.len() + 1];
    for (i, k) in rcounts.iter().enumerate() {
        starts[i + 1] = starts[i] + k * r.es;
    }
    let me = c.me as usize;
    let mine = starts[me + 1] - starts[me];
    if !r.commutative {
        let all = reduce_binomial(c, r, buf, 0).await?;
        if c.me == 0 {
            let all = all.unwrap_or_default();
            let mut reqs = Vec::new();
            for i in 1..c.n as usize {
                reqs.push(
                    c.isend(i as u32, all[starts[i]..starts[i + 1]].to_vec())
                        .await?,
                );
            }
            for q in reqs {
                c.wait(q).await?;
            }
            return Ok(all[..starts[1]].to_vec());
        }
        return c.recv(0, mine).await;
    }
    let n = c.n;
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    let newrank = if c.me < 2 * rem {
        if c.me % 2 == 0 {
            c.send(c.me + 1, buf.clone()).await?;
            None
        } else {
            let tmp = c.recv(c.me - 1, buf.len()).await?;
            c.reduce(r, &tmp, &mut buf).await?;
            Some(c.me / 2)
        }
    } else {
        Some(c.me - rem)
    };
    let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
    // First real rank of participant i, and byte offset of its blocks.
    let first_real = |i: u32| if i < rem { 2 * i } else { i + rem } as usize;
    let off = |i: usize| {
        if i == pof2 as usize {
            starts[n as usize]
        } else {
            starts[first_real(i as u32)]
        }
    };
    if let Some(nr) = newrank {
        let (mut lo, mut hi) = (0usize, pof2 as usize);
        let mut mask = pof2 / 2;
        while mask > 0 {
            let dst = real(nr ^ mask);
            let mid = lo + mask as usize;
            let (keep, send) = if nr & mask == 0 {
                ((lo, mid), (mid, hi))
            } else {
                ((mid, hi), (lo, mid))
            };
            let want = off(keep.1) - off(keep.0);
            let send = buf[off(send.0)..off(send.1)].to_vec();
            let tmp = c.sendrecv(dst, send, dst, want).await?;
            c.reduce(r, &tmp, &mut buf[off(keep.0)..off(keep.1)])
                .await?;
            (lo, hi) = keep;
            mask >>= 1;
        }
    }
    if c.me < 2 * rem {
        if c.me % 2 == 1 {
            c.send(c.me - 1, buf[starts[me - 1]..starts[me]].to_vec())
                .await?;
        } else {
            return c.recv(c.me + 1, mine).await;
        }
    }
    Ok(buf[starts[me]..starts[me + 1]].to_vec())
}

/// Recursive-doubling scan (inclusive, or exclusive with `None` at member 0).
async fn scan_recdbl(
    c: &Ctx,
    r: Red,
    data: Vec<u8>,
    exclusive: bool,
) -> MpiResult<Option<Vec<u8>>> {
    let mut partial = data.clone();
    let mut result = if exclusive { None } else { Some(data) };
    let mut mask = 1;
    while mask < c.n {
        let dst = c.me ^ mask;
        if dst < c.n {
            let len = partial.len();
            let tmp = c.sendrecv(dst, partial.clone(), dst, len).await?;
            if c.me > dst {
                c.reduce(r, &tmp, &mut partial).await?;
                result = Some(match result {
                    None => tmp,
                    Some(mut res) => {
                        c.reduce(r, &tmp, &mut res).await?;
                        res
                    }
                });
            } else if r.commutative {
                c.reduce(r, &tmp, &mut partial).await?;
            } else {
                c.reduce_after(r, &mut partial, tmp).await?;
            }
        }
        mask <<= 1;
    }
    Ok(result)
}
