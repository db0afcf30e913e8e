//! More datatype routines: subarray and darray constructors, envelopes
//! and contents, the Fortran 90 kinds and `MPI_Type_match_size`, the
//! "external32" representation, and element counts as `MPI_Count`.

use crate::abi::*;
use crate::ffi::buffers::{region, region_mut};
use crate::ffi::datatype::{make, make_c, put_packed, query, Aint, Count};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::large_count::{int_array as ints, CountT};
use crate::ffi::write_out;
use shim_engine::datatype::f90::{match_size, TypeClass};
use shim_engine::datatype::{Combiner, Contents, Datatypes, LargeContents};
use shim_engine::MpiError;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// A dimension count (`ndims`): positive.
fn ndims_from(n: c_int) -> Result<usize, MpiError> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(MpiError::Arg)
}

mpi_fn! { fn MPI_Type_create_subarray / c (ndims: c_int, array_of_sizes: *const CountT, array_of_subsizes: *const CountT,
                                      array_of_starts: *const CountT, order: c_int, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_create_subarray", newtype, |t| {
        let n = ndims_from(ndims)?;
        let (sz, sub, st) = (ints(n, array_of_sizes)?, ints(n, array_of_subsizes)?, ints(n, array_of_starts)?);
        t.subarray(&sz, &sub, &st, order, datatype_from(oldtype)?)
    })
} }

mpi_fn! { fn MPI_Type_create_darray / c (size: c_int, rank: c_int, ndims: c_int, array_of_gsizes: *const CountT,
                                    array_of_distribs: *const c_int, array_of_dargs: *const c_int,
                                    array_of_psizes: *const c_int, order: c_int, oldtype: c_int, newtype: *mut c_int) {
    make_c::<CountT>("MPI_Type_create_darray", newtype, |t| {
        let n = ndims_from(ndims)?;
        let g = ints(n, array_of_gsizes)?;
        let d = ints(n, array_of_distribs)?;
        let a = ints(n, array_of_dargs)?;
        let p = ints(n, array_of_psizes)?;
        t.darray(size, rank, &g, &d, &a, &p, order, datatype_from(oldtype)?)
    })
} }

/// The MPI constant of a combiner.
fn combiner_code(c: Combiner) -> c_int {
    match c {
        Combiner::Named => MPI_COMBINER_NAMED,
        Combiner::Dup => MPI_COMBINER_DUP,
        Combiner::Contiguous => MPI_COMBINER_CONTIGUOUS,
        Combiner::Vector => MPI_COMBINER_VECTOR,
        Combiner::Hvector => MPI_COMBINER_HVECTOR,
        Combiner::Indexed => MPI_COMBINER_INDEXED,
        Combiner::Hindexed => MPI_COMBINER_HINDEXED,
        Combiner::IndexedBlock => MPI_COMBINER_INDEXED_BLOCK,
        Combiner::HindexedBlock => MPI_COMBINER_HINDEXED_BLOCK,
        Combiner::Struct => MPI_COMBINER_STRUCT,
        Combiner::Subarray => MPI_COMBINER_SUBARRAY,
        Combiner::Darray => MPI_COMBINER_DARRAY,
        Combiner::F90Real => MPI_COMBINER_F90_REAL,
        Combiner::F90Complex => MPI_COMBINER_F90_COMPLEX,
        Combiner::F90Integer => MPI_COMBINER_F90_INTEGER,
        Combiner::Resized => MPI_COMBINER_RESIZED,
    }
}

/// The constructor record of `datatype` (MPI-1's bound markers are
/// predefined).
fn contents_of(t: &Datatypes, datatype: c_int) -> Result<Contents, MpiError> {
    if datatype == MPI_LB || datatype == MPI_UB {
        return Ok(Contents::named());
    }
    t.contents(datatype_from(datatype)?).cloned()
}

/// The record as the classic calls report it: a type a large-count
/// constructor made has no classic form (`MPI_ERR_OTHER`, as MPICH).
fn classic(c: Contents) -> Result<LargeContents, MpiError> {
    if c.large_count {
        return Err(MpiError::Other);
    }
    Ok(c.large_form())
}

mpi_fn! { fn MPI_Type_get_envelope(datatype: c_int, num_integers: *mut c_int, num_addresses: *mut c_int,
                                   num_datatypes: *mut c_int, combiner: *mut c_int) {
    query("MPI_Type_get_envelope", |t| {
        let c = contents_of(t, datatype)?;
        let (kind, types) = (combiner_code(c.combiner), c.types.len());
        let l = classic(c)?;
        write_out(num_integers, l.ints.len() as c_int);
        write_out(num_addresses, l.aints.len() as c_int);
        write_out(num_datatypes, types as c_int);
        write_out(combiner, kind);
        Ok(())
    })
} }

