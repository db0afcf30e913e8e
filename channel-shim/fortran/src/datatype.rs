//! Derived datatypes, their sizes and extents, addresses, packing. The
//! MPI-1 routines (`MPI_ADDRESS`, `MPI_TYPE_EXTENT`, `MPI_TYPE_HINDEXED`,
//! ...) take addresses as default `INTEGER`s, the others as
//! `INTEGER(KIND=MPI_ADDRESS_KIND)`.

use crate::strings::{text_in, text_out};
use crate::{c, set_ierror, write_out, Aint, Fint};
use std::os::raw::{c_char, c_int, c_void};

fortran_wrappers! {
    fn mpi_type_contiguous_ = MPI_Type_contiguous(count: In, oldtype: In, newtype: IntRef);
    fn mpi_type_vector_ = MPI_Type_vector(count: In, blocklength: In, stride: In, oldtype: In, newtype: IntRef);
    fn mpi_type_hvector_ = MPI_Type_hvector(count: In, blocklength: In, stride: IntAsAint, oldtype: In, newtype: IntRef);
    fn mpi_type_create_hvector_ = MPI_Type_create_hvector(count: In, blocklength: In, stride: AintIn, oldtype: In, newtype: IntRef);
    fn mpi_type_indexed_ = MPI_Type_indexed(count: In, blocklengths: IntRef, displacements: IntRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_indexed_block_ = MPI_Type_create_indexed_block(count: In, blocklength: In, displacements: IntRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_hindexed_ = MPI_Type_create_hindexed(count: In, blocklengths: IntRef, displacements: AintRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_hindexed_block_ = MPI_Type_create_hindexed_block(count: In, blocklength: In, displacements: AintRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_struct_ = MPI_Type_create_struct(count: In, blocklengths: IntRef, displacements: AintRef, types: IntRef, newtype: IntRef);
    fn mpi_type_create_resized_ = MPI_Type_create_resized(oldtype: In, lb: AintIn, extent: AintIn, newtype: IntRef);
    fn mpi_type_dup_ = MPI_Type_dup(oldtype: In, newtype: IntRef);
    fn mpi_type_commit_ = MPI_Type_commit(datatype: IntRef);
    fn mpi_type_free_ = MPI_Type_free(datatype: IntRef);
    fn mpi_type_size_ = MPI_Type_size(datatype: In, size: IntRef);
    fn mpi_type_size_x_ = MPI_Type_size_x(datatype: In, size: CountRef);
    fn mpi_type_get_extent_ = MPI_Type_get_extent(datatype: In, lb: AintRef, extent: AintRef);
    fn mpi_type_get_extent_x_ = MPI_Type_get_extent_x(datatype: In, lb: CountRef, extent: CountRef);
    fn mpi_type_get_true_extent_ = MPI_Type_get_true_extent(datatype: In, true_lb: AintRef, true_extent: AintRef);
    fn mpi_type_get_true_extent_x_ = MPI_Type_get_true_extent_x(datatype: In, true_lb: CountRef, true_extent: CountRef);
    fn mpi_get_address_ = MPI_Get_address(location: Location, address: AintRef);
    fn mpi_pack_ = MPI_Pack(inbuf: Buf, incount: In, datatype: In, outbuf: Buf, outsize: In, position: IntRef, comm: In);
    fn mpi_unpack_ = MPI_Unpack(inbuf: Buf, insize: In, position: IntRef, outbuf: Buf, outcount: In, datatype: In, comm: In);
    fn mpi_pack_size_ = MPI_Pack_size(incount: In, datatype: In, comm: In, size: IntRef);
}

/// `MPI_ERR_OTHER`.
const MPI_ERR_OTHER: c_int = 15;

/// Runs a C function returning an `MPI_Aint` and stores it in an MPI-1
/// `INTEGER`. A value that does not fit keeps its low 32 bits (differences
/// of nearby addresses stay right) and the call returns `MPI_ERR_OTHER`, as
/// native MPICH does.
unsafe fn aint_as_int(call: impl FnOnce(*mut Aint) -> c_int, out: *mut Fint, ierror: *mut Fint) {
    let mut v: Aint = 0;
    let mut r = call(&mut v);
    if r == crate::MPI_SUCCESS {
        write_out(out, v as Fint);
        if Fint::try_from(v).is_err() {
            r = MPI_ERR_OTHER;
        }
    }
    set_ierror(ierror, r);
}

fortran_fn! {
    /// `MPI_ADDRESS(LOCATION, ADDRESS, IERROR)` (MPI-1, `INTEGER ADDRESS`).
    fn mpi_address_(location: *const c_void, address: *mut Fint, ierror: *mut Fint) {
        aint_as_int(|a| c::MPI_Address(location, a), address, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_EXTENT(DATATYPE, EXTENT, IERROR)` (MPI-1, `INTEGER EXTENT`).
    fn mpi_type_extent_(datatype: *const Fint, extent: *mut Fint, ierror: *mut Fint) {
        aint_as_int(|a| c::MPI_Type_extent(*datatype, a), extent, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_LB(DATATYPE, DISPLACEMENT, IERROR)` (MPI-1).
    fn mpi_type_lb_(datatype: *const Fint, displacement: *mut Fint, ierror: *mut Fint) {
        aint_as_int(|a| c::MPI_Type_lb(*datatype, a), displacement, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_UB(DATATYPE, DISPLACEMENT, IERROR)` (MPI-1).
    fn mpi_type_ub_(datatype: *const Fint, displacement: *mut Fint, ierror: *mut Fint) {
        aint_as_int(|a| c::MPI_Type_ub(*datatype, a), displacement, ierror);
    }
}

/// An MPI-1 `INTEGER` displacement array of `count` entries as `MPI_Aint`s
/// (empty for a negative count, which the C function then rejects).
unsafe fn aints(count: Fint, displacements: *const Fint) -> Vec<Aint> {
    let n = usize::try_from(count).unwrap_or(0);
    if n == 0 || displacements.is_null() {
        return Vec::new();
    }
    std::slice::from_raw_parts(displacements, n)
        .iter()
        .map(|&d| d as Aint)
        .collect()
}

fortran_fn! {
    /// `MPI_TYPE_HINDEXED(COUNT, ARRAY_OF_BLOCKLENGTHS,
    /// ARRAY_OF_DISPLACEMENTS, OLDTYPE, NEWTYPE, IERROR)` (MPI-1, `INTEGER`
    /// displacements in bytes).
    fn mpi_type_hindexed_(count: *const Fint, blocklengths: *const Fint, displacements: *const Fint, oldtype: *const Fint, newtype: *mut Fint, ierror: *mut Fint) {
        let d = aints(*count, displacements);
        set_ierror(ierror, c::MPI_Type_hindexed(*count, blocklengths, d.as_ptr(), *oldtype, newtype));
    }
}

fortran_fn! {
    /// `MPI_TYPE_STRUCT(COUNT, ARRAY_OF_BLOCKLENGTHS, ARRAY_OF_DISPLACEMENTS,
    /// ARRAY_OF_TYPES, NEWTYPE, IERROR)` (MPI-1, `INTEGER` displacements).
    fn mpi_type_struct_(count: *const Fint, blocklengths: *const Fint, displacements: *const Fint, types: *const Fint, newtype: *mut Fint, ierror: *mut Fint) {
        let d = aints(*count, displacements);
        set_ierror(ierror, c::MPI_Type_struct(*count, blocklengths, d.as_ptr(), types, newtype));
    }
}

fortran_fn! {
    /// `INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD(BASE, DISP)`.
    fn mpi_aint_add_(base: *const Aint, disp: *const Aint) -> Aint {
        c::MPI_Aint_add(*base, *disp)
    }
}

fortran_fn! {
    /// `INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_DIFF(ADDR1, ADDR2)`.
    fn mpi_aint_diff_(addr1: *const Aint, addr2: *const Aint) -> Aint {
        c::MPI_Aint_diff(*addr1, *addr2)
    }
}

use crate::comm::MAX_OBJECT_NAME;

fortran_fn! {
    /// `MPI_TYPE_GET_NAME(DATATYPE, TYPE_NAME, RESULTLEN, IERROR)`: blank-padded.
    fn mpi_type_get_name_(datatype: *const Fint, name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) {
        let t = *datatype;
        text_out(MAX_OBJECT_NAME, |n, l| c::MPI_Type_get_name(t, n, l), name, name_len, resultlen, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_SET_NAME(DATATYPE, TYPE_NAME, IERROR)`: trailing blanks of
    /// `TYPE_NAME` are not part of the name.
    fn mpi_type_set_name_(datatype: *const Fint, name: *const c_char, ierror: *mut Fint, name_len: usize) {
        let name = text_in(name, name_len);
        set_ierror(ierror, c::MPI_Type_set_name(*datatype, name.as_ptr()));
    }
}
