//! Choice buffers of `use mpi_f08` (the `_f08ts` routines).
//!
//! MPICH's `mpi_f08` module declares a choice buffer `TYPE(*),
//! DIMENSION(..)` in an ordinary (not `BIND(C)`) module procedure such as
//! `MPI_Send_f08ts`, so gfortran passes it by the address of *its own*
//! array descriptor, not of an ISO `CFI_cdesc_t` (gfortran converts to
//! `CFI_cdesc_t` only when it calls a `BIND(C)` procedure, which MPICH's
//! Fortran wrapper then does). gfortran 12's descriptor ([`Descriptor`]):
//! `base_addr`, `offset`, `dtype {elem_len, version, rank, type,
//! attribute}`, `span` (bytes between elements), then per dimension
//! `{stride (in spans), lower_bound, upper_bound}`. A scalar has rank 0.
//!
//! What each buffer becomes for the mpif.h wrappers the generated `_f08ts`
//! routines forward to ([`Buffers`]):
//!
//! - `MPI_BOTTOM` and `MPI_IN_PLACE` (the module's `MPIR_F08_MPI_BOTTOM`
//!   and `MPIR_F08_MPI_IN_PLACE` storage) become the C sentinels;
//! - a contiguous buffer is its first element's address;
//! - a non-contiguous section with a count and a datatype becomes count 1
//!   of a datatype describing the first `count` elements of the section
//!   (nested `MPI_Type_create_hvector`s, element type the caller's
//!   datatype), freed when the call returns (a pending nonblocking
//!   operation keeps the layout it needs);
//! - the two buffers of a reduction share one count and datatype: in a
//!   blocking call a non-contiguous one is copied to a contiguous
//!   temporary (and the result back); in a nonblocking or persistent call
//!   the job ends with one line;
//! - a buffer with a counts array (`MPI_Gatherv`, ...) must be contiguous
//!   (else the job ends with one line); any other buffer (`MPI_Win_create`'s
//!   base, `MPI_Pack`'s output, ...) is its first element's address.
//!
//! The layout arithmetic ([`Section`]) is safe code with unit tests.

use crate::{c, f08_symbols, Aint, Fint};
use std::ffi::{CStr, CString};
use std::os::raw::{c_int, c_void};

/// `MPI_ERR_ARG`: `count` elements do not fit the array section.
const MPI_ERR_ARG: c_int = 12;
/// The C `MPI_IN_PLACE`: `(void *)-1`.
const C_IN_PLACE: usize = usize::MAX;

/// One dimension of gfortran's array descriptor.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DescriptorDim {
    /// Distance between consecutive elements, in units of `span`.
    pub stride: isize,
    /// Lower bound.
    pub lower_bound: isize,
    /// Upper bound (-1 below the lower bound for an assumed-size last dimension).
    pub upper_bound: isize,
}

/// gfortran's (version 8 and later) array descriptor, as passed for an
/// assumed-rank `TYPE(*), DIMENSION(..)` argument; `rank` dimensions follow.
#[repr(C)]
#[derive(Debug)]
pub struct Descriptor {
    /// Address of the first element.
    pub base_addr: *mut c_void,
    /// Offset of element (0, ..., 0) from `base_addr`, in elements.
    pub offset: isize,
    /// Bytes of one element.
    pub elem_len: usize,
    /// Descriptor version (0).
    pub version: i32,
    /// Rank: 0 for a scalar.
    pub rank: i8,
    /// gfortran's type code.
    pub type_code: i8,
    /// Attribute bits.
    pub attribute: i16,
    /// Bytes between consecutive elements of a unit stride (0: `elem_len`).
    pub span: isize,
    /// The dimensions (`rank` of them).
    pub dim: [DescriptorDim; 0],
}

/// One dimension of an array section: elements and the byte distance
/// between consecutive ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    /// Elements along the dimension (negative: assumed size, unbounded).
    pub extent: i64,
    /// Bytes from one element to the next along the dimension.
    pub stride_bytes: i64,
}

/// The shape of an array section in memory, first dimension fastest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Bytes of one element.
    pub elem_len: i64,
    /// The dimensions (none for a scalar).
    pub dims: Vec<Dim>,
}

