//! `use mpi_f08` bindings of the routines whose mpif.h wrapper is written
//! out (character arguments, callbacks, attribute values, 1-based index
//! arrays, functions): MPICH's `mpi_f08` procedures take the same
//! arguments in the same order as mpif.h, so each forwards to it.
//!
//! Every argument list below was checked against the interface in Debian's
//! `mpi_f08.mod` (`channel-shim/tools/f08-mod-interfaces.py` prints them):
//! handles are one-`INTEGER` derived types passed by reference, `ierror`
//! is `OPTIONAL` (null when absent, which the mpif.h wrappers accept), a
//! `CHARACTER(LEN=*)` argument brings a hidden `size_t` length after all
//! others, callbacks arrive as procedure addresses with the mpif.h
//! arguments (`TYPE(C_PTR), VALUE` buffers are the address mpif.h passes
//! by reference), attribute values and extra states are
//! `INTEGER(KIND=MPI_ADDRESS_KIND)`, `LOGICAL`s default ones.
//!
//! Each routine is exported as `mpi_xxx_f08_` and under MPICH's profiling
//! name `pmpir_xxx_f08_`.
//!
//! # Safety
//!
//! As for the mpif.h wrappers: every pointer must be valid for the MPI
//! routine's use of it.

use crate::attr::{FCopyFn, FDeleteFn};
use crate::datarep::{FConversion, FExtent};
use crate::grequest::{FCancel, FFree, FQuery};
use crate::{c, set_ierror, Aint, Fint};
use std::os::raw::{c_char, c_int, c_void};

/// Exports `$name` and its profiling name `$pname`, both calling `$target`
/// with the same arguments.
macro_rules! f08_forwarders {
    ($( fn $name:ident / $pname:ident ( $($arg:ident : $ty:ty),* $(,)? ) $(-> $ret:ty)? = $target:path; )*) => {
        $(
            #[doc = concat!("`use mpi_f08` binding forwarded to [`", stringify!($target), "`].")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
                $target($($arg),*)
            }
            #[doc = concat!("Profiling name of [`", stringify!($name), "`].")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub unsafe extern "C" fn $pname($($arg: $ty),*) $(-> $ret)? {
                $target($($arg),*)
            }
        )*
    };
}

