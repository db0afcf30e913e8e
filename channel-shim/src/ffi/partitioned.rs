//! MPI 4.0 partitioned communication: `MPI_Psend_init`, `MPI_Precv_init`,
//! `MPI_Pready`, `MPI_Pready_range`, `MPI_Pready_list`, `MPI_Parrived`.
//! The requests start, complete and are freed like other persistent ones
//! (`MPI_Start`, `MPI_Wait`, `MPI_Request_free`); the semantics live in
//! the engine (`shim_engine::partitioned`).

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::info::pairs_of;
use crate::ffi::large_count::MpiCount;
use crate::ffi::p2p::hand_out;
use crate::ffi::write_out;
use shim_engine::{MpiError, RequestId};
use std::os::raw::{c_int, c_void};

/// `MPI_Psend_init` (`send`) or `MPI_Precv_init`.
#[allow(clippy::too_many_arguments)]
unsafe fn init(
    func: &str,
    send: bool,
    buf: *const c_void,
    partitions: c_int,
    count: MpiCount,
    datatype: c_int,
    peer: c_int,
    tag: c_int,
    comm: c_int,
    info: c_int,
    request: *mut c_int,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        let dt = datatype_from(datatype)?;
        let n = count_from(count)?;
        let parts = usize::try_from(partitions).map_err(|_| MpiError::Arg)?;
        let (peer, tag) = (dest_from(peer)?, send_tag(tag)?);
        pairs_of(info)?;
        engine(func, |e| {
            let id = e.partitioned_init(send, parts, n, dt, peer, tag, c)?;
            hand_out(e, id, buf, request)
        })
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Psend_init(buf: *const c_void, partitions: c_int, count: MpiCount, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, info: c_int, request: *mut c_int) {
    init("MPI_Psend_init", true, buf, partitions, count, datatype, dest, tag, comm, info, request)
} }

mpi_fn! { fn MPI_Precv_init(buf: *mut c_void, partitions: c_int, count: MpiCount, datatype: c_int, source: c_int, tag: c_int, comm: c_int, info: c_int, request: *mut c_int) {
    init("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, comm, info, request)
} }

/// The request of a partitioned call (never `MPI_REQUEST_NULL`).
fn partitioned_request(request: c_int) -> Result<RequestId, MpiError> {
    request_from(request)?.ok_or(MpiError::Request)
}

/// A partition index (non-negative).
fn partition_of(p: c_int) -> Result<usize, MpiError> {
    usize::try_from(p).map_err(|_| MpiError::Arg)
}

/// Marks `partitions` of send `request` ready.
fn ready(func: &str, request: c_int, partitions: Result<Vec<usize>, MpiError>) -> c_int {
    let r = (|| {
        let id = partitioned_request(request)?;
        let parts = partitions?;
        engine(func, |e| e.pready(id, &parts))
    })();
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Pready(partition: c_int, request: c_int) {
    ready("MPI_Pready", request, partition_of(partition).map(|p| vec![p]))
} }

mpi_fn! { fn MPI_Pready_range(partition_low: c_int, partition_high: c_int, request: c_int) {
    let parts = partition_of(partition_low).and_then(|lo| {
        let hi = partition_of(partition_high)?;
        if hi < lo {
            return Err(MpiError::Arg);
        }
        Ok((lo..=hi).collect())
    });
    ready("MPI_Pready_range", request, parts)
} }

mpi_fn! { fn MPI_Pready_list(length: c_int, array_of_partitions: *const c_int, request: c_int) {
    let parts = usize::try_from(length).map_err(|_| MpiError::Arg).and_then(|n| {
        if n > 0 && array_of_partitions.is_null() {
            return Err(MpiError::Arg);
        }
        (0..n).map(|i| partition_of(*array_of_partitions.add(i))).collect()
    });
    ready("MPI_Pready_list", request, parts)
} }

mpi_fn! { fn MPI_Parrived(request: c_int, partition: c_int, flag: *mut c_int) {
    let func = "MPI_Parrived";
    let r = (|| {
        let id = partitioned_request(request)?;
        let p = partition_of(partition)?;
        let arrived = engine(func, |e| e.parrived(id, p))?;
        write_out(flag, arrived as c_int);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }
