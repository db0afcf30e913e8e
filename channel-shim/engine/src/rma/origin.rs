//! The origin's side of the operations: checking the arguments, sending
//! the requests (in pieces of at most the engine's chunk size) and taking
//! the answers.

use super::wire::RmaTarget;
use super::{OriginOp, WinId};
use crate::datatype::{BuiltinType, DatatypeId, TypeInfo};
use crate::envelope::{CallCode, Envelope, Kind};
use crate::error::{MpiError, MpiResult};
use crate::message_data::UserBuffer;
use crate::op::{allowed, BuiltinOp, OpId};
use crate::request::{Pending, Request, RequestId, State};
use crate::status::Completion;
use crate::transport::Transport;
use crate::Engine;

/// A one-sided message of `kind` from `src` to `dst` on `context`.
pub(super) fn rma_envelope(
    kind: Kind,
    call: CallCode,
    src: u32,
    dst: u32,
    context: u32,
    op: u32,
) -> Envelope {
    Envelope {
        kind,
        flags: 0,
        call,
        src,
        dst,
        tag: 0,
        context,
        seq: 0,
        sender_op: op,
        receiver_op: 0,
        msg_len: 0,
        payload_len: 0,
    }
}

/// The target location of an operation: rank in the window's group (None:
/// `MPI_PROC_NULL`), displacement, count and datatype.
#[derive(Clone, Copy, Debug)]
pub struct TargetSpec {
    /// Rank in the window's group; `None` is `MPI_PROC_NULL`.
    pub rank: Option<u32>,
    /// Displacement in the target window's units.
    pub disp: i64,
    /// Instances of `dt`.
    pub count: usize,
    /// Target datatype (its layout travels with the operation).
    pub dt: DatatypeId,
}

/// Program memory and its (count, datatype): an origin or result buffer.
pub struct OriginBuf {
    /// The region `Datatypes::span(dt, count)` of the buffer.
    pub mem: Box<dyn UserBuffer>,
    /// Instances.
    pub count: usize,
    /// Datatype.
    pub dt: DatatypeId,
}

/// An operation just issued: what `MPI_Rput` and friends make a request
/// of (nothing to wait for when it sent no message: `MPI_PROC_NULL`, no
/// data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmaOp(Option<u32>);

/// The one predefined type every element of `t` is (accumulate's rule).
fn element_type(t: &TypeInfo) -> MpiResult<Option<BuiltinType>> {
    let mut elem = None;
    for r in &t.runs {
        match elem {
            None => elem = Some(r.ty),
            Some(e) if e == r.ty => {}
            Some(_) => return Err(MpiError::Datatype),
        }
    }
    Ok(elem)
}

impl<T: Transport> Engine<T> {
    /// Packs an origin buffer.
    fn pack_origin(&self, b: &OriginBuf) -> MpiResult<Vec<u8>> {
        self.types.committed(b.dt)?;
        self.types.pack(b.dt, b.count, b.mem.bytes())
    }

    /// The accumulate op as a predefined op.
    fn rma_op(op: OpId) -> MpiResult<BuiltinOp> {
        match op {
            OpId::Builtin(b) => Ok(b),
            OpId::User(_) => Err(MpiError::Op),
        }
    }

    /// `MPI_Put`.
    pub fn put(&mut self, origin: OriginBuf, target: TargetSpec, win: WinId) -> MpiResult<RmaOp> {
        self.note_call();
        let data = self.pack_origin(&origin)?;
        self.issue(
            Kind::RmaPut,
            CallCode::Put,
            win,
            target,
            BuiltinOp::Replace,
            data,
            None,
        )
    }

    /// `MPI_Get`: the data lands in `result` when the reply arrives.
    pub fn get(&mut self, result: OriginBuf, target: TargetSpec, win: WinId) -> MpiResult<RmaOp> {
        self.note_call();
        self.issue(
            Kind::RmaGet,
            CallCode::Get,
            win,
            target,
            BuiltinOp::NoOp,
            Vec::new(),
            Some(result),
        )
    }

