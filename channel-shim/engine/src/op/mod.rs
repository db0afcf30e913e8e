//! Reduction operations: the predefined ones on every type MPI allows them
//! for, and user ops the C layer supplies as closures.

mod apply;
mod float;

pub use apply::{allowed, apply};

use crate::datatype::{DatatypeId, Datatypes};
use crate::error::{MpiError, MpiResult};

/// The predefined MPI reduction operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinOp {
    /// MPI_MAX.
    Max,
    /// MPI_MIN.
    Min,
    /// MPI_SUM.
    Sum,
    /// MPI_PROD.
    Prod,
    /// MPI_LAND.
    Land,
    /// MPI_BAND.
    Band,
    /// MPI_LOR.
    Lor,
    /// MPI_BOR.
    Bor,
    /// MPI_LXOR.
    Lxor,
    /// MPI_BXOR.
    Bxor,
    /// MPI_MINLOC (ties: the smaller index wins).
    Minloc,
    /// MPI_MAXLOC (ties: the smaller index wins).
    Maxloc,
    /// MPI_REPLACE.
    Replace,
    /// MPI_NO_OP.
    NoOp,
}

/// An operation: predefined or user-defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpId {
    /// A predefined op.
    Builtin(BuiltinOp),
    /// A user op created by [`Ops::create`].
    User(u32),
}

impl From<BuiltinOp> for OpId {
    fn from(b: BuiltinOp) -> Self {
        OpId::Builtin(b)
    }
}

/// A user reduction function: `(in, inout, count, datatype)` computes
/// `inout = in op inout` element-wise, like `MPI_User_function`.
///
/// Both slices are user-layout regions of `count` instances of the
/// datatype as given by [`Datatypes::span`], and the last argument is that
/// span's `base`: the element buffer address the C function expects is the
/// slice start minus `base` (0 for types whose true lower bound is 0).
/// The datatype table comes last, so that the function may answer the
/// program's datatype queries (`MPI_Type_get_extent` and the like, which
/// user functions call on derived types) while the engine is busy.
pub type UserFn = Box<dyn FnMut(&[u8], &mut [u8], usize, DatatypeId, i64, &Datatypes) + Send>;

struct UserOp {
    f: UserFn,
    commutative: bool,
    /// `MPI_Op_free` was called: no new call may use it, but collectives
    /// already started still reduce with it (MPI lets a program free an op
    /// its pending operations use); [`Ops::purge_freed`] drops it.
    freed: bool,
}

/// The table of user ops of one process.
#[derive(Default)]
pub struct Ops {
    user: Vec<Option<UserOp>>,
}

impl std::fmt::Debug for Ops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Ops({} user)",
            self.user.iter().flatten().filter(|u| !u.freed).count()
        )
    }
}

impl Ops {
    /// No user ops.
    pub fn new() -> Ops {
        Ops::default()
    }

    /// `MPI_Op_create`.
    pub fn create(&mut self, f: UserFn, commutative: bool) -> OpId {
        let op = Some(UserOp {
            f,
            commutative,
            freed: false,
        });
        if let Some(i) = self.user.iter().position(|u| u.is_none()) {
            self.user[i] = op;
            OpId::User(i as u32)
        } else {
            self.user.push(op);
            OpId::User(self.user.len() as u32 - 1)
        }
    }

    /// `MPI_Op_free` (predefined ops cannot be freed).
    pub fn free(&mut self, op: OpId) -> MpiResult<()> {
        match op {
            OpId::User(i) => match self.user.get_mut(i as usize) {
                Some(Some(u)) if !u.freed => {
                    u.freed = true;
                    Ok(())
                }
                _ => Err(MpiError::Op),
            },
            OpId::Builtin(_) => Err(MpiError::Op),
        }
    }

    /// `MPI_Op_commutative`.
    pub fn commutative(&self, op: OpId) -> MpiResult<bool> {
        match op {
            OpId::Builtin(_) => Ok(true),
            OpId::User(i) => self
                .user
                .get(i as usize)
                .and_then(|u| u.as_ref())
                .filter(|u| !u.freed)
                .map(|u| u.commutative)
                .ok_or(MpiError::Op),
        }
    }

    /// Drops the freed ops (when no started collective may still use them).
    pub fn purge_freed(&mut self) {
        for s in &mut self.user {
            if s.as_ref().is_some_and(|u| u.freed) {
                *s = None;
            }
        }
    }

    /// Checks that `op` can reduce `dt` (every element type of the typemap
    /// must allow a predefined op).
    pub fn check(&self, types: &Datatypes, op: OpId, dt: DatatypeId) -> MpiResult<()> {
        let t = types.info(dt)?;
        match op {
            OpId::Builtin(b) => {
                if t.runs.iter().all(|r| allowed(b, r.ty)) {
                    Ok(())
                } else {
                    Err(MpiError::Op)
                }
            }
            OpId::User(_) => self.commutative(op).map(|_| ()),
        }
    }

