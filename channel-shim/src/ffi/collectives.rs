//! Collective operations, blocking and nonblocking: the C arguments become
//! regions of user memory and [`CollInput`]s for the engine, whose packed
//! results are unpacked into the receive buffers when the call completes
//! (see [`crate::ffi::nbc`]).
//!
//! Buffers that MPI makes significant only at the root are touched only at
//! the root (and their datatypes are not even looked at elsewhere).
//! `MPI_IN_PLACE` is accepted where MPI allows it and is an
//! `MPI_ERR_BUFFER` elsewhere. On intercommunicators the counts of the
//! receive side describe the remote group, and roots may be `MPI_ROOT`
//! and `MPI_PROC_NULL`.

use crate::abi::*;
use crate::ffi::buffers::{is_in_place, region, region_mut};
use crate::ffi::call_record::{self, CollArgs};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::large_count::{count_array, wide_array, CInt, CountT, DisplT};
use crate::ffi::nbc;
use crate::persistent_coll;
use crate::runtime::GatewayTransport;
use mpinetsim_protocol::trace_calls::CollKind;
use shim_engine::collectives::{
    AlltoallwArgs, CollFinish, CollInput, CollOutput, Form, ScatterRecv, ROOT_HERE, ROOT_NULL,
};
use shim_engine::datatype::{Datatypes, Span};
use shim_engine::{CommId, DatatypeId, Engine, MpiError, RequestId};
use std::os::raw::{c_int, c_void};
use std::ptr::null_mut;

/// The engine as the C layer holds it.
pub type Eng = Engine<GatewayTransport>;

type R = Result<(), MpiError>;
type Started = Result<(RequestId, Option<CollFinish>), MpiError>;

/// The root argument of a rooted collective as the engine takes it (on an
/// intercommunicator `MPI_ROOT` and `MPI_PROC_NULL` too, else a member
/// checked before the other arguments, as MPICH does), and whether this
/// rank is the root.
fn root_arg(e: &Eng, c: CommId, root: c_int) -> Result<(u32, bool), MpiError> {
    if e.comm_test_inter(c)? {
        return Ok(match root {
            MPI_ROOT => (ROOT_HERE, true),
            MPI_PROC_NULL => (ROOT_NULL, false),
            r => (u32::try_from(r).map_err(|_| MpiError::Root)?, false),
        });
    }
    let r = u32::try_from(root).map_err(|_| MpiError::Root)?;
    if r >= e.comm_size(c)? {
        return Err(MpiError::Root);
    }
    Ok((r, e.comm_rank(c)? == r))
}

/// Members the receive (or send) counts of `c` describe: the remote group
/// of an intercommunicator, else the communicator's.
fn peers(e: &Eng, c: CommId) -> Result<usize, MpiError> {
    Ok(if e.comm_test_inter(c)? {
        e.comm_remote_size(c)?
    } else {
        e.comm_size(c)?
    } as usize)
}

