//! Communicators: rank, size, dup, split, free.

use crate::{c, set_ierror, Fint};

fortran_fn! {
    /// `MPI_COMM_RANK(COMM, RANK, IERROR)`.
    fn mpi_comm_rank_(comm: *const Fint, rank: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Comm_rank(*comm, rank));
    }
}

fortran_fn! {
    /// `MPI_COMM_SIZE(COMM, SIZE, IERROR)`.
    fn mpi_comm_size_(comm: *const Fint, size: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Comm_size(*comm, size));
    }
}

fortran_fn! {
    /// `MPI_COMM_DUP(COMM, NEWCOMM, IERROR)`.
    fn mpi_comm_dup_(comm: *const Fint, newcomm: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Comm_dup(*comm, newcomm));
    }
}

fortran_fn! {
    /// `MPI_COMM_SPLIT(COMM, COLOR, KEY, NEWCOMM, IERROR)`.
    fn mpi_comm_split_(comm: *const Fint, color: *const Fint, key: *const Fint, newcomm: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Comm_split(*comm, *color, *key, newcomm));
    }
}

fortran_fn! {
    /// `MPI_COMM_FREE(COMM, IERROR)`: sets `COMM` to `MPI_COMM_NULL`.
    fn mpi_comm_free_(comm: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Comm_free(comm));
    }
}