/// One `MPI_Type_create_hvector(count, 1, stride_bytes, inner)` of a
/// section's datatype, from the element type outwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hvector {
    /// Blocks (of one inner type each).
    pub count: i64,
    /// Bytes between blocks.
    pub stride_bytes: i64,
}

impl Section {
    /// Number of elements (unbounded assumed-size dimensions count as 0).
    pub fn elements(&self) -> i64 {
        self.dims.iter().map(|d| d.extent.max(0)).product()
    }

    /// Whether the elements lie one after the other in Fortran order
    /// (dimensions of one element and empty sections never break that).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = self.elem_len;
        for d in &self.dims {
            if d.extent <= 0 {
                return true;
            }
            if d.extent > 1 && d.stride_bytes != expected {
                return false;
            }
            expected *= d.extent;
        }
        true
    }

    /// The hvectors describing the first `count` elements of the section
    /// (in Fortran order, each one element of the caller's datatype), or
    /// None when they are not a whole number of the section's lower
    /// dimensions plus a run of the next (MPICH's rule), or more than the
    /// section holds.
    pub fn layout(&self, count: i64) -> Option<Vec<Hvector>> {
        let mut steps = Vec::new();
        let mut below = 1i64;
        for d in &self.dims {
            if count % below != 0 {
                return None;
            }
            let wanted = count / below;
            let unbounded = d.extent < 0;
            let n = if unbounded {
                wanted
            } else {
                wanted.min(d.extent)
            };
            steps.push(Hvector {
                count: n,
                stride_bytes: d.stride_bytes,
            });
            if unbounded || wanted <= d.extent {
                return Some(steps);
            }
            below = below.checked_mul(d.extent)?;
        }
        (count <= below).then_some(steps)
    }

    /// Byte offsets of the elements from the first one, in Fortran order.
    pub fn offsets(&self) -> Vec<i64> {
        let mut out = vec![0i64];
        for d in &self.dims {
            let n = d.extent.max(0);
            let mut next = Vec::with_capacity(out.len() * n as usize);
            for i in 0..n {
                next.extend(out.iter().map(|o| o + i * d.stride_bytes));
            }
            out = next;
        }
        out
    }
}

/// What a descriptor holds: a sentinel's C value or a section.
enum View {
    /// `MPI_BOTTOM` (null) or `MPI_IN_PLACE` (`(void *)-1`).
    Sentinel(*mut c_void),
    /// Program memory: first element and shape.
    Memory(*mut u8, Section),
}

impl View {
    /// Reads the descriptor at `d`.
    ///
    /// # Safety
    /// `d` must be a gfortran descriptor of `rank` dimensions.
    unsafe fn of(d: *const Descriptor) -> View {
        let base = (*d).base_addr;
        if std::ptr::eq(
            base.cast::<u8>(),
            std::ptr::addr_of!(f08_symbols::MPIR_F08_MPI_BOTTOM).cast::<u8>(),
        ) {
            return View::Sentinel(std::ptr::null_mut());
        }
        if std::ptr::eq(
            base.cast::<u8>(),
            std::ptr::addr_of!(f08_symbols::MPIR_F08_MPI_IN_PLACE).cast::<u8>(),
        ) {
            return View::Sentinel(C_IN_PLACE as *mut c_void);
        }
        let elem_len = (*d).elem_len as i64;
        let span = match (*d).span {
            0 => elem_len,
            s => s as i64,
        };
        let rank = (*d).rank.max(0) as usize;
        let first = std::ptr::addr_of!((*d).dim).cast::<DescriptorDim>();
        let dims = (0..rank)
            .map(|i| {
                let dim = *first.add(i);
                Dim {
                    extent: (dim.upper_bound - dim.lower_bound + 1) as i64,
                    stride_bytes: dim.stride as i64 * span,
                }
            })
            .collect();
        View::Memory(base.cast(), Section { elem_len, dims })
    }

    /// The address C takes when the buffer is passed as it is.
    fn address(&self) -> *mut c_void {
        match self {
            View::Sentinel(p) => *p,
            View::Memory(p, _) => p.cast(),
        }
    }

    /// Whether the buffer can be passed as its address.
    fn is_plain(&self) -> bool {
        match self {
            View::Sentinel(_) => true,
            View::Memory(_, s) => s.is_contiguous(),
        }
    }
}

