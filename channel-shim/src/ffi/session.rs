//! MPI 4.0's Sessions model in C: `MPI_Session_*`,
//! `MPI_Group_from_session_pset`, `MPI_Comm_create_from_group` and
//! `MPI_Intercomm_create_from_groups` (the rules are the engine's,
//! `shim_engine::session`).
//!
//! The first `MPI_Session_init` of a process (or `MPI_Init`, whichever
//! comes first) joins the job's simulated network; the process leaves it
//! when neither the world model nor a session is in use any more: at
//! `MPI_Finalize` when no session is open, at the last
//! `MPI_Session_finalize` after `MPI_Finalize`, or, for a program that
//! never called `MPI_Init`, when it exits (it may still call `MPI_Init`
//! after its sessions ended). Errors of session calls go to the session's
//! error handler; those of the creation calls to the handler they are
//! given, which the new communicator gets.

use crate::abi::*;
use crate::ffi::comm::create;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::{apply, create_errhandler, error_class, fail, HandlerFn};
use crate::ffi::handles::{comm_from, errhandler_from, errhandler_to, group_from};
use crate::ffi::info::{info_to, pairs_of, with_infos};
use crate::ffi::{write_c_string, write_out};
use crate::runtime;
use shim_engine::session::{session_thread_level, SessionId};
use shim_engine::{CommId, ErrhandlerId, MpiError};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// Sessions: MPICH's direct session handles, `0xb8000000 + n`
/// (`MPI_SESSION_NULL` is `0x38000000`).
const SESSION_BASE: u32 = 0xb800_0000;
const ID_MASK: u32 = 0x00ff_ffff;

/// The session a handle names.
pub fn session_from(h: c_int) -> Result<SessionId, MpiError> {
    let b = h as u32;
    if b & !ID_MASK == SESSION_BASE {
        Ok(SessionId(b & ID_MASK))
    } else {
        Err(MpiError::Session)
    }
}

/// The handle of a session.
pub fn session_to(s: SessionId) -> c_int {
    (SESSION_BASE | (s.0 & ID_MASK)) as c_int
}

/// Handles an error of `func` on `session` with the session's handler
/// (a handle that names no open session: `MPI_COMM_WORLD`'s).
fn session_fail(session: c_int, func: &str, e: MpiError) -> c_int {
    let action = session_from(session)
        .ok()
        .and_then(|s| runtime::with_engine(|eng| eng.session_error_handling(s)).flatten());
    match action {
        Some(a) => apply(a, session, func, error_class(e)),
        None => fail(MPI_COMM_WORLD, func, e),
    }
}

/// Turns a session call's result into its return code.
fn session_finish(session: c_int, func: &str, r: Result<(), MpiError>) -> c_int {
    match r {
        Ok(()) => MPI_SUCCESS,
        Err(e) => session_fail(session, func, e),
    }
}

/// Handles an error of a call given error handler `errhandler` (a
/// creation call): that handler's action, or `MPI_COMM_WORLD`'s when the
/// handle names none.
fn handler_finish(errhandler: c_int, func: &str, r: Result<(), MpiError>) -> c_int {
    let Err(e) = r else { return MPI_SUCCESS };
    let action = errhandler_from(errhandler)
        .ok()
        .and_then(|h| runtime::with_engine(|eng| eng.errhandler_action(h).ok()).flatten());
    match action {
        Some(a) => apply(a, MPI_COMM_SELF, func, error_class(e)),
        None => fail(MPI_COMM_WORLD, func, e),
    }
}

/// A string argument (null: `MPI_ERR_ARG`).
unsafe fn text<'a>(p: *const c_char) -> Result<&'a str, MpiError> {
    if p.is_null() {
        return Err(MpiError::Arg);
    }
    CStr::from_ptr(p).to_str().map_err(|_| MpiError::Arg)
}

/// Hands the program a new info object holding `pairs`.
unsafe fn hand_out_info(pairs: shim_engine::info::Pairs, out: *mut c_int) {
    let id = with_infos(|t| t.create_from(pairs));
    write_out(out, info_to(id));
}