    /// `MPI_Accumulate` (every predefined op, `MPI_REPLACE` and `MPI_NO_OP`).
    pub fn accumulate(
        &mut self,
        origin: OriginBuf,
        target: TargetSpec,
        op: OpId,
        win: WinId,
    ) -> MpiResult<RmaOp> {
        self.note_call();
        let op = Self::rma_op(op)?;
        let data = self.pack_origin(&origin)?;
        self.issue(
            Kind::RmaAccumulate,
            CallCode::Accumulate,
            win,
            target,
            op,
            data,
            None,
        )
    }

    /// `MPI_Get_accumulate` (`origin` is ignored, and may be `None`, with
    /// `MPI_NO_OP`) and `MPI_Fetch_and_op` (`call` says which).
    pub fn get_accumulate(
        &mut self,
        origin: Option<OriginBuf>,
        result: OriginBuf,
        target: TargetSpec,
        op: OpId,
        win: WinId,
        call: CallCode,
    ) -> MpiResult<RmaOp> {
        self.note_call();
        let op = Self::rma_op(op)?;
        let data = match (&origin, op) {
            (_, BuiltinOp::NoOp) | (None, _) => {
                let n = self.types.committed(target.dt)?.size as usize * target.count;
                if op != BuiltinOp::NoOp {
                    return Err(MpiError::Buffer);
                }
                vec![0; n]
            }
            (Some(o), _) => self.pack_origin(o)?,
        };
        self.issue(
            Kind::RmaGetAccumulate,
            call,
            win,
            target,
            op,
            data,
            Some(result),
        )
    }

    /// `MPI_Compare_and_swap`: one element of `dt`.
    pub fn compare_and_swap(
        &mut self,
        origin: OriginBuf,
        compare: OriginBuf,
        result: OriginBuf,
        target: TargetSpec,
        win: WinId,
    ) -> MpiResult<RmaOp> {
        self.note_call();
        let mut data = self.pack_origin(&origin)?;
        let cmp = self.pack_origin(&compare)?;
        if data.len() != cmp.len() {
            return Err(MpiError::Count);
        }
        data.extend_from_slice(&cmp);
        self.issue(
            Kind::RmaCompareSwap,
            CallCode::Compare_and_swap,
            win,
            target,
            BuiltinOp::Replace,
            data,
            Some(result),
        )
    }

