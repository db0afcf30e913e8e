//! Makes a recorded MPI call again on a replayed rank's engine, with
//! zero-filled buffers of the recorded sizes: the same engine code decides
//! matching, protocols and collective schedules as in the recording.

use super::transport::VirtualTransport;
use crate::error::Error;
use mpinetsim_protocol::trace_calls::{CallRecord, CollKind, CollRec, Done, OpRec, TypeRec};
use shim_engine::collectives::{AlltoallwArgs, CollInput, Form};
use shim_engine::mprobe::MessageId;
use shim_engine::replay_codes::{op_of_code, type_of_code};
use shim_engine::{
    BuiltinType, CommId, DatatypeId, Dest, Engine, OpId, RequestId, SendMode, Source, Tag,
};
use std::collections::HashMap;

type Eng<'y> = Engine<VirtualTransport<'y>>;

/// A replayed rank's names for the recording's objects.
#[derive(Default)]
pub struct Names {
    comms: HashMap<u32, CommId>,
    requests: HashMap<u32, RequestId>,
    /// Handles of persistent requests (they stay named after completing).
    persistent: std::collections::HashSet<u32>,
    /// Contiguous byte types standing for derived types, by size.
    derived: HashMap<u64, DatatypeId>,
    /// Operations that compute nothing, standing for user-defined ones, by
    /// commutativity.
    user_ops: HashMap<bool, OpId>,
    /// Messages found by matched probes and not received yet (None:
    /// `MPI_MESSAGE_NO_PROC`), by the recording's handle.
    messages: HashMap<u32, Option<MessageId>>,
    /// Handles of persistent collectives (a start of one is its
    /// [`CallRecord::CollStart`], not part of `MPI_Start`'s record).
    persistent_colls: std::collections::HashSet<u32>,
    /// The persistent collective the next nonblocking collective started
    /// completes (set by [`CallRecord::CollStart`]).
    binding: Option<RequestId>,
}

/// A recorded call the replay cannot make: one sentence.
fn bad(what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("the trace is inconsistent: {what}"))
}

impl Names {
    fn request(&self, handle: u32) -> Result<RequestId, Error> {
        self.requests.get(&handle).copied().ok_or_else(|| {
            bad(format!(
                "a call uses request {handle:#x}, which no recorded call made"
            ))
        })
    }

    fn comm(&self, recorded: u32) -> Result<CommId, Error> {
        if recorded == CommId::WORLD.0 {
            return Ok(CommId::WORLD);
        }
        if recorded == CommId::SELF.0 {
            return Ok(CommId::SELF);
        }
        self.comms.get(&recorded).copied().ok_or_else(|| {
            bad(format!(
                "a call uses communicator {recorded}, which no recorded call created"
            ))
        })
    }

    fn datatype(&mut self, e: &mut Eng<'_>, t: TypeRec) -> Result<DatatypeId, Error> {
        if let Some(b) = type_of_code(t.builtin) {
            return Ok(DatatypeId::Builtin(b));
        }
        if let Some(dt) = self.derived.get(&t.size) {
            return Ok(*dt);
        }
        let types = e.datatypes_mut();
        let dt = types
            .contiguous(t.size as usize, DatatypeId::Builtin(BuiltinType::Byte))
            .and_then(|dt| types.commit(dt).map(|_| dt))
            .map_err(|err| bad(format!("a datatype of {} bytes ({err:?})", t.size)))?;
        self.derived.insert(t.size, dt);
        Ok(dt)
    }

    fn op(&mut self, e: &mut Eng<'_>, op: OpRec, ty: TypeRec) -> OpId {
        match op_of_code(op.builtin) {
            // A predefined operation on a predefined type, as recorded.
            Some(b) if ty.builtin != 0 => OpId::Builtin(b),
            // On a derived type (replayed as bytes) or user-defined: an
            // operation that computes nothing, with the recorded
            // commutativity (it chooses the algorithm).
            _ => *self.user_ops.entry(op.commutative).or_insert_with(|| {
                e.ops_mut()
                    .create(Box::new(|_, _, _, _, _, _| {}), op.commutative)
            }),
        }
    }
}

