//! The MPI tool information interface, part 2: performance variables,
//! their sessions and handles (semantics in `shim_engine::tool`).

use crate::abi::*;
use crate::ffi::symbols::pvar_all_handles;
use crate::ffi::tool::{
    code, datatype, handle_of, id_of, load_value, name_arg, put_count, put_text, result,
    store_value, tool, verbosity,
};
use crate::ffi::write_out;
use shim_engine::tool::{HandleSel, PvarClass, ToolResult, ValueType};
use std::os::raw::{c_char, c_int, c_void};

/// The `MPI_T_PVAR_CLASS_*` value of a class.
fn class_code(c: PvarClass) -> c_int {
    match c {
        PvarClass::Level => MPI_T_PVAR_CLASS_LEVEL,
        PvarClass::Counter => MPI_T_PVAR_CLASS_COUNTER,
        PvarClass::HighWatermark => MPI_T_PVAR_CLASS_HIGHWATERMARK,
    }
}

/// The class of an `MPI_T_PVAR_CLASS_*` value (None: a class no variable has).
fn class_from(c: c_int) -> Option<PvarClass> {
    [
        PvarClass::Level,
        PvarClass::Counter,
        PvarClass::HighWatermark,
    ]
    .into_iter()
    .find(|&k| class_code(k) == c)
}

/// One handle, or `MPI_T_PVAR_ALL_HANDLES`.
fn selection(handle: *mut c_void) -> HandleSel {
    if std::ptr::eq(handle as *const c_void, pvar_all_handles() as *const c_void) {
        HandleSel::All
    } else {
        HandleSel::One(id_of(handle))
    }
}

/// Stores a value read into `buf`.
///
/// # Safety
/// `buf` null or valid for one value of the variable's type.
unsafe fn put_value(buf: *mut c_void, r: ToolResult<(ValueType, u64)>) -> c_int {
    match r {
        Ok(_) if buf.is_null() => MPI_T_ERR_INVALID,
        Ok((t, v)) => {
            store_value(buf, t, v as i64);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
}

mpi_fn! { fn MPI_T_pvar_get_num(num_pvar: *mut c_int) {
    put_count(num_pvar, tool(|t| t.pvar_num()))
} }

mpi_fn! { fn MPI_T_pvar_get_info(pvar_index: c_int, name: *mut c_char, name_len: *mut c_int, verb: *mut c_int, var_class: *mut c_int, dtype: *mut c_int, enumtype: *mut *mut c_void, desc: *mut c_char, desc_len: *mut c_int, bind: *mut c_int, readonly: *mut c_int, continuous: *mut c_int, atomic: *mut c_int) {
    match tool(|t| t.pvar(pvar_index).cloned()) {
        Ok(p) => {
            put_text(name, name_len, p.name);
            put_text(desc, desc_len, p.desc);
            write_out(verb, verbosity(p.verbosity));
            write_out(var_class, class_code(p.class));
            write_out(dtype, datatype(p.datatype));
            write_out(enumtype, std::ptr::null_mut());
            write_out(bind, MPI_T_BIND_NO_OBJECT);
            write_out(readonly, p.readonly as c_int);
            write_out(continuous, p.continuous as c_int);
            write_out(atomic, p.atomic as c_int);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_pvar_get_index(name: *const c_char, var_class: c_int, pvar_index: *mut c_int) {
    let n = name_arg(name);
    put_count(pvar_index, tool(|t| t.pvar_index(n.as_deref().unwrap_or(""), class_from(var_class))))
} }

mpi_fn! { fn MPI_T_pvar_session_create(session: *mut *mut c_void) {
    if session.is_null() {
        return MPI_T_ERR_INVALID;
    }
    match tool(|t| t.session_create()) {
        Ok(s) => {
            *session = handle_of(s);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_pvar_session_free(session: *mut *mut c_void) {
    if session.is_null() {
        return MPI_T_ERR_INVALID;
    }
    let r = tool(|t| t.session_free(id_of(*session)));
    if r.is_ok() {
        *session = std::ptr::null_mut();
    }
    result(r)
} }

mpi_fn! { fn MPI_T_pvar_handle_alloc(session: *mut c_void, pvar_index: c_int, _obj_handle: *mut c_void, handle: *mut *mut c_void, count: *mut c_int) {
    if handle.is_null() || count.is_null() {
        return MPI_T_ERR_INVALID;
    }
    match tool(|t| t.pvar_handle_alloc(id_of(session), pvar_index)) {
        Ok((h, n)) => {
            *handle = handle_of(h);
            *count = n as c_int;
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_pvar_handle_free(session: *mut c_void, handle: *mut *mut c_void) {
    if handle.is_null() {
        return MPI_T_ERR_INVALID;
    }
    let r = tool(|t| t.pvar_handle_free(id_of(session), id_of(*handle)));
    if r.is_ok() {
        *handle = std::ptr::null_mut();
    }
    result(r)
} }

mpi_fn! { fn MPI_T_pvar_start(session: *mut c_void, handle: *mut c_void) {
    result(tool(|t| t.pvar_start(id_of(session), selection(handle))))
} }

mpi_fn! { fn MPI_T_pvar_stop(session: *mut c_void, handle: *mut c_void) {
    result(tool(|t| t.pvar_stop(id_of(session), selection(handle))))
} }

mpi_fn! { fn MPI_T_pvar_reset(session: *mut c_void, handle: *mut c_void) {
    result(tool(|t| t.pvar_reset(id_of(session), selection(handle))))
} }

mpi_fn! { fn MPI_T_pvar_read(session: *mut c_void, handle: *mut c_void, buf: *mut c_void) {
    put_value(buf, tool(|t| t.pvar_read(id_of(session), one(handle)?)))
} }

mpi_fn! { fn MPI_T_pvar_readreset(session: *mut c_void, handle: *mut c_void, buf: *mut c_void) {
    put_value(buf, tool(|t| t.pvar_readreset(id_of(session), one(handle)?)))
} }

mpi_fn! { fn MPI_T_pvar_write(session: *mut c_void, handle: *mut c_void, buf: *const c_void) {
    let s = id_of(session);
    let r = tool(|t| {
        let h = one(handle)?;
        let (ty, _) = t.pvar_read(s, h)?;
        if buf.is_null() {
            return Err(shim_engine::tool::ToolError::Invalid);
        }
        t.pvar_write(s, h, load_value(buf, ty))
    });
    result(r)
} }

/// A single handle: `MPI_T_PVAR_ALL_HANDLES` is not one (read, write, readreset).
fn one(handle: *mut c_void) -> ToolResult<u64> {
    match selection(handle) {
        HandleSel::One(h) => Ok(h),
        HandleSel::All => Err(shim_engine::tool::ToolError::InvalidHandle),
    }
}
