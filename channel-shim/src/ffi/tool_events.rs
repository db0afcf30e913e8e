//! The MPI tool information interface, part 3: MPI 4.0's events and their
//! sources. The shim raises no events, so there are none to list, register
//! for or read (semantics in `shim_engine::tool`): the queries answer 0 and
//! every index, name or registration is invalid.

use crate::abi::*;
use crate::ffi::tool::{code, name_arg, put_count, result, tool};
use std::os::raw::{c_char, c_int, c_void};

mpi_fn! { fn MPI_T_event_get_num(num_events: *mut c_int) {
    put_count(num_events, tool(|t| t.event_num()))
} }

mpi_fn! { fn MPI_T_event_get_index(name: *const c_char, event_index: *mut c_int) {
    let n = name_arg(name);
    put_count(event_index, tool(|t| t.event_index(n.as_deref().unwrap_or(""))))
} }

mpi_fn! { fn MPI_T_event_get_info(event_index: c_int, _name: *mut c_char, _name_len: *mut c_int, _verbosity: *mut c_int, _array_of_datatypes: *mut c_int, _array_of_displacements: *mut isize, _num_elements: *mut c_int, _enumtype: *mut *mut c_void, _info: *mut c_int, _desc: *mut c_char, _desc_len: *mut c_int, _bind: *mut c_int) {
    result(tool(|t| t.event(event_index)))
} }

mpi_fn! { fn MPI_T_event_handle_alloc(event_index: c_int, _obj_handle: *mut c_void, _info: c_int, _event_registration: *mut *mut c_void) {
    result(tool(|t| t.event(event_index)))
} }

mpi_fn! { fn MPI_T_event_handle_free(_event_registration: *mut c_void, _user_data: *mut c_void, _free_cb_function: *mut c_void) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_handle_get_info(_event_registration: *mut c_void, _info_used: *mut c_int) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_handle_set_info(_event_registration: *mut c_void, _info: c_int) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_register_callback(_event_registration: *mut c_void, _cb_safety: c_int, _info: c_int, _user_data: *mut c_void, _event_cb_function: *mut c_void) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_callback_get_info(_event_registration: *mut c_void, _cb_safety: c_int, _info_used: *mut c_int) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_callback_set_info(_event_registration: *mut c_void, _cb_safety: c_int, _info: c_int) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_set_dropped_handler(_event_registration: *mut c_void, _dropped_cb_function: *mut c_void) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_copy(_event_instance: *mut c_void, _buffer: *mut c_void) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_read(_event_instance: *mut c_void, _element_index: c_int, _buffer: *mut c_void) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_get_source(_event_instance: *mut c_void, _source_index: *mut c_int) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_event_get_timestamp(_event_instance: *mut c_void, _event_timestamp: *mut i64) {
    result(tool(|t| t.event_object()))
} }

mpi_fn! { fn MPI_T_source_get_num(num_sources: *mut c_int) {
    put_count(num_sources, tool(|t| t.source_num()))
} }

mpi_fn! { fn MPI_T_source_get_info(source_index: c_int, _name: *mut c_char, _name_len: *mut c_int, _desc: *mut c_char, _desc_len: *mut c_int, _ordering: *mut c_int, _ticks_per_second: *mut i64, _max_ticks: *mut i64, _info: *mut c_int) {
    result(tool(|t| t.source(source_index)))
} }

mpi_fn! { fn MPI_T_source_get_timestamp(source_index: c_int, _timestamp: *mut i64) {
    result(tool(|t| t.source(source_index)))
} }

mpi_fn! { fn MPI_T_category_get_num_events(cat_index: c_int, num_events: *mut c_int) {
    put_count(num_events, tool(|t| t.category_events(cat_index).map(|v| v.len())))
} }

mpi_fn! { fn MPI_T_category_get_events(cat_index: c_int, len: c_int, _indices: *mut c_int) {
    match tool(|t| t.category_events(cat_index)) {
        Ok(_) if len < 0 => MPI_T_ERR_INVALID,
        Ok(_) => MPI_SUCCESS,
        Err(e) => code(e),
    }
} }
