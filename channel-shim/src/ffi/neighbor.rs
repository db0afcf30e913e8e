//! Neighbourhood collectives (`MPI_Neighbor_allgather(v)`,
//! `MPI_Neighbor_alltoall(v,w)`) and their nonblocking forms
//! (`MPI_Ineighbor_*`): each call describes one block of the send buffer
//! per out-neighbour and one block of the receive buffer per in-neighbour
//! of the communicator's topology; the blocks are packed here, exchanged
//! by the engine (one message per edge, see `shim_engine::collectives`)
//! and unpacked into place when the program takes the completion.

use crate::ffi::buffers::{region, region_mut};
use crate::ffi::collectives::Eng;
use crate::ffi::datatype::Aint;
use crate::ffi::handles::*;
use crate::ffi::large_count::{CInt, CountT, DisplT};
use crate::ffi::nbc;
use crate::persistent_coll;
use shim_engine::collectives::{CollFinish, CollOutput, Form};
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
unsafe fn count_at(p: *const impl CInt, k: usize) -> Result<usize, MpiError> {
    if p.is_null() {
        return Err(MpiError::Arg);
    }
    count_from(*p.add(k))
}

/// Entry `k` of a C `int` array of displacements.
unsafe fn int_at(p: *const impl CInt, k: usize) -> Result<i64, MpiError> {
    if p.is_null() {
        return Err(MpiError::Arg);
    }
    Ok((*p.add(k)).wide())
}

/// The address `disp` bytes from `buf`.
fn at(buf: *const c_void, disp: i64) -> *const c_void {
    (buf as *const u8).wrapping_offset(disp as isize) as *const c_void
}

/// Runs one neighbourhood collective in form `form`: `sends(e,
/// outdegree)` and `recvs(e, indegree)` describe the blocks; the blocks
/// received are unpacked into `recvbuf` when the program takes the
/// completion (at once for the blocking form).
#[allow(clippy::too_many_arguments)]
unsafe fn neighbor(
    func: &str,
    form: Form,
    call: CallCode,
    comm: c_int,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    request: *mut c_int,
    sends: impl FnOnce(&Eng, usize) -> Result<Vec<Block>, MpiError>,
    recvs: impl FnOnce(&Eng, usize) -> Result<Vec<Block>, MpiError>,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| {
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
        let sizes: Vec<usize> = packed.iter().map(Vec::len).collect();
        let id = e.start_neighbor_exchange(form, c, call, packed, &want)?;
        crate::ffi::call_record::neighbor(e, func, form, c, call, &sizes, &want, id);
        let buf = recvbuf as usize;
        let fin = CollFinish {
            types: rb.iter().map(|b| b.dt).collect(),
            deliver: Box::new(move |t, out| {
                let CollOutput::Blocks(data) = out else {
                    return Ok(());
                };
                // Blocks from MPI_PROC_NULL are empty: their slots stay.
                for (b, d) in rb.iter().zip(data).filter(|(_, d)| !d.is_empty()) {
                    let s = t.span(b.dt, b.count)?;
                    let dst = at(buf as *const c_void, b.disp) as *mut c_void;
                    // SAFETY: the program keeps the receive buffer until completion.
                    t.unpack(b.dt, b.count, &d, unsafe { region_mut(dst, s) })?;
                }
                Ok(())
            }),
        };
        Ok((id, Some(fin)))
    })
}

/// Exports the blocking call and its nonblocking form (which takes a
/// request handle last), both running `$body`.
macro_rules! neighbor_pair {
    // `/ c` on both names: also their large-count variants (see `large_count`).
    (fn $blocking:ident / c ( $($arg:ident : $ty:ty),* ); fn $nonblocking:ident / c = $body:ident;) => {
        neighbor_pair! { fn $blocking($($arg: $ty),*); fn $nonblocking = $body; }
        $crate::large_count_module! { $blocking {
            neighbor_pair! { fn [<$blocking _c>]($($arg: $ty),*); fn [<$nonblocking _c>] = $body; }
        } }
    };
    (fn $blocking:ident ( $($arg:ident : $ty:ty),* ); fn $nonblocking:ident = $body:ident;) => {
        mpi_fn! { fn $blocking($($arg: $ty),*) {
            $body(stringify!($blocking), Form::Blocking, $($arg,)* std::ptr::null_mut())
        } }
        mpi_fn! { fn $nonblocking($($arg: $ty,)* request: *mut c_int) {
            $body(stringify!($nonblocking), Form::Nonblocking, $($arg,)* request)
        } }
    };
}

