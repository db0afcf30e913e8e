//! The channel shim: an MPICH-ABI MPI library (work in progress, see issue 3).
