//! The payload of a one-sided operation's request message: where in the
//! target's window it applies (displacement, the target datatype's layout
//! and count, the piece of the packed stream this message covers, the
//! reduction op), followed by the origin's packed data.
//!
//! # Layout (little-endian, after the 56-byte envelope)
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | target displacement (i64, in the target window's displacement units) |
//! | 8  | 8 | target count (u64) |
//! | 16 | 8 | packed offset of this piece in the target's stream (u64) |
//! | 24 | 8 | packed length of this piece (u64) |
//! | 32 | 1 | op ([`op_code`]: 0 MAX … 12 REPLACE, 13 NO_OP) |
//! | 33 | 3 | zero |
//! | 36 | 4 | number of run groups *n* (u32) |
//! | 40 | 8 | lb (i64) |
//! | 48 | 8 | ub (i64) |
//! | 56 | 8 | true lb (i64) |
//! | 64 | 8 | true ub (i64) |
//! | 72 | 33 × *n* | run groups: displacement (i64), predefined type (u8, index in `BuiltinType::ALL`), count (u64), stride (i64), repetitions (u64) |
//!
//! A run group is `repetitions` typemap runs of `count` elements of one
//! predefined type, each `stride` bytes after the previous: consecutive
//! runs of a vector of vectors cost one group per inner vector, so the
//! description of a strided target type stays small.
//!
//! then the data: the piece's packed bytes for put and accumulate, for
//! compare-and-swap the origin value then the compare value, nothing for
//! get.

use crate::datatype::{BuiltinType, TypeInfo, TypeRun};
use crate::error::{MpiError, MpiResult};
use crate::op::BuiltinOp;

/// Bytes of a request before its runs (public for closed-form timing
/// models of one-sided operations).
pub const FIXED: usize = 72;
/// Bytes per run group (one for a predefined or contiguous datatype).
pub const RUN: usize = 33;

/// Consecutive runs of equal type and count at a constant stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunGroup {
    first: TypeRun,
    stride: i64,
    reps: u64,
}

/// The runs of `runs` as groups.
fn groups(runs: &[TypeRun]) -> Vec<RunGroup> {
    let mut out: Vec<RunGroup> = Vec::new();
    for r in runs {
        if let Some(g) = out.last_mut() {
            let same = g.first.ty == r.ty && g.first.count == r.count;
            let next = g
                .first
                .disp
                .checked_add(g.stride.checked_mul(g.reps as i64).unwrap_or(i64::MAX));
            if same && g.reps == 1 {
                if let Some(stride) = r.disp.checked_sub(g.first.disp) {
                    g.stride = stride;
                    g.reps = 2;
                    continue;
                }
            } else if same && next == Some(r.disp) {
                g.reps += 1;
                continue;
            }
        }
        out.push(RunGroup {
            first: *r,
            stride: 0,
            reps: 1,
        });
    }
    out
}

/// Where one RMA request message applies in the target window.
#[derive(Clone, Debug, PartialEq)]
pub struct RmaTarget {
    /// Target displacement, in the target window's displacement units.
    pub disp: i64,
    /// Instances of the target datatype.
    pub count: u64,
    /// First packed byte of the target stream this message covers.
    pub offset: u64,
    /// Packed bytes this message covers.
    pub len: u64,
    /// The reduction (`Replace` for put, `NoOp` for get).
    pub op: BuiltinOp,
    /// The target datatype's layout (as the origin knows it).
    pub ty: TypeInfo,
}

/// Every predefined op in wire order.
const OPS: [BuiltinOp; 14] = {
    use BuiltinOp::*;
    [
        Max, Min, Sum, Prod, Land, Band, Lor, Bor, Lxor, Bxor, Minloc, Maxloc, Replace, NoOp,
    ]
};

/// The wire code of a predefined op.
pub fn op_code(op: BuiltinOp) -> u8 {
    OPS.iter().position(|&o| o == op).unwrap_or(0) as u8
}

/// The op a wire code names.
pub fn op_of(code: u8) -> Option<BuiltinOp> {
    OPS.get(code as usize).copied()
}

fn type_code(b: BuiltinType) -> u8 {
    BuiltinType::ALL.iter().position(|&t| t == b).unwrap_or(0) as u8
}

impl RmaTarget {
    /// Bytes of the encoded header (the data follows).
    pub fn encoded_len(&self) -> usize {
        FIXED + RUN * groups(&self.ty.runs).len()
    }

