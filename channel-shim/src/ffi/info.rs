//! Info objects (`MPI_Info_*`, `MPI_INFO_ENV`), the communicator calls
//! that take or give one (`MPI_Comm_set_info`, `MPI_Comm_get_info`,
//! `MPI_Comm_dup_with_info`) and `MPI_Alloc_mem` / `MPI_Free_mem`.
//!
//! The table is the engine's (`shim_engine::info`). MPI lets programs use
//! info objects before `MPI_Init` and after `MPI_Finalize`, so the process
//! holds it here, next to (not inside) the engine.
//!
//! `MPI_INFO_ENV` holds the keys MPI 4.0 §11.2.3 defines that the shim
//! knows: `command` and `argv` (from the process's command line),
//! `maxprocs` (the job size), `host` (this machine's name), `arch` (its
//! architecture) and `wdir` (the working directory at the first use).
//! `thread_level` would be a level requested before the program started
//! (an `mpiexec` option), which `mpinetsim run` has not; `file` and `soft`
//! likewise. The contents do not change during the run, so
//! `MPI_Info_create_env` gives the same before and after `MPI_Init`.

use crate::abi::*;
use crate::ffi::comm::{dup_comm, hand_out_dup};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::{comm_from, request_to};
use crate::ffi::{write_c_string, write_out};
use crate::runtime;
use shim_engine::info::{CommHints, InfoId, Infos, Pairs};
use shim_engine::MpiError;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::{Mutex, MutexGuard};

/// The process's info objects.
static INFOS: Mutex<Option<Infos>> = Mutex::new(None);

/// Created info objects: `0x9c000000 + n`, MPICH's direct info handles.
const INFO_BASE: u32 = 0x9c00_0000;
const ID_MASK: u32 = 0x00ff_ffff;

/// What `MPI_INFO_ENV` holds before `MPI_Init`.
fn environment() -> Pairs {
    let cmdline = std::fs::read("/proc/self/cmdline").unwrap_or_default();
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned());
    let mut env = Pairs::new();
    if let Some(command) = args.next() {
        env.push(("command".into(), command));
    }
    let rest: Vec<String> = args.collect();
    if !rest.is_empty() {
        env.push(("argv".into(), rest.join(" ")));
    }
    if let Some(n) = runtime::job_size_from_env() {
        env.push(("maxprocs".into(), n.to_string()));
    }
    if let Ok(h) = nix::unistd::gethostname() {
        env.push(("host".into(), h.to_string_lossy().into_owned()));
    }
    env.push(("arch".into(), std::env::consts::ARCH.into()));
    if let Ok(d) = std::env::current_dir() {
        env.push(("wdir".into(), d.display().to_string()));
    }
    env
}

fn infos() -> MutexGuard<'static, Option<Infos>> {
    INFOS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `f` on the info table.
pub(crate) fn with_infos<R>(f: impl FnOnce(&mut Infos) -> R) -> R {
    let mut g = infos();
    f(g.get_or_insert_with(|| Infos::new(environment())))
}

/// The info object a handle names (`MPI_INFO_NULL` is `MPI_ERR_INFO`).
pub(crate) fn info_from(h: c_int) -> Result<InfoId, MpiError> {
    let b = h as u32;
    if h == MPI_INFO_ENV {
        Ok(InfoId::ENV)
    } else if b & !ID_MASK == INFO_BASE {
        Ok(InfoId(b & ID_MASK))
    } else {
        Err(MpiError::Info)
    }
}

/// The handle of an info object.
pub(crate) fn info_to(id: InfoId) -> c_int {
    if id == InfoId::ENV {
        MPI_INFO_ENV
    } else {
        (INFO_BASE | (id.0 & ID_MASK)) as c_int
    }
}

/// The pairs of an info argument; `MPI_INFO_NULL` is an empty list.
pub(crate) fn pairs_of(h: c_int) -> Result<Pairs, MpiError> {
    if h == MPI_INFO_NULL {
        return Ok(Pairs::new());
    }
    let id = info_from(h)?;
    with_infos(|t| t.all(id).cloned())
}

/// A key or value argument (null: `null_error`).
unsafe fn text<'a>(p: *const c_char, null_error: MpiError) -> Result<&'a str, MpiError> {
    if p.is_null() {
        return Err(null_error);
    }
    CStr::from_ptr(p).to_str().map_err(|_| null_error)
}

