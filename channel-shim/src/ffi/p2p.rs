//! Point-to-point communication: sends in four modes, receives, probes,
//! persistent requests and the wait/test family.

use crate::abi::*;
use crate::ffi::buffers::{program_memory, region, region_mut, write_status, write_status_single};
use crate::ffi::call_record;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::{fail, finish};
use crate::ffi::grequest::{self, generalized_of, Completed};
use crate::ffi::handles::*;
use crate::ffi::large_count::{CInt, COut, CountT};
use crate::ffi::multiple::{block_until, thread_multiple};
use crate::ffi::persistent_coll::{self, Started};
use crate::ffi::write_out;
use crate::runtime::{self, GatewayTransport};
use shim_engine::p2p::TestAny;
use shim_engine::{Completion, DatatypeId, Engine, MpiError, RequestId, SendMode};
use std::os::raw::{c_int, c_void};

/// Writes the handle of a new request for the program; a persistent
/// request also leaves its buffer's address with the engine, which hands
/// it back at each start.
///
/// # Safety
/// `request` must be valid for writing an `int`.
pub(crate) unsafe fn hand_out(
    e: &mut Eng,
    id: RequestId,
    buf: *const c_void,
    request: *mut c_int,
) -> Result<(), MpiError> {
    if e.persistent_buffer(id).is_some() {
        e.set_request_buffer_address(id, buf as usize)?;
    }
    write_out(request, request_to(id));
    Ok(())
}

pub(crate) type Eng = Engine<GatewayTransport>;

/// MPI_Sendrecv under MPI_THREAD_MULTIPLE: an Irecv and an Isend (of the
/// send buffer's span, which `send_region` copies from user memory) waited
/// for without holding the lock. Returns the packed bytes received and the receive's status.
fn exchange_unlocked(
    func: &str,
    send_region: impl FnOnce(&mut Eng) -> Result<Vec<u8>, MpiError>,
    (sn, st, d, stag): (usize, DatatypeId, shim_engine::Dest, i32),
    (rn, rt, s, rtag): (usize, DatatypeId, shim_engine::Source, shim_engine::Tag),
    c: shim_engine::CommId,
) -> Result<(Vec<u8>, shim_engine::Status), MpiError> {
    let (rid, sid) = engine(func, |e| {
        let bytes = send_region(e)?;
        let rid = e.irecv(rn, rt, s, rtag, c)?;
        // `bytes` is a copy of the send buffer's whole span, which is what
        // the engine packs from.
        let sid = e.isend(SendMode::Standard, &bytes, sn, st, d, stag, c)?;
        Ok((rid, sid))
    })?;
    block_until(func, |e| {
        Ok(e.testall_done(&[Some(rid), Some(sid)])?.then_some(()))
    })?;
    engine(func, |e| {
        let done = e.test(rid)?.ok_or(MpiError::Other)?;
        e.test(sid)?;
        Ok((done.data.unwrap_or_default(), done.status))
    })
}

/// Waits for request `id` and hands its completion to `then`: inside the
/// engine, or under MPI_THREAD_MULTIPLE by polling without holding the lock
/// while waiting (see `multiple`).
pub(crate) fn wait_then<R>(
    func: &str,
    id: RequestId,
    unlocked: bool,
    then: impl FnOnce(&mut Eng, Completion) -> Result<R, MpiError>,
) -> Result<R, MpiError> {
    if !(unlocked || thread_multiple()) {
        return engine(func, |e| {
            let c = e.wait(id)?;
            then(e, c)
        });
    }
    let mut then = Some(then);
    block_until(func, |e| match e.test(id)? {
        Some(c) => (then.take().expect("runs once"))(e, c).map(Some),
        None => Ok(None),
    })
}

/// The error of a call that completed generalized requests `done` (their
/// callbacks run now, without the engine's lock), after its own result `r`.
unsafe fn with_generalized(
    r: Result<(), MpiError>,
    done: Vec<Completed>,
    multi: bool,
) -> Result<(), MpiError> {
    let g = grequest::run(done, multi);
    match (r, g) {
        (Err(e), _) => Err(e),
        (Ok(()), Some(_)) if multi => Err(MpiError::InStatus),
        (Ok(()), Some(e)) => Err(e),
        (Ok(()), None) => Ok(()),
    }
}

