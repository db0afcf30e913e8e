//! Barrier and broadcast.

use super::{pof2_floor, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;

impl<T: Transport> Engine<T> {
    /// `MPI_Barrier` (dissemination).
    pub fn barrier(&mut self, comm: CommId) -> MpiResult<()> {
        let c = self.ctx(comm, CallCode::Barrier)?;
        let mut mask = 1;
        while mask < c.n {
            let to = (c.me + mask) % c.n;
            let from = (c.me + c.n - mask) % c.n;
            self.c_sendrecv(&c, to, Vec::new(), from, 0)?;
            mask <<= 1;
        }
        c.outcome(())
    }

    /// `MPI_Bcast`: `buf` is the root's region `span(dt, count)` (ignored
    /// elsewhere); every rank gets the packed data. A rank whose `count`
    /// and `dt` describe fewer bytes than the root's gets
    /// `MPI_ERR_TRUNCATE`, more bytes `MPI_ERR_OTHER` (MPICH's size
    /// mismatch), and the ranks it forwards to `MPI_ERR_OTHER`.
    pub fn bcast(
        &mut self,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let c = self.ctx(comm, CallCode::Bcast)?;
        if root >= c.n {
            return Err(MpiError::Root);
        }
        let size = self.types.committed(dt)?.size;
        let nbytes = size as usize * count;
        let mut data = if c.me == root {
            self.types.pack(dt, count, buf)?
        } else {
            Vec::new()
        };
        if c.n == 1 {
            return Ok(data);
        }
        let th = self.cfg.coll;
        if (nbytes as u64) < th.bcast_short || c.n < th.bcast_min_procs {
            self.bcast_binomial(&c, root, &mut data, nbytes)?;
        } else {
            data.resize(nbytes, 0);
            self.bcast_scatter(&c, root, &mut data)?;
            if (nbytes as u64) < th.bcast_long && c.n.is_power_of_two() {
                self.bcast_allgather_recdbl(&c, root, &mut data)?;
            } else {
                self.bcast_allgather_ring(&c, root, &mut data)?;
            }
        }
        c.outcome(data)
    }

    /// Binomial broadcast of the root's `data`; the others expect `nbytes`.
    pub(crate) fn bcast_binomial(
        &mut self,
        c: &Ctx,
        root: u32,
        data: &mut Vec<u8>,
        nbytes: usize,
    ) -> MpiResult<()> {
        let n = c.n;
        let rel = (c.me + n - root) % n;
        let real = |r: u32| (r + root) % n;
        let mut mask = 1;
        while mask < n {
            if rel & mask != 0 {
                *data = self.bcast_recv(c, real(rel - mask), nbytes)?;
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        while mask > 0 {
            if rel + mask < n {
                self.c_send(c, real(rel + mask), data.clone())?;
            }
            mask >>= 1;
        }
        Ok(())
    }

    /// Receives the `nbytes` of a broadcast from `from`; a shorter message
    /// is MPICH's size mismatch (`MPI_ERR_OTHER`).
    fn bcast_recv(&mut self, c: &Ctx, from: u32, nbytes: usize) -> MpiResult<Vec<u8>> {
        let r = self.c_irecv(c, from, nbytes)?;
        let done = self.wait_internal(r)?;
        let got = done.data.unwrap_or_default();
        if let Some(e) = done.status.error {
            c.fail(e);
        } else if got.len() < nbytes {
            c.fail(MpiError::Other);
        }
        Ok(c.fit(got, nbytes))
    }

    /// Binomial scatter of `data` in chunks of ⌈nbytes/n⌉: afterwards
    /// relative rank r holds chunk r (MPICH's scatter for bcast).
    fn bcast_scatter(&mut self, c: &Ctx, root: u32, data: &mut [u8]) -> MpiResult<()> {
        let n = c.n as usize;
        let nbytes = data.len();
        let chunk = nbytes.div_ceil(n);
        let rel = (c.me as usize + n - root as usize) % n;
        let real = |r: usize| ((r + root as usize) % n) as u32;
        let mut curr = if rel == 0 { nbytes } else { 0 };
        let mut mask = 1usize;
        while mask < n {
            if rel & mask != 0 {
                let want = nbytes.saturating_sub(rel * chunk);
                if want > 0 {
                    let at = rel * chunk;
                    let k = (chunk * mask).min(nbytes - at);
                    let got = self.c_recv(c, real(rel - mask), k)?;
                    data[at..at + k].copy_from_slice(&got);
                    curr = k;
                }
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        while mask > 0 {
            if rel + mask < n {
                let send = curr.saturating_sub(chunk * mask);
                if send > 0 {
                    let at = (rel + mask) * chunk;
                    self.c_send(c, real(rel + mask), data[at..at + send].to_vec())?;
                    curr -= send;
                }
            }
            mask >>= 1;
        }
        Ok(())
    }

    fn bcast_allgather_ring(&mut self, c: &Ctx, root: u32, data: &mut [u8]) -> MpiResult<()> {
        let n = c.n as usize;
        let nbytes = data.len();
        let chunk = nbytes.div_ceil(n);
        let range = |j: usize| (j * chunk).min(nbytes)..((j + 1) * chunk).min(nbytes);
        let rel = (c.me as usize + n - root as usize) % n;
        let real = |r: usize| ((r + root as usize) % n) as u32;
        let (left, right) = ((rel + n - 1) % n, (rel + 1) % n);
        let mut j = rel;
        let mut jnext = left;
        for _ in 1..n {
            let want = range(jnext).len();
            let got = self.c_sendrecv(c, real(right), data[range(j)].to_vec(), real(left), want)?;
            data[range(jnext)].copy_from_slice(&got);
            j = jnext;
            jnext = (jnext + n - 1) % n;
        }
        Ok(())
    }

    fn bcast_allgather_recdbl(&mut self, c: &Ctx, root: u32, data: &mut [u8]) -> MpiResult<()> {
        let n = c.n as usize;
        debug_assert_eq!(pof2_floor(c.n) as usize, n);
        let nbytes = data.len();
        let chunk = nbytes.div_ceil(n);
        let range =
            |first: usize, k: usize| (first * chunk).min(nbytes)..((first + k) * chunk).min(nbytes);
        let rel = (c.me as usize + n - root as usize) % n;
        let real = |r: usize| ((r + root as usize) % n) as u32;
        let mut mask = 1usize;
        while mask < n {
            let dst = rel ^ mask;
            let mine = rel & !(mask - 1);
            let theirs = dst & !(mask - 1);
            let want = range(theirs, mask).len();
            let got = self.c_sendrecv(
                c,
                real(dst),
                data[range(mine, mask)].to_vec(),
                real(dst),
                want,
            )?;
            data[range(theirs, mask)].copy_from_slice(&got);
            mask <<= 1;
        }
        Ok(())
    }
}
