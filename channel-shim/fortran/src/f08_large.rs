//! The `_f08_large` routines of `use mpi_f08` without a choice buffer:
//! datatype constructors and queries with `INTEGER(KIND=MPI_COUNT_KIND)`
//! counts, block lengths and displacements, `MPI_Win_allocate(_shared)`
//! and `MPI_Win_shared_query` with an `INTEGER(KIND=MPI_ADDRESS_KIND)`
//! `disp_unit`, `MPI_Buffer_detach` with an 8-byte size and
//! `MPI_Pack_external_size` with an 8-byte count. Each calls the C
//! library's large-count `MPI_Xxx_c`. Argument lists checked against
//! Debian's `mpi_f08.mod` (see `channel-shim/tools/f08-mod-interfaces.py`).
//!
//! A `TYPE(C_PTR)` output (`baseptr`, `buffer_addr`) is 8 bytes the C
//! routine writes the address into, as into C's `void **`.
//!
//! Each routine is exported as `mpi_xxx_f08_large_` and under MPICH's
//! profiling name `pmpir_xxx_f08_large_`.
//!
//! # Safety
//!
//! Every pointer must be valid for the MPI routine's use of it.

use crate::strings::text_in;
use crate::{set_ierror, Fint};
use std::os::raw::{c_char, c_int};

/// Like `fortran_wrappers!` (see the crate root), for `mpi_f08` names:
/// `fn name / profiling_name = C_function(arg: Kind, ...);` exports both
/// names, `ierror` optional.
macro_rules! f08_large_wrappers {
    ($( fn $fname:ident / $pname:ident = $cname:ident ( $($arg:ident : $kind:ident),* $(,)? ); )*) => {
        extern "C" {
            $(
                #[doc = concat!("The shim's `", stringify!($cname), "`.")]
                fn $cname($($arg: <$crate::args::$kind as $crate::args::Arg>::C),*) -> c_int;
            )*
        }
        $(
            #[doc = concat!("`use mpi_f08` binding of `", stringify!($cname),
                "` (8-byte counts): the C arguments by reference, then `ierror` (optional).")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub unsafe extern "C" fn $fname($($arg: <$crate::args::$kind as $crate::args::Arg>::F,)* ierror: *mut Fint) {
                let r = $cname($(<$crate::args::$kind as $crate::args::Arg>::c($arg)),*);
                $(<$crate::args::$kind as $crate::args::Arg>::after($arg, r);)*
                set_ierror(ierror, r);
            }
            #[doc = concat!("Profiling name of [`", stringify!($fname), "`].")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub unsafe extern "C" fn $pname($($arg: <$crate::args::$kind as $crate::args::Arg>::F,)* ierror: *mut Fint) {
                // The C call again, not `$fname`: a program may define
                // that name itself (the profiling interface).
                let r = $cname($(<$crate::args::$kind as $crate::args::Arg>::c($arg)),*);
                $(<$crate::args::$kind as $crate::args::Arg>::after($arg, r);)*
                set_ierror(ierror, r);
            }
        )*
    };
}

