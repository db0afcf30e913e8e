//! What a recording rank (`mpinetsim run --record`) notes of its MPI calls
//! for the replay through the MPI engine (`mpinetsim_protocol::trace_calls`):
//! the calls that replay makes, recorded where the C functions make them,
//! and which routines the replay need not see (they do not touch the
//! network or the objects a replay uses). Any other routine marks the
//! trace as replayable only message by message. A test or probe that
//! completes or finds nothing is also charged here (the host's
//! `poll_cost`), whether or not the rank records: one place decides what a
//! poll is, for the run's clock and for the trace its replays charge.

use crate::ffi::p2p::Eng;
use crate::runtime::trace_record;
use mpinetsim_protocol::trace_calls::{CallRecord, CollKind, CollRec, Done, OpRec, TypeRec};
use shim_engine::collectives::Form;
use shim_engine::replay_codes::{op_code, type_code};
use shim_engine::{CommId, DatatypeId, OpId, RequestId, SendMode, Source, Status, Tag};

/// Routines whose calls the engine replay makes (recorded below).
const REPLAYED: &[&str] = &[
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Finalize",
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Bsend",
    "MPI_Rsend",
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Ibsend",
    "MPI_Irsend",
    "MPI_Recv",
    "MPI_Irecv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Comm_split",
    "MPI_Comm_dup",
    "MPI_Comm_free",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Send_init",
    "MPI_Ssend_init",
    "MPI_Rsend_init",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Request_free",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Comm_create",
    "MPI_Comm_create_group",
    "MPI_Comm_split_type",
    "MPI_Graph_create",
    "MPI_Dist_graph_create_adjacent",
    "MPI_Dist_graph_create",
    "MPI_Neighbor_allgather",
    "MPI_Neighbor_allgatherv",
    "MPI_Neighbor_alltoall",
    "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw",
    "MPI_Ineighbor_allgather",
    "MPI_Ineighbor_allgatherv",
    "MPI_Ineighbor_alltoall",
    "MPI_Ineighbor_alltoallv",
    "MPI_Ineighbor_alltoallw",
    "MPI_Graph_neighbors_count",
    "MPI_Graph_neighbors",
    "MPI_Graphdims_get",
    "MPI_Graph_get",
    "MPI_Dist_graph_neighbors_count",
    "MPI_Dist_graph_neighbors",
    // Local queries of a Cartesian communicator.
    "MPI_Cart_coords",
    "MPI_Cart_rank",
    "MPI_Cart_shift",
    "MPI_Cart_get",
    "MPI_Cartdim_get",
    "MPI_Topo_test",
    "MPI_Cart_map",
    "MPI_Graph_map",
    "MPI_Ibarrier",
    "MPI_Ibcast",
    "MPI_Ireduce",
    "MPI_Iallreduce",
    "MPI_Iscan",
    "MPI_Iexscan",
    "MPI_Ireduce_scatter",
    "MPI_Ireduce_scatter_block",
    "MPI_Igather",
    "MPI_Igatherv",
    "MPI_Iscatter",
    "MPI_Iscatterv",
    "MPI_Iallgather",
    "MPI_Iallgatherv",
    "MPI_Ialltoall",
    "MPI_Ialltoallv",
    "MPI_Alltoallw",
    "MPI_Ialltoallw",
    "MPI_Mprobe",
    "MPI_Improbe",
    "MPI_Mrecv",
    "MPI_Imrecv",
    "MPI_Buffer_attach",
    "MPI_Buffer_detach",
    "MPI_Comm_idup",
    "MPI_Comm_idup_with_info",
    "MPI_Comm_dup_with_info",
    "MPI_Request_get_status",
    "MPI_Cancel",
];

