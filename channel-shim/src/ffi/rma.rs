//! One-sided communication (active target): windows, their attributes,
//! names and error handlers, the operations and fence / PSCW
//! synchronisation. The engine (`shim_engine::rma`) sends every operation
//! through the network; here are the C arguments, the window memory of
//! `MPI_Win_allocate`, and the values the predefined window attributes
//! point at.

use crate::abi::*;
use crate::ffi::attr;
use crate::ffi::buffers::program_memory;
use crate::ffi::comm::{get_name, set_name};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::{apply, create_errhandler, fail, finish, HandlerFn};
use crate::ffi::handles::*;
use crate::ffi::info::{info_to, pairs_of, with_infos};
use crate::ffi::large_count::{CInt, CountT, DisplT};
use crate::ffi::p2p::Eng;
use crate::ffi::write_out;
use shim_engine::datatype::Span;
use shim_engine::envelope::CallCode;
use shim_engine::rma::origin::{OriginBuf, RmaOp, TargetSpec};
use shim_engine::rma::Flavor;
use shim_engine::{BuiltinOp, DatatypeId, MpiError, Object, ObjectKind, OpId};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Mutex;

/// The values `MPI_WIN_SIZE`, `MPI_WIN_DISP_UNIT`, `MPI_WIN_CREATE_FLAVOR`
/// and `MPI_WIN_MODEL` point at (MPI hands out their addresses, valid
/// while the window lives).
#[derive(Debug)]
struct AttrValues {
    size: isize,
    disp_unit: c_int,
    flavor: c_int,
    model: c_int,
}

/// The attribute values of each live window, by handle (boxed: stable addresses).
static ATTR_VALUES: Mutex<Option<HashMap<c_int, Box<AttrValues>>>> = Mutex::new(None);