/// Writes the status of a request a single-completion call completed
/// (its `MPI_ERROR` untouched, as MPICH) and clears a freed handle. A
/// receive's data is already in the program's buffer. Returns the
/// request's own error, if any.
unsafe fn complete(
    c: Completion,
    handle: *mut c_int,
    status: *mut MpiStatus,
) -> Result<(), MpiError> {
    call_record::completed(*handle, &c.status);
    if c.freed {
        write_out(handle, MPI_REQUEST_NULL);
    }
    write_status_single(status, &c.status);
    c.status.error.map_or(Ok(()), Err)
}

/// [`complete`] for an entry of a call completing several requests
/// (`MPI_Waitall`, `MPI_Waitsome`, ...), which writes `MPI_ERROR` too.
unsafe fn complete_one_of_many(
    c: Completion,
    handle: *mut c_int,
    status: *mut MpiStatus,
) -> Result<(), MpiError> {
    call_record::completed(*handle, &c.status);
    if c.freed {
        write_out(handle, MPI_REQUEST_NULL);
    }
    write_status(status, &c.status);
    match c.status.error {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// The communicator whose handler gets the errors of request `id`.
fn comm_of(id: Option<RequestId>) -> c_int {
    id.and_then(|id| runtime::with_engine(|e| e.request_comm(id)).flatten())
        .map_or(MPI_COMM_WORLD, comm_to)
}

#[allow(clippy::too_many_arguments)]
unsafe fn send(
    func: &str,
    mode: SendMode,
    buf: *const c_void,
    count: impl CInt,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    let r = (|| {
        let (c, dt, n, d, t) = (
            comm_from(comm)?,
            buffer_datatype_from(datatype, count)?,
            count_from(count)?,
            dest_from(dest)?,
            send_tag(tag)?,
        );
        if thread_multiple() {
            crate::runtime::trace_record::unsupported("MPI_THREAD_MULTIPLE");
            let id = engine(func, |e| {
                let span = e.datatypes().span(dt, n)?;
                e.isend_from(mode, program_memory(buf, span), n, dt, d, t, c)
            })?;
            return wait_then(func, id, false, |_, _| Ok(()));
        }
        engine(func, |e| {
            let span = e.datatypes().span(dt, n)?;
            e.send_from(mode, program_memory(buf, span), n, dt, d, t, c)?;
            call_record::send(e, (mode, c, dest, t, n, dt), None);
            Ok(())
        })
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Send / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int) {
    send("MPI_Send", SendMode::Standard, buf, count, datatype, dest, tag, comm)
} }
mpi_fn! { fn MPI_Ssend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int) {
    send("MPI_Ssend", SendMode::Synchronous, buf, count, datatype, dest, tag, comm)
} }
mpi_fn! { fn MPI_Bsend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int) {
    send("MPI_Bsend", SendMode::Buffered, buf, count, datatype, dest, tag, comm)
} }
mpi_fn! { fn MPI_Rsend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int) {
    send("MPI_Rsend", SendMode::Ready, buf, count, datatype, dest, tag, comm)
} }

/// The arguments of a send, checked and converted.
type SendArgs = (
    shim_engine::CommId,
    DatatypeId,
    usize,
    shim_engine::Dest,
    i32,
);

/// Creates a send request (nonblocking or persistent) with `make`, which
/// gets the engine, the user's send region and the converted arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn send_request(
    func: &str,
    buf: *const c_void,
    count: impl CInt,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
    make: impl FnOnce(&mut Eng, shim_engine::datatype::Span, SendArgs) -> Result<RequestId, MpiError>,
) -> c_int {
    let r = (|| {
        let args = (
            comm_from(comm)?,
            buffer_datatype_from(datatype, count)?,
            count_from(count)?,
            dest_from(dest)?,
            send_tag(tag)?,
        );
        let (dt, n) = (args.1, args.2);
        engine(func, |e| {
            let span = e.datatypes().span(dt, n)?;
            let id = make(e, span, args)?;
            hand_out(e, id, buf, request)
        })
    })();
    finish(comm, func, r)
}

#[allow(clippy::too_many_arguments)]
unsafe fn isend(
    func: &str,
    mode: SendMode,
    buf: *const c_void,
    count: impl CInt,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    send_request(
        func,
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        request,
        |e, span, (c, dt, n, d, t)| {
            let id = e.isend_from(mode, program_memory(buf, span), n, dt, d, t, c)?;
            call_record::send(e, (mode, c, dest, t, n, dt), Some(request_to(id)));
            Ok(id)
        },
    )
}