mpi_fn! { fn MPI_Type_get_envelope_c(datatype: c_int, num_integers: *mut Count, num_addresses: *mut Count,
                                     num_large_counts: *mut Count, num_datatypes: *mut Count, combiner: *mut c_int) {
    query("MPI_Type_get_envelope_c", |t| {
        let c = contents_of(t, datatype)?;
        let l = c.large_form();
        write_out(num_integers, l.ints.len() as Count);
        write_out(num_addresses, l.aints.len() as Count);
        write_out(num_large_counts, l.large.len() as Count);
        write_out(num_datatypes, c.types.len() as Count);
        write_out(combiner, combiner_code(c.combiner));
        Ok(())
    })
} }

/// Where `MPI_Type_get_contents(_c)` writes, with each array's capacity.
struct ContentsOut {
    ints: (*mut c_int, i64),
    aints: (*mut Aint, i64),
    large: (*mut Count, i64),
    types: (*mut c_int, i64),
}

/// Writes the arguments of `datatype`'s constructor (`large`: as the
/// `_c` call reports them); the derived types among them come back as
/// handles the program frees.
unsafe fn write_contents(
    func: &str,
    datatype: c_int,
    large: bool,
    out: ContentsOut,
) -> Result<(), MpiError> {
    let dt = datatype_from(datatype)?;
    engine(func, |e| {
        let c: Contents = e.datatypes().contents(dt)?.clone();
        if c.combiner == Combiner::Named {
            return Err(MpiError::Datatype);
        }
        let types = c.types.clone();
        let l = if large { c.large_form() } else { classic(c)? };
        let fits = |n: usize, max: i64| usize::try_from(max).is_ok_and(|m| m >= n);
        if !fits(l.ints.len(), out.ints.1)
            || !fits(l.aints.len(), out.aints.1)
            || !fits(l.large.len(), out.large.1)
            || !fits(types.len(), out.types.1)
        {
            return Err(MpiError::Arg);
        }
        for (i, &v) in l.ints.iter().enumerate() {
            *out.ints.0.add(i) = v as c_int;
        }
        for (i, &v) in l.aints.iter().enumerate() {
            *out.aints.0.add(i) = v as Aint;
        }
        for (i, &v) in l.large.iter().enumerate() {
            *out.large.0.add(i) = v as Count;
        }
        for (i, &a) in types.iter().enumerate() {
            // A derived type comes back as one more handle to free.
            if let shim_engine::datatype::TypeArg::Type(t) = a {
                e.datatypes_mut().hand_out(t)?;
            }
            *out.types.0.add(i) = type_arg_to(a);
        }
        Ok(())
    })
}

mpi_fn! { fn MPI_Type_get_contents(datatype: c_int, max_integers: c_int, max_addresses: c_int, max_datatypes: c_int,
                                   array_of_integers: *mut c_int, array_of_addresses: *mut Aint,
                                   array_of_datatypes: *mut c_int) {
    let out = ContentsOut {
        ints: (array_of_integers, max_integers.into()),
        aints: (array_of_addresses, max_addresses.into()),
        large: (std::ptr::null_mut(), 0),
        types: (array_of_datatypes, max_datatypes.into()),
    };
    let func = "MPI_Type_get_contents";
    finish(MPI_COMM_WORLD, func, write_contents(func, datatype, false, out))
} }

mpi_fn! { fn MPI_Type_get_contents_c(datatype: c_int, max_integers: Count, max_addresses: Count,
                                     max_large_counts: Count, max_datatypes: Count,
                                     array_of_integers: *mut c_int, array_of_addresses: *mut Aint,
                                     array_of_large_counts: *mut Count, array_of_datatypes: *mut c_int) {
    let out = ContentsOut {
        ints: (array_of_integers, max_integers),
        aints: (array_of_addresses, max_addresses),
        large: (array_of_large_counts, max_large_counts),
        types: (array_of_datatypes, max_datatypes),
    };
    let func = "MPI_Type_get_contents_c";
    finish(MPI_COMM_WORLD, func, write_contents(func, datatype, true, out))
} }