    /// Checks an operation and sends its request messages.
    #[allow(clippy::too_many_arguments)]
    fn issue(
        &mut self,
        kind: Kind,
        call: CallCode,
        win: WinId,
        target: TargetSpec,
        op: BuiltinOp,
        data: Vec<u8>,
        result: Option<OriginBuf>,
    ) -> MpiResult<RmaOp> {
        // Read what has arrived first (answers, other origins' requests),
        // as any MPI call does: an origin issuing many operations without
        // another call keeps its answers flowing instead of letting them
        // pile up in the network until its next synchronisation.
        self.progress(false);
        let w = self.window(win)?;
        let comm = w.comm;
        let Some(rank) = target.rank else {
            return Ok(RmaOp(None));
        };
        let dst = self.comm(comm)?.world_of(rank)?;
        if let Some(access) = &w.access {
            if !access.contains(&dst) {
                return Err(MpiError::RmaSync);
            }
        }
        let context = self.comm(comm)?.context;
        let ty = self.types.committed(target.dt)?.clone();
        let total = ty
            .size
            .checked_mul(target.count as u64)
            .ok_or(MpiError::Count)?;
        let accumulates = !matches!(kind, Kind::RmaPut | Kind::RmaGet);
        // Accumulates apply to elements of one predefined type.
        let elem = if accumulates {
            element_type(&ty)?
        } else {
            None
        };
        if accumulates {
            if let Some(e) = elem {
                if !allowed(op, e) {
                    return Err(MpiError::Op);
                }
            }
        }
        let data_len = if kind == Kind::RmaCompareSwap {
            total * 2
        } else {
            total
        };
        if kind != Kind::RmaGet && data.len() as u64 != data_len {
            return Err(MpiError::Count);
        }
        let result = match result {
            Some(r) => {
                let rsize = self.types.committed(r.dt)?.size * r.count as u64;
                if rsize != total {
                    return Err(MpiError::Count);
                }
                Some(self.recv_target(Some(r.mem), r.count, r.dt)?)
            }
            None => None,
        };
        if kind == Kind::RmaCompareSwap && (ty.runs.len() != 1 || target.count != 1) {
            return Err(MpiError::Datatype);
        }
        self.counters.rma_operations += 1;
        self.counters.rma_bytes += total;
        if total == 0 {
            return Ok(RmaOp(None));
        }
        // Pieces: accumulates cut at whole elements; a compare-and-swap is
        // one element.
        let header = RmaTarget {
            disp: target.disp,
            count: target.count as u64,
            offset: 0,
            len: 0,
            op,
            ty,
        };
        let budget = self
            .cfg
            .rendezvous_chunk
            .saturating_sub(header.encoded_len() as u64);
        let unit = if accumulates {
            elem.map_or(1, |e| e.size())
        } else {
            1
        };
        let piece = budget - budget % unit;
        if piece == 0 {
            return Err(MpiError::Datatype);
        }
        let pieces = if kind == Kind::RmaCompareSwap {
            1
        } else {
            total.div_ceil(piece)
        };
        let op_id = self.new_op();
        self.rma.ops.insert(
            op_id,
            OriginOp {
                win,
                dst,
                request: None,
                pieces_left: pieces as u32,
                result,
            },
        );
        *self.window_mut(win)?.outstanding.entry(dst).or_insert(0) += 1;
        let me = self.rank();
        for i in 0..pieces {
            let offset = i * piece;
            let len = piece.min(total - offset);
            let body = match kind {
                Kind::RmaGet => &[][..],
                Kind::RmaCompareSwap => &data[..],
                _ => &data[offset as usize..(offset + len) as usize],
            };
            let payload = RmaTarget {
                offset,
                len,
                ..header.clone()
            }
            .encode(body);
            let mut env = rma_envelope(kind, call, me, dst, context, op_id);
            env.msg_len = len;
            self.tsend(dst, &env, &payload);
        }
        Ok(RmaOp(Some(op_id)))
    }

    /// The request of `MPI_Rput`, `MPI_Rget`, `MPI_Raccumulate` or
    /// `MPI_Rget_accumulate`: complete when the operation's answers
    /// arrived (so it is complete at the target as well as locally).
    pub fn rma_request(&mut self, op: RmaOp) -> RequestId {
        let pending = op.0.filter(|id| self.rma.ops.contains_key(id));
        let state = match pending {
            Some(_) => State::Pending(Pending::Rma),
            None => State::Done(Completion::inactive()),
        };
        let req = self.reqs.add(Request::new(state));
        if let Some(o) = pending.and_then(|id| self.rma.ops.get_mut(&id)) {
            o.request = Some(req);
        }
        req
    }

    /// An ack or reply for one of this process's operations.
    pub(super) fn on_rma_answer(&mut self, env: Envelope, payload: &[u8]) {
        let Some(op) = self.rma.ops.get_mut(&env.sender_op) else {
            self.counters.bad_messages += 1;
            return;
        };
        let mut error = super::target::error_of(env.tag);
        if env.kind == Kind::RmaReply && error.is_none() {
            if let Some(r) = &mut op.result {
                if let Err(e) = r.write(env.msg_len, payload) {
                    error = Some(e);
                }
            }
        }
        op.pieces_left = op.pieces_left.saturating_sub(1);
        let (win, dst, done) = (op.win, op.dst, op.pieces_left == 0);
        let request = if done {
            self.rma.ops.remove(&env.sender_op).and_then(|o| o.request)
        } else {
            None
        };
        if let Ok(w) = self.window_mut(win) {
            if done {
                if let Some(n) = w.outstanding.get_mut(&dst) {
                    *n -= 1;
                }
            }
            if request.is_none() && w.error.is_none() {
                w.error = error;
            }
        }
        if let Some(req) = request {
            let status = crate::status::Status {
                error,
                ..crate::status::Status::empty()
            };
            self.finish(
                req,
                crate::status::Completion {
                    status,
                    ..crate::status::Completion::inactive()
                },
            );
        }
    }
}