fn local_size(e: &Eng, c: CommId) -> Result<usize, MpiError> {
    Ok(e.comm_size(c)? as usize)
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
unsafe fn unpack_to(
    t: &Datatypes,
    dt: DatatypeId,
    count: usize,
    data: &[u8],
    buf: *mut c_void,
) -> R {
    let s = t.span(dt, count)?;
    t.unpack(dt, count, data, region_mut(buf, s))?;
    Ok(())
}

/// No output reaches program memory.
fn nothing() -> Option<CollFinish> {
    None
}

/// A finisher unpacking a `Bytes` output as `count` instances of `dt`
/// into the buffer at `buf`.
fn unpack_bytes(dt: DatatypeId, count: usize, buf: *mut c_void) -> Option<CollFinish> {
    let buf = buf as usize;
    Some(CollFinish {
        types: vec![dt],
        deliver: Box::new(move |t, out| match out {
            // SAFETY: the program keeps the receive buffer until completion.
            CollOutput::Bytes(d) => unsafe { unpack_to(t, dt, count, &d, buf as *mut c_void) },
            _ => Ok(()),
        }),
    })
}

/// A finisher unpacking a `Blocks` output, block i as `b[i]` (first
/// instance, count) of `dt`, into the buffer at `buf`.
fn unpack_blocks(dt: DatatypeId, b: Vec<(i64, usize)>, buf: *mut c_void) -> Option<CollFinish> {
    let buf = buf as usize;
    Some(CollFinish {
        types: vec![dt],
        deliver: Box::new(move |t, out| {
            let CollOutput::Blocks(data) = out else {
                return Ok(());
            };
            let s = t.span_blocks(dt, &b)?;
            // SAFETY: the program keeps the receive buffer until completion.
            let mem = unsafe { region_mut(buf as *mut c_void, s) };
            for (&(first, count), d) in b.iter().zip(&data) {
                t.unpack_at(dt, first, count, d, mem, s.base)?;
            }
            Ok(())
        }),
    })
}

/// `n` counts from a C array.
unsafe fn counts(n: usize, p: *const impl CInt) -> Result<Vec<usize>, MpiError> {
    count_array(n, p)
}

/// `n` displacements from a C array.
unsafe fn displs(n: usize, p: *const impl CInt) -> Result<Vec<i64>, MpiError> {
    wide_array(n, p, MpiError::Arg)
}

/// `n` datatypes from a C array.
unsafe fn types(n: usize, p: *const c_int) -> Result<Vec<DatatypeId>, MpiError> {
    if n > 0 && p.is_null() {
        return Err(MpiError::Datatype);
    }
    (0..n).map(|i| datatype_from(*p.add(i))).collect()
}

/// The (displacement, count) blocks of a v-collective buffer.
unsafe fn blocks(
    n: usize,
    cnts: *const impl CInt,
    disps: *const impl CInt,
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

/// Defines the blocking and the nonblocking C function of one collective,
/// both calling `$body` (a function taking the form and, last, the
/// request pointer):
///
/// ```ignore
/// coll_pair! { fn MPI_Barrier(comm: c_int); fn MPI_Ibarrier = barrier; }
/// ```
macro_rules! coll_pair {
    // `/ c` on both names: also their large-count variants (see `large_count`).
    (fn $blocking:ident / c ( $($arg:ident : $ty:ty),* ); fn $nonblocking:ident / c = $body:ident;) => {
        coll_pair! { fn $blocking($($arg: $ty),*); fn $nonblocking = $body; }
        $crate::large_count_module! { $blocking {
            coll_pair! { fn [<$blocking _c>]($($arg: $ty),*); fn [<$nonblocking _c>] = $body; }
        } }
    };
    (fn $blocking:ident ( $($arg:ident : $ty:ty),* ); fn $nonblocking:ident = $body:ident;) => {
        mpi_fn! { fn $blocking($($arg: $ty),*) {
            $body(stringify!($blocking), Form::Blocking, $($arg,)* null_mut())
        } }
        mpi_fn! { fn $nonblocking($($arg: $ty,)* request: *mut c_int) {
            $body(stringify!($nonblocking), Form::Nonblocking, $($arg,)* request)
        } }
    };
}

unsafe fn barrier(func: &str, form: Form, comm: c_int, request: *mut c_int) -> c_int {
    nbc::run(func, comm, form, request, |e, c| {
        let id = e.start_barrier(form, c)?;
        call_record::collective(e, func, form, CollKind::Barrier, c, CollArgs::default(), id);
        Ok((id, nothing()))
    })
}
coll_pair! { fn MPI_Barrier(comm: c_int); fn MPI_Ibarrier = barrier; }
persistent_coll! { fn MPI_Barrier_init(comm: c_int) = barrier on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn bcast(
    func: &str,
    form: Form,
    buffer: *mut c_void,
    count: impl CInt,
    datatype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (dt, n) = (datatype_from(datatype)?, count_from(count)?);
        let (root, at_root) = root_arg(e, c, root)?;
        let s = span(e, dt, n)?;
        let src: &[u8] = if at_root { region(buffer, s) } else { &[] };
        let id = e.start_bcast(form, src, n, dt, root, c)?;
        let a = CollArgs {
            root,
            send: Some((n, dt)),
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Bcast, c, a, id);
        let fin = if at_root {
            nothing()
        } else {
            unpack_bytes(dt, n, buffer)
        };
        Ok((id, fin))
    })
}
coll_pair! { fn MPI_Bcast / c (buffer: *mut c_void, count: CountT, datatype: c_int, root: c_int, comm: c_int); fn MPI_Ibcast / c = bcast; }
persistent_coll! { fn MPI_Bcast_init / c (buffer: *mut c_void, count: CountT, datatype: c_int, root: c_int, comm: c_int) = bcast on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn reduce(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: impl CInt,
    datatype: c_int,
    op: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (root, at_root) = root_arg(e, c, root)?;
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        let s = span(e, dt, n)?;
        let inter = e.comm_test_inter(c)?;
        let inp = if inter && (root == ROOT_HERE || root == ROOT_NULL) {
            CollInput::Buf(&[])
        } else {
            input(sendbuf, recvbuf, s, at_root && !inter)?
        };
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_reduce(form, inp, n, dt, o, root, c)?;
        let a = CollArgs {
            root,
            send: Some((n, dt)),
            op: Some(o),
            in_place,
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Reduce, c, a, id);
        Ok((id, unpack_bytes(dt, n, recvbuf)))
    })
}
coll_pair! { fn MPI_Reduce / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, root: c_int, comm: c_int); fn MPI_Ireduce / c = reduce; }
persistent_coll! { fn MPI_Reduce_init / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, root: c_int, comm: c_int) = reduce on comm; }

