//! The target's side: applying an arrived request to the window's memory
//! and answering it.

use super::wire::RmaTarget;
use super::WinId;
use crate::datatype::{pack_range, packed_range_bounds, unpack_range};
use crate::envelope::{Envelope, Kind};
use crate::error::{MpiError, MpiResult};
use crate::op::apply;
use crate::transport::Transport;
use crate::Engine;

/// The error an answer's tag reports (0: none).
pub(super) fn error_of(tag: i32) -> Option<MpiError> {
    match tag {
        0 => None,
        1 => Some(MpiError::RmaRange),
        2 => Some(MpiError::Op),
        3 => Some(MpiError::Datatype),
        _ => Some(MpiError::Other),
    }
}

/// The tag of an answer reporting `e`.
fn tag_of(e: MpiError) -> i32 {
    match e {
        MpiError::Buffer | MpiError::Truncate | MpiError::Count | MpiError::RmaRange => 1,
        MpiError::Op => 2,
        MpiError::Datatype => 3,
        _ => 4,
    }
}

impl<T: Transport> Engine<T> {
    /// Applies a put, get, accumulate, get-accumulate or compare-and-swap
    /// to `win` and answers the origin.
    pub(super) fn apply_rma(&mut self, win: WinId, env: Envelope, payload: &[u8]) {
        let outcome = self.apply_to_window(win, env.kind, payload);
        let (kind, tag, offset, data) = match outcome {
            Ok((offset, old)) => {
                let kind = if env.kind == Kind::RmaPut || env.kind == Kind::RmaAccumulate {
                    Kind::RmaAck
                } else {
                    Kind::RmaReply
                };
                (kind, 0, offset, old)
            }
            Err(e) => (Kind::RmaAck, tag_of(e), 0, Vec::new()),
        };
        let mut answer = super::origin::rma_envelope(
            kind,
            env.call,
            env.dst,
            env.src,
            env.context,
            env.sender_op,
        );
        answer.tag = tag;
        answer.msg_len = offset;
        self.tsend(env.src, &answer, &data);
    }

    /// The piece's packed offset and the old contents it covers (empty
    /// for put and accumulate).
    fn apply_to_window(
        &mut self,
        win: WinId,
        kind: Kind,
        payload: &[u8],
    ) -> MpiResult<(u64, Vec<u8>)> {
        let (t, data) = RmaTarget::decode(payload)?;
        let w = self.window_mut(win)?;
        let unit = i64::from(w.info.disp_unit);
        let at = t.disp.checked_mul(unit).ok_or(MpiError::RmaRange)?;
        let count = usize::try_from(t.count).map_err(|_| MpiError::Count)?;
        let len = usize::try_from(t.len).map_err(|_| MpiError::Count)?;
        // The bytes the piece touches, relative to the operation's address.
        let touched = packed_range_bounds(&t.ty, count, t.offset, len)?;
        w.memory.with_span(at, touched, |mem, base| {
            apply_piece(&t, kind, data, count, len, mem, base)
        })
    }
}

/// Applies one piece of an operation to the target memory `mem` (whose
/// first byte is `base` from the operation's address): the piece's packed
/// offset and the old contents it covers (empty for put and accumulate).
fn apply_piece(
    t: &RmaTarget,
    kind: Kind,
    data: &[u8],
    count: usize,
    len: usize,
    mem: &mut [u8],
    base: i64,
) -> MpiResult<(u64, Vec<u8>)> {
    let range = |e: MpiError| match e {
        MpiError::Buffer => MpiError::RmaRange,
        e => e,
    };
    let mut old = Vec::with_capacity(len);
    let elem = t.ty.runs.first().map(|r| r.ty);
    match kind {
        Kind::RmaPut => {
            if data.len() != len {
                return Err(MpiError::Count);
            }
            unpack_range(&t.ty, count, mem, base, t.offset, data).map_err(range)?;
            return Ok((t.offset, Vec::new()));
        }
        Kind::RmaGet => {
            pack_range(&t.ty, count, mem, base, t.offset, len, &mut old).map_err(range)?;
            return Ok((t.offset, old));
        }
        _ => {}
    }
    let elem = elem.ok_or(MpiError::Datatype)?;
    pack_range(&t.ty, count, mem, base, t.offset, len, &mut old).map_err(range)?;
    let new = if kind == Kind::RmaCompareSwap {
        if data.len() != 2 * len {
            return Err(MpiError::Count);
        }
        let (origin, compare) = data.split_at(len);
        (old == compare).then(|| origin.to_vec())
    } else {
        if data.len() != len {
            return Err(MpiError::Count);
        }
        let mut new = old.clone();
        apply(t.op, elem, data, &mut new)?;
        (t.op != crate::op::BuiltinOp::NoOp).then_some(new)
    };
    if let Some(new) = new {
        unpack_range(&t.ty, count, mem, base, t.offset, &new).map_err(range)?;
    }
    let old = if kind == Kind::RmaAccumulate {
        Vec::new()
    } else {
        old
    };
    Ok((t.offset, old))
}
