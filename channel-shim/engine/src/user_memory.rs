//! The program's memory as the engine sees it: where a receive request's
//! data lands when it completes, and what a persistent send sends at each
//! start. The C layer supplies the access ([`UserMemory`]); the engine
//! only ever asks for the region [`Datatypes::span`] gives for a buffer's
//! datatype and count, which MPI requires the program to own.
//!
//! [`Datatypes::span`]: crate::datatype::Datatypes::span

use crate::datatype::{DatatypeId, Span};

/// A buffer of the program: `count` instances of `dt` at address `addr`
/// (unknown until the C layer tells it; engine-only users never do and get
/// packed bytes back instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserBuffer {
    /// The buffer address the program passed, if known.
    pub addr: Option<usize>,
    /// Number of instances of `dt`.
    pub count: usize,
    /// Its datatype (the request holding the buffer holds a use of it).
    pub dt: DatatypeId,
}

/// Access to the program's memory.
pub trait UserMemory: Send {
    /// The bytes of `span` around address `addr`.
    fn bytes(&self, addr: usize, span: Span) -> &[u8];
    /// The writable bytes of `span` around address `addr`.
    fn bytes_mut(&mut self, addr: usize, span: Span) -> &mut [u8];
}

/// A [`UserMemory`] over one vector, addresses being offsets into it: for
/// tests of code above the engine.
#[derive(Debug, Default)]
pub struct VecMemory(pub Vec<u8>);

impl UserMemory for VecMemory {
    fn bytes(&self, addr: usize, span: Span) -> &[u8] {
        let start = (addr as i64 + span.base) as usize;
        &self.0[start..start + span.len]
    }
    fn bytes_mut(&mut self, addr: usize, span: Span) -> &mut [u8] {
        let start = (addr as i64 + span.base) as usize;
        &mut self.0[start..start + span.len]
    }
}