#[allow(clippy::too_many_arguments)]
unsafe fn allgather(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    neighbor(
        func,
        form,
        CallCode::Neighbor_allgather,
        comm,
        sendbuf,
        recvbuf,
        request,
        |e, n| {
            same_type_blocks(
                e,
                n,
                datatype_from(sendtype)?,
                |_| count_from(sendcount),
                |_| Ok(0),
            )
        },
        |e, n| {
            let rc = count_from(recvcount)?;
            same_type_blocks(
                e,
                n,
                datatype_from(recvtype)?,
                |_| Ok(rc),
                |k| Ok((k * rc) as i64),
            )
        },
    )
}
neighbor_pair! { fn MPI_Neighbor_allgather / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int); fn MPI_Ineighbor_allgather / c = allgather; }
persistent_coll! { fn MPI_Neighbor_allgather_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int) = allgather on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn allgatherv(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    displs: *const impl CInt,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    neighbor(
        func,
        form,
        CallCode::Neighbor_allgatherv,
        comm,
        sendbuf,
        recvbuf,
        request,
        |e, n| {
            same_type_blocks(
                e,
                n,
                datatype_from(sendtype)?,
                |_| count_from(sendcount),
                |_| Ok(0),
            )
        },
        |e, n| {
            same_type_blocks(
                e,
                n,
                datatype_from(recvtype)?,
                |k| count_at(recvcounts, k),
                |k| int_at(displs, k),
            )
        },
    )
}
neighbor_pair! { fn MPI_Neighbor_allgatherv / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, displs: *const DisplT, recvtype: c_int, comm: c_int); fn MPI_Ineighbor_allgatherv / c = allgatherv; }
persistent_coll! { fn MPI_Neighbor_allgatherv_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, displs: *const DisplT, recvtype: c_int, comm: c_int) = allgatherv on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn alltoall(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    neighbor(
        func,
        form,
        CallCode::Neighbor_alltoall,
        comm,
        sendbuf,
        recvbuf,
        request,
        |e, n| {
            let sc = count_from(sendcount)?;
            same_type_blocks(
                e,
                n,
                datatype_from(sendtype)?,
                |_| Ok(sc),
                |k| Ok((k * sc) as i64),
            )
        },
        |e, n| {
            let rc = count_from(recvcount)?;
            same_type_blocks(
                e,
                n,
                datatype_from(recvtype)?,
                |_| Ok(rc),
                |k| Ok((k * rc) as i64),
            )
        },
    )
}
neighbor_pair! { fn MPI_Neighbor_alltoall / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int); fn MPI_Ineighbor_alltoall / c = alltoall; }
persistent_coll! { fn MPI_Neighbor_alltoall_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int) = alltoall on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn alltoallv(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcounts: *const impl CInt,
    sdispls: *const impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    rdispls: *const impl CInt,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    neighbor(
        func,
        form,
        CallCode::Neighbor_alltoallv,
        comm,
        sendbuf,
        recvbuf,
        request,
        |e, n| {
            same_type_blocks(
                e,
                n,
                datatype_from(sendtype)?,
                |k| count_at(sendcounts, k),
                |k| int_at(sdispls, k),
            )
        },
        |e, n| {
            same_type_blocks(
                e,
                n,
                datatype_from(recvtype)?,
                |k| count_at(recvcounts, k),
                |k| int_at(rdispls, k),
            )
        },
    )
}
neighbor_pair! { fn MPI_Neighbor_alltoallv / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const DisplT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const DisplT, recvtype: c_int, comm: c_int); fn MPI_Ineighbor_alltoallv / c = alltoallv; }
persistent_coll! { fn MPI_Neighbor_alltoallv_init / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const DisplT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const DisplT, recvtype: c_int, comm: c_int) = alltoallv on comm; }

/// `n` blocks of an alltoallw: counts, byte displacements and types.
unsafe fn typed_blocks(
    n: usize,
    counts: *const impl CInt,
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

#[allow(clippy::too_many_arguments)]
unsafe fn alltoallw(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcounts: *const impl CInt,
    sdispls: *const Aint,
    sendtypes: *const c_int,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    rdispls: *const Aint,
    recvtypes: *const c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    neighbor(
        func,
        form,
        CallCode::Neighbor_alltoallw,
        comm,
        sendbuf,
        recvbuf,
        request,
        |_, n| typed_blocks(n, sendcounts, sdispls, sendtypes),
        |_, n| typed_blocks(n, recvcounts, rdispls, recvtypes),
    )
}
neighbor_pair! { fn MPI_Neighbor_alltoallw / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const Aint, sendtypes: *const c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const Aint, recvtypes: *const c_int, comm: c_int); fn MPI_Ineighbor_alltoallw / c = alltoallw; }
persistent_coll! { fn MPI_Neighbor_alltoallw_init / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const Aint, sendtypes: *const c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const Aint, recvtypes: *const c_int, comm: c_int) = alltoallw on comm; }
