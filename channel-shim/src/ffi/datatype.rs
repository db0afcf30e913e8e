//! Derived datatypes (constructors, commit, dup, free), their sizes and
//! bounds, names and attributes, addresses, and MPI_Pack / MPI_Unpack.

use crate::abi::*;
use crate::ffi::buffers::{region, region_mut};
use crate::ffi::comm::{get_name, set_name};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::large_count::{count_array, wide_array, CInt, COut, CountT, DisplT};
use crate::ffi::{attr, write_out};
use shim_engine::datatype::Datatypes;
use shim_engine::{DatatypeId, MpiError, Object};
use std::os::raw::{c_char, c_int, c_void};

/// `MPI_Aint`.
pub type Aint = isize;
/// `MPI_Count`.
pub type Count = i64;

type R = Result<(), MpiError>;

/// Runs a constructor on the datatype table and hands out the new type.
///
/// # Safety
/// `newtype` must be null or valid for writing an `int`.
pub(crate) unsafe fn make(
    func: &str,
    newtype: *mut c_int,
    f: impl FnOnce(&mut Datatypes) -> Result<DatatypeId, MpiError>,
) -> c_int {
    let r = engine(func, |e| f(e.datatypes_mut())).map(|id| write_out(newtype, datatype_to(id)));
    finish(MPI_COMM_WORLD, func, r)
}

/// [`make`] for a constructor whose counts are of type `C`: the `_c`
/// variant (`C` = `MPI_Count`) records that a large-count constructor
/// made the type (see `MPI_Type_get_envelope_c`).
///
/// # Safety
/// `newtype` must be null or valid for writing an `int`.
pub(crate) unsafe fn make_c<C: CInt>(
    func: &str,
    newtype: *mut c_int,
    f: impl FnOnce(&mut Datatypes) -> Result<DatatypeId, MpiError>,
) -> c_int {
    make(func, newtype, |t| {
        let id = f(t)?;
        if C::LARGE {
            t.mark_large_count(id)?;
        }
        Ok(id)
    })
}

/// Runs a query on the datatype table (the one lent to a user reduction
/// function when called from inside one).
pub(crate) fn query(func: &str, f: impl FnOnce(&Datatypes) -> R) -> c_int {
    let r = if crate::ffi::op::types_lent() {
        crate::ffi::op::with_lent_types(f).unwrap_or(Err(MpiError::Other))
    } else {
        engine(func, |e| f(e.datatypes()))
    };
    finish(MPI_COMM_WORLD, func, r)
}

/// A pack buffer size or position (negative: `MPI_ERR_ARG`, as MPICH).
fn len_from(n: impl CInt) -> Result<usize, MpiError> {
    usize::try_from(n.wide()).map_err(|_| MpiError::Arg)
}

/// `n` block lengths from a C array (negative: `MPI_ERR_COUNT`, as MPICH).
unsafe fn lens<T: CInt>(n: usize, p: *const T) -> Result<Vec<usize>, MpiError> {
    if n > 0 && p.is_null() {
        return Err(MpiError::Arg);
    }
    count_array(n, p)
}

/// `n` displacements from a C array (`int`, `MPI_Aint` or `MPI_Count`).
unsafe fn ints<T: CInt>(n: usize, p: *const T) -> Result<Vec<i64>, MpiError> {
    wide_array(n, p, MpiError::Arg)
}

mpi_fn! { fn MPI_Type_contiguous / c (count: CountT, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_contiguous", newtype, |t| t.contiguous(count_from(count)?, datatype_from(oldtype)?))
} }

mpi_fn! { fn MPI_Type_vector / c (count: CountT, blocklength: CountT, stride: DisplT, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_vector", newtype, |t| {
        t.vector(count_from(count)?, count_from(blocklength)?, stride.wide(), datatype_from(oldtype)?)
    })
} }

unsafe fn hvector<C: CInt>(
    func: &str,
    count: C,
    blocklength: C,
    stride: Aint,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    make_c::<C>(func, newtype, |t| {
        t.hvector(
            count_from(count)?,
            count_from(blocklength)?,
            stride as i64,
            datatype_from(oldtype)?,
        )
    })
}

mpi_fn! { fn MPI_Type_create_hvector / c (count: CountT, blocklength: CountT, stride: Aint, oldtype: c_int, newtype: *mut c_int) {
    hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype)
} }

mpi_fn! { fn MPI_Type_hvector(count: c_int, blocklength: c_int, stride: Aint, oldtype: c_int, newtype: *mut c_int) {
    hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype)
} }

