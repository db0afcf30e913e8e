//! Barrier and broadcast.

use super::task::{CollOutput, Task, TaskOut};
use super::Form;
use super::{pof2_floor, Ctx};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::CollThresholds;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::request::RequestId;
use crate::transport::Transport;
use crate::Engine;

impl<T: Transport> Engine<T> {
    /// `MPI_Barrier` (dissemination).
    pub fn barrier(&mut self, comm: CommId) -> MpiResult<()> {
        let t = self.barrier_task(comm, CallCode::Barrier)?;
        self.run_task(t).map(|_| ())
    }

    /// `MPI_Barrier` or `MPI_Ibarrier`.
    pub fn start_barrier(&mut self, form: Form, comm: CommId) -> MpiResult<RequestId> {
        let t = self.barrier_task(comm, form.call(CallCode::Barrier))?;
        Ok(self.start_task(t))
    }

    pub(crate) fn barrier_task(&mut self, comm: CommId, call: CallCode) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_barrier_task(comm, call);
        }
        let c = self.ctx(comm, call)?;
        let report = self.report(&c, 0, 0, false);
        Ok(Task::new(c.io().clone(), async move {
            barrier_dissemination(&c).await?;
            c.outcome(TaskOut::Out(CollOutput::None))
        })
        .reported(report))
    }

    /// `MPI_Bcast`: `buf` is the root's region `span(dt, count)` (ignored
    /// elsewhere); every rank gets the packed data. A rank whose `count`
    /// and `dt` describe fewer bytes than the root's gets
    /// `MPI_ERR_TRUNCATE`, more bytes `MPI_ERR_OTHER` (MPICH's size
    /// mismatch), and the ranks it forwards to `MPI_ERR_OTHER`. On an
    /// intercommunicator `root` is a remote rank, [`ROOT_HERE`](super::ROOT_HERE)
    /// or [`ROOT_NULL`](super::ROOT_NULL); only the receiving group gets data.
    pub fn bcast(
        &mut self,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<Vec<u8>> {
        let t = self.bcast_task(buf, count, dt, root, comm, CallCode::Bcast)?;
        Ok(self.run_task(t)?.into_bytes())
    }

    /// `MPI_Bcast` or `MPI_Ibcast`: as [`bcast`](Self::bcast); the request's output is
    /// the packed data (`CollOutput::Bytes`).
    pub fn start_bcast(
        &mut self,
        form: Form,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        root: u32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        let t = self.bcast_task(buf, count, dt, root, comm, form.call(CallCode::Bcast))?;
        Ok(self.start_task(t))
    }

    fn bcast_task(
        &mut self,
        buf: &[u8],
        count: usize,
        dt: DatatypeId,
        root: u32,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<Task> {
        if self.comm(comm)?.is_inter() {
            return self.inter_bcast_task(buf, count, dt, root, comm, call);
        }
        let n = self.comm(comm)?.size();
        if root >= n {
            return Err(MpiError::Root);
        }
        let size = self.types.committed(dt)?.size;
        let nbytes = size as usize * count;
        let c = self.ctx(comm, call)?;
        let data = if c.me == root {
            self.types.pack(dt, count, buf)?
        } else {
            Vec::new()
        };
        let report = self.report(&c, nbytes as u64, nbytes as u64, c.me == root);
        let th = self.cfg.coll;
        Ok(Task::new(c.io().clone(), async move {
            let mut data = data;
            bcast_bytes(&c, th, root, &mut data, nbytes).await?;
            c.outcome(TaskOut::Out(CollOutput::Bytes(data)))
        })
        .reported(report))
    }
}

/// Dissemination barrier over the members of `c`.
pub(crate) async fn barrier_dissemination(c: &Ctx) -> MpiResult<()> {
    let mut mask = 1;
    while mask < c.n {
        let to = (c.me + mask) % c.n;
        let from = (c.me + c.n - mask) % c.n;
        c.sendrecv(to, Vec::new(), from, 0).await?;
        mask <<= 1;
    }
    Ok(())
}

/// Broadcast of the root's `data` (`nbytes` expected elsewhere) with
/// MPICH's choice of algorithm.
pub(crate) async fn bcast_bytes(
    c: &Ctx,
    th: CollThresholds,
    root: u32,
    data: &mut Vec<u8>,
    nbytes: usize,
) -> MpiResult<()> {
    if c.n == 1 {
        return Ok(());
    }
    if (nbytes as u64) < th.bcast_short || c.n < th.bcast_min_procs {
        bcast_binomial(c, root, data, nbytes).await
    } else {
        data.resize(nbytes, 0);
        bcast_scatter(c, root, data).await?;
        if (nbytes as u64) < th.bcast_long && c.n.is_power_of_two() {
            bcast_allgather_recdbl(c, root, data).await
        } else {
            bcast_allgather_ring(c, root, data).await
        }
    }
}

/// Binomial broadcast of the root's `data`; the others expect `nbytes`.
pub(crate) async fn bcast_binomial(
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
            *data = bcast_recv(c, real(rel - mask), nbytes).await?;
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < n {
            c.send(real(rel + mask), data.clone()).await?;
        }
        mask >>= 1;
    }
    Ok(())
}

/// Receives the `nbytes` of a broadcast from `from`; a shorter message
/// is MPICH's size mismatch (`MPI_ERR_OTHER`).
pub(crate) async fn bcast_recv(c: &Ctx, from: u32, nbytes: usize) -> MpiResult<Vec<u8>> {
    let r = c.irecv(from, nbytes).await?;
    let (got, failed) = c.wait_recv_raw(r).await?;
    if !failed && got.len() < nbytes {
        c.fail(MpiError::Other);
    }
    Ok(c.fit(got, nbytes))
}

/// Binomial scatter of `data` in chunks of ⌈nbytes/n⌉: afterwards
/// relative rank r holds chunk r (MPICH's scatter for bcast).
async fn bcast_scatter(c: &Ctx, root: u32, data: &mut [u8]) -> MpiResult<()> {
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
                let got = c.recv(real(rel - mask), k).await?;
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
                c.send(real(rel + mask), data[at..at + send].to_vec())
                    .await?;
                curr -= send;
            }
        }
        mask >>= 1;
    }
    Ok(())
}

async fn bcast_allgather_ring(c: &Ctx, root: u32, data: &mut [u8]) -> MpiResult<()> {
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
        let got = c
            .sendrecv(real(right), data[range(j)].to_vec(), real(left), want)
            .await?;
        data[range(jnext)].copy_from_slice(&got);
        j = jnext;
        jnext = (jnext + n - 1) % n;
    }
    Ok(())
}

async fn bcast_allgather_recdbl(c: &Ctx, root: u32, data: &mut [u8]) -> MpiResult<()> {
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
        let got = c
            .sendrecv(real(dst), data[range(mine, mask)].to_vec(), real(dst), want)
            .await?;
        data[range(theirs, mask)].copy_from_slice(&got);
        mask <<= 1;
    }
    Ok(())
}
