//! Reductions: reduce, allreduce, reduce_scatter(_block), scan, exscan.

use super::{pof2_floor, CollInput, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::op::OpId;
use crate::transport::Transport;
use crate::Engine;

/// What one reduction reduces: op, datatype and element size.
#[derive(Clone, Copy)]
pub(crate) struct Red {
    pub op: OpId,
    pub dt: DatatypeId,
    pub es: usize,
    pub commutative: bool,
}

impl<T: Transport> Engine<T> {
    fn red_setup(
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

    /// `inout = in op inout` on packed elements.
    pub(crate) fn red(&mut self, r: Red, inp: &[u8], inout: &mut [u8]) -> MpiResult<()> {
        let count = inp.len().checked_div(r.es).unwrap_or(0);
        self.ops.reduce(&self.types, r.op, r.dt, count, inp, inout)
    }

    /// `acc = acc op later` where `later` comes from higher ranks.
    fn red_after(&mut self, r: Red, acc: &mut Vec<u8>, mut later: Vec<u8>) -> MpiResult<()> {
        self.red(r, acc, &mut later)?;
        *acc = later;
        Ok(())
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
        let c = self.ctx(comm, CallCode::Reduce)?;
        if root >= c.n {
            return Err(MpiError::Root);
        }
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let result = self.reduce_binomial(&c, r, data, root)?;
        c.outcome(result)
    }

    /// Binomial reduction of every rank's `buf` (each expects its
    /// partners' contributions to be as long as its own) to `root`.
    pub(crate) fn reduce_binomial(
        &mut self,
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
                    let tmp = self.c_recv(c, real(src), len)?;
                    if r.commutative {
                        self.red(r, &tmp, &mut buf)?;
                    } else {
                        self.red_after(r, &mut buf, tmp)?;
                    }
                }
            } else {
                self.c_send(c, real(rel & !mask), buf)?;
                buf = Vec::new();
                break;
            }
            mask <<= 1;
        }
        if lroot != root {
            if c.me == lroot {
                self.c_send(c, root, std::mem::take(&mut buf))?;
            } else if c.me == root {
                buf = self.c_recv(c, lroot, len)?;
            }
        }
        Ok(if c.me == root { Some(buf) } else { None })
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
        let c = self.ctx(comm, CallCode::Allreduce)?;
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let result = self.allreduce_bytes(&c, r, data, count)?;
        c.outcome(result)
    }

    pub(crate) fn allreduce_bytes(
        &mut self,
        c: &Ctx,
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
                self.c_send(c, me + 1, buf.clone())?;
                None
            } else {
                let tmp = self.c_recv(c, me - 1, len)?;
                self.red(r, &tmp, &mut buf)?;
                Some(me / 2)
            }
        } else {
            Some(me - rem)
        };
        let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
        if let Some(nr) = newrank {
            let nbytes = (count * r.es) as u64;
            if nbytes <= self.cfg.coll.allreduce_short || !r.commutative || count < pof2 as usize {
                let mut mask = 1;
                while mask < pof2 {
                    let dst = real(nr ^ mask);
                    let tmp = self.c_sendrecv(c, dst, buf.clone(), dst, len)?;
                    if r.commutative || dst < me {
                        self.red(r, &tmp, &mut buf)?;
                    } else {
                        self.red_after(r, &mut buf, tmp)?;
                    }
                    mask <<= 1;
                }
            } else {
                self.rabenseifner(c, r, &mut buf, count, nr, pof2, &real)?;
            }
        }
        if me < 2 * rem {
            if me % 2 == 1 {
                self.c_send(c, me - 1, buf.clone())?;
            } else {
                buf = self.c_recv(c, me + 1, len)?;
            }
        }
        Ok(buf)
    }

    /// Reduce-scatter by recursive halving (partner distance doubling, as
    /// MPICH) then allgather by recursive doubling, over `pof2` participants.
    #[allow(clippy::too_many_arguments)]
    fn rabenseifner(
        &mut self,
        c: &Ctx,
        r: Red,
        buf: &mut [u8],
        count: usize,
        nr: u32,
        pof2: u32,
        real: &dyn Fn(u32) -> u32,
    ) -> MpiResult<()> {
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
            let tmp = self.c_sendrecv(c, dst, send, dst, want)?;
            self.red(r, &tmp, &mut buf[off(keep.0)..off(keep.1)])?;
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
            let got = self.c_sendrecv(c, dst, buf[off(lo)..off(hi)].to_vec(), dst, want)?;
            buf[off(theirs.0)..off(theirs.1)].copy_from_slice(&got);
            (lo, hi) = (lo.min(theirs.0), hi.max(theirs.1));
        }
        Ok(())
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
        self.reduce_scatter_impl(
            input,
            &vec![rcount; n],
            dt,
            op,
            comm,
            CallCode::Reduce_scatter_block,
        )
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
        self.reduce_scatter_impl(input, rcounts, dt, op, comm, CallCode::Reduce_scatter)
    }

    fn reduce_scatter_impl(
        &mut self,
        input: CollInput<'_>,
        rcounts: &[usize],
        dt: DatatypeId,
        op: OpId,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Vec<u8>> {
        let c = self.ctx(comm, call)?;
        if rcounts.len() != c.n as usize {
            return Err(MpiError::Count);
        }
        let total: usize = rcounts.iter().sum();
        let (r, mut buf) = self.red_setup(input, total, dt, op)?;
        let mut starts = vec![0usize; rcounts.len() + 1];
        for (i, k) in rcounts.iter().enumerate() {
            starts[i + 1] = starts[i] + k * r.es;
        }
        let me = c.me as usize;
        let mine = starts[me + 1] - starts[me];
        if !r.commutative {
            let all = self.reduce_binomial(&c, r, buf, 0)?;
            if c.me == 0 {
                let all = all.unwrap_or_default();
                let mut reqs = Vec::new();
                for i in 1..c.n as usize {
                    reqs.push(self.c_isend(&c, i as u32, all[starts[i]..starts[i + 1]].to_vec()));
                }
                for q in reqs {
                    self.wait_internal(q)?;
                }
                return c.outcome(all[..starts[1]].to_vec());
            }
            let got = self.c_recv(&c, 0, mine)?;
            return c.outcome(got);
        }
        let n = c.n;
        let pof2 = pof2_floor(n);
        let rem = n - pof2;
        let newrank = if c.me < 2 * rem {
            if c.me % 2 == 0 {
                self.c_send(&c, c.me + 1, buf.clone())?;
                None
            } else {
                let tmp = self.c_recv(&c, c.me - 1, buf.len())?;
                self.red(r, &tmp, &mut buf)?;
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
                let tmp = self.c_sendrecv(&c, dst, send, dst, want)?;
                self.red(r, &tmp, &mut buf[off(keep.0)..off(keep.1)])?;
                (lo, hi) = keep;
                mask >>= 1;
            }
        }
        if c.me < 2 * rem {
            if c.me % 2 == 1 {
                self.c_send(&c, c.me - 1, buf[starts[me - 1]..starts[me]].to_vec())?;
            } else {
                let got = self.c_recv(&c, c.me + 1, mine)?;
                return c.outcome(got);
            }
        }
        c.outcome(buf[starts[me]..starts[me + 1]].to_vec())
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
        let c = self.ctx(comm, CallCode::Scan)?;
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let result = self.scan_impl(&c, r, data, false)?.unwrap_or_default();
        c.outcome(result)
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
        let c = self.ctx(comm, CallCode::Exscan)?;
        let (r, data) = self.red_setup(input, count, dt, op)?;
        let result = self.scan_impl(&c, r, data, true)?;
        c.outcome(result)
    }

    fn scan_impl(
        &mut self,
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
                let tmp = self.c_sendrecv(c, dst, partial.clone(), dst, partial.len())?;
                if c.me > dst {
                    self.red(r, &tmp, &mut partial)?;
                    result = Some(match result {
                        None => tmp,
                        Some(mut res) => {
                            self.red(r, &tmp, &mut res)?;
                            res
                        }
                    });
                } else if r.commutative {
                    self.red(r, &tmp, &mut partial)?;
                } else {
                    self.red_after(r, &mut partial, tmp)?;
                }
            }
            mask <<= 1;
        }
        Ok(result)
    }
}
