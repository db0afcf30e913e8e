//! Communicators and groups: size and rank, dup/idup/split/split_type/
//! create/create_group/free/compare, intercommunicators (create, merge,
//! remote size and group), the group algebra, and communicator names.
//!
//! A new communicator inherits its parent's error handler (the engine sees
//! to it); `MPI_Comm_dup` and `MPI_Comm_idup` also copy the parent's
//! attributes and `MPI_Comm_free` deletes them (see [`crate::ffi::attr`]).
//! `MPI_Comm_idup` hands out the new handle at once, usable when its
//! request completes.

use crate::abi::*;
use crate::ffi::collectives::Eng;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::multiple::{block_until, thread_multiple};
use crate::ffi::{attr, write_c_string, write_out};
use shim_engine::comm_create::SplitType;
use shim_engine::{CommId, Comparison, GroupId, MpiError, Object, RequestId};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

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

/// Hands a new communicator (or `MPI_COMM_NULL`) to the program.
pub(crate) unsafe fn hand_out_comm(id: Option<CommId>, newcomm: *mut c_int) {
    write_out(newcomm, id.map_or(MPI_COMM_NULL, comm_to));
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

/// Waits for the task of a call that creates a communicator (without the
/// engine lock under `MPI_THREAD_MULTIPLE`): the new communicator, or
/// `None` (`MPI_COMM_NULL`).
fn wait_comm(func: &str, id: RequestId) -> Result<Option<CommId>, MpiError> {
    if thread_multiple() {
        block_until(func, |e| Ok(e.testall_done(&[Some(id)])?.then_some(())))?;
    }
    engine(func, |e| e.wait_comm(id))
}

/// Runs a call that creates a communicator: `start` starts the engine's
/// task; the result goes to `newcomm`.
pub(crate) unsafe fn create(
    func: &str,
    newcomm: *mut c_int,
    start: impl FnOnce(&mut Eng) -> Result<RequestId, MpiError>,
) -> Result<(), MpiError> {
    let id = engine(func, start)?;
    hand_out_comm(wait_comm(func, id)?, newcomm);
    Ok(())
}

/// Copies `c`'s attributes to its duplicate `id` (the engine copied its
/// hints) and hands `id` out; if a copy callback fails, the duplicate is
/// freed again and the program gets `MPI_COMM_NULL`.
pub(crate) unsafe fn hand_out_dup(
    func: &str,
    c: CommId,
    id: CommId,
    newcomm: *mut c_int,
) -> Result<CommId, MpiError> {
    if let Err(err) = attr::copy_all(func, Object::Comm(c), Object::Comm(id)) {
        engine(func, |e| e.comm_free(id))?;
        write_out(newcomm, MPI_COMM_NULL);
        return Err(err);
    }
    hand_out_comm(Some(id), newcomm);
    Ok(id)
}

/// `MPI_Comm_dup` of `c` and its attributes (their copy callbacks) and
/// hints. If a copy callback fails, the new communicator is freed again
/// and the program gets `MPI_COMM_NULL`.
///
/// # Safety
/// The attribute callbacks the program registered must be valid C functions.
pub unsafe fn dup_comm(func: &str, c: CommId, newcomm: *mut c_int) -> Result<CommId, MpiError> {
    let req = engine(func, |e| e.start_comm_dup(c))?;
    let id = wait_comm(func, req)?.ok_or(MpiError::Other)?;
    hand_out_dup(func, c, id, newcomm)
}

mpi_fn! { fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) {
    let func = "MPI_Comm_dup";
    let r = comm_from(comm).and_then(|c| {
        dup_comm(func, c, newcomm)?;
        if let Ok(new) = comm_from(*newcomm) {
            crate::ffi::call_record::dup(c, new);
        }
        Ok(())
    });
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_idup(comm: c_int, newcomm: *mut c_int, request: *mut c_int) {
    let func = "MPI_Comm_idup";
    let r = (|| {
        let c = comm_from(comm)?;
        let (id, req) = engine(func, |e| e.comm_idup(c))?;
        write_out(request, request_to(req));
        crate::ffi::call_record::idup(c, id, request_to(req));
        hand_out_dup(func, c, id, newcomm).map(|_| ())
    })();
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_split(comm: c_int, color: c_int, key: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        // MPICH takes every colour but MPI_UNDEFINED, negative ones too.
        let colour = (color != MPI_UNDEFINED).then_some(color);
        let r = create("MPI_Comm_split", newcomm, |e| e.start_comm_split(c, colour, key));
        if r.is_ok() {
            crate::ffi::call_record::split(c, color, key, comm_from(*newcomm).ok());
        }
        r
    })();
    finish(comm, "MPI_Comm_split", r)
} }

