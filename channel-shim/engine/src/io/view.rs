//! A file view (`MPI_File_set_view`): which bytes of the file a rank sees.
//!
//! The view starts at byte `disp` of the file and tiles the filetype from
//! there: instance *k* lies at `disp + k × extent`, and its typemap's data
//! segments (in typemap order) are the bytes the rank sees. Offsets in the
//! view count etypes of the data stream those segments form; this module
//! maps a range of that stream to file byte ranges.

use crate::datatype::for_segments;
use crate::datatype::TypeInfo;
use crate::error::{MpiError, MpiResult};

/// One contiguous run of file bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileSegment {
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
}

/// The byte layout of a file view, flattened once at `MPI_File_set_view`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    /// Displacement of the first filetype instance, in bytes.
    pub disp: u64,
    /// Size of the etype in bytes (offsets count these).
    pub etype_size: u64,
    /// Extent of the filetype in bytes (the tiling stride).
    pub extent: u64,
    /// Data segments of one filetype instance: (displacement, length),
    /// in typemap order, adjacent ones merged.
    blocks: Vec<(i64, u64)>,
    /// Data bytes of the blocks before block *i* (prefix sums).
    before: Vec<u64>,
    /// Data bytes of one filetype instance.
    size: u64,
}

impl ViewLayout {
    /// The default view: bytes, `disp` 0, the file as one stream.
    pub fn bytes() -> ViewLayout {
        ViewLayout::from_blocks(0, 1, 1, vec![(0, 1)], false).expect("one byte")
    }

    /// A view from its etype size and the filetype's flattened segments.
    /// The filetype must hold data, a multiple of the etype size, at
    /// non-negative displacements that never decrease (MPI's rule for
    /// filetypes), and have a positive extent. Segments may overlap only
    /// when `may_overlap` (a file opened read-only, as ROMIO allows).
    pub fn from_blocks(
        disp: u64,
        etype_size: u64,
        extent: i64,
        segments: Vec<(i64, u64)>,
        may_overlap: bool,
    ) -> MpiResult<ViewLayout> {
        let mut blocks: Vec<(i64, u64)> = Vec::with_capacity(segments.len());
        for (d, l) in segments.into_iter().filter(|s| s.1 > 0) {
            if d < 0 {
                return Err(MpiError::Arg);
            }
            match blocks.last_mut() {
                Some(last) if last.0 + last.1 as i64 == d => last.1 += l,
                Some(last) if d < last.0 => return Err(MpiError::Arg),
                Some(last) if last.0 + (last.1 as i64) > d && !may_overlap => {
                    return Err(MpiError::Arg)
                }
                _ => blocks.push((d, l)),
            }
        }
        let size: u64 = blocks.iter().map(|b| b.1).sum();
        if size == 0 || etype_size == 0 || size % etype_size != 0 || extent <= 0 {
            return Err(MpiError::Arg);
        }
        let mut before = Vec::with_capacity(blocks.len());
        let mut sum = 0;
        for b in &blocks {
            before.push(sum);
            sum += b.1;
        }
        Ok(ViewLayout {
            disp,
            etype_size,
            extent: extent as u64,
            blocks,
            before,
            size,
        })
    }

    /// A view with filetype `t` (its typemap flattened).
    pub fn of_type(
        disp: u64,
        etype_size: u64,
        t: &TypeInfo,
        may_overlap: bool,
    ) -> MpiResult<ViewLayout> {
        let mut segments = Vec::new();
        for_segments(t, 0, 1, |addr, len| {
            segments.push((addr, len));
            Ok(true)
        })?;
        ViewLayout::from_blocks(disp, etype_size, t.extent(), segments, may_overlap)
    }

    /// The file byte ranges holding `len` data bytes from data byte
    /// `start` of the view's stream, in stream order (adjacent ranges merged).
    pub fn segments(&self, start: u64, len: u64) -> Vec<FileSegment> {
        let mut out: Vec<FileSegment> = Vec::new();
        let mut push = |offset: u64, len: u64| match out.last_mut() {
            Some(l) if l.offset + l.len == offset => l.len += len,
            _ => out.push(FileSegment { offset, len }),
        };
        let (mut k, mut within) = (start / self.size, start % self.size);
        let mut left = len;
        let mut i = self.before.partition_point(|&b| b <= within) - 1;
        while left > 0 {
            let (d, l) = self.blocks[i];
            let skip = within - self.before[i];
            let n = (l - skip).min(left);
            let base = self.disp + k * self.extent;
            push((base as i64 + d) as u64 + skip, n);
            left -= n;
            within += n;
            i += 1;
            if i == self.blocks.len() {
                i = 0;
                k += 1;
                within = 0;
            }
        }
        out
    }

