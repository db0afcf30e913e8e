//! The MPI calls of a recorded rank, as a replay through the MPI engine
//! needs them (trace event kind 5, see docs/trace-format.md).
//!
//! A message-level trace fixes the order of the messages as the recording
//! network produced it; replaying the program's calls through the engine
//! instead lets matching, rendezvous and collective schedules decide again
//! on the replay network. A call record keeps what the engine needs to make
//! the same call — communicator, peer, tag, sizes, the datatype's size and
//! predefined kind, the reduction, the request — and, for receives, the
//! source and tag that were actually matched, so wildcard receives match
//! the same messages. Buffer contents are not kept.
//!
//! Identifiers are the recording engine's: a communicator by its engine
//! number, a request by its handle. A replay maps them to its own.

use crate::trace::Reader;

/// A datatype as a replay needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TypeRec {
    /// 1 + the predefined type's index in the engine's list of predefined
    /// types; 0 for a derived type (replayed as contiguous bytes).
    pub builtin: u16,
    /// The type's size, bytes.
    pub size: u64,
}

/// A reduction as a replay needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OpRec {
    /// 1 + the predefined operation's index in the engine's list; 0 for a
    /// user-defined one (replayed as an operation that computes nothing).
    pub builtin: u8,
    /// Whether the operation is commutative (it chooses the algorithm).
    pub commutative: bool,
}

/// A request the program saw complete, and for a receive what it matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    /// The request's handle.
    pub req: u32,
    /// The matched source (a receive; the communicator's rank), else -1.
    pub peer: i32,
    /// The matched tag (a receive), else -1.
    pub tag: i32,
}

/// The collectives a replay makes (blocking and nonblocking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum CollKind {
    /// MPI_Barrier.
    Barrier = 1,
    /// MPI_Bcast.
    Bcast,
    /// MPI_Reduce.
    Reduce,
    /// MPI_Allreduce.
    Allreduce,
    /// MPI_Alltoall.
    Alltoall,
    /// MPI_Alltoallv.
    Alltoallv,
    /// MPI_Allgather.
    Allgather,
    /// MPI_Allgatherv.
    Allgatherv,
    /// MPI_Gather.
    Gather,
    /// MPI_Gatherv.
    Gatherv,
    /// MPI_Scatter.
    Scatter,
    /// MPI_Scatterv.
    Scatterv,
    /// MPI_Reduce_scatter.
    ReduceScatter,
    /// MPI_Reduce_scatter_block.
    ReduceScatterBlock,
    /// MPI_Scan.
    Scan,
    /// MPI_Exscan.
    Exscan,
}

impl CollKind {
    /// Every kind, in code order.
    pub const ALL: [CollKind; 16] = [
        CollKind::Barrier,
        CollKind::Bcast,
        CollKind::Reduce,
        CollKind::Allreduce,
        CollKind::Alltoall,
        CollKind::Alltoallv,
        CollKind::Allgather,
        CollKind::Allgatherv,
        CollKind::Gather,
        CollKind::Gatherv,
        CollKind::Scatter,
        CollKind::Scatterv,
        CollKind::ReduceScatter,
        CollKind::ReduceScatterBlock,
        CollKind::Scan,
        CollKind::Exscan,
    ];

    fn from_code(code: u8) -> Option<CollKind> {
        CollKind::ALL
            .get(usize::from(code).checked_sub(1)?)
            .copied()
    }
}

/// One collective call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollRec {
    /// Which collective.
    pub kind: CollKind,
    /// The communicator (recording engine's number).
    pub comm: u32,
    /// The root (rooted collectives), else 0.
    pub root: u32,
    /// Send count (elements of `ty`); the count of one-buffer calls.
    pub count: u64,
    /// Send datatype; the datatype of one-buffer calls.
    pub ty: TypeRec,
    /// Receive count (elements of `rty`) where the call has one.
    pub rcount: u64,
    /// Receive datatype where the call has one.
    pub rty: TypeRec,
    /// The reduction (reductions only).
    pub op: OpRec,
    /// The call passed `MPI_IN_PLACE`.
    pub in_place: bool,
    /// Per-rank send counts (the `v` forms; empty otherwise).
    pub counts: Vec<u64>,
    /// Per-rank receive counts (the `v` forms and reduce-scatter).
    pub rcounts: Vec<u64>,
    /// The request handle of a nonblocking collective (None: blocking).
    pub req: Option<u32>,
}