/// The allreduce-like collectives: a send buffer (or in place) of `count`
/// instances and a receive buffer of as many.
macro_rules! reduction {
    ($name:ident, $start:ident, $kind:expr) => {
        #[allow(clippy::too_many_arguments)]
        unsafe fn $name(
            func: &str,
            form: Form,
            sendbuf: *const c_void,
            recvbuf: *mut c_void,
            count: impl CInt,
            datatype: c_int,
            op: c_int,
            comm: c_int,
            request: *mut c_int,
        ) -> c_int {
            nbc::run(func, comm, form, request, |e, c| -> Started {
                let (dt, o) = reduction_from(datatype, op)?;
                let n = count_from(count)?;
                let s = span(e, dt, n)?;
                let inter = e.comm_test_inter(c)?;
                let inp = input(sendbuf, recvbuf, s, !inter)?;
                let in_place = matches!(inp, CollInput::InPlace(_));
                let id = e.$start(form, inp, n, dt, o, c)?;
                let a = CollArgs {
                    send: Some((n, dt)),
                    op: Some(o),
                    in_place,
                    ..Default::default()
                };
                call_record::collective(e, func, form, $kind, c, a, id);
                Ok((id, unpack_bytes(dt, n, recvbuf)))
            })
        }
    };
}
reduction!(allreduce, start_allreduce, CollKind::Allreduce);
reduction!(scan, start_scan, CollKind::Scan);
reduction!(exscan, start_exscan, CollKind::Exscan);
coll_pair! { fn MPI_Allreduce / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, comm: c_int); fn MPI_Iallreduce / c = allreduce; }
persistent_coll! { fn MPI_Allreduce_init / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, comm: c_int) = allreduce on comm; }
coll_pair! { fn MPI_Scan / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, comm: c_int); fn MPI_Iscan / c = scan; }
persistent_coll! { fn MPI_Scan_init / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, comm: c_int) = scan on comm; }
coll_pair! { fn MPI_Exscan / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, comm: c_int); fn MPI_Iexscan / c = exscan; }
persistent_coll! { fn MPI_Exscan_init / c (sendbuf: *const c_void, recvbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int, comm: c_int) = exscan on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn reduce_scatter_block(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(recvcount)?;
        let s = span(e, dt, n * local_size(e, c)?)?;
        let inter = e.comm_test_inter(c)?;
        let inp = input(sendbuf, recvbuf, s, !inter)?;
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_reduce_scatter_block(form, inp, n, dt, o, c)?;
        let a = CollArgs {
            send: Some((n, dt)),
            op: Some(o),
            in_place,
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::ReduceScatterBlock, c, a, id);
        Ok((id, unpack_bytes(dt, n, recvbuf)))
    })
}
coll_pair! { fn MPI_Reduce_scatter_block / c (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: CountT, datatype: c_int, op: c_int, comm: c_int); fn MPI_Ireduce_scatter_block / c = reduce_scatter_block; }
persistent_coll! { fn MPI_Reduce_scatter_block_init / c (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: CountT, datatype: c_int, op: c_int, comm: c_int) = reduce_scatter_block on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn reduce_scatter(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (dt, o) = reduction_from(datatype, op)?;
        let rc = counts(local_size(e, c)?, recvcounts)?;
        let s = span(e, dt, rc.iter().sum())?;
        let inter = e.comm_test_inter(c)?;
        let inp = input(sendbuf, recvbuf, s, !inter)?;
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_reduce_scatter(form, inp, &rc, dt, o, c)?;
        let a = CollArgs {
            send: Some((0, dt)),
            op: Some(o),
            in_place,
            rcounts: rc.clone(),
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::ReduceScatter, c, a, id);
        let mine = rc[e.comm_rank(c)? as usize];
        Ok((id, unpack_bytes(dt, mine, recvbuf)))
    })
}
coll_pair! { fn MPI_Reduce_scatter / c (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const CountT, datatype: c_int, op: c_int, comm: c_int); fn MPI_Ireduce_scatter / c = reduce_scatter; }
persistent_coll! { fn MPI_Reduce_scatter_init / c (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const CountT, datatype: c_int, op: c_int, comm: c_int) = reduce_scatter on comm; }

