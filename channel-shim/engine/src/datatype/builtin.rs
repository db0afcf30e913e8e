//! The predefined MPI datatypes, with MPICH's sizes and extents on x86_64
//! Linux (LP64, 16-byte `long double` holding an x87 80-bit value).
//!
//! Pair types are the C structs `{T value; int index;}` (Fortran pairs two
//! values of one type): their *extent* includes the struct's padding
//! (`MPI_DOUBLE_INT` 16, `MPI_SHORT_INT` 8, `MPI_LONG_DOUBLE_INT` 32) while
//! their *size* — the bytes they pack to — does not (12, 6 and 20), as in
//! MPICH.

/// How one scalar value is stored and computed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 32-bit integer.
    I32,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 64-bit integer.
    U64,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// x87 80-bit extended in 16 bytes of storage (`long double`).
    F80,
    /// IEEE binary128 (gfortran `REAL*16`).
    F128,
    /// C `_Bool` / C++ `bool` (1 byte).
    Bool,
    /// Fortran `LOGICAL` (4 bytes, non-zero is true).
    Logical,
    /// Uninterpreted byte (`MPI_BYTE`, `MPI_PACKED`, `MPI_CHARACTER`).
    Byte,
    /// `wchar_t` (4 bytes, no arithmetic).
    WChar,
}

impl Scalar {
    /// Storage size in bytes.
    pub fn size(self) -> u64 {
        match self {
            Scalar::I8 | Scalar::U8 | Scalar::Bool | Scalar::Byte => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 | Scalar::Logical | Scalar::WChar => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
            Scalar::F80 | Scalar::F128 => 16,
        }
    }
}

/// The structure of one predefined element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// One scalar.
    Scalar(Scalar),
    /// Real and imaginary parts of one scalar type.
    Complex(Scalar),
    /// A (value, index) pair for MINLOC/MAXLOC; the index starts at
    /// `index_offset` bytes in memory.
    Pair {
        /// Value type.
        value: Scalar,
        /// Index type.
        index: Scalar,
        /// Offset of the index in memory (after padding).
        index_offset: u64,
    },
}

/// Which reduction operations MPI allows on a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// C integer or Fortran integer.
    Integer,
    /// Floating point.
    Floating,
    /// Complex.
    Complex,
    /// C bool or Fortran logical.
    Logical,
    /// `MPI_BYTE`.
    Byte,
    /// A MINLOC/MAXLOC pair.
    Pair,
    /// No predefined reduction (character, packed, wchar).
    None,
}