impl Names {
    /// A nonblocking collective started with request `id`, recorded as
    /// handle `h`: the request of the persistent collective being started,
    /// if one is, else a request of its own.
    fn collective_started(&mut self, e: &mut Eng<'_>, h: u32, id: RequestId) -> Result<(), Error> {
        match self.binding.take() {
            Some(p) => e.bind_persistent_collective(p, id).map_err(|err| {
                bad(format!(
                    "a persistent collective's start failed in the replay ({err:?})"
                ))
            }),
            None => {
                self.requests.insert(h, id);
                Ok(())
            }
        }
    }
}

fn dest(peer: i32) -> Dest {
    if peer < 0 {
        Dest::ProcNull
    } else {
        Dest::Rank(peer as u32)
    }
}

fn source(peer: i32) -> Source {
    match peer {
        -2 => Source::Any,
        p if p < 0 => Source::ProcNull,
        p => Source::Rank(p as u32),
    }
}

fn tag(t: i32) -> Tag {
    if t < 0 {
        Tag::Any
    } else {
        Tag::Value(t)
    }
}

fn mode(m: u8) -> SendMode {
    match m {
        1 => SendMode::Synchronous,
        2 => SendMode::Buffered,
        3 => SendMode::Ready,
        _ => SendMode::Standard,
    }
}

/// A zero-filled buffer holding `count` elements of `dt` (its span: a
/// predefined pair type's extent exceeds its size).
fn zeros(e: &Eng<'_>, dt: DatatypeId, count: u64) -> Vec<u8> {
    let len = e.datatypes().span(dt, count as usize).map_or(0, |s| s.len);
    vec![0; len]
}

fn usizes(v: &[u64]) -> Vec<usize> {
    v.iter().map(|c| *c as usize).collect()
}

/// Displacements of blocks laid end to end.
fn packed_displs(counts: &[u64]) -> Vec<i64> {
    let mut at = 0i64;
    counts
        .iter()
        .map(|c| {
            let d = at;
            at += *c as i64;
            d
        })
        .collect()
}

