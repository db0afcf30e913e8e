//! The MPI objects that carry attributes, names and error handlers.

use crate::comm::CommId;
use crate::datatype::DatatypeId;

/// The kind of an MPI object, which decides which keyvals apply to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// Communicators (`MPI_Comm_create_keyval`, MPI-1 `MPI_Keyval_create`).
    Comm,
    /// Datatypes (`MPI_Type_create_keyval`).
    Datatype,
    /// One-sided windows (`MPI_Win_create_keyval`).
    Win,
}

/// One MPI object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Object {
    /// A communicator.
    Comm(CommId),
    /// A datatype (predefined ones carry attributes and names too).
    Datatype(DatatypeId),
    /// A one-sided window.
    Win(crate::rma::WinId),
}

impl Object {
    /// Its kind.
    pub fn kind(&self) -> ObjectKind {
        match self {
            Object::Comm(_) => ObjectKind::Comm,
            Object::Datatype(_) => ObjectKind::Datatype,
            Object::Win(_) => ObjectKind::Win,
        }
    }
}