mpi_fn! { fn MPI_Session_init(info: c_int, errhandler: c_int, session: *mut c_int) {
    let func = "MPI_Session_init";
    let r = (|| {
        let pairs = pairs_of(info)?;
        let h = errhandler_from(errhandler)?;
        let process = crate::ffi::init::THREAD_LEVEL.load(std::sync::atomic::Ordering::SeqCst);
        let level = session_thread_level(&pairs, process);
        if let Err(message) = crate::ffi::init::join_for_session(level) {
            runtime::fatal(&message);
        }
        let s = engine(func, |e| e.session_init(&pairs, h, level))?;
        write_out(session, session_to(s));
        Ok(())
    })();
    match r {
        Ok(()) => MPI_SUCCESS,
        Err(e) if runtime::with_engine(|_| ()).is_some() => handler_finish(errhandler, func, Err(e)),
        Err(e) => error_class(e),
    }
} }

mpi_fn! { fn MPI_Session_finalize(session: *mut c_int) {
    let func = "MPI_Session_finalize";
    if session.is_null() {
        return session_fail(MPI_SESSION_NULL, func, MpiError::Arg);
    }
    let handle = *session;
    let r = (|| {
        let s = session_from(handle)?;
        engine(func, |e| e.session_finalize(s))?;
        write_out(session, MPI_SESSION_NULL);
        Ok(())
    })();
    if r.is_ok() {
        runtime::session_finished();
        return MPI_SUCCESS;
    }
    session_finish(handle, func, r)
} }

mpi_fn! { fn MPI_Session_get_info(session: c_int, info_used: *mut c_int) {
    let r = (|| {
        let s = session_from(session)?;
        let pairs = engine("MPI_Session_get_info", |e| e.session_info(s))?;
        hand_out_info(pairs, info_used);
        Ok(())
    })();
    session_finish(session, "MPI_Session_get_info", r)
} }

mpi_fn! { fn MPI_Session_get_num_psets(session: c_int, info: c_int, npset_names: *mut c_int) {
    let r = (|| {
        let s = session_from(session)?;
        pairs_of(info)?;
        let n = engine("MPI_Session_get_num_psets", |e| e.session_num_psets(s))?;
        write_out(npset_names, n as c_int);
        Ok(())
    })();
    session_finish(session, "MPI_Session_get_num_psets", r)
} }

mpi_fn! { fn MPI_Session_get_nth_pset(session: c_int, info: c_int, n: c_int, pset_len: *mut c_int, pset_name: *mut c_char) {
    let r = (|| {
        let s = session_from(session)?;
        pairs_of(info)?;
        let n = usize::try_from(n).map_err(|_| MpiError::Arg)?;
        let name = engine("MPI_Session_get_nth_pset", |e| e.session_nth_pset(s, n))?;
        if pset_len.is_null() {
            return Err(MpiError::Arg);
        }
        // A length of 0 asks for the length (with the NUL); otherwise at
        // most that many bytes are written, NUL included, and the length
        // stays (as in MPICH).
        let cap = *pset_len;
        if cap > 0 {
            write_c_string(pset_name, cap as usize, name);
        } else {
            *pset_len = name.len() as c_int + 1;
        }
        Ok(())
    })();
    session_finish(session, "MPI_Session_get_nth_pset", r)
} }

mpi_fn! { fn MPI_Session_get_pset_info(session: c_int, pset_name: *const c_char, info: *mut c_int) {
    let r = (|| {
        let s = session_from(session)?;
        let name = text(pset_name)?;
        let pairs = engine("MPI_Session_get_pset_info", |e| e.session_pset_info(s, name))?;
        hand_out_info(pairs, info);
        Ok(())
    })();
    session_finish(session, "MPI_Session_get_pset_info", r)
} }

mpi_fn! { fn MPI_Group_from_session_pset(session: c_int, pset_name: *const c_char, newgroup: *mut c_int) {
    let r = (|| {
        let s = session_from(session)?;
        let name = text(pset_name)?;
        let g = engine("MPI_Group_from_session_pset", |e| e.group_from_session_pset(s, name))?;
        write_out(newgroup, crate::ffi::handles::group_to(g));
        Ok(())
    })();
    session_finish(session, "MPI_Group_from_session_pset", r)
} }