/// Routine families that neither communicate nor create what a replayed
/// call uses (a derived datatype is recorded by its size).
const LOCAL_PREFIXES: &[&str] = &[
    "MPI_Type_",
    "MPI_Info_",
    "MPI_Group_",
    "MPI_Errhandler_",
    "MPI_Keyval_",
    "MPI_Attr_",
    "MPI_Error_",
    "MPI_Op_",
    "MPI_Status_",
    "MPI_Aint_",
    "MPI_Comm_get_",
    "MPI_Comm_set_",
    "MPI_Comm_call_",
    "MPI_Comm_create_errhandler",
    "MPI_Comm_create_keyval",
    "MPI_Comm_free_keyval",
    "MPI_Comm_delete_attr",
    "MPI_Add_error_",
    "MPI_T_",
];

/// Single routines that neither communicate nor create what a replayed
/// call uses.
const LOCAL: &[&str] = &[
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Comm_group",
    "MPI_Comm_compare",
    "MPI_Comm_test_inter",
    "MPI_Comm_remote_size",
    "MPI_Wtime",
    "MPI_Wtick",
    "MPI_Get_count",
    "MPI_Get_elements",
    "MPI_Get_elements_x",
    "MPI_Get_processor_name",
    "MPI_Get_version",
    "MPI_Get_library_version",
    "MPI_Get_address",
    "MPI_Address",
    "MPI_Initialized",
    "MPI_Finalized",
    "MPI_Query_thread",
    "MPI_Is_thread_main",
    "MPI_Pcontrol",
    "MPI_Pack",
    "MPI_Unpack",
    "MPI_Pack_size",
    "MPI_Pack_external",
    "MPI_Unpack_external",
    "MPI_Pack_external_size",
    "MPI_Dims_create",
    "MPI_Abort",
    "MPI_Reduce_local",
    "MPI_Test_cancelled",
    "MPI_Alloc_mem",
    "MPI_Free_mem",
    "MPI_Add_error_class",
    "MPI_Add_error_code",
    "MPI_Add_error_string",
];

/// Notes a call to `name` the engine replay cannot make (at the entry of
/// every MPI function, while recording).
pub fn note_entry(name: &'static str) {
    if !trace_record::is_on() {
        return;
    }
    let base = name.strip_suffix("_c").unwrap_or(name);
    let base = base
        .strip_prefix('P')
        .filter(|b| b.starts_with("MPI_"))
        .unwrap_or(base);
    if REPLAYED.contains(&base)
        || persistent_form_of_replayed(base)
        || LOCAL.contains(&base)
        || LOCAL_PREFIXES.iter().any(|p| base.starts_with(p))
    {
        return;
    }
    trace_record::unsupported(name);
}

/// Whether `name` is `MPI_<Xxx>_init` of a collective whose nonblocking
/// form `MPI_I<xxx>` the replay makes (`MPI_Bcast_init` of `MPI_Ibcast`):
/// a start of it records that nonblocking collective.
fn persistent_form_of_replayed(name: &str) -> bool {
    let Some(call) = name
        .strip_prefix("MPI_")
        .and_then(|n| n.strip_suffix("_init"))
    else {
        return false;
    };
    let mut nonblocking = String::from("MPI_I");
    let mut chars = call.chars();
    if let Some(first) = chars.next() {
        nonblocking.extend(first.to_lowercase());
        nonblocking.push_str(chars.as_str());
    }
    REPLAYED.contains(&nonblocking.as_str())
}

/// A persistent collective was made on `c` with request handle `req`.
pub fn persistent_collective(c: CommId, req: i32) {
    trace_record::call(|| CallRecord::PersistentColl {
        comm: c.0,
        req: req as u32,
    });
}

/// The persistent collective with handle `req` starts: its nonblocking
/// collective's record follows.
pub fn collective_start(req: i32) {
    trace_record::call(|| CallRecord::CollStart { req: req as u32 });
}

/// A datatype as the replay needs it.
pub fn type_rec(e: &Eng, dt: DatatypeId) -> TypeRec {
    TypeRec {
        builtin: type_code(dt),
        size: e.datatypes().committed(dt).map_or(0, |t| t.size),
    }
}

