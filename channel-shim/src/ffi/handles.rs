//! MPICH handle integers ⇄ engine identifiers.
//!
//! Predefined handles keep MPICH's values (taken from mpi.h, see
//! `crate::abi`); objects the program creates get handles in ranges MPICH's
//! predefined objects never use: communicator `0x8400_0000 + id`, group
//! `0x8800_0000 + id`, datatype `0xcc00_0000 + id`, op `0x9800_0000 + id`,
//! request `0xac00_0000 + id`.

use crate::abi::*;
use shim_engine::datatype::TypeArg;
use shim_engine::mprobe::MessageId;
use shim_engine::rma::WinId;
use shim_engine::{
    BuiltinOp, BuiltinType, CommId, DatatypeId, Dest, ErrhandlerId, GroupId, Keyval, MpiError,
    ObjectKind, OpId, RequestId, Source, Tag,
};
use std::os::raw::c_int;

const COMM_BASE: u32 = 0x8400_0000;
const GROUP_BASE: u32 = 0x8800_0000;
const TYPE_BASE: u32 = 0xcc00_0000;
const OP_BASE: u32 = 0x9800_0000;
const REQUEST_BASE: u32 = 0xac00_0000;
const ERRHANDLER_BASE: u32 = 0x9400_0000;
/// Windows: MPICH's direct window handles.
const WIN_BASE: u32 = 0xa000_0000;
/// Messages of matched probes (MPICH's messages are requests too: this is
/// its indirect-request prefix, which its predefined handles never use).
const MESSAGE_BASE: u32 = 0xec00_0000;
const ID_MASK: u32 = 0x00ff_ffff;
/// Created keyvals: MPICH's direct keyval handles, the object kind in bits
/// 22..26 (communicator 1, window 2, datatype 3).
const KEYVAL_BASE: u32 = 0xa400_0000;
const KEYVAL_KIND_SHIFT: u32 = 22;
const KEYVAL_ID_MASK: u32 = 0x003f_ffff;

fn bits(h: c_int) -> u32 {
    h as u32
}

/// The communicator a handle names.
pub fn comm_from(h: c_int) -> Result<CommId, MpiError> {
    match h {
        MPI_COMM_WORLD => Ok(CommId::WORLD),
        MPI_COMM_SELF => Ok(CommId::SELF),
        _ if bits(h) & !ID_MASK == COMM_BASE => Ok(CommId(bits(h) & ID_MASK)),
        _ => Err(MpiError::Comm),
    }
}

/// The handle of a communicator.
pub fn comm_to(c: CommId) -> c_int {
    if c == CommId::WORLD {
        MPI_COMM_WORLD
    } else if c == CommId::SELF {
        MPI_COMM_SELF
    } else {
        (COMM_BASE | c.0) as c_int
    }
}

/// The window a handle names.
pub fn win_from(h: c_int) -> Result<WinId, MpiError> {
    match bits(h) {
        b if b & !ID_MASK == WIN_BASE && h != MPI_WIN_NULL => Ok(WinId((b & ID_MASK) - 1)),
        _ => Err(MpiError::Win),
    }
}

/// The handle of a window (never `MPI_WIN_NULL`, which is `WIN_BASE`).
pub fn win_to(w: WinId) -> c_int {
    (WIN_BASE | (w.0 + 1)) as c_int
}

/// The group a handle names.
pub fn group_from(h: c_int) -> Result<GroupId, MpiError> {
    match h {
        MPI_GROUP_EMPTY => Ok(GroupId::EMPTY),
        _ if bits(h) & !ID_MASK == GROUP_BASE => Ok(GroupId(bits(h) & ID_MASK)),
        _ => Err(MpiError::Group),
    }
}

/// The handle of a group.
pub fn group_to(g: GroupId) -> c_int {
    if g == GroupId::EMPTY {
        MPI_GROUP_EMPTY
    } else {
        (GROUP_BASE | g.0) as c_int
    }
}

