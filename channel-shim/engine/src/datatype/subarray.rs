//! `MPI_Type_create_subarray` and `MPI_Type_create_darray`: a block of an
//! n-dimensional array, or this process's part of an array distributed
//! over a process grid, as a type whose lower bound is 0 and whose extent
//! is the whole array (so consecutive instances are consecutive arrays).
//!
//! The typemap lists the selected elements in array order: C order has the
//! last dimension varying fastest, Fortran order the first. A darray's
//! process grid is row-major (process `rank` has the coordinates
//! `MPI_Cart_create` would give it). Per dimension, a process owns:
//!
//! - `MPI_DISTRIBUTE_BLOCK` with block size `b` (the argument, or
//!   ⌈gsize ÷ psize⌉ for `MPI_DISTRIBUTE_DFLT_DARG`): indices
//!   `[coord·b, min((coord + 1)·b, gsize))`; `b · psize < gsize` is an error;
//! - `MPI_DISTRIBUTE_CYCLIC` with block size `b` (the argument, or 1):
//!   blocks of `b` indices from `coord·b`, every `psize·b`;
//! - `MPI_DISTRIBUTE_NONE`: every index (the dimension's `psize` must be 1).
//!
//! The order and distribution arguments are MPICH's values of the MPI
//! constants (`mpi.h`), kept as given for `MPI_Type_get_contents`. A
//! selection of more separate blocks than a typemap may hold
//! ([`MAX_TYPEMAP_RUNS`]) is refused with `MPI_ERR_OTHER` before any is
//! listed.

use super::{Combiner, Contents, DatatypeId, Datatypes, TypeArg, TypeInfo, MAX_TYPEMAP_RUNS};
use crate::error::{MpiError, MpiResult};

/// `MPI_ORDER_C`.
pub const ORDER_C: i32 = 56;
/// `MPI_ORDER_FORTRAN`.
pub const ORDER_FORTRAN: i32 = 57;
/// `MPI_DISTRIBUTE_BLOCK`.
pub const DISTRIBUTE_BLOCK: i32 = 121;
/// `MPI_DISTRIBUTE_CYCLIC`.
pub const DISTRIBUTE_CYCLIC: i32 = 122;
/// `MPI_DISTRIBUTE_NONE`.
pub const DISTRIBUTE_NONE: i32 = 123;
/// `MPI_DISTRIBUTE_DFLT_DARG`.
pub const DISTRIBUTE_DFLT_DARG: i32 = -49767;

/// The indices each dimension selects, in increasing order, as runs
/// (first index, length).
type Runs = Vec<(i64, i64)>;

/// Whether the order argument is valid; true for C order.
fn c_order(order: i32) -> MpiResult<bool> {
    match order {
        ORDER_C => Ok(true),
        ORDER_FORTRAN => Ok(false),
        _ => Err(MpiError::Arg),
    }
}

/// Indices `[start, start + len)` merged into the runs.
fn push_run(runs: &mut Runs, start: i64, len: i64) {
    if len <= 0 {
        return;
    }
    match runs.last_mut() {
        Some((s, l)) if *s + *l == start => *l += len,
        _ => runs.push((start, len)),
    }
}

