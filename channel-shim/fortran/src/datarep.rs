//! `MPI_REGISTER_DATAREP` from Fortran: the program's conversion and
//! extent subroutines, called through C trampolines.
//!
//! The C library keeps, as the representation's extra state, a record of
//! the Fortran subroutines and the program's `EXTRA_STATE` value; the
//! trampolines pass every argument by reference as Fortran expects.
//! `MPI_CONVERSION_FN_NULL` (mpif.h's `EXTERNAL`, the symbol
//! `mpi_conversion_fn_null_`; `mpi_f08`'s
//! `__mpi_f08_callbacks_MOD_mpi_conversion_fn_null`) becomes the C null
//! callback: no conversion.

use crate::strings::text_in;
use crate::{set_ierror, Aint, Fint};
use std::os::raw::{c_char, c_int, c_void};

/// Fortran `DATAREP_CONVERSION_FUNCTION(USERBUF, DATATYPE, COUNT, FILEBUF,
/// POSITION, EXTRA_STATE, IERROR)`.
pub(crate) type FConversion = unsafe extern "C" fn(
    *mut c_void,
    *const Fint,
    *const Fint,
    *mut c_void,
    *const i64,
    *mut Aint,
    *mut Fint,
);
/// Fortran `DATAREP_EXTENT_FUNCTION(DATATYPE, EXTENT, EXTRA_STATE, IERROR)`.
pub(crate) type FExtent = unsafe extern "C" fn(*const Fint, *mut Aint, *mut Aint, *mut Fint);

/// What the C library keeps as the extra state of a Fortran representation
/// (for the whole run: representations are never unregistered).
struct FortranDatarep {
    read: Option<FConversion>,
    write: Option<FConversion>,
    extent: FExtent,
    extra: Aint,
}

type CConversion =
    unsafe extern "C" fn(*mut c_void, c_int, c_int, *mut c_void, i64, *mut c_void) -> c_int;
type CExtent = unsafe extern "C" fn(c_int, *mut isize, *mut c_void) -> c_int;

extern "C" {
    fn MPI_Register_datarep(
        datarep: *const c_char,
        read: Option<CConversion>,
        write: Option<CConversion>,
        extent: Option<CExtent>,
        extra: *mut c_void,
    ) -> c_int;
}

/// Calls the Fortran conversion `f` with C's arguments.
unsafe fn call(
    f: Option<FConversion>,
    userbuf: *mut c_void,
    datatype: c_int,
    count: c_int,
    filebuf: *mut c_void,
    position: i64,
    extra: *mut Aint,
) -> c_int {
    let mut ierr: Fint = 0;
    if let Some(f) = f {
        f(
            userbuf, &datatype, &count, filebuf, &position, extra, &mut ierr,
        );
    }
    ierr
}

unsafe extern "C" fn read_trampoline(
    userbuf: *mut c_void,
    datatype: c_int,
    count: c_int,
    filebuf: *mut c_void,
    position: i64,
    extra: *mut c_void,
) -> c_int {
    let r = &mut *(extra as *mut FortranDatarep);
    call(
        r.read,
        userbuf,
        datatype,
        count,
        filebuf,
        position,
        &mut r.extra,
    )
}

unsafe extern "C" fn write_trampoline(
    userbuf: *mut c_void,
    datatype: c_int,
    count: c_int,
    filebuf: *mut c_void,
    position: i64,
    extra: *mut c_void,
) -> c_int {
    let r = &mut *(extra as *mut FortranDatarep);
    call(
        r.write,
        userbuf,
        datatype,
        count,
        filebuf,
        position,
        &mut r.extra,
    )
}

unsafe extern "C" fn extent_trampoline(
    datatype: c_int,
    extent: *mut isize,
    extra: *mut c_void,
) -> c_int {
    let r = &mut *(extra as *mut FortranDatarep);
    let mut ierr: Fint = 0;
    (r.extent)(&datatype, extent, &mut r.extra, &mut ierr);
    ierr
}

/// `None` for `MPI_CONVERSION_FN_NULL` (mpif.h's or `mpi_f08`'s), the
/// subroutine otherwise.
fn unless_null(f: Option<FConversion>) -> Option<FConversion> {
    let nulls = [
        crate::attr::mpi_conversion_fn_null_ as *const () as usize,
        crate::f08_module_procedures::__mpi_f08_callbacks_MOD_mpi_conversion_fn_null as *const ()
            as usize,
    ];
    f.filter(|&f| !nulls.contains(&(f as usize)))
}

fortran_fn! {
    /// `MPI_REGISTER_DATAREP(DATAREP, READ_CONVERSION_FN,
    /// WRITE_CONVERSION_FN, DTYPE_FILE_EXTENT_FN, EXTRA_STATE, IERROR)`.
    fn mpi_register_datarep_(datarep: *const c_char, read: Option<FConversion>, write: Option<FConversion>, extent: Option<FExtent>, extra: *const Aint, ierror: *mut Fint, datarep_len: usize) {
        let name = text_in(datarep, datarep_len);
        let Some(extent) = extent else {
            // The C library reports the missing callback.
            let r = MPI_Register_datarep(name.as_ptr(), None, None, None, std::ptr::null_mut());
            set_ierror(ierror, r);
            return;
        };
        let (read, write) = (unless_null(read), unless_null(write));
        let record = Box::into_raw(Box::new(FortranDatarep { read, write, extent, extra: *extra }));
        let r = MPI_Register_datarep(
            name.as_ptr(),
            read.map(|_| read_trampoline as CConversion),
            write.map(|_| write_trampoline as CConversion),
            Some(extent_trampoline),
            record as *mut c_void,
        );
        if r != crate::MPI_SUCCESS {
            drop(Box::from_raw(record));
        }
        set_ierror(ierror, r);
    }
}
