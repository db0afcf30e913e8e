//! Collective operations: the C arguments become regions of user memory
//! and [`CollInput`]s for the engine, whose packed results are unpacked
//! into the receive buffers.
//!
//! Buffers that MPI makes significant only at the root are touched only at
//! the root (and their datatypes are not even looked at elsewhere).
//! `MPI_IN_PLACE` is accepted where MPI allows it and is an
//! `MPI_ERR_BUFFER` elsewhere.
//!
//! On the analytic network model each call also reports itself as one
//! operation ([`Sizes`] are the bytes its arguments describe) and returns
//! only when the model says the collective ended.

use crate::abi::*;
use crate::ffi::buffers::{is_in_place, region, region_mut};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::runtime::{CollectiveReport, GatewayTransport};
use mpinetsim_protocol::coll_op;
use shim_engine::collectives::CollInput;
use shim_engine::datatype::Span;
use shim_engine::{CommId, DatatypeId, Engine, MpiError};
use std::os::raw::{c_int, c_void};

/// The engine as the C layer holds it.
pub type Eng = Engine<GatewayTransport>;

type R = Result<(), MpiError>;

/// What one rank's arguments of a collective describe, for the analytic
/// model: bytes sent and received (count × type size; per member block
/// for gather/scatter/allgather/alltoall, the mean block for their `v`
/// forms) and whether this rank is the root.
#[derive(Clone, Copy, Debug, Default)]
struct Sizes {
    sent: u64,
    received: u64,
    is_root: bool,
}

impl Sizes {
    fn both(bytes: u64) -> Sizes {
        Sizes {
            sent: bytes,
            received: bytes,
            is_root: false,
        }
    }
    fn root(mut self, is_root: bool) -> Sizes {
        self.is_root = is_root;
        self
    }
}

/// Runs collective `op` on `comm`, reports it to the analytic model when
/// the job runs one, and turns the result into a return code.
fn run(
    func: &str,
    comm: c_int,
    op: u8,
    f: impl FnOnce(&mut Eng, CommId) -> Result<Sizes, MpiError>,
) -> c_int {
    let r = comm_from(comm).and_then(|c| {
        engine(func, |e| {
            let entered_srt_ns = e.transport().srt_ns();
            let sizes = f(e, c)?;
            if e.transport().is_analytic() {
                let report = CollectiveReport {
                    context: e.coll_context(c)?,
                    leader: e.world_rank(c, 0)?,
                    op,
                    members: e.comm_size(c)?,
                    is_root: sizes.is_root,
                    sent_bytes: sizes.sent,
                    received_bytes: sizes.received,
                    entered_srt_ns,
                };
                e.transport_mut().collective(report);
            }
            Ok(())
        })
    });
    finish(comm, func, r)
}

/// Bytes of `count` instances of `dt`.
fn bytes(e: &Eng, dt: DatatypeId, count: usize) -> Result<u64, MpiError> {
    Ok(e.datatypes().size(dt)? * count as u64)
}

/// Mean block of `counts` instances of `dt` over `n` members.
fn mean_block(e: &Eng, dt: DatatypeId, counts: &[usize], n: usize) -> Result<u64, MpiError> {
    Ok(bytes(e, dt, counts.iter().sum())? / n.max(1) as u64)
}

fn root_from(root: c_int) -> Result<u32, MpiError> {
    u32::try_from(root).map_err(|_| MpiError::Root)
}

/// A root that must be a member of `c` (checked before the other
/// arguments, as MPICH does).
fn root_in(e: &Eng, c: CommId, root: c_int) -> Result<u32, MpiError> {
    let r = root_from(root)?;
    if r >= e.comm_size(c)? {
        return Err(MpiError::Root);
    }
    Ok(r)
}

/// The span of `count` instances of `dt`.
fn span(e: &Eng, dt: DatatypeId, count: usize) -> Result<Span, MpiError> {
    e.datatypes().span(dt, count)
}

/// The input of a reduction-like collective whose send and receive buffers
/// have the same layout `span`; in place only where `in_place_ok`.
unsafe fn input<'a>(
    sendbuf: *const c_void,
    recvbuf: *const c_void,
    span: Span,
    in_place_ok: bool,
) -> Result<CollInput<'a>, MpiError> {
    if is_in_place(sendbuf) {
        if !in_place_ok {
            return Err(MpiError::Buffer);
        }
        Ok(CollInput::InPlace(region(recvbuf, span)))
    } else {
        Ok(CollInput::Buf(region(sendbuf, span)))
    }
}

