//! The MPI tool information interface, part 1: `MPI_T_init_thread`,
//! `MPI_T_finalize`, control variables, enumerations and categories. The
//! semantics live in `shim_engine::tool`; this file converts arguments,
//! handles (opaque pointers holding the engine's ids) and strings. The
//! `MPI_T_*` functions return their error class directly and never call an
//! error handler; none of them needs `MPI_Init`.

use crate::abi::*;
use crate::ffi::write_out;
use crate::runtime;
use shim_engine::tool::text::text_out;
use shim_engine::tool::{Scope, ToolError, ToolInterface, ToolResult, ValueType, Verbosity};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// Runs `f` on the tool interface after giving it the engine's current
/// values (when MPI is initialized); the engine's lock is released first.
pub(crate) fn tool<R>(f: impl FnOnce(&mut ToolInterface) -> R) -> R {
    let level = crate::ffi::init::THREAD_LEVEL.load(std::sync::atomic::Ordering::SeqCst);
    let readings = runtime::with_engine(|e| e.tool_readings(level));
    runtime::with_tool(|t| {
        if let Some(r) = readings {
            t.observe(r);
        }
        f(t)
    })
}

/// The `MPI_T_ERR_*` value of `e`.
pub(crate) fn code(e: ToolError) -> c_int {
    match e {
        ToolError::NotInitialized => MPI_T_ERR_NOT_INITIALIZED,
        ToolError::InvalidIndex => MPI_T_ERR_INVALID_INDEX,
        ToolError::InvalidHandle => MPI_T_ERR_INVALID_HANDLE,
        ToolError::InvalidSession => MPI_T_ERR_INVALID_SESSION,
        ToolError::CvarSetNever => MPI_T_ERR_CVAR_SET_NEVER,
        ToolError::PvarNoStartStop => MPI_T_ERR_PVAR_NO_STARTSTOP,
        ToolError::PvarNoWrite => MPI_T_ERR_PVAR_NO_WRITE,
        ToolError::PvarNoAtomic => MPI_T_ERR_PVAR_NO_ATOMIC,
        ToolError::InvalidName => MPI_T_ERR_INVALID_NAME,
        ToolError::Invalid => MPI_T_ERR_INVALID,
    }
}

/// `MPI_SUCCESS` or the error's class.
pub(crate) fn result(r: ToolResult<()>) -> c_int {
    match r {
        Ok(()) => MPI_SUCCESS,
        Err(e) => code(e),
    }
}

/// The C datatype handle of a value type.
pub(crate) fn datatype(t: ValueType) -> c_int {
    match t {
        ValueType::Int => MPI_INT,
        ValueType::UnsignedLongLong => MPI_UNSIGNED_LONG_LONG,
    }
}

/// The `MPI_T_VERBOSITY_*` value.
pub(crate) fn verbosity(v: Verbosity) -> c_int {
    match v {
        Verbosity::UserBasic => MPI_T_VERBOSITY_USER_BASIC,
        Verbosity::TunerBasic => MPI_T_VERBOSITY_TUNER_BASIC,
        Verbosity::TunerDetail => MPI_T_VERBOSITY_TUNER_DETAIL,
    }
}

/// The id an opaque handle pointer holds (0 for a null handle).
pub(crate) fn id_of(handle: *mut c_void) -> u64 {
    handle as usize as u64
}

/// The opaque handle pointer holding `id` (ids start at 1: never null).
pub(crate) fn handle_of(id: u64) -> *mut c_void {
    id as usize as *mut c_void
}

/// The `MPI_T_enum` of enumeration `index` (`MPI_T_ENUM_NULL` for none).
pub(crate) fn enum_handle(index: Option<usize>) -> *mut c_void {
    index.map_or(std::ptr::null_mut(), |i| handle_of(i as u64 + 1))
}

/// The enumeration index an `MPI_T_enum` holds (usize::MAX for null: invalid).
fn enum_index(e: *mut c_void) -> usize {
    (id_of(e) as usize).wrapping_sub(1)
}

