//! A datatype as a data representation lays it out in a file.
//!
//! MPI-IO's representations other than "native" give every predefined
//! type its own size in the file ("external32": MPI's portable sizes; a
//! representation the program registered with `MPI_Register_datarep`: what
//! its extent callback says). A file view's etype and filetype are then
//! laid out with those sizes: the derived type is rebuilt, constructor by
//! constructor, over predefined types of the file sizes. Counts, strides
//! and displacements given in elements (contiguous, vector, indexed,
//! indexed_block, subarray, darray: MPI's *portable* constructors) scale
//! with the element; those given in bytes (hvector, hindexed, struct,
//! resized) stay as the program gave them, as MPI leaves non-portable
//! types to the program.

use super::{BuiltinType, Combiner, DatatypeId, Datatypes, TypeArg, TypeInfo};
use crate::error::{MpiError, MpiResult};
use std::collections::BTreeMap;

/// Bytes each predefined type takes in a file's representation.
pub type FileSizes = BTreeMap<BuiltinType, u64>;

impl Datatypes {
    /// The distinct predefined types in the typemap of `dt` (what a
    /// representation must give a file size for).
    pub fn predefined_types_in(&self, dt: DatatypeId) -> MpiResult<Vec<BuiltinType>> {
        let mut out: Vec<BuiltinType> = self.info(dt)?.runs.iter().map(|r| r.ty).collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Predefined data items in `count` instances of `dt` (the `count` a
    /// conversion callback gets: one per typemap entry).
    pub fn predefined_items(&self, dt: DatatypeId, count: usize) -> MpiResult<u64> {
        let one: u64 = self.info(dt)?.runs.iter().map(|r| r.count).sum();
        one.checked_mul(count as u64).ok_or(MpiError::Count)
    }

    /// Bytes of `count` instances of `dt` in a representation of `sizes`.
    pub fn file_bytes(&self, dt: DatatypeId, count: usize, sizes: &FileSizes) -> MpiResult<u64> {
        let mut one = 0u64;
        for r in &self.info(dt)?.runs {
            one = one
                .checked_add(
                    r.count
                        .checked_mul(size_in(sizes, r.ty)?)
                        .ok_or(MpiError::Count)?,
                )
                .ok_or(MpiError::Count)?;
        }
        one.checked_mul(count as u64).ok_or(MpiError::Count)
    }

    /// Of `count` instances of `dt`, the whole predefined items the first
    /// `file_bytes` bytes of their file form hold (a read that met the end
    /// of the file), and those items' bytes in memory.
    pub fn items_within(
        &self,
        dt: DatatypeId,
        count: usize,
        file_bytes: u64,
        sizes: &FileSizes,
    ) -> MpiResult<(u64, u64)> {
        let runs = &self.info(dt)?.runs;
        let (mut items, mut memory, mut left) = (0u64, 0u64, file_bytes);
        for _ in 0..count {
            for r in runs {
                let each = size_in(sizes, r.ty)?;
                let whole = left.checked_div(each).unwrap_or(u64::MAX).min(r.count);
                items += whole;
                memory += whole * r.ty.size();
                left -= whole * each;
                if whole < r.count {
                    return Ok((items, memory));
                }
            }
        }
        Ok((items, memory))
    }

    /// The type `dt` describes in a file whose representation gives the
    /// predefined types `sizes` bytes: `dt` itself when every size is the
    /// native one, otherwise `dt` rebuilt over predefined types of those
    /// sizes (see the module docs). Its typemap is bytes.
    pub fn in_file(&self, dt: DatatypeId, sizes: &FileSizes) -> MpiResult<TypeInfo> {
        let native = self.predefined_types_in(dt)?.iter().all(|&b| {
            sizes
                .get(&b)
                .map_or(true, |&s| s == b.size() && s == b.extent())
        });
        if native {
            return Ok(self.info(dt)?.clone());
        }
        let mut scratch = Datatypes::new();
        let rebuilt = self.rebuild(dt, sizes, &mut scratch)?;
        Ok(scratch.info(rebuilt)?.clone())
    }

    /// `dt` made again in `into` from its constructor's arguments, with its
    /// predefined types replaced by byte blocks of their file sizes.
    fn rebuild(
        &self,
        dt: DatatypeId,
        sizes: &FileSizes,
        into: &mut Datatypes,
    ) -> MpiResult<DatatypeId> {
        let t = self.info(dt)?;
        let c = &t.contents;
        let mut old = |i: usize| -> MpiResult<DatatypeId> {
            match c.types.get(i) {
                Some(TypeArg::Type(d)) => self.rebuild(*d, sizes, into),
                _ => Err(MpiError::Datatype),
            }
        };
        let n = |v: i64| usize::try_from(v).map_err(|_| MpiError::Count);
        let ints = &c.ints;
        let int = |i: usize| ints.get(i).copied().ok_or(MpiError::Datatype);
        let i32s = |from: usize, len: usize| -> MpiResult<Vec<i32>> {
            ints.get(from..from + len)
                .ok_or(MpiError::Datatype)?
                .iter()
                .map(|&v| i32::try_from(v).map_err(|_| MpiError::Count))
                .collect()
        };
        let usizes = |from: usize, len: usize| -> MpiResult<Vec<usize>> {
            ints.get(from..from + len)
                .ok_or(MpiError::Datatype)?
                .iter()
                .map(|&v| usize::try_from(v).map_err(|_| MpiError::Count))
                .collect()
        };
        match c.combiner {
            Combiner::Named | Combiner::F90Real | Combiner::F90Complex | Combiner::F90Integer => {
                match t.runs.as_slice() {
                    [r] if r.count == 1 && r.disp == 0 => {
                        let bytes = size_in(sizes, r.ty)?;
                        into.contiguous(n(bytes as i64)?, BuiltinType::Byte.into())
                    }
                    _ => Err(MpiError::Datatype),
                }
            }
            Combiner::Dup => old(0),
            Combiner::Contiguous => {
                let o = old(0)?;
                into.contiguous(n(int(0)?)?, o)
            }
            Combiner::Vector => {
                let o = old(0)?;
                into.vector(n(int(0)?)?, n(int(1)?)?, int(2)?, o)
            }
            Combiner::Hvector => {
                let o = old(0)?;
                let stride = *c.aints.first().ok_or(MpiError::Datatype)?;
                into.hvector(n(int(0)?)?, n(int(1)?)?, stride, o)
            }
            Combiner::Indexed => {
                let k = n(int(0)?)?;
                let o = old(0)?;
                let disps = ints.get(1 + k..1 + 2 * k).ok_or(MpiError::Datatype)?;
                into.indexed(&usizes(1, k)?, disps, o)
            }
            Combiner::Hindexed => {
                let k = n(int(0)?)?;
                let o = old(0)?;
                into.hindexed(&usizes(1, k)?, &c.aints, o)
            }
            Combiner::IndexedBlock => {
                let k = n(int(0)?)?;
                let o = old(0)?;
                let disps = ints.get(2..2 + k).ok_or(MpiError::Datatype)?;
                into.indexed_block(n(int(1)?)?, disps, o)
            }
            Combiner::HindexedBlock => {
                let o = old(0)?;
                into.hindexed_block(n(int(1)?)?, &c.aints, o)
            }
            Combiner::Struct => {
                let k = n(int(0)?)?;
                let mut types = Vec::with_capacity(k);
                for i in 0..k {
                    types.push(match c.types.get(i) {
                        Some(TypeArg::Type(_)) => TypeArg::Type(old(i)?),
                        Some(other) => *other,
                        None => return Err(MpiError::Datatype),
                    });
                }
                into.create_struct(&usizes(1, k)?, &c.aints, &types)
            }
            Combiner::Subarray => {
                let d = n(int(0)?)?;
                let o = old(0)?;
                let (sizes_, subsizes, starts) =
                    (i32s(1, d)?, i32s(1 + d, d)?, i32s(1 + 2 * d, d)?);
                let order = i32s(1 + 3 * d, 1)?[0];
                into.subarray(&sizes_, &subsizes, &starts, order, o)
            }
            Combiner::Darray => {
                let d = n(int(2)?)?;
                let o = old(0)?;
                let head = i32s(0, 2)?;
                let order = i32s(3 + 4 * d, 1)?[0];
                into.darray(
                    head[0],
                    head[1],
                    &i32s(3, d)?,
                    &i32s(3 + d, d)?,
                    &i32s(3 + 2 * d, d)?,
                    &i32s(3 + 3 * d, d)?,
                    order,
                    o,
                )
            }
            Combiner::Resized => {
                let o = old(0)?;
                let (lb, extent) = match c.aints.as_slice() {
                    [lb, extent] => (*lb, *extent),
                    _ => return Err(MpiError::Datatype),
                };
                into.resized(o, lb, extent)
            }
        }
    }
}

/// The file size of predefined type `b` (`MPI_ERR_TYPE` when the
/// representation gave none).
fn size_in(sizes: &FileSizes, b: BuiltinType) -> MpiResult<u64> {
    sizes.get(&b).copied().ok_or(MpiError::Datatype)
}

#[cfg(test)]
mod tests {
    use super::*;
    use BuiltinType as B;

    fn sizes(pairs: &[(BuiltinType, u64)]) -> FileSizes {
        pairs.iter().copied().collect()
    }

    fn segments(t: &TypeInfo) -> Vec<(i64, u64)> {
        let mut out = Vec::new();
        super::super::for_segments(t, 0, 1, |a, l| {
            out.push((a, l));
            Ok(true)
        })
        .unwrap();
        out
    }

    #[test]
    fn native_sizes_keep_the_type() {
        let mut t = Datatypes::new();
        let v = t.vector(3, 2, 5, B::Int.into()).unwrap();
        let f = t.in_file(v, &sizes(&[(B::Int, 4)])).unwrap();
        assert_eq!(f.runs, t.info(v).unwrap().runs);
    }

    #[test]
    fn a_vector_of_ints_stored_in_8_bytes_scales_its_stride() {
        // vector(3 blocks of 2 ints, stride 5 ints): native blocks of 8
        // bytes every 20; with 8-byte ints blocks of 16 bytes every 40,
        // extent (2 strides + 1 block) = 2 × 40 + 16 = 96.
        let mut t = Datatypes::new();
        let v = t.vector(3, 2, 5, B::Int.into()).unwrap();
        let f = t.in_file(v, &sizes(&[(B::Int, 8)])).unwrap();
        assert_eq!(segments(&f), vec![(0, 16), (40, 16), (80, 16)]);
        assert_eq!((f.size, f.extent()), (48, 96));
    }

    #[test]
    fn subarray_and_indexed_scale_byte_constructors_do_not() {
        let mut t = Datatypes::new();
        let s = t
            .subarray(
                &[4, 4],
                &[2, 2],
                &[1, 1],
                super::super::subarray::ORDER_C,
                B::Double.into(),
            )
            .unwrap();
        let f = t.in_file(s, &sizes(&[(B::Double, 4)])).unwrap();
        // Rows 1 and 2, columns 1..3 of a 4 × 4 array of 4-byte elements.
        assert_eq!(segments(&f), vec![(20, 8), (36, 8)]);
        assert_eq!(f.extent(), 64);
        let h = t.hvector(2, 1, 100, B::Short.into()).unwrap();
        let f = t.in_file(h, &sizes(&[(B::Short, 4)])).unwrap();
        assert_eq!(segments(&f), vec![(0, 4), (100, 4)]);
    }

    #[test]
    fn items_and_bytes_of_a_short_read() {
        let mut t = Datatypes::new();
        let s = t
            .create_struct(
                &[1, 1],
                &[0, 8],
                &[
                    TypeArg::Type(B::Int.into()),
                    TypeArg::Type(B::Double.into()),
                ],
            )
            .unwrap();
        let z = sizes(&[(B::Int, 8), (B::Double, 8)]);
        assert_eq!(t.file_bytes(s, 3, &z).unwrap(), 48);
        assert_eq!(t.predefined_items(s, 3).unwrap(), 6);
        // 30 bytes: instance 0 (int, double), instance 1's int, 6 bytes of its double.
        assert_eq!(t.items_within(s, 3, 30, &z).unwrap(), (3, 4 + 8 + 4));
        assert!(t.file_bytes(s, 1, &sizes(&[(B::Int, 8)])).is_err());
    }
}