impl Datatypes {
    /// The type of the elements selected per dimension by `runs` in an
    /// array of `sizes` elements of `old` (C or Fortran order), resized to
    /// the whole array.
    fn selection(
        &self,
        sizes: &[i64],
        runs: &[Runs],
        c: bool,
        old: DatatypeId,
    ) -> MpiResult<TypeInfo> {
        let ext = i128::from(self.live(old)?.extent());
        let n = sizes.len();
        // Dimensions from the slowest to the fastest varying.
        let dims: Vec<usize> = if c {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        // Element stride of each dimension.
        let mut stride = vec![1i128; n];
        for w in (0..n.saturating_sub(1)).rev() {
            stride[dims[w]] = stride[dims[w + 1]] * i128::from(sizes[dims[w + 1]]);
        }
        let fast = dims[n - 1];
        let slow = n - 1;
        // One block per combination of the slower dimensions' indices and
        // run of the fastest: refused past the typemap limit before any
        // is listed (their indices included).
        let selected = |d: usize| runs[d].iter().map(|&(_, l)| l as u128).sum::<u128>();
        let planned = dims[..slow].iter().fold(runs[fast].len() as u128, |p, &d| {
            p.saturating_mul(selected(d))
        });
        if planned > u128::from(MAX_TYPEMAP_RUNS) {
            return Err(MpiError::Other);
        }
        // The selected indices of each slower dimension.
        let picked: Vec<Vec<i64>> = dims[..slow]
            .iter()
            .map(|&d| runs[d].iter().flat_map(|&(s, l)| s..s + l).collect())
            .collect();
        let mut blocks = Vec::new();
        if picked.iter().all(|p| !p.is_empty()) {
            // Every combination of the slower dimensions' indices, in array
            // order (an odometer whose last digit turns fastest).
            let mut digit = vec![0usize; slow];
            'combinations: loop {
                let base: i128 = (0..slow)
                    .map(|w| i128::from(picked[w][digit[w]]) * stride[dims[w]])
                    .sum();
                for &(s, l) in &runs[fast] {
                    let disp = (base + i128::from(s) * stride[fast]) * ext;
                    let disp = i64::try_from(disp).map_err(|_| MpiError::Arg)?;
                    blocks.push((disp, l as u64, old));
                }
                let mut w = slow;
                loop {
                    if w == 0 {
                        break 'combinations;
                    }
                    w -= 1;
                    digit[w] += 1;
                    if digit[w] < picked[w].len() {
                        break;
                    }
                    digit[w] = 0;
                }
            }
        }
        let mut t = self.build_blocks(&blocks, false)?;
        let total: i128 = sizes.iter().map(|&s| i128::from(s)).product::<i128>() * ext;
        t.lb = 0;
        t.ub = i64::try_from(total).map_err(|_| MpiError::Arg)?;
        t.explicit_bounds = true;
        Ok(t)
    }

    /// `MPI_Type_create_subarray`: the block of `subsizes` elements from
    /// `starts` in an array of `sizes` elements of `old` (empty blocks and
    /// arrays allowed, as in MPI 4.0). Negative sizes or starts are
    /// `MPI_ERR_COUNT` (as MPICH); a block reaching outside the array,
    /// which MPICH does not check, and an unknown order are `MPI_ERR_ARG`.
    pub fn subarray(
        &mut self,
        sizes: &[i32],
        subsizes: &[i32],
        starts: &[i32],
        order: i32,
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let n = sizes.len();
        if n == 0 || subsizes.len() != n || starts.len() != n {
            return Err(MpiError::Arg);
        }
        for i in 0..n {
            if sizes[i] < 0 || subsizes[i] < 0 || starts[i] < 0 {
                return Err(MpiError::Count);
            }
            if i64::from(starts[i]) + i64::from(subsizes[i]) > i64::from(sizes[i]) {
                return Err(MpiError::Arg);
            }
        }
        let c = c_order(order)?;
        let runs: Vec<Runs> = (0..n)
            .map(|i| vec![(i64::from(starts[i]), i64::from(subsizes[i]))])
            .collect();
        let sizes64: Vec<i64> = sizes.iter().map(|&s| i64::from(s)).collect();
        let mut t = self.selection(&sizes64, &runs, c, old)?;
        let mut ints = vec![n as i64];
        for a in [sizes, subsizes, starts] {
            ints.extend(a.iter().map(|&v| i64::from(v)));
        }
        ints.push(i64::from(order));
        t.contents = Contents::of(Combiner::Subarray, ints, vec![], vec![TypeArg::Type(old)]);
        Ok(self.add(t))
    }

