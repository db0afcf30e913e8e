//! Where a message's packed bytes come from (a send) or go (a receive): a
//! packed buffer the engine owns, or the program's own memory, read or
//! written one piece at a time while the operation is in progress. With
//! program memory a message of any size costs the engine only the piece
//! in hand.

use crate::datatype::{pack_range, unpack_range, TypeInfo};
use crate::error::{MpiError, MpiResult};
use std::sync::Arc;

/// Program memory that a pending operation reads (a send) or writes (a
/// receive) after the MPI call that named it has returned. The C layer
/// implements it over the address the program passed (MPI forbids the
/// program to write a send buffer, or to touch a receive buffer, until the
/// operation completes); tests implement it over a `Vec`.
pub trait UserBuffer: Send {
    /// The operation's region of memory (`Datatypes::span` of its datatype
    /// and count), to read from.
    fn bytes(&self) -> &[u8];
    /// The same region, to write to (called for receives only).
    fn bytes_mut(&mut self) -> &mut [u8];
}

impl UserBuffer for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

/// `count` instances of a datatype in program memory.
pub(crate) struct ProgramData {
    pub mem: Box<dyn UserBuffer>,
    /// The type as it was when the call was made (the program may free it).
    pub ty: Arc<TypeInfo>,
    pub count: usize,
    /// Offset of the region's first byte from the buffer address.
    pub base: i64,
}

/// The bytes of one message, packed or in program memory.
pub(crate) enum MessageData {
    /// Packed bytes the engine holds (collectives, buffered sends, eager
    /// sends, receives whose buffer the C layer did not hand over).
    Packed(Vec<u8>),
    /// Program memory, packed and unpacked piece by piece.
    Program(ProgramData),
}

impl Default for MessageData {
    fn default() -> Self {
        MessageData::Packed(Vec::new())
    }
}

impl From<Vec<u8>> for MessageData {
    fn from(v: Vec<u8>) -> Self {
        MessageData::Packed(v)
    }
}

impl std::fmt::Debug for MessageData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MessageData::Packed(v) => write!(f, "Packed({} bytes)", v.len()),
            MessageData::Program(p) => {
                write!(f, "Program({} instances of {} bytes)", p.count, p.ty.size)
            }
        }
    }
}

impl MessageData {
    /// Packed length of the message.
    pub fn len(&self) -> u64 {
        match self {
            MessageData::Packed(v) => v.len() as u64,
            MessageData::Program(p) => p.ty.size.saturating_mul(p.count as u64),
        }
    }

    /// Appends packed bytes `offset .. offset + len` to `out`.
    pub fn read(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> MpiResult<()> {
        match self {
            MessageData::Packed(v) => {
                let start = usize::try_from(offset).map_err(|_| MpiError::Truncate)?;
                let piece = v.get(start..start + len).ok_or(MpiError::Truncate)?;
                out.extend_from_slice(piece);
                Ok(())
            }
            MessageData::Program(p) => {
                pack_range(&p.ty, p.count, p.mem.bytes(), p.base, offset, len, out)
            }
        }
    }

    /// Stores `piece`, packed bytes from `offset` on (pieces of a packed
    /// buffer arrive in order: each is appended).
    pub fn write(&mut self, offset: u64, piece: &[u8]) -> MpiResult<()> {
        match self {
            MessageData::Packed(v) => {
                if offset != v.len() as u64 {
                    return Err(MpiError::Other);
                }
                v.extend_from_slice(piece);
                Ok(())
            }
            MessageData::Program(p) => {
                unpack_range(&p.ty, p.count, p.mem.bytes_mut(), p.base, offset, piece)
            }
        }
    }

    /// What a completed receive hands the C layer: the packed bytes, or
    /// nothing when they are already in program memory.
    pub fn into_received(self) -> Option<Vec<u8>> {
        match self {
            MessageData::Packed(v) => Some(v),
            MessageData::Program(_) => None,
        }
    }
}
