//! User memory as byte slices, and statuses written back to C.

use crate::abi::{MpiStatus, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_SUCCESS};
use crate::ffi::errors::error_class;
use shim_engine::datatype::Span;
use shim_engine::{Source, Status, Tag, UserBuffer};
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

/// The program's buffer as memory the engine keeps while an operation
/// runs: it streams a large send from it and stores a receive's data into
/// it piece by piece, so neither needs a copy of the whole message.
struct ProgramMemory {
    start: *mut u8,
    len: usize,
}

// SAFETY: the engine is used by one thread at a time (under its lock); the
// memory is the program's, which MPI hands to the library until the
// operation completes.
unsafe impl Send for ProgramMemory {}

impl UserBuffer for ProgramMemory {
    fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: see `program_memory`.
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: see `program_memory`; the engine writes only receive buffers.
        unsafe { std::slice::from_raw_parts_mut(self.start, self.len) }
    }
}

/// The bytes of `span` around `buf` as memory the engine may read (a
/// send) or write (a receive) until the operation completes.
///
/// # Safety
/// The program must own `span.len` bytes at `buf + span.base`, readable —
/// and writable when the operation is a receive — and leave them to MPI
/// until the operation completes (as the MPI standard requires).
pub unsafe fn program_memory(buf: *const c_void, span: Span) -> Box<dyn UserBuffer> {
    let start = (buf as isize).wrapping_add(span.base as isize) as *mut u8;
    Box::new(ProgramMemory {
        start,
        len: span.len,
    })
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

/// Writes the status of a single-completion call (`MPI_Recv`, `MPI_Wait`,
/// `MPI_Test`, `MPI_Waitany`, `MPI_Mrecv`, ...) as MPICH does: every field
/// but `MPI_ERROR`, which keeps what the program left there (the call's
/// return code carries the error).
///
/// # Safety
/// `status` must be ignored (see [`ignored`]) or valid for reading and writing.
pub unsafe fn write_status_single(status: *mut MpiStatus, s: &Status) {
    if !ignored(status) {
        let error = (*status).mpi_error;
        status.write(to_c(s));
        (*status).mpi_error = error;
    }
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