mpi_fn! { fn MPI_Isend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    isend("MPI_Isend", SendMode::Standard, buf, count, datatype, dest, tag, comm, request)
} }
mpi_fn! { fn MPI_Issend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    isend("MPI_Issend", SendMode::Synchronous, buf, count, datatype, dest, tag, comm, request)
} }
mpi_fn! { fn MPI_Ibsend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    isend("MPI_Ibsend", SendMode::Buffered, buf, count, datatype, dest, tag, comm, request)
} }
mpi_fn! { fn MPI_Irsend / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    isend("MPI_Irsend", SendMode::Ready, buf, count, datatype, dest, tag, comm, request)
} }

mpi_fn! { fn MPI_Recv / c (buf: *mut c_void, count: CountT, datatype: c_int, source: c_int, tag: c_int, comm: c_int, status: *mut MpiStatus) {
    let r = (|| {
        let (c, dt, n, s, t) = (comm_from(comm)?, buffer_datatype_from(datatype, count)?, count_from(count)?, source_from(source)?, tag_from(tag)?);
        // The engine stores the data straight into `buf`.
        let report = |st: shim_engine::Status| {
            write_status_single(status, &st);
            st.error.map_or(Ok(()), Err)
        };
        if thread_multiple() {
            crate::runtime::trace_record::unsupported("MPI_THREAD_MULTIPLE");
            let id = engine("MPI_Recv", |e| {
                let span = e.datatypes().span(dt, n)?;
                e.irecv_into(program_memory(buf, span), n, dt, s, t, c)
            })?;
            return wait_then("MPI_Recv", id, false, |_, done| report(done.status));
        }
        let st = engine("MPI_Recv", |e| {
            let span = e.datatypes().span(dt, n)?;
            let st = e.recv_into(program_memory(buf, span), n, dt, s, t, c)?;
            call_record::recv(e, (c, source, tag, n, dt), Some(&st), None);
            Ok(st)
        })?;
        report(st)
    })();
    finish(comm, "MPI_Recv", r)
} }

mpi_fn! { fn MPI_Irecv / c (buf: *mut c_void, count: CountT, datatype: c_int, source: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    let r = (|| {
        let (c, dt, n, s, t) = (comm_from(comm)?, buffer_datatype_from(datatype, count)?, count_from(count)?, source_from(source)?, tag_from(tag)?);
        engine("MPI_Irecv", |e| {
            let span = e.datatypes().span(dt, n)?;
            let id = e.irecv_into(program_memory(buf, span), n, dt, s, t, c)?;
            call_record::recv(e, (c, source, tag, n, dt), None, Some(request_to(id)));
            hand_out(e, id, buf, request)
        })
    })();
    finish(comm, "MPI_Irecv", r)
} }

mpi_fn! { fn MPI_Sendrecv / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, dest: c_int, sendtag: c_int,
                          recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, source: c_int, recvtag: c_int,
                          comm: c_int, status: *mut MpiStatus) {
    let r = (|| {
        let c = comm_from(comm)?;
        let (st_, sn, d, stg) = (buffer_datatype_from(sendtype, sendcount)?, count_from(sendcount)?, dest_from(dest)?, send_tag(sendtag)?);
        let (rt, rn, s, rtg) = (buffer_datatype_from(recvtype, recvcount)?, count_from(recvcount)?, source_from(source)?, tag_from(recvtag)?);
        let memories = |e: &mut Eng| -> Result<_, MpiError> {
            let sspan = e.datatypes().span(st_, sn)?;
            let rspan = e.datatypes().span(rt, rn)?;
            Ok((program_memory(sendbuf, sspan), program_memory(recvbuf, rspan)))
        };
        let stat = if thread_multiple() {
            crate::runtime::trace_record::unsupported("MPI_THREAD_MULTIPLE");
            // Both requests are waited for without holding the lock.
            let (rid, sid) = engine("MPI_Sendrecv", |e| {
                let (smem, rmem) = memories(e)?;
                let rid = e.irecv_into(rmem, rn, rt, s, rtg, c)?;
                Ok((rid, e.isend_from(SendMode::Standard, smem, sn, st_, d, stg, c)?))
            })?;
            block_until("MPI_Sendrecv", |e| Ok(e.testall_done(&[Some(rid), Some(sid)])?.then_some(())))?;
            engine("MPI_Sendrecv", |e| {
                e.test(sid)?;
                Ok(e.test(rid)?.ok_or(MpiError::Other)?.status)
            })?
        } else {
            engine("MPI_Sendrecv", |e| {
                let (smem, rmem) = memories(e)?;
                let got = e.sendrecv_with(smem, sn, st_, d, stg, rmem, rn, rt, s, rtg, c)?;
                call_record::sendrecv(e, c, (dest, stg, sn, st_), (rn, rt), &got);
                Ok(got)
            })?
        };
        write_status_single(status, &stat);
        stat.error.map_or(Ok(()), Err)
    })();
    finish(comm, "MPI_Sendrecv", r)
} }

