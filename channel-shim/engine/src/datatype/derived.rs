//! Derived datatype constructors (`MPI_Type_contiguous`, `vector`,
//! `hvector`, `indexed`, `hindexed`, `indexed_block`, `hindexed_block`,
//! `create_struct`, `create_resized`, `dup`).
//!
//! Each builds a flattened typemap of runs of predefined elements and the
//! bounds MPI defines: lb/ub are the extremes over all blocks of the old
//! type's lb/ub (zero-length blocks ignored); `create_struct` pads the upper
//! bound to the largest element alignment, as MPICH does, unless a member
//! has explicit bounds.

use super::{Combiner, Contents, DatatypeId, Datatypes, TypeArg, TypeInfo, TypeRun};
use crate::error::{MpiError, MpiResult};

/// Most runs (stretches of consecutive elements of one predefined type) the
/// flattened typemap of one derived datatype may have: 4,194,304 runs, 96 MiB.
/// The engine keeps every type flattened, so a constructor whose result
/// would need more (e.g. a vector of more than four million separate
/// blocks) fails with `MPI_ERR_OTHER` instead of exhausting memory.
pub const MAX_TYPEMAP_RUNS: u64 = 1 << 22;

/// One block of a new type: `len` copies of `old` at byte displacement `disp`.
struct Block<'a> {
    disp: i64,
    len: u64,
    old: &'a TypeInfo,
}

fn push_run(runs: &mut Vec<TypeRun>, r: TypeRun) {
    if r.count == 0 {
        return;
    }
    if let Some(last) = runs.last_mut() {
        if last.ty == r.ty && last.end() == i128::from(r.disp) {
            last.count += r.count;
            return;
        }
    }
    runs.push(r);
}

/// Whether consecutive copies of `t` are one run: a single run of a dense
/// element type that fills the extent exactly.
fn tiles(t: &TypeInfo) -> bool {
    match t.runs.as_slice() {
        [r] => r.ty.is_dense() && r.end() - i128::from(r.disp) == i128::from(t.extent()),
        _ => false,
    }
}

/// Runs a block adds to the typemap before merging.
fn block_runs(b: &Block<'_>) -> u64 {
    if b.len == 0 || b.old.runs.is_empty() {
        0
    } else if tiles(b.old) {
        1
    } else {
        b.len.saturating_mul(b.old.runs.len() as u64)
    }
}

/// A byte displacement or bound that must fit `MPI_Aint`.
fn aint(v: i128) -> MpiResult<i64> {
    i64::try_from(v).map_err(|_| MpiError::Arg)
}