mpi_fn! { fn MPI_Type_indexed / c (count: CountT, array_of_blocklengths: *const CountT, array_of_displacements: *const DisplT, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_indexed", newtype, |t| {
        let n = count_from(count)?;
        t.indexed(&lens(n, array_of_blocklengths)?, &ints(n, array_of_displacements)?, datatype_from(oldtype)?)
    })
} }

unsafe fn hindexed<C: CInt>(
    func: &str,
    count: C,
    blocklengths: *const C,
    displacements: *const Aint,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    make_c::<C>(func, newtype, |t| {
        let n = count_from(count)?;
        t.hindexed(
            &lens(n, blocklengths)?,
            &ints(n, displacements)?,
            datatype_from(oldtype)?,
        )
    })
}

mpi_fn! { fn MPI_Type_create_hindexed / c (count: CountT, array_of_blocklengths: *const CountT, array_of_displacements: *const Aint, oldtype: c_int, newtype: *mut c_int) {
    hindexed("MPI_Type_create_hindexed", count, array_of_blocklengths, array_of_displacements, oldtype, newtype)
} }

mpi_fn! { fn MPI_Type_hindexed(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const Aint, oldtype: c_int, newtype: *mut c_int) {
    hindexed("MPI_Type_hindexed", count, array_of_blocklengths, array_of_displacements, oldtype, newtype)
} }

mpi_fn! { fn MPI_Type_create_indexed_block / c (count: CountT, blocklength: CountT, array_of_displacements: *const DisplT, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_create_indexed_block", newtype, |t| {
        let n = count_from(count)?;
        t.indexed_block(count_from(blocklength)?, &ints(n, array_of_displacements)?, datatype_from(oldtype)?)
    })
} }

mpi_fn! { fn MPI_Type_create_hindexed_block / c (count: CountT, blocklength: CountT, array_of_displacements: *const Aint, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_create_hindexed_block", newtype, |t| {
        let n = count_from(count)?;
        t.hindexed_block(count_from(blocklength)?, &ints(n, array_of_displacements)?, datatype_from(oldtype)?)
    })
} }

/// A struct type; MPI-1's `MPI_LB` / `MPI_UB` members set explicit bounds.
unsafe fn create_struct<C: CInt>(
    func: &str,
    count: C,
    blocklengths: *const C,
    displacements: *const Aint,
    types: *const c_int,
    newtype: *mut c_int,
) -> c_int {
    make_c::<C>(func, newtype, |t| {
        let n = count_from(count)?;
        let (bl, dp) = (lens(n, blocklengths)?, ints(n, displacements)?);
        if n > 0 && types.is_null() {
            return Err(MpiError::Arg);
        }
        let members = (0..n)
            .map(|i| type_arg_from(*types.add(i)))
            .collect::<Result<Vec<_>, _>>()?;
        t.create_struct(&bl, &dp, &members)
    })
}

mpi_fn! { fn MPI_Type_create_struct / c (count: CountT, array_of_blocklengths: *const CountT, array_of_displacements: *const Aint, array_of_types: *const c_int, newtype: *mut c_int) {
    create_struct("MPI_Type_create_struct", count, array_of_blocklengths, array_of_displacements, array_of_types, newtype)
} }