/// Unpacks `count` instances of `dt` into `buf`.
unsafe fn unpack_to(e: &Eng, dt: DatatypeId, count: usize, data: &[u8], buf: *mut c_void) -> R {
    let s = span(e, dt, count)?;
    e.datatypes().unpack(dt, count, data, region_mut(buf, s))?;
    Ok(())
}

/// `n` counts from a C array.
unsafe fn counts(n: usize, p: *const c_int) -> Result<Vec<usize>, MpiError> {
    if n > 0 && p.is_null() {
        return Err(MpiError::Count);
    }
    (0..n).map(|i| count_from(*p.add(i))).collect()
}

/// `n` displacements from a C array.
unsafe fn displs(n: usize, p: *const c_int) -> Result<Vec<i64>, MpiError> {
    if n > 0 && p.is_null() {
        return Err(MpiError::Arg);
    }
    Ok((0..n).map(|i| *p.add(i) as i64).collect())
}

/// The (displacement, count) blocks of a v-collective buffer.
unsafe fn blocks(
    n: usize,
    cnts: *const c_int,
    disps: *const c_int,
) -> Result<Vec<(i64, usize)>, MpiError> {
    Ok(displs(n, disps)?
        .into_iter()
        .zip(counts(n, cnts)?)
        .collect())
}

fn split(b: &[(i64, usize)]) -> (Vec<usize>, Vec<i64>) {
    (
        b.iter().map(|x| x.1).collect(),
        b.iter().map(|x| x.0).collect(),
    )
}

/// Unpacks one packed block per entry of `b` into `buf`.
unsafe fn unpack_blocks(
    e: &Eng,
    dt: DatatypeId,
    b: &[(i64, usize)],
    data: &[Vec<u8>],
    buf: *mut c_void,
) -> R {
    let s = e.datatypes().span_blocks(dt, b)?;
    let mem = region_mut(buf, s);
    for (&(first, count), d) in b.iter().zip(data) {
        e.datatypes().unpack_at(dt, first, count, d, mem, s.base)?;
    }
    Ok(())
}

fn size_of(e: &Eng, c: CommId) -> Result<usize, MpiError> {
    Ok(e.comm_size(c)? as usize)
}

mpi_fn! { fn MPI_Barrier(comm: c_int) {
    run("MPI_Barrier", comm, coll_op::BARRIER, |e, c| e.barrier(c).map(|_| Sizes::default()))
} }

mpi_fn! { fn MPI_Bcast(buffer: *mut c_void, count: c_int, datatype: c_int, root: c_int, comm: c_int) {
    run("MPI_Bcast", comm, coll_op::BCAST, |e, c| {
        let (dt, n, root) = (datatype_from(datatype)?, count_from(count)?, root_from(root)?);
        let s = span(e, dt, n)?;
        let at_root = e.comm_rank(c)? == root;
        let src: &[u8] = if at_root { region(buffer, s) } else { &[] };
        let data = e.bcast(src, n, dt, root, c)?;
        if !at_root {
            unpack_to(e, dt, n, &data, buffer)?;
        }
        Ok(Sizes::both(bytes(e, dt, n)?).root(at_root))
    })
} }

mpi_fn! { fn MPI_Reduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int, root: c_int, comm: c_int) {
    run("MPI_Reduce", comm, coll_op::REDUCE, |e, c| {
        let root = root_in(e, c, root)?;
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        let s = span(e, dt, n)?;
        let at_root = e.comm_rank(c)? == root;
        let inp = input(sendbuf, recvbuf, s, at_root)?;
        if let Some(data) = e.reduce(inp, n, dt, o, root, c)? {
            unpack_to(e, dt, n, &data, recvbuf)?;
        }
        Ok(Sizes::both(bytes(e, dt, n)?).root(at_root))
    })
} }