/// Predefined datatypes: MPICH handle and engine type, in mpi.h order.
pub const BUILTIN_TYPES: &[(c_int, BuiltinType)] = {
    use BuiltinType as B;
    &[
        (MPI_CHAR, B::Char),
        (MPI_SIGNED_CHAR, B::SignedChar),
        (MPI_UNSIGNED_CHAR, B::UnsignedChar),
        (MPI_BYTE, B::Byte),
        (MPI_WCHAR, B::Wchar),
        (MPI_SHORT, B::Short),
        (MPI_UNSIGNED_SHORT, B::UnsignedShort),
        (MPI_INT, B::Int),
        (MPI_UNSIGNED, B::Unsigned),
        (MPI_LONG, B::Long),
        (MPI_UNSIGNED_LONG, B::UnsignedLong),
        (MPI_FLOAT, B::Float),
        (MPI_DOUBLE, B::Double),
        (MPI_LONG_DOUBLE, B::LongDouble),
        (MPI_LONG_LONG_INT, B::LongLongInt),
        (MPI_UNSIGNED_LONG_LONG, B::UnsignedLongLong),
        (MPI_PACKED, B::Packed),
        (MPI_FLOAT_INT, B::FloatInt),
        (MPI_DOUBLE_INT, B::DoubleInt),
        (MPI_LONG_INT, B::LongInt),
        (MPI_SHORT_INT, B::ShortInt),
        (MPI_2INT, B::TwoInt),
        (MPI_LONG_DOUBLE_INT, B::LongDoubleInt),
        (MPI_COMPLEX, B::Complex),
        (MPI_DOUBLE_COMPLEX, B::DoubleComplex),
        (MPI_LOGICAL, B::Logical),
        (MPI_REAL, B::Real),
        (MPI_DOUBLE_PRECISION, B::DoublePrecision),
        (MPI_INTEGER, B::Integer),
        (MPI_2INTEGER, B::TwoInteger),
        (MPI_2REAL, B::TwoReal),
        (MPI_2DOUBLE_PRECISION, B::TwoDoublePrecision),
        (MPI_CHARACTER, B::Character),
        (MPI_REAL4, B::Real4),
        (MPI_REAL8, B::Real8),
        (MPI_REAL16, B::Real16),
        (MPI_COMPLEX8, B::Complex8),
        (MPI_COMPLEX16, B::Complex16),
        (MPI_COMPLEX32, B::Complex32),
        (MPI_INTEGER1, B::Integer1),
        (MPI_INTEGER2, B::Integer2),
        (MPI_INTEGER4, B::Integer4),
        (MPI_INTEGER8, B::Integer8),
        (MPI_INT8_T, B::Int8),
        (MPI_INT16_T, B::Int16),
        (MPI_INT32_T, B::Int32),
        (MPI_INT64_T, B::Int64),
        (MPI_UINT8_T, B::Uint8),
        (MPI_UINT16_T, B::Uint16),
        (MPI_UINT32_T, B::Uint32),
        (MPI_UINT64_T, B::Uint64),
        (MPI_C_BOOL, B::CBool),
        (MPI_C_FLOAT_COMPLEX, B::CFloatComplex),
        (MPI_C_DOUBLE_COMPLEX, B::CDoubleComplex),
        (MPI_C_LONG_DOUBLE_COMPLEX, B::CLongDoubleComplex),
        (MPI_AINT, B::Aint),
        (MPI_OFFSET, B::Offset),
        (MPI_COUNT, B::Count),
        (MPI_CXX_BOOL, B::CxxBool),
        (MPI_CXX_FLOAT_COMPLEX, B::CxxFloatComplex),
        (MPI_CXX_DOUBLE_COMPLEX, B::CxxDoubleComplex),
        (MPI_CXX_LONG_DOUBLE_COMPLEX, B::CxxLongDoubleComplex),
    ]
};

/// The datatype a handle names.
pub fn datatype_from(h: c_int) -> Result<DatatypeId, MpiError> {
    if bits(h) & !ID_MASK == TYPE_BASE {
        return Ok(DatatypeId::Derived(bits(h) & ID_MASK));
    }
    BUILTIN_TYPES
        .iter()
        .find(|(handle, _)| *handle == h)
        .map(|&(_, b)| DatatypeId::Builtin(b))
        .ok_or(MpiError::Datatype)
}

/// The datatype of a point-to-point buffer of `count` instances: as
/// Debian's MPICH does, `MPI_DATATYPE_NULL` is accepted for an empty
/// buffer (it then moves no bytes).
pub fn buffer_datatype_from(
    h: c_int,
    count: impl crate::ffi::large_count::CInt,
) -> Result<DatatypeId, MpiError> {
    if h == MPI_DATATYPE_NULL && count.wide() == 0 {
        return Ok(DatatypeId::Builtin(BuiltinType::Byte));
    }
    datatype_from(h)
}