mpi_fn! { fn MPI_Type_match_size(typeclass: c_int, size: c_int, datatype: *mut c_int) {
    let r = (|| {
        let class = match typeclass {
            MPI_TYPECLASS_REAL => TypeClass::Real,
            MPI_TYPECLASS_INTEGER => TypeClass::Integer,
            MPI_TYPECLASS_COMPLEX => TypeClass::Complex,
            _ => return Err(MpiError::Arg),
        };
        let b = match_size(class, size)?;
        write_out(datatype, datatype_to(b.into()));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Type_match_size", r)
} }

mpi_fn! { fn MPI_Type_create_f90_real(p: c_int, r: c_int, newtype: *mut c_int) {
    make("MPI_Type_create_f90_real", newtype, |t| t.f90_real(p, r, false))
} }

mpi_fn! { fn MPI_Type_create_f90_complex(p: c_int, r: c_int, newtype: *mut c_int) {
    make("MPI_Type_create_f90_complex", newtype, |t| t.f90_real(p, r, true))
} }

mpi_fn! { fn MPI_Type_create_f90_integer(r: c_int, newtype: *mut c_int) {
    make("MPI_Type_create_f90_integer", newtype, |t| t.f90_integer(r))
} }

mpi_fn! { fn MPI_Get_elements_x(status: *const MpiStatus, datatype: c_int, count: *mut Count) {
    let r = (|| {
        let dt = datatype_from(datatype)?;
        let bytes = (*status).count() as u64;
        let n = engine("MPI_Get_elements_x", |e| e.datatypes().get_elements(dt, bytes))?;
        write_out(count, n as Count);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Get_elements_x", r)
} }

/// Sets the count of `status` to `count` elements of `datatype`.
unsafe fn set_elements(func: &str, status: *mut MpiStatus, datatype: c_int, count: i64) -> c_int {
    let r = (|| {
        if status.is_null() || crate::ffi::buffers::ignored(status) {
            return Err(MpiError::Arg);
        }
        if count < 0 {
            return Err(MpiError::Count);
        }
        let dt = datatype_from(datatype)?;
        let size = engine(func, |e| e.datatypes().size(dt))?;
        let bytes = (size as i64).checked_mul(count).ok_or(MpiError::Count)?;
        (*status).set_count(bytes);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
}

mpi_fn! { fn MPI_Status_set_elements(status: *mut MpiStatus, datatype: c_int, count: c_int) {
    set_elements("MPI_Status_set_elements", status, datatype, i64::from(count))
} }

mpi_fn! { fn MPI_Status_set_elements_x(status: *mut MpiStatus, datatype: c_int, count: Count) {
    set_elements("MPI_Status_set_elements_x", status, datatype, count)
} }

/// The data representation argument: only "external32".
unsafe fn external32(datarep: *const c_char) -> Result<(), MpiError> {
    if datarep.is_null() || CStr::from_ptr(datarep).to_bytes() != b"external32" {
        return Err(MpiError::Arg);
    }
    Ok(())
}

/// A position and a buffer size as byte counts, the position inside.
fn position_in(pos: Aint, size: Aint) -> Result<(usize, usize), MpiError> {
    let p = usize::try_from(pos).map_err(|_| MpiError::Arg)?;
    let s = usize::try_from(size).map_err(|_| MpiError::Arg)?;
    if p > s {
        return Err(MpiError::Arg);
    }
    Ok((p, s))
}

mpi_fn! { fn MPI_Pack_external_size / c (datarep: *const c_char, incount: CountT, datatype: c_int, size: *mut Aint) {
    let r = (|| {
        external32(datarep)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(incount)?);
        let bytes = engine("MPI_Pack_external_size", |e| e.datatypes().external32_size(dt, n))?;
        write_out(size, bytes as Aint);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Pack_external_size", r)
} }

mpi_fn! { fn MPI_Pack_external / c (datarep: *const c_char, inbuf: *const c_void, incount: CountT, datatype: c_int,
                               outbuf: *mut c_void, outsize: Aint, position: *mut Aint) {
    let r = (|| {
        external32(datarep)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(incount)?);
        let (pos, size) = position_in(*position, outsize)?;
        let packed = engine("MPI_Pack_external", |e| {
            let t = e.datatypes();
            t.committed(dt)?;
            let s = t.span(dt, n)?;
            t.pack_external(dt, n, region(inbuf, s))
        })?;
        write_out(position, put_packed(outbuf, pos, size, &packed)? as Aint);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Pack_external", r)
} }

mpi_fn! { fn MPI_Unpack_external / c (datarep: *const c_char, inbuf: *const c_void, insize: Aint, position: *mut Aint,
                                 outbuf: *mut c_void, outcount: CountT, datatype: c_int) {
    let r = (|| {
        external32(datarep)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(outcount)?);
        let (pos, size) = position_in(*position, insize)?;
        let used = engine("MPI_Unpack_external", |e| {
            let t = e.datatypes();
            t.committed(dt)?;
            let src: &[u8] = if size == pos {
                &[]
            } else {
                std::slice::from_raw_parts((inbuf as *const u8).add(pos), size - pos)
            };
            let s = t.span(dt, n)?;
            t.unpack_external(dt, n, src, region_mut(outbuf, s))
        })?;
        write_out(position, (pos + used) as Aint);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Unpack_external", r)
} }

#[cfg(test)]
mod tests {
    use super::*;
    use shim_engine::datatype::subarray as sa;

    #[test]
    fn the_engine_reads_mpich_order_and_distribution_constants() {
        assert_eq!(sa::ORDER_C, MPI_ORDER_C);
        assert_eq!(sa::ORDER_FORTRAN, MPI_ORDER_FORTRAN);
        assert_eq!(sa::DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK);
        assert_eq!(sa::DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC);
        assert_eq!(sa::DISTRIBUTE_NONE, MPI_DISTRIBUTE_NONE);
        assert_eq!(sa::DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG);
    }
}
