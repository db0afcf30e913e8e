//! Attributes of communicators and datatypes: keyvals, values, and the
//! program's copy and delete callbacks.
//!
//! The keyvals, values and their order live in the engine
//! (`shim_engine::attr`); here are the C arguments and the calls of the
//! callbacks, which run without the engine's lock held (so they may call
//! MPI). A callback that returns anything but `MPI_SUCCESS` makes the call
//! fail with `MPI_ERR_OTHER`, as in MPICH.
//!
//! MPICH encodes `MPI_COMM_NULL_COPY_FN` / `MPI_COMM_NULL_DELETE_FN` as null
//! function pointers and `MPI_COMM_DUP_FN` as `MPIR_Dup_fn`
//! ([`crate::ffi::symbols::MPIR_Dup_fn`]), which is simply called like any
//! other copy callback.

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::{
    comm_from, comm_to, datatype_from, datatype_to, keyval_from, keyval_to, win_from, win_to,
};
use crate::ffi::write_out;
use shim_engine::{AttrCall, MpiError, Object, ObjectKind, Opaque, PredefinedAttr};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicI32, Ordering};

/// `MPI_Comm_copy_attr_function`, `MPI_Type_copy_attr_function` (and
/// MPI-1 `MPI_Copy_function`): the object's handle comes first.
pub type CopyFn =
    unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;

/// `MPI_Comm_delete_attr_function`, `MPI_Type_delete_attr_function` (and
/// MPI-1 `MPI_Delete_function`).
pub type DeleteFn = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void) -> c_int;

/// What the engine keeps as a keyval's [`Opaque`]: the program's callbacks
/// and extra state.
#[derive(Clone, Copy)]
struct AttrFns {
    copy: Option<CopyFn>,
    delete: Option<DeleteFn>,
    extra: usize,
}

/// The predefined attribute a keyval handle names.
fn predefined(keyval: c_int) -> Option<PredefinedAttr> {
    Some(match keyval {
        MPI_TAG_UB => PredefinedAttr::TagUb,
        MPI_HOST => PredefinedAttr::Host,
        MPI_IO => PredefinedAttr::Io,
        MPI_WTIME_IS_GLOBAL => PredefinedAttr::WtimeIsGlobal,
        MPI_UNIVERSE_SIZE => PredefinedAttr::UniverseSize,
        MPI_LASTUSEDCODE => PredefinedAttr::LastUsedCode,
        MPI_APPNUM => PredefinedAttr::AppNum,
        _ => return None,
    })
}

/// The `int`s the predefined attributes point at (MPI hands out their
/// addresses, which must stay valid).
static PREDEFINED_VALUES: [AtomicI32; 7] = [const { AtomicI32::new(0) }; 7];

/// The address of a predefined attribute's value, refreshed from the engine.
fn predefined_value(func: &str, a: PredefinedAttr) -> Result<*mut c_int, MpiError> {
    let v = engine(func, |e| Ok(e.predefined_attr(a)))?;
    let cell = &PREDEFINED_VALUES[a as usize];
    cell.store(v, Ordering::Relaxed);
    Ok(cell.as_ptr())
}

/// The C handle of an attribute's object (what callbacks get).
fn object_handle(o: Object) -> c_int {
    match o {
        Object::Comm(c) => comm_to(c),
        Object::Datatype(d) => datatype_to(d),
        Object::Win(w) => win_to(w),
    }
}

/// The object a handle of `kind` names.
fn object_from(kind: ObjectKind, h: c_int) -> Result<Object, MpiError> {
    match kind {
        ObjectKind::Comm => Ok(Object::Comm(comm_from(h)?)),
        ObjectKind::Datatype => Ok(Object::Datatype(datatype_from(h)?)),
        ObjectKind::Win => Ok(Object::Win(win_from(h)?)),
    }
}

/// The communicator or window whose error handler gets errors on `o`
/// (datatypes' go to `MPI_COMM_WORLD`'s).
fn error_comm(kind: ObjectKind, h: c_int) -> c_int {
    if kind != ObjectKind::Datatype {
        h
    } else {
        MPI_COMM_WORLD
    }
}

fn fns_of(call: &AttrCall) -> AttrFns {
    *call
        .fns
        .get::<AttrFns>()
        .expect("keyvals hold the callbacks the C layer registered")
}

/// Makes the delete callback of `call`; any code but `MPI_SUCCESS` fails.
///
/// # Safety
/// The callback the program registered must be a valid C function.
unsafe fn call_delete(call: &AttrCall) -> Result<(), MpiError> {
    let f = fns_of(call);
    let Some(delete) = f.delete else {
        return Ok(());
    };
    let code = delete(
        object_handle(call.object),
        keyval_to(call.object.kind(), call.keyval),
        call.value as *mut c_void,
        f.extra as *mut c_void,
    );
    if code == MPI_SUCCESS {
        Ok(())
    } else {
        Err(MpiError::Other)
    }
}

