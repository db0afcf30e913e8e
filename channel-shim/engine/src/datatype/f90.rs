//! Datatypes for Fortran 90 parameterised kinds
//! (`MPI_Type_create_f90_real/complex/integer`) and `MPI_Type_match_size`.
//!
//! As in MPICH 4.0 (gfortran's kinds on x86_64): a real of precision
//! `p ≤ 6` and exponent range `r ≤ 37` is 4 bytes, one of `p ≤ 15`,
//! `r ≤ 307` is 8 bytes, anything more `MPI_ERR_OTHER` (MPICH offers no
//! 16-byte real here); a complex is two such reals; an integer of `r`
//! decimal digits is 1 byte up to 2, 2 bytes up to 4, 4 up to 9, 8 up to
//! 18, else `MPI_ERR_OTHER`. `MPI_UNDEFINED` (or any value below the
//! thresholds) leaves a parameter unconstrained.
//!
//! Each (kind, p, r) gets one type, made on first use and returned again
//! for the same arguments; its envelope is the `MPI_COMBINER_F90_*` one
//! with the arguments as given. It behaves as the predefined type of its
//! size and, being predefined, cannot be freed.

use super::{BuiltinType, Combiner, Contents, DatatypeId, Datatypes};
use crate::error::{MpiError, MpiResult};

/// The class `MPI_Type_match_size` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    /// `MPI_TYPECLASS_REAL`.
    Real,
    /// `MPI_TYPECLASS_INTEGER`.
    Integer,
    /// `MPI_TYPECLASS_COMPLEX`.
    Complex,
}

/// `MPI_Type_match_size`: the Fortran type of `class` that is `size`
/// bytes (as MPICH answers: `MPI_REAL4/8/16`, `MPI_INTEGER1/2/4/8`,
/// `MPI_COMPLEX8/16/32`); any other size is `MPI_ERR_ARG`.
pub fn match_size(class: TypeClass, size: i32) -> MpiResult<BuiltinType> {
    use BuiltinType as B;
    let t = match (class, size) {
        (TypeClass::Real, 4) => B::Real4,
        (TypeClass::Real, 8) => B::Real8,
        (TypeClass::Real, 16) => B::Real16,
        (TypeClass::Integer, 1) => B::Integer1,
        (TypeClass::Integer, 2) => B::Integer2,
        (TypeClass::Integer, 4) => B::Integer4,
        (TypeClass::Integer, 8) => B::Integer8,
        (TypeClass::Complex, 8) => B::Complex8,
        (TypeClass::Complex, 16) => B::Complex16,
        (TypeClass::Complex, 32) => B::Complex32,
        _ => return Err(MpiError::Arg),
    };
    Ok(t)
}

/// The 4- or 8-byte real (or complex) for precision `p`, range `r`.
fn real_kind(p: i32, r: i32, complex: bool) -> MpiResult<BuiltinType> {
    let wide = if p <= 6 && r <= 37 {
        false
    } else if p <= 15 && r <= 307 {
        true
    } else {
        return Err(MpiError::Other);
    };
    Ok(match (complex, wide) {
        (false, false) => BuiltinType::Real4,
        (false, true) => BuiltinType::Real8,
        (true, false) => BuiltinType::Complex8,
        (true, true) => BuiltinType::Complex16,
    })
}

/// The integer for `r` decimal digits.
fn integer_kind(r: i32) -> MpiResult<BuiltinType> {
    Ok(match r {
        _ if r <= 2 => BuiltinType::Integer1,
        _ if r <= 4 => BuiltinType::Integer2,
        _ if r <= 9 => BuiltinType::Integer4,
        _ if r <= 18 => BuiltinType::Integer8,
        _ => return Err(MpiError::Other),
    })
}

impl Datatypes {
    /// `MPI_Type_create_f90_real` (`complex` false) and
    /// `MPI_Type_create_f90_complex` (`complex` true).
    pub fn f90_real(&mut self, p: i32, r: i32, complex: bool) -> MpiResult<DatatypeId> {
        let base = real_kind(p, r, complex)?;
        let combiner = if complex {
            Combiner::F90Complex
        } else {
            Combiner::F90Real
        };
        Ok(self.f90_type(combiner, vec![p, r], base))
    }

    /// `MPI_Type_create_f90_integer`.
    pub fn f90_integer(&mut self, r: i32) -> MpiResult<DatatypeId> {
        let base = integer_kind(r)?;
        Ok(self.f90_type(Combiner::F90Integer, vec![r], base))
    }

    /// The cached type for these arguments, made the first time.
    fn f90_type(&mut self, combiner: Combiner, args: Vec<i32>, base: BuiltinType) -> DatatypeId {
        let key = (combiner, args[0], args.get(1).copied().unwrap_or(0));
        if let Some(&t) = self.f90.get(&key) {
            return t;
        }
        let mut info = (*self.builtins[base as usize]).clone();
        info.contents = Contents::of(
            combiner,
            args.iter().map(|&a| i64::from(a)).collect(),
            vec![],
            vec![],
        );
        let t = self.add(info);
        self.f90.insert(key, t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_caching_follow_mpich() {
        let mut t = Datatypes::new();
        let r4 = t.f90_real(6, 37, false).unwrap();
        assert_eq!(t.size(r4).unwrap(), 4);
        assert_eq!(t.f90_real(6, 37, false).unwrap(), r4);
        let r4b = t.f90_real(5, -32766, false).unwrap();
        assert_ne!(r4b, r4);
        let r8 = t.f90_real(7, 0, false).unwrap();
        assert_eq!(t.size(r8).unwrap(), 8);
        let c16 = t.f90_real(0, 38, true).unwrap();
        assert_eq!(t.size(c16).unwrap(), 16);
        assert_eq!(t.f90_real(16, 0, false), Err(MpiError::Other));
        assert_eq!(t.f90_real(0, 308, true), Err(MpiError::Other));
        for (r, size) in [(2, 1), (3, 2), (4, 2), (5, 4), (9, 4), (10, 8), (18, 8)] {
            let i = t.f90_integer(r).unwrap();
            assert_eq!(t.size(i).unwrap(), size, "r = {r}");
        }
        assert_eq!(t.f90_integer(19), Err(MpiError::Other));
        let c = t.contents(r4).unwrap();
        assert_eq!(
            (c.combiner, c.ints.clone()),
            (Combiner::F90Real, vec![6, 37])
        );
        assert!(t.info(r4).unwrap().committed);
        assert_eq!(t.free(r4), Err(MpiError::Datatype));
    }

    #[test]
    fn match_size_gives_the_fortran_sized_types() {
        assert_eq!(match_size(TypeClass::Real, 8), Ok(BuiltinType::Real8));
        assert_eq!(match_size(TypeClass::Integer, 1), Ok(BuiltinType::Integer1));
        assert_eq!(
            match_size(TypeClass::Complex, 32),
            Ok(BuiltinType::Complex32)
        );
        assert_eq!(match_size(TypeClass::Complex, 4), Err(MpiError::Arg));
        assert_eq!(match_size(TypeClass::Integer, 16), Err(MpiError::Arg));
    }
}