/// Returns `text` through `buf` and the in/out length `len` (MPI 3.1
/// section 14.3.3, see `shim_engine::tool::text`).
///
/// # Safety
/// `len` null or valid; `buf` null or valid for `*len` bytes.
pub(crate) unsafe fn put_text(buf: *mut c_char, len: *mut c_int, text: &str) {
    if len.is_null() {
        return;
    }
    let cap = (!buf.is_null()).then(|| (*len).max(0) as usize);
    let out = text_out(text.len(), cap);
    if let Some(n) = out.copy {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, n);
        *buf.add(n) = 0;
    }
    *len = out.len as c_int;
}

/// A name argument as text (None for null or not UTF-8: no such name).
///
/// # Safety
/// `name` null or a NUL-terminated string.
pub(crate) unsafe fn name_arg(name: *const c_char) -> Option<String> {
    if name.is_null() {
        return None;
    }
    CStr::from_ptr(name).to_str().ok().map(String::from)
}

/// Writes `value` as `t` into `buf`.
///
/// # Safety
/// `buf` valid for one value of type `t`.
pub(crate) unsafe fn store_value(buf: *mut c_void, t: ValueType, value: i64) {
    match t {
        ValueType::Int => (buf as *mut c_int).write_unaligned(value as c_int),
        ValueType::UnsignedLongLong => (buf as *mut u64).write_unaligned(value as u64),
    }
}

/// Reads a value of type `t` from `buf`.
///
/// # Safety
/// `buf` valid for one value of type `t`.
pub(crate) unsafe fn load_value(buf: *const c_void, t: ValueType) -> u64 {
    match t {
        ValueType::Int => (buf as *const c_int).read_unaligned() as i64 as u64,
        ValueType::UnsignedLongLong => (buf as *const u64).read_unaligned(),
    }
}

/// Writes up to `len` of `items` into `indices`.
///
/// # Safety
/// `indices` valid for `len` ints when `len > 0`.
unsafe fn put_indices(indices: *mut c_int, len: c_int, items: &[usize]) -> c_int {
    if len < 0 || (len > 0 && indices.is_null()) {
        return MPI_T_ERR_INVALID;
    }
    for (k, &i) in items.iter().take(len as usize).enumerate() {
        *indices.add(k) = i as c_int;
    }
    MPI_SUCCESS
}