/// One MPI call of a rank, as the engine replay makes it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallRecord {
    /// The engine's settings (recorded once, at MPI_Init).
    Start {
        /// Messages with more payload bytes use rendezvous.
        eager_limit: u64,
        /// Largest piece of rendezvous data per message, bytes.
        rendezvous_chunk: u64,
    },
    /// A send: blocking when `req` is None, else nonblocking with that
    /// request handle.
    Send {
        /// 0 standard, 1 synchronous, 2 buffered, 3 ready.
        mode: u8,
        /// Communicator.
        comm: u32,
        /// Destination rank in the communicator (-1: MPI_PROC_NULL).
        peer: i32,
        /// Tag.
        tag: i32,
        /// Elements of `ty`.
        count: u64,
        /// Datatype.
        ty: TypeRec,
        /// The request handle of a nonblocking send.
        req: Option<u32>,
    },
    /// A receive: blocking when `req` is None (source and tag as matched),
    /// else nonblocking (source and tag as posted; the match is in the
    /// request's [`Done`]).
    Recv {
        /// Communicator.
        comm: u32,
        /// Source rank (-1: MPI_PROC_NULL, -2: MPI_ANY_SOURCE).
        peer: i32,
        /// Tag (-1: MPI_ANY_TAG).
        tag: i32,
        /// Elements of `ty` the buffer holds.
        count: u64,
        /// Datatype.
        ty: TypeRec,
        /// The request handle of a nonblocking receive.
        req: Option<u32>,
    },
    /// MPI_Sendrecv (and _replace), with the source and tag matched.
    Sendrecv {
        /// Communicator.
        comm: u32,
        /// Destination, tag, count and type of the send.
        send: (i32, i32, u64, TypeRec),
        /// Source, tag (as matched), count and type of the receive.
        recv: (i32, i32, u64, TypeRec),
    },
    /// Requests completed for the program (a wait, or a test that said so).
    Complete {
        /// The requests, in the order the call reported them.
        done: Vec<Done>,
    },
    /// A test that completed nothing: the library progressed.
    Progress,
    /// A collective on an intracommunicator.
    Coll(CollRec),
    /// MPI_Comm_split.
    Split {
        /// The communicator split.
        comm: u32,
        /// Colour (MPI_UNDEFINED is MPICH's -32766).
        color: i32,
        /// Key.
        key: i32,
        /// The new communicator's number (u32::MAX: MPI_COMM_NULL).
        new: u32,
    },
    /// MPI_Comm_dup.
    Dup {
        /// The communicator duplicated.
        comm: u32,
        /// The new communicator's number.
        new: u32,
    },
    /// MPI_Comm_free.
    CommFree {
        /// The communicator freed.
        comm: u32,
    },
    /// A probe that found a message (`MPI_Probe`, or `MPI_Iprobe` that
    /// said yes; an `MPI_Iprobe` that found nothing is [`CallRecord::Progress`]).
    Probe {
        /// Communicator.
        comm: u32,
        /// The source of the message found.
        peer: i32,
        /// Its tag.
        tag: i32,
    },
    /// A persistent request (`MPI_Send_init` and its modes, `MPI_Recv_init`)
    /// made with the arguments of the [`CallRecord::Send`] or
    /// [`CallRecord::Recv`] inside, which names its request.
    Persistent(Box<CallRecord>),
    /// `MPI_Start` or `MPI_Startall` of persistent requests.
    StartRequests {
        /// Their handles, in order.
        reqs: Vec<u32>,
    },
    /// A communicator made from another by a topology or a group.
    CommMake {
        /// How: [`COMM_MAKE_CART`], [`COMM_MAKE_CART_SUB`],
        /// [`COMM_MAKE_FROM_GROUP`], [`COMM_MAKE_FROM_GROUP_TAGGED`] or
        /// [`COMM_MAKE_SPLIT_TYPE`].
        how: u8,
        /// The communicator it was made from.
        comm: u32,
        /// Its arguments: the dimensions then the periods (0 or 1) of a
        /// Cartesian grid; the dimensions kept (0 or 1) of a sub-grid; the
        /// world ranks of the group (after the tag for
        /// `MPI_Comm_create_group`); the split kind (0 shared, 1 none, 2
        /// unanimous colour), the colour and the key of a split by type.
        ints: Vec<i32>,
        /// The new communicator's number (u32::MAX: MPI_COMM_NULL).
        new: u32,
    },
    /// A neighbourhood collective (`MPI_Neighbor_*`, `MPI_Ineighbor_*`).
    Neighbor {
        /// The communicator (with a topology).
        comm: u32,
        /// The engine's call code of the routine.
        call: u8,
        /// Packed bytes sent to each out-neighbour.
        send_bytes: Vec<u64>,
        /// Packed bytes expected from each in-neighbour.
        recv_bytes: Vec<u64>,
        /// The request handle of the nonblocking form (None: blocking).
        req: Option<u32>,
    },
    /// `MPI_Request_free`.
    RequestFree {
        /// The request's handle.
        req: u32,
    },
    /// A matched probe that found a message (`MPI_Mprobe`, or
    /// `MPI_Improbe` that said yes; one that found nothing is
    /// [`CallRecord::Progress`]).
    Mprobe {
        /// Communicator.
        comm: u32,
        /// The source of the message found (-1: MPI_PROC_NULL).
        peer: i32,
        /// Its tag.
        tag: i32,
        /// The message handle the program got.
        message: u32,
    },
    /// The receive of a probed message (`MPI_Mrecv`: blocking when `req`
    /// is None; `MPI_Imrecv` with that request handle).
    Mrecv {
        /// The message handle an [`CallRecord::Mprobe`] named.
        message: u32,
        /// Elements of `ty` the buffer holds.
        count: u64,
        /// Datatype.
        ty: TypeRec,
        /// The request handle of `MPI_Imrecv`.
        req: Option<u32>,
    },
    /// `MPI_Buffer_attach`: the buffer buffered sends use, by size.
    BufferAttach {
        /// Bytes attached.
        size: u64,
    },
    /// `MPI_Buffer_detach`: waits until every buffered message has left.
    BufferDetach,
    /// `MPI_Comm_idup` (and `_with_info`).
    Idup {
        /// The communicator duplicated.
        comm: u32,
        /// The new communicator's number.
        new: u32,
        /// The request handle that completes the duplication.
        req: u32,
    },
    /// `MPI_Alltoallw` or `MPI_Ialltoallw` on an intracommunicator, by the
    /// packed bytes of each block (a replay sends them as bytes).
    Alltoallw {
        /// Communicator.
        comm: u32,
        /// Packed bytes sent to each member.
        send_bytes: Vec<u64>,
        /// Packed bytes received from each member.
        recv_bytes: Vec<u64>,
        /// The call passed `MPI_IN_PLACE`.
        in_place: bool,
        /// The request handle of the nonblocking form (None: blocking).
        req: Option<u32>,
    },
    /// A persistent collective made (`MPI_Bcast_init` and the other
    /// `MPI_<collective>_init`): its place among the communicator's
    /// collectives is taken now, whatever order the ranks start it in.
    PersistentColl {
        /// Communicator.
        comm: u32,
        /// The persistent request's handle.
        req: u32,
    },
    /// A start of the persistent collective `req` (inside `MPI_Start` or
    /// `MPI_Startall`, after their [`CallRecord::StartRequests`]): the
    /// record of the nonblocking collective it began follows, and that
    /// collective completes the persistent request.
    CollStart {
        /// The persistent request's handle.
        req: u32,
    },
    /// `MPI_Cancel` of a request (its wait or test follows, as recorded).
    Cancel {
        /// The request's handle.
        req: u32,
    },
    /// A call the engine replay does not make: the trace is replayed at the
    /// level of its messages instead.
    Unsupported {
        /// The routine's name.
        name: String,
    },
}