mpi_fn! { fn MPI_Type_struct(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const Aint, array_of_types: *const c_int, newtype: *mut c_int) {
    create_struct("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements, array_of_types, newtype)
} }

mpi_fn! { fn MPI_Type_create_resized / c (oldtype: c_int, lb: Aint, extent: Aint, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_create_resized", newtype, |t| t.resized(datatype_from(oldtype)?, lb as i64, extent as i64))
} }

mpi_fn! { fn MPI_Type_dup(oldtype: c_int, newtype: *mut c_int) {
    let func = "MPI_Type_dup";
    let r = (|| {
        let old = datatype_from(oldtype)?;
        let new = engine(func, |e| e.datatypes_mut().dup(old))?;
        if let Err(err) = attr::copy_all(func, Object::Datatype(old), Object::Datatype(new)) {
            engine(func, |e| e.type_free(new))?;
            write_out(newtype, MPI_DATATYPE_NULL);
            return Err(err);
        }
        write_out(newtype, datatype_to(new));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Type_commit(datatype: *mut c_int) {
    let r = (|| {
        let dt = datatype_from(*datatype)?;
        engine("MPI_Type_commit", |e| e.datatypes_mut().commit(dt))
    })();
    finish(MPI_COMM_WORLD, "MPI_Type_commit", r)
} }

mpi_fn! { fn MPI_Type_free(datatype: *mut c_int) {
    let func = "MPI_Type_free";
    let r = (|| {
        let dt = datatype_from(*datatype)?;
        if matches!(dt, DatatypeId::Builtin(_)) {
            return Err(MpiError::Datatype);
        }
        // The attributes go now (a failing delete callback keeps the type);
        // the type itself when no pending operation uses it any more.
        attr::delete_all(func, Object::Datatype(dt))?;
        engine(func, |e| e.type_free(dt))?;
        write_out(datatype, MPI_DATATYPE_NULL);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Type_set_name(datatype: c_int, type_name: *const c_char) {
    let func = "MPI_Type_set_name";
    let r = datatype_from(datatype).and_then(|d| set_name(func, Object::Datatype(d), type_name));
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Type_get_name(datatype: c_int, type_name: *mut c_char, resultlen: *mut c_int) {
    let func = "MPI_Type_get_name";
    // MPI-1's bound markers are predefined datatype handles with names.
    if let Some(marker) = [(MPI_LB, "MPI_LB"), (MPI_UB, "MPI_UB")].iter().find(|m| m.0 == datatype) {
        let n = crate::ffi::write_c_string(type_name, MPI_MAX_OBJECT_NAME as usize, marker.1);
        write_out(resultlen, n as c_int);
        return MPI_SUCCESS;
    }
    let r = datatype_from(datatype).and_then(|d| get_name(func, Object::Datatype(d), type_name, resultlen));
    finish(MPI_COMM_WORLD, func, r)
} }

// ---- sizes and bounds ----

mpi_fn! { fn MPI_Type_size / c (datatype: c_int, size: *mut CountT) {
    query("MPI_Type_size", |t| {
        write_out(size, <CountT as COut>::narrow(t.size(datatype_from(datatype)?)? as i64));
        Ok(())
    })
} }

mpi_fn! { fn MPI_Type_size_x(datatype: c_int, size: *mut Count) {
    query("MPI_Type_size_x", |t| {
        write_out(size, t.size(datatype_from(datatype)?)? as Count);
        Ok(())
    })
} }

/// (lb, extent) or (true lb, true extent) of a handle.
fn bounds(t: &Datatypes, datatype: c_int, true_bounds: bool) -> Result<(i64, i64), MpiError> {
    let dt = datatype_from(datatype)?;
    if true_bounds {
        t.true_extent(dt)
    } else {
        t.extent(dt)
    }
}

unsafe fn get_extent<T: TryFrom<i64>>(
    func: &str,
    datatype: c_int,
    true_bounds: bool,
    lb: *mut T,
    extent: *mut T,
) -> c_int {
    query(func, |t| {
        let (l, x) = bounds(t, datatype, true_bounds)?;
        let cv = |v: i64| T::try_from(v).map_err(|_| MpiError::Other);
        write_out(lb, cv(l)?);
        write_out(extent, cv(x)?);
        Ok(())
    })
}

mpi_fn! { fn MPI_Type_get_extent / c (datatype: c_int, lb: *mut Aint, extent: *mut Aint) {
    get_extent("MPI_Type_get_extent", datatype, false, lb, extent)
} }

mpi_fn! { fn MPI_Type_get_extent_x(datatype: c_int, lb: *mut Count, extent: *mut Count) {
    get_extent("MPI_Type_get_extent_x", datatype, false, lb, extent)
} }

mpi_fn! { fn MPI_Type_get_true_extent / c (datatype: c_int, true_lb: *mut Aint, true_extent: *mut Aint) {
    get_extent("MPI_Type_get_true_extent", datatype, true, true_lb, true_extent)
} }

mpi_fn! { fn MPI_Type_get_true_extent_x(datatype: c_int, true_lb: *mut Count, true_extent: *mut Count) {
    get_extent("MPI_Type_get_true_extent_x", datatype, true, true_lb, true_extent)
} }

/// MPI-1 bound queries: `pick` chooses from (lb, extent).
unsafe fn mpi1_bound(
    func: &str,
    datatype: c_int,
    out: *mut Aint,
    pick: fn(i64, i64) -> i64,
) -> c_int {
    query(func, |t| {
        let (l, x) = bounds(t, datatype, false)?;
        write_out(out, pick(l, x) as Aint);
        Ok(())
    })
}

mpi_fn! { fn MPI_Type_extent(datatype: c_int, extent: *mut Aint) {
    mpi1_bound("MPI_Type_extent", datatype, extent, |_, x| x)
} }

mpi_fn! { fn MPI_Type_lb(datatype: c_int, displacement: *mut Aint) {
    mpi1_bound("MPI_Type_lb", datatype, displacement, |l, _| l)
} }

mpi_fn! { fn MPI_Type_ub(datatype: c_int, displacement: *mut Aint) {
    mpi1_bound("MPI_Type_ub", datatype, displacement, |l, x| l + x)
} }

// ---- addresses ----

mpi_fn! { fn MPI_Get_address(location: *const c_void, address: *mut Aint) {
    write_out(address, location as Aint);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Address(location: *const c_void, address: *mut Aint) {
    write_out(address, location as Aint);
    MPI_SUCCESS
} }

/// MPI_Aint_add (profiling name).
#[no_mangle]
pub extern "C" fn PMPI_Aint_add(base: Aint, disp: Aint) -> Aint {
    base.wrapping_add(disp)
}

mpi_value_fn! {
    /// MPI_Aint_add: `base + disp` as an address.
    fn MPI_Aint_add(base: Aint, disp: Aint) -> Aint
}

/// MPI_Aint_diff (profiling name).
#[no_mangle]
pub extern "C" fn PMPI_Aint_diff(addr1: Aint, addr2: Aint) -> Aint {
    addr1.wrapping_sub(addr2)
}

mpi_value_fn! {
    /// MPI_Aint_diff: `addr1 - addr2` as a displacement.
    fn MPI_Aint_diff(addr1: Aint, addr2: Aint) -> Aint
}

// ---- pack / unpack ----

/// A position inside a pack buffer of `size` bytes.
fn position_in(pos: impl CInt, size: impl CInt) -> Result<(usize, usize), MpiError> {
    let (p, s) = (len_from(pos)?, len_from(size)?);
    if p > s {
        return Err(MpiError::Arg);
    }
    Ok((p, s))
}

/// Copies `packed` into the pack buffer `outbuf` of `size` bytes at
/// position `pos` (`MPI_ERR_TRUNCATE` when it does not fit); returns the
/// position after it.
///
/// # Safety
/// `outbuf` must be valid for writing `size` bytes.
pub(crate) unsafe fn put_packed(
    outbuf: *mut c_void,
    pos: usize,
    size: usize,
    packed: &[u8],
) -> Result<usize, MpiError> {
    if packed.len() > size - pos {
        return Err(MpiError::Truncate);
    }
    if !packed.is_empty() {
        let out = std::slice::from_raw_parts_mut((outbuf as *mut u8).add(pos), packed.len());
        out.copy_from_slice(packed);
    }
    Ok(pos + packed.len())
}

mpi_fn! { fn MPI_Pack / c (inbuf: *const c_void, incount: CountT, datatype: c_int, outbuf: *mut c_void, outsize: CountT, position: *mut CountT, comm: c_int) {
    let r = (|| {
        comm_from(comm)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(incount)?);
        let (pos, size) = position_in(*position, outsize)?;
        let packed = engine("MPI_Pack", |e| {
            let s = e.datatypes().span(dt, n)?;
            e.datatypes().committed(dt)?;
            e.datatypes().pack(dt, n, region(inbuf, s))
        })?;
        write_out(position, <CountT as COut>::narrow(put_packed(outbuf, pos, size, &packed)? as i64));
        Ok(())
    })();
    finish(comm, "MPI_Pack", r)
} }

mpi_fn! { fn MPI_Unpack / c (inbuf: *const c_void, insize: CountT, position: *mut CountT, outbuf: *mut c_void, outcount: CountT, datatype: c_int, comm: c_int) {
    let r = (|| {
        comm_from(comm)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(outcount)?);
        let (pos, size) = position_in(*position, insize)?;
        let used = engine("MPI_Unpack", |e| {
            let t = e.datatypes();
            let need = t.committed(dt)?.size as usize * n;
            if need > size - pos {
                return Err(MpiError::Truncate);
            }
            let src: &[u8] = if need == 0 { &[] } else { std::slice::from_raw_parts((inbuf as *const u8).add(pos), need) };
            let s = t.span(dt, n)?;
            t.unpack(dt, n, src, region_mut(outbuf, s))?;
            Ok(need)
        })?;
        write_out(position, <CountT as COut>::narrow((pos + used) as i64));
        Ok(())
    })();
    finish(comm, "MPI_Unpack", r)
} }

mpi_fn! { fn MPI_Pack_size / c (incount: CountT, datatype: c_int, comm: c_int, size: *mut CountT) {
    let r = (|| {
        comm_from(comm)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(incount)?);
        let bytes = engine("MPI_Pack_size", |e| e.datatypes().pack_size(dt, n))?;
        write_out(size, <CountT as COut>::narrow(bytes as i64));
        Ok(())
    })();
    finish(comm, "MPI_Pack_size", r)
} }