mpi_fn! { fn MPI_Allreduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int, comm: c_int) {
    run("MPI_Allreduce", comm, coll_op::ALLREDUCE, |e, c| {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        let s = span(e, dt, n)?;
        let data = e.allreduce(input(sendbuf, recvbuf, s, true)?, n, dt, o, c)?;
        unpack_to(e, dt, n, &data, recvbuf)?;
        Ok(Sizes::both(bytes(e, dt, n)?))
    })
} }

mpi_fn! { fn MPI_Reduce_local(inbuf: *const c_void, inoutbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int) {
    let r = (|| {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        engine("MPI_Reduce_local", |e| {
            let s = span(e, dt, n)?;
            let data = e.reduce_local(region(inbuf, s), region(inoutbuf, s), n, dt, o)?;
            unpack_to(e, dt, n, &data, inoutbuf)
        })
    })();
    finish(MPI_COMM_WORLD, "MPI_Reduce_local", r)
} }

mpi_fn! { fn MPI_Scan(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int, comm: c_int) {
    run("MPI_Scan", comm, coll_op::SCAN, |e, c| {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        let s = span(e, dt, n)?;
        let data = e.scan(input(sendbuf, recvbuf, s, true)?, n, dt, o, c)?;
        unpack_to(e, dt, n, &data, recvbuf)?;
        Ok(Sizes::both(bytes(e, dt, n)?))
    })
} }

mpi_fn! { fn MPI_Exscan(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int, comm: c_int) {
    run("MPI_Exscan", comm, coll_op::EXSCAN, |e, c| {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        let s = span(e, dt, n)?;
        if let Some(data) = e.exscan(input(sendbuf, recvbuf, s, true)?, n, dt, o, c)? {
            unpack_to(e, dt, n, &data, recvbuf)?;
        }
        Ok(Sizes::both(bytes(e, dt, n)?))
    })
} }

mpi_fn! { fn MPI_Reduce_scatter_block(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: c_int, op: c_int, comm: c_int) {
    run("MPI_Reduce_scatter_block", comm, coll_op::REDUCE_SCATTER_BLOCK, |e, c| {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(recvcount)?;
        let s = span(e, dt, n * size_of(e, c)?)?;
        let data = e.reduce_scatter_block(input(sendbuf, recvbuf, s, true)?, n, dt, o, c)?;
        unpack_to(e, dt, n, &data, recvbuf)?;
        let received = bytes(e, dt, n)?;
        Ok(Sizes { sent: received * size_of(e, c)? as u64, received, is_root: false })
    })
} }

mpi_fn! { fn MPI_Reduce_scatter(sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: c_int, op: c_int, comm: c_int) {
    run("MPI_Reduce_scatter", comm, coll_op::REDUCE_SCATTER, |e, c| {
        let (dt, o) = reduction_from(datatype, op)?;
        let rc = counts(size_of(e, c)?, recvcounts)?;
        let s = span(e, dt, rc.iter().sum())?;
        let data = e.reduce_scatter(input(sendbuf, recvbuf, s, true)?, &rc, dt, o, c)?;
        let mine = rc[e.comm_rank(c)? as usize];
        unpack_to(e, dt, mine, &data, recvbuf)?;
        Ok(Sizes { sent: bytes(e, dt, rc.iter().sum())?, received: bytes(e, dt, mine)?, is_root: false })
    })
} }

mpi_fn! { fn MPI_Gather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int, comm: c_int) {
    run("MPI_Gather", comm, coll_op::GATHER, |e, c| {
        let root = root_from(root)?;
        let at_root = e.comm_rank(c)? == root;
        let (inp, sn, st, rn, rt, total) = if at_root {
            let (rt, rn) = (datatype_from(recvtype)?, count_from(recvcount)?);
            let total = rn * size_of(e, c)?;
            if is_in_place(sendbuf) {
                (CollInput::InPlace(region(recvbuf, span(e, rt, total)?)), 0, rt, rn, rt, total)
            } else {
                let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
                (CollInput::Buf(region(sendbuf, span(e, st, sn)?)), sn, st, rn, rt, total)
            }
        } else {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (input(sendbuf, sendbuf, span(e, st, sn)?, false)?, sn, st, 0, st, 0)
        };
        if let Some(data) = e.gather(inp, sn, st, rn, rt, root, c)? {
            unpack_to(e, rt, total, &data, recvbuf)?;
        }
        let received = if at_root { bytes(e, rt, rn)? } else { 0 };
        let sent = if at_root && sn == 0 { received } else { bytes(e, st, sn)? };
        Ok(Sizes { sent, received, is_root: at_root })
    })
} }