const START: u8 = 1;
const SEND: u8 = 2;
const RECV: u8 = 3;
const SENDRECV: u8 = 4;
const COMPLETE: u8 = 5;
const PROGRESS: u8 = 6;
const COLL: u8 = 7;
const SPLIT: u8 = 8;
const DUP: u8 = 9;
const COMM_FREE: u8 = 10;
const UNSUPPORTED: u8 = 11;
const PROBE: u8 = 12;
const PERSISTENT: u8 = 13;
const START_REQUESTS: u8 = 14;
const REQUEST_FREE: u8 = 15;
const COMM_MAKE: u8 = 16;

/// [`CallRecord::CommMake`] of `MPI_Cart_create`.
pub const COMM_MAKE_CART: u8 = 1;
/// [`CallRecord::CommMake`] of `MPI_Cart_sub`.
pub const COMM_MAKE_CART_SUB: u8 = 2;
/// [`CallRecord::CommMake`] of `MPI_Comm_create`.
pub const COMM_MAKE_FROM_GROUP: u8 = 3;
/// [`CallRecord::CommMake`] of `MPI_Comm_create_group`.
pub const COMM_MAKE_FROM_GROUP_TAGGED: u8 = 4;
/// [`CallRecord::CommMake`] of `MPI_Comm_split_type`.
pub const COMM_MAKE_SPLIT_TYPE: u8 = 5;
/// [`CallRecord::CommMake`] of `MPI_Graph_create`: the node count, the
/// index array, the edges.
pub const COMM_MAKE_GRAPH: u8 = 6;
/// [`CallRecord::CommMake`] of `MPI_Dist_graph_create_adjacent`: the
/// in-degree, the out-degree, whether weighted (0 or 1), the sources, the
/// destinations, then (weighted) the sources' and destinations' weights.
pub const COMM_MAKE_DIST_GRAPH_ADJACENT: u8 = 7;
/// [`CallRecord::CommMake`] of `MPI_Dist_graph_create`: the source count,
/// whether weighted, the sources, the degrees, the destinations, then
/// (weighted) the weights.
pub const COMM_MAKE_DIST_GRAPH: u8 = 8;
const NEIGHBOR: u8 = 17;
const MPROBE: u8 = 18;
const MRECV: u8 = 19;
const BUFFER_ATTACH: u8 = 20;
const BUFFER_DETACH: u8 = 21;
const IDUP: u8 = 22;
const ALLTOALLW: u8 = 23;
const PERSISTENT_COLL: u8 = 24;
const COLL_START: u8 = 25;
const CANCEL: u8 = 26;

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_type(out: &mut Vec<u8>, t: &TypeRec) {
    out.extend_from_slice(&t.builtin.to_le_bytes());
    put_u64(out, t.size);
}
fn put_req(out: &mut Vec<u8>, req: Option<u32>) {
    match req {
        Some(r) => {
            out.push(1);
            put_u32(out, r);
        }
        None => out.push(0),
    }
}
fn put_counts(out: &mut Vec<u8>, v: &[u64]) {
    put_u32(out, v.len() as u32);
    for c in v {
        put_u64(out, *c);
    }
}

