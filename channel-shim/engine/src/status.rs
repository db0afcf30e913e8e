//! What a completed operation reports.

use crate::collectives::CollOutput;
use crate::error::MpiError;
use crate::matching::{Source, Tag};

/// `MPI_Status` in Rust terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// Source rank in the communicator (`Any` in an empty status, `ProcNull`
    /// for a receive from `MPI_PROC_NULL`).
    pub source: Source,
    /// Tag of the message (`Any` in an empty status).
    pub tag: Tag,
    /// Error of this request (`MPI_ERROR` field), e.g. truncation.
    pub error: Option<MpiError>,
    /// Bytes received (packed), for `MPI_Get_count` / `MPI_Get_elements`.
    pub count_bytes: u64,
    /// Whether the request was cancelled.
    pub cancelled: bool,
}

impl Status {
    /// The empty status (null or inactive requests, completed sends).
    pub fn empty() -> Status {
        Status {
            source: Source::Any,
            tag: Tag::Any,
            error: None,
            count_bytes: 0,
            cancelled: false,
        }
    }

    /// The status of a receive from `MPI_PROC_NULL`.
    pub fn proc_null() -> Status {
        Status {
            source: Source::ProcNull,
            ..Status::empty()
        }
    }
}

/// A completed request as returned by the test and wait calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Its status.
    pub status: Status,
    /// For receives: the packed bytes received (at most the receive
    /// buffer's size), to unpack with the receive's datatype and count.
    pub data: Option<Vec<u8>>,
    /// For collectives: what the call hands back.
    pub output: CollOutput,
    /// Whether the request was deallocated (the C layer sets the handle to
    /// `MPI_REQUEST_NULL`); false for persistent requests and null/inactive
    /// entries.
    pub freed: bool,
}

impl Completion {
    /// The completion reported for a null or inactive request.
    pub fn inactive() -> Completion {
        Completion {
            status: Status::empty(),
            data: None,
            output: CollOutput::None,
            freed: false,
        }
    }
}