mpi_fn! { fn MPI_Reduce_local / c (inbuf: *const c_void, inoutbuf: *mut c_void, count: CountT, datatype: c_int, op: c_int) {
    let r = (|| {
        let (dt, o) = reduction_from(datatype, op)?;
        let n = count_from(count)?;
        engine("MPI_Reduce_local", |e| {
            let s = span(e, dt, n)?;
            let data = e.reduce_local(region(inbuf, s), region(inoutbuf, s), n, dt, o)?;
            unpack_to(e.datatypes(), dt, n, &data, inoutbuf)
        })
    })();
    finish(MPI_COMM_WORLD, "MPI_Reduce_local", r)
} }

/// The send side of a gather-like call: the send buffer, or in place the
/// receive region `own` describes (then `sendcount` is 0 and the type the
/// receive type).
unsafe fn send_side<'a>(
    e: &Eng,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    in_place: Option<(*const c_void, Span, DatatypeId)>,
) -> Result<(CollInput<'a>, usize, DatatypeId), MpiError> {
    if is_in_place(sendbuf) {
        let (recvbuf, own, rt) = in_place.ok_or(MpiError::Buffer)?;
        return Ok((CollInput::InPlace(region(recvbuf, own)), 0, rt));
    }
    let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
    Ok((CollInput::Buf(region(sendbuf, span(e, st, sn)?)), sn, st))
}