f08_forwarders! {
    // Strings.
    fn mpi_comm_set_name_f08_ / pmpir_comm_set_name_f08_(comm: *const Fint, name: *const c_char, ierror: *mut Fint, name_len: usize) = crate::comm::mpi_comm_set_name_;
    fn mpi_comm_get_name_f08_ / pmpir_comm_get_name_f08_(comm: *const Fint, name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) = crate::comm::mpi_comm_get_name_;
    fn mpi_type_set_name_f08_ / pmpir_type_set_name_f08_(datatype: *const Fint, name: *const c_char, ierror: *mut Fint, name_len: usize) = crate::datatype::mpi_type_set_name_;
    fn mpi_type_get_name_f08_ / pmpir_type_get_name_f08_(datatype: *const Fint, name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) = crate::datatype::mpi_type_get_name_;
    fn mpi_win_set_name_f08_ / pmpir_win_set_name_f08_(win: *const Fint, name: *const c_char, ierror: *mut Fint, name_len: usize) = crate::rma::mpi_win_set_name_;
    fn mpi_win_get_name_f08_ / pmpir_win_get_name_f08_(win: *const Fint, name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) = crate::rma::mpi_win_get_name_;
    fn mpi_error_string_f08_ / pmpir_error_string_f08_(errorcode: *const Fint, string: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, string_len: usize) = crate::env::mpi_error_string_;
    fn mpi_add_error_string_f08_ / pmpir_add_error_string_f08_(errorcode: *const Fint, string: *const c_char, ierror: *mut Fint, string_len: usize) = crate::env::mpi_add_error_string_;
    fn mpi_get_processor_name_f08_ / pmpir_get_processor_name_f08_(name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) = crate::env::mpi_get_processor_name_;
    fn mpi_get_library_version_f08_ / pmpir_get_library_version_f08_(version: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, version_len: usize) = crate::env::mpi_get_library_version_;
    fn mpi_info_set_f08_ / pmpir_info_set_f08_(info: *const Fint, key: *const c_char, value: *const c_char, ierror: *mut Fint, key_len: usize, value_len: usize) = crate::info::mpi_info_set_;
    fn mpi_info_get_f08_ / pmpir_info_get_f08_(info: *const Fint, key: *const c_char, valuelen: *const Fint, value: *mut c_char, flag: *mut Fint, ierror: *mut Fint, key_len: usize, value_len: usize) = crate::info::mpi_info_get_;
    fn mpi_info_get_string_f08_ / pmpir_info_get_string_f08_(info: *const Fint, key: *const c_char, buflen: *mut Fint, value: *mut c_char, flag: *mut Fint, ierror: *mut Fint, key_len: usize, value_len: usize) = crate::info::mpi_info_get_string_;
    fn mpi_info_get_valuelen_f08_ / pmpir_info_get_valuelen_f08_(info: *const Fint, key: *const c_char, valuelen: *mut Fint, flag: *mut Fint, ierror: *mut Fint, key_len: usize) = crate::info::mpi_info_get_valuelen_;
    fn mpi_info_get_nthkey_f08_ / pmpir_info_get_nthkey_f08_(info: *const Fint, n: *const Fint, key: *mut c_char, ierror: *mut Fint, key_len: usize) = crate::info::mpi_info_get_nthkey_;
    fn mpi_info_delete_f08_ / pmpir_info_delete_f08_(info: *const Fint, key: *const c_char, ierror: *mut Fint, key_len: usize) = crate::info::mpi_info_delete_;
    fn mpi_info_create_env_f08_ / pmpir_info_create_env_f08_(info: *mut Fint, ierror: *mut Fint) = crate::info::mpi_info_create_env_;
    fn mpi_pack_external_size_f08_ / pmpir_pack_external_size_f08_(datarep: *const c_char, incount: *const Fint, datatype: *const Fint, size: *mut Aint, ierror: *mut Fint, datarep_len: usize) = crate::datatype_ext::mpi_pack_external_size_;
    fn mpi_file_set_view_f08_ / pmpir_file_set_view_f08_(fh: *const Fint, disp: *const i64, etype: *const Fint, filetype: *const Fint, datarep: *const c_char, info: *const Fint, ierror: *mut Fint, datarep_len: usize) = crate::io::mpi_file_set_view_;
    fn mpi_file_get_view_f08_ / pmpir_file_get_view_f08_(fh: *const Fint, disp: *mut i64, etype: *mut Fint, filetype: *mut Fint, datarep: *mut c_char, ierror: *mut Fint, datarep_len: usize) = crate::io::mpi_file_get_view_;
    fn mpi_open_port_f08_ / pmpir_open_port_f08_(info: *const Fint, port_name: *mut c_char, ierror: *mut Fint, port_name_len: usize) = crate::ports::mpi_open_port_;
    fn mpi_close_port_f08_ / pmpir_close_port_f08_(port_name: *const c_char, ierror: *mut Fint, port_name_len: usize) = crate::ports::mpi_close_port_;
    fn mpi_comm_accept_f08_ / pmpir_comm_accept_f08_(port_name: *const c_char, info: *const Fint, root: *const Fint, comm: *const Fint, newcomm: *mut Fint, ierror: *mut Fint, port_name_len: usize) = crate::ports::mpi_comm_accept_;
    fn mpi_comm_connect_f08_ / pmpir_comm_connect_f08_(port_name: *const c_char, info: *const Fint, root: *const Fint, comm: *const Fint, newcomm: *mut Fint, ierror: *mut Fint, port_name_len: usize) = crate::ports::mpi_comm_connect_;
    fn mpi_comm_join_f08_ / pmpir_comm_join_f08_(fd: *const Fint, intercomm: *mut Fint, ierror: *mut Fint) = crate::ports::mpi_comm_join_;
    fn mpi_comm_spawn_f08_ / pmpir_comm_spawn_f08_(command: *const c_char, argv: *const c_char, maxprocs: *const Fint, info: *const Fint, root: *const Fint, comm: *const Fint, intercomm: *mut Fint, errcodes: *mut Fint, ierror: *mut Fint, command_len: usize, argv_len: usize) = crate::spawn::mpi_comm_spawn_;
    fn mpi_comm_spawn_multiple_f08_ / pmpir_comm_spawn_multiple_f08_(count: *const Fint, commands: *const c_char, argvs: *const c_char, maxprocs: *const Fint, infos: *const Fint, root: *const Fint, comm: *const Fint, intercomm: *mut Fint, errcodes: *mut Fint, ierror: *mut Fint, commands_len: usize, argv_len: usize) = crate::spawn::mpi_comm_spawn_multiple_;
    fn mpi_publish_name_f08_ / pmpir_publish_name_f08_(service: *const c_char, info: *const Fint, port_name: *const c_char, ierror: *mut Fint, service_len: usize, port_name_len: usize) = crate::ports::mpi_publish_name_;
    fn mpi_unpublish_name_f08_ / pmpir_unpublish_name_f08_(service: *const c_char, info: *const Fint, port_name: *const c_char, ierror: *mut Fint, service_len: usize, port_name_len: usize) = crate::ports::mpi_unpublish_name_;
    fn mpi_lookup_name_f08_ / pmpir_lookup_name_f08_(service: *const c_char, info: *const Fint, port_name: *mut c_char, ierror: *mut Fint, service_len: usize, port_name_len: usize) = crate::ports::mpi_lookup_name_;
    fn mpi_comm_create_from_group_f08_ / pmpir_comm_create_from_group_f08_(group: *const Fint, stringtag: *const c_char, info: *const Fint, errhandler: *const Fint, newcomm: *mut Fint, ierror: *mut Fint, tag_len: usize) = crate::session::mpi_comm_create_from_group_;
    fn mpi_intercomm_create_from_groups_f08_ / pmpir_intercomm_create_from_groups_f08_(local_group: *const Fint, local_leader: *const Fint, remote_group: *const Fint, remote_leader: *const Fint, stringtag: *const c_char, info: *const Fint, errhandler: *const Fint, newintercomm: *mut Fint, ierror: *mut Fint, tag_len: usize) = crate::session::mpi_intercomm_create_from_groups_;
    fn mpi_group_from_session_pset_f08_ / pmpir_group_from_session_pset_f08_(session: *const Fint, pset_name: *const c_char, newgroup: *mut Fint, ierror: *mut Fint, name_len: usize) = crate::session::mpi_group_from_session_pset_;
    fn mpi_session_get_nth_pset_f08_ / pmpir_session_get_nth_pset_f08_(session: *const Fint, info: *const Fint, n: *const Fint, pset_len: *mut Fint, pset_name: *mut c_char, ierror: *mut Fint, name_len: usize) = crate::session::mpi_session_get_nth_pset_;
    fn mpi_session_get_pset_info_f08_ / pmpir_session_get_pset_info_f08_(session: *const Fint, pset_name: *const c_char, info: *mut Fint, ierror: *mut Fint, name_len: usize) = crate::session::mpi_session_get_pset_info_;

    // Callbacks and attribute values.
    fn mpi_comm_create_keyval_f08_ / pmpir_comm_create_keyval_f08_(copy: Option<FCopyFn<Aint>>, delete: Option<FDeleteFn<Aint>>, keyval: *mut Fint, extra: *const Aint, ierror: *mut Fint) = crate::attr::mpi_comm_create_keyval_;
    fn mpi_comm_set_attr_f08_ / pmpir_comm_set_attr_f08_(comm: *const Fint, keyval: *const Fint, value: *const Aint, ierror: *mut Fint) = crate::attr::mpi_comm_set_attr_;
    fn mpi_comm_get_attr_f08_ / pmpir_comm_get_attr_f08_(comm: *const Fint, keyval: *const Fint, value: *mut Aint, flag: *mut Fint, ierror: *mut Fint) = crate::attr::mpi_comm_get_attr_;
    fn mpi_type_create_keyval_f08_ / pmpir_type_create_keyval_f08_(copy: Option<FCopyFn<Aint>>, delete: Option<FDeleteFn<Aint>>, keyval: *mut Fint, extra: *const Aint, ierror: *mut Fint) = crate::attr::mpi_type_create_keyval_;
    fn mpi_type_set_attr_f08_ / pmpir_type_set_attr_f08_(datatype: *const Fint, keyval: *const Fint, value: *const Aint, ierror: *mut Fint) = crate::attr::mpi_type_set_attr_;
    fn mpi_type_get_attr_f08_ / pmpir_type_get_attr_f08_(datatype: *const Fint, keyval: *const Fint, value: *mut Aint, flag: *mut Fint, ierror: *mut Fint) = crate::attr::mpi_type_get_attr_;
    fn mpi_win_create_keyval_f08_ / pmpir_win_create_keyval_f08_(copy: Option<FCopyFn<Aint>>, delete: Option<FDeleteFn<Aint>>, keyval: *mut Fint, extra: *const Aint, ierror: *mut Fint) = crate::rma::mpi_win_create_keyval_;
    fn mpi_win_set_attr_f08_ / pmpir_win_set_attr_f08_(win: *const Fint, keyval: *const Fint, value: *const Aint, ierror: *mut Fint) = crate::rma::mpi_win_set_attr_;
    fn mpi_win_get_attr_f08_ / pmpir_win_get_attr_f08_(win: *const Fint, keyval: *const Fint, value: *mut Aint, flag: *mut Fint, ierror: *mut Fint) = crate::rma::mpi_win_get_attr_;
    fn mpi_grequest_start_f08_ / pmpir_grequest_start_f08_(query: Option<FQuery>, free: Option<FFree>, cancel: Option<FCancel>, extra: *mut Aint, request: *mut Fint, ierror: *mut Fint) = crate::grequest::mpi_grequest_start_;
    fn mpi_register_datarep_f08_ / pmpir_register_datarep_f08_(datarep: *const c_char, read: Option<FConversion>, write: Option<FConversion>, extent: Option<FExtent>, extra: *const Aint, ierror: *mut Fint, datarep_len: usize) = crate::datarep::mpi_register_datarep_;

    // 1-based index arrays.
    fn mpi_waitsome_f08_ / pmpir_waitsome_f08_(incount: *const Fint, requests: *mut Fint, outcount: *mut Fint, indices: *mut Fint, statuses: *mut Fint, ierror: *mut Fint) = crate::p2p::mpi_waitsome_;
    fn mpi_testsome_f08_ / pmpir_testsome_f08_(incount: *const Fint, requests: *mut Fint, outcount: *mut Fint, indices: *mut Fint, statuses: *mut Fint, ierror: *mut Fint) = crate::p2p::mpi_testsome_;

    // Functions.
    fn mpi_wtime_f08_ / pmpir_wtime_f08_() -> f64 = crate::env::mpi_wtime_;
    fn mpi_wtick_f08_ / pmpir_wtick_f08_() -> f64 = crate::env::mpi_wtick_;
    fn mpi_aint_add_f08_ / pmpir_aint_add_f08_(base: *const Aint, disp: *const Aint) -> Aint = crate::datatype::mpi_aint_add_;
    fn mpi_aint_diff_f08_ / pmpir_aint_diff_f08_(addr1: *const Aint, addr2: *const Aint) -> Aint = crate::datatype::mpi_aint_diff_;

    // MPICH's extensions (profiling names `pmpixr_`).
    fn mpix_comm_agree_f08_ / pmpixr_comm_agree_f08_(comm: *const Fint, flag: *mut Fint, ierror: *mut Fint) = crate::mpix::agree_logical;
    fn mpix_comm_shrink_f08_ / pmpixr_comm_shrink_f08_(comm: *const Fint, newcomm: *mut Fint, ierror: *mut Fint) = crate::mpix::mpix_comm_shrink_;
    fn mpix_comm_revoke_f08_ / pmpixr_comm_revoke_f08_(comm: *const Fint, ierror: *mut Fint) = crate::mpix::mpix_comm_revoke_;
    fn mpix_comm_failure_ack_f08_ / pmpixr_comm_failure_ack_f08_(comm: *const Fint, ierror: *mut Fint) = crate::mpix::mpix_comm_failure_ack_;
    fn mpix_comm_failure_get_acked_f08_ / pmpixr_comm_failure_get_acked_f08_(comm: *const Fint, failedgrp: *mut Fint, ierror: *mut Fint) = crate::mpix::mpix_comm_failure_get_acked_;
    fn mpix_gpu_query_support_f08_ / pmpixr_gpu_query_support_f08_(gpu_type: *const Fint, is_supported: *mut Fint, ierror: *mut Fint) = crate::mpix::mpix_gpu_query_support_;
    fn mpix_query_cuda_support_f08_ / pmpixr_query_cuda_support_f08_(ierror: *mut Fint) = crate::mpix::device_support;
    fn mpix_query_hip_support_f08_ / pmpixr_query_hip_support_f08_(ierror: *mut Fint) = crate::mpix::device_support;
    fn mpix_query_ze_support_f08_ / pmpixr_query_ze_support_f08_(ierror: *mut Fint) = crate::mpix::device_support;
}

