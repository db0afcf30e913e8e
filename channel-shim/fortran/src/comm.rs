//! Communicators, groups and error handlers.
//!
//! A Fortran error handler `SUBROUTINE HANDLER(COMM, ERROR_CODE)` takes
//! both arguments by reference, as the C `MPI_Comm_errhandler_function`
//! does (`MPI_Comm *`, `int *`), so the C library calls it directly.

use crate::strings::{text_in, text_out};
use crate::{c, set_ierror, Fint};
use std::os::raw::c_char;

fortran_wrappers! {
    fn mpi_comm_rank_ = MPI_Comm_rank(comm: In, rank: IntRef);
    fn mpi_comm_size_ = MPI_Comm_size(comm: In, size: IntRef);
    fn mpi_comm_dup_ = MPI_Comm_dup(comm: In, newcomm: IntRef);
    fn mpi_comm_split_ = MPI_Comm_split(comm: In, color: In, key: In, newcomm: IntRef);
    fn mpi_comm_create_ = MPI_Comm_create(comm: In, group: In, newcomm: IntRef);
    fn mpi_comm_free_ = MPI_Comm_free(comm: IntRef);
    fn mpi_comm_disconnect_ = MPI_Comm_disconnect(comm: IntRef);
    fn mpi_comm_get_parent_ = MPI_Comm_get_parent(parent: IntRef);
    fn mpi_comm_compare_ = MPI_Comm_compare(comm1: In, comm2: In, result: IntRef);
    fn mpi_comm_group_ = MPI_Comm_group(comm: In, group: IntRef);
    fn mpi_comm_test_inter_ = MPI_Comm_test_inter(comm: In, flag: IntRef);
    fn mpi_comm_remote_size_ = MPI_Comm_remote_size(comm: In, size: IntRef);
    fn mpi_comm_remote_group_ = MPI_Comm_remote_group(comm: In, group: IntRef);
    fn mpi_comm_idup_ = MPI_Comm_idup(comm: In, newcomm: IntRef, request: IntRef);
    fn mpi_comm_split_type_ = MPI_Comm_split_type(comm: In, split_type: In, key: In, info: In, newcomm: IntRef);
    fn mpi_comm_create_group_ = MPI_Comm_create_group(comm: In, group: In, tag: In, newcomm: IntRef);
    fn mpi_intercomm_create_ = MPI_Intercomm_create(local_comm: In, local_leader: In, peer_comm: In, remote_leader: In, tag: In, newintercomm: IntRef);
    fn mpi_intercomm_merge_ = MPI_Intercomm_merge(intercomm: In, high: Logical, newintracomm: IntRef);
    fn mpi_comm_get_errhandler_ = MPI_Comm_get_errhandler(comm: In, errhandler: IntRef);
    fn mpi_comm_set_errhandler_ = MPI_Comm_set_errhandler(comm: In, errhandler: In);
    fn mpi_errhandler_free_ = MPI_Errhandler_free(errhandler: IntRef);
    fn mpi_errhandler_set_ = MPI_Errhandler_set(comm: In, errhandler: In);
    fn mpi_errhandler_get_ = MPI_Errhandler_get(comm: In, errhandler: IntRef);
    fn mpi_comm_call_errhandler_ = MPI_Comm_call_errhandler(comm: In, errorcode: In);
    fn mpi_comm_create_errhandler_ = MPI_Comm_create_errhandler(function: Procedure, errhandler: IntRef);
    fn mpi_errhandler_create_ = MPI_Errhandler_create(function: Procedure, errhandler: IntRef);
    fn mpi_group_size_ = MPI_Group_size(group: In, size: IntRef);
    fn mpi_group_rank_ = MPI_Group_rank(group: In, rank: IntRef);
    fn mpi_group_compare_ = MPI_Group_compare(group1: In, group2: In, result: IntRef);
    fn mpi_group_union_ = MPI_Group_union(group1: In, group2: In, newgroup: IntRef);
    fn mpi_group_intersection_ = MPI_Group_intersection(group1: In, group2: In, newgroup: IntRef);
    fn mpi_group_difference_ = MPI_Group_difference(group1: In, group2: In, newgroup: IntRef);
    fn mpi_group_incl_ = MPI_Group_incl(group: In, n: In, ranks: IntRef, newgroup: IntRef);
    fn mpi_group_excl_ = MPI_Group_excl(group: In, n: In, ranks: IntRef, newgroup: IntRef);
    fn mpi_group_range_incl_ = MPI_Group_range_incl(group: In, n: In, ranges: IntRef, newgroup: IntRef);
    fn mpi_group_range_excl_ = MPI_Group_range_excl(group: In, n: In, ranges: IntRef, newgroup: IntRef);
    fn mpi_group_translate_ranks_ = MPI_Group_translate_ranks(group1: In, n: In, ranks1: IntRef, group2: In, ranks2: IntRef);
    fn mpi_group_free_ = MPI_Group_free(group: IntRef);
}

/// `MPI_MAX_OBJECT_NAME` of MPICH's C header (the Fortran one is 1 less).
pub(crate) const MAX_OBJECT_NAME: usize = 128;

fortran_fn! {
    /// `MPI_COMM_GET_NAME(COMM, COMM_NAME, RESULTLEN, IERROR)`: blank-padded.
    fn mpi_comm_get_name_(comm: *const Fint, name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) {
        let comm = *comm;
        text_out(MAX_OBJECT_NAME, |t, l| c::MPI_Comm_get_name(comm, t, l), name, name_len, resultlen, ierror);
    }
}

fortran_fn! {
    /// `MPI_COMM_SET_NAME(COMM, COMM_NAME, IERROR)`: trailing blanks of
    /// `COMM_NAME` are not part of the name.
    fn mpi_comm_set_name_(comm: *const Fint, name: *const c_char, ierror: *mut Fint, name_len: usize) {
        let name = text_in(name, name_len);
        set_ierror(ierror, c::MPI_Comm_set_name(*comm, name.as_ptr()));
    }
}
