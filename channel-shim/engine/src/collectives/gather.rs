//! Gather, scatter and allgather, with their v variants.

use super::{CollInput, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;

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
        let c = self.ctx(comm, CallCode::Gather)?;
        if root >= c.n {
            return Err(MpiError::Root);
        }
        let n = c.n as usize;
        let own = (c.me as i64 * rcount as i64, rcount);
        let mine = self.own_block(input, scount, stype, rtype, &[(0, rcount * n)], own)?;
        // Every rank gathers blocks of its own block's size; the root's
        // blocks are `rcount` elements of `rtype`.
        let nb = if c.me == root {
            self.types.committed(rtype)?.size as usize * rcount
        } else {
            mine.len()
        };
        let rel = (c.me + c.n - root) % c.n;
        let real = |r: u32| (r + root) % c.n;
        let mut buf = c.fit(mine, nb);
        let mut mask = 1;
        while mask < c.n {
            if rel & mask == 0 {
                let src = rel | mask;
                if src < c.n {
                    let blocks = mask.min(c.n - src) as usize;
                    let got = self.c_recv(&c, real(src), blocks * nb)?;
                    buf.extend_from_slice(&got);
                }
            } else {
                self.c_send(&c, real(rel & !mask), buf)?;
                return c.outcome(None);
            }
            mask <<= 1;
        }
        // Root: blocks are in relative order; rotate to rank order.
        let k = (root as usize * nb).min(buf.len());
        buf.rotate_right(k);
        c.outcome(Some(buf))
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
        let c = self.ctx(comm, CallCode::Gatherv)?;
        if root >= c.n {
            return Err(MpiError::Root);
        }
        if c.me != root {
            let mine = self.own_block(input, scount, stype, rtype, &[], (0, 0))?;
            self.c_send(&c, root, mine)?;
            return Ok(None);
        }
        if rcounts.len() != c.n as usize || displs.len() != c.n as usize {
            return Err(MpiError::Count);
        }
        let r = root as usize;
        let own = (displs[r], rcounts[r]);
        let mine = self.own_block(input, scount, stype, rtype, &[own], own)?;
        let size = self.types.committed(rtype)?.size as usize;
        let reqs: Vec<_> = (0..c.n)
            .map(|i| {
                let len = rcounts[i as usize] * size;
                if i == root {
                    Ok((None, len))
                } else {
                    self.c_irecv(&c, i, len).map(|q| (Some(q), len))
                }
            })
            .collect::<MpiResult<_>>()?;
        let mut out = Vec::with_capacity(reqs.len());
        let mut mine = Some(mine);
        for (q, len) in reqs {
            out.push(match q {
                None => c.fit(mine.take().unwrap_or_default(), len),
                Some(q) => self.c_wait(&c, q, len)?,
            });
        }
        c.outcome(Some(out))
    }

    /// `MPI_Scatter` (binomial): `sendbuf` is the root's region
    /// `span(stype, scount × size)`; `recv` is `(rcount, rtype)`, or `None`
    /// for `MPI_IN_PLACE` at the root (which then gets `None`).
    pub fn scatter(
        &mut self,
        sendbuf: &[u8],
        scount: usize,
        stype: DatatypeId,
        recv: Option<(usize, DatatypeId)>,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let c = self.ctx(comm, CallCode::Scatter)?;
        if root >= c.n {
            return Err(MpiError::Root);
        }
        let n = c.n as usize;
        let nb = if c.me == root {
            self.types.committed(stype)?.size as usize * scount
        } else {
            let (rcount, rtype) = recv.ok_or(MpiError::Buffer)?;
            self.types.committed(rtype)?.size as usize * rcount
        };
        let rel = (c.me + c.n - root) % c.n;
        let real = |r: u32| (r + root) % c.n;
        let mut tmp = Vec::new();
        if c.me == root {
            tmp = self.types.pack(stype, scount * n, sendbuf)?;
            let k = (root as usize * nb).min(tmp.len());
            tmp.rotate_left(k);
        }
        let mut mask = 1;
        while mask < c.n {
            if rel & mask != 0 {
                // The subtree of `mask` ranks from here (fewer at the end).
                let blocks = mask.min(c.n - rel) as usize;
                tmp = self.c_recv(&c, real(rel - mask), blocks * nb)?;
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        while mask > 0 {
            if rel + mask < c.n {
                let at = (mask as usize * nb).min(tmp.len());
                let part = tmp.split_off(at);
                self.c_send(&c, real(rel + mask), part)?;
            }
            mask >>= 1;
        }
        if c.me == root && recv.is_none() {
            return c.outcome(None);
        }
        if c.me == root {
            // The root's own block, `scount` of `stype`, into its receive buffer.
            let (rcount, rtype) = recv.ok_or(MpiError::Buffer)?;
            let want = self.types.committed(rtype)?.size as usize * rcount;
            tmp.truncate(nb);
            return c.outcome(Some(c.fit(tmp, want)));
        }
        c.outcome(Some(c.fit(tmp, nb)))
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
        recv: Option<(usize, DatatypeId)>,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Option<Vec<u8>>> {
        let c = self.ctx(comm, CallCode::Scatterv)?;
        if root >= c.n {
            return Err(MpiError::Root);
        }
        if c.me != root {
            let (rcount, rtype) = recv.ok_or(MpiError::Buffer)?;
            let want = self.types.committed(rtype)?.size as usize * rcount;
            let got = self.c_recv(&c, root, want)?;
            return c.outcome(Some(got));
        }
        if scounts.len() != c.n as usize || sdispls.len() != c.n as usize {
            return Err(MpiError::Count);
        }
        self.types.committed(stype)?;
        let blocks: Vec<(i64, usize)> = sdispls
            .iter()
            .copied()
            .zip(scounts.iter().copied())
            .collect();
        let base = self.types.span_blocks(stype, &blocks)?.base;
        let mut reqs = Vec::new();
        let mut mine = None;
        for (i, &(d, k)) in blocks.iter().enumerate() {
            let data = self.types.pack_at(stype, d, k, sendbuf, base)?;
            if i as u32 == root {
                mine = Some(data);
            } else {
                reqs.push(self.c_isend(&c, i as u32, data));
            }
        }
        for q in reqs {
            self.wait_internal(q)?;
        }
        let Some((rcount, rtype)) = recv else {
            return Ok(None);
        };
        let want = self.types.committed(rtype)?.size as usize * rcount;
        c.outcome(mine.map(|m| c.fit(m, want)))
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
        let c = self.ctx(comm, CallCode::Allgather)?;
        let n = c.n as usize;
        let own = (c.me as i64 * rcount as i64, rcount);
        let mine = self.own_block(input, scount, stype, rtype, &[(0, rcount * n)], own)?;
        let nb = self.types.committed(rtype)?.size as usize * rcount;
        let mine = c.fit(mine, nb);
        let total = (nb * n) as u64;
        let th = self.cfg.coll;
        let all = if c.n.is_power_of_two() && total < th.allgather_long {
            self.allgather_recdbl(&c, mine)?
        } else if total < th.allgather_short {
            self.allgather_bruck(&c, mine)?
        } else {
            self.allgather_ring(&c, mine, &vec![nb; n])?.concat()
        };
        c.outcome(all)
    }

    fn allgather_recdbl(&mut self, c: &Ctx, mine: Vec<u8>) -> MpiResult<Vec<u8>> {
        let nb = mine.len();
        let me = c.me as usize;
        let mut buf = vec![0u8; nb * c.n as usize];
        buf[me * nb..(me + 1) * nb].copy_from_slice(&mine);
        let mut mask = 1usize;
        while mask < c.n as usize {
            let dst = me ^ mask;
            let (mine_at, theirs_at) = (me & !(mask - 1), dst & !(mask - 1));
            let got = self.c_sendrecv(
                c,
                dst as u32,
                buf[mine_at * nb..(mine_at + mask) * nb].to_vec(),
                dst as u32,
                mask * nb,
            )?;
            buf[theirs_at * nb..(theirs_at + mask) * nb].copy_from_slice(&got);
            mask <<= 1;
        }
        Ok(buf)
    }

    fn allgather_bruck(&mut self, c: &Ctx, mine: Vec<u8>) -> MpiResult<Vec<u8>> {
        let (n, me, nb) = (c.n as usize, c.me as usize, mine.len());
        let mut tmp = mine;
        let mut pof2 = 1usize;
        while pof2 <= n / 2 {
            let (src, dst) = ((me + pof2) % n, (me + n - pof2) % n);
            let got = self.c_sendrecv(c, dst as u32, tmp.clone(), src as u32, tmp.len())?;
            tmp.extend_from_slice(&got);
            pof2 *= 2;
        }
        let rem = n - pof2;
        if rem > 0 {
            let (src, dst) = ((me + pof2) % n, (me + n - pof2) % n);
            let got = self.c_sendrecv(
                c,
                dst as u32,
                tmp[..rem * nb].to_vec(),
                src as u32,
                rem * nb,
            )?;
            tmp.extend_from_slice(&got);
        }
        // Block i of tmp belongs to rank (me + i) % n.
        tmp.rotate_right(me * nb);
        Ok(tmp)
    }

    /// Ring allgather of blocks of any sizes (block i has `lens[i]` bytes);
    /// returns the blocks in rank order.
    pub(crate) fn allgather_ring(
        &mut self,
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
            let got = self.c_sendrecv(c, right as u32, blocks[j].clone(), left as u32, want)?;
            blocks[jnext] = got;
            j = jnext;
            jnext = (jnext + n - 1) % n;
        }
        Ok(blocks)
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
        let c = self.ctx(comm, CallCode::Allgatherv)?;
        if rcounts.len() != c.n as usize || displs.len() != c.n as usize {
            return Err(MpiError::Count);
        }
        let me = c.me as usize;
        let own = (displs[me], rcounts[me]);
        let mine = self.own_block(input, scount, stype, rtype, &[own], own)?;
        let size = self.types.committed(rtype)?.size as usize;
        let lens: Vec<usize> = rcounts.iter().map(|k| k * size).collect();
        let mine = c.fit(mine, lens[me]);
        let blocks = self.allgather_ring(&c, mine, &lens)?;
        c.outcome(blocks)
    }
}