mpi_fn! { fn MPI_Sendrecv_replace / c (buf: *mut c_void, count: CountT, datatype: c_int, dest: c_int, sendtag: c_int,
                                  source: c_int, recvtag: c_int, comm: c_int, status: *mut MpiStatus) {
    let r = (|| {
        let (c, dt, n) = (comm_from(comm)?, datatype_from(datatype)?, count_from(count)?);
        let (d, stg, s, rtg) = (dest_from(dest)?, send_tag(sendtag)?, source_from(source)?, tag_from(recvtag)?);
        if thread_multiple() {
            crate::runtime::trace_record::unsupported("MPI_THREAD_MULTIPLE");
            let send = move |e: &mut Eng| -> Result<Vec<u8>, MpiError> {
                let span = e.datatypes().span(dt, n)?;
                Ok(region(buf, span).to_vec())
            };
            let (data, stat) = exchange_unlocked("MPI_Sendrecv_replace", send, (n, dt, d, stg), (n, dt, s, rtg), c)?;
            return engine("MPI_Sendrecv_replace", |e| {
                let span = e.datatypes().span(dt, n)?;
                e.datatypes().unpack(dt, n, &data, region_mut(buf, span))?;
                write_status_single(status, &stat);
                stat.error.map_or(Ok(()), Err)
            });
        }
        engine("MPI_Sendrecv_replace", |e| {
            let span = e.datatypes().span(dt, n)?;
            let copy = region(buf, span).to_vec();
            let (data, stat) = e.sendrecv(&copy, n, dt, d, stg, n, dt, s, rtg, c)?;
            call_record::sendrecv(e, c, (dest, stg, n, dt), (n, dt), &stat);
            e.datatypes().unpack(dt, n, &data, region_mut(buf, span))?;
            write_status_single(status, &stat);
            stat.error.map_or(Ok(()), Err)
        })
    })();
    finish(comm, "MPI_Sendrecv_replace", r)
} }

mpi_fn! { fn MPI_Probe(source: c_int, tag: c_int, comm: c_int, status: *mut MpiStatus) {
    let r = (|| {
        let (c, s, t) = (comm_from(comm)?, source_from(source)?, tag_from(tag)?);
        let st = if thread_multiple() {
            crate::runtime::trace_record::unsupported("MPI_THREAD_MULTIPLE");
            block_until("MPI_Probe", |e| e.iprobe(s, t, c))?
        } else {
            engine("MPI_Probe", |e| e.probe(s, t, c))?
        };
        call_record::probed(c, Some(&st));
        write_status(status, &st);
        Ok(())
    })();
    finish(comm, "MPI_Probe", r)
} }

mpi_fn! { fn MPI_Iprobe(source: c_int, tag: c_int, comm: c_int, flag: *mut c_int, status: *mut MpiStatus) {
    let r = (|| {
        let (c, s, t) = (comm_from(comm)?, source_from(source)?, tag_from(tag)?);
        let st = engine("MPI_Iprobe", |e| e.iprobe(s, t, c))?;
        call_record::probed(c, st.as_ref());
        write_out(flag, st.is_some() as c_int);
        if let Some(st) = st {
            write_status(status, &st);
        }
        Ok(())
    })();
    finish(comm, "MPI_Iprobe", r)
} }