fn op_rec(e: &Eng, op: OpId) -> OpRec {
    OpRec {
        builtin: op_code(op),
        commutative: e.ops_commutative(op),
    }
}

fn mode_code(m: SendMode) -> u8 {
    match m {
        SendMode::Standard => 0,
        SendMode::Synchronous => 1,
        SendMode::Buffered => 2,
        SendMode::Ready => 3,
    }
}

/// The matched source and tag of a status (-1 when it has none).
fn matched(st: &Status) -> (i32, i32) {
    let peer = match st.source {
        Source::Rank(r) => r as i32,
        _ => -1,
    };
    let tag = match st.tag {
        Tag::Value(t) => t,
        Tag::Any => -1,
    };
    (peer, tag)
}

/// A send's arguments as recorded: mode, communicator, destination, tag,
/// count, datatype.
pub type SendArgs = (SendMode, CommId, i32, i32, usize, DatatypeId);

/// The record of a send (`req`: the handle of a nonblocking or persistent one).
pub fn send_record(e: &Eng, (mode, c, dest, tag, n, dt): SendArgs, req: Option<i32>) -> CallRecord {
    CallRecord::Send {
        mode: mode_code(mode),
        comm: c.0,
        peer: dest,
        tag,
        count: n as u64,
        ty: type_rec(e, dt),
        req: req.map(|h| h as u32),
    }
}

/// A send (`req`: the handle of a nonblocking one).
pub fn send(e: &Eng, args: SendArgs, req: Option<i32>) {
    trace_record::call(|| send_record(e, args, req));
}

/// A receive's arguments as recorded: communicator, source, tag, count,
/// datatype.
pub type RecvArgs = (CommId, i32, i32, usize, DatatypeId);

/// The record of a receive: what it matched (`got`), else as posted.
pub fn recv_record(
    e: &Eng,
    (c, source, tag, n, dt): RecvArgs,
    got: Option<&Status>,
    req: Option<i32>,
) -> CallRecord {
    let (peer, tag) = got.map_or((source, tag), matched);
    CallRecord::Recv {
        comm: c.0,
        peer,
        tag,
        count: n as u64,
        ty: type_rec(e, dt),
        req: req.map(|h| h as u32),
    }
}

/// A blocking receive (what it matched) or a nonblocking one (as posted).
pub fn recv(e: &Eng, args: RecvArgs, got: Option<&Status>, req: Option<i32>) {
    trace_record::call(|| recv_record(e, args, got, req));
}

/// MPI_Sendrecv(_replace), with what the receive matched.
pub fn sendrecv(
    e: &Eng,
    c: CommId,
    send: (i32, i32, usize, DatatypeId),
    recv: (usize, DatatypeId),
    got: &Status,
) {
    let (peer, tag) = matched(got);
    trace_record::call(|| CallRecord::Sendrecv {
        comm: c.0,
        send: (send.0, send.1, send.2 as u64, type_rec(e, send.3)),
        recv: (peer, tag, recv.0 as u64, type_rec(e, recv.1)),
    });
}

/// Request `handle` completed for the program with `st`.
pub fn completed(handle: i32, st: &Status) {
    let (peer, tag) = matched(st);
    trace_record::call(|| CallRecord::Complete {
        done: vec![Done {
            req: handle as u32,
            peer,
            tag,
        }],
    });
}

/// A probe found a message with status `st` on `c` (None: an
/// `MPI_Iprobe` found nothing, which costs the host's poll cost: what
/// the trace calls a poll is what the run's clock charges, so a replay
/// charges the same).
pub fn probed(c: CommId, st: Option<&Status>) {
    if st.is_none() {
        crate::runtime::poll_found_nothing();
    }
    trace_record::call(|| match st {
        Some(st) => {
            let (peer, tag) = matched(st);
            CallRecord::Probe {
                comm: c.0,
                peer,
                tag,
            }
        }
        None => CallRecord::Progress,
    });
}

