//! Packing between user memory (a slice with its `base`) and the packed
//! layout; the region of user memory a (datatype, count) touches.

use super::{DatatypeId, Datatypes, TypeInfo};
use crate::error::{MpiError, MpiResult};

/// A region of user memory relative to the buffer address: the bytes at
/// `address + base .. address + base + len`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// Offset of the first byte from the buffer address (may be negative).
    pub base: i64,
    /// Length in bytes.
    pub len: usize,
}

fn at(region_len: usize, base: i64, addr: i64, len: u64) -> MpiResult<std::ops::Range<usize>> {
    if len == 0 {
        return Ok(0..0);
    }
    let start = addr.checked_sub(base).ok_or(MpiError::Buffer)?;
    let start = usize::try_from(start).map_err(|_| MpiError::Buffer)?;
    let end = start.checked_add(len as usize).ok_or(MpiError::Buffer)?;
    if end > region_len {
        return Err(MpiError::Buffer);
    }
    Ok(start..end)
}

/// Calls `f(memory address, length)` for each data segment of instances
/// `first .. first + count`, in packed order.
pub(crate) fn for_segments(
    t: &TypeInfo,
    first: i64,
    count: usize,
    mut f: impl FnMut(i64, u64) -> MpiResult<bool>,
) -> MpiResult<()> {
    if count == 0 {
        return Ok(());
    }
    // Checked once per call, so the loops below cannot overflow: every
    // instance offset and every data address (a type's runs lie within
    // its true bounds) must be an MPI_Aint.
    let ext = i128::from(t.extent());
    let last = i128::from(first) + count as i128 - 1;
    let ends = [i128::from(first) * ext, last * ext];
    let fits = |v: i128| i64::try_from(v).is_ok();
    if !ends
        .iter()
        .all(|&o| fits(o) && fits(o + i128::from(t.true_lb)) && fits(o + i128::from(t.true_ub)))
    {
        return Err(MpiError::Count);
    }
    let ext = t.extent();
    if t.is_contiguous() {
        let len = (count as u64).checked_mul(t.size).ok_or(MpiError::Count)?;
        f(first * ext, len)?;
        return Ok(());
    }
    for i in first..=last as i64 {
        let o = i * ext;
        for r in &t.runs {
            if r.ty.is_dense() {
                if !f(o + r.disp, r.count * r.ty.size())? {
                    return Ok(());
                }
            } else {
                let e_ext = r.ty.extent() as i64;
                for e in 0..r.count as i64 {
                    for (so, sl) in r.ty.segments() {
                        if sl > 0 && !f(o + r.disp + e * e_ext + so as i64, sl)? {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Calls `f(memory address, length)` for the data segments holding packed
/// bytes `offset .. offset + len` of `count` instances, in packed order
/// (the first and last segment cut to the range).
fn for_packed_range(
    t: &TypeInfo,
    count: usize,
    offset: u64,
    len: usize,
    mut f: impl FnMut(i64, u64) -> MpiResult<()>,
) -> MpiResult<()> {
    if len == 0 || t.size == 0 {
        return Ok(());
    }
    let total = t.size.checked_mul(count as u64).ok_or(MpiError::Count)?;
    match offset.checked_add(len as u64) {
        Some(end) if end <= total => {}
        _ => return Err(MpiError::Truncate),
    }
    // Start at the instance holding `offset`: a piece costs the segments
    // it covers plus at most one instance's worth, wherever it lies.
    let first = offset / t.size;
    let mut skip = offset % t.size;
    let mut left = len as u64;
    for_segments(t, first as i64, count - first as usize, |addr, seg| {
        if skip >= seg {
            skip -= seg;
            return Ok(true);
        }
        let n = (seg - skip).min(left);
        f(addr + skip as i64, n)?;
        skip = 0;
        left -= n;
        Ok(left > 0)
    })
}

/// Appends packed bytes `offset .. offset + len` of `count` instances of
/// `t` in `region` (whose first byte is at `base` from the buffer
/// address) to `out`: one piece of a message streamed from program memory.
pub(crate) fn pack_range(
    t: &TypeInfo,
    count: usize,
    region: &[u8],
    base: i64,
    offset: u64,
    len: usize,
    out: &mut Vec<u8>,
) -> MpiResult<()> {
    out.reserve(len);
    for_packed_range(t, count, offset, len, |addr, n| {
        out.extend_from_slice(&region[at(region.len(), base, addr, n)?]);
        Ok(())
    })
}

/// The lowest address and the address after the highest byte that packed
/// bytes `offset .. offset + len` of `count` instances of `t` occupy,
/// relative to the buffer address (`None` when they occupy none): where a
/// one-sided operation's piece touches the target window.
pub(crate) fn packed_range_bounds(
    t: &TypeInfo,
    count: usize,
    offset: u64,
    len: usize,
) -> MpiResult<Option<(i64, i64)>> {
    let mut bounds: Option<(i64, i64)> = None;
    for_packed_range(t, count, offset, len, |addr, n| {
        let end = addr.checked_add(n as i64).ok_or(MpiError::Count)?;
        bounds = Some(match bounds {
            None => (addr, end),
            Some((lo, hi)) => (lo.min(addr), hi.max(end)),
        });
        Ok(())
    })?;
    Ok(bounds)
}

/// Unpacks `piece`, packed bytes `offset .. offset + piece.len()` of
/// `count` instances of `t`, into `region` (whose first byte is at `base`
/// from the buffer address).
pub(crate) fn unpack_range(
    t: &TypeInfo,
    count: usize,
    region: &mut [u8],
    base: i64,
    offset: u64,
    piece: &[u8],
) -> MpiResult<()> {
    let mut used = 0usize;
    for_packed_range(t, count, offset, piece.len(), |addr, n| {
        let r = at(region.len(), base, addr, n)?;
        region[r].copy_from_slice(&piece[used..used + n as usize]);
        used += n as usize;
        Ok(())
    })
}

impl Datatypes {
    /// The region `count` instances starting at the buffer address touch
    /// (empty when there is no data).
    pub fn span(&self, dt: DatatypeId, count: usize) -> MpiResult<Span> {
        self.span_blocks(dt, &[(0, count)])
    }

    /// The region touched by several blocks `(first instance, count)` of
    /// one buffer (for the v-collectives, whose blocks sit at displacements).
    pub fn span_blocks(&self, dt: DatatypeId, blocks: &[(i64, usize)]) -> MpiResult<Span> {
        let t = self.info(dt)?;
        let ext = i128::from(t.extent());
        let (mut lo, mut hi) = (i128::MAX, i128::MIN);
        for &(first, count) in blocks {
            if count == 0 || t.size == 0 {
                continue;
            }
            let a = i128::from(first) * ext;
            let b = (i128::from(first) + count as i128 - 1) * ext;
            lo = lo.min(a.min(b) + i128::from(t.true_lb));
            hi = hi.max(a.max(b) + i128::from(t.true_ub));
        }
        if lo == i128::MAX {
            return Ok(Span::default());
        }
        // The region must be addressable: its start an MPI_Aint, its
        // length a usize (counts too large for the type are MPI_ERR_COUNT).
        Ok(Span {
            base: i64::try_from(lo).map_err(|_| MpiError::Count)?,
            len: usize::try_from(hi - lo)
                .ok()
                .filter(|&l| l <= isize::MAX as usize)
                .ok_or(MpiError::Count)?,
        })
    }

    /// Packs `count` instances from `region`, which is exactly
    /// `span(dt, count)`.
    pub fn pack(&self, dt: DatatypeId, count: usize, region: &[u8]) -> MpiResult<Vec<u8>> {
        let base = self.span(dt, count)?.base;
        self.pack_at(dt, 0, count, region, base)
    }

    /// Packs instances `first .. first + count` from `region`, whose first
    /// byte is at offset `base` from the buffer address.
    pub fn pack_at(
        &self,
        dt: DatatypeId,
        first: i64,
        count: usize,
        region: &[u8],
        base: i64,
    ) -> MpiResult<Vec<u8>> {
        let t = self.info(dt)?;
        // At most the region's bytes unless the type overlaps itself;
        // never trust size × count before the segments are checked.
        let packed = (t.size as usize).saturating_mul(count);
        let mut out = Vec::with_capacity(packed.min(region.len()));
        for_segments(t, first, count, |addr, len| {
            out.extend_from_slice(&region[at(region.len(), base, addr, len)?]);
            Ok(true)
        })?;
        Ok(out)
    }

    /// Unpacks `packed` into `count` instances in `region`, which is exactly
    /// `span(dt, count)`; a shorter `packed` fills only the leading part.
    /// Returns the packed bytes consumed.
    pub fn unpack(
        &self,
        dt: DatatypeId,
        count: usize,
        packed: &[u8],
        region: &mut [u8],
    ) -> MpiResult<usize> {
        let base = self.span(dt, count)?.base;
        self.unpack_at(dt, 0, count, packed, region, base)
    }

    /// Unpacks into instances `first .. first + count` of `region`, whose
    /// first byte is at offset `base` from the buffer address.
    pub fn unpack_at(
        &self,
        dt: DatatypeId,
        first: i64,
        count: usize,
        packed: &[u8],
        region: &mut [u8],
        base: i64,
    ) -> MpiResult<usize> {
        let t = self.info(dt)?;
        let mut used = 0usize;
        for_segments(t, first, count, |addr, len| {
            let n = (len as usize).min(packed.len() - used);
            if n == 0 {
                return Ok(false);
            }
            let r = at(region.len(), base, addr, n as u64)?;
            region[r].copy_from_slice(&packed[used..used + n]);
            used += n;
            Ok(used < packed.len())
        })?;
        Ok(used)
    }
}

#[cfg(test)]
mod tests {
    use crate::datatype::{BuiltinType as B, DatatypeId, Datatypes, TypeArg};

    fn d(b: B) -> DatatypeId {
        DatatypeId::Builtin(b)
    }

    #[test]
    fn vector_round_trip() {
        let mut t = Datatypes::new();
        let v = t.vector(3, 1, 2, d(B::Int)).unwrap();
        let mem: Vec<u8> = (0..40).collect();
        let sp = t.span(v, 2).unwrap();
        assert_eq!((sp.base, sp.len), (0, 20 + 20));
        let p = t.pack(v, 2, &mem[..sp.len]).unwrap();
        // One instance spans (2*2 + 1) ints = 20 bytes; the second starts at 20.
        assert_eq!(t.extent(v).unwrap(), (0, 20));
        let want2: Vec<u8> = [0u8, 8, 16, 20, 28, 36]
            .iter()
            .flat_map(|&s| s..s + 4)
            .collect();
        assert_eq!(p, want2);
        let mut back = vec![0xEEu8; sp.len];
        assert_eq!(t.unpack(v, 2, &p, &mut back).unwrap(), 24);
        for s in [0usize, 8, 16, 20, 28, 36] {
            assert_eq!(&back[s..s + 4], &mem[s..s + 4]);
        }
        assert_eq!(back[4], 0xEE);
    }

    #[test]
    fn pair_types_drop_padding() {
        let t = Datatypes::new();
        let mut mem = [0u8; 32];
        mem[..8].copy_from_slice(&1.5f64.to_ne_bytes());
        mem[8..12].copy_from_slice(&7i32.to_ne_bytes());
        mem[12..16].copy_from_slice(&[9, 9, 9, 9]);
        mem[16..24].copy_from_slice(&2.5f64.to_ne_bytes());
        mem[24..28].copy_from_slice(&8i32.to_ne_bytes());
        let sp = t.span(d(B::DoubleInt), 2).unwrap();
        assert_eq!(sp.len, 28);
        let p = t.pack(d(B::DoubleInt), 2, &mem[..28]).unwrap();
        assert_eq!(p.len(), 24);
        assert_eq!(&p[8..12], &7i32.to_ne_bytes());
        assert_eq!(&p[12..20], &2.5f64.to_ne_bytes());
    }

    #[test]
    fn negative_lb_and_short_region() {
        let mut t = Datatypes::new();
        let x = t.hindexed(&[1, 1], &[-8, 4], d(B::Int)).unwrap();
        let sp = t.span(x, 1).unwrap();
        assert_eq!((sp.base, sp.len), (-8, 16));
        let mem: Vec<u8> = (0..16).collect();
        let p = t.pack(x, 1, &mem).unwrap();
        assert_eq!(p, vec![0, 1, 2, 3, 12, 13, 14, 15]);
        assert!(t.pack(x, 1, &mem[..10]).is_err());
    }

    #[test]
    fn packing_by_pieces_equals_packing_at_once() {
        let mut t = Datatypes::new();
        // Blocks of 3 ints every 5, resized so instances leave a gap: a
        // piece may start and end inside a block, an instance or a gap.
        let v = t.vector(4, 3, 5, d(B::Int)).unwrap();
        let r = t.resized(v, 0, 96).unwrap();
        for dt in [r, d(B::Int)] {
            t.commit(dt).unwrap();
            let count = 5;
            let sp = t.span(dt, count).unwrap();
            let mem: Vec<u8> = (0..sp.len).map(|i| (i * 7 + 1) as u8).collect();
            let whole = t.pack(dt, count, &mem).unwrap();
            let info = t.info(dt).unwrap().clone();
            for piece in [1usize, 5, 12, 13, 48, whole.len()] {
                let mut out = Vec::new();
                let mut back = vec![0u8; sp.len];
                let mut off = 0;
                while off < whole.len() {
                    let n = piece.min(whole.len() - off);
                    let start = out.len();
                    super::pack_range(&info, count, &mem, sp.base, off as u64, n, &mut out)
                        .unwrap();
                    super::unpack_range(
                        &info,
                        count,
                        &mut back,
                        sp.base,
                        off as u64,
                        &out[start..],
                    )
                    .unwrap();
                    off += n;
                }
                assert_eq!(out, whole, "pieces of {piece}");
                let mut want = vec![0u8; sp.len];
                t.unpack(dt, count, &whole, &mut want).unwrap();
                assert_eq!(back, want, "pieces of {piece}");
            }
            let mut out = Vec::new();
            assert!(super::pack_range(
                &info,
                count,
                &mem,
                sp.base,
                whole.len() as u64 - 1,
                2,
                &mut out
            )
            .is_err());
        }
    }

    #[test]
    fn struct_mixed() {
        let mut t = Datatypes::new();
        let s = t
            .create_struct(
                &[2, 1],
                &[0, 12],
                &[TypeArg::Type(d(B::Short)), TypeArg::Type(d(B::Double))],
            )
            .unwrap();
        assert_eq!(t.extent(s).unwrap(), (0, 24));
        let mem: Vec<u8> = (0..48).collect();
        let p = t.pack(s, 2, &mem[..t.span(s, 2).unwrap().len]).unwrap();
        assert_eq!(p.len(), 24);
        assert_eq!(&p[..4], &[0, 1, 2, 3]);
        assert_eq!(&p[4..12], &[12, 13, 14, 15, 16, 17, 18, 19]);
        assert_eq!(&p[12..16], &[24, 25, 26, 27]);
    }
}
