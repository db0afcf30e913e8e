//! MPI 4.0's Sessions model: `MPI_SESSION_*`,
//! `MPI_GROUP_FROM_SESSION_PSET`, `MPI_COMM_CREATE_FROM_GROUP` and
//! `MPI_INTERCOMM_CREATE_FROM_GROUPS`. Session handles are `INTEGER`s equal
//! to the C handles; a Fortran session error handler
//! `SUBROUTINE HANDLER(SESSION, ERROR_CODE)` takes both by reference, as
//! the C function does, so the C library calls it directly. Process-set
//! names and string tags are `CHARACTER` arguments without their trailing
//! blanks.

use crate::strings::{pad, text_in};
use crate::{set_ierror, write_out, Fint};
use std::os::raw::{c_char, c_int};

fortran_wrappers! {
    fn mpi_session_init_ = MPI_Session_init(info: In, errhandler: In, session: IntRef);
    fn mpi_session_finalize_ = MPI_Session_finalize(session: IntRef);
    fn mpi_session_get_info_ = MPI_Session_get_info(session: In, info_used: IntRef);
    fn mpi_session_get_num_psets_ = MPI_Session_get_num_psets(session: In, info: In, npset_names: IntRef);
    fn mpi_session_set_errhandler_ = MPI_Session_set_errhandler(session: In, errhandler: In);
    fn mpi_session_get_errhandler_ = MPI_Session_get_errhandler(session: In, errhandler: IntRef);
    fn mpi_session_call_errhandler_ = MPI_Session_call_errhandler(session: In, errorcode: In);
    fn mpi_session_create_errhandler_ = MPI_Session_create_errhandler(function: Procedure, errhandler: IntRef);
}

extern "C" {
    fn MPI_Session_get_nth_pset(
        session: c_int,
        info: c_int,
        n: c_int,
        pset_len: *mut c_int,
        pset_name: *mut c_char,
    ) -> c_int;
    fn MPI_Session_get_pset_info(
        session: c_int,
        pset_name: *const c_char,
        info: *mut c_int,
    ) -> c_int;
    fn MPI_Group_from_session_pset(
        session: c_int,
        pset_name: *const c_char,
        newgroup: *mut c_int,
    ) -> c_int;
    fn MPI_Comm_create_from_group(
        group: c_int,
        stringtag: *const c_char,
        info: c_int,
        errhandler: c_int,
        newcomm: *mut c_int,
    ) -> c_int;
    fn MPI_Intercomm_create_from_groups(
        local_group: c_int,
        local_leader: c_int,
        remote_group: c_int,
        remote_leader: c_int,
        stringtag: *const c_char,
        info: c_int,
        errhandler: c_int,
        newintercomm: *mut c_int,
    ) -> c_int;
}

fortran_fn! {
    /// `MPI_SESSION_GET_NTH_PSET(SESSION, INFO, N, PSET_LEN, PSET_NAME,
    /// IERROR)` as MPICH's Fortran binding has it: `N` counts from 1 (it
    /// passes `N - 1` to C); with `PSET_LEN` 0 only the length C reports
    /// (with its NUL) is returned; otherwise at most `PSET_LEN - 1`
    /// characters of the name, blank-padded in `PSET_NAME`, and
    /// `PSET_LEN` unchanged.
    fn mpi_session_get_nth_pset_(session: *const Fint, info: *const Fint, n: *const Fint, pset_len: *mut Fint, pset_name: *mut c_char, ierror: *mut Fint, name_len: usize) {
        let mut len: c_int = *pset_len;
        let mut buf = vec![0u8; len.max(1) as usize];
        let r = MPI_Session_get_nth_pset(*session, *info, (*n).wrapping_sub(1), &mut len, buf.as_mut_ptr() as *mut c_char);
        if r == 0 && *pset_len == 0 {
            write_out(pset_len, len);
        } else if r == 0 && !pset_name.is_null() {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            pad(std::slice::from_raw_parts_mut(pset_name as *mut u8, name_len), &buf[..end]);
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_SESSION_GET_PSET_INFO(SESSION, PSET_NAME, INFO, IERROR)`.
    fn mpi_session_get_pset_info_(session: *const Fint, pset_name: *const c_char, info: *mut Fint, ierror: *mut Fint, name_len: usize) {
        let name = text_in(pset_name, name_len);
        set_ierror(ierror, MPI_Session_get_pset_info(*session, name.as_ptr(), info));
    }
}

fortran_fn! {
    /// `MPI_GROUP_FROM_SESSION_PSET(SESSION, PSET_NAME, NEWGROUP, IERROR)`.
    fn mpi_group_from_session_pset_(session: *const Fint, pset_name: *const c_char, newgroup: *mut Fint, ierror: *mut Fint, name_len: usize) {
        let name = text_in(pset_name, name_len);
        set_ierror(ierror, MPI_Group_from_session_pset(*session, name.as_ptr(), newgroup));
    }
}

fortran_fn! {
    /// `MPI_COMM_CREATE_FROM_GROUP(GROUP, STRINGTAG, INFO, ERRHANDLER,
    /// NEWCOMM, IERROR)`.
    fn mpi_comm_create_from_group_(group: *const Fint, stringtag: *const c_char, info: *const Fint, errhandler: *const Fint, newcomm: *mut Fint, ierror: *mut Fint, tag_len: usize) {
        let tag = text_in(stringtag, tag_len);
        set_ierror(ierror, MPI_Comm_create_from_group(*group, tag.as_ptr(), *info, *errhandler, newcomm));
    }
}

fortran_fn! {
    /// `MPI_INTERCOMM_CREATE_FROM_GROUPS(LOCAL_GROUP, LOCAL_LEADER,
    /// REMOTE_GROUP, REMOTE_LEADER, STRINGTAG, INFO, ERRHANDLER,
    /// NEWINTERCOMM, IERROR)`.
    fn mpi_intercomm_create_from_groups_(local_group: *const Fint, local_leader: *const Fint, remote_group: *const Fint, remote_leader: *const Fint, stringtag: *const c_char, info: *const Fint, errhandler: *const Fint, newintercomm: *mut Fint, ierror: *mut Fint, tag_len: usize) {
        let tag = text_in(stringtag, tag_len);
        set_ierror(ierror, MPI_Intercomm_create_from_groups(*local_group, *local_leader, *remote_group, *remote_leader, tag.as_ptr(), *info, *errhandler, newintercomm));
    }
}
