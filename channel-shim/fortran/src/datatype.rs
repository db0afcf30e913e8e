//! Derived datatypes: contiguous, vector, commit, free.

use crate::{c, set_ierror, Fint};

fortran_fn! {
    /// `MPI_TYPE_CONTIGUOUS(COUNT, OLDTYPE, NEWTYPE, IERROR)`.
    fn mpi_type_contiguous_(count: *const Fint, oldtype: *const Fint, newtype: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Type_contiguous(*count, *oldtype, newtype));
    }
}

fortran_fn! {
    /// `MPI_TYPE_VECTOR(COUNT, BLOCKLENGTH, STRIDE, OLDTYPE, NEWTYPE, IERROR)`.
    fn mpi_type_vector_(
        count: *const Fint,
        blocklength: *const Fint,
        stride: *const Fint,
        oldtype: *const Fint,
        newtype: *mut Fint,
        ierror: *mut Fint,
    ) {
        set_ierror(ierror, c::MPI_Type_vector(*count, *blocklength, *stride, *oldtype, newtype));
    }
}

fortran_fn! {
    /// `MPI_TYPE_COMMIT(DATATYPE, IERROR)`.
    fn mpi_type_commit_(datatype: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Type_commit(datatype));
    }
}

fortran_fn! {
    /// `MPI_TYPE_FREE(DATATYPE, IERROR)`: sets `DATATYPE` to
    /// `MPI_DATATYPE_NULL`.
    fn mpi_type_free_(datatype: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Type_free(datatype));
    }
}