#[allow(clippy::too_many_arguments)]
unsafe fn gather(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (root, at_root) = root_arg(e, c, root)?;
        let inter = e.comm_test_inter(c)?;
        let sends = !(inter && (root == ROOT_HERE || root == ROOT_NULL));
        let (rt, rn) = if at_root {
            (datatype_from(recvtype)?, count_from(recvcount)?)
        } else {
            (DatatypeId::Builtin(shim_engine::BuiltinType::Byte), 0)
        };
        let total = rn * peers(e, c)?;
        let (inp, sn, st) = if sends {
            let own =
                (at_root && !inter).then(|| (recvbuf as *const c_void, span(e, rt, total), rt));
            let own = match own {
                Some((b, s, t)) => Some((b, s?, t)),
                None => None,
            };
            send_side(e, sendbuf, sendcount, sendtype, own)?
        } else {
            (CollInput::Buf(&[]), 0, rt)
        };
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_gather(form, inp, sn, st, rn, rt, root, c)?;
        let a = CollArgs {
            root,
            send: Some((sn, st)),
            recv: Some((rn, rt)),
            in_place,
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Gather, c, a, id);
        Ok((id, unpack_bytes(rt, total, recvbuf)))
    })
}
coll_pair! { fn MPI_Gather / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, root: c_int, comm: c_int); fn MPI_Igather / c = gather; }
persistent_coll! { fn MPI_Gather_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, root: c_int, comm: c_int) = gather on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn gatherv(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    displs_: *const impl CInt,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (root, at_root) = root_arg(e, c, root)?;
        let inter = e.comm_test_inter(c)?;
        let sends = !(inter && (root == ROOT_HERE || root == ROOT_NULL));
        if !at_root {
            if !sends {
                return Ok((
                    e.start_gatherv(
                        form,
                        CollInput::Buf(&[]),
                        0,
                        DatatypeId::Builtin(shim_engine::BuiltinType::Byte),
                        &[],
                        &[],
                        DatatypeId::Builtin(shim_engine::BuiltinType::Byte),
                        root,
                        c,
                    )?,
                    nothing(),
                ));
            }
            let (inp, sn, st) = send_side(e, sendbuf, sendcount, sendtype, None)?;
            let id = e.start_gatherv(form, inp, sn, st, &[], &[], st, root, c)?;
            let a = CollArgs {
                root,
                send: Some((sn, st)),
                recv: Some((0, st)),
                ..Default::default()
            };
            call_record::collective(e, func, form, CollKind::Gatherv, c, a, id);
            return Ok((id, nothing()));
        }
        let rt = datatype_from(recvtype)?;
        let b = blocks(peers(e, c)?, recvcounts, displs_)?;
        let (rc, rd) = split(&b);
        let (inp, sn, st) = if inter {
            (CollInput::Buf(&[]), 0, rt)
        } else {
            let me = e.comm_rank(c)? as usize;
            let own = e.datatypes().span_blocks(rt, &[b[me]])?;
            send_side(e, sendbuf, sendcount, sendtype, Some((recvbuf, own, rt)))?
        };
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_gatherv(form, inp, sn, st, &rc, &rd, rt, root, c)?;
        let a = CollArgs {
            root,
            send: Some((sn, st)),
            recv: Some((0, rt)),
            in_place,
            rcounts: rc.clone(),
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Gatherv, c, a, id);
        Ok((id, unpack_blocks(rt, b, recvbuf)))
    })
}
coll_pair! { fn MPI_Gatherv / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, displs_: *const DisplT, recvtype: c_int, root: c_int, comm: c_int); fn MPI_Igatherv / c = gatherv; }
persistent_coll! { fn MPI_Gatherv_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, displs_: *const DisplT, recvtype: c_int, root: c_int, comm: c_int) = gatherv on comm; }

/// The receive side of a scatter: `None` for `MPI_IN_PLACE` at the root of
/// an intracommunicator, nothing at all at an intercommunicator's root group.
fn scatter_recv(
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    recvtype: c_int,
    at_root: bool,
    receives: bool,
) -> Result<ScatterRecv, MpiError> {
    if !receives || (at_root && is_in_place(recvbuf)) {
        return Ok(None);
    }
    Ok(Some((count_from(recvcount)?, datatype_from(recvtype)?)))
}

