//! The module procedures of MPICH's `mpi_f08` modules that code compiled
//! with `use mpi_f08` calls by their gfortran names (`__<module>_MOD_<name>`):
//!
//! - `mpi_f08_types`: `MPI_Xxx_f2c`/`MPI_Xxx_c2f` (identities: a C handle
//!   is the Fortran one), `MPI_Sizeof` (the size of one element of the
//!   argument's type and kind; the argument, an array descriptor, is not
//!   read), `MPI_Status_f082f`/`MPI_Status_f2f08` and the assignments
//!   between `TYPE(MPI_Status)` and the C status (the three have the C
//!   `MPI_Status` layout, five `INTEGER`s), and gfortran's `__copy_`
//!   procedures of the handle and status types (used by polymorphic
//!   assignment: copy the source's bytes to the destination);
//! - `mpi_f08_callbacks`: the predefined callbacks `MPI_COMM_NULL_COPY_FN`,
//!   `MPI_COMM_DUP_FN`, `MPI_COMM_NULL_DELETE_FN` (and the `TYPE` and `WIN`
//!   ones), called like any other copy or delete callback, and
//!   `MPI_CONVERSION_FN_NULL(_C)`, which `MPI_Register_datarep` recognises
//!   by address (`crate::datarep`).
//!
//! Argument lists checked against Debian's `mpi_f08.mod` (see
//! `channel-shim/tools/f08-mod-interfaces.py`).
//!
//! # Safety
//!
//! Every pointer must be valid for the procedure's use of it.

use crate::{set_ierror, write_out, Aint, Fint, MPI_SUCCESS};
use std::os::raw::c_void;

/// `INTEGER`s in a status (`MPI_STATUS_SIZE`).
const STATUS_INTS: usize = 5;

/// Defines `__mpi_f08_types_MOD_mpi_<handle>_c2f` and `..._f2c` (both
/// identities: `INTEGER, VALUE` in, `INTEGER` out) and gfortran's copy
/// procedure of the handle type.
macro_rules! handle_procedures {
    ($($handle:ident: $copy:ident),* $(,)?) => {
        paste::paste! {$(
            #[doc = concat!("`MPI_", stringify!($handle), "_c2f` of `mpi_f08`: the handle itself.")]
            #[no_mangle]
            pub extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _c2f>](x: Fint) -> Fint {
                x
            }
            #[doc = concat!("`MPI_", stringify!($handle), "_f2c` of `mpi_f08`: the handle itself.")]
            #[no_mangle]
            pub extern "C" fn [<__mpi_f08_types_MOD_mpi_ $handle _f2c>](x: Fint) -> Fint {
                x
            }
            #[doc = concat!("gfortran's copy procedure of `TYPE(MPI_", stringify!($handle), ")`.")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<__mpi_f08_types_MOD___copy_mpi_f08_types_ $copy>](src: *const Fint, dst: *mut Fint) {
                if !src.is_null() && !dst.is_null() {
                    dst.write(src.read());
                }
            }
        )*}
    };
}

handle_procedures!(
    comm: Mpi_comm,
    datatype: Mpi_datatype,
    errhandler: Mpi_errhandler,
    group: Mpi_group,
    info: Mpi_info,
    message: Mpi_message,
    op: Mpi_op,
    request: Mpi_request,
    session: Mpi_session,
    win: Mpi_win,
);

/// gfortran's copy procedure of `TYPE(MPI_File)` (no `f2c`/`c2f` module
/// procedures exist for files).
///
/// # Safety
/// `src` and `dst` must be null or valid `INTEGER`s.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_file(
    src: *const Fint,
    dst: *mut Fint,
) {
    if !src.is_null() && !dst.is_null() {
        dst.write(src.read());
    }
}

/// Copies a status (five `INTEGER`s) from `src` to `dst`.
///
/// # Safety
/// Both must be null or valid for five `INTEGER`s.
unsafe fn copy_status(src: *const Fint, dst: *mut Fint) {
    if !src.is_null() && !dst.is_null() {
        std::ptr::copy(src, dst, STATUS_INTS);
    }
}

/// gfortran's copy procedure of `TYPE(MPI_Status)`.
///
/// # Safety
/// `src` and `dst` must be null or valid statuses.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_types_MOD___copy_mpi_f08_types_Mpi_status(
    src: *const Fint,
    dst: *mut Fint,
) {
    copy_status(src, dst)
}

/// `status_c = status_f08` (`TYPE(c_Status)` from `TYPE(MPI_Status)`).
///
/// # Safety
/// Both must be valid statuses.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_types_MOD_mpi_status_c_assign_f08(
    status_c: *mut Fint,
    status_f08: *const Fint,
) {
    copy_status(status_f08, status_c)
}

/// `status_f08 = status_c` (`TYPE(MPI_Status)` from `TYPE(c_Status)`).
///
/// # Safety
/// Both must be valid statuses.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_types_MOD_mpi_status_f08_assign_c(
    status_f08: *mut Fint,
    status_c: *const Fint,
) {
    copy_status(status_c, status_f08)
}

/// `MPI_Status_f082f(f08_status, f_status, ierror)`.
///
/// # Safety
/// Both statuses must be valid, `ierror` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_types_MOD_mpi_status_f082f(
    f08_status: *const Fint,
    f_status: *mut Fint,
    ierror: *mut Fint,
) {
    copy_status(f08_status, f_status);
    set_ierror(ierror, MPI_SUCCESS);
}