    /// `inout = in op inout` on `count` packed instances of `dt`
    /// (`MPI_Reduce_local` on packed data).
    pub fn reduce(
        &mut self,
        types: &Datatypes,
        op: OpId,
        dt: DatatypeId,
        count: usize,
        inp: &[u8],
        inout: &mut [u8],
    ) -> MpiResult<()> {
        let t = types.info(dt)?;
        let want = t.size as usize * count;
        if inp.len() != want || inout.len() != want {
            return Err(MpiError::Count);
        }
        match op {
            OpId::Builtin(b) => {
                let mut at = 0usize;
                for _ in 0..count {
                    for r in &t.runs {
                        let n = (r.count * r.ty.size()) as usize;
                        apply::apply(b, r.ty, &inp[at..at + n], &mut inout[at..at + n])?;
                        at += n;
                    }
                }
                Ok(())
            }
            OpId::User(i) => {
                let u = self
                    .user
                    .get_mut(i as usize)
                    .and_then(|u| u.as_mut())
                    .ok_or(MpiError::Op)?;
                if t.is_contiguous() {
                    (u.f)(inp, inout, count, dt, 0, types);
                    return Ok(());
                }
                let span = types.span(dt, count)?;
                let mut a = vec![0u8; span.len];
                let mut b = vec![0u8; span.len];
                types.unpack(dt, count, inp, &mut a)?;
                types.unpack(dt, count, inout, &mut b)?;
                (u.f)(&a, &mut b, count, dt, span.base, types);
                let packed = types.pack(dt, count, &b)?;
                inout.copy_from_slice(&packed);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::BuiltinType as B;

    fn red(op: BuiltinOp, ty: B, a: &[u8], b: &mut [u8]) -> MpiResult<()> {
        let t = Datatypes::new();
        let n = a.len() / ty.size() as usize;
        Ops::new().reduce(&t, op.into(), ty.into(), n, a, b)
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn integer_ops() {
        let a = ints(&[1, 5, -3, 0]);
        let cases: [(BuiltinOp, [i32; 4]); 10] = [
            (BuiltinOp::Max, [2, 5, 4, 0]),
            (BuiltinOp::Min, [1, 4, -3, 0]),
            (BuiltinOp::Sum, [3, 9, 1, 0]),
            (BuiltinOp::Prod, [2, 20, -12, 0]),
            (BuiltinOp::Land, [1, 1, 1, 0]),
            (BuiltinOp::Lor, [1, 1, 1, 0]),
            (BuiltinOp::Lxor, [0, 0, 0, 0]),
            (BuiltinOp::Band, [0, 4, 4, 0]),
            (BuiltinOp::Bor, [3, 5, -3, 0]),
            (BuiltinOp::Bxor, [3, 1, -7, 0]),
        ];
        for (op, want) in cases {
            let mut b = ints(&[2, 4, 4, 0]);
            red(op, B::Int, &a, &mut b).unwrap();
            assert_eq!(b, ints(&want), "{op:?}");
        }
    }

    #[test]
    fn float_complex_logical() {
        let a: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let mut b: Vec<u8> = [2.0f64, 3.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        red(BuiltinOp::Prod, B::Double, &a, &mut b).unwrap();
        assert_eq!(f64::from_ne_bytes(b[..8].try_into().unwrap()), 3.0);
        // (1.5 - 2i) * (2 + 3i) = 3 + 4.5i - 4i + 6 = 9 + 0.5i
        let mut b: Vec<u8> = [2.0f64, 3.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        red(BuiltinOp::Prod, B::DoubleComplex, &a, &mut b).unwrap();
        assert_eq!(f64::from_ne_bytes(b[..8].try_into().unwrap()), 9.0);
        assert_eq!(f64::from_ne_bytes(b[8..].try_into().unwrap()), 0.5);
        assert_eq!(
            red(BuiltinOp::Max, B::DoubleComplex, &a, &mut b),
            Err(MpiError::Op)
        );
        let mut l = vec![0u8, 1, 0, 0];
        red(BuiltinOp::Lor, B::Logical, &[0, 0, 0, 0], &mut l).unwrap();
        assert_eq!(u32::from_ne_bytes(l.try_into().unwrap()), 1);
        assert_eq!(
            red(BuiltinOp::Sum, B::Logical, &[0; 4], &mut [0; 4]),
            Err(MpiError::Op)
        );
        assert_eq!(
            red(BuiltinOp::Sum, B::Byte, &[1], &mut [1]),
            Err(MpiError::Op)
        );
        let mut x = [0b1100u8];
        red(BuiltinOp::Bxor, B::Byte, &[0b1010], &mut x).unwrap();
        assert_eq!(x, [0b0110]);
    }

    #[test]
    fn long_double_sum() {
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        float::f64_to_f80(1.25, &mut a);
        float::f64_to_f80(2.5, &mut b);
        red(BuiltinOp::Sum, B::LongDouble, &a, &mut b).unwrap();
        assert_eq!(float::f80_to_f64(&b), 3.75);
    }

    fn pair(v: f64, i: i32) -> Vec<u8> {
        let mut x = v.to_ne_bytes().to_vec();
        x.extend_from_slice(&i.to_ne_bytes());
        x
    }

    #[test]
    fn minloc_maxloc_ties() {
        let a = [pair(1.0, 5), pair(3.0, 7), pair(2.0, 9)].concat();
        let mut b = [pair(1.0, 2), pair(3.0, 1), pair(0.5, 0)].concat();
        red(BuiltinOp::Minloc, B::DoubleInt, &a, &mut b.clone()).unwrap();
        let mut m = b.clone();
        red(BuiltinOp::Minloc, B::DoubleInt, &a, &mut m).unwrap();
        assert_eq!(m, [pair(1.0, 2), pair(3.0, 1), pair(0.5, 0)].concat());
        red(BuiltinOp::Maxloc, B::DoubleInt, &a, &mut b).unwrap();
        assert_eq!(b, [pair(1.0, 2), pair(3.0, 1), pair(2.0, 9)].concat());
        let a2 = [pair(1.0, 1)].concat();
        let mut b2 = [pair(1.0, 3)].concat();
        red(BuiltinOp::Maxloc, B::DoubleInt, &a2, &mut b2).unwrap();
        assert_eq!(b2, pair(1.0, 1));
        assert_eq!(
            red(BuiltinOp::Minloc, B::Double, &[0; 8], &mut [0; 8]),
            Err(MpiError::Op)
        );
    }

    fn logicals(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// MPICH's extension: LAND, LOR and LXOR on floating types compute as
    /// C does (non-zero, NaN included, is true; results are 1.0 or 0.0).
    #[test]
    fn logical_ops_on_floating_types() {
        let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let a = f64s(&[0.0, 2.5, -0.0, f64::NAN]);
        for (op, want) in [
            (BuiltinOp::Land, [0.0, 1.0, 0.0, 1.0]),
            (BuiltinOp::Lor, [0.0, 1.0, 1.0, 1.0]),
            (BuiltinOp::Lxor, [0.0, 0.0, 1.0, 0.0]),
        ] {
            let mut b = f64s(&[0.0, -1.0, 3.0, 1.0]);
            red(op, B::Double, &a, &mut b).unwrap();
            assert_eq!(b, f64s(&want), "{op:?}");
        }
        let mut x = 0.5f32.to_ne_bytes();
        red(BuiltinOp::Lxor, B::Float, &0.0f32.to_ne_bytes(), &mut x).unwrap();
        assert_eq!(f32::from_ne_bytes(x), 1.0);
        let mut l = [0u8; 16];
        float::f64_to_f80(7.0, &mut l);
        red(BuiltinOp::Land, B::LongDouble, &l.clone(), &mut l).unwrap();
        assert_eq!(float::f80_to_f64(&l), 1.0);
        // Still no bitwise operations on them.
        assert_eq!(
            red(BuiltinOp::Band, B::Double, &a, &mut a.clone()),
            Err(MpiError::Op)
        );
    }

    /// gfortran's LOGICAL is 4 bytes with `.TRUE.` = 1; results are 0 or 1
    /// whatever non-zero value an input holds.
    #[test]
    fn fortran_logical_reductions() {
        let a = logicals(&[0, 1, 0, 1]);
        for (op, want) in [
            (BuiltinOp::Land, [0, 0, 0, 1]),
            (BuiltinOp::Lor, [0, 1, 1, 1]),
            (BuiltinOp::Lxor, [0, 1, 1, 0]),
        ] {
            let mut b = logicals(&[0, 0, 7, 1]);
            red(op, B::Logical, &a, &mut b).unwrap();
            assert_eq!(b, logicals(&want), "{op:?}");
        }
        for op in [BuiltinOp::Max, BuiltinOp::Band, BuiltinOp::Minloc] {
            assert_eq!(red(op, B::Logical, &a, &mut a.clone()), Err(MpiError::Op));
        }
    }

    /// MINLOC/MAXLOC on MPI_2INTEGER, MPI_2REAL and MPI_2DOUBLE_PRECISION:
    /// both halves have the value's type; ties keep the lower index.
    #[test]
    fn fortran_pair_types() {
        let ints = |v: &[(i32, i32)]| -> Vec<u8> {
            v.iter()
                .flat_map(|(x, i)| [x.to_ne_bytes(), i.to_ne_bytes()].concat())
                .collect()
        };
        let a = ints(&[(3, 0), (5, 2), (1, 4)]);
        let mut b = ints(&[(3, 1), (4, 1), (2, 3)]);
        red(BuiltinOp::Minloc, B::TwoInteger, &a, &mut b).unwrap();
        assert_eq!(b, ints(&[(3, 0), (4, 1), (1, 4)]));
        let reals = |v: &[(f32, f32)]| -> Vec<u8> {
            v.iter()
                .flat_map(|(x, i)| [x.to_ne_bytes(), i.to_ne_bytes()].concat())
                .collect()
        };
        let a = reals(&[(2.5, 3.0), (-1.0, 0.0)]);
        let mut b = reals(&[(2.5, 1.0), (-0.5, 2.0)]);
        red(BuiltinOp::Maxloc, B::TwoReal, &a, &mut b).unwrap();
        assert_eq!(b, reals(&[(2.5, 1.0), (-0.5, 2.0)]));
        let doubles = |v: &[(f64, f64)]| -> Vec<u8> {
            v.iter()
                .flat_map(|(x, i)| [x.to_ne_bytes(), i.to_ne_bytes()].concat())
                .collect()
        };
        let a = doubles(&[(9.0, 5.0), (1.0, 6.0)]);
        let mut b = doubles(&[(8.0, 2.0), (1.0, 7.0)]);
        red(BuiltinOp::Maxloc, B::TwoDoublePrecision, &a, &mut b).unwrap();
        assert_eq!(b, doubles(&[(9.0, 5.0), (1.0, 6.0)]));
        assert_eq!(
            red(BuiltinOp::Sum, B::TwoReal, &a[..8], &mut b[..8]),
            Err(MpiError::Op)
        );
    }

    /// MPI_COMPLEX (two REALs): SUM and PROD, no MAX.
    #[test]
    fn fortran_complex() {
        let c = |re: f32, im: f32| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut b = c(2.0, -1.0);
        red(BuiltinOp::Sum, B::Complex, &c(1.0, 1.0), &mut b).unwrap();
        assert_eq!(b, c(3.0, 0.0));
        // (1 + 2i)(3 - i) = 3 - i + 6i + 2 = 5 + 5i
        let mut b = c(3.0, -1.0);
        red(BuiltinOp::Prod, B::Complex, &c(1.0, 2.0), &mut b).unwrap();
        assert_eq!(b, c(5.0, 5.0));
        assert_eq!(
            red(BuiltinOp::Max, B::Complex, &c(1.0, 2.0), &mut b),
            Err(MpiError::Op)
        );
    }

    #[test]
    fn every_builtin_has_a_kernel_for_every_allowed_op() {
        use BuiltinOp::*;
        for &ty in B::ALL {
            for op in [
                Max, Min, Sum, Prod, Land, Band, Lor, Bor, Lxor, Bxor, Minloc, Maxloc, Replace,
                NoOp,
            ] {
                let n = ty.size() as usize * 3;
                let a = vec![1u8; n];
                let mut b = vec![2u8; n];
                let r = red(op, ty, &a, &mut b);
                assert_eq!(r.is_ok(), allowed(op, ty), "{op:?} on {ty:?}");
            }
        }
    }

    #[test]
    fn user_op_noncontiguous() {
        let mut t = Datatypes::new();
        let v = t.vector(2, 1, 2, B::Int.into()).unwrap();
        t.commit(v).unwrap();
        let mut ops = Ops::new();
        let op = ops.create(
            Box::new(|i: &[u8], io: &mut [u8], count, _, base, _| {
                assert_eq!(base, 0);
                // sees user layout: ints at 0 and 8 of each 12-byte instance
                for k in 0..count {
                    for off in [0, 8] {
                        let at = k * 12 + off;
                        let x = i32::from_ne_bytes(i[at..at + 4].try_into().unwrap());
                        let y = i32::from_ne_bytes(io[at..at + 4].try_into().unwrap());
                        io[at..at + 4].copy_from_slice(&(x * 10 + y).to_ne_bytes());
                    }
                }
            }),
            false,
        );
        assert!(!ops.commutative(op).unwrap());
        let a = ints(&[1, 2]);
        let mut b = ints(&[3, 4]);
        ops.reduce(&t, op, v, 1, &a, &mut b).unwrap();
        assert_eq!(b, ints(&[13, 24]));
        ops.free(op).unwrap();
        assert!(ops.commutative(op).is_err());
    }
}
