//! Communicators and groups: size and rank, dup/split/create/free/compare,
//! the group algebra, and communicator names.
//!
//! A new communicator inherits its parent's error handler (the engine sees
//! to it); `MPI_Comm_dup` also copies the parent's attributes and
//! `MPI_Comm_free` deletes them (see [`crate::ffi::attr`]).

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::{attr, write_c_string, write_out};
use shim_engine::{CommId, Comparison, GroupId, MpiError, Object};
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
unsafe fn hand_out_comm(id: Option<CommId>, newcomm: *mut c_int) {
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
        engine("MPI_Comm_test_inter", |e| e.comm_size(c))?;
        Ok(0)
    })
} }

mpi_fn! { fn MPI_Comm_compare(comm1: c_int, comm2: c_int, result: *mut c_int) {
    query("MPI_Comm_compare", comm1, result, || {
        let (a, b) = (comm_from(comm1)?, comm_from(comm2)?);
        Ok(comparison(engine("MPI_Comm_compare", |e| e.comm_compare(a, b))?))
    })
} }

/// `MPI_Comm_dup` of `c` and its attributes (their copy callbacks) and
/// hints. If a copy callback fails, the new communicator is freed again
/// and the program gets `MPI_COMM_NULL`.
///
/// # Safety
/// The attribute callbacks the program registered must be valid C functions.
pub unsafe fn dup_comm(func: &str, c: CommId, newcomm: *mut c_int) -> Result<CommId, MpiError> {
    let id = engine(func, |e| {
        let id = e.comm_dup(c)?;
        let hints = e.comm_hints(c)?;
        e.set_comm_hints(id, hints)?;
        Ok(id)
    })?;
    if let Err(err) = attr::copy_all(func, Object::Comm(c), Object::Comm(id)) {
        engine(func, |e| e.comm_free(id))?;
        write_out(newcomm, MPI_COMM_NULL);
        return Err(err);
    }
    hand_out_comm(Some(id), newcomm);
    Ok(id)
}

mpi_fn! { fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) {
    let func = "MPI_Comm_dup";
    let r = comm_from(comm).and_then(|c| dup_comm(func, c, newcomm).map(|_| ()));
    finish(comm, func, r)
} }

mpi_fn! { fn MPI_Comm_split(comm: c_int, color: c_int, key: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        // MPICH takes every colour but MPI_UNDEFINED, negative ones too.
        let color = (color != MPI_UNDEFINED).then_some(color);
        let id = engine("MPI_Comm_split", |e| e.comm_split(c, color, key))?;
        hand_out_comm(id, newcomm);
        Ok(())
    })();
    finish(comm, "MPI_Comm_split", r)
} }

mpi_fn! { fn MPI_Comm_create(comm: c_int, group: c_int, newcomm: *mut c_int) {
    let r = (|| {
        let (c, g) = (comm_from(comm)?, group_from(group)?);
        let id = engine("MPI_Comm_create", |e| e.comm_create(c, g))?;
        hand_out_comm(id, newcomm);
        Ok(())
    })();
    finish(comm, "MPI_Comm_create", r)
} }

mpi_fn! { fn MPI_Comm_free(comm: *mut c_int) {
    let func = "MPI_Comm_free";
    let h = *comm;
    let r = (|| {
        let c = comm_from(h)?;
        if c == CommId::WORLD || c == CommId::SELF {
            return Err(MpiError::Comm);
        }
        // A delete callback that fails leaves the communicator alive.
        attr::delete_all(func, Object::Comm(c))?;
        engine(func, |e| e.comm_free(c))?;
        write_out(comm, MPI_COMM_NULL);
        Ok(())
    })();
    finish(h, func, r)
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