macro_rules! builtins {
    ($($(#[$m:meta])* $name:ident => $shape:expr,)*) => {
        /// Every predefined MPI datatype of MPICH (C, C++ and Fortran).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum BuiltinType { $($(#[$m])* $name,)* }
        impl BuiltinType {
            /// All predefined datatypes.
            pub const ALL: &'static [BuiltinType] = &[$(BuiltinType::$name,)*];
            /// The element's structure.
            pub fn shape(self) -> Shape {
                use Scalar::*;
                #[allow(unused_imports)]
                use Shape::{Complex as Cx, Scalar as S};
                match self { $(BuiltinType::$name => $shape,)* }
            }
        }
    };
}

const fn pair(value: Scalar, index: Scalar, index_offset: u64) -> Shape {
    Shape::Pair {
        value,
        index,
        index_offset,
    }
}

builtins! {
    /// MPI_CHAR.
    Char => S(I8),
    /// MPI_SIGNED_CHAR.
    SignedChar => S(I8),
    /// MPI_UNSIGNED_CHAR.
    UnsignedChar => S(U8),
    /// MPI_BYTE.
    Byte => S(Scalar::Byte),
    /// MPI_WCHAR.
    Wchar => S(WChar),
    /// MPI_SHORT.
    Short => S(I16),
    /// MPI_UNSIGNED_SHORT.
    UnsignedShort => S(U16),
    /// MPI_INT.
    Int => S(I32),
    /// MPI_UNSIGNED.
    Unsigned => S(U32),
    /// MPI_LONG.
    Long => S(I64),
    /// MPI_UNSIGNED_LONG.
    UnsignedLong => S(U64),
    /// MPI_FLOAT.
    Float => S(F32),
    /// MPI_DOUBLE.
    Double => S(F64),
    /// MPI_LONG_DOUBLE.
    LongDouble => S(F80),
    /// MPI_LONG_LONG_INT (= MPI_LONG_LONG).
    LongLongInt => S(I64),
    /// MPI_UNSIGNED_LONG_LONG.
    UnsignedLongLong => S(U64),
    /// MPI_PACKED.
    Packed => S(Scalar::Byte),
    /// MPI_FLOAT_INT.
    FloatInt => pair(F32, I32, 4),
    /// MPI_DOUBLE_INT.
    DoubleInt => pair(F64, I32, 8),
    /// MPI_LONG_INT.
    LongInt => pair(I64, I32, 8),
    /// MPI_SHORT_INT.
    ShortInt => pair(I16, I32, 4),
    /// MPI_2INT.
    TwoInt => pair(I32, I32, 4),
    /// MPI_LONG_DOUBLE_INT.
    LongDoubleInt => pair(F80, I32, 16),
    /// MPI_COMPLEX (Fortran).
    Complex => Cx(F32),
    /// MPI_DOUBLE_COMPLEX (Fortran).
    DoubleComplex => Cx(F64),
    /// MPI_LOGICAL (Fortran).
    Logical => S(Scalar::Logical),
    /// MPI_REAL (Fortran).
    Real => S(F32),
    /// MPI_DOUBLE_PRECISION (Fortran).
    DoublePrecision => S(F64),
    /// MPI_INTEGER (Fortran).
    Integer => S(I32),
    /// MPI_2INTEGER (Fortran).
    TwoInteger => pair(I32, I32, 4),
    /// MPI_2REAL (Fortran).
    TwoReal => pair(F32, F32, 4),
    /// MPI_2DOUBLE_PRECISION (Fortran).
    TwoDoublePrecision => pair(F64, F64, 8),
    /// MPI_CHARACTER (Fortran).
    Character => S(Scalar::Byte),
    /// MPI_REAL4.
    Real4 => S(F32),
    /// MPI_REAL8.
    Real8 => S(F64),
    /// MPI_REAL16.
    Real16 => S(F128),
    /// MPI_COMPLEX8.
    Complex8 => Cx(F32),
    /// MPI_COMPLEX16.
    Complex16 => Cx(F64),
    /// MPI_COMPLEX32.
    Complex32 => Cx(F128),
    /// MPI_INTEGER1.
    Integer1 => S(I8),
    /// MPI_INTEGER2.
    Integer2 => S(I16),
    /// MPI_INTEGER4.
    Integer4 => S(I32),
    /// MPI_INTEGER8.
    Integer8 => S(I64),
    /// MPI_INT8_T.
    Int8 => S(I8),
    /// MPI_INT16_T.
    Int16 => S(I16),
    /// MPI_INT32_T.
    Int32 => S(I32),
    /// MPI_INT64_T.
    Int64 => S(I64),
    /// MPI_UINT8_T.
    Uint8 => S(U8),
    /// MPI_UINT16_T.
    Uint16 => S(U16),
    /// MPI_UINT32_T.
    Uint32 => S(U32),
    /// MPI_UINT64_T.
    Uint64 => S(U64),
    /// MPI_C_BOOL.
    CBool => S(Bool),
    /// MPI_C_FLOAT_COMPLEX (= MPI_C_COMPLEX).
    CFloatComplex => Cx(F32),
    /// MPI_C_DOUBLE_COMPLEX.
    CDoubleComplex => Cx(F64),
    /// MPI_C_LONG_DOUBLE_COMPLEX.
    CLongDoubleComplex => Cx(F80),
    /// MPI_AINT.
    Aint => S(I64),
    /// MPI_OFFSET.
    Offset => S(I64),
    /// MPI_COUNT.
    Count => S(I64),
    /// MPI_CXX_BOOL.
    CxxBool => S(Bool),
    /// MPI_CXX_FLOAT_COMPLEX.
    CxxFloatComplex => Cx(F32),
    /// MPI_CXX_DOUBLE_COMPLEX.
    CxxDoubleComplex => Cx(F64),
    /// MPI_CXX_LONG_DOUBLE_COMPLEX.
    CxxLongDoubleComplex => Cx(F80),
}

impl BuiltinType {
    /// Bytes of data (what it packs to).
    pub fn size(self) -> u64 {
        match self.shape() {
            Shape::Scalar(s) => s.size(),
            Shape::Complex(s) => 2 * s.size(),
            Shape::Pair { value, index, .. } => value.size() + index.size(),
        }
    }

    /// Alignment in memory.
    pub fn align(self) -> u64 {
        match self.shape() {
            Shape::Scalar(s) | Shape::Complex(s) => s.size(),
            Shape::Pair { value, index, .. } => value.size().max(index.size()),
        }
    }

    /// Extent in memory (the size rounded up to the alignment for pairs).
    pub fn extent(self) -> u64 {
        match self.shape() {
            Shape::Pair {
                index,
                index_offset,
                ..
            } => (index_offset + index.size()).div_ceil(self.align()) * self.align(),
            _ => self.size(),
        }
    }

    /// Whether its data fills its extent (no padding).
    pub fn is_dense(self) -> bool {
        self.size() == self.extent()
    }

    /// Number of basic elements one element counts as in `MPI_Get_elements`
    /// (2 for pair types).
    pub fn basic_elements(self) -> u64 {
        match self.shape() {
            Shape::Pair { .. } => 2,
            _ => 1,
        }
    }

    /// The byte ranges `(memory offset, length)` holding its data.
    pub fn segments(self) -> [(u64, u64); 2] {
        match self.shape() {
            Shape::Pair {
                value,
                index,
                index_offset,
            } => [(0, value.size()), (index_offset, index.size())],
            _ => [(0, self.size()), (0, 0)],
        }
    }

    /// Which predefined reductions apply.
    pub fn op_class(self) -> OpClass {
        use BuiltinType as B;
        match self {
            B::Byte => OpClass::Byte,
            B::Packed | B::Character | B::Wchar => OpClass::None,
            B::Logical | B::CBool | B::CxxBool => OpClass::Logical,
            _ => match self.shape() {
                Shape::Pair { .. } => OpClass::Pair,
                Shape::Complex(_) => OpClass::Complex,
                Shape::Scalar(Scalar::F32 | Scalar::F64 | Scalar::F80 | Scalar::F128) => {
                    OpClass::Floating
                }
                Shape::Scalar(_) => OpClass::Integer,
            },
        }
    }
}

/// MPICH's name of each predefined type (what `MPI_Type_get_name`
/// reports), in the order of [`BuiltinType::ALL`].
const MPI_NAMES: [&str; 62] = [
    "MPI_CHAR",
    "MPI_SIGNED_CHAR",
    "MPI_UNSIGNED_CHAR",
    "MPI_BYTE",
    "MPI_WCHAR",
    "MPI_SHORT",
    "MPI_UNSIGNED_SHORT",
    "MPI_INT",
    "MPI_UNSIGNED",
    "MPI_LONG",
    "MPI_UNSIGNED_LONG",
    "MPI_FLOAT",
    "MPI_DOUBLE",
    "MPI_LONG_DOUBLE",
    "MPI_LONG_LONG_INT",
    "MPI_UNSIGNED_LONG_LONG",
    "MPI_PACKED",
    "MPI_FLOAT_INT",
    "MPI_DOUBLE_INT",
    "MPI_LONG_INT",
    "MPI_SHORT_INT",
    "MPI_2INT",
    "MPI_LONG_DOUBLE_INT",
    "MPI_COMPLEX",
    "MPI_DOUBLE_COMPLEX",
    "MPI_LOGICAL",
    "MPI_REAL",
    "MPI_DOUBLE_PRECISION",
    "MPI_INTEGER",
    "MPI_2INTEGER",
    "MPI_2REAL",
    "MPI_2DOUBLE_PRECISION",
    "MPI_CHARACTER",
    "MPI_REAL4",
    "MPI_REAL8",
    "MPI_REAL16",
    "MPI_COMPLEX8",
    "MPI_COMPLEX16",
    "MPI_COMPLEX32",
    "MPI_INTEGER1",
    "MPI_INTEGER2",
    "MPI_INTEGER4",
    "MPI_INTEGER8",
    "MPI_INT8_T",
    "MPI_INT16_T",
    "MPI_INT32_T",
    "MPI_INT64_T",
    "MPI_UINT8_T",
    "MPI_UINT16_T",
    "MPI_UINT32_T",
    "MPI_UINT64_T",
    "MPI_C_BOOL",
    "MPI_C_COMPLEX",
    "MPI_C_DOUBLE_COMPLEX",
    "MPI_C_LONG_DOUBLE_COMPLEX",
    "MPI_AINT",
    "MPI_OFFSET",
    "MPI_COUNT",
    "MPI_CXX_BOOL",
    "MPI_CXX_FLOAT_COMPLEX",
    "MPI_CXX_DOUBLE_COMPLEX",
    "MPI_CXX_LONG_DOUBLE_COMPLEX",
];

impl BuiltinType {
    /// The name MPICH gives the type (`MPI_C_FLOAT_COMPLEX` is
    /// `MPI_C_COMPLEX`, `MPI_LONG_LONG` is `MPI_LONG_LONG_INT`).
    pub fn mpi_name(self) -> &'static str {
        MPI_NAMES[self as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::BuiltinType as B;

    #[test]
    fn mpich_sizes_and_extents() {
        let want = [
            (B::Char, 1, 1),
            (B::Wchar, 4, 4),
            (B::Long, 8, 8),
            (B::LongDouble, 16, 16),
            (B::FloatInt, 8, 8),
            (B::DoubleInt, 12, 16),
            (B::LongInt, 12, 16),
            (B::ShortInt, 6, 8),
            (B::TwoInt, 8, 8),
            (B::LongDoubleInt, 20, 32),
            (B::TwoReal, 8, 8),
            (B::TwoDoublePrecision, 16, 16),
            (B::TwoInteger, 8, 8),
            (B::Logical, 4, 4),
            (B::Character, 1, 1),
            (B::Complex, 8, 8),
            (B::DoubleComplex, 16, 16),
            (B::Complex32, 32, 32),
            (B::CLongDoubleComplex, 32, 32),
            (B::Aint, 8, 8),
        ];
        for (t, size, extent) in want {
            assert_eq!((t.size(), t.extent()), (size, extent), "{t:?}");
        }
        assert_eq!(B::ALL.len(), 62);
    }
}