#[allow(clippy::too_many_arguments)]
unsafe fn scatter(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (root, at_root) = root_arg(e, c, root)?;
        let inter = e.comm_test_inter(c)?;
        let receives = !(inter && (root == ROOT_HERE || root == ROOT_NULL));
        let recv = scatter_recv(recvbuf, recvcount, recvtype, at_root, receives)?;
        let (src, sn, st): (&[u8], usize, DatatypeId) = if at_root {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (region(sendbuf, span(e, st, sn * peers(e, c)?)?), sn, st)
        } else {
            let t = recv.map_or(DatatypeId::Builtin(shim_engine::BuiltinType::Byte), |r| r.1);
            (&[], 0, t)
        };
        let id = e.start_scatter(form, src, sn, st, recv, root, c)?;
        let a = CollArgs {
            root,
            send: Some((sn, st)),
            recv,
            in_place: recv.is_none(),
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Scatter, c, a, id);
        let fin = match recv {
            Some((rn, rt)) => unpack_bytes(rt, rn, recvbuf),
            None => nothing(),
        };
        Ok((id, fin))
    })
}
coll_pair! { fn MPI_Scatter / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, root: c_int, comm: c_int); fn MPI_Iscatter / c = scatter; }
persistent_coll! { fn MPI_Scatter_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, root: c_int, comm: c_int) = scatter on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn scatterv(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcounts: *const impl CInt,
    displs_: *const impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: impl CInt,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (root, at_root) = root_arg(e, c, root)?;
        let inter = e.comm_test_inter(c)?;
        let receives = !(inter && (root == ROOT_HERE || root == ROOT_NULL));
        let recv = scatter_recv(recvbuf, recvcount, recvtype, at_root, receives)?;
        let id = if at_root {
            let st = datatype_from(sendtype)?;
            let b = blocks(peers(e, c)?, sendcounts, displs_)?;
            let (sc, sd) = split(&b);
            let src = region(sendbuf, e.datatypes().span_blocks(st, &b)?);
            let id = e.start_scatterv(form, src, &sc, &sd, st, recv, root, c)?;
            let a = CollArgs {
                root,
                send: Some((0, st)),
                recv,
                in_place: recv.is_none(),
                counts: sc.clone(),
                ..Default::default()
            };
            call_record::collective(e, func, form, CollKind::Scatterv, c, a, id);
            id
        } else {
            let t = recv.map_or(DatatypeId::Builtin(shim_engine::BuiltinType::Byte), |r| r.1);
            let id = e.start_scatterv(form, &[], &[], &[], t, recv, root, c)?;
            let a = CollArgs {
                root,
                send: Some((0, t)),
                recv,
                ..Default::default()
            };
            call_record::collective(e, func, form, CollKind::Scatterv, c, a, id);
            id
        };
        let fin = match recv {
            Some((rn, rt)) => unpack_bytes(rt, rn, recvbuf),
            None => nothing(),
        };
        Ok((id, fin))
    })
}
coll_pair! { fn MPI_Scatterv / c (sendbuf: *const c_void, sendcounts: *const CountT, displs_: *const DisplT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, root: c_int, comm: c_int); fn MPI_Iscatterv / c = scatterv; }
persistent_coll! { fn MPI_Scatterv_init / c (sendbuf: *const c_void, sendcounts: *const CountT, displs_: *const DisplT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, root: c_int, comm: c_int) = scatterv on comm; }

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
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (rt, rn) = (datatype_from(recvtype)?, count_from(recvcount)?);
        let total = rn * peers(e, c)?;
        let own = if e.comm_test_inter(c)? {
            None
        } else {
            Some((recvbuf as *const c_void, span(e, rt, total)?, rt))
        };
        let (inp, sn, st) = send_side(e, sendbuf, sendcount, sendtype, own)?;
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_allgather(form, inp, sn, st, rn, rt, c)?;
        let a = CollArgs {
            send: Some((sn, st)),
            recv: Some((rn, rt)),
            in_place,
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Allgather, c, a, id);
        Ok((id, unpack_bytes(rt, total, recvbuf)))
    })
}
coll_pair! { fn MPI_Allgather / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int); fn MPI_Iallgather / c = allgather; }
persistent_coll! { fn MPI_Allgather_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int) = allgather on comm; }