mpi_fn! { fn MPI_Gatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs_: *const c_int, recvtype: c_int, root: c_int, comm: c_int) {
    run("MPI_Gatherv", comm, coll_op::GATHERV, |e, c| {
        let root = root_from(root)?;
        let me = e.comm_rank(c)?;
        if me != root {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            let inp = input(sendbuf, sendbuf, span(e, st, sn)?, false)?;
            e.gatherv(inp, sn, st, &[], &[], st, root, c)?;
            return Ok(Sizes { sent: bytes(e, st, sn)?, received: 0, is_root: false });
        }
        let rt = datatype_from(recvtype)?;
        let b = blocks(size_of(e, c)?, recvcounts, displs_)?;
        let (rc, rd) = split(&b);
        let (inp, sn, st) = if is_in_place(sendbuf) {
            let own = e.datatypes().span_blocks(rt, &[b[me as usize]])?;
            (CollInput::InPlace(region(recvbuf, own)), 0, rt)
        } else {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (CollInput::Buf(region(sendbuf, span(e, st, sn)?)), sn, st)
        };
        if let Some(data) = e.gatherv(inp, sn, st, &rc, &rd, rt, root, c)? {
            unpack_blocks(e, rt, &b, &data, recvbuf)?;
        }
        let received = mean_block(e, rt, &rc, rc.len())?;
        let sent = if sn == 0 { received } else { bytes(e, st, sn)? };
        Ok(Sizes { sent, received, is_root: true })
    })
} }

mpi_fn! { fn MPI_Scatter(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int, comm: c_int) {
    run("MPI_Scatter", comm, coll_op::SCATTER, |e, c| {
        let root = root_from(root)?;
        let at_root = e.comm_rank(c)? == root;
        let recv = if at_root && is_in_place(recvbuf) {
            None
        } else {
            Some((count_from(recvcount)?, datatype_from(recvtype)?))
        };
        let (src, sn, st): (&[u8], usize, DatatypeId) = if at_root {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (region(sendbuf, span(e, st, sn * size_of(e, c)?)?), sn, st)
        } else {
            let (_, rt) = recv.ok_or(MpiError::Buffer)?;
            (&[], 0, rt)
        };
        if let (Some(data), Some((rn, rt))) = (e.scatter(src, sn, st, recv, root, c)?, recv) {
            unpack_to(e, rt, rn, &data, recvbuf)?;
        }
        let sent = if at_root { bytes(e, st, sn)? } else { 0 };
        let received = match recv {
            Some((rn, rt)) => bytes(e, rt, rn)?,
            None => sent,
        };
        Ok(Sizes { sent, received, is_root: at_root })
    })
} }

mpi_fn! { fn MPI_Scatterv(sendbuf: *const c_void, sendcounts: *const c_int, displs_: *const c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int, comm: c_int) {
    run("MPI_Scatterv", comm, coll_op::SCATTERV, |e, c| {
        let root = root_from(root)?;
        let at_root = e.comm_rank(c)? == root;
        let recv = if at_root && is_in_place(recvbuf) {
            None
        } else {
            Some((count_from(recvcount)?, datatype_from(recvtype)?))
        };
        let mut sent = 0;
        let data = if at_root {
            let st = datatype_from(sendtype)?;
            let b = blocks(size_of(e, c)?, sendcounts, displs_)?;
            let (sc, sd) = split(&b);
            sent = mean_block(e, st, &sc, sc.len())?;
            let src = region(sendbuf, e.datatypes().span_blocks(st, &b)?);
            e.scatterv(src, &sc, &sd, st, recv, root, c)?
        } else {
            let (_, rt) = recv.ok_or(MpiError::Buffer)?;
            e.scatterv(&[], &[], &[], rt, recv, root, c)?
        };
        if let (Some(data), Some((rn, rt))) = (data, recv) {
            unpack_to(e, rt, rn, &data, recvbuf)?;
        }
        let received = match recv {
            Some((rn, rt)) => bytes(e, rt, rn)?,
            None => sent,
        };
        Ok(Sizes { sent, received, is_root: at_root })
    })
} }