/// A persistent send or receive was made: `op` is its Send or Recv record.
pub fn persistent(op: CallRecord) {
    trace_record::call(|| CallRecord::Persistent(Box::new(op)));
}

/// The persistent requests with these handles were started.
pub fn started(handles: &[i32]) {
    trace_record::call(|| CallRecord::StartRequests {
        reqs: handles.iter().map(|h| *h as u32).collect(),
    });
}

/// The request with this handle was freed.
pub fn request_freed(handle: i32) {
    trace_record::call(|| CallRecord::RequestFree { req: handle as u32 });
}

/// A test completed nothing; it costs the host's poll cost (see
/// [`probed`]).
pub fn progressed() {
    crate::runtime::poll_found_nothing();
    trace_record::call(|| CallRecord::Progress);
}

/// What a collective's record holds beyond its kind and communicator.
#[derive(Default)]
pub struct CollArgs {
    /// Root (rooted collectives).
    pub root: u32,
    /// Send count and type.
    pub send: Option<(usize, DatatypeId)>,
    /// Receive count and type.
    pub recv: Option<(usize, DatatypeId)>,
    /// The reduction.
    pub op: Option<OpId>,
    /// `MPI_IN_PLACE`.
    pub in_place: bool,
    /// Per-rank send counts.
    pub counts: Vec<usize>,
    /// Per-rank receive counts.
    pub rcounts: Vec<usize>,
}

/// While recording, the request handle a collective's record names
/// (`Some(None)` for the blocking form); None when nothing is recorded:
/// recording is off, or `c` is an intercommunicator, which the engine
/// replay does not make (`func` is then noted as unsupported).
fn intra_request(e: &Eng, func: &str, form: Form, c: CommId, id: RequestId) -> Option<Option<u32>> {
    if !trace_record::is_on() {
        return None;
    }
    if e.comm_test_inter(c).unwrap_or(true) {
        trace_record::unsupported(func);
        return None;
    }
    Some(matches!(form, Form::Nonblocking).then(|| crate::ffi::handles::request_to(id) as u32))
}

/// The (byte displacement, count, datatype) blocks of a w-collective.
pub type WBlocks = [(i64, usize, DatatypeId)];

/// `MPI_Alltoallw` or `MPI_Ialltoallw` started on `c` (request `id`), with
/// its send and receive blocks.
pub fn alltoallw(
    e: &Eng,
    func: &str,
    form: Form,
    c: CommId,
    blocks: (&WBlocks, &WBlocks),
    in_place: bool,
    id: RequestId,
) {
    let Some(req) = intra_request(e, func, form, c, id) else {
        return;
    };
    let bytes = |v: &WBlocks| {
        v.iter()
            .map(|(_, k, dt)| type_rec(e, *dt).size * *k as u64)
            .collect::<Vec<u64>>()
    };
    trace_record::call(|| CallRecord::Alltoallw {
        comm: c.0,
        send_bytes: bytes(blocks.0),
        recv_bytes: bytes(blocks.1),
        in_place,
        req,
    });
}

/// A matched probe on `c` found a message (`found`: the handle the program
/// got and the status), or an `MPI_Improbe` found nothing (None, at the
/// host's poll cost; see [`probed`]).
pub fn mprobed(c: CommId, found: Option<(i32, &Status)>) {
    if found.is_none() {
        crate::runtime::poll_found_nothing();
    }
    trace_record::call(|| match found {
        Some((message, st)) => {
            let (peer, tag) = matched(st);
            CallRecord::Mprobe {
                comm: c.0,
                peer,
                tag,
                message: message as u32,
            }
        }
        None => CallRecord::Progress,
    });
}

/// The receive of the probed message with handle `message` (`req`: the
/// handle of `MPI_Imrecv`).
pub fn mrecv(e: &Eng, message: i32, (n, dt): (usize, DatatypeId), req: Option<i32>) {
    trace_record::call(|| CallRecord::Mrecv {
        message: message as u32,
        count: n as u64,
        ty: type_rec(e, dt),
        req: req.map(|h| h as u32),
    });
}