/// `MPI_Type_create_hvector(count, 1, stride, oldtype, newtype)` through
/// the mpif.h binding; returns the error code.
///
/// # Safety
/// `newtype` must be valid for writing.
unsafe fn type_create_hvector(
    count: Fint,
    stride: Aint,
    oldtype: Fint,
    newtype: *mut Fint,
) -> c_int {
    let mut ierror = 0;
    crate::datatype::mpi_type_create_hvector_(&count, &1, &stride, &oldtype, newtype, &mut ierror);
    ierror
}

/// `MPI_Type_commit` through the mpif.h binding; returns the error code.
///
/// # Safety
/// `datatype` must be valid for reading and writing.
unsafe fn type_commit(datatype: *mut Fint) -> c_int {
    let mut ierror = 0;
    crate::datatype::mpi_type_commit_(datatype, &mut ierror);
    ierror
}

/// `MPI_Type_free` through the mpif.h binding; returns the error code.
///
/// # Safety
/// `datatype` must be valid for reading and writing.
unsafe fn type_free(datatype: *mut Fint) -> c_int {
    let mut ierror = 0;
    crate::datatype::mpi_type_free_(datatype, &mut ierror);
    ierror
}

/// Ends the job with one line: `routine` with a non-contiguous buffer is
/// not supported.
fn not_contiguous(routine: &CStr) -> ! {
    let what = CString::new(format!(
        "{} with a non-contiguous buffer",
        routine.to_string_lossy()
    ))
    .unwrap_or_default();
    // SAFETY: a NUL-terminated string; the call never returns.
    unsafe { c::mpinetsim_unsupported(what.as_ptr()) }
}

/// The buffers of one `_f08ts` call: what the mpif.h wrapper is passed,
/// and what is undone when the call returns (dropped): temporaries copied
/// back into their sections, section datatypes freed.
pub struct Buffers {
    /// The routine's C name, for the one-line error.
    routine: &'static CStr,
    /// Section datatypes to free.
    types: Vec<Fint>,
    /// Contiguous copies of sections passed to C.
    temporaries: Vec<Vec<u8>>,
    /// (index in `temporaries`, first element, shape) copied back.
    copy_back: Vec<(usize, *mut u8, Section)>,
}

impl Buffers {
    /// The buffers of a call of `routine`.
    pub fn new(routine: &'static CStr) -> Buffers {
        Buffers {
            routine,
            types: Vec::new(),
            temporaries: Vec::new(),
            copy_back: Vec::new(),
        }
    }

    /// A buffer passed by its address (a window base, `MPI_Pack`'s output,
    /// an `MPI_Get_address` location...): its first element.
    ///
    /// # Safety
    /// `d` must be a gfortran descriptor.
    pub unsafe fn address(&mut self, d: *const Descriptor) -> *mut c_void {
        View::of(d).address()
    }

    /// A buffer C reads with a counts array: must be contiguous.
    ///
    /// # Safety
    /// `d` must be a gfortran descriptor.
    pub unsafe fn contiguous(&mut self, d: *const Descriptor) -> *mut c_void {
        let v = View::of(d);
        if !v.is_plain() {
            not_contiguous(self.routine);
        }
        v.address()
    }

    /// A buffer with its count and datatype: (address, count, datatype)
    /// for C. A non-contiguous section becomes one element of a new
    /// datatype describing its first `count` elements.
    ///
    /// # Safety
    /// `d` must be a gfortran descriptor.
    pub unsafe fn counted(
        &mut self,
        d: *const Descriptor,
        count: i64,
        datatype: Fint,
    ) -> Result<(*mut c_void, i64, Fint), c_int> {
        let v = View::of(d);
        let View::Memory(base, section) = &v else {
            return Ok((v.address(), count, datatype));
        };
        if count <= 0 || section.is_contiguous() {
            return Ok((v.address(), count, datatype));
        }
        let steps = section.layout(count).ok_or(MPI_ERR_ARG)?;
        let ty = self.section_type(&steps, datatype)?;
        Ok((base.cast(), 1, ty))
    }

