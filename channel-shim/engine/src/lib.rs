//! MPI semantics of the channel shim, in safe Rust and independent of the
//! C ABI: everything here is unit-tested without a gateway.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod datatype;
pub mod envelope;
pub mod error;
pub mod matching;
pub mod op;
pub mod transport;