/// `MPI_Cancel` of the request with this handle.
pub fn cancelled(handle: i32) {
    trace_record::call(|| CallRecord::Cancel { req: handle as u32 });
}

/// `MPI_Buffer_attach` of `size` bytes.
pub fn buffer_attached(size: usize) {
    trace_record::call(|| CallRecord::BufferAttach { size: size as u64 });
}

/// `MPI_Buffer_detach`.
pub fn buffer_detached() {
    trace_record::call(|| CallRecord::BufferDetach);
}

/// `MPI_Comm_idup` of `c` into `new`, completed by request handle `req`.
pub fn idup(c: CommId, new: CommId, req: i32) {
    trace_record::call(|| CallRecord::Idup {
        comm: c.0,
        new: new.0,
        req: req as u32,
    });
}

/// A collective call started (request `id`): recorded on an
/// intracommunicator; on an intercommunicator the trace is not replayed
/// through the engine.
#[allow(clippy::too_many_arguments)]
pub fn collective(
    e: &Eng,
    func: &str,
    form: Form,
    kind: CollKind,
    c: CommId,
    a: CollArgs,
    id: RequestId,
) {
    let Some(req) = intra_request(e, func, form, c, id) else {
        return;
    };
    let byte = DatatypeId::Builtin(shim_engine::BuiltinType::Byte);
    let (n, st) = a.send.unwrap_or((0, byte));
    let (rn, rt) = a.recv.unwrap_or((0, byte));
    let u = |v: &[usize]| v.iter().map(|x| *x as u64).collect();
    trace_record::call(|| {
        CallRecord::Coll(CollRec {
            kind,
            comm: c.0,
            root: a.root,
            count: n as u64,
            ty: type_rec(e, st),
            rcount: rn as u64,
            rty: type_rec(e, rt),
            op: a.op.map_or(OpRec::default(), |o| op_rec(e, o)),
            in_place: a.in_place,
            counts: u(&a.counts),
            rcounts: u(&a.rcounts),
            req,
        })
    });
}

/// MPI_Comm_split (`new`: None for MPI_COMM_NULL).
pub fn split(c: CommId, color: i32, key: i32, new: Option<CommId>) {
    trace_record::call(|| CallRecord::Split {
        comm: c.0,
        color,
        key,
        new: new.map_or(u32::MAX, |n| n.0),
    });
}

/// A communicator made from `c` (see [`CallRecord::CommMake`]).
pub fn comm_made(how: u8, c: CommId, ints: Vec<i32>, new: Option<CommId>) {
    trace_record::call(|| CallRecord::CommMake {
        how,
        comm: c.0,
        ints,
        new: new.map_or(u32::MAX, |n| n.0),
    });
}

/// A neighbourhood collective started on `c` (request `id`).
#[allow(clippy::too_many_arguments)]
pub fn neighbor(
    e: &Eng,
    func: &str,
    form: Form,
    c: CommId,
    call: shim_engine::envelope::CallCode,
    sent: &[usize],
    want: &[usize],
    id: RequestId,
) {
    let Some(req) = intra_request(e, func, form, c, id) else {
        return;
    };
    trace_record::call(|| CallRecord::Neighbor {
        comm: c.0,
        call: call as u8,
        send_bytes: sent.iter().map(|n| *n as u64).collect(),
        recv_bytes: want.iter().map(|n| *n as u64).collect(),
        req,
    });
}

/// MPI_Comm_dup.
pub fn dup(c: CommId, new: CommId) {
    trace_record::call(|| CallRecord::Dup {
        comm: c.0,
        new: new.0,
    });
}

/// MPI_Comm_free.
pub fn comm_free(c: CommId) {
    trace_record::call(|| CallRecord::CommFree { comm: c.0 });
}