/// Makes `call` on `e`; the error is one sentence.
pub fn make(e: &mut Eng<'_>, names: &mut Names, call: &CallRecord) -> Result<(), Error> {
    let mpi = |what: &str, err: shim_engine::MpiError| {
        bad(format!("{what} failed in the replay ({err:?})"))
    };
    match call {
        CallRecord::Start { .. } | CallRecord::Unsupported { .. } => {}
        CallRecord::Send {
            mode: m,
            comm,
            peer,
            tag: t,
            count,
            ty,
            req,
        } => {
            let (c, dt) = (names.comm(*comm)?, names.datatype(e, *ty)?);
            let buf = zeros(e, dt, *count);
            match req {
                None => e
                    .send(mode(*m), &buf, *count as usize, dt, dest(*peer), *t, c)
                    .map_err(|err| mpi("a send", err))?,
                Some(h) => {
                    let id = e
                        .isend(mode(*m), &buf, *count as usize, dt, dest(*peer), *t, c)
                        .map_err(|err| mpi("a nonblocking send", err))?;
                    names.requests.insert(*h, id);
                }
            }
        }
        CallRecord::Recv {
            comm,
            peer,
            tag: t,
            count,
            ty,
            req,
        } => {
            let (c, dt) = (names.comm(*comm)?, names.datatype(e, *ty)?);
            match req {
                None => {
                    e.recv(*count as usize, dt, source(*peer), tag(*t), c)
                        .map_err(|err| mpi("a receive", err))?;
                }
                Some(h) => {
                    let id = e
                        .irecv(*count as usize, dt, source(*peer), tag(*t), c)
                        .map_err(|err| mpi("a nonblocking receive", err))?;
                    names.requests.insert(*h, id);
                }
            }
        }
        CallRecord::Sendrecv { comm, send, recv } => {
            let c = names.comm(*comm)?;
            let (st, rt) = (names.datatype(e, send.3)?, names.datatype(e, recv.3)?);
            let buf = zeros(e, st, send.2);
            e.sendrecv(
                &buf,
                send.2 as usize,
                st,
                dest(send.0),
                send.1,
                recv.2 as usize,
                rt,
                source(recv.0),
                tag(recv.1),
                c,
            )
            .map_err(|err| mpi("a sendrecv", err))?;
        }
        CallRecord::Complete { done } => complete(e, names, done)?,
        CallRecord::Progress => {
            e.progress(false);
        }
        CallRecord::Persistent(op) => persistent(e, names, op)?,
        CallRecord::Neighbor {
            comm,
            call,
            send_bytes,
            recv_bytes,
            req,
        } => {
            let c = names.comm(*comm)?;
            let code = shim_engine::envelope::CallCode::from_u8(*call)
                .ok_or_else(|| bad(format!("a neighbourhood collective of unknown code {call}")))?;
            let blocks = send_bytes.iter().map(|n| vec![0; *n as usize]).collect();
            let want: Vec<usize> = recv_bytes.iter().map(|n| *n as usize).collect();
            let form = if req.is_some() {
                Form::Nonblocking
            } else {
                Form::Blocking
            };
            let id = e
                .start_neighbor_exchange(form, c, code, blocks, &want)
                .map_err(|err| mpi("a neighbourhood collective", err))?;
            match req {
                Some(h) => names.collective_started(e, *h, id)?,
                None => {
                    e.wait_collective(id)
                        .map_err(|err| mpi("a neighbourhood collective", err))?;
                }
            }
        }
        CallRecord::CommMake {
            how,
            comm,
            ints,
            new,
        } => {
            let c = names.comm(*comm)?;
            let made =
                comm_make(e, *how, c, ints).map_err(|err| mpi("a communicator's creation", err))?;
            if let Some(m) = made {
                names.comms.insert(*new, m);
            }
        }
        CallRecord::StartRequests { reqs } => {
            // Persistent collectives start at their CollStart records.
            for h in reqs.iter().filter(|h| !names.persistent_colls.contains(h)) {
                let id = names.request(*h)?;
                let len = match e.persistent_buffer(id) {
                    Some((count, dt)) => e.datatypes().span(dt, count).map_or(0, |s| s.len),
                    None => 0,
                };
                e.start(id, Some(&vec![0; len]))
                    .map_err(|err| mpi("MPI_Start", err))?;
            }
        }
        CallRecord::RequestFree { req } => {
            let id = names.request(*req)?;
            names.requests.remove(req);
            names.persistent.remove(req);
            names.persistent_colls.remove(req);
            e.request_free(id)
                .map_err(|err| mpi("MPI_Request_free", err))?;
        }
        CallRecord::Probe { comm, peer, tag: t } => {
            let c = names.comm(*comm)?;
            e.probe(source(*peer), tag(*t), c)
                .map_err(|err| mpi("a probe", err))?;
        }
        CallRecord::Mprobe {
            comm,
            peer,
            tag: t,
            message,
        } => {
            let c = names.comm(*comm)?;
            let (m, _) = e
                .mprobe(source(*peer), tag(*t), c)
                .map_err(|err| mpi("a matched probe", err))?;
            names.messages.insert(*message, m);
        }
        CallRecord::Mrecv {
            message,
            count,
            ty,
            req,
        } => {
            let m = names.messages.remove(message).ok_or_else(|| {
                bad(format!(
                    "a receive of message {message:#x}, which no recorded probe found"
                ))
            })?;
            let dt = names.datatype(e, *ty)?;
            let buf = zeros(e, dt, *count);
            let id = e
                .imrecv_into(m, Box::new(buf), *count as usize, dt)
                .map_err(|err| mpi("a matched receive", err))?;
            match req {
                Some(h) => {
                    names.requests.insert(*h, id);
                }
                None => {
                    e.wait(id).map_err(|err| mpi("MPI_Mrecv", err))?;
                }
            }
        }
        CallRecord::BufferAttach { size } => {
            // The address is never dereferenced: buffered data is packed
            // by the engine, which only accounts the space.
            e.buffer_attach(1, *size as usize)
                .map_err(|err| mpi("MPI_Buffer_attach", err))?;
        }
        CallRecord::BufferDetach => {
            e.buffer_detach()
                .map_err(|err| mpi("MPI_Buffer_detach", err))?;
        }
        CallRecord::Idup { comm, new, req } => {
            let c = names.comm(*comm)?;
            let (m, id) = e.comm_idup(c).map_err(|err| mpi("MPI_Comm_idup", err))?;
            names.comms.insert(*new, m);
            names.requests.insert(*req, id);
        }
        CallRecord::Alltoallw {
            comm,
            send_bytes,
            recv_bytes,
            in_place,
            req,
        } => alltoallw(e, names, *comm, (send_bytes, recv_bytes), *in_place, *req)?,
        CallRecord::PersistentColl { comm, req } => {
            let c = names.comm(*comm)?;
            // The replay starts the collective itself (at CollStart): the
            // engine's starter is never called.
            let id = e
                .persistent_collective(c, shim_engine::Opaque::new(()))
                .map_err(|err| mpi("a persistent collective's init", err))?;
            names.requests.insert(*req, id);
            names.persistent.insert(*req);
            names.persistent_colls.insert(*req);
        }
        CallRecord::CollStart { req } => {
            let id = names.request(*req)?;
            e.collective_starter(id)
                .map_err(|err| mpi("a persistent collective's start", err))?;
            names.binding = Some(id);
        }
        CallRecord::Cancel { req } => {
            let id = names.request(*req)?;
            e.cancel(id).map_err(|err| mpi("MPI_Cancel", err))?;
        }
        CallRecord::Coll(c) => collective(e, names, c)?,
        CallRecord::Split {
            comm,
            color,
            key,
            new,
        } => {
            let c = names.comm(*comm)?;
            // MPICH's MPI_UNDEFINED.
            let colour = (*color != -32766).then_some(*color);
            let made = e
                .comm_split(c, colour, *key)
                .map_err(|err| mpi("MPI_Comm_split", err))?;
            if let Some(m) = made {
                names.comms.insert(*new, m);
            }
        }
        CallRecord::Dup { comm, new } => {
            let c = names.comm(*comm)?;
            let m = e.comm_dup(c).map_err(|err| mpi("MPI_Comm_dup", err))?;
            names.comms.insert(*new, m);
        }
        CallRecord::CommFree { comm } => {
            let c = names.comm(*comm)?;
            e.comm_free(c).map_err(|err| mpi("MPI_Comm_free", err))?;
            names.comms.remove(comm);
        }
    }
    Ok(())
}