    /// `MPI_Type_create_darray`: the part of an array of `gsizes` elements
    /// of `old` that process `rank` of `size` owns when the array is
    /// distributed over a `psizes` process grid (see the module docs).
    /// Inconsistent arguments are `MPI_ERR_ARG`.
    #[allow(clippy::too_many_arguments)]
    pub fn darray(
        &mut self,
        size: i32,
        rank: i32,
        gsizes: &[i32],
        distribs: &[i32],
        dargs: &[i32],
        psizes: &[i32],
        order: i32,
        old: DatatypeId,
    ) -> MpiResult<DatatypeId> {
        let n = gsizes.len();
        if n == 0 || [distribs.len(), dargs.len(), psizes.len()] != [n; 3] {
            return Err(MpiError::Arg);
        }
        let c = c_order(order)?;
        if size <= 0 || !(0..size).contains(&rank) {
            return Err(MpiError::Arg);
        }
        let grid = psizes
            .iter()
            .try_fold(1i64, |p, &s| {
                if s > 0 {
                    p.checked_mul(i64::from(s))
                } else {
                    None
                }
            })
            .ok_or(MpiError::Arg)?;
        if grid != i64::from(size) || gsizes.iter().any(|&g| g <= 0) {
            return Err(MpiError::Arg);
        }
        // Row-major coordinates of `rank` in the process grid.
        let mut coords = vec![0i64; n];
        let mut left = i64::from(rank);
        for i in (0..n).rev() {
            coords[i] = left % i64::from(psizes[i]);
            left /= i64::from(psizes[i]);
        }
        let mut runs = Vec::with_capacity(n);
        for i in 0..n {
            let (g, p, k) = (i64::from(gsizes[i]), i64::from(psizes[i]), coords[i]);
            let darg = dargs[i];
            if darg <= 0 && darg != DISTRIBUTE_DFLT_DARG {
                return Err(MpiError::Arg);
            }
            let mut r = Runs::new();
            match distribs[i] {
                DISTRIBUTE_NONE => {
                    if p != 1 {
                        return Err(MpiError::Arg);
                    }
                    push_run(&mut r, 0, g);
                }
                DISTRIBUTE_BLOCK => {
                    let b = if darg == DISTRIBUTE_DFLT_DARG {
                        (g + p - 1) / p
                    } else {
                        i64::from(darg)
                    };
                    if b * p < g {
                        return Err(MpiError::Arg);
                    }
                    let start = (k * b).min(g);
                    push_run(&mut r, start, (start + b).min(g) - start);
                }
                DISTRIBUTE_CYCLIC => {
                    let b = if darg == DISTRIBUTE_DFLT_DARG {
                        1
                    } else {
                        i64::from(darg)
                    };
                    // One run per block this process owns.
                    let blocks = (g - (k * b).min(g))
                        .unsigned_abs()
                        .div_ceil((p * b).unsigned_abs());
                    if blocks > MAX_TYPEMAP_RUNS {
                        return Err(MpiError::Other);
                    }
                    let mut s = k * b;
                    while s < g {
                        push_run(&mut r, s, b.min(g - s));
                        s += p * b;
                    }
                }
                _ => return Err(MpiError::Arg),
            }
            runs.push(r);
        }
        let sizes64: Vec<i64> = gsizes.iter().map(|&s| i64::from(s)).collect();
        let mut t = self.selection(&sizes64, &runs, c, old)?;
        let mut ints = vec![i64::from(size), i64::from(rank), n as i64];
        for a in [gsizes, distribs, dargs, psizes] {
            ints.extend(a.iter().map(|&v| i64::from(v)));
        }
        ints.push(i64::from(order));
        t.contents = Contents::of(Combiner::Darray, ints, vec![], vec![TypeArg::Type(old)]);
        Ok(self.add(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::{BuiltinType as B, TypeRun};

    const INT: DatatypeId = DatatypeId::Builtin(B::Int);

    fn runs(t: &Datatypes, d: DatatypeId) -> Vec<(i64, u64)> {
        t.typemap(d)
            .unwrap()
            .iter()
            .map(|r: &TypeRun| (r.disp, r.count))
            .collect()
    }

    #[test]
    fn subarray_of_a_4x5_int_array() {
        let mut t = Datatypes::new();
        // Rows 1..3, columns 2..5 of int a[4][5]: element (i, j) at 4·(5i + j).
        let s = t.subarray(&[4, 5], &[2, 3], &[1, 2], ORDER_C, INT).unwrap();
        assert_eq!(runs(&t, s), vec![(28, 3), (48, 3)]);
        assert_eq!(t.extent(s).unwrap(), (0, 80));
        assert_eq!(t.true_extent(s).unwrap(), (28, 32));
        assert_eq!(t.size(s).unwrap(), 24);
        // Fortran order: a(4,5), element (i, j) at 4·(i + 4j).
        let f = t
            .subarray(&[4, 5], &[2, 3], &[1, 2], ORDER_FORTRAN, INT)
            .unwrap();
        assert_eq!(runs(&t, f), vec![(36, 2), (52, 2), (68, 2)]);
        let c = t.contents(f).unwrap();
        assert_eq!(c.ints, vec![2, 4, 5, 2, 3, 1, 2, i64::from(ORDER_FORTRAN)]);
        assert_eq!(
            t.subarray(&[4], &[2], &[3], ORDER_C, INT),
            Err(MpiError::Arg)
        );
        assert_eq!(t.subarray(&[4], &[2], &[0], 99, INT), Err(MpiError::Arg));
    }

    #[test]
    fn darray_block_and_cyclic() {
        let mut t = Datatypes::new();
        // 10 × 4 ints over 2 × 2 processes; rank 3 has grid coordinates
        // (1, 1). Dimension 0 in blocks of ⌈10/2⌉ = 5 (rows 5..10),
        // dimension 1 cyclic(1) (columns 1 and 3).
        let d = t
            .darray(
                4,
                3,
                &[10, 4],
                &[DISTRIBUTE_BLOCK, DISTRIBUTE_CYCLIC],
                &[DISTRIBUTE_DFLT_DARG, DISTRIBUTE_DFLT_DARG],
                &[2, 2],
                ORDER_C,
                INT,
            )
            .unwrap();
        let want: Vec<(i64, u64)> = (5..10)
            .flat_map(|i| [1i64, 3].map(|j| (4 * (4 * i + j), 1)))
            .collect();
        assert_eq!(runs(&t, d), want);
        assert_eq!(t.extent(d).unwrap(), (0, 160));
        // Cyclic(2) of 7 elements over 2 processes: rank 1 owns 2, 3, 6.
        let c = t
            .darray(
                2,
                1,
                &[7],
                &[DISTRIBUTE_CYCLIC],
                &[2],
                &[2],
                ORDER_FORTRAN,
                INT,
            )
            .unwrap();
        assert_eq!(runs(&t, c), vec![(8, 2), (24, 1)]);
        // Fortran order: the first dimension varies fastest.
        let f = t
            .darray(
                2,
                1,
                &[2, 3],
                &[DISTRIBUTE_NONE, DISTRIBUTE_BLOCK],
                &[DISTRIBUTE_DFLT_DARG, 2],
                &[1, 2],
                ORDER_FORTRAN,
                INT,
            )
            .unwrap();
        // Columns 2..3 of a(2,3): elements (0,2), (1,2) at 4·(i + 2j).
        assert_eq!(runs(&t, f), vec![(16, 2)]);
        // A block too small to cover the array.
        // Too many blocks to list: refused before listing them.
        let huge = t.subarray(&[1 << 30, 4], &[1 << 29, 1], &[0, 0], ORDER_C, INT);
        assert_eq!(huge, Err(MpiError::Other));
        let cyclic = t.darray(
            2,
            0,
            &[i32::MAX],
            &[DISTRIBUTE_CYCLIC],
            &[1],
            &[2],
            ORDER_C,
            INT,
        );
        assert_eq!(cyclic, Err(MpiError::Other));
        let small = t.darray(2, 0, &[7], &[DISTRIBUTE_BLOCK], &[3], &[2], ORDER_C, INT);
        assert_eq!(small, Err(MpiError::Arg));
        let none = t.darray(2, 0, &[7], &[DISTRIBUTE_NONE], &[1], &[2], ORDER_C, INT);
        assert_eq!(none, Err(MpiError::Arg));
    }
}
