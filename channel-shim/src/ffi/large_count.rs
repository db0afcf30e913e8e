//! MPI 4.0's large-count `_c` variants: the same routines with `MPI_Count`
//! counts and `MPI_Aint` displacements where the classic ones take `int`.
//!
//! Each routine is written once, its count arguments of type [`CountT`]
//! and its displacement arguments of type [`DisplT`] (both `int` here).
//! Its definition carries the marker `/ c` (`mpi_fn! { fn MPI_Send / c
//! (...) {...} }`, and likewise in `coll_pair!` and `persistent_coll!`),
//! which defines it a second time as `MPI_Send_c` in a module of its own
//! where `CountT` is `MPI_Count` and `DisplT` is `MPI_Aint`. The body and
//! the helpers it calls are the same: they take any [`CInt`] and convert
//! it once, so the engine sees the full 64-bit values.

use shim_engine::MpiError;
use std::os::raw::c_int;

/// A count argument of a classic routine (`int`).
pub type CountT = c_int;
/// A displacement argument of a classic routine (`int`; `MPI_Aint`
/// where the classic routine already takes one).
pub type DisplT = c_int;
/// `MPI_Count` (a count argument of a `_c` routine).
pub type MpiCount = i64;
/// `MPI_Aint` (a displacement argument of a `_c` routine).
pub type MpiAint = isize;

/// An integer argument that is `int` in a classic routine and
/// `MPI_Count` or `MPI_Aint` in its `_c` variant.
pub trait CInt: Copy + 'static {
    /// Whether it is a large-count routine's type (`MPI_Count`, `MPI_Aint`).
    const LARGE: bool;
    /// Its value.
    fn wide(self) -> i64;
}

impl CInt for c_int {
    const LARGE: bool = false;
    fn wide(self) -> i64 {
        i64::from(self)
    }
}

impl CInt for i64 {
    const LARGE: bool = true;
    fn wide(self) -> i64 {
        self
    }
}

impl CInt for isize {
    const LARGE: bool = true;
    fn wide(self) -> i64 {
        self as i64
    }
}

/// An integer result a routine writes: `int` in a classic routine
/// (`MPI_UNDEFINED` when the value does not fit, as MPI requires of
/// counts), `MPI_Count` or `MPI_Aint` in its `_c` variant.
pub trait COut: Copy + 'static {
    /// `v`, or `MPI_UNDEFINED` when it does not fit.
    fn narrow(v: i64) -> Self;
}

impl COut for c_int {
    fn narrow(v: i64) -> Self {
        c_int::try_from(v).unwrap_or(crate::abi::MPI_UNDEFINED)
    }
}

impl COut for i64 {
    fn narrow(v: i64) -> Self {
        v
    }
}

impl COut for isize {
    fn narrow(v: i64) -> Self {
        v as isize
    }
}

/// A count (negative: `MPI_ERR_COUNT`).
pub fn count_of(c: impl CInt) -> Result<usize, MpiError> {
    usize::try_from(c.wide()).map_err(|_| MpiError::Count)
}

/// `n` values of a C array as `i64` (null with `n > 0`: `null_error`).
///
/// # Safety
/// `p` must be null or valid for reading `n` values.
pub unsafe fn wide_array<T: CInt>(
    n: usize,
    p: *const T,
    null_error: MpiError,
) -> Result<Vec<i64>, MpiError> {
    if n > 0 && p.is_null() {
        return Err(null_error);
    }
    Ok((0..n).map(|i| (*p.add(i)).wide()).collect())
}

/// `n` counts of a C array (null with `n > 0`, or negative: `MPI_ERR_COUNT`).
///
/// # Safety
/// `p` must be null or valid for reading `n` values.
pub unsafe fn count_array<T: CInt>(n: usize, p: *const T) -> Result<Vec<usize>, MpiError> {
    wide_array(n, p, MpiError::Count)?
        .into_iter()
        .map(count_of)
        .collect()
}

/// `n` values of a C array that the engine keeps as `int`s (dimensions
/// of subarrays and darrays): a value beyond `int` is `MPI_ERR_COUNT`
/// (null with `n > 0`: `MPI_ERR_ARG`).
///
/// # Safety
/// `p` must be null or valid for reading `n` values.
pub unsafe fn int_array<T: CInt>(n: usize, p: *const T) -> Result<Vec<i32>, MpiError> {
    wide_array(n, p, MpiError::Arg)?
        .into_iter()
        .map(|v| i32::try_from(v).map_err(|_| MpiError::Count))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_keep_their_64_bit_values() {
        assert_eq!(count_of(5 as c_int), Ok(5));
        assert_eq!(count_of(3_000_000_000i64), Ok(3_000_000_000));
        assert_eq!(count_of(-1 as c_int), Err(MpiError::Count));
        assert_eq!(count_of(-1i64), Err(MpiError::Count));
    }

    #[test]
    fn results_too_large_for_int_are_undefined() {
        assert_eq!(<c_int as COut>::narrow(7), 7);
        assert_eq!(<c_int as COut>::narrow(1 << 40), crate::abi::MPI_UNDEFINED);
        assert_eq!(<i64 as COut>::narrow(1 << 40), 1 << 40);
    }

    #[test]
    fn arrays_widen_each_element() {
        let a: [c_int; 3] = [1, -2, 3];
        assert_eq!(
            unsafe { wide_array(3, a.as_ptr(), MpiError::Arg) },
            Ok(vec![1, -2, 3])
        );
        assert_eq!(unsafe { count_array(3, a.as_ptr()) }, Err(MpiError::Count));
        let big: [i64; 2] = [1 << 33, 4];
        assert_eq!(
            unsafe { count_array(2, big.as_ptr()) },
            Ok(vec![1 << 33, 4])
        );
        assert_eq!(
            unsafe { count_array::<i64>(2, std::ptr::null()) },
            Err(MpiError::Count)
        );
        assert_eq!(unsafe { int_array(2, big.as_ptr()) }, Err(MpiError::Count));
        assert_eq!(unsafe { int_array(3, a.as_ptr()) }, Ok(vec![1, -2, 3]));
    }
}