/// A datatype argument of a constructor: a datatype, or MPI-1's
/// `MPI_LB` / `MPI_UB` marker.
pub fn type_arg_from(h: c_int) -> Result<TypeArg, MpiError> {
    match h {
        MPI_LB => Ok(TypeArg::Lb),
        MPI_UB => Ok(TypeArg::Ub),
        _ => datatype_from(h).map(TypeArg::Type),
    }
}

/// The handle of a constructor's datatype argument.
pub fn type_arg_to(a: TypeArg) -> c_int {
    match a {
        TypeArg::Lb => MPI_LB,
        TypeArg::Ub => MPI_UB,
        TypeArg::Type(t) => datatype_to(t),
    }
}

/// The handle of a datatype.
pub fn datatype_to(d: DatatypeId) -> c_int {
    match d {
        DatatypeId::Derived(n) => (TYPE_BASE | n) as c_int,
        DatatypeId::Builtin(b) => BUILTIN_TYPES
            .iter()
            .find(|(_, t)| *t == b)
            .map(|&(h, _)| h)
            .expect("every builtin type has a handle"),
    }
}

const BUILTIN_OPS: &[(c_int, BuiltinOp)] = {
    use BuiltinOp as O;
    &[
        (MPI_MAX, O::Max),
        (MPI_MIN, O::Min),
        (MPI_SUM, O::Sum),
        (MPI_PROD, O::Prod),
        (MPI_LAND, O::Land),
        (MPI_BAND, O::Band),
        (MPI_LOR, O::Lor),
        (MPI_BOR, O::Bor),
        (MPI_LXOR, O::Lxor),
        (MPI_BXOR, O::Bxor),
        (MPI_MINLOC, O::Minloc),
        (MPI_MAXLOC, O::Maxloc),
        (MPI_REPLACE, O::Replace),
        (MPI_NO_OP, O::NoOp),
    ]
};

/// The reduction operation a handle names.
pub fn op_from(h: c_int) -> Result<OpId, MpiError> {
    if bits(h) & !ID_MASK == OP_BASE {
        return Ok(OpId::User(bits(h) & ID_MASK));
    }
    BUILTIN_OPS
        .iter()
        .find(|(x, _)| *x == h)
        .map(|&(_, o)| OpId::Builtin(o))
        .ok_or(MpiError::Op)
}

/// The datatype and op of a reduction. MPICH checks the op first and, for
/// a predefined op, asks the op whether it is defined on the datatype, so
/// an invalid datatype handle is then `MPI_ERR_OP`, not `MPI_ERR_TYPE`.
pub fn reduction_from(datatype: c_int, op: c_int) -> Result<(DatatypeId, OpId), MpiError> {
    let o = op_from(op)?;
    let dt = datatype_from(datatype).map_err(|e| match o {
        OpId::Builtin(_) => MpiError::Op,
        OpId::User(_) => e,
    })?;
    Ok((dt, o))
}

/// The handle of an operation.
pub fn op_to(o: OpId) -> c_int {
    match o {
        OpId::User(n) => (OP_BASE | n) as c_int,
        OpId::Builtin(b) => BUILTIN_OPS
            .iter()
            .find(|(_, x)| *x == b)
            .map(|&(h, _)| h)
            .expect("builtin op"),
    }
}

/// The request a handle names; `MPI_REQUEST_NULL` is None.
pub fn request_from(h: c_int) -> Result<Option<RequestId>, MpiError> {
    if h == MPI_REQUEST_NULL {
        Ok(None)
    } else if bits(h) & !ID_MASK == REQUEST_BASE {
        Ok(Some(RequestId(bits(h) & ID_MASK)))
    } else {
        Err(MpiError::Request)
    }
}

/// The handle of a request.
pub fn request_to(r: RequestId) -> c_int {
    (REQUEST_BASE | (r.0 & ID_MASK)) as c_int
}

fn keyval_kind_bits(kind: ObjectKind) -> u32 {
    match kind {
        ObjectKind::Comm => 1,
        ObjectKind::Win => 2,
        ObjectKind::Datatype => 3,
    }
}

/// The handle of a keyval for objects of `kind` (MPICH's: `0xa4400000 + n`
/// for communicators, `0xa4c00000 + n` for datatypes).
pub fn keyval_to(kind: ObjectKind, k: Keyval) -> c_int {
    (KEYVAL_BASE | keyval_kind_bits(kind) << KEYVAL_KIND_SHIFT | (k.0 & KEYVAL_ID_MASK)) as c_int
}