/// The colour standing for the `nbhd_common_dirname` hint of `info` (a
/// hash of the name as given), if it has one.
fn common_directory(info: c_int) -> Result<Option<i32>, MpiError> {
    let pairs = crate::ffi::info::pairs_of(info)?;
    Ok(pairs
        .iter()
        .find(|(k, _)| k == "nbhd_common_dirname")
        .map(|(_, v)| {
            // FNV-1a, folded to a non-negative colour.
            let h = v.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            (h & 0x7fff_ffff) as i32
        }))
}

mpi_fn! { fn MPI_Comm_split_type(comm: c_int, split_type: c_int, key: c_int, _info: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        // The emulated machine has one level: its nodes. Hardware-guided
        // splits below it (MPI 4.0) give MPI_COMM_NULL, as the standard
        // allows. MPICH's neighbourhoods: with `nbhd_common_dirname`, the
        // ranks sharing that directory — every rank, since the emulated
        // nodes share one file system — if all name the same one (else
        // none); network levels (`network_topo`) and other hints give
        // MPI_COMM_NULL.
        let kind = match split_type {
            MPI_COMM_TYPE_SHARED => SplitType::Shared,
            MPIX_COMM_TYPE_NEIGHBORHOOD => match common_directory(_info)? {
                Some(colour) => SplitType::Unanimous(colour),
                None => SplitType::Undefined,
            },
            MPI_UNDEFINED | MPI_COMM_TYPE_HW_GUIDED | MPI_COMM_TYPE_HW_UNGUIDED => {
                SplitType::Undefined
            }
            _ => return Err(MpiError::Arg),
        };
        let r = create("MPI_Comm_split_type", newcomm, |e| e.start_comm_split_type(c, kind, key));
        if r.is_ok() {
            let args = match kind {
                SplitType::Shared => vec![0, 0, key],
                SplitType::Undefined => vec![1, 0, key],
                SplitType::Unanimous(colour) => vec![2, colour, key],
            };
            let new = comm_from(*newcomm).ok();
            crate::ffi::call_record::comm_made(mpinetsim_protocol::trace_calls::COMM_MAKE_SPLIT_TYPE, c, args, new);
        }
        r
    })();
    finish(comm, "MPI_Comm_split_type", r)
} }

mpi_fn! { fn MPI_Comm_create(comm: c_int, group: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let (c, g) = (comm_from(comm)?, group_from(group)?);
        let members = engine("MPI_Comm_create", |e| Ok(e.group(g)?.ranks.clone()))?;
        let r = create("MPI_Comm_create", newcomm, |e| e.start_comm_create(c, g));
        if r.is_ok() {
            let args = members.iter().map(|&w| w as i32).collect();
            let new = comm_from(*newcomm).ok();
            crate::ffi::call_record::comm_made(mpinetsim_protocol::trace_calls::COMM_MAKE_FROM_GROUP, c, args, new);
        }
        r
    })();
    finish(comm, "MPI_Comm_create", r)
} }

mpi_fn! { fn MPI_Comm_create_group(comm: c_int, group: c_int, tag: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let (c, g) = (comm_from(comm)?, group_from(group)?);
        let members = engine("MPI_Comm_create_group", |e| Ok(e.group(g)?.ranks.clone()))?;
        let r = create("MPI_Comm_create_group", newcomm, |e| e.start_comm_create_group(c, g, tag));
        if r.is_ok() {
            let args = std::iter::once(tag).chain(members.iter().map(|&w| w as i32)).collect();
            let new = comm_from(*newcomm).ok();
            crate::ffi::call_record::comm_made(mpinetsim_protocol::trace_calls::COMM_MAKE_FROM_GROUP_TAGGED, c, args, new);
        }
        r
    })();
    finish(comm, "MPI_Comm_create_group", r)
} }