/// `MPI_Pcontrol(level, ierror)` of `mpi_f08`: unlike mpif.h's
/// `MPI_PCONTROL(LEVEL)`, it has an (optional) `ierror`.
///
/// # Safety
/// `level` must be a valid `INTEGER`, `ierror` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mpi_pcontrol_f08_(level: *const Fint, ierror: *mut Fint) {
    crate::info::mpi_pcontrol_(level);
    set_ierror(ierror, crate::MPI_SUCCESS);
}

/// Profiling name of [`mpi_pcontrol_f08_`].
///
/// # Safety
/// As [`mpi_pcontrol_f08_`].
#[no_mangle]
pub unsafe extern "C" fn pmpir_pcontrol_f08_(level: *const Fint, ierror: *mut Fint) {
    mpi_pcontrol_f08_(level, ierror)
}

/// `MPI_Buffer_detach(buffer_addr, size, ierror)` of `mpi_f08`:
/// `buffer_addr` is a `TYPE(C_PTR)` receiving the buffer's address (mpif.h
/// cannot return it; `mpi_f08` can).
///
/// # Safety
/// `buffer_addr` and `size` must be valid for writing, `ierror` null or
/// valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mpi_buffer_detach_f08_(
    buffer_addr: *mut *mut c_void,
    size: *mut Fint,
    ierror: *mut Fint,
) {
    let mut addr: *mut c_void = std::ptr::null_mut();
    let mut n: c_int = 0;
    let r = c::MPI_Buffer_detach(&mut addr as *mut *mut c_void as *mut c_void, &mut n);
    crate::write_out(buffer_addr, addr);
    crate::write_out(size, n);
    set_ierror(ierror, r);
}

/// Profiling name of [`mpi_buffer_detach_f08_`].
///
/// # Safety
/// As [`mpi_buffer_detach_f08_`].
#[no_mangle]
pub unsafe extern "C" fn pmpir_buffer_detach_f08_(
    buffer_addr: *mut *mut c_void,
    size: *mut Fint,
    ierror: *mut Fint,
) {
    mpi_buffer_detach_f08_(buffer_addr, size, ierror)
}
