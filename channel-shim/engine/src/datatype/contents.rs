//! What `MPI_Type_get_envelope` and `MPI_Type_get_contents` report: the
//! constructor that made each derived datatype and its arguments, kept
//! exactly as given (the flattened typemap cannot be turned back into
//! them).
//!
//! A type's contents refer to the types it was made from, which stay
//! alive while it does (see [`Datatypes::free`](super::Datatypes::free)).
//!
//! The arrays follow the MPI standard's table for each combiner (integers,
//! addresses, datatypes); MPICH 4.0 records its MPI-1 constructors
//! (`MPI_Type_hvector`, `MPI_Type_hindexed`, `MPI_Type_struct`, from C and
//! from Fortran alike) under the MPI-2 combiners with address arguments,
//! never the `*_INTEGER` ones, and so does this module.

use super::DatatypeId;

/// The constructor of a datatype (`MPI_COMBINER_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    /// A predefined type.
    Named,
    /// `MPI_Type_dup`.
    Dup,
    /// `MPI_Type_contiguous`.
    Contiguous,
    /// `MPI_Type_vector`.
    Vector,
    /// `MPI_Type_create_hvector` / `MPI_Type_hvector`.
    Hvector,
    /// `MPI_Type_indexed`.
    Indexed,
    /// `MPI_Type_create_hindexed` / `MPI_Type_hindexed`.
    Hindexed,
    /// `MPI_Type_create_indexed_block`.
    IndexedBlock,
    /// `MPI_Type_create_hindexed_block`.
    HindexedBlock,
    /// `MPI_Type_create_struct` / `MPI_Type_struct`.
    Struct,
    /// `MPI_Type_create_subarray`.
    Subarray,
    /// `MPI_Type_create_darray`.
    Darray,
    /// `MPI_Type_create_f90_real`.
    F90Real,
    /// `MPI_Type_create_f90_complex`.
    F90Complex,
    /// `MPI_Type_create_f90_integer`.
    F90Integer,
    /// `MPI_Type_create_resized`.
    Resized,
}

/// A datatype argument of a constructor: a type, or one of MPI-1's bound
/// markers `MPI_LB` / `MPI_UB` (struct members that set the lower or upper
/// bound and hold no data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeArg {
    /// A datatype.
    Type(DatatypeId),
    /// `MPI_LB`.
    Lb,
    /// `MPI_UB`.
    Ub,
}

/// A constructor call: `MPI_Type_get_envelope` gives the combiner and the
/// three lengths, `MPI_Type_get_contents` the arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contents {
    /// Which constructor.
    pub combiner: Combiner,
    /// Its integer arguments, in the standard's order (as given: a
    /// large-count constructor's may exceed an `int`).
    pub ints: Vec<i64>,
    /// Its address arguments.
    pub aints: Vec<i64>,
    /// Its datatype arguments.
    pub types: Vec<TypeArg>,
    /// Whether a large-count (`_c`) constructor made it: MPI 4.0 then
    /// reports its integer and address arguments as large counts, and
    /// the classic `MPI_Type_get_envelope` refuses it (as MPICH does).
    pub large_count: bool,
}

/// A constructor's arguments as `MPI_Type_get_contents_c` gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LargeContents {
    /// `array_of_integers`.
    pub ints: Vec<i64>,
    /// `array_of_addresses`.
    pub aints: Vec<i64>,
    /// `array_of_large_counts`.
    pub large: Vec<i64>,
}

impl Contents {
    /// The contents of a predefined type.
    pub fn named() -> Contents {
        Contents {
            combiner: Combiner::Named,
            ints: Vec::new(),
            aints: Vec::new(),
            types: Vec::new(),
            large_count: false,
        }
    }

    /// A constructor's record.
    pub fn of(
        combiner: Combiner,
        ints: Vec<i64>,
        aints: Vec<i64>,
        types: Vec<TypeArg>,
    ) -> Contents {
        Contents {
            combiner,
            ints,
            aints,
            types,
            large_count: false,
        }
    }

    /// The arguments as `MPI_Type_get_contents_c` reports them. A type
    /// a large-count constructor made has its counts, block lengths,
    /// displacements and (subarray, darray) array sizes as large counts,
    /// in the standard's order; the other integers (a subarray's `ndims`
    /// and `order`, a darray's process grid) stay integers. Any other type
    /// has no large counts.
    pub fn large_form(&self) -> LargeContents {
        let (ints, aints) = (self.ints.clone(), self.aints.clone());
        if !self.large_count {
            return LargeContents {
                ints,
                aints,
                large: Vec::new(),
            };
        }
        match self.combiner {
            // ndims, sizes, subsizes, starts, order.
            Combiner::Subarray => {
                let n = ints.len();
                LargeContents {
                    ints: vec![ints[0], ints[n - 1]],
                    aints,
                    large: ints[1..n - 1].to_vec(),
                }
            }
            // size, rank, ndims, gsizes, distribs, dargs, psizes, order.
            Combiner::Darray => {
                let nd = ints[2] as usize;
                let mut small = ints[..3].to_vec();
                small.extend_from_slice(&ints[3 + nd..]);
                LargeContents {
                    ints: small,
                    aints,
                    large: ints[3..3 + nd].to_vec(),
                }
            }
            _ => {
                let mut large = ints;
                large.extend(aints);
                LargeContents {
                    ints: Vec::new(),
                    aints: Vec::new(),
                    large,
                }
            }
        }
    }

    /// The derived datatypes it refers to (kept alive by it).
    pub fn derived_types(&self) -> impl Iterator<Item = u32> + '_ {
        self.types.iter().filter_map(|t| match t {
            TypeArg::Type(DatatypeId::Derived(n)) => Some(*n),
            _ => None,
        })
    }
}

