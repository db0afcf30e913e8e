//! Neighbourhood collectives (`MPI_Neighbor_allgather(v)`,
//! `MPI_Neighbor_alltoall(v,w)`): each call describes one block of the
//! send buffer per out-neighbour and one block of the receive buffer per
//! in-neighbour of the communicator's topology; the blocks are packed
//! here, exchanged by the engine (one message per edge, see
//! `shim_engine::collectives`) and unpacked into place.

use crate::ffi::buffers::{region, region_mut};
use crate::ffi::collectives::Eng;
use crate::ffi::datatype::Aint;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use shim_engine::envelope::CallCode;
use shim_engine::{DatatypeId, MpiError};
use std::os::raw::{c_int, c_void};

/// One block of a buffer: `count` instances of `dt` at byte offset `disp`
/// from the buffer address.
#[derive(Clone, Copy, Debug)]
struct Block {
    disp: i64,
    count: usize,
    dt: DatatypeId,
}

/// `n` blocks of one type, block `k` at `disp(k)` elements of its extent.
fn same_type_blocks(
    e: &Eng,
    n: usize,
    dt: DatatypeId,
    count: impl Fn(usize) -> Result<usize, MpiError>,
    disp: impl Fn(usize) -> Result<i64, MpiError>,
) -> Result<Vec<Block>, MpiError> {
    let (_, extent) = e.datatypes().extent(dt)?;
    (0..n)
        .map(|k| {
            let d = disp(k)?.checked_mul(extent).ok_or(MpiError::Count)?;
            Ok(Block {
                disp: d,
                count: count(k)?,
                dt,
            })
        })
        .collect()
}

/// Entry `k` of a C `int` array of counts.
unsafe fn count_at(p: *const c_int, k: usize) -> Result<usize, MpiError> {
    if p.is_null() {
        return Err(MpiError::Arg);
    }
    count_from(*p.add(k))
}

/// Entry `k` of a C `int` array of displacements.
unsafe fn int_at(p: *const c_int, k: usize) -> Result<i64, MpiError> {
    if p.is_null() {
        return Err(MpiError::Arg);
    }
    Ok(i64::from(*p.add(k)))
}

/// The address `disp` bytes from `buf`.
fn at(buf: *const c_void, disp: i64) -> *const c_void {
    (buf as *const u8).wrapping_offset(disp as isize) as *const c_void
}

/// Runs one neighbourhood collective: `sends(e, outdegree)` and
/// `recvs(e, indegree)` describe the blocks.
unsafe fn neighbor(
    func: &str,
    call: CallCode,
    comm: c_int,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    sends: impl FnOnce(&Eng, usize) -> Result<Vec<Block>, MpiError>,
    recvs: impl FnOnce(&Eng, usize) -> Result<Vec<Block>, MpiError>,
) -> c_int {
    let r = comm_from(comm).and_then(|c| {
        engine(func, |e| {
            let (ins, outs) = e.neighbors(c)?;
            let sb = sends(e, outs.len())?;
            let rb = recvs(e, ins.len())?;
            let mut packed = Vec::with_capacity(sb.len());
            for b in &sb {
                let t = e.datatypes();
                t.committed(b.dt)?;
                let s = t.span(b.dt, b.count)?;
                packed.push(t.pack(b.dt, b.count, region(at(sendbuf, b.disp), s))?);
            }
            let mut want = Vec::with_capacity(rb.len());
            for b in &rb {
                want.push(e.datatypes().committed(b.dt)?.size as usize * b.count);
            }
            let got = e.neighbor_exchange(c, call, packed, &want)?;
            for (b, data) in rb.iter().zip(got) {
                if let Some(data) = data {
                    let t = e.datatypes();
                    let s = t.span(b.dt, b.count)?;
                    let dst = at(recvbuf, b.disp) as *mut c_void;
                    t.unpack(b.dt, b.count, &data, region_mut(dst, s))?;
                }
            }
            Ok(())
        })
    });
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Neighbor_allgather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int,
                                    recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, comm: c_int) {
    neighbor("MPI_Neighbor_allgather", CallCode::Neighbor_allgather, comm, sendbuf, recvbuf,
        |e, n| same_type_blocks(e, n, datatype_from(sendtype)?, |_| count_from(sendcount), |_| Ok(0)),
        |e, n| {
            let rc = count_from(recvcount)?;
            same_type_blocks(e, n, datatype_from(recvtype)?, |_| Ok(rc), |k| Ok((k * rc) as i64))
        })
} }

mpi_fn! { fn MPI_Neighbor_allgatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int,
                                     recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int,
                                     recvtype: c_int, comm: c_int) {
    neighbor("MPI_Neighbor_allgatherv", CallCode::Neighbor_allgatherv, comm, sendbuf, recvbuf,
        |e, n| same_type_blocks(e, n, datatype_from(sendtype)?, |_| count_from(sendcount), |_| Ok(0)),
        |e, n| same_type_blocks(e, n, datatype_from(recvtype)?, |k| count_at(recvcounts, k), |k| int_at(displs, k)))
} }

mpi_fn! { fn MPI_Neighbor_alltoall(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int,
                                   recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, comm: c_int) {
    neighbor("MPI_Neighbor_alltoall", CallCode::Neighbor_alltoall, comm, sendbuf, recvbuf,
        |e, n| {
            let sc = count_from(sendcount)?;
            same_type_blocks(e, n, datatype_from(sendtype)?, |_| Ok(sc), |k| Ok((k * sc) as i64))
        },
        |e, n| {
            let rc = count_from(recvcount)?;
            same_type_blocks(e, n, datatype_from(recvtype)?, |_| Ok(rc), |k| Ok((k * rc) as i64))
        })
} }

mpi_fn! { fn MPI_Neighbor_alltoallv(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: c_int,
                                    recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int,
                                    recvtype: c_int, comm: c_int) {
    neighbor("MPI_Neighbor_alltoallv", CallCode::Neighbor_alltoallv, comm, sendbuf, recvbuf,
        |e, n| same_type_blocks(e, n, datatype_from(sendtype)?, |k| count_at(sendcounts, k), |k| int_at(sdispls, k)),
        |e, n| same_type_blocks(e, n, datatype_from(recvtype)?, |k| count_at(recvcounts, k), |k| int_at(rdispls, k)))
} }

/// `n` blocks of an alltoallw: counts, byte displacements and types.
unsafe fn typed_blocks(
    n: usize,
    counts: *const c_int,
    displs: *const Aint,
    types: *const c_int,
) -> Result<Vec<Block>, MpiError> {
    if n > 0 && (displs.is_null() || types.is_null()) {
        return Err(MpiError::Arg);
    }
    (0..n)
        .map(|k| {
            Ok(Block {
                disp: *displs.add(k) as i64,
                count: count_at(counts, k)?,
                dt: datatype_from(*types.add(k))?,
            })
        })
        .collect()
}

mpi_fn! { fn MPI_Neighbor_alltoallw(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const Aint, sendtypes: *const c_int,
                                    recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const Aint,
                                    recvtypes: *const c_int, comm: c_int) {
    neighbor("MPI_Neighbor_alltoallw", CallCode::Neighbor_alltoallw, comm, sendbuf, recvbuf,
        |_, n| typed_blocks(n, sendcounts, sdispls, sendtypes),
        |_, n| typed_blocks(n, recvcounts, rdispls, recvtypes))
} }
