//! The numbers a recorded trace uses for predefined datatypes and
//! reductions (see `mpinetsim_protocol::trace_calls`): the recording shim
//! and the replaying gateway both link this engine, so both sides agree.
//! 0 stands for a derived datatype or a user-defined operation.

use crate::datatype::{BuiltinType, DatatypeId};
use crate::op::{BuiltinOp, OpId};

/// Every predefined reduction, in code order (code = index + 1).
pub const BUILTIN_OPS: [BuiltinOp; 14] = [
    BuiltinOp::Max,
    BuiltinOp::Min,
    BuiltinOp::Sum,
    BuiltinOp::Prod,
    BuiltinOp::Land,
    BuiltinOp::Band,
    BuiltinOp::Lor,
    BuiltinOp::Bor,
    BuiltinOp::Lxor,
    BuiltinOp::Bxor,
    BuiltinOp::Minloc,
    BuiltinOp::Maxloc,
    BuiltinOp::Replace,
    BuiltinOp::NoOp,
];

/// A datatype's code: 1 + its index among the predefined types, 0 if derived.
pub fn type_code(dt: DatatypeId) -> u16 {
    match dt {
        DatatypeId::Builtin(b) => BuiltinType::ALL
            .iter()
            .position(|x| *x == b)
            .map_or(0, |i| i as u16 + 1),
        DatatypeId::Derived(_) => 0,
    }
}

/// The predefined datatype a code names (None: derived or unknown).
pub fn type_of_code(code: u16) -> Option<BuiltinType> {
    BuiltinType::ALL
        .get(usize::from(code).checked_sub(1)?)
        .copied()
}

/// An operation's code: 1 + its index in [`BUILTIN_OPS`], 0 if user-defined.
pub fn op_code(op: OpId) -> u8 {
    match op {
        OpId::Builtin(b) => BUILTIN_OPS
            .iter()
            .position(|x| *x == b)
            .map_or(0, |i| i as u8 + 1),
        OpId::User(_) => 0,
    }
}

/// The predefined operation a code names (None: user-defined or unknown).
pub fn op_of_code(code: u8) -> Option<BuiltinOp> {
    BUILTIN_OPS.get(usize::from(code).checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_name_the_same_type_and_op_back_and_derived_ones_are_0() {
        for b in BuiltinType::ALL {
            assert_eq!(type_of_code(type_code(DatatypeId::Builtin(*b))), Some(*b));
        }
        for op in BUILTIN_OPS {
            assert_eq!(op_of_code(op_code(OpId::Builtin(op))), Some(op));
        }
        assert_eq!(type_code(DatatypeId::Derived(3)), 0);
        assert_eq!(op_code(OpId::User(1)), 0);
        assert_eq!(type_of_code(0), None);
        assert_eq!(op_of_code(0), None);
    }
}
