//! The engine's error type: one variant per MPI error class the engine can
//! raise, so the C layer maps each variant onto exactly one `MPI_ERR_*`.

use std::fmt;

/// An MPI error, one variant per error class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MpiError {
    /// `MPI_ERR_RANK`: a rank outside the communicator.
    Rank,
    /// `MPI_ERR_TAG`: a tag outside `0..=tag_ub` (or a wildcard where none is allowed).
    Tag,
    /// `MPI_ERR_COUNT`: a count that is negative or inconsistent.
    Count,
    /// `MPI_ERR_COMM`: an unknown or freed communicator.
    Comm,
    /// `MPI_ERR_TYPE`: an unknown, freed or uncommitted datatype.
    Datatype,
    /// `MPI_ERR_OP`: an unknown op, or an op not defined on the datatype.
    Op,
    /// `MPI_ERR_REQUEST`: an unknown or freed request.
    Request,
    /// `MPI_ERR_BUFFER`: a buffer region too small for the datatype and count,
    /// or an exhausted `MPI_Buffer_attach` buffer.
    Buffer,
    /// `MPI_ERR_TRUNCATE`: a message longer than the receive buffer.
    Truncate,
    /// `MPI_ERR_ROOT`: a root outside the communicator.
    Root,
    /// `MPI_ERR_GROUP`: an unknown group or a bad rank list for a group.
    Group,
    /// `MPI_ERR_ARG`: any other invalid argument.
    Arg,
    /// `MPI_ERR_PENDING`: the request is still pending (multi-request calls).
    Pending,
    /// `MPI_ERR_IN_STATUS`: see the per-request statuses.
    InStatus,
    /// `MPI_ERR_OTHER`: anything else.
    Other,
    /// `MPI_ERR_UNKNOWN`.
    Unknown,
    /// `MPI_ERR_INTERN`: an internal error.
    Intern,
    /// `MPI_ERR_TOPOLOGY`: a communicator without the topology asked for.
    Topology,
    /// `MPI_ERR_DIMS`: invalid dimensions.
    Dims,
    /// `MPI_ERR_KEYVAL`: an invalid attribute key, or one of another kind.
    Keyval,
    /// `MPI_ERR_INFO`: an invalid info object.
    Info,
    /// `MPI_ERR_INFO_KEY`: an info key that is empty or too long.
    InfoKey,
    /// `MPI_ERR_INFO_VALUE`: an info value that is empty or too long.
    InfoValue,
    /// `MPI_ERR_INFO_NOKEY`: an info key that is not set.
    InfoNokey,
    /// `MPI_ERR_NO_MEM`: `MPI_Alloc_mem` found no memory.
    NoMem,
    /// `MPI_ERR_WIN`: not a window.
    Win,
    /// `MPI_ERR_SIZE`: a negative window size.
    Size,
    /// `MPI_ERR_DISP`: a window's displacement unit is not positive.
    Disp,
    /// `MPI_ERR_RMA_SYNC`: a one-sided call outside the epoch it needs.
    RmaSync,
    /// `MPI_ERR_RMA_RANGE`: an operation outside the target's window.
    RmaRange,
    /// `MPI_ERR_RMA_ATTACH`: attaching overlapping memory, or detaching
    /// memory not attached.
    RmaAttach,
    /// `MPI_ERR_RMA_FLAVOR`: a call the window's flavor does not allow.
    RmaFlavor,
    /// `MPI_ERR_SESSION`: not an open session.
    Session,
    /// `MPI_ERR_RMA_SHARED`: shared memory asked of members that cannot
    /// share it (ranks on different simulated hosts).
    RmaShared,
    /// An error code the program produced (returned by one of its
    /// callbacks, or one it added with `MPI_Add_error_code`), passed on as is.
    Code(i32),
}

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            MpiError::Rank => "invalid rank",
            MpiError::Tag => "invalid tag",
            MpiError::Count => "invalid count",
            MpiError::Comm => "invalid communicator",
            MpiError::Datatype => "invalid datatype",
            MpiError::Op => "invalid reduction operation for this datatype",
            MpiError::Request => "invalid request",
            MpiError::Buffer => "invalid buffer",
            MpiError::Truncate => "message truncated",
            MpiError::Root => "invalid root",
            MpiError::Group => "invalid group",
            MpiError::Arg => "invalid argument",
            MpiError::Pending => "request pending",
            MpiError::InStatus => "error code is in status",
            MpiError::Other => "other error",
            MpiError::Unknown => "unknown error",
            MpiError::Intern => "internal error",
            MpiError::Topology => "invalid topology",
            MpiError::Dims => "invalid dimensions",
            MpiError::Keyval => "invalid attribute key",
            MpiError::Info => "invalid info object",
            MpiError::InfoKey => "invalid info key",
            MpiError::InfoValue => "invalid info value",
            MpiError::InfoNokey => "info key not set",
            MpiError::NoMem => "out of memory",
            MpiError::Win => "invalid window",
            MpiError::Size => "invalid window size",
            MpiError::Disp => "invalid displacement unit",
            MpiError::RmaSync => "one-sided call outside its synchronisation epoch",
            MpiError::RmaRange => "one-sided operation outside the target window",
            MpiError::RmaAttach => "memory cannot be attached to or detached from the window",
            MpiError::RmaFlavor => "the window's flavor does not allow this call",
            MpiError::Session => "invalid session",
            MpiError::RmaShared => {
                "the members of the communicator are on different hosts and cannot share memory"
            }
            MpiError::Code(c) => return write!(f, "error code {c}"),
        };
        f.write_str(s)
    }
}

impl std::error::Error for MpiError {}

/// Result type of the engine.
pub type MpiResult<T> = Result<T, MpiError>;