impl super::Datatypes {
    /// The constructor call that made `dt` (`MPI_Type_get_envelope`,
    /// `MPI_Type_get_contents`).
    pub fn contents(&self, dt: DatatypeId) -> crate::error::MpiResult<&Contents> {
        Ok(&self.info(dt)?.contents)
    }

    /// Records that a large-count (`_c`) constructor made `dt`.
    pub fn mark_large_count(&mut self, dt: DatatypeId) -> crate::error::MpiResult<()> {
        let slot = match dt {
            DatatypeId::Derived(i) => self.slot_mut(i),
            DatatypeId::Builtin(_) => None,
        };
        let slot = slot.ok_or(crate::error::MpiError::Datatype)?;
        std::sync::Arc::make_mut(&mut slot.info)
            .contents
            .large_count = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::{BuiltinType as B, Datatypes};
    use crate::error::MpiError;

    fn d(b: B) -> DatatypeId {
        DatatypeId::Builtin(b)
    }

    #[test]
    fn every_constructor_is_recorded_as_called() {
        let mut t = Datatypes::new();
        let v = t.vector(2, 3, -4, d(B::Int)).unwrap();
        let c = t.contents(v).unwrap().clone();
        assert_eq!(
            (c.combiner, c.ints, c.aints, c.types),
            (
                Combiner::Vector,
                vec![2, 3, -4],
                vec![],
                vec![TypeArg::Type(d(B::Int))]
            )
        );
        let ix = t.indexed(&[1, 0, 2], &[4, 9, -2], v).unwrap();
        let c = t.contents(ix).unwrap();
        assert_eq!(c.ints, vec![3, 1, 0, 2, 4, 9, -2]);
        assert_eq!(c.types, vec![TypeArg::Type(v)]);
        let hb = t.hindexed_block(2, &[16, -8], d(B::Double)).unwrap();
        let c = t.contents(hb).unwrap();
        assert_eq!(
            (c.combiner, c.ints.clone(), c.aints.clone()),
            (Combiner::HindexedBlock, vec![2, 2], vec![16, -8])
        );
        let args = [TypeArg::Lb, TypeArg::Type(d(B::Char)), TypeArg::Ub];
        let s = t.create_struct(&[1, 3, 1], &[-4, 0, 12], &args).unwrap();
        let c = t.contents(s).unwrap();
        assert_eq!(
            (c.combiner, c.ints.clone(), c.types.clone()),
            (Combiner::Struct, vec![3, 1, 3, 1], args.to_vec())
        );
        // MPI_LB / MPI_UB set the bounds and hold no data.
        assert_eq!((t.extent(s).unwrap(), t.size(s).unwrap()), ((-4, 16), 3));
        let r = t.resized(s, 8, 100).unwrap();
        assert_eq!(t.contents(r).unwrap().aints, vec![8, 100]);
        let dup = t.dup(r).unwrap();
        assert_eq!(t.contents(dup).unwrap().combiner, Combiner::Dup);
        assert_eq!(t.contents(d(B::Int)).unwrap().combiner, Combiner::Named);
    }

    #[test]
    fn large_count_constructors_report_large_counts() {
        let mut t = Datatypes::new();
        let h = t.hindexed(&[1, 2], &[0, 8], d(B::Int)).unwrap();
        assert_eq!(t.contents(h).unwrap().large_form().large, Vec::<i64>::new());
        t.mark_large_count(h).unwrap();
        let l = t.contents(h).unwrap().large_form();
        assert_eq!(
            (l.ints, l.aints, l.large),
            (vec![], vec![], vec![2, 1, 2, 0, 8])
        );
        let big = t.contiguous(3_000_000_000, d(B::Char)).unwrap();
        t.mark_large_count(big).unwrap();
        assert_eq!(
            t.contents(big).unwrap().large_form().large,
            vec![3_000_000_000]
        );
        let s = t
            .subarray(&[4, 5], &[2, 3], &[1, 2], 56, d(B::Int))
            .unwrap();
        t.mark_large_count(s).unwrap();
        let l = t.contents(s).unwrap().large_form();
        assert_eq!((l.ints, l.large), (vec![2, 56], vec![4, 5, 2, 3, 1, 2]));
        let block = [121, 121];
        let dflt = [-49767, -49767];
        let da = t
            .darray(4, 3, &[10, 4], &block, &dflt, &[2, 2], 56, d(B::Int))
            .unwrap();
        t.mark_large_count(da).unwrap();
        let l = t.contents(da).unwrap().large_form();
        assert_eq!(
            (l.ints, l.large),
            (
                vec![4, 3, 2, 121, 121, -49767, -49767, 2, 2, 56],
                vec![10, 4]
            )
        );
    }

    #[test]
    fn a_type_lives_while_a_type_made_from_it_does() {
        let mut t = Datatypes::new();
        let inner = t.contiguous(2, d(B::Int)).unwrap();
        let outer = t.vector(3, 1, 2, inner).unwrap();
        t.free(inner).unwrap();
        assert_eq!(
            t.free(inner),
            Err(MpiError::Datatype),
            "the program's handle is gone"
        );
        assert!(!t.is_live(inner));
        // Its number is not reused while `outer` names it.
        let other = t.contiguous(5, d(B::Char)).unwrap();
        assert_ne!(other, inner);
        // Handed out again by MPI_Type_get_contents, it works and is freed
        // like any handle.
        t.hand_out(inner).unwrap();
        assert_eq!(t.size(inner).unwrap(), 8);
        t.free(inner).unwrap();
        let before = t.derived_count();
        t.free(outer).unwrap();
        assert_eq!(t.derived_count(), before - 2, "outer and inner both go");
    }
}
