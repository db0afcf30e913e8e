//! Communicators and groups: size and rank, dup/idup/split/split_type/
//! create/create_group/free/compare, intercommunicators (create, merge,
//! remote size and group), the group algebra, and communicator names
//! (kept here, in the C layer).
//!
//! A new communicator inherits its parent's error handler; `MPI_Comm_dup`
//! and `MPI_Comm_idup` also copy the parent's attributes (see
//! [`crate::ffi::attr`]); `MPI_Comm_idup` hands out the new handle at once,
//! usable when its request completes.

use crate::abi::*;
use crate::ffi::collectives::Eng;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::{finish, forget_errhandler, inherit_errhandler};
use crate::ffi::handles::*;
use crate::ffi::multiple::{block_until, thread_multiple};
use crate::ffi::{attr, nbc, write_c_string, write_out};
use shim_engine::comm_create::SplitType;
use shim_engine::{CommId, Comparison, GroupId, MpiError, RequestId};
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::sync::Mutex;

/// Names set with MPI_Comm_set_name, per communicator handle.
static NAMES: Mutex<Option<HashMap<c_int, String>>> = Mutex::new(None);

fn with_names<R>(f: impl FnOnce(&mut HashMap<c_int, String>) -> R) -> R {
    let mut g = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// The MPI constant of a comparison result.
fn comparison(c: Comparison) -> c_int {
    match c {
        Comparison::Ident => MPI_IDENT,
        Comparison::Congruent => MPI_CONGRUENT,
        Comparison::Similar => MPI_SIMILAR,
        Comparison::Unequal => MPI_UNEQUAL,
    }
}

/// Runs `f` and writes the `c_int` it yields to `out`; errors go to `comm`'s
/// error handler.
unsafe fn query(
    func: &str,
    comm: c_int,
    out: *mut c_int,
    f: impl FnOnce() -> Result<c_int, MpiError>,
) -> c_int {
    let r = f().map(|v| write_out(out, v));
    finish(comm, func, r)
}

/// Hands a new communicator (or `MPI_COMM_NULL`) to the program; it
/// inherits `parent`'s error handler.
unsafe fn hand_out_comm(parent: c_int, id: Option<CommId>, newcomm: *mut c_int) {
    let Some(id) = id else {
        write_out(newcomm, MPI_COMM_NULL);
        return;
    };
    let h = comm_to(id);
    inherit_errhandler(parent, h);
    with_names(|m| m.remove(&h));
    write_out(newcomm, h);
}

mpi_fn! { fn MPI_Comm_rank(comm: c_int, rank: *mut c_int) {
    query("MPI_Comm_rank", comm, rank, || {
        let c = comm_from(comm)?;
        Ok(engine("MPI_Comm_rank", |e| e.comm_rank(c))? as c_int)
    })
} }

mpi_fn! { fn MPI_Comm_size(comm: c_int, size: *mut c_int) {
    query("MPI_Comm_size", comm, size, || {
        let c = comm_from(comm)?;
        Ok(engine("MPI_Comm_size", |e| e.comm_size(c))? as c_int)
    })
} }

mpi_fn! { fn MPI_Comm_test_inter(comm: c_int, flag: *mut c_int) {
    query("MPI_Comm_test_inter", comm, flag, || {
        let c = comm_from(comm)?;
        Ok(engine("MPI_Comm_test_inter", |e| e.comm_test_inter(c))? as c_int)
    })
} }

mpi_fn! { fn MPI_Comm_remote_size(comm: c_int, size: *mut c_int) {
    query("MPI_Comm_remote_size", comm, size, || {
        let c = comm_from(comm)?;
        Ok(engine("MPI_Comm_remote_size", |e| e.comm_remote_size(c))? as c_int)
    })
} }

mpi_fn! { fn MPI_Comm_remote_group(comm: c_int, group: *mut c_int) {
    query("MPI_Comm_remote_group", comm, group, || {
        let c = comm_from(comm)?;
        Ok(group_to(engine("MPI_Comm_remote_group", |e| e.comm_remote_group(c))?))
    })
} }

mpi_fn! { fn MPI_Comm_compare(comm1: c_int, comm2: c_int, result: *mut c_int) {
    query("MPI_Comm_compare", comm1, result, || {
        let (a, b) = (comm_from(comm1)?, comm_from(comm2)?);
        Ok(comparison(engine("MPI_Comm_compare", |e| e.comm_compare(a, b))?))
    })
} }

/// Runs a call that creates a communicator from `parent`: `start` starts
/// the engine's task, which is waited for (without the engine lock under
/// `MPI_THREAD_MULTIPLE`); the result goes to `newcomm`.
unsafe fn create(
    func: &str,
    parent: c_int,
    newcomm: *mut c_int,
    start: impl FnOnce(&mut Eng) -> Result<RequestId, MpiError>,
) -> Result<(), MpiError> {
    let id = engine(func, start)?;
    if thread_multiple() {
        block_until(func, |e| Ok(e.testall_done(&[Some(id)])?.then_some(())))?;
    }
    let c = engine(func, |e| e.wait_comm(id))?;
    hand_out_comm(parent, c, newcomm);
    Ok(())
}

mpi_fn! { fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        create("MPI_Comm_dup", comm, newcomm, |e| e.start_comm_dup(c))
    })();
    if r.is_ok() {
        let code = attr::copy_on_dup(comm, *newcomm);
        if code != MPI_SUCCESS {
            return code;
        }
    }
    finish(comm, "MPI_Comm_dup", r)
} }