/// Errors of info calls go to `MPI_COMM_WORLD`'s handler.
fn done(func: &str, r: Result<(), MpiError>) -> c_int {
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Info_create(info: *mut c_int) {
    let id = with_infos(|t| t.create());
    write_out(info, info_to(id));
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Info_dup(info: c_int, newinfo: *mut c_int) {
    let r = info_from(info).and_then(|id| with_infos(|t| t.dup(id)));
    done("MPI_Info_dup", r.map(|id| write_out(newinfo, info_to(id))))
} }

mpi_fn! { fn MPI_Info_free(info: *mut c_int) {
    let r = (|| {
        if info.is_null() {
            return Err(MpiError::Arg);
        }
        with_infos(|t| t.free(info_from(*info)?))?;
        write_out(info, MPI_INFO_NULL);
        Ok(())
    })();
    done("MPI_Info_free", r)
} }

mpi_fn! { fn MPI_Info_set(info: c_int, key: *const c_char, value: *const c_char) {
    let r = (|| {
        let id = info_from(info)?;
        let (k, v) = (text(key, MpiError::InfoKey)?, text(value, MpiError::InfoValue)?);
        with_infos(|t| t.set(id, k, v))
    })();
    done("MPI_Info_set", r)
} }

mpi_fn! { fn MPI_Info_delete(info: c_int, key: *const c_char) {
    let r = (|| {
        let id = info_from(info)?;
        let k = text(key, MpiError::InfoKey)?;
        with_infos(|t| t.delete(id, k))
    })();
    done("MPI_Info_delete", r)
} }

/// The value of `key` in `info`, if set.
unsafe fn value_of(info: c_int, key: *const c_char) -> Result<Option<String>, MpiError> {
    let id = info_from(info)?;
    let k = text(key, MpiError::InfoKey)?;
    with_infos(|t| t.get(id, k).map(|v| v.map(str::to_string)))
}

mpi_fn! { fn MPI_Info_get(info: c_int, key: *const c_char, valuelen: c_int, value: *mut c_char, flag: *mut c_int) {
    let r = (|| {
        let cap = usize::try_from(valuelen).map_err(|_| MpiError::Arg)?;
        let v = value_of(info, key)?;
        write_out(flag, v.is_some() as c_int);
        if let Some(v) = v {
            // At most `valuelen` characters, then a NUL (MPI: the buffer
            // holds valuelen + 1). A longer value is cut, and MPICH then
            // reports MPI_ERR_INFO_VALUE.
            write_c_string(value, cap + 1, &v);
            if v.len() > cap {
                return Err(MpiError::InfoValue);
            }
        }
        Ok(())
    })();
    done("MPI_Info_get", r)
} }

mpi_fn! { fn MPI_Info_get_string(info: c_int, key: *const c_char, buflen: *mut c_int, value: *mut c_char, flag: *mut c_int) {
    let r = (|| {
        if buflen.is_null() {
            return Err(MpiError::Arg);
        }
        let cap = usize::try_from(*buflen).map_err(|_| MpiError::Arg)?;
        let v = value_of(info, key)?;
        write_out(flag, v.is_some() as c_int);
        if let Some(v) = v {
            // MPI 4.0: as much as fits with its NUL; buflen becomes the
            // length the whole value needs, NUL included.
            write_c_string(value, cap, &v);
            write_out(buflen, (v.len() + 1) as c_int);
        }
        Ok(())
    })();
    done("MPI_Info_get_string", r)
} }

mpi_fn! { fn MPI_Info_get_valuelen(info: c_int, key: *const c_char, valuelen: *mut c_int, flag: *mut c_int) {
    let r = value_of(info, key).map(|v| {
        write_out(flag, v.is_some() as c_int);
        if let Some(v) = v {
            write_out(valuelen, v.len() as c_int);
        }
    });
    done("MPI_Info_get_valuelen", r)
} }

mpi_fn! { fn MPI_Info_get_nkeys(info: c_int, nkeys: *mut c_int) {
    let r = info_from(info).and_then(|id| with_infos(|t| t.nkeys(id)));
    done("MPI_Info_get_nkeys", r.map(|n| write_out(nkeys, n as c_int)))
} }

mpi_fn! { fn MPI_Info_get_nthkey(info: c_int, n: c_int, key: *mut c_char) {
    let r = (|| {
        let id = info_from(info)?;
        let n = usize::try_from(n).map_err(|_| MpiError::Arg)?;
        let k = with_infos(|t| t.nthkey(id, n).map(str::to_string))?;
        write_c_string(key, MPI_MAX_INFO_KEY as usize + 1, &k);
        Ok(())
    })();
    done("MPI_Info_get_nthkey", r)
} }

// ---- communicators ----

mpi_fn! { fn MPI_Comm_set_info(comm: c_int, info: c_int) {
    let func = "MPI_Comm_set_info";
    let r = (|| {
        let c = comm_from(comm)?;
        let pairs = pairs_of(info)?;
        engine(func, |e| {
            let h = e.comm_hints(c)?.updated(&pairs);
            e.set_comm_hints(c, h)
        })
    })();
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_get_info(comm: c_int, info_used: *mut c_int) {
    let func = "MPI_Comm_get_info";
    let r = (|| {
        let c = comm_from(comm)?;
        let pairs = engine(func, |e| e.comm_hints(c))?.pairs();
        let id = with_infos(|t| t.create_from(pairs));
        write_out(info_used, info_to(id));
        Ok(())
    })();
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_dup_with_info(comm: c_int, info: c_int, newcomm: *mut c_int) {
    let func = "MPI_Comm_dup_with_info";
    let r = (|| {
        let c = comm_from(comm)?;
        let pairs = pairs_of(info)?;
        // Attributes are copied as by MPI_Comm_dup; the hints are the info's.
        let id = dup_comm(func, c, newcomm)?;
        crate::ffi::call_record::dup(c, id);
        engine(func, |e| e.set_comm_hints(id, CommHints::default().updated(&pairs)))
    })();
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_idup_with_info(comm: c_int, info: c_int, newcomm: *mut c_int, request: *mut c_int) {
    let func = "MPI_Comm_idup_with_info";
    let r = (|| {
        let c = comm_from(comm)?;
        let hints = CommHints::default().updated(&pairs_of(info)?);
        // The handle at once, usable when the request completes; its
        // attributes are copied now, as by MPI_Comm_idup.
        let (id, req) = engine(func, |e| e.comm_idup_with_hints(c, hints))?;
        write_out(request, request_to(req));
        crate::ffi::call_record::idup(c, id, request_to(req));
        hand_out_dup(func, c, id, newcomm).map(|_| ())
    })();
    finish(comm, func, r)
} }

// ---- memory ----

/// `mpi_minimum_memory_alignment` (MPI 4.1) of an info argument, if it
/// names a power of two.
fn alignment_hint(info: c_int) -> Result<Option<usize>, MpiError> {
    let pairs = pairs_of(info)?;
    Ok(pairs
        .iter()
        .find(|(k, _)| k == "mpi_minimum_memory_alignment")
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .filter(|a| a.is_power_of_two()))
}

mpi_fn! { fn MPI_Alloc_mem(size: isize, info: c_int, baseptr: *mut c_void) {
    let func = "MPI_Alloc_mem";
    let r = (|| {
        let n = usize::try_from(size).map_err(|_| MpiError::Arg)?;
        let align = alignment_hint(info)?
            .unwrap_or(0)
            .max(std::mem::align_of::<libc::max_align_t>());
        let mut p: *mut c_void = std::ptr::null_mut();
        // At least one byte, so every call gives a distinct address.
        if libc::posix_memalign(&mut p, align, n.max(1)) != 0 {
            return Err(MpiError::NoMem);
        }
        write_out(baseptr as *mut *mut c_void, p);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Free_mem(base: *mut c_void) {
    // Memory from MPI_Alloc_mem (posix_memalign), or null.
    libc::free(base);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Info_create_env(_argc: c_int, _argv: *mut *mut c_char, info: *mut c_int) {
    // MPI 4.0: an info object with the environment MPI_INFO_ENV describes.
    let r = with_infos(|t| t.dup(InfoId::ENV));
    done("MPI_Info_create_env", r.map(|id| write_out(info, info_to(id))))
} }
