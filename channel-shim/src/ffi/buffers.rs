//! User memory as byte slices, and statuses written back to C.

use crate::abi::{MpiStatus, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_SUCCESS};
use crate::ffi::errors::error_class;
use shim_engine::datatype::Span;
use shim_engine::{Source, Status, Tag, UserMemory};
use std::os::raw::{c_int, c_void};

/// `MPI_IN_PLACE` as a pointer value.
pub const IN_PLACE: usize = usize::MAX;

/// True when `buf` is `MPI_IN_PLACE`.
pub fn is_in_place(buf: *const c_void) -> bool {
    buf as usize == IN_PLACE
}

/// The bytes of `span` around `buf` (which may be MPI_BOTTOM with absolute
/// displacements).
///
/// # Safety
/// The program must own `span.len` readable bytes at `buf + span.base`.
pub unsafe fn region<'a>(buf: *const c_void, span: Span) -> &'a [u8] {
    if span.len == 0 {
        return &[];
    }
    let start = (buf as isize).wrapping_add(span.base as isize) as *const u8;
    std::slice::from_raw_parts(start, span.len)
}

/// The writable bytes of `span` around `buf`.
///
/// # Safety
/// The program must own `span.len` writable bytes at `buf + span.base`.
pub unsafe fn region_mut<'a>(buf: *mut c_void, span: Span) -> &'a mut [u8] {
    if span.len == 0 {
        return &mut [];
    }
    let start = (buf as isize).wrapping_add(span.base as isize) as *mut u8;
    std::slice::from_raw_parts_mut(start, span.len)
}

/// The program's memory, for the engine: receive requests land in it and
/// persistent sends send from it (see `shim_engine::user_memory`).
pub struct ProgramMemory;

impl UserMemory for ProgramMemory {
    fn bytes(&self, addr: usize, span: Span) -> &[u8] {
        // SAFETY: the engine asks only for the span of a buffer the
        // program passed with its datatype and count, which MPI requires
        // the program to own until the request completes.
        unsafe { region(addr as *const c_void, span) }
    }
    fn bytes_mut(&mut self, addr: usize, span: Span) -> &mut [u8] {
        // SAFETY: as for `bytes`; the program must not touch a receive
        // buffer while the receive is pending.
        unsafe { region_mut(addr as *mut c_void, span) }
    }
}

/// True for MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE (and null).
pub fn ignored(status: *const MpiStatus) -> bool {
    status.is_null() || status as usize == crate::abi::MPI_STATUS_IGNORE
}

/// The C status of an engine status.
pub fn to_c(s: &Status) -> MpiStatus {
    let mut c = MpiStatus {
        mpi_source: match s.source {
            Source::Rank(r) => r as c_int,
            Source::Any => MPI_ANY_SOURCE,
            Source::ProcNull => MPI_PROC_NULL,
        },
        mpi_tag: match s.tag {
            Tag::Value(t) => t,
            Tag::Any => MPI_ANY_TAG,
        },
        mpi_error: s.error.map(error_class).unwrap_or(MPI_SUCCESS),
        ..MpiStatus::default()
    };
    c.set_count(s.count_bytes as i64);
    c.set_cancelled(s.cancelled);
    c
}

/// Writes a status unless the program ignores it.
///
/// # Safety
/// `status` must be ignored (see [`ignored`]) or valid for writing.
pub unsafe fn write_status(status: *mut MpiStatus, s: &Status) {
    if !ignored(status) {
        status.write(to_c(s));
    }
}
