//! Derived datatype constructors (`MPI_Type_contiguous`, `vector`,
//! `hvector`, `indexed`, `hindexed`, `indexed_block`, `hindexed_block`,
//! `create_struct`, `create_resized`, `dup`).
//!
//! Each builds a flattened typemap of runs of predefined elements and the
//! bounds MPI defines: lb/ub are the extremes over all blocks of the old
//! type's lb/ub (zero-length blocks ignored); `create_struct` pads the upper
//! bound to the largest element alignment, as MPICH does, unless a member
//! has explicit bounds.

use super::{DatatypeId, Datatypes, TypeInfo, TypeRun};
use crate::error::{MpiError, MpiResult};

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
        if last.ty == r.ty && last.end() == r.disp {
            last.count += r.count;
            return;
        }
    }
    runs.push(r);
}

fn build(blocks: &[Block<'_>], struct_padding: bool) -> TypeInfo {
    let mut runs = Vec::new();
    let mut size = 0u64;
    let (mut lb, mut ub, mut tlb, mut tub) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
    let mut align = 1u64;
    let mut explicit = false;
    for b in blocks.iter().filter(|b| b.len > 0) {
        let ext = b.old.extent();
        let span = (b.len as i64 - 1) * ext;
        lb = lb.min(b.disp + b.old.lb + span.min(0));
        ub = ub.max(b.disp + b.old.ub + span.max(0));
        if b.old.size > 0 {
            tlb = tlb.min(b.disp + b.old.true_lb + span.min(0));
            tub = tub.max(b.disp + b.old.true_ub + span.max(0));
        }
        align = align.max(b.old.align);
        explicit |= b.old.explicit_bounds;
        size += b.len * b.old.size;
        for k in 0..b.len as i64 {
            for r in &b.old.runs {
                push_run(
                    &mut runs,
                    TypeRun {
                        disp: b.disp + k * ext + r.disp,
                        ..*r
                    },
                );
            }
        }
    }
    if lb == i64::MAX {
        (lb, ub) = (0, 0);
    }
    if tlb == i64::MAX {
        (tlb, tub) = (0, 0);
    }
    if struct_padding && !explicit {
        let ext = ub - lb;
        let rem = ext.rem_euclid(align as i64);
        if rem != 0 {
            ub += align as i64 - rem;
        }
    }
    TypeInfo {
        runs,
        size,
        lb,
        ub,
        true_lb: tlb,
        true_ub: tub,
        align,
        explicit_bounds: explicit,
        committed: false,
    }
}

impl Datatypes {
    fn made(
        &mut self,
        blocks: &[(i64, u64, DatatypeId)],
        struct_padding: bool,
    ) -> MpiResult<DatatypeId> {
        let infos: Vec<TypeInfo> = blocks
            .iter()
            .map(|&(_, _, t)| self.info(t).cloned())
            .collect::<MpiResult<_>>()?;
        let bs: Vec<Block<'_>> = blocks
            .iter()
            .zip(&infos)
            .map(|(&(disp, len, _), old)| Block { disp, len, old })
            .collect();
        let t = build(&bs, struct_padding);
        Ok(self.add(t))
    }

    /// `MPI_Type_contiguous`.
    pub fn contiguous(&mut self, count: usize, old: DatatypeId) -> MpiResult<DatatypeId> {
        self.made(&[(0, count as u64, old)], false)
    }

    /// `MPI_Type_vector`: stride in elements of `old`.
    pub fn vector(
        &mut self,
        count: usize,
        blocklen: usize,
        stride: i64,
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let ext = self.info(old)?.extent();
        self.hvector(count, blocklen, stride * ext, old)
    }

    /// `MPI_Type_create_hvector`: stride in bytes.
    pub fn hvector(
        &mut self,
        count: usize,
        blocklen: usize,
        stride: i64,
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let blocks: Vec<_> = (0..count as i64)
            .map(|i| (i * stride, blocklen as u64, old))
            .collect();
        self.made(&blocks, false)
    }

    /// `MPI_Type_indexed`: displacements in elements of `old`.
    pub fn indexed(
        &mut self,
        blocklens: &[usize],
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let ext = self.info(old)?.extent();
        let bytes: Vec<i64> = disps.iter().map(|d| d * ext).collect();
        self.hindexed(blocklens, &bytes, old)
    }

    /// `MPI_Type_create_hindexed`: displacements in bytes.
    pub fn hindexed(
        &mut self,
        blocklens: &[usize],
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        if blocklens.len() != disps.len() {
            return Err(MpiError::Arg);
        }
        let blocks: Vec<_> = disps
            .iter()
            .zip(blocklens)
            .map(|(&d, &l)| (d, l as u64, old))
            .collect();
        self.made(&blocks, false)
    }

    /// `MPI_Type_create_indexed_block`: displacements in elements of `old`.
    pub fn indexed_block(
        &mut self,
        blocklen: usize,
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let ext = self.info(old)?.extent();
        let bytes: Vec<i64> = disps.iter().map(|d| d * ext).collect();
        self.hindexed_block(blocklen, &bytes, old)
    }

    /// `MPI_Type_create_hindexed_block`: displacements in bytes.
    pub fn hindexed_block(
        &mut self,
        blocklen: usize,
        disps: &[i64],
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let blocks: Vec<_> = disps.iter().map(|&d| (d, blocklen as u64, old)).collect();
        self.made(&blocks, false)
    }

    /// `MPI_Type_create_struct`.
    pub fn create_struct(
        &mut self,
        blocklens: &[usize],
        disps: &[i64],
        types: &[DatatypeId],
    ) -> MpiResult<DatatypeId> {
        if blocklens.len() != disps.len() || disps.len() != types.len() {
            return Err(MpiError::Arg);
        }
        let blocks: Vec<_> = (0..types.len())
            .map(|i| (disps[i], blocklens[i] as u64, types[i]))
            .collect();
        self.made(&blocks, true)
    }

    /// `MPI_Type_create_resized`.
    pub fn resized(&mut self, old: DatatypeId, lb: i64, extent: i64) -> MpiResult<DatatypeId> {
        let mut t = self.info(old)?.clone();
        t.lb = lb;
        t.ub = lb + extent;
        t.explicit_bounds = true;
        t.committed = false;
        Ok(self.add(t))
    }

    /// `MPI_Type_dup` (the copy is committed if the original is).
    pub fn dup(&mut self, old: DatatypeId) -> MpiResult<DatatypeId> {
        let t = self.info(old)?.clone();
        Ok(self.add(t))
    }
}

#[cfg(test)]
mod tests {
    use crate::datatype::{BuiltinType as B, DatatypeId, Datatypes};

    fn d(b: B) -> DatatypeId {
        DatatypeId::Builtin(b)
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
            .create_struct(&[1, 1], &[0, 8], &[d(B::Double), d(B::Char)])
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
}