/// `MPI_Status_f2f08(f_status, f08_status, ierror)`.
///
/// # Safety
/// Both statuses must be valid, `ierror` null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_types_MOD_mpi_status_f2f08(
    f_status: *const Fint,
    f08_status: *mut Fint,
    ierror: *mut Fint,
) {
    copy_status(f_status, f08_status);
    set_ierror(ierror, MPI_SUCCESS);
}

/// Defines the specific procedures of `mpi_f08`'s generic `MPI_Sizeof(x,
/// size, ierror)`: `x` (any rank, a gfortran descriptor) is not read.
macro_rules! sizeof_procedures {
    ($($name:ident => $bytes:expr;)*) => {
        paste::paste! {$(
            #[doc = concat!("`MPI_Sizeof` of `mpi_f08` for `", stringify!($name), "`: ", stringify!($bytes), " bytes.")]
            #[no_mangle]
            #[allow(clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<__mpi_f08_types_MOD_mpi_sizeof_ $name>](
                _x: *const c_void,
                size: *mut Fint,
                ierror: *mut Fint,
            ) {
                write_out(size, $bytes);
                set_ierror(ierror, MPI_SUCCESS);
            }
        )*}
    };
}

sizeof_procedures! {
    character => 1;
    logical => 4;
    xint8 => 1;
    xint16 => 2;
    xint32 => 4;
    xint64 => 8;
    xreal32 => 4;
    xreal64 => 8;
    xreal128 => 16;
    xcomplex32 => 8;
    xcomplex64 => 16;
    xcomplex128 => 32;
}

/// Defines `mpi_f08_callbacks`' predefined copy and delete callbacks of one
/// object kind: null copy (`flag = .false.`), dup (copies the value,
/// `flag = .true.`), null delete (does nothing).
macro_rules! predefined_callbacks {
    ($($null_copy:ident, $dup:ident, $null_delete:ident;)*) => {$(
        /// Predefined copy callback that copies nothing (`flag = .false.`).
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "C" fn $null_copy(
            _old: *const Fint,
            _keyval: *const Fint,
            _extra: *const Aint,
            _value_in: *const Aint,
            _value_out: *mut Aint,
            flag: *mut Fint,
            ierror: *mut Fint,
        ) {
            write_out(flag, 0);
            set_ierror(ierror, MPI_SUCCESS);
        }
        /// Predefined copy callback that copies the value (`flag = .true.`).
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "C" fn $dup(
            _old: *const Fint,
            _keyval: *const Fint,
            _extra: *const Aint,
            value_in: *const Aint,
            value_out: *mut Aint,
            flag: *mut Fint,
            ierror: *mut Fint,
        ) {
            write_out(value_out, *value_in);
            write_out(flag, 1);
            set_ierror(ierror, MPI_SUCCESS);
        }
        /// Predefined delete callback that does nothing.
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "C" fn $null_delete(
            _object: *const Fint,
            _keyval: *const Fint,
            _value: *const Aint,
            _extra: *const Aint,
            ierror: *mut Fint,
        ) {
            set_ierror(ierror, MPI_SUCCESS);
        }
    )*};
}

predefined_callbacks! {
    __mpi_f08_callbacks_MOD_mpi_comm_null_copy_fn, __mpi_f08_callbacks_MOD_mpi_comm_dup_fn, __mpi_f08_callbacks_MOD_mpi_comm_null_delete_fn;
    __mpi_f08_callbacks_MOD_mpi_type_null_copy_fn, __mpi_f08_callbacks_MOD_mpi_type_dup_fn, __mpi_f08_callbacks_MOD_mpi_type_null_delete_fn;
    __mpi_f08_callbacks_MOD_mpi_win_null_copy_fn, __mpi_f08_callbacks_MOD_mpi_win_dup_fn, __mpi_f08_callbacks_MOD_mpi_win_null_delete_fn;
}

/// `MPI_CONVERSION_FN_NULL` of `mpi_f08`: converts nothing
/// (`MPI_Register_datarep` recognises it and gives C its null callback).
///
/// # Safety
/// `ierror` must be null or valid for writing an `INTEGER`.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_callbacks_MOD_mpi_conversion_fn_null(
    _userbuf: *mut c_void,
    _datatype: *const Fint,
    _count: *const Fint,
    _filebuf: *mut c_void,
    _position: *const i64,
    _extra: *const Aint,
    ierror: *mut Fint,
) {
    set_ierror(ierror, MPI_SUCCESS);
}

/// `MPI_CONVERSION_FN_NULL_C` of `mpi_f08` (8-byte `count`; Debian's module
/// declares its `ierror` `INTEGER(KIND=MPI_COUNT_KIND)` too): converts
/// nothing.
///
/// # Safety
/// `ierror` must be null or valid for writing 8 bytes.
#[no_mangle]
pub unsafe extern "C" fn __mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c(
    _userbuf: *mut c_void,
    _datatype: *const Fint,
    _count: *const i64,
    _filebuf: *mut c_void,
    _position: *const i64,
    _extra: *const Aint,
    ierror: *mut i64,
) {
    write_out(ierror, 0);
}