#[allow(clippy::too_many_arguments)]
unsafe fn allgatherv(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcount: impl CInt,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    displs_: *const impl CInt,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let rt = datatype_from(recvtype)?;
        let b = blocks(peers(e, c)?, recvcounts, displs_)?;
        let (rc, rd) = split(&b);
        let own = if e.comm_test_inter(c)? {
            None
        } else {
            let me = e.comm_rank(c)? as usize;
            Some((
                recvbuf as *const c_void,
                e.datatypes().span_blocks(rt, &[b[me]])?,
                rt,
            ))
        };
        let (inp, sn, st) = send_side(e, sendbuf, sendcount, sendtype, own)?;
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_allgatherv(form, inp, sn, st, &rc, &rd, rt, c)?;
        let a = CollArgs {
            send: Some((sn, st)),
            recv: Some((0, rt)),
            in_place,
            rcounts: rc.clone(),
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Allgatherv, c, a, id);
        Ok((id, unpack_blocks(rt, b, recvbuf)))
    })
}
coll_pair! { fn MPI_Allgatherv / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, displs_: *const DisplT, recvtype: c_int, comm: c_int); fn MPI_Iallgatherv / c = allgatherv; }
persistent_coll! { fn MPI_Allgatherv_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, displs_: *const DisplT, recvtype: c_int, comm: c_int) = allgatherv on comm; }

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
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let (rt, rn) = (datatype_from(recvtype)?, count_from(recvcount)?);
        let n = peers(e, c)?;
        let (inp, sn, st) = if is_in_place(sendbuf) {
            (
                CollInput::InPlace(region(recvbuf, span(e, rt, rn * n)?)),
                0,
                rt,
            )
        } else {
            let (st, sn) = (datatype_from(sendtype)?, count_from(sendcount)?);
            (
                CollInput::Buf(region(sendbuf, span(e, st, sn * n)?)),
                sn,
                st,
            )
        };
        let in_place = matches!(inp, CollInput::InPlace(_));
        let id = e.start_alltoall(form, inp, sn, st, rn, rt, c)?;
        let a = CollArgs {
            send: Some((sn, st)),
            recv: Some((rn, rt)),
            in_place,
            ..Default::default()
        };
        call_record::collective(e, func, form, CollKind::Alltoall, c, a, id);
        Ok((id, unpack_bytes(rt, rn * n, recvbuf)))
    })
}
coll_pair! { fn MPI_Alltoall / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int); fn MPI_Ialltoall / c = alltoall; }
persistent_coll! { fn MPI_Alltoall_init / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, comm: c_int) = alltoall on comm; }

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
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let n = peers(e, c)?;
        let rt = datatype_from(recvtype)?;
        let rb = blocks(n, recvcounts, rdispls)?;
        let (rc, rd) = split(&rb);
        let id = if is_in_place(sendbuf) {
            let inp = CollInput::InPlace(region(recvbuf, e.datatypes().span_blocks(rt, &rb)?));
            let id = e.start_alltoallv(form, inp, &rc, &rd, rt, &rc, &rd, rt, c)?;
            let a = CollArgs {
                send: Some((0, rt)),
                recv: Some((0, rt)),
                in_place: true,
                counts: rc.clone(),
                rcounts: rc.clone(),
                ..Default::default()
            };
            call_record::collective(e, func, form, CollKind::Alltoallv, c, a, id);
            id
        } else {
            let st = datatype_from(sendtype)?;
            let sb = blocks(n, sendcounts, sdispls)?;
            let (sc, sd) = split(&sb);
            let inp = CollInput::Buf(region(sendbuf, e.datatypes().span_blocks(st, &sb)?));
            let id = e.start_alltoallv(form, inp, &sc, &sd, st, &rc, &rd, rt, c)?;
            let a = CollArgs {
                send: Some((0, st)),
                recv: Some((0, rt)),
                counts: sc.clone(),
                rcounts: rc.clone(),
                ..Default::default()
            };
            call_record::collective(e, func, form, CollKind::Alltoallv, c, a, id);
            id
        };
        Ok((id, unpack_blocks(rt, rb, recvbuf)))
    })
}
coll_pair! { fn MPI_Alltoallv / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const DisplT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const DisplT, recvtype: c_int, comm: c_int); fn MPI_Ialltoallv / c = alltoallv; }
persistent_coll! { fn MPI_Alltoallv_init / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const DisplT, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const DisplT, recvtype: c_int, comm: c_int) = alltoallv on comm; }

