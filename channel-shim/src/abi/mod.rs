//! MPICH ABI: handle values, datatype encodings, sentinels, error classes
//! (taken from Debian's mpi.h), and the exported stubs of functions not
//! implemented yet.
