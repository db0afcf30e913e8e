//! MPICH ABI: handle values, datatype encodings, sentinels, error classes
//! (taken from Debian's mpi.h), and the exported stubs of functions not
//! implemented yet.

pub mod constants;
pub mod coverage;
mod unsupported;

pub use constants::*;
pub use coverage::coverage_markdown;
pub use unsupported::unsupported;
