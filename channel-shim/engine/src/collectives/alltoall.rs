//! All-to-all exchanges.

use super::{CollInput, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;

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
        let c = self.ctx(comm, CallCode::Alltoall)?;
        let n = c.n as usize;
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
        let sb = all.len() / n.max(1);
        let nb = self.types.committed(rtype)?.size as usize * rcount;
        let mut blocks: Vec<Vec<u8>> = (0..n).map(|i| all[i * sb..(i + 1) * sb].to_vec()).collect();
        let me = c.me as usize;
        blocks[me] = c.fit(std::mem::take(&mut blocks[me]), nb);
        let th = self.cfg.coll;
        let out = if nb as u64 <= th.alltoall_short && n >= 8 {
            // Bruck forwards blocks for others: all must have the receive size.
            let blocks = blocks.into_iter().map(|b| c.fit(b, nb)).collect();
            self.alltoall_bruck(&c, blocks, nb)?
        } else if nb as u64 <= th.alltoall_medium {
            self.alltoall_scattered(&c, blocks, nb)?
        } else {
            self.alltoall_pairwise(&c, blocks, nb)?
        };
        c.outcome(out.concat())
    }

    fn alltoall_bruck(
        &mut self,
        c: &Ctx,
        blocks: Vec<Vec<u8>>,
        nb: usize,
    ) -> MpiResult<Vec<Vec<u8>>> {
        let (n, me) = (c.n as usize, c.me as usize);
        // Rotate so that index i holds the block for rank (me + i) % n.
        let mut tmp: Vec<Vec<u8>> = (0..n).map(|i| blocks[(me + i) % n].clone()).collect();
        let mut pof2 = 1usize;
        while pof2 < n {
            let (dst, src) = ((me + pof2) % n, (me + n - pof2) % n);
            let idx: Vec<usize> = (0..n).filter(|i| i & pof2 != 0).collect();
            let send: Vec<u8> = idx.iter().flat_map(|&i| tmp[i].iter().copied()).collect();
            let got = self.c_sendrecv(c, dst as u32, send, src as u32, idx.len() * nb)?;
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

    /// All receives and sends at once; received blocks have `nb` bytes.
    fn alltoall_scattered(
        &mut self,
        c: &Ctx,
        mut blocks: Vec<Vec<u8>>,
        nb: usize,
    ) -> MpiResult<Vec<Vec<u8>>> {
        let (n, me) = (c.n as usize, c.me as usize);
        let mut recvs = Vec::new();
        for i in 1..n {
            recvs.push(((me + i) % n, self.c_irecv(c, ((me + i) % n) as u32, nb)?));
        }
        let mut sends = Vec::new();
        for i in 1..n {
            let dst = (me + n - i) % n;
            sends.push(self.c_isend(c, dst as u32, std::mem::take(&mut blocks[dst])));
        }
        let mut out = vec![Vec::new(); n];
        out[me] = std::mem::take(&mut blocks[me]);
        for (src, q) in recvs {
            out[src] = self.c_wait(c, q, nb)?;
        }
        for q in sends {
            self.wait_internal(q)?;
        }
        Ok(out)
    }

    /// Pairwise exchange; received blocks have `nb` bytes.
    fn alltoall_pairwise(
        &mut self,
        c: &Ctx,
        mut blocks: Vec<Vec<u8>>,
        nb: usize,
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
            out[src] = self.c_sendrecv(
                c,
                dst as u32,
                std::mem::take(&mut blocks[dst]),
                src as u32,
                nb,
            )?;
        }
        Ok(out)
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
        let c = self.ctx(comm, CallCode::Alltoallv)?;
        let n = c.n as usize;
        let (region, counts, displs, dt) = match input {
            CollInput::Buf(b) => (b, scounts, sdispls, stype),
            CollInput::InPlace(b) => (b, rcounts, rdispls, rtype),
        };
        if counts.len() != n || displs.len() != n {
            return Err(MpiError::Count);
        }
        self.types.committed(dt)?;
        let bl: Vec<(i64, usize)> = displs.iter().copied().zip(counts.iter().copied()).collect();
        let base = self.types.span_blocks(dt, &bl)?.base;
        let blocks: Vec<Vec<u8>> = bl
            .iter()
            .map(|&(d, k)| self.types.pack_at(dt, d, k, region, base))
            .collect::<MpiResult<_>>()?;
        if rcounts.len() != n {
            return Err(MpiError::Count);
        }
        let size = self.types.committed(rtype)?.size as usize;
        let me = c.me as usize;
        let mut blocks = blocks;
        let mut out = vec![Vec::new(); n];
        out[me] = c.fit(std::mem::take(&mut blocks[me]), rcounts[me] * size);
        for i in 1..n {
            let (src, dst) = ((me + n - i) % n, (me + i) % n);
            let send = std::mem::take(&mut blocks[dst]);
            out[src] = self.c_sendrecv(&c, dst as u32, send, src as u32, rcounts[src] * size)?;
        }
        c.outcome(out)
    }
}