/// Stores a count through `out` (`MPI_T_ERR_INVALID` if null).
///
/// # Safety
/// `out` null or valid.
pub(crate) unsafe fn put_count(out: *mut c_int, r: ToolResult<usize>) -> c_int {
    match r {
        Ok(_) if out.is_null() => MPI_T_ERR_INVALID,
        Ok(n) => {
            *out = n as c_int;
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
}

mpi_fn! { fn MPI_T_init_thread(required: c_int, provided: *mut c_int) {
    let level = tool(|t| t.init(required));
    write_out(provided, level);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_T_finalize() {
    result(tool(|t| t.finalize()))
} }

// ---- control variables ----

mpi_fn! { fn MPI_T_cvar_get_num(num_cvar: *mut c_int) {
    put_count(num_cvar, tool(|t| t.cvar_num()))
} }

mpi_fn! { fn MPI_T_cvar_get_info(cvar_index: c_int, name: *mut c_char, name_len: *mut c_int, verb: *mut c_int, dtype: *mut c_int, enumtype: *mut *mut c_void, desc: *mut c_char, desc_len: *mut c_int, bind: *mut c_int, scope: *mut c_int) {
    let info = tool(|t| t.cvar(cvar_index).cloned());
    match info {
        Ok(v) => {
            put_text(name, name_len, v.name);
            put_text(desc, desc_len, v.desc);
            write_out(verb, verbosity(v.verbosity));
            write_out(dtype, datatype(v.datatype));
            write_out(enumtype, enum_handle(v.enumeration));
            write_out(bind, MPI_T_BIND_NO_OBJECT);
            write_out(scope, match v.scope {
                Scope::Constant => MPI_T_SCOPE_CONSTANT,
                Scope::Readonly => MPI_T_SCOPE_READONLY,
            });
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_cvar_get_index(name: *const c_char, cvar_index: *mut c_int) {
    let n = name_arg(name);
    put_count(cvar_index, tool(|t| t.cvar_index(n.as_deref().unwrap_or(""))))
} }

mpi_fn! { fn MPI_T_cvar_handle_alloc(cvar_index: c_int, _obj_handle: *mut c_void, handle: *mut *mut c_void, count: *mut c_int) {
    if handle.is_null() || count.is_null() {
        return MPI_T_ERR_INVALID;
    }
    match tool(|t| t.cvar_handle_alloc(cvar_index)) {
        Ok((h, n)) => {
            *handle = handle_of(h);
            *count = n as c_int;
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_cvar_handle_free(handle: *mut *mut c_void) {
    if handle.is_null() {
        return MPI_T_ERR_INVALID;
    }
    let r = tool(|t| t.cvar_handle_free(id_of(*handle)));
    if r.is_ok() {
        *handle = std::ptr::null_mut();
    }
    result(r)
} }

mpi_fn! { fn MPI_T_cvar_read(handle: *mut c_void, buf: *mut c_void) {
    match tool(|t| t.cvar_read(id_of(handle))) {
        Ok(_) if buf.is_null() => MPI_T_ERR_INVALID,
        Ok((ty, v)) => {
            store_value(buf, ty, v);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_cvar_write(handle: *mut c_void, _buf: *const c_void) {
    result(tool(|t| t.cvar_write(id_of(handle))))
} }

// ---- enumerations ----

mpi_fn! { fn MPI_T_enum_get_info(enumtype: *mut c_void, num: *mut c_int, name: *mut c_char, name_len: *mut c_int) {
    match tool(|t| t.enumeration(enum_index(enumtype)).cloned()) {
        Ok(e) => {
            write_out(num, e.items.len() as c_int);
            put_text(name, name_len, e.name);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_enum_get_item(enumtype: *mut c_void, index: c_int, value: *mut c_int, name: *mut c_char, name_len: *mut c_int) {
    match tool(|t| t.enum_item(enum_index(enumtype), index)) {
        Ok((v, n)) => {
            write_out(value, v);
            put_text(name, name_len, n);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

// ---- categories ----

mpi_fn! { fn MPI_T_category_get_num(num_cat: *mut c_int) {
    put_count(num_cat, tool(|t| t.category_num()))
} }

mpi_fn! { fn MPI_T_category_get_info(cat_index: c_int, name: *mut c_char, name_len: *mut c_int, desc: *mut c_char, desc_len: *mut c_int, num_cvars: *mut c_int, num_pvars: *mut c_int, num_categories: *mut c_int) {
    match tool(|t| t.category(cat_index).cloned()) {
        Ok(c) => {
            put_text(name, name_len, c.name);
            put_text(desc, desc_len, c.desc);
            write_out(num_cvars, c.cvars.len() as c_int);
            write_out(num_pvars, c.pvars.len() as c_int);
            write_out(num_categories, c.categories.len() as c_int);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_category_get_index(name: *const c_char, cat_index: *mut c_int) {
    let n = name_arg(name);
    put_count(cat_index, tool(|t| t.category_index(n.as_deref().unwrap_or(""))))
} }

mpi_fn! { fn MPI_T_category_get_cvars(cat_index: c_int, len: c_int, indices: *mut c_int) {
    match tool(|t| t.category(cat_index).map(|c| c.cvars.clone())) {
        Ok(v) => put_indices(indices, len, &v),
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_category_get_pvars(cat_index: c_int, len: c_int, indices: *mut c_int) {
    match tool(|t| t.category(cat_index).map(|c| c.pvars.clone())) {
        Ok(v) => put_indices(indices, len, &v),
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_category_get_categories(cat_index: c_int, len: c_int, indices: *mut c_int) {
    match tool(|t| t.category(cat_index).map(|c| c.categories.clone())) {
        Ok(v) => put_indices(indices, len, &v),
        Err(e) => code(e),
    }
} }

mpi_fn! { fn MPI_T_category_changed(update_number: *mut c_int) {
    match tool(|t| t.category_changed()) {
        Ok(n) => {
            write_out(update_number, n);
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
} }