    /// The header followed by `data`.
    pub fn encode(&self, data: &[u8]) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.encoded_len() + data.len());
        v.extend_from_slice(&self.disp.to_le_bytes());
        v.extend_from_slice(&self.count.to_le_bytes());
        v.extend_from_slice(&self.offset.to_le_bytes());
        v.extend_from_slice(&self.len.to_le_bytes());
        v.extend_from_slice(&[op_code(self.op), 0, 0, 0]);
        let groups = groups(&self.ty.runs);
        v.extend_from_slice(&(groups.len() as u32).to_le_bytes());
        for x in [self.ty.lb, self.ty.ub, self.ty.true_lb, self.ty.true_ub] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        for g in &groups {
            v.extend_from_slice(&g.first.disp.to_le_bytes());
            v.push(type_code(g.first.ty));
            v.extend_from_slice(&g.first.count.to_le_bytes());
            v.extend_from_slice(&g.stride.to_le_bytes());
            v.extend_from_slice(&g.reps.to_le_bytes());
        }
        v.extend_from_slice(data);
        v
    }

    /// The header of `payload` and the data after it; garbage is
    /// `MPI_ERR_OTHER`, never a panic.
    pub fn decode(payload: &[u8]) -> MpiResult<(RmaTarget, &[u8])> {
        let bad = MpiError::Other;
        let u64_at = |o: usize| -> MpiResult<u64> {
            let b = payload.get(o..o + 8).ok_or(bad)?;
            Ok(u64::from_le_bytes(b.try_into().map_err(|_| bad)?))
        };
        let i64_at = |o: usize| u64_at(o).map(|v| v as i64);
        let op = op_of(*payload.get(32).ok_or(bad)?).ok_or(bad)?;
        let n = u32::from_le_bytes(
            payload
                .get(36..40)
                .ok_or(bad)?
                .try_into()
                .map_err(|_| bad)?,
        ) as usize;
        let end = n
            .checked_mul(RUN)
            .and_then(|r| r.checked_add(FIXED))
            .ok_or(bad)?;
        if payload.len() < end {
            return Err(bad);
        }
        let mut runs = Vec::with_capacity(n);
        let mut size = 0u64;
        for i in 0..n {
            let o = FIXED + RUN * i;
            let ty = *BuiltinType::ALL.get(payload[o + 8] as usize).ok_or(bad)?;
            let (disp, count) = (i64_at(o)?, u64_at(o + 9)?);
            let (stride, reps) = (i64_at(o + 17)?, u64_at(o + 25)?);
            // The data the runs describe: never more than the message
            // could move, so garbage cannot make the engine allocate.
            size = count
                .checked_mul(ty.size())
                .and_then(|b| b.checked_mul(reps))
                .and_then(|b| b.checked_add(size))
                .filter(|&b| b <= u64::from(u32::MAX))
                .ok_or(bad)?;
            for k in 0..reps as i64 {
                let disp = stride
                    .checked_mul(k)
                    .and_then(|d| d.checked_add(disp))
                    .ok_or(bad)?;
                runs.push(TypeRun { disp, ty, count });
            }
        }
        let ty = TypeInfo::from_layout(
            runs,
            size,
            (i64_at(40)?, i64_at(48)?),
            (i64_at(56)?, i64_at(64)?),
        );
        let t = RmaTarget {
            disp: i64_at(0)?,
            count: u64_at(8)?,
            offset: u64_at(16)?,
            len: u64_at(24)?,
            op,
            ty,
        };
        Ok((t, &payload[end..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::{DatatypeId, Datatypes};

    #[test]
    fn a_vector_of_vectors_travels_as_one_group_per_inner_vector() {
        let mut types = Datatypes::new();
        let int = DatatypeId::Builtin(BuiltinType::Int);
        let column = types.vector(100, 1, 50, int).unwrap();
        let xpose = types.hvector(50, 1, 4, column).unwrap();
        types.commit(xpose).unwrap();
        let ty = types.committed(xpose).unwrap().clone();
        assert_eq!(ty.runs.len(), 5000);
        let t = RmaTarget {
            disp: 0,
            count: 1,
            offset: 0,
            len: 0,
            op: BuiltinOp::Replace,
            ty,
        };
        assert_eq!(t.encoded_len(), 72 + 33 * 50);
        let (back, _) = RmaTarget::decode(&t.encode(&[])).unwrap();
        assert_eq!(back.ty.runs, t.ty.runs);
        assert_eq!(back.ty.size, 5000 * 4);
    }

    #[test]
    fn a_vector_type_and_its_data_round_trip() {
        let mut types = Datatypes::new();
        let v = types
            .vector(3, 2, 5, DatatypeId::Builtin(BuiltinType::Double))
            .unwrap();
        types.commit(v).unwrap();
        let ty = types.committed(v).unwrap().clone();
        let t = RmaTarget {
            disp: -7,
            count: 4,
            offset: 96,
            len: 48,
            op: BuiltinOp::Maxloc,
            ty,
        };
        let bytes = t.encode(b"data");
        assert_eq!(bytes.len(), t.encoded_len() + 4);
        let (back, data) = RmaTarget::decode(&bytes).unwrap();
        assert_eq!(data, b"data");
        assert_eq!(back.disp, -7);
        assert_eq!((back.count, back.offset, back.len), (4, 96, 48));
        assert_eq!(back.op, BuiltinOp::Maxloc);
        assert_eq!(back.ty.runs, t.ty.runs);
        assert_eq!(back.ty.size, 48);
        assert_eq!((back.ty.lb, back.ty.ub), (t.ty.lb, t.ty.ub));
        for cut in 0..t.encoded_len() {
            assert!(RmaTarget::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
