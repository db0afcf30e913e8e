//! MPI semantics of the channel shim, in safe Rust and independent of the
//! C ABI: everything here is unit-tested without a gateway.

pub mod transport;