/// Makes the copy callback of `call`: the value to give the copy, if any.
///
/// # Safety
/// The callback the program registered must be a valid C function.
unsafe fn call_copy(call: &AttrCall) -> Result<Option<usize>, MpiError> {
    let f = fns_of(call);
    let Some(copy) = f.copy else {
        return Ok(None);
    };
    let mut out: *mut c_void = std::ptr::null_mut();
    let mut flag: c_int = 0;
    let code = copy(
        object_handle(call.object),
        keyval_to(call.object.kind(), call.keyval),
        f.extra as *mut c_void,
        call.value as *mut c_void,
        &mut out as *mut *mut c_void as *mut c_void,
        &mut flag,
    );
    if code != MPI_SUCCESS {
        return Err(MpiError::Other);
    }
    Ok((flag != 0).then_some(out as usize))
}

/// Makes the delete callbacks of `calls` in order, removing each attribute
/// whose callback succeeded; stops at the first failure.
///
/// # Safety
/// The callbacks the program registered must be valid C functions.
pub unsafe fn run_deletions(func: &str, calls: Vec<AttrCall>) -> Result<(), MpiError> {
    for call in calls {
        call_delete(&call)?;
        engine(func, |e| {
            e.attr_remove(call.object, call.keyval);
            Ok(())
        })?;
    }
    Ok(())
}

/// Freeing `object`: its attributes' delete callbacks, last set first.
///
/// # Safety
/// The callbacks the program registered must be valid C functions.
pub unsafe fn delete_all(func: &str, object: Object) -> Result<(), MpiError> {
    let calls = engine(func, |e| e.attr_deletions(object))?;
    run_deletions(func, calls)
}

/// Duplicating `from` into `to`: the copy callbacks in the order the
/// attributes were set. On a failure the copies made so far are deleted
/// again (their delete callbacks run) and the error is returned.
///
/// # Safety
/// The callbacks the program registered must be valid C functions.
pub unsafe fn copy_all(func: &str, from: Object, to: Object) -> Result<(), MpiError> {
    let calls = engine(func, |e| e.attr_copies(from))?;
    for call in calls {
        match call_copy(&call) {
            Ok(Some(v)) => engine(func, |e| e.attr_store(to, call.keyval, v))?,
            Ok(None) => {}
            Err(err) => {
                let _ = delete_all(func, to);
                return Err(err);
            }
        }
    }
    Ok(())
}

// ---- keyvals ----

pub(crate) unsafe fn create_keyval(
    kind: ObjectKind,
    copy: Option<CopyFn>,
    delete: Option<DeleteFn>,
    keyval: *mut c_int,
    extra_state: *mut c_void,
    func: &str,
) -> c_int {
    let fns = AttrFns {
        copy,
        delete,
        extra: extra_state as usize,
    };
    let r = engine(func, |e| Ok(e.create_keyval(kind, Opaque::new(fns))));
    let r = r.map(|k| write_out(keyval, keyval_to(kind, k)));
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Comm_create_keyval(comm_copy_attr_fn: Option<CopyFn>, comm_delete_attr_fn: Option<DeleteFn>, comm_keyval: *mut c_int, extra_state: *mut c_void) {
    create_keyval(ObjectKind::Comm, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, "MPI_Comm_create_keyval")
} }

mpi_fn! { fn MPI_Keyval_create(copy_fn: Option<CopyFn>, delete_fn: Option<DeleteFn>, keyval: *mut c_int, extra_state: *mut c_void) {
    create_keyval(ObjectKind::Comm, copy_fn, delete_fn, keyval, extra_state, "MPI_Keyval_create")
} }

mpi_fn! { fn MPI_Type_create_keyval(type_copy_attr_fn: Option<CopyFn>, type_delete_attr_fn: Option<DeleteFn>, type_keyval: *mut c_int, extra_state: *mut c_void) {
    create_keyval(ObjectKind::Datatype, type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state, "MPI_Type_create_keyval")
} }