/// Makes a communicator from `c` as a [`CallRecord::CommMake`] says.
fn comm_make(
    e: &mut Eng<'_>,
    how: u8,
    c: CommId,
    ints: &[i32],
) -> Result<Option<CommId>, shim_engine::MpiError> {
    use mpinetsim_protocol::trace_calls as tc;
    use shim_engine::comm_create::SplitType;
    // A group of world ranks, made from the world's group.
    let group_of = |e: &mut Eng<'_>, members: &[i32]| {
        let world = e.comm_group(CommId::WORLD)?;
        let ranks: Vec<u32> = members.iter().map(|&w| w as u32).collect();
        let g = e.group_incl(world, &ranks);
        e.group_free(world)?;
        g
    };
    match how {
        tc::COMM_MAKE_CART => {
            let n = ints.len() / 2;
            let periods: Vec<bool> = ints[n..].iter().map(|&p| p != 0).collect();
            e.cart_create(c, &ints[..n], &periods)
        }
        tc::COMM_MAKE_CART_SUB => {
            let remain: Vec<bool> = ints.iter().map(|&r| r != 0).collect();
            e.cart_sub(c, &remain)
        }
        tc::COMM_MAKE_FROM_GROUP => {
            let g = group_of(e, ints)?;
            let r = e.start_comm_create(c, g)?;
            let made = e.wait_comm(r);
            e.group_free(g)?;
            made
        }
        tc::COMM_MAKE_FROM_GROUP_TAGGED => {
            let (tag, members) = ints.split_first().ok_or(shim_engine::MpiError::Arg)?;
            let g = group_of(e, members)?;
            let r = e.start_comm_create_group(c, g, *tag)?;
            let made = e.wait_comm(r);
            e.group_free(g)?;
            made
        }
        tc::COMM_MAKE_SPLIT_TYPE => {
            let kind = match ints.first() {
                Some(0) => SplitType::Shared,
                Some(2) => SplitType::Unanimous(ints.get(1).copied().unwrap_or(0)),
                _ => SplitType::Undefined,
            };
            let key = ints.get(2).copied().unwrap_or(0);
            let r = e.start_comm_split_type(c, kind, key)?;
            e.wait_comm(r)
        }
        tc::COMM_MAKE_GRAPH => {
            let (n, rest) = ints.split_first().ok_or(shim_engine::MpiError::Arg)?;
            let n = (*n).max(0) as usize;
            let (index, edges) = rest.split_at(n.min(rest.len()));
            e.graph_create(c, index, edges)
        }
        tc::COMM_MAKE_DIST_GRAPH_ADJACENT => {
            let [ni, no, weighted, rest @ ..] = ints else {
                return Err(shim_engine::MpiError::Arg);
            };
            let (ni, no) = ((*ni).max(0) as usize, (*no).max(0) as usize);
            let part = |from: usize, len: usize| {
                rest.get(from..from + len).ok_or(shim_engine::MpiError::Arg)
            };
            let (s, d) = (part(0, ni)?, part(ni, no)?);
            let w = if *weighted != 0 {
                Some((part(ni + no, ni)?, part(2 * ni + no, no)?))
            } else {
                None
            };
            e.dist_graph_create_adjacent(c, s, d, w).map(Some)
        }
        tc::COMM_MAKE_DIST_GRAPH => {
            let [k, weighted, rest @ ..] = ints else {
                return Err(shim_engine::MpiError::Arg);
            };
            let k = (*k).max(0) as usize;
            let part = |from: usize, len: usize| {
                rest.get(from..from + len).ok_or(shim_engine::MpiError::Arg)
            };
            let (s, deg) = (part(0, k)?, part(k, k)?);
            let total: usize = deg.iter().map(|d| (*d).max(0) as usize).sum();
            let d = part(2 * k, total)?;
            let w = if *weighted != 0 {
                Some(part(2 * k + total, total)?)
            } else {
                None
            };
            e.dist_graph_create(c, s, deg, d, w).map(Some)
        }
        _ => Err(shim_engine::MpiError::Arg),
    }
}

