//! The "external32" data representation of `MPI_Pack_external`: every
//! element big-endian, in the sizes the MPI standard's table gives
//! (`MPI_LONG` and `MPI_UNSIGNED_LONG` 4 bytes, `MPI_WCHAR` 2, `long double`
//! the 16-byte IEEE binary128), without padding.
//!
//! Conversions, as MPICH 4.0 does them: a `long` keeps its low 32 bits
//! (unpacking sign-extends `MPI_LONG`, zero-extends `MPI_UNSIGNED_LONG`); a
//! `wchar_t` its low 16 bits; an x87 `long double` keeps sign, exponent
//! and the 63 fraction bits below its explicit integer bit, which
//! unpacking sets again for any non-zero exponent (the other 48 fraction
//! bits of binary128 are 0, and ignored when unpacking). Complex types
//! convert each part, pair types the value then the index. (MPICH itself
//! aborts on pair types and `MPI_WCHAR`, and swaps Fortran's
//! `MPI_COMPLEX` and `MPI_DOUBLE_COMPLEX` as one number rather than two;
//! this module follows the standard there.)

use super::{BuiltinType, DatatypeId, Datatypes, Scalar, Shape};
use crate::error::{MpiError, MpiResult};

/// How one part of an element converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// The same number of bytes, byte order reversed.
    Swap(usize),
    /// An 8-byte integer stored in 4 bytes (`signed`: sign-extends back).
    Narrow { signed: bool },
    /// A 4-byte `wchar_t` stored in 2 bytes.
    WideChar,
    /// An x87 80-bit `long double` (16 bytes of storage) as binary128.
    X87,
}

impl Field {
    fn native(self) -> usize {
        match self {
            Field::Swap(n) => n,
            Field::Narrow { .. } => 8,
            Field::WideChar => 4,
            Field::X87 => 16,
        }
    }

    fn external(self) -> usize {
        match self {
            Field::Swap(n) => n,
            Field::Narrow { .. } => 4,
            Field::WideChar => 2,
            Field::X87 => 16,
        }
    }

    /// Appends the external form of native `b` (exactly `native()` bytes).
    fn pack(self, b: &[u8], out: &mut Vec<u8>) {
        match self {
            Field::Swap(_) => out.extend(b.iter().rev()),
            Field::Narrow { .. } => out.extend(b[..4].iter().rev()),
            Field::WideChar => out.extend(b[..2].iter().rev()),
            Field::X87 => {
                let mant = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
                out.extend_from_slice(&[b[9], b[8]]);
                out.extend_from_slice(&(mant << 1).to_be_bytes());
                out.extend_from_slice(&[0; 6]);
            }
        }
    }

    /// Writes the native form of external `b` (exactly `external()`
    /// bytes) over `out` (exactly `native()` bytes); a `long double`'s six
    /// bytes of padding keep what they held.
    fn unpack(self, b: &[u8], out: &mut [u8]) {
        match self {
            Field::Swap(_) => {
                for (o, v) in out.iter_mut().zip(b.iter().rev()) {
                    *o = *v;
                }
            }
            Field::Narrow { signed } => {
                let v = u32::from_be_bytes(b.try_into().expect("4 bytes"));
                let wide = if signed {
                    i64::from(v as i32) as u64
                } else {
                    u64::from(v)
                };
                out.copy_from_slice(&wide.to_le_bytes());
            }
            Field::WideChar => {
                let v = u16::from_be_bytes(b.try_into().expect("2 bytes"));
                out.copy_from_slice(&u32::from(v).to_le_bytes());
            }
            Field::X87 => {
                let se = u16::from_be_bytes([b[0], b[1]]);
                let frac = u64::from_be_bytes(b[2..10].try_into().expect("8 bytes"));
                let int_bit = if se & 0x7fff != 0 { 1 << 63 } else { 0 };
                out[..8].copy_from_slice(&((frac >> 1) | int_bit).to_le_bytes());
                out[8..10].copy_from_slice(&se.to_le_bytes());
            }
        }
    }
}

/// The parts of one element of `b`, in packed order.
fn fields(b: BuiltinType) -> Vec<Field> {
    let scalar = |s: Scalar| match s {
        Scalar::F80 => Field::X87,
        _ => Field::Swap(s.size() as usize),
    };
    match b {
        BuiltinType::Long => vec![Field::Narrow { signed: true }],
        BuiltinType::UnsignedLong => vec![Field::Narrow { signed: false }],
        BuiltinType::LongInt => vec![Field::Narrow { signed: true }, Field::Swap(4)],
        BuiltinType::Wchar => vec![Field::WideChar],
        _ => match b.shape() {
            Shape::Scalar(s) => vec![scalar(s)],
            Shape::Complex(s) => vec![scalar(s), scalar(s)],
            Shape::Pair { value, index, .. } => vec![scalar(value), scalar(index)],
        },
    }
}

/// Bytes one element of `b` takes in external32.
pub fn external32_size(b: BuiltinType) -> u64 {
    fields(b).iter().map(|f| f.external() as u64).sum()
}

impl Datatypes {
    /// The parts of every element of one instance of `dt`, in typemap order.
    fn instance_fields(&self, dt: DatatypeId) -> MpiResult<Vec<Field>> {
        let mut out = Vec::new();
        for r in &self.info(dt)?.runs {
            let f = fields(r.ty);
            for _ in 0..r.count {
                out.extend_from_slice(&f);
            }
        }
        Ok(out)
    }

    /// `MPI_Pack_external_size` for "external32".
    pub fn external32_size(&self, dt: DatatypeId, count: usize) -> MpiResult<u64> {
        let one: u64 = self
            .info(dt)?
            .runs
            .iter()
            .map(|r| r.count * external32_size(r.ty))
            .sum();
        one.checked_mul(count as u64).ok_or(MpiError::Count)
    }

    /// `MPI_Pack_external`: `count` instances of `dt` from `region`
    /// (exactly `span(dt, count)`) in external32.
    pub fn pack_external(&self, dt: DatatypeId, count: usize, region: &[u8]) -> MpiResult<Vec<u8>> {
        let native = self.pack(dt, count, region)?;
        let fields = self.instance_fields(dt)?;
        let mut out = Vec::with_capacity(self.external32_size(dt, count)? as usize);
        let mut at = 0;
        for _ in 0..count {
            for f in &fields {
                f.pack(&native[at..at + f.native()], &mut out);
                at += f.native();
            }
        }
        Ok(out)
    }

    /// `MPI_Unpack_external`: `count` instances of `dt` from the
    /// external32 bytes `ext` into `region` (exactly `span(dt, count)`).
    /// Returns the external bytes used; fewer than the instances need is
    /// `MPI_ERR_TRUNCATE`.
    pub fn unpack_external(
        &self,
        dt: DatatypeId,
        count: usize,
        ext: &[u8],
        region: &mut [u8],
    ) -> MpiResult<usize> {
        let need = self.external32_size(dt, count)? as usize;
        if ext.len() < need {
            return Err(MpiError::Truncate);
        }
        let fields = self.instance_fields(dt)?;
        // The region's current data, overwritten field by field.
        let mut native = self.pack(dt, count, region)?;
        let (mut at, mut to) = (0, 0);
        for _ in 0..count {
            for f in &fields {
                f.unpack(
                    &ext[at..at + f.external()],
                    &mut native[to..to + f.native()],
                );
                at += f.external();
                to += f.native();
            }
        }
        self.unpack(dt, count, &native, region)?;
        Ok(need)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::{BuiltinType as B, TypeArg};

    fn d(b: B) -> DatatypeId {
        DatatypeId::Builtin(b)
    }

    #[test]
    fn sizes_of_the_standard_table() {
        let want = [
            (B::Char, 1),
            (B::Wchar, 2),
            (B::Short, 2),
            (B::Int, 4),
            (B::Long, 4),
            (B::UnsignedLong, 4),
            (B::LongLongInt, 8),
            (B::Float, 4),
            (B::Double, 8),
            (B::LongDouble, 16),
            (B::CLongDoubleComplex, 32),
            (B::DoubleInt, 12),
            (B::LongInt, 8),
            (B::ShortInt, 6),
            (B::LongDoubleInt, 20),
            (B::Aint, 8),
            (B::Logical, 4),
            (B::Complex32, 32),
        ];
        for (t, n) in want {
            assert_eq!(external32_size(t), n, "{t:?}");
        }
    }

    #[test]
    fn big_endian_bytes_as_mpich_writes_them() {
        let t = Datatypes::new();
        let p = t
            .pack_external(d(B::Int), 1, &0x0011_2233i32.to_le_bytes())
            .unwrap();
        assert_eq!(p, [0x00, 0x11, 0x22, 0x33]);
        let mut l = Vec::new();
        for v in [-5i64, 1 << 40] {
            l.extend_from_slice(&v.to_le_bytes());
        }
        let p = t.pack_external(d(B::Long), 2, &l).unwrap();
        assert_eq!(p, [0xff, 0xff, 0xff, 0xfb, 0, 0, 0, 0]);
        let mut back = vec![0u8; 16];
        assert_eq!(t.unpack_external(d(B::Long), 2, &p, &mut back).unwrap(), 8);
        assert_eq!(&back[..8], &(-5i64).to_le_bytes());
        assert_eq!(&back[8..], &0i64.to_le_bytes());
        // 1.5L: x87 mantissa 0xC000_0000_0000_0000, exponent 0x3fff.
        let mut x = vec![0u8; 16];
        x[..8].copy_from_slice(&0xC000_0000_0000_0000u64.to_le_bytes());
        x[8..10].copy_from_slice(&0x3fffu16.to_le_bytes());
        let p = t.pack_external(d(B::LongDouble), 1, &x).unwrap();
        let mut want = vec![0x3f, 0xff, 0x80];
        want.resize(16, 0);
        assert_eq!(p, want);
        let mut back = vec![0xeeu8; 16];
        t.unpack_external(d(B::LongDouble), 1, &p, &mut back)
            .unwrap();
        assert_eq!(&back[..10], &x[..10]);
        assert_eq!(&back[10..], &[0xee; 6], "padding is left alone");
        // A complex: each part on its own.
        let mut c = 1.0f32.to_le_bytes().to_vec();
        c.extend_from_slice(&2.0f32.to_le_bytes());
        let p = t.pack_external(d(B::Complex8), 1, &c).unwrap();
        assert_eq!(p, [0x3f, 0x80, 0, 0, 0x40, 0, 0, 0]);
    }

    #[test]
    fn derived_types_convert_element_by_element() {
        let mut t = Datatypes::new();
        // struct { short s; long l; } with the long at 8.
        let s = t
            .create_struct(
                &[1, 1],
                &[0, 8],
                &[TypeArg::Type(d(B::Short)), TypeArg::Type(d(B::Long))],
            )
            .unwrap();
        assert_eq!(t.external32_size(s, 2).unwrap(), 12);
        let mut mem = vec![0u8; 32];
        mem[..2].copy_from_slice(&7i16.to_le_bytes());
        mem[8..16].copy_from_slice(&(-2i64).to_le_bytes());
        mem[16..18].copy_from_slice(&(-1i16).to_le_bytes());
        mem[24..32].copy_from_slice(&3i64.to_le_bytes());
        let p = t.pack_external(s, 2, &mem).unwrap();
        assert_eq!(p, [0, 7, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0, 0, 0, 3]);
        let mut back = vec![0u8; 32];
        t.unpack_external(s, 2, &p, &mut back).unwrap();
        assert_eq!(back, mem);
        assert_eq!(
            t.unpack_external(s, 2, &p[..11], &mut back),
            Err(MpiError::Truncate)
        );
    }
}