mpi_fn! { fn MPI_Comm_idup(comm: c_int, newcomm: *mut c_int, request: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        let (id, req) = engine("MPI_Comm_idup", |e| e.comm_idup(c))?;
        hand_out_comm(comm, Some(id), newcomm);
        nbc::register(req, comm, nbc::nothing());
        write_out(request, request_to(req));
        Ok(())
    })();
    if r.is_ok() {
        let code = attr::copy_on_dup(comm, *newcomm);
        if code != MPI_SUCCESS {
            return code;
        }
    }
    finish(comm, "MPI_Comm_idup", r)
} }

mpi_fn! { fn MPI_Comm_split(comm: c_int, color: c_int, key: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        // MPICH takes every colour but MPI_UNDEFINED, negative ones too.
        let color = (color != MPI_UNDEFINED).then_some(color);
        create("MPI_Comm_split", comm, newcomm, |e| e.start_comm_split(c, color, key))
    })();
    finish(comm, "MPI_Comm_split", r)
} }

mpi_fn! { fn MPI_Comm_split_type(comm: c_int, split_type: c_int, key: c_int, _info: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        // The emulated machine has one level: its nodes. Hardware-guided
        // splits below it (MPI 4.0) and MPICH's neighbourhoods give
        // MPI_COMM_NULL, as the standard allows.
        let kind = match split_type {
            MPI_COMM_TYPE_SHARED => SplitType::Shared,
            MPI_UNDEFINED | MPI_COMM_TYPE_HW_GUIDED | MPI_COMM_TYPE_HW_UNGUIDED
            | MPIX_COMM_TYPE_NEIGHBORHOOD => SplitType::Undefined,
            _ => return Err(MpiError::Arg),
        };
        create("MPI_Comm_split_type", comm, newcomm, |e| e.start_comm_split_type(c, kind, key))
    })();
    finish(comm, "MPI_Comm_split_type", r)
} }

mpi_fn! { fn MPI_Comm_create(comm: c_int, group: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let (c, g) = (comm_from(comm)?, group_from(group)?);
        create("MPI_Comm_create", comm, newcomm, |e| e.start_comm_create(c, g))
    })();
    finish(comm, "MPI_Comm_create", r)
} }

mpi_fn! { fn MPI_Comm_create_group(comm: c_int, group: c_int, tag: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let (c, g) = (comm_from(comm)?, group_from(group)?);
        create("MPI_Comm_create_group", comm, newcomm, |e| e.start_comm_create_group(c, g, tag))
    })();
    finish(comm, "MPI_Comm_create_group", r)
} }

mpi_fn! { fn MPI_Intercomm_create(local_comm: c_int, local_leader: c_int, peer_comm: c_int, remote_leader: c_int, tag: c_int, newintercomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(local_comm)?;
        let ll = u32::try_from(local_leader).map_err(|_| MpiError::Rank)?;
        // The peer communicator and the remote leader matter at the local leader only.
        let leads = engine("MPI_Intercomm_create", |e| Ok(e.comm_rank(c)? == ll))?;
        let (p, rl) = if leads {
            (comm_from(peer_comm)?, u32::try_from(remote_leader).map_err(|_| MpiError::Rank)?)
        } else {
            (c, 0)
        };
        create("MPI_Intercomm_create", local_comm, newintercomm, |e| {
            e.start_intercomm_create(c, ll, p, rl, tag)
        })
    })();
    finish(local_comm, "MPI_Intercomm_create", r)
} }

mpi_fn! { fn MPI_Intercomm_merge(intercomm: c_int, high: c_int, newintracomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(intercomm)?;
        create("MPI_Intercomm_merge", intercomm, newintracomm, |e| e.start_intercomm_merge(c, high != 0))
    })();
    finish(intercomm, "MPI_Intercomm_merge", r)
} }