/// Makes a persistent send or receive (`op` names its request).
fn persistent(e: &mut Eng<'_>, names: &mut Names, op: &CallRecord) -> Result<(), Error> {
    let mpi = |err: shim_engine::MpiError| {
        bad(format!(
            "a persistent request failed in the replay ({err:?})"
        ))
    };
    let (h, id) = match op {
        CallRecord::Send {
            mode: m,
            comm,
            peer,
            tag: t,
            count,
            ty,
            req: Some(h),
        } => {
            let (c, dt) = (names.comm(*comm)?, names.datatype(e, *ty)?);
            (
                *h,
                e.send_init(mode(*m), *count as usize, dt, dest(*peer), *t, c)
                    .map_err(mpi)?,
            )
        }
        CallRecord::Recv {
            comm,
            peer,
            tag: t,
            count,
            ty,
            req: Some(h),
        } => {
            let (c, dt) = (names.comm(*comm)?, names.datatype(e, *ty)?);
            (
                *h,
                e.recv_init(*count as usize, dt, source(*peer), tag(*t), c)
                    .map_err(mpi)?,
            )
        }
        _ => return Err(bad("a persistent request that is not a send or receive")),
    };
    names.requests.insert(h, id);
    names.persistent.insert(h);
    Ok(())
}

/// Waits for the requests the program saw complete.
fn complete(e: &mut Eng<'_>, names: &mut Names, done: &[Done]) -> Result<(), Error> {
    let ids = done
        .iter()
        .map(|d| {
            let id = if names.persistent.contains(&d.req) {
                names.requests.get(&d.req).copied()
            } else {
                names.requests.remove(&d.req)
            };
            id.map(Some).ok_or_else(|| {
                bad(format!(
                    "request {:#x} completes without having started",
                    d.req
                ))
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    e.waitall(&ids)
        .map_err(|err| bad(format!("a wait failed in the replay ({err:?})")))?;
    Ok(())
}

/// Makes an `MPI_Alltoallw` (blocking when `req` is None) of the recorded
/// packed bytes per member, as blocks of bytes laid end to end.
fn alltoallw(
    e: &mut Eng<'_>,
    names: &mut Names,
    comm: u32,
    (send_bytes, recv_bytes): (&[u64], &[u64]),
    in_place: bool,
    req: Option<u32>,
) -> Result<(), Error> {
    let c = names.comm(comm)?;
    let byte = DatatypeId::Builtin(BuiltinType::Byte);
    let blocks = |bytes: &[u64]| -> Vec<(i64, usize, DatatypeId)> {
        bytes
            .iter()
            .zip(packed_displs(bytes))
            .map(|(n, d)| (d, *n as usize, byte))
            .collect()
    };
    let (send, recv) = (blocks(send_bytes), blocks(recv_bytes));
    let total = |bytes: &[u64]| vec![0u8; bytes.iter().sum::<u64>() as usize];
    let (sbuf, rbuf) = (total(send_bytes), total(recv_bytes));
    let args = AlltoallwArgs {
        input: if in_place {
            CollInput::InPlace(&rbuf)
        } else {
            CollInput::Buf(&sbuf)
        },
        send: if in_place { &recv } else { &send },
        recv: &recv,
    };
    let form = if req.is_some() {
        Form::Nonblocking
    } else {
        Form::Blocking
    };
    let failed = |err| bad(format!("MPI_Alltoallw failed in the replay ({err:?})"));
    let id = e.start_alltoallw(form, &args, c).map_err(failed)?;
    match req {
        Some(h) => names.collective_started(e, h, id)?,
        None => {
            e.wait_collective(id).map_err(failed)?;
        }
    }
    Ok(())
}

fn collective(e: &mut Eng<'_>, names: &mut Names, c: &CollRec) -> Result<(), Error> {
    let comm = names.comm(c.comm)?;
    let size = e.comm_size(comm).map_err(|err| bad(format!("{err:?}")))? as u64;
    let me = e.comm_rank(comm).map_err(|err| bad(format!("{err:?}")))?;
    let is_root = me == c.root;
    let (st, rt) = (names.datatype(e, c.ty)?, names.datatype(e, c.rty)?);
    let op = names.op(e, c.op, c.ty);
    let (n, rn) = (c.count as usize, c.rcount as usize);
    let failed =
        |err: shim_engine::MpiError| bad(format!("{:?} failed in the replay ({err:?})", c.kind));
    // The send buffer, or for MPI_IN_PLACE the receive region it stands for.
    let send = zeros(e, st, c.count);
    let in_place = c.in_place;
    fn wrap(in_place: bool, b: &[u8]) -> CollInput<'_> {
        if in_place {
            CollInput::InPlace(b)
        } else {
            CollInput::Buf(b)
        }
    }
    let form = if c.req.is_some() {
        Form::Nonblocking
    } else {
        Form::Blocking
    };
    let id = match c.kind {
        CollKind::Barrier => e.start_barrier(form, comm).map_err(failed)?,
        CollKind::Bcast => e
            .start_bcast(form, &send, n, st, c.root, comm)
            .map_err(failed)?,
        CollKind::Reduce => e
            .start_reduce(form, wrap(in_place, &send), n, st, op, c.root, comm)
            .map_err(failed)?,
        CollKind::Allreduce => e
            .start_allreduce(form, wrap(in_place, &send), n, st, op, comm)
            .map_err(failed)?,
        CollKind::Scan => e
            .start_scan(form, wrap(in_place, &send), n, st, op, comm)
            .map_err(failed)?,
        CollKind::Exscan => e
            .start_exscan(form, wrap(in_place, &send), n, st, op, comm)
            .map_err(failed)?,
        CollKind::ReduceScatterBlock => {
            let b = zeros(e, st, c.count * size);
            e.start_reduce_scatter_block(form, wrap(in_place, &b), n, st, op, comm)
                .map_err(failed)?
        }
        CollKind::ReduceScatter => {
            let total: u64 = c.rcounts.iter().sum();
            let b = zeros(e, st, total);
            e.start_reduce_scatter(form, wrap(in_place, &b), &usizes(&c.rcounts), st, op, comm)
                .map_err(failed)?
        }
        CollKind::Alltoall => {
            let b = if c.in_place {
                zeros(e, rt, c.rcount * size)
            } else {
                zeros(e, st, c.count * size)
            };
            e.start_alltoall(form, wrap(in_place, &b), n, st, rn, rt, comm)
                .map_err(failed)?
        }
        CollKind::Alltoallv => {
            let b = if c.in_place {
                zeros(e, rt, c.rcounts.iter().sum())
            } else {
                zeros(e, st, c.counts.iter().sum())
            };
            e.start_alltoallv(
                form,
                wrap(in_place, &b),
                &usizes(&c.counts),
                &packed_displs(&c.counts),
                st,
                &usizes(&c.rcounts),
                &packed_displs(&c.rcounts),
                rt,
                comm,
            )
            .map_err(failed)?
        }
        CollKind::Allgather => {
            let b = if c.in_place {
                zeros(e, rt, c.rcount * size)
            } else {
                send.clone()
            };
            e.start_allgather(form, wrap(in_place, &b), n, st, rn, rt, comm)
                .map_err(failed)?
        }
        CollKind::Allgatherv => {
            let b = if c.in_place {
                zeros(e, rt, c.rcounts.iter().sum())
            } else {
                send.clone()
            };
            e.start_allgatherv(
                form,
                wrap(in_place, &b),
                n,
                st,
                &usizes(&c.rcounts),
                &packed_displs(&c.rcounts),
                rt,
                comm,
            )
            .map_err(failed)?
        }
        CollKind::Gather => {
            let b = if c.in_place && is_root {
                zeros(e, rt, c.rcount * size)
            } else {
                send.clone()
            };
            let input = if c.in_place && is_root {
                CollInput::InPlace(&b)
            } else {
                CollInput::Buf(&b)
            };
            e.start_gather(form, input, n, st, rn, rt, c.root, comm)
                .map_err(failed)?
        }
        CollKind::Gatherv => {
            let b = if c.in_place && is_root {
                zeros(e, rt, c.rcounts.iter().sum())
            } else {
                send.clone()
            };
            let input = if c.in_place && is_root {
                CollInput::InPlace(&b)
            } else {
                CollInput::Buf(&b)
            };
            e.start_gatherv(
                form,
                input,
                n,
                st,
                &usizes(&c.rcounts),
                &packed_displs(&c.rcounts),
                rt,
                c.root,
                comm,
            )
            .map_err(failed)?
        }
        CollKind::Scatter => {
            let b = if is_root {
                zeros(e, st, c.count * size)
            } else {
                Vec::new()
            };
            let recv = (!(c.in_place && is_root)).then_some((rn, rt));
            e.start_scatter(form, &b, n, st, recv, c.root, comm)
                .map_err(failed)?
        }
        CollKind::Scatterv => {
            let b = if is_root {
                zeros(e, st, c.counts.iter().sum())
            } else {
                Vec::new()
            };
            let recv = (!(c.in_place && is_root)).then_some((rn, rt));
            e.start_scatterv(
                form,
                &b,
                &usizes(&c.counts),
                &packed_displs(&c.counts),
                st,
                recv,
                c.root,
                comm,
            )
            .map_err(failed)?
        }
    };
    match c.req {
        Some(h) => names.collective_started(e, h, id)?,
        None => {
            e.wait_collective(id).map_err(failed)?;
        }
    }
    Ok(())
}
