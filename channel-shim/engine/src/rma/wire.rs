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
//! | 36 | 4 | number of typemap runs *n* (u32) |
//! | 40 | 8 | lb (i64) |
//! | 48 | 8 | ub (i64) |
//! | 56 | 8 | true lb (i64) |
//! | 64 | 8 | true ub (i64) |
//! | 72 | 17 × *n* | runs: displacement (i64), predefined type (u8, index in `BuiltinType::ALL`), count (u64) |
//!
//! then the data: the piece's packed bytes for put and accumulate, for
//! compare-and-swap the origin value then the compare value, nothing for
//! get.

use crate::datatype::{BuiltinType, TypeInfo, TypeRun};
use crate::error::{MpiError, MpiResult};
use crate::op::BuiltinOp;

/// Bytes before the runs.
const FIXED: usize = 72;
/// Bytes per run.
const RUN: usize = 17;

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
        FIXED + RUN * self.ty.runs.len()
    }

    /// The header followed by `data`.
    pub fn encode(&self, data: &[u8]) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.encoded_len() + data.len());
        v.extend_from_slice(&self.disp.to_le_bytes());
        v.extend_from_slice(&self.count.to_le_bytes());
        v.extend_from_slice(&self.offset.to_le_bytes());
        v.extend_from_slice(&self.len.to_le_bytes());
        v.extend_from_slice(&[op_code(self.op), 0, 0, 0]);
        v.extend_from_slice(&(self.ty.runs.len() as u32).to_le_bytes());
        for x in [self.ty.lb, self.ty.ub, self.ty.true_lb, self.ty.true_ub] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        for r in &self.ty.runs {
            v.extend_from_slice(&r.disp.to_le_bytes());
            v.push(type_code(r.ty));
            v.extend_from_slice(&r.count.to_le_bytes());
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
        let n = u32::from_le_bytes(payload.get(36..40).ok_or(bad)?.try_into().map_err(|_| bad)?)
            as usize;
        let end = n
            .checked_mul(RUN)
            .and_then(|r| r.checked_add(FIXED))
            .ok_or(bad)?;
        if payload.len() < end {
            return Err(bad);
        }
        let mut runs = Vec::with_capacity(n);
        for i in 0..n {
            let o = FIXED + RUN * i;
            let ty = *BuiltinType::ALL.get(payload[o + 8] as usize).ok_or(bad)?;
            runs.push(TypeRun {
                disp: i64_at(o)?,
                ty,
                count: u64_at(o + 9)?,
            });
        }
        let size = runs.iter().map(|r| r.count * r.ty.size()).sum();
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
