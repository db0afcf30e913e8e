//! Communicator attributes: the predefined keys (`MPI_TAG_UB`,
//! `MPI_WTIME_IS_GLOBAL`, ...) and keyvals the program creates, with their
//! copy and delete callbacks. Everything is kept here, in the C layer.
//!
//! MPICH encodes `MPI_COMM_NULL_COPY_FN` / `MPI_COMM_NULL_DELETE_FN` as null
//! function pointers and `MPI_COMM_DUP_FN` as `MPIR_Dup_fn`
//! ([`crate::ffi::symbols::MPIR_Dup_fn`]), which is simply called like any
//! other copy callback. Callbacks run without any lock held, so they may
//! call MPI themselves.

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::comm_from;
use crate::ffi::write_out;
use shim_engine::MpiError;
use std::collections::{BTreeMap, HashMap};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// `MPI_Comm_copy_attr_function` (and MPI-1 `MPI_Copy_function`).
pub type CopyFn =
    unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;

/// `MPI_Comm_delete_attr_function` (and MPI-1 `MPI_Delete_function`).
pub type DeleteFn = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void) -> c_int;

/// Created keyvals start here (MPICH's keyval handles are 0x24xxxxxx).
const KEYVAL_BASE: c_int = 0x2400_1000;

#[derive(Clone, Copy)]
struct Keyval {
    copy: Option<CopyFn>,
    delete: Option<DeleteFn>,
    extra: usize,
}

#[derive(Default)]
struct Table {
    keyvals: HashMap<c_int, Keyval>,
    next: c_int,
    /// Attribute values per communicator handle, by keyval (in creation order).
    attrs: HashMap<c_int, BTreeMap<c_int, usize>>,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

fn table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    let mut g = TABLE.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(Table::default))
}

// Values of the predefined attributes; MPI returns pointers to them.
static TAG_UB_VALUE: AtomicI32 = AtomicI32::new(i32::MAX);
static WTIME_IS_GLOBAL_VALUE: AtomicI32 = AtomicI32::new(1);
static UNIVERSE_SIZE_VALUE: AtomicI32 = AtomicI32::new(1);
static HOST_VALUE: AtomicI32 = AtomicI32::new(MPI_PROC_NULL);
static IO_VALUE: AtomicI32 = AtomicI32::new(MPI_ANY_SOURCE);

fn is_predefined(keyval: c_int) -> bool {
    [
        MPI_TAG_UB,
        MPI_HOST,
        MPI_IO,
        MPI_WTIME_IS_GLOBAL,
        MPI_UNIVERSE_SIZE,
        MPI_LASTUSEDCODE,
        MPI_APPNUM,
    ]
    .contains(&keyval)
}

/// The address of a predefined attribute's value, if it has one.
fn predefined(keyval: c_int) -> Result<Option<*mut c_int>, MpiError> {
    let cell = match keyval {
        MPI_TAG_UB => {
            let ub = engine("MPI_Comm_get_attr", |e| Ok(e.config().tag_ub))?;
            TAG_UB_VALUE.store(ub, Ordering::Relaxed);
            &TAG_UB_VALUE
        }
        MPI_UNIVERSE_SIZE => {
            let n = engine("MPI_Comm_get_attr", |e| Ok(e.size()))?;
            UNIVERSE_SIZE_VALUE.store(n as i32, Ordering::Relaxed);
            &UNIVERSE_SIZE_VALUE
        }
        MPI_WTIME_IS_GLOBAL => &WTIME_IS_GLOBAL_VALUE,
        MPI_HOST => &HOST_VALUE,
        MPI_IO => &IO_VALUE,
        _ => return Ok(None),
    };
    Ok(Some(cell.as_ptr()))
}

unsafe fn get_attr(
    func: &str,
    comm: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        engine(func, |e| e.comm_size(c))?;
        let value = if is_predefined(keyval) {
            predefined(keyval)?.map(|p| p as usize)
        } else {
            table(|t| {
                if !t.keyvals.contains_key(&keyval) {
                    return Err(MpiError::Arg);
                }
                Ok(t.attrs.get(&comm).and_then(|m| m.get(&keyval)).copied())
            })?
        };
        write_out(flag, value.is_some() as c_int);
        if let Some(v) = value {
            write_out(attribute_val as *mut usize, v);
        }
        Ok(())
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_get_attr(comm: c_int, comm_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) {
    get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag)
} }

mpi_fn! { fn MPI_Attr_get(comm: c_int, keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) {
    get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag)
} }

unsafe fn create_keyval(
    copy: Option<CopyFn>,
    delete: Option<DeleteFn>,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    let k = table(|t| {
        let k = KEYVAL_BASE + t.next;
        t.next += 1;
        t.keyvals.insert(
            k,
            Keyval {
                copy,
                delete,
                extra: extra_state as usize,
            },
        );
        k
    });
    write_out(keyval, k);
    MPI_SUCCESS
}

mpi_fn! { fn MPI_Comm_create_keyval(comm_copy_attr_fn: Option<CopyFn>, comm_delete_attr_fn: Option<DeleteFn>, comm_keyval: *mut c_int, extra_state: *mut c_void) {
    create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state)
} }