fn get_type(r: &mut Reader<'_>) -> Result<TypeRec, String> {
    let builtin = u16::from_le_bytes(r.bytes(2)?.try_into().unwrap());
    Ok(TypeRec {
        builtin,
        size: r.u64()?,
    })
}
fn get_req(r: &mut Reader<'_>) -> Result<Option<u32>, String> {
    Ok(match r.u8()? {
        0 => None,
        _ => Some(r.u32()?),
    })
}
fn get_counts(r: &mut Reader<'_>) -> Result<Vec<u64>, String> {
    let n = r.u32()? as usize;
    // Each count is 8 bytes: a length beyond what is left is a bad record.
    if n > r.left() / 8 {
        return Err("a truncated event".into());
    }
    (0..n).map(|_| r.u64()).collect()
}

impl CallRecord {
    /// Appends the record's encoding (after the event kind) to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            CallRecord::Start {
                eager_limit,
                rendezvous_chunk,
            } => {
                out.push(START);
                put_u64(out, *eager_limit);
                put_u64(out, *rendezvous_chunk);
            }
            CallRecord::Send {
                mode,
                comm,
                peer,
                tag,
                count,
                ty,
                req,
            } => {
                out.push(SEND);
                out.push(*mode);
                put_u32(out, *comm);
                put_i32(out, *peer);
                put_i32(out, *tag);
                put_u64(out, *count);
                put_type(out, ty);
                put_req(out, *req);
            }
            CallRecord::Recv {
                comm,
                peer,
                tag,
                count,
                ty,
                req,
            } => {
                out.push(RECV);
                put_u32(out, *comm);
                put_i32(out, *peer);
                put_i32(out, *tag);
                put_u64(out, *count);
                put_type(out, ty);
                put_req(out, *req);
            }
            CallRecord::Sendrecv { comm, send, recv } => {
                out.push(SENDRECV);
                put_u32(out, *comm);
                for (peer, tag, count, ty) in [send, recv] {
                    put_i32(out, *peer);
                    put_i32(out, *tag);
                    put_u64(out, *count);
                    put_type(out, ty);
                }
            }
            CallRecord::Complete { done } => {
                out.push(COMPLETE);
                put_u32(out, done.len() as u32);
                for d in done {
                    put_u32(out, d.req);
                    put_i32(out, d.peer);
                    put_i32(out, d.tag);
                }
            }
            CallRecord::Progress => out.push(PROGRESS),
            CallRecord::Coll(c) => {
                out.push(COLL);
                out.push(c.kind as u8);
                put_u32(out, c.comm);
                put_u32(out, c.root);
                put_u64(out, c.count);
                put_type(out, &c.ty);
                put_u64(out, c.rcount);
                put_type(out, &c.rty);
                out.push(c.op.builtin);
                out.push(c.op.commutative as u8 | (c.in_place as u8) << 1);
                put_counts(out, &c.counts);
                put_counts(out, &c.rcounts);
                put_req(out, c.req);
            }
            CallRecord::Split {
                comm,
                color,
                key,
                new,
            } => {
                out.push(SPLIT);
                put_u32(out, *comm);
                put_i32(out, *color);
                put_i32(out, *key);
                put_u32(out, *new);
            }
            CallRecord::Dup { comm, new } => {
                out.push(DUP);
                put_u32(out, *comm);
                put_u32(out, *new);
            }
            CallRecord::CommFree { comm } => {
                out.push(COMM_FREE);
                put_u32(out, *comm);
            }
            CallRecord::Persistent(op) => {
                out.push(PERSISTENT);
                op.encode(out);
            }
            CallRecord::StartRequests { reqs } => {
                out.push(START_REQUESTS);
                put_u32(out, reqs.len() as u32);
                for r in reqs {
                    put_u32(out, *r);
                }
            }
            CallRecord::CommMake {
                how,
                comm,
                ints,
                new,
            } => {
                out.push(COMM_MAKE);
                out.push(*how);
                put_u32(out, *comm);
                put_u32(out, ints.len() as u32);
                for v in ints {
                    put_i32(out, *v);
                }
                put_u32(out, *new);
            }
            CallRecord::Neighbor {
                comm,
                call,
                send_bytes,
                recv_bytes,
                req,
            } => {
                out.push(NEIGHBOR);
                put_u32(out, *comm);
                out.push(*call);
                put_counts(out, send_bytes);
                put_counts(out, recv_bytes);
                put_req(out, *req);
            }
            CallRecord::RequestFree { req } => {
                out.push(REQUEST_FREE);
                put_u32(out, *req);
            }
            CallRecord::Probe { comm, peer, tag } => {
                out.push(PROBE);
                put_u32(out, *comm);
                put_i32(out, *peer);
                put_i32(out, *tag);
            }
            CallRecord::Mprobe {
                comm,
                peer,
                tag,
                message,
            } => {
                out.push(MPROBE);
                put_u32(out, *comm);
                put_i32(out, *peer);
                put_i32(out, *tag);
                put_u32(out, *message);
            }
            CallRecord::Mrecv {
                message,
                count,
                ty,
                req,
            } => {
                out.push(MRECV);
                put_u32(out, *message);
                put_u64(out, *count);
                put_type(out, ty);
                put_req(out, *req);
            }
            CallRecord::BufferAttach { size } => {
                out.push(BUFFER_ATTACH);
                put_u64(out, *size);
            }
            CallRecord::BufferDetach => out.push(BUFFER_DETACH),
            CallRecord::Idup { comm, new, req } => {
                out.push(IDUP);
                put_u32(out, *comm);
                put_u32(out, *new);
                put_u32(out, *req);
            }
            CallRecord::Alltoallw {
                comm,
                send_bytes,
                recv_bytes,
                in_place,
                req,
            } => {
                out.push(ALLTOALLW);
                put_u32(out, *comm);
                put_counts(out, send_bytes);
                put_counts(out, recv_bytes);
                out.push(*in_place as u8);
                put_req(out, *req);
            }
            CallRecord::PersistentColl { comm, req } => {
                out.push(PERSISTENT_COLL);
                put_u32(out, *comm);
                put_u32(out, *req);
            }
            CallRecord::CollStart { req } => {
                out.push(COLL_START);
                put_u32(out, *req);
            }
            CallRecord::Cancel { req } => {
                out.push(CANCEL);
                put_u32(out, *req);
            }
            CallRecord::Unsupported { name } => {
                // At most 255 bytes, cut at a character boundary.
                let mut end = name.len().min(255);
                while !name.is_char_boundary(end) {
                    end -= 1;
                }
                let n = &name.as_bytes()[..end];
                out.push(UNSUPPORTED);
                out.push(n.len() as u8);
                out.extend_from_slice(n);
            }
        }
    }

    /// Decodes a record (after the event kind); an error names what is wrong.
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<CallRecord, String> {
        Ok(match r.u8()? {
            START => CallRecord::Start {
                eager_limit: r.u64()?,
                rendezvous_chunk: r.u64()?,
            },
            SEND => CallRecord::Send {
                mode: r.u8()?,
                comm: r.u32()?,
                peer: r.i32()?,
                tag: r.i32()?,
                count: r.u64()?,
                ty: get_type(r)?,
                req: get_req(r)?,
            },
            RECV => CallRecord::Recv {
                comm: r.u32()?,
                peer: r.i32()?,
                tag: r.i32()?,
                count: r.u64()?,
                ty: get_type(r)?,
                req: get_req(r)?,
            },
            SENDRECV => {
                let comm = r.u32()?;
                let mut half =
                    || -> Result<_, String> { Ok((r.i32()?, r.i32()?, r.u64()?, get_type(r)?)) };
                let send = half()?;
                let recv = half()?;
                CallRecord::Sendrecv { comm, send, recv }
            }
            COMPLETE => {
                let n = r.u32()? as usize;
                if n > r.left() / 12 {
                    return Err("a truncated event".into());
                }
                let done = (0..n)
                    .map(|_| {
                        Ok(Done {
                            req: r.u32()?,
                            peer: r.i32()?,
                            tag: r.i32()?,
                        })
                    })
                    .collect::<Result<_, String>>()?;
                CallRecord::Complete { done }
            }
            PROGRESS => CallRecord::Progress,
            COLL => {
                let code = r.u8()?;
                let kind = CollKind::from_code(code)
                    .ok_or_else(|| format!("a collective of unknown kind {code}"))?;
                let comm = r.u32()?;
                let root = r.u32()?;
                let count = r.u64()?;
                let ty = get_type(r)?;
                let rcount = r.u64()?;
                let rty = get_type(r)?;
                let builtin = r.u8()?;
                let flags = r.u8()?;
                CallRecord::Coll(CollRec {
                    kind,
                    comm,
                    root,
                    count,
                    ty,
                    rcount,
                    rty,
                    op: OpRec {
                        builtin,
                        commutative: flags & 1 != 0,
                    },
                    in_place: flags & 2 != 0,
                    counts: get_counts(r)?,
                    rcounts: get_counts(r)?,
                    req: get_req(r)?,
                })
            }
            SPLIT => CallRecord::Split {
                comm: r.u32()?,
                color: r.i32()?,
                key: r.i32()?,
                new: r.u32()?,
            },
            DUP => CallRecord::Dup {
                comm: r.u32()?,
                new: r.u32()?,
            },
            COMM_FREE => CallRecord::CommFree { comm: r.u32()? },
            // Only a send or a receive inside (never a nested record, so
            // decoding cannot recurse deeper than once).
            PERSISTENT if !matches!(r.peek(), Some(SEND | RECV)) => {
                return Err("a persistent request that is not a send or receive".into())
            }
            PERSISTENT => match CallRecord::decode(r)? {
                op @ (CallRecord::Send { req: Some(_), .. }
                | CallRecord::Recv { req: Some(_), .. }) => CallRecord::Persistent(Box::new(op)),
                _ => return Err("a persistent request that is not a send or receive".into()),
            },
            START_REQUESTS => {
                let n = r.u32()? as usize;
                if n > r.left() / 4 {
                    return Err("a truncated event".into());
                }
                CallRecord::StartRequests {
                    reqs: (0..n).map(|_| r.u32()).collect::<Result<_, _>>()?,
                }
            }
            REQUEST_FREE => CallRecord::RequestFree { req: r.u32()? },
            NEIGHBOR => CallRecord::Neighbor {
                comm: r.u32()?,
                call: r.u8()?,
                send_bytes: get_counts(r)?,
                recv_bytes: get_counts(r)?,
                req: get_req(r)?,
            },
            COMM_MAKE => {
                let how = r.u8()?;
                let comm = r.u32()?;
                let n = r.u32()? as usize;
                if n > r.left() / 4 {
                    return Err("a truncated event".into());
                }
                let ints = (0..n).map(|_| r.i32()).collect::<Result<_, _>>()?;
                CallRecord::CommMake {
                    how,
                    comm,
                    ints,
                    new: r.u32()?,
                }
            }
            PROBE => CallRecord::Probe {
                comm: r.u32()?,
                peer: r.i32()?,
                tag: r.i32()?,
            },
            MPROBE => CallRecord::Mprobe {
                comm: r.u32()?,
                peer: r.i32()?,
                tag: r.i32()?,
                message: r.u32()?,
            },
            MRECV => CallRecord::Mrecv {
                message: r.u32()?,
                count: r.u64()?,
                ty: get_type(r)?,
                req: get_req(r)?,
            },
            BUFFER_ATTACH => CallRecord::BufferAttach { size: r.u64()? },
            BUFFER_DETACH => CallRecord::BufferDetach,
            IDUP => CallRecord::Idup {
                comm: r.u32()?,
                new: r.u32()?,
                req: r.u32()?,
            },
            ALLTOALLW => CallRecord::Alltoallw {
                comm: r.u32()?,
                send_bytes: get_counts(r)?,
                recv_bytes: get_counts(r)?,
                in_place: r.u8()? != 0,
                req: get_req(r)?,
            },
            PERSISTENT_COLL => CallRecord::PersistentColl {
                comm: r.u32()?,
                req: r.u32()?,
            },
            COLL_START => CallRecord::CollStart { req: r.u32()? },
            CANCEL => CallRecord::Cancel { req: r.u32()? },
            UNSUPPORTED => {
                let n = r.u8()? as usize;
                CallRecord::Unsupported {
                    name: String::from_utf8_lossy(r.bytes(n)?).into_owned(),
                }
            }
            k => return Err(format!("a call record of unknown kind {k}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceEvent;

    #[test]
    fn every_call_record_round_trips_and_truncations_are_refused() {
        let ty = TypeRec {
            builtin: 7,
            size: 8,
        };
        let records = vec![
            CallRecord::Start {
                eager_limit: 65536,
                rendezvous_chunk: 1 << 20,
            },
            CallRecord::Send {
                mode: 1,
                comm: 0,
                peer: 3,
                tag: 9,
                count: 100,
                ty,
                req: Some(0xac00_0001),
            },
            CallRecord::Recv {
                comm: 2,
                peer: -2,
                tag: -1,
                count: 5,
                ty: TypeRec::default(),
                req: None,
            },
            CallRecord::Sendrecv {
                comm: 0,
                send: (1, 2, 3, ty),
                recv: (4, 5, 6, ty),
            },
            CallRecord::Complete {
                done: vec![Done {
                    req: 1,
                    peer: 2,
                    tag: 3,
                }],
            },
            CallRecord::Progress,
            CallRecord::Coll(CollRec {
                kind: CollKind::Alltoallv,
                comm: 0,
                root: 0,
                count: 0,
                ty,
                rcount: 0,
                rty: ty,
                op: OpRec {
                    builtin: 3,
                    commutative: true,
                },
                in_place: true,
                counts: vec![1, 2, 3],
                rcounts: vec![4, 5, 6],
                req: Some(0xac00_0002),
            }),
            CallRecord::Split {
                comm: 0,
                color: -32766,
                key: 4,
                new: u32::MAX,
            },
            CallRecord::Dup { comm: 0, new: 3 },
            CallRecord::CommFree { comm: 3 },
            CallRecord::Probe {
                comm: 0,
                peer: 2,
                tag: 5,
            },
            CallRecord::Persistent(Box::new(CallRecord::Recv {
                comm: 0,
                peer: 1,
                tag: 2,
                count: 3,
                ty,
                req: Some(9),
            })),
            CallRecord::StartRequests { reqs: vec![9, 10] },
            CallRecord::RequestFree { req: 9 },
            CallRecord::Neighbor {
                comm: 4,
                call: 60,
                send_bytes: vec![8, 8],
                recv_bytes: vec![16],
                req: None,
            },
            CallRecord::CommMake {
                how: COMM_MAKE_CART,
                comm: 0,
                ints: vec![2, 2, 1, 0],
                new: 4,
            },
            CallRecord::Mprobe {
                comm: 0,
                peer: 3,
                tag: 7,
                message: 0x6c00_0001,
            },
            CallRecord::Mrecv {
                message: 0x6c00_0001,
                count: 12,
                ty,
                req: Some(0xac00_0003),
            },
            CallRecord::BufferAttach { size: 1 << 20 },
            CallRecord::BufferDetach,
            CallRecord::Idup {
                comm: 0,
                new: 5,
                req: 0xac00_0004,
            },
            CallRecord::Alltoallw {
                comm: 0,
                send_bytes: vec![8, 0, 24],
                recv_bytes: vec![16, 4, 0],
                in_place: false,
                req: None,
            },
            CallRecord::PersistentColl {
                comm: 0,
                req: 0xac00_0005,
            },
            CallRecord::CollStart { req: 0xac00_0005 },
            CallRecord::Cancel { req: 0xac00_0006 },
            CallRecord::Unsupported {
                name: "MPI_Win_create".into(),
            },
        ];
        for rec in records {
            let e = TraceEvent::Call(rec);
            let mut bytes = Vec::new();
            e.encode(&mut bytes);
            assert_eq!(TraceEvent::decode(&bytes), Ok((e.clone(), bytes.len())));
            for cut in 1..bytes.len() {
                assert!(
                    TraceEvent::decode(&bytes[..cut]).is_err(),
                    "{e:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn nested_persistent_records_and_long_names_are_handled() {
        // A chain of persistent markers is refused at once, not recursed into.
        let mut chain = vec![5u8];
        chain.extend(std::iter::repeat_n(PERSISTENT, 100_000));
        assert!(TraceEvent::decode(&chain).is_err());
        // A name of multi-byte characters is cut at a boundary and reads back.
        let e = TraceEvent::Call(CallRecord::Unsupported {
            name: "é".repeat(200),
        });
        let mut bytes = Vec::new();
        e.encode(&mut bytes);
        let (back, _) = TraceEvent::decode(&bytes).unwrap();
        let TraceEvent::Call(CallRecord::Unsupported { name }) = back else {
            panic!("{back:?}")
        };
        assert_eq!(name, "é".repeat(127));
    }
}
