//! The channel shim: the MPI library an unmodified MPICH program loads
//! (installed as `libmpich.so.12` / `libmpi.so.12`). It implements the MPICH
//! ABI; all MPI semantics live in the safe `shim-engine` crate, all `unsafe`
//! code sits in [`ffi`] at the C boundary, and every message travels to the
//! mpinetsim gateway through [`runtime`].

pub mod abi;
pub mod ffi;
pub mod runtime;
