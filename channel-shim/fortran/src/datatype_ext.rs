//! More datatype routines: subarray and darray constructors, envelopes
//! and contents, the Fortran 90 kinds, `MPI_TYPE_MATCH_SIZE`, element
//! counts as `MPI_Count`, and the "external32" representation (whose
//! `DATAREP` is a `CHARACTER` argument).

use crate::strings::text_in;
use crate::{set_ierror, Aint, Fint};
use std::os::raw::{c_char, c_int, c_void};

fortran_wrappers! {
    fn mpi_type_create_subarray_ = MPI_Type_create_subarray(ndims: In, sizes: IntRef, subsizes: IntRef, starts: IntRef, order: In, oldtype: In, newtype: IntRef);
    fn mpi_type_create_darray_ = MPI_Type_create_darray(size: In, rank: In, ndims: In, gsizes: IntRef, distribs: IntRef, dargs: IntRef, psizes: IntRef, order: In, oldtype: In, newtype: IntRef);
    fn mpi_type_get_envelope_ = MPI_Type_get_envelope(datatype: In, num_integers: IntRef, num_addresses: IntRef, num_datatypes: IntRef, combiner: IntRef);
    fn mpi_type_get_contents_ = MPI_Type_get_contents(datatype: In, max_integers: In, max_addresses: In, max_datatypes: In, integers: IntRef, addresses: AintRef, datatypes: IntRef);
    fn mpi_type_match_size_ = MPI_Type_match_size(typeclass: In, size: In, datatype: IntRef);
    fn mpi_type_create_f90_real_ = MPI_Type_create_f90_real(p: In, r: In, newtype: IntRef);
    fn mpi_type_create_f90_complex_ = MPI_Type_create_f90_complex(p: In, r: In, newtype: IntRef);
    fn mpi_type_create_f90_integer_ = MPI_Type_create_f90_integer(r: In, newtype: IntRef);
    fn mpi_get_elements_x_ = MPI_Get_elements_x(status: Status, datatype: In, count: CountRef);
    fn mpi_status_set_elements_ = MPI_Status_set_elements(status: Status, datatype: In, count: In);
    fn mpi_status_set_elements_x_ = MPI_Status_set_elements_x(status: Status, datatype: In, count: CountIn);
}

extern "C" {
    fn MPI_Pack_external(
        datarep: *const c_char,
        inbuf: *const c_void,
        incount: c_int,
        datatype: c_int,
        outbuf: *mut c_void,
        outsize: Aint,
        position: *mut Aint,
    ) -> c_int;
    fn MPI_Unpack_external(
        datarep: *const c_char,
        inbuf: *const c_void,
        insize: Aint,
        position: *mut Aint,
        outbuf: *mut c_void,
        outcount: c_int,
        datatype: c_int,
    ) -> c_int;
    fn MPI_Pack_external_size(
        datarep: *const c_char,
        incount: c_int,
        datatype: c_int,
        size: *mut Aint,
    ) -> c_int;
}

fortran_fn! {
    /// `MPI_PACK_EXTERNAL(DATAREP, INBUF, INCOUNT, DATATYPE, OUTBUF,
    /// OUTSIZE, POSITION, IERROR)`.
    fn mpi_pack_external_(datarep: *const c_char, inbuf: *const c_void, incount: *const Fint, datatype: *const Fint, outbuf: *mut c_void, outsize: *const Aint, position: *mut Aint, ierror: *mut Fint, datarep_len: usize) {
        let rep = text_in(datarep, datarep_len);
        let inbuf = crate::sentinel::buffer(inbuf as *mut c_void);
        set_ierror(ierror, MPI_Pack_external(rep.as_ptr(), inbuf, *incount, *datatype, outbuf, *outsize, position));
    }
}

fortran_fn! {
    /// `MPI_UNPACK_EXTERNAL(DATAREP, INBUF, INSIZE, POSITION, OUTBUF,
    /// OUTCOUNT, DATATYPE, IERROR)`.
    fn mpi_unpack_external_(datarep: *const c_char, inbuf: *const c_void, insize: *const Aint, position: *mut Aint, outbuf: *mut c_void, outcount: *const Fint, datatype: *const Fint, ierror: *mut Fint, datarep_len: usize) {
        let rep = text_in(datarep, datarep_len);
        let outbuf = crate::sentinel::buffer(outbuf);
        set_ierror(ierror, MPI_Unpack_external(rep.as_ptr(), inbuf, *insize, position, outbuf, *outcount, *datatype));
    }
}

fortran_fn! {
    /// `MPI_PACK_EXTERNAL_SIZE(DATAREP, INCOUNT, DATATYPE, SIZE, IERROR)`.
    fn mpi_pack_external_size_(datarep: *const c_char, incount: *const Fint, datatype: *const Fint, size: *mut Aint, ierror: *mut Fint, datarep_len: usize) {
        let rep = text_in(datarep, datarep_len);
        set_ierror(ierror, MPI_Pack_external_size(rep.as_ptr(), *incount, *datatype, size));
    }
}