mpi_fn! { fn MPI_Comm_free(comm: *mut c_int) {
    let h = *comm;
    let r = (|| {
        let c = comm_from(h)?;
        if c == CommId::WORLD || c == CommId::SELF {
            return Err(MpiError::Comm);
        }
        engine("MPI_Comm_free", |e| e.comm_size(c))?;
        let code = attr::delete_all(h);
        if code != MPI_SUCCESS {
            return Err(MpiError::Other);
        }
        engine("MPI_Comm_free", |e| e.comm_free(c))?;
        with_names(|m| m.remove(&h));
        forget_errhandler(h);
        write_out(comm, MPI_COMM_NULL);
        Ok(())
    })();
    finish(h, "MPI_Comm_free", r)
} }

mpi_fn! { fn MPI_Comm_group(comm: c_int, group: *mut c_int) {
    query("MPI_Comm_group", comm, group, || {
        let c = comm_from(comm)?;
        Ok(group_to(engine("MPI_Comm_group", |e| e.comm_group(c))?))
    })
} }

mpi_fn! { fn MPI_Comm_set_name(comm: c_int, comm_name: *const c_char) {
    let r = (|| {
        let c = comm_from(comm)?;
        engine("MPI_Comm_set_name", |e| e.comm_size(c))?;
        if comm_name.is_null() {
            return Err(MpiError::Arg);
        }
        let mut name = CStr::from_ptr(comm_name).to_string_lossy().into_owned();
        let max = MPI_MAX_OBJECT_NAME as usize - 1;
        while name.len() > max {
            name.pop();
        }
        with_names(|m| m.insert(comm, name));
        Ok(())
    })();
    finish(comm, "MPI_Comm_set_name", r)
} }

mpi_fn! { fn MPI_Comm_get_name(comm: c_int, comm_name: *mut c_char, resultlen: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        engine("MPI_Comm_get_name", |e| e.comm_size(c))?;
        let name = with_names(|m| m.get(&comm).cloned()).unwrap_or_else(|| match comm {
            MPI_COMM_WORLD => "MPI_COMM_WORLD".into(),
            MPI_COMM_SELF => "MPI_COMM_SELF".into(),
            _ => String::new(),
        });
        let n = write_c_string(comm_name, MPI_MAX_OBJECT_NAME as usize, &name);
        write_out(resultlen, n as c_int);
        Ok(())
    })();
    finish(comm, "MPI_Comm_get_name", r)
} }

// ---- groups ----

/// Errors of group calls go to MPI_COMM_WORLD's handler.
unsafe fn group_query(
    func: &str,
    out: *mut c_int,
    f: impl FnOnce() -> Result<c_int, MpiError>,
) -> c_int {
    query(func, MPI_COMM_WORLD, out, f)
}

/// `n` ranks from a C array (negative ranks are invalid).
unsafe fn rank_list(n: c_int, ranks: *const c_int) -> Result<Vec<u32>, MpiError> {
    let n = usize::try_from(n).map_err(|_| MpiError::Arg)?;
    if n > 0 && ranks.is_null() {
        return Err(MpiError::Arg);
    }
    (0..n)
        .map(|i| u32::try_from(*ranks.add(i)).map_err(|_| MpiError::Rank))
        .collect()
}

/// `n` (first, last, stride) triplets from a C `int ranges[][3]`.
unsafe fn range_list(
    n: c_int,
    ranges: *const [c_int; 3],
) -> Result<Vec<(i32, i32, i32)>, MpiError> {
    let n = usize::try_from(n).map_err(|_| MpiError::Arg)?;
    if n > 0 && ranges.is_null() {
        return Err(MpiError::Arg);
    }
    Ok((0..n)
        .map(|i| {
            let t = *ranges.add(i);
            (t[0], t[1], t[2])
        })
        .collect())
}

mpi_fn! { fn MPI_Group_size(group: c_int, size: *mut c_int) {
    group_query("MPI_Group_size", size, || {
        let g = group_from(group)?;
        Ok(engine("MPI_Group_size", |e| e.group_size(g))? as c_int)
    })
} }

mpi_fn! { fn MPI_Group_rank(group: c_int, rank: *mut c_int) {
    group_query("MPI_Group_rank", rank, || {
        let g = group_from(group)?;
        let r = engine("MPI_Group_rank", |e| e.group_rank(g))?;
        Ok(r.map_or(MPI_UNDEFINED, |r| r as c_int))
    })
} }