/// The (byte displacement, count, datatype) blocks of a w-collective buffer.
unsafe fn w_blocks(
    n: usize,
    cnts: *const impl CInt,
    disps: *const impl CInt,
    tys: *const c_int,
) -> Result<Vec<(i64, usize, DatatypeId)>, MpiError> {
    Ok(displs(n, disps)?
        .into_iter()
        .zip(counts(n, cnts)?)
        .zip(types(n, tys)?)
        .map(|((d, k), t)| (d, k, t))
        .collect())
}

#[allow(clippy::too_many_arguments)]
unsafe fn alltoallw(
    func: &str,
    form: Form,
    sendbuf: *const c_void,
    sendcounts: *const impl CInt,
    sdispls: *const impl CInt,
    sendtypes: *const c_int,
    recvbuf: *mut c_void,
    recvcounts: *const impl CInt,
    rdispls: *const impl CInt,
    recvtypes: *const c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nbc::run(func, comm, form, request, |e, c| -> Started {
        let n = peers(e, c)?;
        let recv = w_blocks(n, recvcounts, rdispls, recvtypes)?;
        let rspan = e.datatypes().span_w(&recv)?;
        let (input, send) = if is_in_place(sendbuf) {
            (CollInput::InPlace(region(recvbuf, rspan)), Vec::new())
        } else {
            let send = w_blocks(n, sendcounts, sdispls, sendtypes)?;
            (
                CollInput::Buf(region(sendbuf, e.datatypes().span_w(&send)?)),
                send,
            )
        };
        let send = if send.is_empty() { recv.clone() } else { send };
        let args = AlltoallwArgs {
            input,
            send: &send,
            recv: &recv,
        };
        let id = e.start_alltoallw(form, &args, c)?;
        call_record::alltoallw(e, func, form, c, (&send, &recv), is_in_place(sendbuf), id);
        let buf = recvbuf as usize;
        let types = recv.iter().map(|b| b.2).collect();
        let deliver = Box::new(move |t: &Datatypes, out| {
            let CollOutput::Blocks(data) = out else {
                return Ok(());
            };
            let s = t.span_w(&recv)?;
            // SAFETY: the program keeps the receive buffer until completion.
            let mem = unsafe { region_mut(buf as *mut c_void, s) };
            for (&b, d) in recv.iter().zip(&data) {
                t.unpack_w(b, d, mem, s.base)?;
            }
            Ok(())
        });
        Ok((id, Some(CollFinish { types, deliver })))
    })
}
coll_pair! { fn MPI_Alltoallw / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const DisplT, sendtypes: *const c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const DisplT, recvtypes: *const c_int, comm: c_int); fn MPI_Ialltoallw / c = alltoallw; }
persistent_coll! { fn MPI_Alltoallw_init / c (sendbuf: *const c_void, sendcounts: *const CountT, sdispls: *const DisplT, sendtypes: *const c_int, recvbuf: *mut c_void, recvcounts: *const CountT, rdispls: *const DisplT, recvtypes: *const c_int, comm: c_int) = alltoallw on comm; }