mpi_fn! { fn MPI_Intercomm_create(local_comm: c_int, local_leader: c_int, peer_comm: c_int, remote_leader: c_int, tag: c_int, newintercomm: *mut c_int) {
    let func = "MPI_Intercomm_create";
    let r = (|| {
        let c = comm_from(local_comm)?;
        let ll = u32::try_from(local_leader).map_err(|_| MpiError::Rank)?;
        // The peer communicator and the remote leader matter at the local leader only.
        let leads = engine(func, |e| Ok(e.comm_rank(c)? == ll))?;
        let (p, rl) = if leads {
            (comm_from(peer_comm)?, u32::try_from(remote_leader).map_err(|_| MpiError::Rank)?)
        } else {
            (c, 0)
        };
        create(func, newintercomm, |e| e.start_intercomm_create(c, ll, p, rl, tag))
    })();
    finish(local_comm, func, r)
} }

mpi_fn! { fn MPI_Intercomm_merge(intercomm: c_int, high: c_int, newintracomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(intercomm)?;
        create("MPI_Intercomm_merge", newintracomm, |e| e.start_intercomm_merge(c, high != 0))
    })();
    finish(intercomm, "MPI_Intercomm_merge", r)
} }

/// `MPI_Comm_free` and `MPI_Comm_disconnect`: runs the delete callbacks
/// (one that fails leaves the communicator alive), lets the engine `end`
/// the communicator and sets the handle to `MPI_COMM_NULL`.
unsafe fn end_comm(
    func: &str,
    comm: *mut c_int,
    end: impl FnOnce(&mut crate::ffi::p2p::Eng, CommId) -> Result<(), MpiError>,
) -> c_int {
    let h = *comm;
    let r = (|| {
        let c = comm_from(h)?;
        if c == CommId::WORLD || c == CommId::SELF {
            return Err(MpiError::Comm);
        }
        attr::delete_all(func, Object::Comm(c))?;
        engine(func, |e| end(e, c))?;
        write_out(comm, MPI_COMM_NULL);
        Ok(())
    })();
    finish(h, func, r)
}

mpi_fn! { fn MPI_Comm_disconnect(comm: *mut c_int) {
    end_comm("MPI_Comm_disconnect", comm, |e, c| e.comm_disconnect(c))
} }

mpi_fn! { fn MPI_Comm_free(comm: *mut c_int) {
    end_comm("MPI_Comm_free", comm, |e, c| {
        e.comm_free(c)?;
        crate::ffi::call_record::comm_free(c);
        Ok(())
    })
} }

mpi_fn! { fn MPI_Comm_group(comm: c_int, group: *mut c_int) {
    query("MPI_Comm_group", comm, group, || {
        let c = comm_from(comm)?;
        Ok(group_to(engine("MPI_Comm_group", |e| e.comm_group(c))?))
    })
} }

/// Names `object` (`MPI_Comm_set_name`, `MPI_Type_set_name`).
///
/// # Safety
/// `name` must be null or a NUL-terminated string.
pub unsafe fn set_name(func: &str, object: Object, name: *const c_char) -> Result<(), MpiError> {
    if name.is_null() {
        return Err(MpiError::Arg);
    }
    let name = CStr::from_ptr(name).to_string_lossy();
    engine(func, |e| e.set_name(object, &name))
}

/// Writes the name of `object` (`MPI_Comm_get_name`, `MPI_Type_get_name`).
///
/// # Safety
/// `name` must be valid for `MPI_MAX_OBJECT_NAME` bytes, `resultlen` for an `int`.
pub unsafe fn get_name(
    func: &str,
    object: Object,
    name: *mut c_char,
    resultlen: *mut c_int,
) -> Result<(), MpiError> {
    let text = engine(func, |e| e.name(object))?;
    let n = write_c_string(name, MPI_MAX_OBJECT_NAME as usize, &text);
    write_out(resultlen, n as c_int);
    Ok(())
}

mpi_fn! { fn MPI_Comm_set_name(comm: c_int, comm_name: *const c_char) {
    let func = "MPI_Comm_set_name";
    let r = comm_from(comm).and_then(|c| set_name(func, Object::Comm(c), comm_name));
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_get_name(comm: c_int, comm_name: *mut c_char, resultlen: *mut c_int) {
    let func = "MPI_Comm_get_name";
    let r = comm_from(comm).and_then(|c| get_name(func, Object::Comm(c), comm_name, resultlen));
    finish(comm, func, r)
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