/// Frees a keyval handle of `kind`: the program's handle becomes
/// `MPI_KEYVAL_INVALID`; attributes set with it keep working.
pub(crate) unsafe fn free_keyval(kind: ObjectKind, func: &str, keyval: *mut c_int) -> c_int {
    let r = (|| {
        if keyval.is_null() {
            return Err(MpiError::Arg);
        }
        let (k_kind, k) = keyval_from(*keyval)?;
        if k_kind != kind {
            return Err(MpiError::Keyval);
        }
        engine(func, |e| e.free_keyval(kind, k))?;
        write_out(keyval, MPI_KEYVAL_INVALID);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Comm_free_keyval(comm_keyval: *mut c_int) {
    free_keyval(ObjectKind::Comm, "MPI_Comm_free_keyval", comm_keyval)
} }

mpi_fn! { fn MPI_Keyval_free(keyval: *mut c_int) {
    free_keyval(ObjectKind::Comm, "MPI_Keyval_free", keyval)
} }

mpi_fn! { fn MPI_Type_free_keyval(type_keyval: *mut c_int) {
    free_keyval(ObjectKind::Datatype, "MPI_Type_free_keyval", type_keyval)
} }

// ---- values ----

/// A keyval handle that must be a created keyval for objects of `kind`.
fn created_keyval(kind: ObjectKind, keyval: c_int) -> Result<shim_engine::Keyval, MpiError> {
    match keyval_from(keyval)? {
        (k_kind, k) if k_kind == kind => Ok(k),
        _ => Err(MpiError::Keyval),
    }
}

pub(crate) unsafe fn get_attr(
    kind: ObjectKind,
    func: &str,
    handle: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let r = (|| {
        let object = object_from(kind, handle)?;
        let value = match (kind, predefined(keyval)) {
            (ObjectKind::Comm, Some(a)) => {
                engine(func, |e| e.check_object(object))?;
                Some(predefined_value(func, a)? as usize)
            }
            _ => {
                let k = created_keyval(kind, keyval)?;
                engine(func, |e| e.attr_get(object, k))?
            }
        };
        write_out(flag, value.is_some() as c_int);
        if let Some(v) = value {
            write_out(attribute_val as *mut usize, v);
        }
        Ok(())
    })();
    finish(error_comm(kind, handle), func, r)
}

mpi_fn! { fn MPI_Comm_get_attr(comm: c_int, comm_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) {
    get_attr(ObjectKind::Comm, "MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag)
} }

mpi_fn! { fn MPI_Attr_get(comm: c_int, keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) {
    get_attr(ObjectKind::Comm, "MPI_Attr_get", comm, keyval, attribute_val, flag)
} }

mpi_fn! { fn MPI_Type_get_attr(datatype: c_int, type_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) {
    get_attr(ObjectKind::Datatype, "MPI_Type_get_attr", datatype, type_keyval, attribute_val, flag)
} }

pub(crate) unsafe fn set_attr(
    kind: ObjectKind,
    func: &str,
    handle: c_int,
    keyval: c_int,
    value: *mut c_void,
) -> c_int {
    let r = (|| {
        let object = object_from(kind, handle)?;
        let k = created_keyval(kind, keyval)?;
        if let Some(old) = engine(func, |e| e.attr_before_set(object, k))? {
            call_delete(&old)?;
        }
        engine(func, |e| e.attr_store(object, k, value as usize))
    })();
    finish(error_comm(kind, handle), func, r)
}

mpi_fn! { fn MPI_Comm_set_attr(comm: c_int, comm_keyval: c_int, attribute_val: *mut c_void) {
    set_attr(ObjectKind::Comm, "MPI_Comm_set_attr", comm, comm_keyval, attribute_val)
} }

mpi_fn! { fn MPI_Attr_put(comm: c_int, keyval: c_int, attribute_val: *mut c_void) {
    set_attr(ObjectKind::Comm, "MPI_Attr_put", comm, keyval, attribute_val)
} }

mpi_fn! { fn MPI_Type_set_attr(datatype: c_int, type_keyval: c_int, attribute_val: *mut c_void) {
    set_attr(ObjectKind::Datatype, "MPI_Type_set_attr", datatype, type_keyval, attribute_val)
} }

pub(crate) unsafe fn delete_attr(
    kind: ObjectKind,
    func: &str,
    handle: c_int,
    keyval: c_int,
) -> c_int {
    let r = (|| {
        let object = object_from(kind, handle)?;
        let k = created_keyval(kind, keyval)?;
        if let Some(call) = engine(func, |e| e.attr_before_delete(object, k))? {
            run_deletions(func, vec![call])?;
        }
        Ok(())
    })();
    finish(error_comm(kind, handle), func, r)
}

mpi_fn! { fn MPI_Comm_delete_attr(comm: c_int, comm_keyval: c_int) {
    delete_attr(ObjectKind::Comm, "MPI_Comm_delete_attr", comm, comm_keyval)
} }

mpi_fn! { fn MPI_Attr_delete(comm: c_int, keyval: c_int) {
    delete_attr(ObjectKind::Comm, "MPI_Attr_delete", comm, keyval)
} }

mpi_fn! { fn MPI_Type_delete_attr(datatype: c_int, type_keyval: c_int) {
    delete_attr(ObjectKind::Datatype, "MPI_Type_delete_attr", datatype, type_keyval)
} }