/// The keyval a handle names, with the kind of objects its handle says it
/// is for (`MPI_ERR_KEYVAL` for anything else, predefined keyvals included).
pub fn keyval_from(h: c_int) -> Result<(ObjectKind, Keyval), MpiError> {
    let b = bits(h);
    if b & 0xfc00_0000 != KEYVAL_BASE {
        return Err(MpiError::Keyval);
    }
    let kind = match (b >> KEYVAL_KIND_SHIFT) & 0xf {
        1 => ObjectKind::Comm,
        2 => ObjectKind::Win,
        3 => ObjectKind::Datatype,
        _ => return Err(MpiError::Keyval),
    };
    Ok((kind, Keyval(b & KEYVAL_ID_MASK)))
}

/// The error handler a handle names.
pub fn errhandler_from(h: c_int) -> Result<ErrhandlerId, MpiError> {
    match h {
        MPI_ERRORS_ARE_FATAL => Ok(ErrhandlerId::FATAL),
        MPI_ERRORS_RETURN => Ok(ErrhandlerId::RETURN),
        MPI_ERRORS_ABORT => Ok(ErrhandlerId::ABORT),
        _ if bits(h) & !ID_MASK == ERRHANDLER_BASE => Ok(ErrhandlerId(bits(h) & ID_MASK)),
        _ => Err(MpiError::Arg),
    }
}

/// The handle of an error handler.
pub fn errhandler_to(e: ErrhandlerId) -> c_int {
    match e {
        ErrhandlerId::FATAL => MPI_ERRORS_ARE_FATAL,
        ErrhandlerId::RETURN => MPI_ERRORS_RETURN,
        ErrhandlerId::ABORT => MPI_ERRORS_ABORT,
        ErrhandlerId(n) => (ERRHANDLER_BASE | (n & ID_MASK)) as c_int,
    }
}

/// A message handle: `MPI_MESSAGE_NO_PROC` is `None`; `MPI_MESSAGE_NULL`
/// and anything else no probe handed out is `MPI_ERR_REQUEST`.
pub fn message_from(h: c_int) -> Result<Option<MessageId>, MpiError> {
    if h == MPI_MESSAGE_NO_PROC {
        Ok(None)
    } else if bits(h) & !ID_MASK == MESSAGE_BASE {
        Ok(Some(MessageId(bits(h) & ID_MASK)))
    } else {
        Err(MpiError::Request)
    }
}

/// The handle of a message (`None`: `MPI_MESSAGE_NO_PROC`).
pub fn message_to(m: Option<MessageId>) -> c_int {
    match m {
        None => MPI_MESSAGE_NO_PROC,
        Some(m) => (MESSAGE_BASE | (m.0 & ID_MASK)) as c_int,
    }
}

/// A source rank argument.
pub fn source_from(rank: c_int) -> Result<Source, MpiError> {
    match rank {
        MPI_ANY_SOURCE => Ok(Source::Any),
        MPI_PROC_NULL => Ok(Source::ProcNull),
        r if r >= 0 => Ok(Source::Rank(r as u32)),
        _ => Err(MpiError::Rank),
    }
}

/// A destination rank argument.
pub fn dest_from(rank: c_int) -> Result<Dest, MpiError> {
    match rank {
        MPI_PROC_NULL => Ok(Dest::ProcNull),
        r if r >= 0 => Ok(Dest::Rank(r as u32)),
        _ => Err(MpiError::Rank),
    }
}

/// A receive tag argument.
pub fn tag_from(tag: c_int) -> Result<Tag, MpiError> {
    match tag {
        MPI_ANY_TAG => Ok(Tag::Any),
        t if t >= 0 => Ok(Tag::Value(t)),
        _ => Err(MpiError::Tag),
    }
}

/// A send tag argument (no wildcard).
pub fn send_tag(tag: c_int) -> Result<i32, MpiError> {
    if tag >= 0 {
        Ok(tag)
    } else {
        Err(MpiError::Tag)
    }
}