fn attr_values<R>(f: impl FnOnce(&mut HashMap<c_int, Box<AttrValues>>) -> R) -> R {
    let mut g = ATTR_VALUES.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// Creates a window over `size` bytes at `base` and writes its handle.
#[allow(clippy::too_many_arguments)]
unsafe fn create(
    func: &str,
    base: *mut c_void,
    size: isize,
    disp_unit: impl CInt,
    flavor: Flavor,
    info: c_int,
    comm: c_int,
    win: *mut c_int,
) -> Result<(), MpiError> {
    let c = comm_from(comm)?;
    let hints = pairs_of(info)?;
    let len = usize::try_from(size).map_err(|_| MpiError::Size)?;
    // The MPI_WIN_DISP_UNIT attribute is an int, also for MPI_Win_create_c.
    let disp_unit = c_int::try_from(disp_unit.wide()).map_err(|_| MpiError::Disp)?;
    let unit = u32::try_from(disp_unit).map_err(|_| MpiError::Disp)?;
    let mem = program_memory(base, Span { base: 0, len });
    let w = engine(func, |e| match flavor {
        Flavor::Dynamic => e.win_create_dynamic(c),
        _ => e.win_create(mem, base as usize, unit, flavor, c),
    })?;
    engine(func, |e| e.win_set_hints(w, &hints))?;
    crate::runtime::serve_one_sided_while_computing();
    let h = win_to(w);
    let flavor = match flavor {
        Flavor::Create => MPI_WIN_FLAVOR_CREATE,
        Flavor::Allocate => MPI_WIN_FLAVOR_ALLOCATE,
        Flavor::Dynamic => MPI_WIN_FLAVOR_DYNAMIC,
        Flavor::Shared => MPI_WIN_FLAVOR_SHARED,
    };
    record_attr_values(h, size, disp_unit, flavor);
    write_out(win, h);
    Ok(())
}

/// Keeps the values the predefined attributes of the new window `h` point at.
pub(crate) fn record_attr_values(h: c_int, size: isize, disp_unit: c_int, flavor: c_int) {
    let values = AttrValues {
        size,
        disp_unit,
        flavor,
        model: MPI_WIN_UNIFIED,
    };
    attr_values(|m| m.insert(h, Box::new(values)));
}

mpi_fn! { fn MPI_Win_create / c (base: *mut c_void, size: isize, disp_unit: DisplT, info: c_int, comm: c_int, win: *mut c_int) {
    let func = "MPI_Win_create";
    finish(comm, func, create(func, base, size, disp_unit, Flavor::Create, info, comm, win))
} }

mpi_fn! { fn MPI_Win_create_dynamic(info: c_int, comm: c_int, win: *mut c_int) {
    let func = "MPI_Win_create_dynamic";
    finish(comm, func, create(func, std::ptr::null_mut(), 0, 1, Flavor::Dynamic, info, comm, win))
} }

mpi_fn! { fn MPI_Win_attach(win: c_int, base: *mut c_void, size: isize) {
    let func = "MPI_Win_attach";
    let r = (|| {
        let w = win_from(win)?;
        let len = usize::try_from(size).map_err(|_| MpiError::Size)?;
        let mem = program_memory(base, Span { base: 0, len });
        engine(func, |e| e.win_attach(w, base as usize, mem))
    })();
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_detach(win: c_int, base: *const c_void) {
    let func = "MPI_Win_detach";
    let r = win_from(win).and_then(|w| engine(func, |e| e.win_detach(w, base as usize)));
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_allocate / c (size: isize, disp_unit: DisplT, info: c_int, comm: c_int, baseptr: *mut c_void, win: *mut c_int) {
    let func = "MPI_Win_allocate";
    let r = (|| {
        let n = usize::try_from(size).map_err(|_| MpiError::Size)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // At least one byte, so the window has an address of its own.
        if libc::posix_memalign(&mut p, std::mem::align_of::<libc::max_align_t>(), n.max(1)) != 0 {
            return Err(MpiError::NoMem);
        }
        if let Err(e) = create(func, p, size, disp_unit, Flavor::Allocate, info, comm, win) {
            libc::free(p);
            return Err(e);
        }
        write_out(baseptr as *mut *mut c_void, p);
        Ok(())
    })();
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Win_free(win: *mut c_int) {
    let func = "MPI_Win_free";
    if win.is_null() {
        return fail(MPI_COMM_WORLD, func, MpiError::Arg);
    }
    let h = *win;
    let r = (|| {
        let w = win_from(h)?;
        attr::delete_all(func, Object::Win(w))?;
        let info = engine(func, |e| e.win_info(w))?;
        let shared = engine(func, |e| e.win_shared_mapping(w))?;
        engine(func, |e| e.win_free(w).map(drop))?;
        attr_values(|m| m.remove(&h));
        if info.flavor == Flavor::Allocate {
            libc::free(info.base as *mut c_void);
        }
        crate::ffi::rma_shared::unmap_after_free(shared);
        write_out(win, MPI_WIN_NULL);
        Ok(())
    })();
    finish(h, func, r)
} }

mpi_fn! { fn MPI_Win_get_group(win: c_int, group: *mut c_int) {
    let r = win_from(win).and_then(|w| engine("MPI_Win_get_group", |e| e.win_group(w)));
    finish(win, "MPI_Win_get_group", r.map(|g| write_out(group, group_to(g))))
} }

// ---- attributes, names, error handlers ----

/// The address a predefined window attribute's value is, if `keyval` is one.
fn predefined_attr(win: c_int, keyval: c_int, base: usize) -> Option<usize> {
    attr_values(|m| {
        let v = m.get(&win)?;
        Some(match keyval {
            MPI_WIN_BASE => base,
            MPI_WIN_SIZE => &v.size as *const isize as usize,
            MPI_WIN_DISP_UNIT => &v.disp_unit as *const c_int as usize,
            MPI_WIN_CREATE_FLAVOR => &v.flavor as *const c_int as usize,
            MPI_WIN_MODEL => &v.model as *const c_int as usize,
            _ => return None,
        })
    })
}

mpi_fn! { fn MPI_Win_get_attr(win: c_int, win_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) {
    let func = "MPI_Win_get_attr";
    let info = win_from(win).and_then(|w| engine(func, |e| e.win_info(w)));
    match info.map(|i| predefined_attr(win, win_keyval, i.base)) {
        Err(e) => fail(win, func, e),
        Ok(Some(v)) => {
            write_out(attribute_val as *mut usize, v);
            write_out(flag, 1);
            MPI_SUCCESS
        }
        Ok(None) => attr::get_attr(ObjectKind::Win, func, win, win_keyval, attribute_val, flag),
    }
} }

mpi_fn! { fn MPI_Win_set_attr(win: c_int, win_keyval: c_int, attribute_val: *mut c_void) {
    attr::set_attr(ObjectKind::Win, "MPI_Win_set_attr", win, win_keyval, attribute_val)
} }

mpi_fn! { fn MPI_Win_delete_attr(win: c_int, win_keyval: c_int) {
    attr::delete_attr(ObjectKind::Win, "MPI_Win_delete_attr", win, win_keyval)
} }

mpi_fn! { fn MPI_Win_create_keyval(win_copy_attr_fn: Option<attr::CopyFn>, win_delete_attr_fn: Option<attr::DeleteFn>, win_keyval: *mut c_int, extra_state: *mut c_void) {
    attr::create_keyval(ObjectKind::Win, win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state, "MPI_Win_create_keyval")
} }

mpi_fn! { fn MPI_Win_free_keyval(win_keyval: *mut c_int) {
    attr::free_keyval(ObjectKind::Win, "MPI_Win_free_keyval", win_keyval)
} }

mpi_fn! { fn MPI_Win_set_name(win: c_int, win_name: *const c_char) {
    let func = "MPI_Win_set_name";
    let r = win_from(win).and_then(|w| set_name(func, Object::Win(w), win_name));
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_get_name(win: c_int, win_name: *mut c_char, resultlen: *mut c_int) {
    let func = "MPI_Win_get_name";
    let r = win_from(win).and_then(|w| get_name(func, Object::Win(w), win_name, resultlen));
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_create_errhandler(win_errhandler_fn: Option<HandlerFn>, errhandler: *mut c_int) {
    create_errhandler("MPI_Win_create_errhandler", win_errhandler_fn, errhandler)
} }

mpi_fn! { fn MPI_Win_set_errhandler(win: c_int, errhandler: c_int) {
    let func = "MPI_Win_set_errhandler";
    let r = (|| {
        let (w, h) = (win_from(win)?, errhandler_from(errhandler)?);
        engine(func, |e| e.win_set_errhandler(w, h))
    })();
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_get_errhandler(win: c_int, errhandler: *mut c_int) {
    let func = "MPI_Win_get_errhandler";
    let r = win_from(win).and_then(|w| engine(func, |e| e.win_get_errhandler(w)));
    finish(win, func, r.map(|h| write_out(errhandler, errhandler_to(h))))
} }

mpi_fn! { fn MPI_Win_call_errhandler(win: c_int, errorcode: c_int) {
    let func = "MPI_Win_call_errhandler";
    let action = win_from(win).and_then(|w| engine(func, |e| e.win_error_handling(w).ok_or(MpiError::Win)));
    match action {
        Err(e) => fail(win, func, e),
        Ok(a) => {
            apply(a, win, func, errorcode);
            MPI_SUCCESS
        }
    }
} }

// ---- operations ----

/// The target of an operation.
fn target(rank: c_int, disp: isize, count: impl CInt, dt: c_int) -> Result<TargetSpec, MpiError> {
    let rank = match rank {
        MPI_PROC_NULL => None,
        r => Some(u32::try_from(r).map_err(|_| MpiError::Rank)?),
    };
    Ok(TargetSpec {
        rank,
        disp: disp as i64,
        count: count_from(count)?,
        dt: datatype_from(dt)?,
    })
}

/// `count` instances of `dt` at `buf`, as memory the engine reads now (an
/// origin buffer) or writes when the reply arrives (a result buffer).
unsafe fn buffer(
    e: &Eng,
    buf: *const c_void,
    count: usize,
    dt: DatatypeId,
) -> Result<OriginBuf, MpiError> {
    let span = e.datatypes().span(dt, count)?;
    Ok(OriginBuf {
        mem: program_memory(buf, span),
        count,
        dt,
    })
}

/// What a request-based call (`MPI_Rput`, ...) writes its request to;
/// null for the plain call.
type RequestOut = *mut c_int;

/// Hands the operation's request to the program when it asked for one.
unsafe fn hand_out_op(e: &mut Eng, op: RmaOp, request: RequestOut) {
    if !request.is_null() {
        let r = e.rma_request(op);
        write_out(request, request_to(r));
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn put_or_get(
    func: &str,
    put: bool,
    origin_addr: *const c_void,
    origin: (impl CInt, c_int),
    t: Result<TargetSpec, MpiError>,
    win: c_int,
    request: RequestOut,
) -> c_int {
    let r = (|| {
        let (w, t) = (win_from(win)?, t?);
        let (n, dt) = (count_from(origin.0)?, datatype_from(origin.1)?);
        engine(func, |e| {
            let o = buffer(e, origin_addr, n, dt)?;
            let op = if put {
                e.put(o, t, w)?
            } else {
                e.get(o, t, w)?
            };
            hand_out_op(e, op, request);
            Ok(())
        })
    })();
    finish(win, func, r)
}

mpi_fn! { fn MPI_Put / c (origin_addr: *const c_void, origin_count: CountT, origin_datatype: c_int, target_rank: c_int,
                     target_disp: isize, target_count: CountT, target_datatype: c_int, win: c_int) {
    put_or_get("MPI_Put", true, origin_addr, (origin_count, origin_datatype),
               target(target_rank, target_disp, target_count, target_datatype), win, std::ptr::null_mut())
} }

mpi_fn! { fn MPI_Rput / c (origin_addr: *const c_void, origin_count: CountT, origin_datatype: c_int, target_rank: c_int,
                      target_disp: isize, target_count: CountT, target_datatype: c_int, win: c_int, request: *mut c_int) {
    put_or_get("MPI_Rput", true, origin_addr, (origin_count, origin_datatype),
               target(target_rank, target_disp, target_count, target_datatype), win, request)
} }

mpi_fn! { fn MPI_Get / c (origin_addr: *mut c_void, origin_count: CountT, origin_datatype: c_int, target_rank: c_int,
                     target_disp: isize, target_count: CountT, target_datatype: c_int, win: c_int) {
    put_or_get("MPI_Get", false, origin_addr, (origin_count, origin_datatype),
               target(target_rank, target_disp, target_count, target_datatype), win, std::ptr::null_mut())
} }

mpi_fn! { fn MPI_Rget / c (origin_addr: *mut c_void, origin_count: CountT, origin_datatype: c_int, target_rank: c_int,
                      target_disp: isize, target_count: CountT, target_datatype: c_int, win: c_int, request: *mut c_int) {
    put_or_get("MPI_Rget", false, origin_addr, (origin_count, origin_datatype),
               target(target_rank, target_disp, target_count, target_datatype), win, request)
} }

unsafe fn accumulate(
    func: &str,
    origin_addr: *const c_void,
    origin: (impl CInt, c_int),
    t: Result<TargetSpec, MpiError>,
    op: c_int,
    win: c_int,
    request: RequestOut,
) -> c_int {
    let r = (|| {
        let (w, t) = (win_from(win)?, t?);
        let (n, dt, op) = (
            count_from(origin.0)?,
            datatype_from(origin.1)?,
            op_from(op)?,
        );
        engine(func, |e| {
            let o = buffer(e, origin_addr, n, dt)?;
            let op = e.accumulate(o, t, op, w)?;
            hand_out_op(e, op, request);
            Ok(())
        })
    })();
    finish(win, func, r)
}

mpi_fn! { fn MPI_Accumulate / c (origin_addr: *const c_void, origin_count: CountT, origin_datatype: c_int, target_rank: c_int,
                            target_disp: isize, target_count: CountT, target_datatype: c_int, op: c_int, win: c_int) {
    accumulate("MPI_Accumulate", origin_addr, (origin_count, origin_datatype),
               target(target_rank, target_disp, target_count, target_datatype), op, win, std::ptr::null_mut())
} }

mpi_fn! { fn MPI_Raccumulate / c (origin_addr: *const c_void, origin_count: CountT, origin_datatype: c_int, target_rank: c_int,
                             target_disp: isize, target_count: CountT, target_datatype: c_int, op: c_int, win: c_int,
                             request: *mut c_int) {
    accumulate("MPI_Raccumulate", origin_addr, (origin_count, origin_datatype),
               target(target_rank, target_disp, target_count, target_datatype), op, win, request)
} }

/// `MPI_Get_accumulate` and `MPI_Fetch_and_op`: the origin buffer is not
/// read with `MPI_NO_OP`.
#[allow(clippy::too_many_arguments)]
unsafe fn get_accumulate(
    func: &str,
    call: CallCode,
    origin: (*const c_void, impl CInt, c_int),
    result: (*mut c_void, impl CInt, c_int),
    t: Result<TargetSpec, MpiError>,
    op: c_int,
    win: c_int,
    request: RequestOut,
) -> c_int {
    let r = (|| {
        let (w, t, op) = (win_from(win)?, t?, op_from(op)?);
        let (rn, rdt) = (count_from(result.1)?, datatype_from(result.2)?);
        let origin = if op == OpId::Builtin(BuiltinOp::NoOp) {
            None
        } else {
            Some((count_from(origin.1)?, datatype_from(origin.2)?, origin.0))
        };
        engine(func, |e| {
            let o = match origin {
                Some((n, dt, buf)) => Some(buffer(e, buf, n, dt)?),
                None => None,
            };
            let res = buffer(e, result.0, rn, rdt)?;
            let op = e.get_accumulate(o, res, t, op, w, call)?;
            hand_out_op(e, op, request);
            Ok(())
        })
    })();
    finish(win, func, r)
}

mpi_fn! { fn MPI_Get_accumulate / c (origin_addr: *const c_void, origin_count: CountT, origin_datatype: c_int,
                                result_addr: *mut c_void, result_count: CountT, result_datatype: c_int,
                                target_rank: c_int, target_disp: isize, target_count: CountT, target_datatype: c_int,
                                op: c_int, win: c_int) {
    get_accumulate("MPI_Get_accumulate", CallCode::Get_accumulate, (origin_addr, origin_count, origin_datatype),
                   (result_addr, result_count, result_datatype),
                   target(target_rank, target_disp, target_count, target_datatype), op, win, std::ptr::null_mut())
} }

mpi_fn! { fn MPI_Rget_accumulate / c (origin_addr: *const c_void, origin_count: CountT, origin_datatype: c_int,
                                 result_addr: *mut c_void, result_count: CountT, result_datatype: c_int,
                                 target_rank: c_int, target_disp: isize, target_count: CountT, target_datatype: c_int,
                                 op: c_int, win: c_int, request: *mut c_int) {
    get_accumulate("MPI_Rget_accumulate", CallCode::Get_accumulate, (origin_addr, origin_count, origin_datatype),
                   (result_addr, result_count, result_datatype),
                   target(target_rank, target_disp, target_count, target_datatype), op, win, request)
} }

mpi_fn! { fn MPI_Fetch_and_op(origin_addr: *const c_void, result_addr: *mut c_void, datatype: c_int, target_rank: c_int,
                              target_disp: isize, op: c_int, win: c_int) {
    get_accumulate("MPI_Fetch_and_op", CallCode::Fetch_and_op, (origin_addr, 1, datatype), (result_addr, 1, datatype),
                   target(target_rank, target_disp, 1, datatype), op, win, std::ptr::null_mut())
} }

mpi_fn! { fn MPI_Compare_and_swap(origin_addr: *const c_void, compare_addr: *const c_void, result_addr: *mut c_void,
                                  datatype: c_int, target_rank: c_int, target_disp: isize, win: c_int) {
    let func = "MPI_Compare_and_swap";
    let r = (|| {
        let (w, t) = (win_from(win)?, target(target_rank, target_disp, 1, datatype)?);
        engine(func, |e| {
            let o = buffer(e, origin_addr, 1, t.dt)?;
            let c = buffer(e, compare_addr, 1, t.dt)?;
            let res = buffer(e, result_addr, 1, t.dt)?;
            e.compare_and_swap(o, c, res, t, w).map(drop)
        })
    })();
    finish(win, func, r)
} }

// ---- synchronisation ----

/// The assertion bits MPI defines for fence and PSCW.
const ASSERTIONS: c_int =
    MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

fn assertion(assert: c_int) -> Result<(), MpiError> {
    if assert & !ASSERTIONS != 0 {
        Err(MpiError::Arg)
    } else {
        Ok(())
    }
}

mpi_fn! { fn MPI_Win_fence(assert: c_int, win: c_int) {
    let func = "MPI_Win_fence";
    let r = assertion(assert).and_then(|_| win_from(win)).and_then(|w| engine(func, |e| e.win_fence(w)));
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_post(group: c_int, assert: c_int, win: c_int) {
    let func = "MPI_Win_post";
    let r = (|| {
        assertion(assert)?;
        let (g, w) = (group_from(group)?, win_from(win)?);
        engine(func, |e| e.win_post(g, w))
    })();
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_start(group: c_int, assert: c_int, win: c_int) {
    let func = "MPI_Win_start";
    let r = (|| {
        assertion(assert)?;
        let (g, w) = (group_from(group)?, win_from(win)?);
        engine(func, |e| e.win_start(g, w))
    })();
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_complete(win: c_int) {
    let r = win_from(win).and_then(|w| engine("MPI_Win_complete", |e| e.win_complete(w)));
    finish(win, "MPI_Win_complete", r)
} }

mpi_fn! { fn MPI_Win_wait(win: c_int) {
    let r = win_from(win).and_then(|w| engine("MPI_Win_wait", |e| e.win_wait(w)));
    finish(win, "MPI_Win_wait", r)
} }

mpi_fn! { fn MPI_Win_test(win: c_int, flag: *mut c_int) {
    let r = win_from(win).and_then(|w| engine("MPI_Win_test", |e| e.win_test(w)));
    finish(win, "MPI_Win_test", r.map(|done| write_out(flag, done as c_int)))
} }

// ---- passive target ----

/// A group rank argument of the passive-target calls: `None` for
/// `MPI_PROC_NULL`, with which they do nothing.
fn rank_of(rank: c_int) -> Result<Option<u32>, MpiError> {
    match rank {
        MPI_PROC_NULL => Ok(None),
        r => u32::try_from(r).map(Some).map_err(|_| MpiError::Rank),
    }
}

mpi_fn! { fn MPI_Win_lock(lock_type: c_int, rank: c_int, assert: c_int, win: c_int) {
    let func = "MPI_Win_lock";
    let r = (|| {
        assertion(assert)?;
        let exclusive = match lock_type {
            MPI_LOCK_EXCLUSIVE => true,
            MPI_LOCK_SHARED => false,
            _ => return Err(MpiError::Arg),
        };
        let w = win_from(win)?;
        let Some(rank) = rank_of(rank)? else { return Ok(()) };
        engine(func, |e| e.win_lock(exclusive, rank, assert, w))
    })();
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_unlock(rank: c_int, win: c_int) {
    let func = "MPI_Win_unlock";
    let r = (|| {
        let w = win_from(win)?;
        let Some(rank) = rank_of(rank)? else { return Ok(()) };
        engine(func, |e| e.win_unlock(rank, w))
    })();
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_lock_all(assert: c_int, win: c_int) {
    let func = "MPI_Win_lock_all";
    let r = assertion(assert).and_then(|_| win_from(win)).and_then(|w| engine(func, |e| e.win_lock_all(assert, w)));
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_unlock_all(win: c_int) {
    let r = win_from(win).and_then(|w| engine("MPI_Win_unlock_all", |e| e.win_unlock_all(w)));
    finish(win, "MPI_Win_unlock_all", r)
} }

/// The flushes: `rank` None flushes every target.
unsafe fn flush(func: &str, rank: Option<c_int>, win: c_int) -> c_int {
    let r = (|| {
        let w = win_from(win)?;
        let rank = match rank.map(rank_of).transpose()? {
            Some(None) => return Ok(()),
            Some(Some(r)) => Some(r),
            None => None,
        };
        engine(func, |e| e.win_flush(rank, w))
    })();
    finish(win, func, r)
}

mpi_fn! { fn MPI_Win_flush(rank: c_int, win: c_int) {
    flush("MPI_Win_flush", Some(rank), win)
} }

mpi_fn! { fn MPI_Win_flush_local(rank: c_int, win: c_int) {
    flush("MPI_Win_flush_local", Some(rank), win)
} }

mpi_fn! { fn MPI_Win_flush_all(win: c_int) {
    flush("MPI_Win_flush_all", None, win)
} }

mpi_fn! { fn MPI_Win_flush_local_all(win: c_int) {
    flush("MPI_Win_flush_local_all", None, win)
} }

mpi_fn! { fn MPI_Win_sync(win: c_int) {
    let r = win_from(win).and_then(|w| engine("MPI_Win_sync", |e| e.win_sync(w)));
    finish(win, "MPI_Win_sync", r)
} }

// ---- info ----

mpi_fn! { fn MPI_Win_set_info(win: c_int, info: c_int) {
    // Kept and reported; the shim behaves as MPI's defaults say whatever
    // they allow.
    let func = "MPI_Win_set_info";
    let r = win_from(win).and_then(|w| {
        let pairs = pairs_of(info)?;
        engine(func, |e| e.win_set_hints(w, &pairs))
    });
    finish(win, func, r)
} }

mpi_fn! { fn MPI_Win_get_info(win: c_int, info_used: *mut c_int) {
    let func = "MPI_Win_get_info";
    let r = win_from(win).and_then(|w| engine(func, |e| e.win_hints(w))).map(|pairs| {
        let id = with_infos(|t| t.create_from(pairs));
        write_out(info_used, info_to(id));
    });
    finish(win, func, r)
} }