    /// The absolute byte position of view offset `offset` (in etypes):
    /// `MPI_File_get_byte_offset`.
    pub fn byte_offset(&self, offset: u64) -> u64 {
        let start = offset * self.etype_size;
        let (k, within) = (start / self.size, start % self.size);
        let i = self.before.partition_point(|&b| b <= within) - 1;
        let d = self.blocks[i].0 as u64 + (within - self.before[i]);
        self.disp + k * self.extent + d
    }

    /// The view offset (in etypes) of the first etype at or after file
    /// byte `end`: where a pointer at the end of a file of `end` bytes is.
    pub fn offset_at_byte(&self, end: u64) -> u64 {
        if end <= self.disp {
            return 0;
        }
        let rel = end - self.disp;
        let (k, within) = (rel / self.extent, rel % self.extent);
        let data_before: u64 = self
            .blocks
            .iter()
            .map(|&(d, l)| (within as i64 - d).clamp(0, l as i64) as u64)
            .sum();
        (k * self.size + data_before).div_ceil(self.etype_size)
    }

    /// Data bytes of one filetype instance.
    pub fn type_size(&self) -> u64 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(offset: u64, len: u64) -> FileSegment {
        FileSegment { offset, len }
    }

    #[test]
    fn bytes_view_is_the_file() {
        let v = ViewLayout::bytes();
        assert_eq!(v.segments(10, 100), vec![seg(10, 100)]);
        assert_eq!(v.byte_offset(7), 7);
        assert_eq!(v.offset_at_byte(42), 42);
    }

    #[test]
    fn strided_view_of_one_int_in_four() {
        // Rank r of 4 sees int r of every 16 bytes, after a 100-byte header.
        for r in 0..4u64 {
            let v = ViewLayout::from_blocks(100, 4, 16, vec![(4 * r as i64, 4)], false).unwrap();
            assert_eq!(
                v.segments(0, 12),
                vec![
                    seg(100 + 4 * r, 4),
                    seg(116 + 4 * r, 4),
                    seg(132 + 4 * r, 4)
                ]
            );
            // Etype 2 is in instance 2.
            assert_eq!(v.byte_offset(2), 100 + 32 + 4 * r);
            // A file of 100 + 16 + 4r + 2 bytes cuts instance 1's int: the
            // pointer at its end is past it.
            assert_eq!(v.offset_at_byte(100 + 16 + 4 * r + 2), 2);
        }
    }

    #[test]
    fn partial_blocks_and_wrap() {
        // Two blocks per 10-byte instance: bytes 0..3 and 5..7.
        let v = ViewLayout::from_blocks(0, 1, 10, vec![(0, 3), (5, 2)], false).unwrap();
        // Stream bytes 2..9: 2 | 5,6 | 10,11,12 | 15
        assert_eq!(
            v.segments(2, 7),
            vec![seg(2, 1), seg(5, 2), seg(10, 3), seg(15, 1)]
        );
    }

    #[test]
    fn adjacent_blocks_merge_across_instances() {
        let v = ViewLayout::from_blocks(8, 4, 8, vec![(0, 4), (4, 4)], false).unwrap();
        assert_eq!(v.segments(4, 20), vec![seg(12, 20)]);
    }

    #[test]
    fn overlapping_blocks_only_for_reading() {
        let blocks = vec![(0, 12), (4, 4)];
        assert!(ViewLayout::from_blocks(0, 4, 16, blocks.clone(), false).is_err());
        let v = ViewLayout::from_blocks(0, 4, 16, blocks, true).unwrap();
        assert_eq!(v.segments(8, 12), vec![seg(8, 4), seg(4, 4), seg(16, 4)]);
    }

    #[test]
    fn bad_filetypes_are_refused() {
        assert!(ViewLayout::from_blocks(0, 4, 8, vec![(0, 6)], false).is_err());
        assert!(ViewLayout::from_blocks(0, 1, 8, vec![(4, 2), (0, 2)], false).is_err());
        assert!(ViewLayout::from_blocks(0, 1, 8, vec![], false).is_err());
        assert!(ViewLayout::from_blocks(0, 1, 8, vec![(-1, 2)], false).is_err());
    }
}