    /// Builds and commits the nested hvectors of `steps` over `element`;
    /// the result is freed when the call returns.
    fn section_type(&mut self, steps: &[Hvector], element: Fint) -> Result<Fint, c_int> {
        let mut inner = element;
        for (i, step) in steps.iter().enumerate() {
            let mut outer: Fint = 0;
            let count = Fint::try_from(step.count).map_err(|_| MPI_ERR_ARG)?;
            // SAFETY: the shim's C functions, on values and a local out-pointer.
            let r =
                unsafe { type_create_hvector(count, step.stride_bytes as Aint, inner, &mut outer) };
            if i > 0 {
                // The outer type keeps what it needs of the inner one.
                // SAFETY: a type this call created.
                unsafe { type_free(&mut inner) };
            }
            if r != crate::MPI_SUCCESS {
                return Err(r);
            }
            inner = outer;
        }
        // SAFETY: a type this call created.
        let r = unsafe { type_commit(&mut inner) };
        self.types.push(inner);
        if r != crate::MPI_SUCCESS {
            return Err(r);
        }
        Ok(inner)
    }

    /// The two buffers of a reduction sharing `count` and `datatype`:
    /// (send address, receive address) for C. In a blocking call
    /// (`nonblocking` false) a non-contiguous section goes through a
    /// contiguous temporary (the receive buffer's copied back afterwards);
    /// otherwise it ends the job with one line.
    ///
    /// # Safety
    /// `send` and `recv` must be gfortran descriptors.
    pub unsafe fn reduction(
        &mut self,
        send: *const Descriptor,
        recv: *const Descriptor,
        nonblocking: bool,
    ) -> (*mut c_void, *mut c_void) {
        let (s, r) = (View::of(send), View::of(recv));
        if s.is_plain() && r.is_plain() {
            return (s.address(), r.address());
        }
        if nonblocking {
            not_contiguous(self.routine);
        }
        (
            self.through_temporary(s, false),
            self.through_temporary(r, true),
        )
    }

    /// The address C uses for `v`: its own when plain, else a contiguous
    /// copy of the section (copied back after the call if `back`).
    ///
    /// # Safety
    /// `v`'s memory must be valid for its section.
    unsafe fn through_temporary(&mut self, v: View, back: bool) -> *mut c_void {
        let View::Memory(base, section) = v else {
            return v.address();
        };
        if section.is_contiguous() {
            return base.cast();
        }
        let len = section.elem_len as usize;
        let mut copy = Vec::with_capacity(section.elements() as usize * len);
        for off in section.offsets() {
            copy.extend_from_slice(std::slice::from_raw_parts(
                base.offset(off as isize).cast_const(),
                len,
            ));
        }
        let ptr = copy.as_mut_ptr();
        self.temporaries.push(copy);
        if back {
            self.copy_back
                .push((self.temporaries.len() - 1, base, section));
        }
        ptr.cast()
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        for (i, base, section) in self.copy_back.drain(..) {
            let len = section.elem_len as usize;
            for (k, off) in section.offsets().into_iter().enumerate() {
                // SAFETY: the section the program passed, valid for the
                // call; the temporary holds one element per offset.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        self.temporaries[i].as_ptr().add(k * len),
                        base.offset(off as isize),
                        len,
                    )
                };
            }
        }
        for mut t in self.types.drain(..) {
            // SAFETY: a type this call created; pending operations keep
            // the layout they use (MPI_Type_free's rule).
            unsafe { type_free(&mut t) };
        }
    }
}

/// `MPI_F_sync_reg(buf)` of `mpi_f08`: nothing to do (the call itself
/// keeps the compiler from moving accesses to `buf` across it).
///
/// # Safety
/// Always safe: the argument is not read.
#[no_mangle]
pub unsafe extern "C" fn mpi_f_sync_reg_f08ts_(_buf: *const Descriptor) {}