mpi_fn! { fn MPI_Get_count / c (status: *const MpiStatus, datatype: c_int, count: *mut CountT) {
    let r = (|| {
        let dt = datatype_from(datatype)?;
        let bytes = (*status).count() as u64;
        let n = engine("MPI_Get_count", |e| e.datatypes().get_count(dt, bytes))?;
        write_out(count, <CountT as COut>::narrow(n.map_or(MPI_UNDEFINED.into(), |n| n as i64)));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Get_count", r)
} }

mpi_fn! { fn MPI_Get_elements / c (status: *const MpiStatus, datatype: c_int, count: *mut CountT) {
    let r = (|| {
        let dt = datatype_from(datatype)?;
        let bytes = (*status).count() as u64;
        let n = engine("MPI_Get_elements", |e| e.datatypes().get_elements(dt, bytes))?;
        write_out(count, <CountT as COut>::narrow(n as i64));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Get_elements", r)
} }

mpi_fn! { fn MPI_Test_cancelled(status: *const MpiStatus, flag: *mut c_int) {
    write_out(flag, (*status).cancelled() as c_int);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Wait(request: *mut c_int, status: *mut MpiStatus) {
    let id = match request_from(*request) { Ok(i) => i, Err(e) => return fail(MPI_COMM_WORLD, "MPI_Wait", e) };
    let comm = comm_of(id);
    let r = (|| {
        let Some(id) = id else {
            write_status(status, &shim_engine::Status::empty());
            return Ok(());
        };
        let g = generalized_of(&[Some(id)])[0];
        let freed = wait_then("MPI_Wait", id, g.is_some(), |_, c| {
            let freed = c.freed;
            complete(c, request, status).map(|_| freed)
        })?;
        let done = g.map(|g| Completed::new(g, status, freed)).into_iter().collect();
        with_generalized(Ok(()), done, false)
    })();
    finish(comm, "MPI_Wait", r)
} }

mpi_fn! { fn MPI_Test(request: *mut c_int, flag: *mut c_int, status: *mut MpiStatus) {
    let id = match request_from(*request) { Ok(i) => i, Err(e) => return fail(MPI_COMM_WORLD, "MPI_Test", e) };
    let comm = comm_of(id);
    let r = (|| {
        let Some(id) = id else {
            write_out(flag, 1);
            write_status(status, &shim_engine::Status::empty());
            return Ok(());
        };
        let g = generalized_of(&[Some(id)])[0];
        let done = engine("MPI_Test", |e| match e.test(id)? {
            Some(c) => {
                write_out(flag, 1);
                let freed = c.freed;
                complete(c, request, status).map(|_| Some(freed))
            }
            None => {
                write_out(flag, 0);
                call_record::progressed();
                Ok(None)
            }
        })?;
        let done = match (g, done) {
            (Some(g), Some(freed)) => vec![Completed::new(g, status, freed)],
            _ => Vec::new(),
        };
        with_generalized(Ok(()), done, false)
    })();
    finish(comm, "MPI_Test", r)
} }

/// Reads `count` request handles.
unsafe fn request_list(
    count: c_int,
    requests: *mut c_int,
) -> Result<Vec<Option<RequestId>>, MpiError> {
    let n = count_from(count)?;
    (0..n).map(|i| request_from(*requests.add(i))).collect()
}

unsafe fn status_at(statuses: *mut MpiStatus, i: usize) -> *mut MpiStatus {
    if crate::ffi::buffers::ignored(statuses) {
        statuses
    } else {
        statuses.add(i)
    }
}

/// Completes entry `i` of a multi-request call: writes its status (into
/// `status`), clears its handle, notes a generalized request for its
/// callbacks. Returns the request's own error, if any.
#[allow(clippy::too_many_arguments)]
unsafe fn complete_entry(
    ids: &[Option<RequestId>],
    gens: &[Option<grequest::GrequestFns>],
    i: usize,
    c: Completion,
    requests: *mut c_int,
    status: *mut MpiStatus,
    done: &mut Vec<Completed>,
    single: bool,
) -> Result<(), MpiError> {
    if ids[i].is_none() {
        write_status(status, &c.status);
        return Ok(());
    }
    if let Some(g) = gens[i] {
        done.push(Completed::new(g, status, c.freed));
    }
    if single {
        complete(c, requests.add(i), status)
    } else {
        complete_one_of_many(c, requests.add(i), status)
    }
}

mpi_fn! { fn MPI_Waitall(count: c_int, requests: *mut c_int, statuses: *mut MpiStatus) {
    let r = (|| {
        let ids = request_list(count, requests)?;
        let gens = generalized_of(&ids);
        if thread_multiple() || gens.iter().any(Option::is_some) {
            // Wait until all are done (without holding the lock meanwhile),
            // then collect them as below.
            block_until("MPI_Waitall", |e| Ok(e.testall_done(&ids)?.then_some(())))?;
        }
        let mut done = Vec::new();
        let r = engine("MPI_Waitall", |e| {
            let all = e.waitall(&ids)?;
            let mut any_error = false;
            for (i, c) in all.into_iter().enumerate() {
                any_error |= complete_entry(&ids, &gens, i, c, requests, status_at(statuses, i), &mut done, false).is_err();
            }
            if any_error { Err(MpiError::InStatus) } else { Ok(()) }
        });
        with_generalized(r, done, true)
    })();
    finish(MPI_COMM_WORLD, "MPI_Waitall", r)
} }

mpi_fn! { fn MPI_Testall(count: c_int, requests: *mut c_int, flag: *mut c_int, statuses: *mut MpiStatus) {
    let r = (|| {
        let ids = request_list(count, requests)?;
        let gens = generalized_of(&ids);
        let mut done = Vec::new();
        let r = engine("MPI_Testall", |e| match e.testall(&ids)? {
            Some(all) => {
                write_out(flag, 1);
                let mut any_error = false;
                for (i, c) in all.into_iter().enumerate() {
                    any_error |= complete_entry(&ids, &gens, i, c, requests, status_at(statuses, i), &mut done, false).is_err();
                }
                if any_error { Err(MpiError::InStatus) } else { Ok(()) }
            }
            None => {
                write_out(flag, 0);
                call_record::progressed();
                Ok(())
            }
        });
        with_generalized(r, done, true)
    })();
    finish(MPI_COMM_WORLD, "MPI_Testall", r)
} }

mpi_fn! { fn MPI_Waitany(count: c_int, requests: *mut c_int, index: *mut c_int, status: *mut MpiStatus) {
    let r = (|| {
        let ids = request_list(count, requests)?;
        let gens = generalized_of(&ids);
        if thread_multiple() || gens.iter().any(Option::is_some) {
            block_until("MPI_Waitany", |e| Ok(e.testany_done(&ids)?.then_some(())))?;
        }
        let mut done = Vec::new();
        let r = engine("MPI_Waitany", |e| match e.waitany(&ids)? {
            Some((i, c)) => {
                write_out(index, i as c_int);
                complete_entry(&ids, &gens, i, c, requests, status, &mut done, true)
            }
            None => {
                write_out(index, MPI_UNDEFINED);
                write_status(status, &shim_engine::Status::empty());
                Ok(())
            }
        });
        with_generalized(r, done, false)
    })();
    finish(MPI_COMM_WORLD, "MPI_Waitany", r)
} }

mpi_fn! { fn MPI_Testany(count: c_int, requests: *mut c_int, index: *mut c_int, flag: *mut c_int, status: *mut MpiStatus) {
    let r = (|| {
        let ids = request_list(count, requests)?;
        let gens = generalized_of(&ids);
        let mut done = Vec::new();
        let r = engine("MPI_Testany", |e| match e.testany(&ids)? {
            TestAny::Done(i, c) => {
                write_out(flag, 1);
                write_out(index, i as c_int);
                complete_entry(&ids, &gens, i, c, requests, status, &mut done, true)
            }
            TestAny::NoneActive => {
                write_out(flag, 1);
                write_out(index, MPI_UNDEFINED);
                write_status(status, &shim_engine::Status::empty());
                Ok(())
            }
            TestAny::Pending => {
                call_record::progressed();
                write_out(flag, 0);
                write_out(index, MPI_UNDEFINED);
                Ok(())
            }
        });
        with_generalized(r, done, false)
    })();
    finish(MPI_COMM_WORLD, "MPI_Testany", r)
} }

unsafe fn some(
    func: &str,
    wait: bool,
    incount: c_int,
    requests: *mut c_int,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut MpiStatus,
) -> c_int {
    let r = (|| {
        let ids = request_list(incount, requests)?;
        let gens = generalized_of(&ids);
        if wait && (thread_multiple() || gens.iter().any(Option::is_some)) {
            block_until(func, |e| Ok(e.testany_done(&ids)?.then_some(())))?;
        }
        let mut done = Vec::new();
        let r = engine(func, |e| {
            let got = if wait {
                e.waitsome(&ids)?
            } else {
                e.testsome(&ids)?
            };
            match got {
                None => {
                    write_out(outcount, MPI_UNDEFINED);
                    Ok(())
                }
                Some(all) if all.is_empty() => {
                    call_record::progressed();
                    write_out(outcount, 0);
                    Ok(())
                }
                Some(all) => {
                    write_out(outcount, all.len() as c_int);
                    let mut any_error = false;
                    for (k, (i, c)) in all.into_iter().enumerate() {
                        write_out(indices.add(k), i as c_int);
                        any_error |= complete_entry(
                            &ids,
                            &gens,
                            i,
                            c,
                            requests,
                            status_at(statuses, k),
                            &mut done,
                            false,
                        )
                        .is_err();
                    }
                    if any_error {
                        Err(MpiError::InStatus)
                    } else {
                        Ok(())
                    }
                }
            }
        });
        with_generalized(r, done, true)
    })();
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Waitsome(incount: c_int, requests: *mut c_int, outcount: *mut c_int, indices: *mut c_int, statuses: *mut MpiStatus) {
    some("MPI_Waitsome", true, incount, requests, outcount, indices, statuses)
} }
mpi_fn! { fn MPI_Testsome(incount: c_int, requests: *mut c_int, outcount: *mut c_int, indices: *mut c_int, statuses: *mut MpiStatus) {
    some("MPI_Testsome", false, incount, requests, outcount, indices, statuses)
} }

mpi_fn! { fn MPI_Request_get_status(request: c_int, flag: *mut c_int, status: *mut MpiStatus) {
    let r = (|| {
        let Some(id) = request_from(request)? else {
            write_out(flag, 1);
            write_status(status, &shim_engine::Status::empty());
            return Ok(());
        };
        let g = generalized_of(&[Some(id)])[0];
        let st = engine("MPI_Request_get_status", |e| e.request_get_status(id))?;
        // It completes nothing (a later wait or test does): the library
        // progressed.
        call_record::progressed();
        write_out(flag, st.is_some() as c_int);
        match (st, g) {
            (Some(st), None) => write_status(status, &st),
            (Some(_), Some(g)) => grequest::status_of(&g, status)?,
            (None, _) => {}
        }
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Request_get_status", r)
} }

mpi_fn! { fn MPI_Cancel(request: *mut c_int) {
    let r = (|| {
        let Some(id) = request_from(*request)? else { return Err(MpiError::Request) };
        match generalized_of(&[Some(id)])[0] {
            Some(g) => {
                let complete = engine("MPI_Cancel", |e| e.is_done(id))?;
                grequest::cancel(&g, complete)
            }
            None => {
                engine("MPI_Cancel", |e| e.cancel(id))?;
                call_record::cancelled(*request);
                Ok(())
            }
        }
    })();
    finish(MPI_COMM_WORLD, "MPI_Cancel", r)
} }

mpi_fn! { fn MPI_Request_free(request: *mut c_int) {
    let r = (|| {
        let Some(id) = request_from(*request)? else { return Err(MpiError::Request) };
        let g = generalized_of(&[Some(id)])[0];
        engine("MPI_Request_free", |e| e.request_free(id))?;
        call_record::request_freed(*request);
        write_out(request, MPI_REQUEST_NULL);
        g.map_or(Ok(()), |g| grequest::freed(&g))
    })();
    finish(MPI_COMM_WORLD, "MPI_Request_free", r)
} }

#[allow(clippy::too_many_arguments)]
unsafe fn send_init(
    func: &str,
    mode: SendMode,
    buf: *const c_void,
    count: impl CInt,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    send_request(
        func,
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        request,
        |e, _span, (c, dt, n, d, t)| {
            let id = e.send_init(mode, n, dt, d, t, c)?;
            let args = (mode, c, dest, t, n, dt);
            call_record::persistent(call_record::send_record(e, args, Some(request_to(id))));
            Ok(id)
        },
    )
}

mpi_fn! { fn MPI_Send_init / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    send_init("MPI_Send_init", SendMode::Standard, buf, count, datatype, dest, tag, comm, request)
} }
mpi_fn! { fn MPI_Ssend_init / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    send_init("MPI_Ssend_init", SendMode::Synchronous, buf, count, datatype, dest, tag, comm, request)
} }
mpi_fn! { fn MPI_Bsend_init / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    send_init("MPI_Bsend_init", SendMode::Buffered, buf, count, datatype, dest, tag, comm, request)
} }
mpi_fn! { fn MPI_Rsend_init / c (buf: *const c_void, count: CountT, datatype: c_int, dest: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    send_init("MPI_Rsend_init", SendMode::Ready, buf, count, datatype, dest, tag, comm, request)
} }

mpi_fn! { fn MPI_Recv_init / c (buf: *mut c_void, count: CountT, datatype: c_int, source: c_int, tag: c_int, comm: c_int, request: *mut c_int) {
    let r = (|| {
        let (c, dt, n, s, t) = (comm_from(comm)?, buffer_datatype_from(datatype, count)?, count_from(count)?, source_from(source)?, tag_from(tag)?);
        engine("MPI_Recv_init", |e| {
            let id = e.recv_init(n, dt, s, t, c)?;
            let args = (c, source, tag, n, dt);
            call_record::persistent(call_record::recv_record(e, args, None, Some(request_to(id))));
            hand_out(e, id, buf, request)
        })
    })();
    finish(comm, "MPI_Recv_init", r)
} }

unsafe fn start_one(e: &mut Eng, id: RequestId) -> Result<(), MpiError> {
    match (e.request_buffer_address(id), e.persistent_buffer(id)) {
        (Some(addr), Some((count, dt))) => {
            // The engine keeps the buffer: a send streams from it, a
            // receive stores its data into it.
            let span = e.datatypes().span(dt, count)?;
            e.start_with(id, program_memory(addr as *const c_void, span))
        }
        _ => e.start(id, None),
    }
}

/// Starts persistent request `id`: a collective through its starter
/// (without the engine's lock), a send or receive in the engine. `Err`
/// holds the code to return when the collective's start already reported
/// its error.
unsafe fn start_request(func: &str, id: RequestId) -> Result<Result<(), MpiError>, c_int> {
    match persistent_coll::start(func, id) {
        Ok(Started::NotCollective) => Ok(engine(func, |e| start_one(e, id))),
        Ok(Started::Started) => Ok(Ok(())),
        Ok(Started::Failed(code)) => Err(code),
        Err(e) => Ok(Err(e)),
    }
}

mpi_fn! { fn MPI_Start(request: *mut c_int) {
    let func = "MPI_Start";
    let id = match request_from(*request) {
        Ok(Some(id)) => id,
        Ok(None) => return finish(MPI_COMM_WORLD, func, Err(MpiError::Request)),
        Err(e) => return finish(MPI_COMM_WORLD, func, Err(e)),
    };
    call_record::started(&[*request]);
    match start_request(func, id) {
        Ok(r) => finish(MPI_COMM_WORLD, func, r),
        Err(code) => code,
    }
} }

mpi_fn! { fn MPI_Startall(count: c_int, requests: *mut c_int) {
    let func = "MPI_Startall";
    let ids = match request_list(count, requests) {
        Ok(ids) => ids,
        Err(e) => return finish(MPI_COMM_WORLD, func, Err(e)),
    };
    if crate::runtime::trace_record::is_on() {
        let n = usize::try_from(count).unwrap_or(0);
        let handles: Vec<c_int> = (0..n).map(|i| *requests.add(i)).collect();
        call_record::started(&handles);
    }
    for id in ids.into_iter().flatten() {
        match start_request(func, id) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return finish(MPI_COMM_WORLD, func, Err(e)),
            Err(code) => return code,
        }
    }
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Buffer_attach / c (buffer: *mut c_void, size: CountT) {
    let r = (|| {
        // A negative size is MPI_ERR_ARG in MPICH, not MPI_ERR_COUNT.
        let n = usize::try_from(size.wide()).map_err(|_| MpiError::Arg)?;
        engine("MPI_Buffer_attach", |e| e.buffer_attach(buffer as usize, n))?;
        call_record::buffer_attached(n);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Buffer_attach", r)
} }

mpi_fn! { fn MPI_Buffer_detach / c (buffer_addr: *mut c_void, size: *mut CountT) {
    let func = "MPI_Buffer_detach";
    let r = (|| {
        if thread_multiple() {
            block_until(func, |e| Ok(e.buffered_sends_done().then_some(())))?;
        }
        let (addr, n) = engine(func, |e| e.buffer_detach())?;
        call_record::buffer_detached();
        write_out(buffer_addr as *mut usize, addr);
        write_out(size, <CountT as COut>::narrow(n as i64));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }
