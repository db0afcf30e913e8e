//! The predefined reductions on packed elements of one predefined type:
//! `inout[i] = in[i] op inout[i]`.

use super::BuiltinOp;
use crate::datatype::{BuiltinType, OpClass, Scalar, Shape};
use crate::error::{MpiError, MpiResult};
use crate::op::float::{f128_to_f64, f64_to_f128, f64_to_f80, f80_to_f64};

/// A scalar that can be read from and written to packed bytes.
trait Elem: Copy {
    const N: usize;
    fn load(b: &[u8]) -> Self;
    fn store(self, b: &mut [u8]);
}

macro_rules! native_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const N: usize = std::mem::size_of::<$t>();
            fn load(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::N]);
                <$t>::from_ne_bytes(a)
            }
            fn store(self, b: &mut [u8]) {
                b[..Self::N].copy_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
native_elem!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// `long double`, computed in f64.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct X87(f64);
/// binary128, computed in f64.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Quad(f64);

impl Elem for X87 {
    const N: usize = 16;
    fn load(b: &[u8]) -> Self {
        X87(f80_to_f64(b))
    }
    fn store(self, b: &mut [u8]) {
        f64_to_f80(self.0, b)
    }
}
impl Elem for Quad {
    const N: usize = 16;
    fn load(b: &[u8]) -> Self {
        Quad(f128_to_f64(b))
    }
    fn store(self, b: &mut [u8]) {
        f64_to_f128(self.0, b)
    }
}

/// Floating-point arithmetic shared by f32, f64 and the wide formats.
trait Float: Elem + PartialOrd {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// C's truth of a floating value (non-zero, NaN included).
    fn truth(self) -> bool;
    /// 1.0 or 0.0, what C's logical operators give.
    fn from_truth(b: bool) -> Self;
}
macro_rules! float_impl {
    ($t:ty, $wrap:expr, $get:expr) => {
        impl Float for $t {
            fn add(self, o: Self) -> Self {
                $wrap($get(self) + $get(o))
            }
            fn sub(self, o: Self) -> Self {
                $wrap($get(self) - $get(o))
            }
            fn mul(self, o: Self) -> Self {
                $wrap($get(self) * $get(o))
            }
            fn truth(self) -> bool {
                $get(self) != 0.0
            }
            fn from_truth(b: bool) -> Self {
                $wrap(if b { 1.0 } else { 0.0 })
            }
        }
    };
}
float_impl!(f32, |x| x, |x| x);
float_impl!(f64, |x| x, |x| x);
float_impl!(X87, X87, |x: X87| x.0);
float_impl!(Quad, Quad, |x: Quad| x.0);

fn zip<T: Elem>(inp: &[u8], inout: &mut [u8], f: impl Fn(T, T) -> T) {
    for (a, b) in inp.chunks_exact(T::N).zip(inout.chunks_exact_mut(T::N)) {
        f(T::load(a), T::load(b)).store(b);
    }
}

macro_rules! int_kernel {
    ($t:ty, $op:expr, $i:expr, $io:expr) => {{
        use BuiltinOp::*;
        match $op {
            Max => zip::<$t>($i, $io, |a, b| if a > b { a } else { b }),
            Min => zip::<$t>($i, $io, |a, b| if a < b { a } else { b }),
            Sum => zip::<$t>($i, $io, |a, b| a.wrapping_add(b)),
            Prod => zip::<$t>($i, $io, |a, b| a.wrapping_mul(b)),
            Land => zip::<$t>($i, $io, |a, b| (a != 0 && b != 0) as $t),
            Lor => zip::<$t>($i, $io, |a, b| (a != 0 || b != 0) as $t),
            Lxor => zip::<$t>($i, $io, |a, b| ((a != 0) != (b != 0)) as $t),
            Band => zip::<$t>($i, $io, |a, b| a & b),
            Bor => zip::<$t>($i, $io, |a, b| a | b),
            Bxor => zip::<$t>($i, $io, |a, b| a ^ b),
            _ => return Err(MpiError::Op),
        }
    }};
}

fn float_kernel<T: Float>(op: BuiltinOp, i: &[u8], io: &mut [u8]) -> MpiResult<()> {
    match op {
        BuiltinOp::Max => zip::<T>(i, io, |a, b| if a > b { a } else { b }),
        BuiltinOp::Min => zip::<T>(i, io, |a, b| if a < b { a } else { b }),
        BuiltinOp::Sum => zip::<T>(i, io, |a, b| a.add(b)),
        BuiltinOp::Prod => zip::<T>(i, io, |a, b| a.mul(b)),
        BuiltinOp::Land => zip::<T>(i, io, |a, b| T::from_truth(a.truth() && b.truth())),
        BuiltinOp::Lor => zip::<T>(i, io, |a, b| T::from_truth(a.truth() || b.truth())),
        BuiltinOp::Lxor => zip::<T>(i, io, |a, b| T::from_truth(a.truth() != b.truth())),
        _ => return Err(MpiError::Op),
    }
    Ok(())
}

fn complex_kernel<T: Float>(op: BuiltinOp, i: &[u8], io: &mut [u8]) -> MpiResult<()> {
    let n = T::N;
    for (a, b) in i.chunks_exact(2 * n).zip(io.chunks_exact_mut(2 * n)) {
        let (ar, ai) = (T::load(a), T::load(&a[n..]));
        let (br, bi) = (T::load(b), T::load(&b[n..]));
        let (r, im) = match op {
            BuiltinOp::Sum => (ar.add(br), ai.add(bi)),
            BuiltinOp::Prod => (ar.mul(br).sub(ai.mul(bi)), ar.mul(bi).add(ai.mul(br))),
            _ => return Err(MpiError::Op),
        };
        r.store(b);
        im.store(&mut b[n..]);
    }
    Ok(())
}

fn logical_kernel<T: Elem + PartialEq + Default + From<u8>>(
    op: BuiltinOp,
    i: &[u8],
    io: &mut [u8],
) -> MpiResult<()> {
    let t = |x: bool| T::from(x as u8);
    let z = T::default();
    match op {
        BuiltinOp::Land => zip::<T>(i, io, |a, b| t(a != z && b != z)),
        BuiltinOp::Lor => zip::<T>(i, io, |a, b| t(a != z || b != z)),
        BuiltinOp::Lxor => zip::<T>(i, io, |a, b| t((a != z) != (b != z))),
        _ => return Err(MpiError::Op),
    }
    Ok(())
}

fn loc_kernel<V: Elem + PartialOrd, I: Elem + PartialOrd>(
    op: BuiltinOp,
    i: &[u8],
    io: &mut [u8],
) -> MpiResult<()> {
    let take_in = |av: V, ai: I, bv: V, bi: I| -> bool {
        match op {
            BuiltinOp::Minloc => av < bv || (av == bv && ai < bi),
            _ => av > bv || (av == bv && ai < bi),
        }
    };
    let n = V::N + I::N;
    for (a, b) in i.chunks_exact(n).zip(io.chunks_exact_mut(n)) {
        let (av, ai) = (V::load(a), I::load(&a[V::N..]));
        let (bv, bi) = (V::load(b), I::load(&b[V::N..]));
        if take_in(av, ai, bv, bi) {
            b.copy_from_slice(a);
        }
    }
    Ok(())
}

/// Whether `op` is defined on elements of `ty`: MPI's table, plus (as in
/// MPICH) the logical operations on floating-point types, with C's
/// meaning (non-zero is true; the result is 1.0 or 0.0).
pub fn allowed(op: BuiltinOp, ty: BuiltinType) -> bool {
    use BuiltinOp::*;
    let c = ty.op_class();
    match op {
        Replace | NoOp => true,
        Max | Min => matches!(c, OpClass::Integer | OpClass::Floating),
        Sum | Prod => matches!(c, OpClass::Integer | OpClass::Floating | OpClass::Complex),
        Land | Lor | Lxor => matches!(c, OpClass::Integer | OpClass::Logical | OpClass::Floating),
        Band | Bor | Bxor => matches!(c, OpClass::Integer | OpClass::Byte),
        Minloc | Maxloc => c == OpClass::Pair,
    }
}

/// `inout = in op inout` on packed elements of `ty` (both slices the same
/// whole number of elements).
pub fn apply(op: BuiltinOp, ty: BuiltinType, inp: &[u8], inout: &mut [u8]) -> MpiResult<()> {
    if !allowed(op, ty) {
        return Err(MpiError::Op);
    }
    if inp.len() != inout.len() {
        return Err(MpiError::Count);
    }
    match op {
        BuiltinOp::NoOp => return Ok(()),
        BuiltinOp::Replace => {
            inout.copy_from_slice(inp);
            return Ok(());
        }
        _ => {}
    }
    use Scalar::*;
    match ty.shape() {
        Shape::Scalar(s) => match (ty.op_class(), s) {
            (OpClass::Logical, Bool) => logical_kernel::<u8>(op, inp, inout)?,
            (OpClass::Logical, _) => logical_kernel::<u32>(op, inp, inout)?,
            (_, I8) => int_kernel!(i8, op, inp, inout),
            (_, U8 | Byte) => int_kernel!(u8, op, inp, inout),
            (_, I16) => int_kernel!(i16, op, inp, inout),
            (_, U16) => int_kernel!(u16, op, inp, inout),
            (_, I32) => int_kernel!(i32, op, inp, inout),
            (_, U32) => int_kernel!(u32, op, inp, inout),
            (_, I64) => int_kernel!(i64, op, inp, inout),
            (_, U64) => int_kernel!(u64, op, inp, inout),
            (_, F32) => float_kernel::<f32>(op, inp, inout)?,
            (_, F64) => float_kernel::<f64>(op, inp, inout)?,
            (_, F80) => float_kernel::<X87>(op, inp, inout)?,
            (_, F128) => float_kernel::<Quad>(op, inp, inout)?,
            _ => return Err(MpiError::Op),
        },
        Shape::Complex(s) => match s {
            F32 => complex_kernel::<f32>(op, inp, inout)?,
            F64 => complex_kernel::<f64>(op, inp, inout)?,
            F80 => complex_kernel::<X87>(op, inp, inout)?,
            F128 => complex_kernel::<Quad>(op, inp, inout)?,
            _ => return Err(MpiError::Op),
        },
        Shape::Pair { value, index, .. } => match (value, index) {
            (F32, I32) => loc_kernel::<f32, i32>(op, inp, inout)?,
            (F64, I32) => loc_kernel::<f64, i32>(op, inp, inout)?,
            (I64, I32) => loc_kernel::<i64, i32>(op, inp, inout)?,
            (I16, I32) => loc_kernel::<i16, i32>(op, inp, inout)?,
            (I32, I32) => loc_kernel::<i32, i32>(op, inp, inout)?,
            (F80, I32) => loc_kernel::<X87, i32>(op, inp, inout)?,
            (F32, F32) => loc_kernel::<f32, f32>(op, inp, inout)?,
            (F64, F64) => loc_kernel::<f64, f64>(op, inp, inout)?,
            _ => return Err(MpiError::Op),
        },
    }
    Ok(())
}