/// Profiling name of [`mpi_f_sync_reg_f08ts_`].
///
/// # Safety
/// Always safe: the argument is not read.
#[no_mangle]
pub unsafe extern "C" fn pmpir_f_sync_reg_f08ts_(_buf: *const Descriptor) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn section_of(elem_len: i64, dims: &[(i64, i64)]) -> Section {
        Section {
            elem_len,
            dims: dims
                .iter()
                .map(|&(extent, stride_bytes)| Dim {
                    extent,
                    stride_bytes,
                })
                .collect(),
        }
    }

    #[test]
    fn whole_arrays_scalars_and_unit_dimensions_are_contiguous() {
        assert!(section_of(4, &[]).is_contiguous());
        assert!(section_of(4, &[(10, 4)]).is_contiguous());
        // b(:, 2:3) of an INTEGER b(3, 4): columns follow each other.
        assert!(section_of(4, &[(3, 4), (2, 12)]).is_contiguous());
        // b(2, 2:2): one element, whatever the strides say.
        assert!(section_of(4, &[(1, 4), (1, 12)]).is_contiguous());
        assert!(section_of(8, &[(0, 16)]).is_contiguous());
    }

    #[test]
    fn strided_and_row_sections_are_not() {
        // a(1:10:2), b(2, :), b(2:3, 1:4:3), d(5:1:-2)
        assert!(!section_of(4, &[(5, 8)]).is_contiguous());
        assert!(!section_of(4, &[(4, 12)]).is_contiguous());
        assert!(!section_of(4, &[(2, 4), (2, 36)]).is_contiguous());
        assert!(!section_of(8, &[(3, -16)]).is_contiguous());
    }

    #[test]
    fn a_layout_takes_whole_lower_dimensions_then_a_run() {
        let s = section_of(4, &[(2, 4), (2, 36)]);
        let h = |count, stride_bytes| Hvector {
            count,
            stride_bytes,
        };
        assert_eq!(s.layout(4), Some(vec![h(2, 4), h(2, 36)]));
        assert_eq!(s.layout(2), Some(vec![h(2, 4)]));
        assert_eq!(s.layout(1), Some(vec![h(1, 4)]));
        // 3 is not a whole number of columns; 6 is more than 4 elements.
        assert_eq!(s.layout(3), None);
        assert_eq!(s.layout(6), None);
        assert_eq!(section_of(4, &[(5, 8)]).layout(5), Some(vec![h(5, 8)]));
        assert_eq!(section_of(4, &[(5, 8)]).layout(6), None);
    }

    /// The words of the descriptor gfortran 12 passed for `b(2:3, 1:4:3)`
    /// of an `INTEGER b(3, 4)` (dumped from a compiled call): base,
    /// offset, elem_len 4, dtype (rank 2 in byte 4, type 1 in byte 5),
    /// span 4, then (stride, lower, upper) per dimension.
    #[test]
    fn gfortran_descriptors_read_as_sections() {
        let mut b = [0i32; 12];
        let base = b.as_mut_ptr() as usize + 4;
        let words: [usize; 11] = [
            base,
            -10isize as usize,
            4,
            0x0102 << 32,
            4,
            1,
            1,
            2,
            9,
            1,
            2,
        ];
        let view = unsafe { View::of(words.as_ptr().cast()) };
        let View::Memory(p, section) = view else {
            panic!("a section, not a sentinel")
        };
        assert_eq!(p as usize, base);
        assert_eq!(section, section_of(4, &[(2, 4), (2, 36)]));
        assert!(!section.is_contiguous());
        // A scalar: rank 0, no dimensions read.
        let scalar: [usize; 5] = [base, 0, 8, 0x0300 << 32, 8];
        let View::Memory(_, s) = (unsafe { View::of(scalar.as_ptr().cast()) }) else {
            panic!("a scalar")
        };
        assert_eq!(s, section_of(8, &[]));
        // MPI_IN_PLACE of mpi_f08 is the module's storage.
        let in_place: [usize; 5] = [
            std::ptr::addr_of!(f08_symbols::MPIR_F08_MPI_IN_PLACE) as usize,
            0,
            4,
            0x0100 << 32,
            4,
        ];
        let v = unsafe { View::of(in_place.as_ptr().cast()) };
        assert_eq!(v.address() as usize, C_IN_PLACE);
    }

    #[test]
    fn offsets_run_in_fortran_order() {
        assert_eq!(section_of(4, &[]).offsets(), vec![0]);
        assert_eq!(section_of(4, &[(3, 8)]).offsets(), vec![0, 8, 16]);
        assert_eq!(
            section_of(4, &[(2, 4), (2, 36)]).offsets(),
            vec![0, 4, 36, 40]
        );
        assert_eq!(section_of(8, &[(3, -16)]).offsets(), vec![0, -16, -32]);
        assert_eq!(section_of(4, &[(5, 8)]).elements(), 5);
    }
}