mpi_fn! { fn MPI_Keyval_create(copy_fn: Option<CopyFn>, delete_fn: Option<DeleteFn>, keyval: *mut c_int, extra_state: *mut c_void) {
    create_keyval(copy_fn, delete_fn, keyval, extra_state)
} }

/// Frees a keyval. Attributes still set with it keep their callbacks until
/// they are deleted (the keyval entry stays, but no new use is possible
/// through the freed handle the program now holds: MPI_KEYVAL_INVALID).
unsafe fn free_keyval(func: &str, keyval: *mut c_int) -> c_int {
    let k = *keyval;
    let r = if table(|t| t.keyvals.contains_key(&k)) {
        write_out(keyval, MPI_KEYVAL_INVALID);
        Ok(())
    } else {
        Err(MpiError::Arg)
    };
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Comm_free_keyval(comm_keyval: *mut c_int) {
    free_keyval("MPI_Comm_free_keyval", comm_keyval)
} }

mpi_fn! { fn MPI_Keyval_free(keyval: *mut c_int) {
    free_keyval("MPI_Keyval_free", keyval)
} }

/// Calls the delete callback of `keyval` for `value` on `comm`.
unsafe fn call_delete(comm: c_int, keyval: c_int, value: usize) -> c_int {
    let kv = table(|t| t.keyvals.get(&keyval).copied());
    match kv.and_then(|k| k.delete.map(|d| (d, k.extra))) {
        Some((d, extra)) => d(comm, keyval, value as *mut c_void, extra as *mut c_void),
        None => MPI_SUCCESS,
    }
}

/// Removes an attribute, calling its delete callback.
unsafe fn delete_attr(comm: c_int, keyval: c_int) -> Result<(), MpiError> {
    let old = table(|t| t.attrs.get_mut(&comm).and_then(|m| m.remove(&keyval)));
    match old {
        Some(v) if call_delete(comm, keyval, v) != MPI_SUCCESS => Err(MpiError::Other),
        _ => Ok(()),
    }
}

unsafe fn set_attr(func: &str, comm: c_int, keyval: c_int, value: *mut c_void) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        engine(func, |e| e.comm_size(c))?;
        if is_predefined(keyval) || !table(|t| t.keyvals.contains_key(&keyval)) {
            return Err(MpiError::Arg);
        }
        delete_attr(comm, keyval)?;
        table(|t| {
            t.attrs
                .entry(comm)
                .or_default()
                .insert(keyval, value as usize)
        });
        Ok(())
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_set_attr(comm: c_int, comm_keyval: c_int, attribute_val: *mut c_void) {
    set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val)
} }

mpi_fn! { fn MPI_Attr_put(comm: c_int, keyval: c_int, attribute_val: *mut c_void) {
    set_attr("MPI_Attr_put", comm, keyval, attribute_val)
} }

unsafe fn delete_one(func: &str, comm: c_int, keyval: c_int) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        engine(func, |e| e.comm_size(c))?;
        if is_predefined(keyval) || !table(|t| t.keyvals.contains_key(&keyval)) {
            return Err(MpiError::Arg);
        }
        delete_attr(comm, keyval)
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_delete_attr(comm: c_int, comm_keyval: c_int) {
    delete_one("MPI_Comm_delete_attr", comm, comm_keyval)
} }

mpi_fn! { fn MPI_Attr_delete(comm: c_int, keyval: c_int) {
    delete_one("MPI_Attr_delete", comm, keyval)
} }

/// `MPI_Comm_dup`'s attribute copying from `old` to `new`: each keyval's
/// copy callback decides (a null callback copies nothing). Returns
/// MPI_SUCCESS or the first callback error.
///
/// # Safety
/// The callbacks the program registered must be valid C functions.
pub unsafe fn copy_on_dup(old: c_int, new: c_int) -> c_int {
    let attrs: Vec<(c_int, usize)> = table(|t| {
        t.attrs
            .get(&old)
            .map(|m| m.iter().map(|(&k, &v)| (k, v)).collect())
            .unwrap_or_default()
    });
    for (k, v) in attrs {
        let Some(kv) = table(|t| t.keyvals.get(&k).copied()) else {
            continue;
        };
        let Some(copy) = kv.copy else { continue };
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut flag: c_int = 0;
        let code = copy(
            old,
            k,
            kv.extra as *mut c_void,
            v as *mut c_void,
            &mut out as *mut *mut c_void as *mut c_void,
            &mut flag,
        );
        if code != MPI_SUCCESS {
            return code;
        }
        if flag != 0 {
            table(|t| t.attrs.entry(new).or_default().insert(k, out as usize));
        }
    }
    MPI_SUCCESS
}

/// `MPI_Comm_free`'s attribute deletion: calls every delete callback.
/// Returns MPI_SUCCESS or the first callback error.
///
/// # Safety
/// The callbacks the program registered must be valid C functions.
pub unsafe fn delete_all(comm: c_int) -> c_int {
    let keys: Vec<c_int> = table(|t| {
        t.attrs
            .get(&comm)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default()
    });
    for k in keys {
        if delete_attr(comm, k).is_err() {
            return MPI_ERR_OTHER;
        }
    }
    table(|t| t.attrs.remove(&comm));
    MPI_SUCCESS
}
