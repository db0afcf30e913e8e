//! The shim's C functions (MPICH ABI) that the hand-written wrappers call.
//! Handles are `int`s; resolved from `libmpich.so.12` when the library is
//! loaded. (The table-declared wrappers declare their own C functions.)

use crate::attr::{CCopyFn, CDeleteFn};
use crate::Aint;
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    /// The shim's way of ending the job for an unsupported routine.
    pub fn mpinetsim_unsupported(name: *const c_char) -> !;
    /// The C library's `MPI_UNWEIGHTED` (`int * const`).
    pub static MPI_UNWEIGHTED: *const c_int;
    /// The C library's `MPI_WEIGHTS_EMPTY` (`int * const`).
    pub static MPI_WEIGHTS_EMPTY: *const c_int;

    /// The shim's `MPI_Init`.
    pub fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int;
    /// The shim's `MPI_Init_thread`.
    pub fn MPI_Init_thread(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        required: c_int,
        provided: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Wtime`.
    pub fn MPI_Wtime() -> f64;
    /// The shim's `MPI_Wtick`.
    pub fn MPI_Wtick() -> f64;
    /// The shim's `MPI_Aint_add`.
    pub fn MPI_Aint_add(base: Aint, disp: Aint) -> Aint;
    /// The shim's `MPI_Aint_diff`.
    pub fn MPI_Aint_diff(addr1: Aint, addr2: Aint) -> Aint;

    /// The shim's `MPI_Get_processor_name`.
    pub fn MPI_Get_processor_name(name: *mut c_char, resultlen: *mut c_int) -> c_int;
    /// The shim's `MPI_Get_library_version`.
    pub fn MPI_Get_library_version(version: *mut c_char, resultlen: *mut c_int) -> c_int;
    /// The shim's `MPI_Error_string`.
    pub fn MPI_Error_string(errorcode: c_int, string: *mut c_char, resultlen: *mut c_int) -> c_int;
    /// The shim's `MPI_Comm_get_name`.
    pub fn MPI_Comm_get_name(comm: c_int, name: *mut c_char, resultlen: *mut c_int) -> c_int;
    /// The shim's `MPI_Comm_set_name`.
    pub fn MPI_Comm_set_name(comm: c_int, name: *const c_char) -> c_int;

    /// The shim's `MPI_Waitsome`.
    pub fn MPI_Waitsome(
        incount: c_int,
        requests: *mut c_int,
        outcount: *mut c_int,
        indices: *mut c_int,
        statuses: *mut c_void,
    ) -> c_int;
    /// The shim's `MPI_Testsome`.
    pub fn MPI_Testsome(
        incount: c_int,
        requests: *mut c_int,
        outcount: *mut c_int,
        indices: *mut c_int,
        statuses: *mut c_void,
    ) -> c_int;
    /// The shim's `MPI_Buffer_detach`.
    pub fn MPI_Buffer_detach(buffer_addr: *mut c_void, size: *mut c_int) -> c_int;

    /// The shim's `MPI_Address`.
    pub fn MPI_Address(location: *const c_void, address: *mut Aint) -> c_int;
    /// The shim's `MPI_Type_extent`.
    pub fn MPI_Type_extent(datatype: c_int, extent: *mut Aint) -> c_int;
    /// The shim's `MPI_Type_lb`.
    pub fn MPI_Type_lb(datatype: c_int, displacement: *mut Aint) -> c_int;
    /// The shim's `MPI_Type_ub`.
    pub fn MPI_Type_ub(datatype: c_int, displacement: *mut Aint) -> c_int;
    /// The shim's `MPI_Type_hindexed`.
    pub fn MPI_Type_hindexed(
        count: c_int,
        blocklengths: *const c_int,
        displacements: *const Aint,
        oldtype: c_int,
        newtype: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Type_struct`.
    pub fn MPI_Type_struct(
        count: c_int,
        blocklengths: *const c_int,
        displacements: *const Aint,
        types: *const c_int,
        newtype: *mut c_int,
    ) -> c_int;

    /// The shim's `MPI_Comm_get_attr`.
    pub fn MPI_Comm_get_attr(
        comm: c_int,
        keyval: c_int,
        attribute_val: *mut c_void,
        flag: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Attr_get`.
    pub fn MPI_Attr_get(
        comm: c_int,
        keyval: c_int,
        attribute_val: *mut c_void,
        flag: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Comm_set_attr`.
    pub fn MPI_Comm_set_attr(comm: c_int, keyval: c_int, attribute_val: *mut c_void) -> c_int;
    /// The shim's `MPI_Attr_put`.
    pub fn MPI_Attr_put(comm: c_int, keyval: c_int, attribute_val: *mut c_void) -> c_int;
    /// The shim's `MPI_Comm_create_keyval`.
    pub fn MPI_Comm_create_keyval(
        copy_fn: Option<CCopyFn>,
        delete_fn: Option<CDeleteFn>,
        keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int;
    /// The shim's `MPI_Type_get_attr`.
    pub fn MPI_Type_get_attr(
        datatype: c_int,
        keyval: c_int,
        attribute_val: *mut c_void,
        flag: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Type_set_attr`.
    pub fn MPI_Type_set_attr(datatype: c_int, keyval: c_int, attribute_val: *mut c_void) -> c_int;
    /// The shim's `MPI_Type_create_keyval`.
    pub fn MPI_Type_create_keyval(
        copy_fn: Option<CCopyFn>,
        delete_fn: Option<CDeleteFn>,
        keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int;
    /// The shim's `MPI_Type_get_name`.
    pub fn MPI_Type_get_name(datatype: c_int, name: *mut c_char, resultlen: *mut c_int) -> c_int;
    /// The shim's `MPI_Type_set_name`.
    pub fn MPI_Type_set_name(datatype: c_int, name: *const c_char) -> c_int;
    /// The shim's `MPI_Add_error_string`.
    pub fn MPI_Add_error_string(errorcode: c_int, string: *const c_char) -> c_int;
    /// The shim's `MPI_Info_get_valuelen`.
    pub fn MPI_Info_get_valuelen(
        info: c_int,
        key: *const c_char,
        valuelen: *mut c_int,
        flag: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Info_get`.
    pub fn MPI_Info_get(
        info: c_int,
        key: *const c_char,
        valuelen: c_int,
        value: *mut c_char,
        flag: *mut c_int,
    ) -> c_int;
    /// The shim's `MPI_Info_set`.
    pub fn MPI_Info_set(info: c_int, key: *const c_char, value: *const c_char) -> c_int;
    /// The shim's `MPI_Info_delete`.
    pub fn MPI_Info_delete(info: c_int, key: *const c_char) -> c_int;
    /// The shim's `MPI_Info_get_nthkey`.
    pub fn MPI_Info_get_nthkey(info: c_int, n: c_int, key: *mut c_char) -> c_int;
    /// The shim's `MPI_Info_create_env`.
    pub fn MPI_Info_create_env(argc: c_int, argv: *mut *mut c_char, info: *mut c_int) -> c_int;
    /// The shim's `MPI_Pcontrol` (C declares it variadic; the level is all).
    pub fn MPI_Pcontrol(level: c_int) -> c_int;
    /// The shim's `MPI_Keyval_create`.
    pub fn MPI_Keyval_create(
        copy_fn: Option<CCopyFn>,
        delete_fn: Option<CDeleteFn>,
        keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int;
}
