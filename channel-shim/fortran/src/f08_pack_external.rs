//! `use mpi_f08` bindings of `MPI_Pack_external` and `MPI_Unpack_external`
//! with choice buffers (`_f08ts`, and `_f08ts_large` with 8-byte counts):
//! written out, not generated, because of the data representation string
//! (its length a hidden `size_t` after all other arguments, also when the
//! optional `ierror` is absent). The buffers go through
//! [`crate::f08_buffers::Buffers`]: the packed side by address,
//! the typed side with its count and datatype.

use crate::f08_buffers::{Buffers, Descriptor};
use crate::strings::text_in;
use crate::{set_ierror, Aint, Fint};
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn MPI_Pack_external_c(
        datarep: *const c_char,
        inbuf: *const c_void,
        incount: i64,
        datatype: c_int,
        outbuf: *mut c_void,
        outsize: Aint,
        position: *mut Aint,
    ) -> c_int;
    fn MPI_Unpack_external_c(
        datarep: *const c_char,
        inbuf: *const c_void,
        insize: Aint,
        position: *mut Aint,
        outbuf: *mut c_void,
        outcount: i64,
        datatype: c_int,
    ) -> c_int;
}

/// `MPI_Pack_external` on the C library's large-count form: the input
/// section with `incount` and `datatype`, the output by address.
///
/// # Safety
/// The arguments must be valid as `MPI_Pack_external` requires.
#[allow(clippy::too_many_arguments)]
unsafe fn pack_external(
    datarep: *const c_char,
    inbuf: *const Descriptor,
    incount: i64,
    datatype: Fint,
    outbuf: *const Descriptor,
    outsize: *const Aint,
    position: *mut Aint,
    ierror: *mut Fint,
    datarep_len: usize,
) {
    let rep = text_in(datarep, datarep_len);
    let mut bufs = Buffers::new(c"MPI_Pack_external");
    let (inp, n, t) = match bufs.counted(inbuf, incount, datatype) {
        Ok(v) => v,
        Err(code) => return set_ierror(ierror, code),
    };
    let out = bufs.address(outbuf);
    let r = MPI_Pack_external_c(rep.as_ptr(), inp, n, t, out, *outsize, position);
    set_ierror(ierror, r);
}

/// `MPI_Unpack_external` on the C library's large-count form: the input
/// by address, the output section with `outcount` and `datatype`.
///
/// # Safety
/// The arguments must be valid as `MPI_Unpack_external` requires.
#[allow(clippy::too_many_arguments)]
unsafe fn unpack_external(
    datarep: *const c_char,
    inbuf: *const Descriptor,
    insize: *const Aint,
    position: *mut Aint,
    outbuf: *const Descriptor,
    outcount: i64,
    datatype: Fint,
    ierror: *mut Fint,
    datarep_len: usize,
) {
    let rep = text_in(datarep, datarep_len);
    let mut bufs = Buffers::new(c"MPI_Unpack_external");
    let inp = bufs.address(inbuf);
    let (out, n, t) = match bufs.counted(outbuf, outcount, datatype) {
        Ok(v) => v,
        Err(code) => return set_ierror(ierror, code),
    };
    let r = MPI_Unpack_external_c(rep.as_ptr(), inp, *insize, position, out, n, t);
    set_ierror(ierror, r);
}

/// Defines an exported routine and its `pmpir_` profiling name, both
/// calling `$body` with the arguments.
macro_rules! f08_pack_routine {
    ($(#[$doc:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) as $pname:ident $body:block) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The arguments must be valid as the MPI routine requires;
        /// `ierror` may be null.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $body

        #[doc = concat!("Profiling name of [`", stringify!($name), "`].")]
        ///
        /// # Safety
        /// As the routine without `pmpir_`.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $pname($($arg: $ty),*) {
            $name($($arg),*)
        }
    };
}

f08_pack_routine! {
    /// `MPI_Pack_external(datarep, inbuf, incount, datatype, outbuf,
    /// outsize, position, ierror)` of `mpi_f08`.
    fn mpi_pack_external_f08ts_(
        datarep: *const c_char, inbuf: *const Descriptor, incount: *const Fint,
        datatype: *const Fint, outbuf: *const Descriptor, outsize: *const Aint,
        position: *mut Aint, ierror: *mut Fint, datarep_len: usize,
    ) as pmpir_pack_external_f08ts_ {
        pack_external(datarep, inbuf, i64::from(*incount), *datatype, outbuf, outsize, position, ierror, datarep_len)
    }
}

f08_pack_routine! {
    /// `MPI_Pack_external` of `mpi_f08` with an 8-byte `incount`.
    fn mpi_pack_external_f08ts_large_(
        datarep: *const c_char, inbuf: *const Descriptor, incount: *const i64,
        datatype: *const Fint, outbuf: *const Descriptor, outsize: *const Aint,
        position: *mut Aint, ierror: *mut Fint, datarep_len: usize,
    ) as pmpir_pack_external_f08ts_large_ {
        pack_external(datarep, inbuf, *incount, *datatype, outbuf, outsize, position, ierror, datarep_len)
    }
}

f08_pack_routine! {
    /// `MPI_Unpack_external(datarep, inbuf, insize, position, outbuf,
    /// outcount, datatype, ierror)` of `mpi_f08`.
    fn mpi_unpack_external_f08ts_(
        datarep: *const c_char, inbuf: *const Descriptor, insize: *const Aint,
        position: *mut Aint, outbuf: *const Descriptor, outcount: *const Fint,
        datatype: *const Fint, ierror: *mut Fint, datarep_len: usize,
    ) as pmpir_unpack_external_f08ts_ {
        unpack_external(datarep, inbuf, insize, position, outbuf, i64::from(*outcount), *datatype, ierror, datarep_len)
    }
}

f08_pack_routine! {
    /// `MPI_Unpack_external` of `mpi_f08` with an 8-byte `outcount`.
    fn mpi_unpack_external_f08ts_large_(
        datarep: *const c_char, inbuf: *const Descriptor, insize: *const Aint,
        position: *mut Aint, outbuf: *const Descriptor, outcount: *const i64,
        datatype: *const Fint, ierror: *mut Fint, datarep_len: usize,
    ) as pmpir_unpack_external_f08ts_large_ {
        unpack_external(datarep, inbuf, insize, position, outbuf, *outcount, *datatype, ierror, datarep_len)
    }
}