// Arrays of 8-byte counts or displacements travel as `CountRef` (the
// address of the first element), arrays of `INTEGER`s and handles as
// `IntRef`, a `TYPE(C_PTR)` output as `AintRef`.
f08_large_wrappers! {
    fn mpi_type_vector_f08_large_ / pmpir_type_vector_f08_large_ = MPI_Type_vector_c(count: CountIn, blocklength: CountIn, stride: CountIn, oldtype: In, newtype: IntRef);
    fn mpi_type_create_hvector_f08_large_ / pmpir_type_create_hvector_f08_large_ = MPI_Type_create_hvector_c(count: CountIn, blocklength: CountIn, stride: CountIn, oldtype: In, newtype: IntRef);
    fn mpi_type_indexed_f08_large_ / pmpir_type_indexed_f08_large_ = MPI_Type_indexed_c(count: CountIn, blocklengths: CountRef, displacements: CountRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_hindexed_f08_large_ / pmpir_type_create_hindexed_f08_large_ = MPI_Type_create_hindexed_c(count: CountIn, blocklengths: CountRef, displacements: CountRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_indexed_block_f08_large_ / pmpir_type_create_indexed_block_f08_large_ = MPI_Type_create_indexed_block_c(count: CountIn, blocklength: CountIn, displacements: CountRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_hindexed_block_f08_large_ / pmpir_type_create_hindexed_block_f08_large_ = MPI_Type_create_hindexed_block_c(count: CountIn, blocklength: CountIn, displacements: CountRef, oldtype: In, newtype: IntRef);
    fn mpi_type_create_struct_f08_large_ / pmpir_type_create_struct_f08_large_ = MPI_Type_create_struct_c(count: CountIn, blocklengths: CountRef, displacements: CountRef, types: IntRef, newtype: IntRef);
    fn mpi_type_create_subarray_f08_large_ / pmpir_type_create_subarray_f08_large_ = MPI_Type_create_subarray_c(ndims: In, sizes: CountRef, subsizes: CountRef, starts: CountRef, order: In, oldtype: In, newtype: IntRef);
    fn mpi_type_create_darray_f08_large_ / pmpir_type_create_darray_f08_large_ = MPI_Type_create_darray_c(size: In, rank: In, ndims: In, gsizes: CountRef, distribs: IntRef, dargs: IntRef, psizes: IntRef, order: In, oldtype: In, newtype: IntRef);
    fn mpi_type_get_envelope_f08_large_ / pmpir_type_get_envelope_f08_large_ = MPI_Type_get_envelope_c(datatype: In, num_integers: CountRef, num_addresses: CountRef, num_large_counts: CountRef, num_datatypes: CountRef, combiner: IntRef);
    fn mpi_type_get_contents_f08_large_ / pmpir_type_get_contents_f08_large_ = MPI_Type_get_contents_c(datatype: In, max_integers: CountIn, max_addresses: CountIn, max_large_counts: CountIn, max_datatypes: CountIn, integers: IntRef, addresses: AintRef, large_counts: CountRef, datatypes: IntRef);
    fn mpi_win_allocate_f08_large_ / pmpir_win_allocate_f08_large_ = MPI_Win_allocate_c(size: AintIn, disp_unit: AintIn, info: In, comm: In, baseptr: AintRef, win: IntRef);
    fn mpi_win_allocate_shared_f08_large_ / pmpir_win_allocate_shared_f08_large_ = MPI_Win_allocate_shared_c(size: AintIn, disp_unit: AintIn, info: In, comm: In, baseptr: AintRef, win: IntRef);
    fn mpi_win_shared_query_f08_large_ / pmpir_win_shared_query_f08_large_ = MPI_Win_shared_query_c(win: In, rank: In, size: AintRef, disp_unit: AintRef, baseptr: AintRef);
    fn mpi_buffer_detach_f08_large_ / pmpir_buffer_detach_f08_large_ = MPI_Buffer_detach_c(buffer_addr: AintRef, size: CountRef);
}

extern "C" {
    /// The shim's `MPI_Pack_external_size_c`.
    fn MPI_Pack_external_size_c(
        datarep: *const c_char,
        incount: i64,
        datatype: c_int,
        size: *mut i64,
    ) -> c_int;
}

/// `MPI_Pack_external_size(datarep, incount, datatype, size, ierror)` of
/// `mpi_f08` with an 8-byte `incount` (`datarep` a `CHARACTER(LEN=*)`,
/// its length the hidden last argument).
///
/// # Safety
/// `datarep` must be valid for `datarep_len` bytes, `incount` and
/// `datatype` valid, `size` valid for writing, `ierror` null or valid.
#[no_mangle]
pub unsafe extern "C" fn mpi_pack_external_size_f08_large_(
    datarep: *const c_char,
    incount: *const i64,
    datatype: *const Fint,
    size: *mut i64,
    ierror: *mut Fint,
    datarep_len: usize,
) {
    let rep = text_in(datarep, datarep_len);
    let r = MPI_Pack_external_size_c(rep.as_ptr(), *incount, *datatype, size);
    set_ierror(ierror, r);
}

/// Profiling name of [`mpi_pack_external_size_f08_large_`].
///
/// # Safety
/// As [`mpi_pack_external_size_f08_large_`].
#[no_mangle]
pub unsafe extern "C" fn pmpir_pack_external_size_f08_large_(
    datarep: *const c_char,
    incount: *const i64,
    datatype: *const Fint,
    size: *mut i64,
    ierror: *mut Fint,
    datarep_len: usize,
) {
    mpi_pack_external_size_f08_large_(datarep, incount, datatype, size, ierror, datarep_len)
}