mpi_fn! { fn MPI_Group_incl(group: c_int, n: c_int, ranks: *const c_int, newgroup: *mut c_int) {
    group_query("MPI_Group_incl", newgroup, || {
        let (g, r) = (group_from(group)?, rank_list(n, ranks)?);
        Ok(group_to(engine("MPI_Group_incl", |e| e.group_incl(g, &r))?))
    })
} }

mpi_fn! { fn MPI_Group_excl(group: c_int, n: c_int, ranks: *const c_int, newgroup: *mut c_int) {
    group_query("MPI_Group_excl", newgroup, || {
        let (g, r) = (group_from(group)?, rank_list(n, ranks)?);
        Ok(group_to(engine("MPI_Group_excl", |e| e.group_excl(g, &r))?))
    })
} }

mpi_fn! { fn MPI_Group_range_incl(group: c_int, n: c_int, ranges: *const [c_int; 3], newgroup: *mut c_int) {
    group_query("MPI_Group_range_incl", newgroup, || {
        let (g, r) = (group_from(group)?, range_list(n, ranges)?);
        Ok(group_to(engine("MPI_Group_range_incl", |e| e.group_range_incl(g, &r))?))
    })
} }

mpi_fn! { fn MPI_Group_range_excl(group: c_int, n: c_int, ranges: *const [c_int; 3], newgroup: *mut c_int) {
    group_query("MPI_Group_range_excl", newgroup, || {
        let (g, r) = (group_from(group)?, range_list(n, ranges)?);
        Ok(group_to(engine("MPI_Group_range_excl", |e| e.group_range_excl(g, &r))?))
    })
} }

/// A group made from two others.
unsafe fn group_pair(
    func: &str,
    a: c_int,
    b: c_int,
    out: *mut c_int,
    f: impl FnOnce(&mut crate::ffi::collectives::Eng, GroupId, GroupId) -> Result<GroupId, MpiError>,
) -> c_int {
    group_query(func, out, || {
        let (a, b) = (group_from(a)?, group_from(b)?);
        Ok(group_to(engine(func, |e| f(e, a, b))?))
    })
}

mpi_fn! { fn MPI_Group_union(group1: c_int, group2: c_int, newgroup: *mut c_int) {
    group_pair("MPI_Group_union", group1, group2, newgroup, |e, a, b| e.group_union(a, b))
} }

mpi_fn! { fn MPI_Group_intersection(group1: c_int, group2: c_int, newgroup: *mut c_int) {
    group_pair("MPI_Group_intersection", group1, group2, newgroup, |e, a, b| e.group_intersection(a, b))
} }

mpi_fn! { fn MPI_Group_difference(group1: c_int, group2: c_int, newgroup: *mut c_int) {
    group_pair("MPI_Group_difference", group1, group2, newgroup, |e, a, b| e.group_difference(a, b))
} }

mpi_fn! { fn MPI_Group_compare(group1: c_int, group2: c_int, result: *mut c_int) {
    group_query("MPI_Group_compare", result, || {
        let (a, b) = (group_from(group1)?, group_from(group2)?);
        Ok(comparison(engine("MPI_Group_compare", |e| e.group_compare(a, b))?))
    })
} }

mpi_fn! { fn MPI_Group_translate_ranks(group1: c_int, n: c_int, ranks1: *const c_int, group2: c_int, ranks2: *mut c_int) {
    let r = (|| {
        let (a, b) = (group_from(group1)?, group_from(group2)?);
        let n = usize::try_from(n).map_err(|_| MpiError::Arg)?;
        let given: Vec<c_int> = (0..n).map(|i| *ranks1.add(i)).collect();
        // MPI_PROC_NULL translates to itself; the engine sees the others.
        let real: Vec<u32> = given
            .iter()
            .filter(|&&r| r != MPI_PROC_NULL)
            .map(|&r| u32::try_from(r).map_err(|_| MpiError::Rank))
            .collect::<Result<_, _>>()?;
        let got = engine("MPI_Group_translate_ranks", |e| e.group_translate_ranks(a, &real, b))?;
        let mut got = got.into_iter();
        for (i, &r) in given.iter().enumerate() {
            let v = if r == MPI_PROC_NULL {
                MPI_PROC_NULL
            } else {
                got.next().flatten().map_or(MPI_UNDEFINED, |x| x as c_int)
            };
            write_out(ranks2.add(i), v);
        }
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Group_translate_ranks", r)
} }

mpi_fn! { fn MPI_Group_free(group: *mut c_int) {
    let r = (|| {
        let g = group_from(*group)?;
        engine("MPI_Group_free", |e| e.group_free(g))?;
        write_out(group, MPI_GROUP_NULL);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Group_free", r)
} }