/// A count argument (`int`, or `MPI_Count` in a large-count routine).
pub fn count_from(count: impl crate::ffi::large_count::CInt) -> Result<usize, MpiError> {
    crate::ffi::large_count::count_of(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_type_has_a_distinct_handle_of_its_size() {
        assert_eq!(BUILTIN_TYPES.len(), BuiltinType::ALL.len());
        for b in BuiltinType::ALL {
            let h = datatype_to(DatatypeId::Builtin(*b));
            assert_eq!(datatype_from(h), Ok(DatatypeId::Builtin(*b)));
            if let Some(size) = crate::abi::builtin_datatype_size(h) {
                assert_eq!(size as u64, b.size(), "{b:?}");
            }
        }
    }

    #[test]
    fn created_handles_round_trip_and_nulls_are_rejected() {
        assert_eq!(comm_from(comm_to(CommId(7))), Ok(CommId(7)));
        assert_eq!(comm_from(MPI_COMM_NULL), Err(MpiError::Comm));
        assert_eq!(
            request_from(request_to(RequestId(3))),
            Ok(Some(RequestId(3)))
        );
        assert_eq!(request_from(MPI_REQUEST_NULL), Ok(None));
        assert_eq!(op_from(op_to(OpId::User(2))), Ok(OpId::User(2)));
        assert_eq!(op_from(MPI_SUM), Ok(OpId::Builtin(BuiltinOp::Sum)));
        assert_eq!(group_from(group_to(GroupId(4))), Ok(GroupId(4)));
        assert_eq!(datatype_from(MPI_DATATYPE_NULL), Err(MpiError::Datatype));
    }

    #[test]
    fn keyval_and_errhandler_handles_are_mpichs() {
        assert_eq!(
            keyval_to(ObjectKind::Comm, Keyval(0)),
            0xa440_0000u32 as c_int
        );
        assert_eq!(
            keyval_to(ObjectKind::Datatype, Keyval(1)),
            0xa4c0_0001u32 as c_int
        );
        for kind in [ObjectKind::Comm, ObjectKind::Datatype, ObjectKind::Win] {
            let h = keyval_to(kind, Keyval(77));
            assert_eq!(keyval_from(h), Ok((kind, Keyval(77))));
        }
        for h in [MPI_KEYVAL_INVALID, MPI_TAG_UB, 12345, -1] {
            assert_eq!(keyval_from(h), Err(MpiError::Keyval), "{h:#x}");
        }
        assert_eq!(errhandler_to(ErrhandlerId(3)), 0x9400_0003u32 as c_int);
        for e in [
            ErrhandlerId::FATAL,
            ErrhandlerId::RETURN,
            ErrhandlerId::ABORT,
            ErrhandlerId(9),
        ] {
            assert_eq!(errhandler_from(errhandler_to(e)), Ok(e));
        }
        assert_eq!(errhandler_from(MPI_ERRHANDLER_NULL), Err(MpiError::Arg));
    }

    #[test]
    fn garbage_and_handles_of_the_wrong_kind_are_rejected() {
        for h in [12345, -1, 0x4400_0007, MPI_INT, MPI_GROUP_EMPTY, MPI_SUM] {
            assert_eq!(comm_from(h), Err(MpiError::Comm), "{h:#x}");
        }
        for h in [12345, -1, 0x4c00_ffff, MPI_COMM_WORLD, MPI_SUM] {
            assert_eq!(datatype_from(h), Err(MpiError::Datatype), "{h:#x}");
        }
        for h in [12345, -1, 0x5800_0077, MPI_INT, MPI_COMM_WORLD] {
            assert_eq!(op_from(h), Err(MpiError::Op), "{h:#x}");
        }
        for h in [12345, -1, MPI_GROUP_NULL, MPI_COMM_WORLD] {
            assert_eq!(group_from(h), Err(MpiError::Group), "{h:#x}");
        }
        for h in [12345, -1, 0x2c00_0007, MPI_COMM_WORLD] {
            assert_eq!(request_from(h), Err(MpiError::Request), "{h:#x}");
        }
    }

    #[test]
    fn a_bad_datatype_under_a_predefined_op_is_an_op_error() {
        assert_eq!(reduction_from(12345, MPI_SUM), Err(MpiError::Op));
        assert_eq!(reduction_from(MPI_INT, 12345), Err(MpiError::Op));
        let user = op_to(OpId::User(1));
        assert_eq!(reduction_from(12345, user), Err(MpiError::Datatype));
        assert_eq!(
            reduction_from(MPI_INT, MPI_SUM),
            Ok((
                DatatypeId::Builtin(BuiltinType::Int),
                OpId::Builtin(BuiltinOp::Sum)
            ))
        );
    }
}