mpi_fn! { fn MPI_Session_set_errhandler(session: c_int, errhandler: c_int) {
    let r = (|| {
        let (s, h) = (session_from(session)?, errhandler_from(errhandler)?);
        engine("MPI_Session_set_errhandler", |e| e.session_set_errhandler(s, h))
    })();
    session_finish(session, "MPI_Session_set_errhandler", r)
} }

mpi_fn! { fn MPI_Session_get_errhandler(session: c_int, errhandler: *mut c_int) {
    let r = (|| {
        let s = session_from(session)?;
        let h = engine("MPI_Session_get_errhandler", |e| e.session_get_errhandler(s))?;
        write_out(errhandler, errhandler_to(h));
        Ok(())
    })();
    session_finish(session, "MPI_Session_get_errhandler", r)
} }

mpi_fn! { fn MPI_Session_create_errhandler(session_errhandler_fn: Option<HandlerFn>, errhandler: *mut c_int) {
    // A session handler is called as a communicator's is: (handle *, code *).
    create_errhandler("MPI_Session_create_errhandler", session_errhandler_fn, errhandler)
} }

mpi_fn! { fn MPI_Session_call_errhandler(session: c_int, errorcode: c_int) {
    let func = "MPI_Session_call_errhandler";
    match session_from(session).and_then(|s| {
        engine(func, |e| e.session_error_handling(s).ok_or(MpiError::Session))
    }) {
        Err(e) => session_fail(session, func, e),
        Ok(a) => {
            apply(a, session, func, errorcode);
            // MPI: success once the handler was called and returned.
            MPI_SUCCESS
        }
    }
} }

/// Gives the new communicator `id` the creation call's error handler.
fn attach_errhandler(func: &str, id: CommId, h: ErrhandlerId) -> Result<(), MpiError> {
    engine(func, |e| e.comm_set_errhandler(id, h))
}

mpi_fn! { fn MPI_Comm_create_from_group(group: c_int, stringtag: *const c_char, info: c_int, errhandler: c_int, newcomm: *mut c_int) {
    let func = "MPI_Comm_create_from_group";
    let r = (|| {
        let g = group_from(group)?;
        let tag = text(stringtag)?;
        pairs_of(info)?;
        let h = errhandler_from(errhandler)?;
        create(func, newcomm, |e| e.start_comm_create_from_group(g, tag))?;
        if let Ok(c) = comm_from(*newcomm) {
            attach_errhandler(func, c, h)?;
        }
        Ok(())
    })();
    handler_finish(errhandler, func, r)
} }

mpi_fn! { fn MPI_Intercomm_create_from_groups(local_group: c_int, local_leader: c_int, remote_group: c_int, remote_leader: c_int, stringtag: *const c_char, info: c_int, errhandler: c_int, newintercomm: *mut c_int) {
    let func = "MPI_Intercomm_create_from_groups";
    let r = (|| {
        let (lg, rg) = (group_from(local_group)?, group_from(remote_group)?);
        let ll = u32::try_from(local_leader).map_err(|_| MpiError::Rank)?;
        let rl = u32::try_from(remote_leader).map_err(|_| MpiError::Rank)?;
        let tag = text(stringtag)?;
        pairs_of(info)?;
        let h = errhandler_from(errhandler)?;
        // The local group's communicator, then the two groups joined.
        let mut local = MPI_COMM_NULL;
        create(func, &mut local, |e| e.start_comm_create_from_group(lg, tag))?;
        let local = comm_from(local)?;
        let joined = create(func, newintercomm, |e| {
            e.start_intercomm_from_groups(local, ll, rg, rl, tag)
        });
        engine(func, |e| e.comm_free(local))?;
        joined?;
        attach_errhandler(func, comm_from(*newintercomm)?, h)
    })();
    handler_finish(errhandler, func, r)
} }