fn build(blocks: &[Block<'_>], struct_padding: bool) -> MpiResult<TypeInfo> {
    let planned = blocks
        .iter()
        .fold(0u64, |n, b| n.saturating_add(block_runs(b)));
    if planned > MAX_TYPEMAP_RUNS {
        return Err(MpiError::Other);
    }
    let mut runs = Vec::new();
    let mut size = 0u64;
    let (mut lb, mut ub, mut tlb, mut tub) = (i128::MAX, i128::MIN, i128::MAX, i128::MIN);
    let mut align = 1u64;
    let mut explicit = false;
    for b in blocks.iter().filter(|b| b.len > 0) {
        let ext = i128::from(b.old.extent());
        let disp = i128::from(b.disp);
        let span = (i128::from(b.len) - 1) * ext;
        lb = lb.min(disp + i128::from(b.old.lb) + span.min(0));
        ub = ub.max(disp + i128::from(b.old.ub) + span.max(0));
        if b.old.size > 0 {
            tlb = tlb.min(disp + i128::from(b.old.true_lb) + span.min(0));
            tub = tub.max(disp + i128::from(b.old.true_ub) + span.max(0));
        }
        align = align.max(b.old.align);
        explicit |= b.old.explicit_bounds;
        size = b
            .len
            .checked_mul(b.old.size)
            .and_then(|s| s.checked_add(size))
            .filter(|&s| s <= i64::MAX as u64)
            .ok_or(MpiError::Arg)?;
        if tiles(b.old) {
            let r = b.old.runs[0];
            let count = r.count.checked_mul(b.len).ok_or(MpiError::Arg)?;
            let run = TypeRun {
                disp: aint(disp + i128::from(r.disp))?,
                count,
                ..r
            };
            aint(run.end())?;
            push_run(&mut runs, run);
            continue;
        }
        for k in 0..i128::from(b.len) {
            for r in &b.old.runs {
                let run = TypeRun {
                    disp: aint(disp + k * ext + i128::from(r.disp))?,
                    ..*r
                };
                aint(run.end())?;
                push_run(&mut runs, run);
            }
        }
    }
    if lb == i128::MAX {
        (lb, ub) = (0, 0);
    }
    if tlb == i128::MAX {
        (tlb, tub) = (0, 0);
    }
    if struct_padding && !explicit {
        let rem = (ub - lb).rem_euclid(i128::from(align));
        if rem != 0 {
            ub += i128::from(align) - rem;
        }
    }
    let (lb, ub) = (aint(lb)?, aint(ub)?);
    aint(i128::from(ub) - i128::from(lb))?;
    Ok(TypeInfo {
        runs,
        size,
        lb,
        ub,
        true_lb: aint(tlb)?,
        true_ub: aint(tub)?,
        align,
        explicit_bounds: explicit,
        committed: false,
        contents: Contents::named(),
    })
}

/// Displacements in elements of extent `ext`, in bytes.
fn in_bytes(disps: &[i64], ext: i64) -> MpiResult<Vec<i64>> {
    disps
        .iter()
        .map(|d| d.checked_mul(ext).ok_or(MpiError::Arg))
        .collect()
}

impl Datatypes {
    /// A new type of `blocks` (displacement in bytes, count, type), made
    /// by the call `contents` records.
    pub(super) fn made(
        &mut self,
        blocks: &[(i64, u64, DatatypeId)],
        struct_padding: bool,
        contents: Contents,
    ) -> MpiResult<DatatypeId> {
        let t = self.build_blocks(blocks, struct_padding)?;
        Ok(self.add(TypeInfo { contents, ..t }))
    }

    /// The type of `blocks`, not stored.
    pub(super) fn build_blocks(
        &self,
        blocks: &[(i64, u64, DatatypeId)],
        struct_padding: bool,
    ) -> MpiResult<TypeInfo> {
        let infos: Vec<&TypeInfo> = blocks
            .iter()
            .map(|&(_, _, t)| self.live(t))
            .collect::<MpiResult<_>>()?;
        let bs: Vec<Block<'_>> = blocks
            .iter()
            .zip(infos)
            .map(|(&(disp, len, _), old)| Block { disp, len, old })
            .collect();
        build(&bs, struct_padding)
    }

    /// `MPI_Type_contiguous`.
    pub fn contiguous(&mut self, count: usize, old: DatatypeId) -> MpiResult<DatatypeId> {
        let c = Contents::of(
            Combiner::Contiguous,
            vec![int(count)],
            vec![],
            vec![TypeArg::Type(old)],
        );
        self.made(&[(0, count as u64, old)], false, c)
    }

    /// `MPI_Type_vector`: stride in elements of `old`.
    pub fn vector(
        &mut self,
        count: usize,
        blocklen: usize,
        stride: i64,
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let ext = self.live(old)?.extent();
        let bytes = stride.checked_mul(ext).ok_or(MpiError::Arg)?;
        let t = self.hvector_info(count, blocklen, bytes, old)?;
        let ints = vec![int(count), int(blocklen), stride];
        let c = Contents::of(Combiner::Vector, ints, vec![], vec![TypeArg::Type(old)]);
        Ok(self.add(TypeInfo { contents: c, ..t }))
    }

    /// `MPI_Type_create_hvector`: stride in bytes.
    pub fn hvector(
        &mut self,
        count: usize,
        blocklen: usize,
        stride: i64,
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let t = self.hvector_info(count, blocklen, stride, old)?;
        let ints = vec![int(count), int(blocklen)];
        let c = Contents::of(
            Combiner::Hvector,
            ints,
            vec![stride],
            vec![TypeArg::Type(old)],
        );
        Ok(self.add(TypeInfo { contents: c, ..t }))
    }

    fn hvector_info(
        &self,
        count: usize,
        blocklen: usize,
        stride: i64,
        old: DatatypeId,
    ) -> MpiResult<TypeInfo> {
        let t = self.live(old)?;
        let blocklen = blocklen as u64;
        if count as u64 > MAX_TYPEMAP_RUNS {
            // Too many blocks to list. Empty blocks count for nothing, and a
            // vector whose blocks abut is one contiguous block as long as
            // its old type tiles; anything else is beyond the limit.
            if blocklen == 0 {
                return self.build_blocks(&[], false);
            }
            let block_bytes = i128::from(blocklen as i64) * i128::from(t.extent());
            if t.size > 0 && tiles(t) && i128::from(stride) == block_bytes {
                let len = blocklen.checked_mul(count as u64).ok_or(MpiError::Arg)?;
                return self.build_blocks(&[(0, len, old)], false);
            }
            return Err(MpiError::Other);
        }
        let blocks: Vec<_> = (0..count as i64)
            .map(|i| Ok((aint(i128::from(i) * i128::from(stride))?, blocklen, old)))
            .collect::<MpiResult<_>>()?;
        self.build_blocks(&blocks, false)
    }

    /// `MPI_Type_indexed`: displacements in elements of `old`.
    pub fn indexed(
        &mut self,
        blocklens: &[usize],
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let bytes = in_bytes(disps, self.live(old)?.extent())?;
        let t = self.hindexed_info(blocklens, &bytes, old)?;
        let mut ints = vec![int(blocklens.len())];
        ints.extend(blocklens.iter().map(|&b| int(b)));
        ints.extend_from_slice(disps);
        let c = Contents::of(Combiner::Indexed, ints, vec![], vec![TypeArg::Type(old)]);
        Ok(self.add(TypeInfo { contents: c, ..t }))
    }

    /// `MPI_Type_create_hindexed`: displacements in bytes.
    pub fn hindexed(
        &mut self,
        blocklens: &[usize],
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let t = self.hindexed_info(blocklens, disps, old)?;
        let mut ints = vec![int(blocklens.len())];
        ints.extend(blocklens.iter().map(|&b| int(b)));
        let c = Contents::of(
            Combiner::Hindexed,
            ints,
            disps.to_vec(),
            vec![TypeArg::Type(old)],
        );
        Ok(self.add(TypeInfo { contents: c, ..t }))
    }

    fn hindexed_info(
        &self,
        blocklens: &[usize],
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<TypeInfo> {
        if blocklens.len() != disps.len() {
            return Err(MpiError::Arg);
        }
        let blocks: Vec<_> = disps
            .iter()
            .zip(blocklens)
            .map(|(&d, &l)| (d, l as u64, old))
            .collect();
        self.build_blocks(&blocks, false)
    }

    /// `MPI_Type_create_indexed_block`: displacements in elements of `old`.
    pub fn indexed_block(
        &mut self,
        blocklen: usize,
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let bytes = in_bytes(disps, self.live(old)?.extent())?;
        let blocks: Vec<_> = bytes.iter().map(|&d| (d, blocklen as u64, old)).collect();
        let mut ints = vec![int(disps.len()), int(blocklen)];
        ints.extend_from_slice(disps);
        let c = Contents::of(
            Combiner::IndexedBlock,
            ints,
            vec![],
            vec![TypeArg::Type(old)],
        );
        self.made(&blocks, false, c)
    }

    /// `MPI_Type_create_hindexed_block`: displacements in bytes.
    pub fn hindexed_block(
        &mut self,
        blocklen: usize,
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let blocks: Vec<_> = disps.iter().map(|&d| (d, blocklen as u64, old)).collect();
        let ints = vec![int(disps.len()), int(blocklen)];
        let c = Contents::of(
            Combiner::HindexedBlock,
            ints,
            disps.to_vec(),
            vec![TypeArg::Type(old)],
        );
        self.made(&blocks, false, c)
    }

    /// `MPI_Type_create_struct` (also MPI-1's `MPI_Type_struct`, whose
    /// `MPI_LB` / `MPI_UB` members set explicit bounds: the lowest `MPI_LB`
    /// and the highest `MPI_UB` displacement; a missing one is the bound the
    /// other members give).
    pub fn create_struct(
        &mut self,
        blocklens: &[usize],
        disps: &[i64],
        types: &[TypeArg],
    ) -> MpiResult<DatatypeId> {
        if blocklens.len() != disps.len() || disps.len() != types.len() {
            return Err(MpiError::Arg);
        }
        let (mut blocks, mut lb, mut ub) = (Vec::new(), None::<i64>, None::<i64>);
        for i in 0..types.len() {
            match types[i] {
                TypeArg::Type(t) => blocks.push((disps[i], blocklens[i] as u64, t)),
                TypeArg::Lb => lb = Some(lb.map_or(disps[i], |x| x.min(disps[i]))),
                TypeArg::Ub => ub = Some(ub.map_or(disps[i], |x| x.max(disps[i]))),
            }
        }
        let mut t = self.build_blocks(&blocks, true)?;
        if lb.is_some() || ub.is_some() {
            let (l, u) = (lb.unwrap_or(t.lb), ub.unwrap_or(t.ub));
            aint(i128::from(u) - i128::from(l))?;
            (t.lb, t.ub, t.explicit_bounds) = (l, u, true);
        }
        let mut ints = vec![int(types.len())];
        ints.extend(blocklens.iter().map(|&b| int(b)));
        t.contents = Contents::of(Combiner::Struct, ints, disps.to_vec(), types.to_vec());
        Ok(self.add(t))
    }

    /// `MPI_Type_create_resized`.
    pub fn resized(&mut self, old: DatatypeId, lb: i64, extent: i64) -> MpiResult<DatatypeId> {
        let ub = lb.checked_add(extent).ok_or(MpiError::Arg)?;
        let mut t = self.live(old)?.clone();
        t.lb = lb;
        t.ub = ub;
        t.explicit_bounds = true;
        t.committed = false;
        t.contents = Contents::of(
            Combiner::Resized,
            vec![],
            vec![lb, extent],
            vec![TypeArg::Type(old)],
        );
        Ok(self.add(t))
    }

    /// `MPI_Type_dup` (the copy is committed if the original is).
    pub fn dup(&mut self, old: DatatypeId) -> MpiResult<DatatypeId> {
        let mut t = self.live(old)?.clone();
        t.contents = Contents::of(Combiner::Dup, vec![], vec![], vec![TypeArg::Type(old)]);
        Ok(self.add(t))
    }
}

/// A count or length as the `int` the program gave (constructors take
/// C `int`s, so this never saturates for their arguments).
fn int(v: usize) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use crate::datatype::{BuiltinType as B, DatatypeId, Datatypes, TypeArg};

    fn d(b: B) -> DatatypeId {
        DatatypeId::Builtin(b)
    }

    fn a(b: B) -> TypeArg {
        TypeArg::Type(d(b))
    }

    #[test]
    fn contiguous_merges() {
        let mut t = Datatypes::new();
        let c = t.contiguous(10, d(B::Double)).unwrap();
        let i = t.info(c).unwrap();
        assert_eq!(i.runs.len(), 1);
        assert_eq!((i.size, i.extent()), (80, 80));
        assert!(i.is_contiguous());
        assert!(!i.committed);
    }

    #[test]
    fn vector_bounds() {
        let mut t = Datatypes::new();
        let v = t.vector(3, 2, 5, d(B::Int)).unwrap();
        let i = t.info(v).unwrap();
        assert_eq!(i.size, 24);
        assert_eq!(i.extent(), (2 * 5 + 2) * 4);
        assert_eq!(i.runs.len(), 3);
        let neg = t.vector(3, 1, -2, d(B::Int)).unwrap();
        let i = t.info(neg).unwrap();
        assert_eq!((i.lb, i.ub), (-16, 4));
    }

    #[test]
    fn struct_padding_like_c() {
        let mut t = Datatypes::new();
        // struct { double d; char c; } -> extent 16
        let s = t
            .create_struct(&[1, 1], &[0, 8], &[a(B::Double), a(B::Char)])
            .unwrap();
        let i = t.info(s).unwrap();
        assert_eq!((i.size, i.extent(), i.true_ub), (9, 16, 9));
        let r = t.resized(s, 0, 9).unwrap();
        assert_eq!(t.extent(r).unwrap(), (0, 9));
        assert_eq!(t.true_extent(r).unwrap(), (0, 9));
    }

    #[test]
    fn indexed_and_elements() {
        let mut t = Datatypes::new();
        let x = t.indexed(&[2, 0, 1], &[4, 100, 0], d(B::Short)).unwrap();
        let i = t.info(x).unwrap().clone();
        assert_eq!((i.lb, i.ub, i.size), (0, 12, 6));
        assert_eq!(t.get_elements(x, 6).unwrap(), 3);
        assert_eq!(t.get_elements(x, 10).unwrap(), 5);
        assert_eq!(t.get_count(x, 12).unwrap(), Some(2));
        assert_eq!(t.get_count(x, 10).unwrap(), None);
        assert_eq!(t.get_elements(d(B::DoubleInt), 12 + 8).unwrap(), 3);
    }

    #[test]
    fn free_and_reuse() {
        let mut t = Datatypes::new();
        let a = t.contiguous(2, d(B::Int)).unwrap();
        t.free(a).unwrap();
        assert!(t.free(a).is_err());
        assert!(t.free(d(B::Int)).is_err());
        assert!(t.info(a).is_err());
    }

    #[test]
    fn a_freed_type_in_use_lives_on_and_keeps_its_number() {
        let mut t = Datatypes::new();
        let a = t.vector(3, 1, 2, d(B::Int)).unwrap();
        t.commit(a).unwrap();
        t.add_use(a);
        t.add_use(a);
        t.free(a).unwrap();
        // The program's handle is gone: no second free, no new use.
        assert!(t.free(a).is_err());
        assert!(!t.is_live(a));
        assert!(t.live(a).is_err());
        assert!(t.contiguous(2, a).is_err());
        // Operations still see it, and its number is not reused.
        assert_eq!(t.info(a).unwrap().size, 12);
        let b = t.contiguous(2, d(B::Int)).unwrap();
        assert_ne!(b, a);
        t.release_use(a);
        assert_eq!(t.committed(a).unwrap().size, 12);
        t.release_use(a);
        assert!(t.info(a).is_err());
        assert_eq!(t.derived_count(), 1);
        // Its number is free again.
        assert_eq!(t.contiguous(1, d(B::Int)).unwrap(), a);
        // Predefined types need no counting.
        t.add_use(d(B::Int));
        t.release_use(d(B::Int));
        assert!(t.info(d(B::Int)).is_ok());
    }

    #[test]
    fn huge_types_are_refused_or_kept_compact() {
        use crate::datatype::MAX_TYPEMAP_RUNS;
        use crate::error::MpiError;
        let mut t = Datatypes::new();
        let big = MAX_TYPEMAP_RUNS as usize + 1;
        // Abutting blocks of a tiling type are one run, however many.
        let v = t.vector(big, 3, 3, d(B::Int)).unwrap();
        let i = t.info(v).unwrap();
        assert_eq!((i.runs.len(), i.size), (1, 4 * 3 * big as u64));
        let c = t.contiguous(i32::MAX as usize, d(B::Double)).unwrap();
        assert_eq!(t.info(c).unwrap().runs.len(), 1);
        // Separate blocks past the limit are refused, before any allocation.
        assert_eq!(t.vector(big, 1, 2, d(B::Int)), Err(MpiError::Other));
        let gappy = t.vector(2, 1, 2, d(B::Int)).unwrap();
        let half = MAX_TYPEMAP_RUNS as usize / 2;
        assert!(t.contiguous(half, gappy).is_ok());
        assert_eq!(t.contiguous(half + 1, gappy), Err(MpiError::Other));
        // Blocks of nothing are nothing.
        let empty = t.hvector(big, 0, 8, d(B::Int)).unwrap();
        assert_eq!(t.info(empty).unwrap().size, 0);
    }

    #[test]
    fn arithmetic_beyond_mpi_aint_is_an_error_not_a_wrap() {
        use crate::error::MpiError;
        let mut t = Datatypes::new();
        assert_eq!(t.resized(d(B::Int), i64::MAX, 1), Err(MpiError::Arg));
        assert_eq!(t.vector(2, 1, i64::MAX / 2, d(B::Int)), Err(MpiError::Arg));
        assert_eq!(t.hvector(3, 1, i64::MAX / 2, d(B::Int)), Err(MpiError::Arg));
        assert_eq!(
            t.indexed(&[1], &[i64::MAX / 3], d(B::Int)),
            Err(MpiError::Arg)
        );
        // 8 × (2^31 − 1) bytes; that many of those exceed i64::MAX bytes.
        let wide = t.contiguous(i32::MAX as usize, d(B::Double)).unwrap();
        assert_eq!(t.contiguous(i32::MAX as usize, wide), Err(MpiError::Arg));
        // Counts too large for the type's extent: no region, no pack size.
        let far = t.resized(d(B::Int), 0, 1 << 62).unwrap();
        assert_eq!(t.span(far, 8).map(|s| s.len), Err(MpiError::Count));
        assert_eq!(t.pack_size(wide, i32::MAX as usize), Err(MpiError::Count));
    }
}