mpi_fn! { fn MPI_Allgather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, comm: c_int) {
    run("MPI_Allgather", comm, coll_op::ALLGATHER, |e, c| {
        let (rt, rn) = (datatype_from(recvtype)?, count_from(recvcount)?);
        let total = rn * size_of(e, c)?;
        let (inp, sn, st) = if is_in_place(sendbuf) {
            (CollInput::InPlace(region(recvbuf, span(e, rt, total)?)), 0, rt)
        } else {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (CollInput::Buf(region(sendbuf, span(e, st, sn)?)), sn, st)
        };
        let data = e.allgather(inp, sn, st, rn, rt, c)?;
        unpack_to(e, rt, total, &data, recvbuf)?;
        let received = bytes(e, rt, rn)?;
        let sent = if sn == 0 { received } else { bytes(e, st, sn)? };
        Ok(Sizes { sent, received, is_root: false })
    })
} }

mpi_fn! { fn MPI_Allgatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs_: *const c_int, recvtype: c_int, comm: c_int) {
    run("MPI_Allgatherv", comm, coll_op::ALLGATHERV, |e, c| {
        let rt = datatype_from(recvtype)?;
        let b = blocks(size_of(e, c)?, recvcounts, displs_)?;
        let (rc, rd) = split(&b);
        let (inp, sn, st) = if is_in_place(sendbuf) {
            let own = e.datatypes().span_blocks(rt, &[b[e.comm_rank(c)? as usize]])?;
            (CollInput::InPlace(region(recvbuf, own)), 0, rt)
        } else {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (CollInput::Buf(region(sendbuf, span(e, st, sn)?)), sn, st)
        };
        let data = e.allgatherv(inp, sn, st, &rc, &rd, rt, c)?;
        unpack_blocks(e, rt, &b, &data, recvbuf)?;
        let received = mean_block(e, rt, &rc, rc.len())?;
        let sent = if sn == 0 { received } else { bytes(e, st, sn)? };
        Ok(Sizes { sent, received, is_root: false })
    })
} }

mpi_fn! { fn MPI_Alltoall(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, comm: c_int) {
    run("MPI_Alltoall", comm, coll_op::ALLTOALL, |e, c| {
        let (rt, rn) = (datatype_from(recvtype)?, count_from(recvcount)?);
        let n = size_of(e, c)?;
        let (inp, sn, st) = if is_in_place(sendbuf) {
            (CollInput::InPlace(region(recvbuf, span(e, rt, rn * n)?)), 0, rt)
        } else {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (CollInput::Buf(region(sendbuf, span(e, st, sn * n)?)), sn, st)
        };
        let data = e.alltoall(inp, sn, st, rn, rt, c)?;
        unpack_to(e, rt, rn * n, &data, recvbuf)?;
        let received = bytes(e, rt, rn)?;
        let sent = if sn == 0 { received } else { bytes(e, st, sn)? };
        Ok(Sizes { sent, received, is_root: false })
    })
} }

mpi_fn! { fn MPI_Alltoallv(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: c_int,
                           recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: c_int, comm: c_int) {
    run("MPI_Alltoallv", comm, coll_op::ALLTOALLV, |e, c| {
        let n = size_of(e, c)?;
        let rt = datatype_from(recvtype)?;
        let rb = blocks(n, recvcounts, rdispls)?;
        let (rc, rd) = split(&rb);
        let received = mean_block(e, rt, &rc, n)?;
        let (data, sent) = if is_in_place(sendbuf) {
            let inp = CollInput::InPlace(region(recvbuf, e.datatypes().span_blocks(rt, &rb)?));
            (e.alltoallv(inp, &rc, &rd, rt, &rc, &rd, rt, c)?, received)
        } else {
            let st = datatype_from(sendtype)?;
            let sb = blocks(n, sendcounts, sdispls)?;
            let (sc, sd) = split(&sb);
            let inp = CollInput::Buf(region(sendbuf, e.datatypes().span_blocks(st, &sb)?));
            (e.alltoallv(inp, &sc, &sd, st, &rc, &rd, rt, c)?, mean_block(e, st, &sc, n)?)
        };
        unpack_blocks(e, rt, &rb, &data, recvbuf)?;
        Ok(Sizes { sent, received, is_root: false })
    })
} }
