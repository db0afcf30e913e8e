//! Communicator and datatype attributes from Fortran.
//!
//! Values are integers in Fortran: `INTEGER(KIND=MPI_ADDRESS_KIND)` for the
//! MPI-2 routines (`MPI_COMM_SET_ATTR`, ...), default `INTEGER` for the
//! MPI-1 ones (`MPI_ATTR_PUT`, ...). The C library stores, for a value
//! Fortran sets, the address of a cell holding it (so that C code reading
//! it gets a pointer to the value, as MPI defines); Fortran reading an
//! attribute C set gets the pointer as an integer. The predefined
//! attributes (`MPI_TAG_UB`, ...) are kept by C as pointers to their `int`
//! values; Fortran reads the values.
//!
//! Fortran copy and delete callbacks take every argument by reference and
//! end with `IERROR`. A keyval created from Fortran gives the C library two
//! C trampolines and, as their extra state, a record of the Fortran
//! callbacks and the program's `EXTRA_STATE`. The record is never freed:
//! attributes may outlive their keyval's `MPI_COMM_FREE_KEYVAL`.
//!
//! The predefined Fortran callbacks (`MPI_COMM_NULL_COPY_FN`,
//! `MPI_COMM_DUP_FN`, ... which mpif.h declares `EXTERNAL`) are exported
//! here with Fortran conventions and are called like any other.

use crate::c::{self, MPI_Comm_create_keyval, MPI_Keyval_create, MPI_Type_create_keyval};
use crate::{set_ierror, write_out, Aint, Fint};
use std::os::raw::{c_int, c_void};

/// C `MPI_Comm_copy_attr_function` (and MPI-1 `MPI_Copy_function`).
pub type CCopyFn =
    unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;
/// C `MPI_Comm_delete_attr_function` (and MPI-1 `MPI_Delete_function`).
pub type CDeleteFn = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void) -> c_int;

/// Fortran `COPY_FN(OLDCOMM, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
/// ATTRIBUTE_VAL_OUT, FLAG, IERROR)` with values of type `V`.
pub(crate) type FCopyFn<V> = unsafe extern "C" fn(
    *const Fint,
    *const Fint,
    *const V,
    *const V,
    *mut V,
    *mut Fint,
    *mut Fint,
);
/// Fortran `DELETE_FN(COMM, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR)`.
pub(crate) type FDeleteFn<V> =
    unsafe extern "C" fn(*const Fint, *const Fint, *const V, *const V, *mut Fint);

/// A Fortran attribute value: `INTEGER(KIND=MPI_ADDRESS_KIND)` or `INTEGER`.
pub trait AttrValue: Copy + Default {
    /// The value C stores.
    fn to_c(self) -> *mut c_void;
    /// A value C stored (an `INTEGER` keeps the low 32 bits).
    fn from_c(p: *mut c_void) -> Self;
    /// A predefined attribute's `int`.
    fn from_int(v: c_int) -> Self;
}
/// The cells holding values Fortran stored (see [`fortran_cell`]), by
/// address.
fn cells() -> &'static std::sync::Mutex<std::collections::HashSet<usize>> {
    static CELLS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<usize>>> =
        std::sync::OnceLock::new();
    CELLS.get_or_init(Default::default)
}

/// What C stores for a value Fortran sets: as MPI defines (and MPICH
/// does), a C program reading an attribute a Fortran one set gets the
/// address of the value, so the value goes into a new cell (an `MPI_Aint`,
/// never freed: attributes may be copied and read long after) whose
/// address C keeps. [`fortran_value`] reads it back.
pub(crate) fn fortran_cell(value: Aint) -> *mut c_void {
    let cell = Box::into_raw(Box::new(value));
    cells()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(cell as usize);
    cell as *mut c_void
}

/// The Fortran value of what C stored: the cell's content for a value
/// Fortran set ([`fortran_cell`]), the pointer itself (as an integer) for
/// one C set.
pub(crate) fn fortran_value(p: *mut c_void) -> Aint {
    let is_cell = cells()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&(p as usize));
    if is_cell {
        // SAFETY: a registered cell is a live, never freed `Aint`.
        unsafe { *(p as *const Aint) }
    } else {
        p as Aint
    }
}

impl AttrValue for Aint {
    fn to_c(self) -> *mut c_void {
        fortran_cell(self)
    }
    fn from_c(p: *mut c_void) -> Self {
        fortran_value(p)
    }
    fn from_int(v: c_int) -> Self {
        v as Aint
    }
}
impl AttrValue for Fint {
    fn to_c(self) -> *mut c_void {
        fortran_cell(self as Aint)
    }
    fn from_c(p: *mut c_void) -> Self {
        fortran_value(p) as Fint
    }
    fn from_int(v: c_int) -> Self {
        v
    }
}

/// What the C library keeps as the extra state of a Fortran keyval.
struct FortranKeyval<V> {
    copy: Option<FCopyFn<V>>,
    delete: Option<FDeleteFn<V>>,
    extra: V,
}

/// The C copy callback of a Fortran keyval: calls the Fortran one.
unsafe extern "C" fn copy_trampoline<V: AttrValue>(
    oldcomm: c_int,
    keyval: c_int,
    extra: *mut c_void,
    value_in: *mut c_void,
    value_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    let k = &*(extra as *const FortranKeyval<V>);
    let (mut out, mut copy, mut ierr) = (V::default(), 0 as Fint, 0 as Fint);
    if let Some(f) = k.copy {
        f(
            &oldcomm,
            &keyval,
            &k.extra,
            &V::from_c(value_in),
            &mut out,
            &mut copy,
            &mut ierr,
        );
    }
    if copy != 0 {
        write_out(value_out as *mut *mut c_void, out.to_c());
    }
    write_out(flag, (copy != 0) as c_int);
    ierr
}

/// The C delete callback of a Fortran keyval: calls the Fortran one.
unsafe extern "C" fn delete_trampoline<V: AttrValue>(
    comm: c_int,
    keyval: c_int,
    value: *mut c_void,
    extra: *mut c_void,
) -> c_int {
    let k = &*(extra as *const FortranKeyval<V>);
    let mut ierr: Fint = 0;
    if let Some(f) = k.delete {
        f(&comm, &keyval, &V::from_c(value), &k.extra, &mut ierr);
    }
    ierr
}

/// Signature of `MPI_Comm_create_keyval` and `MPI_Keyval_create`.
pub(crate) type CCreateKeyval =
    unsafe extern "C" fn(Option<CCopyFn>, Option<CDeleteFn>, *mut c_int, *mut c_void) -> c_int;

/// Creates a keyval whose callbacks are Fortran procedures.
pub(crate) unsafe fn create_keyval<V: AttrValue + 'static>(
    create: CCreateKeyval,
    copy: Option<FCopyFn<V>>,
    delete: Option<FDeleteFn<V>>,
    keyval: *mut Fint,
    extra: V,
    ierror: *mut Fint,
) {
    let state = Box::into_raw(Box::new(FortranKeyval {
        copy,
        delete,
        extra,
    }));
    let r = create(
        Some(copy_trampoline::<V>),
        Some(delete_trampoline::<V>),
        keyval,
        state as *mut c_void,
    );
    if r != crate::MPI_SUCCESS {
        drop(Box::from_raw(state));
    }
    set_ierror(ierror, r);
}

fortran_fn! {
    /// `MPI_COMM_CREATE_KEYVAL(COMM_COPY_ATTR_FN, COMM_DELETE_ATTR_FN,
    /// COMM_KEYVAL, EXTRA_STATE, IERROR)`.
    fn mpi_comm_create_keyval_(copy: Option<FCopyFn<Aint>>, delete: Option<FDeleteFn<Aint>>, keyval: *mut Fint, extra: *const Aint, ierror: *mut Fint) {
        create_keyval(MPI_Comm_create_keyval, copy, delete, keyval, *extra, ierror);
    }
}

fortran_fn! {
    /// `MPI_KEYVAL_CREATE(COPY_FN, DELETE_FN, KEYVAL, EXTRA_STATE, IERROR)`
    /// (MPI-1: `INTEGER` values and extra state).
    fn mpi_keyval_create_(copy: Option<FCopyFn<Fint>>, delete: Option<FDeleteFn<Fint>>, keyval: *mut Fint, extra: *const Fint, ierror: *mut Fint) {
        create_keyval(MPI_Keyval_create, copy, delete, keyval, *extra, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_CREATE_KEYVAL(TYPE_COPY_ATTR_FN, TYPE_DELETE_ATTR_FN,
    /// TYPE_KEYVAL, EXTRA_STATE, IERROR)`.
    fn mpi_type_create_keyval_(copy: Option<FCopyFn<Aint>>, delete: Option<FDeleteFn<Aint>>, keyval: *mut Fint, extra: *const Aint, ierror: *mut Fint) {
        create_keyval(MPI_Type_create_keyval, copy, delete, keyval, *extra, ierror);
    }
}

fortran_wrappers! {
    fn mpi_type_free_keyval_ = MPI_Type_free_keyval(keyval: IntRef);
    fn mpi_type_delete_attr_ = MPI_Type_delete_attr(datatype: In, keyval: In);
    fn mpi_comm_free_keyval_ = MPI_Comm_free_keyval(keyval: IntRef);
    fn mpi_keyval_free_ = MPI_Keyval_free(keyval: IntRef);
    fn mpi_comm_delete_attr_ = MPI_Comm_delete_attr(comm: In, keyval: In);
    fn mpi_attr_delete_ = MPI_Attr_delete(comm: In, keyval: In);
}

/// Whether `keyval` is predefined (`MPI_TAG_UB`, ...): MPICH marks built-in
/// handles with kind 1 in the top two bits.
fn is_predefined(keyval: c_int) -> bool {
    (keyval as u32) >> 30 == 1
}

/// The C keyval of a Fortran one: MPICH's Fortran predefined keyvals are
/// the C ones plus 1 (mpif.h: `MPI_TAG_UB = 0x64400002`, mpi.h:
/// `0x64400001`); created keyvals are the same in both languages.
pub(crate) fn c_keyval(keyval: c_int) -> c_int {
    if is_predefined(keyval) && keyval & 1 == 0 {
        keyval - 1
    } else {
        keyval
    }
}

/// Signature of `MPI_Comm_get_attr` and `MPI_Attr_get`.
type CGetAttr = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_int) -> c_int;

/// Reads an attribute into a Fortran value.
unsafe fn get_attr<V: AttrValue>(
    get: CGetAttr,
    comm: c_int,
    keyval: c_int,
    value: *mut V,
    flag: *mut Fint,
    ierror: *mut Fint,
) {
    let mut p: *mut c_void = std::ptr::null_mut();
    let mut found: c_int = 0;
    let r = get(
        comm,
        c_keyval(keyval),
        &mut p as *mut *mut c_void as *mut c_void,
        &mut found,
    );
    if r == crate::MPI_SUCCESS && found != 0 {
        let v = if is_predefined(keyval) && !p.is_null() {
            V::from_int(*(p as *const c_int))
        } else {
            V::from_c(p)
        };
        write_out(value, v);
    }
    write_out(flag, (found != 0) as Fint);
    set_ierror(ierror, r);
}

fortran_fn! {
    /// `MPI_COMM_GET_ATTR(COMM, COMM_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)`.
    fn mpi_comm_get_attr_(comm: *const Fint, keyval: *const Fint, value: *mut Aint, flag: *mut Fint, ierror: *mut Fint) {
        get_attr(c::MPI_Comm_get_attr, *comm, *keyval, value, flag, ierror);
    }
}

fortran_fn! {
    /// `MPI_ATTR_GET(COMM, KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)` (MPI-1).
    fn mpi_attr_get_(comm: *const Fint, keyval: *const Fint, value: *mut Fint, flag: *mut Fint, ierror: *mut Fint) {
        get_attr(c::MPI_Attr_get, *comm, *keyval, value, flag, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_GET_ATTR(DATATYPE, TYPE_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)`.
    fn mpi_type_get_attr_(datatype: *const Fint, keyval: *const Fint, value: *mut Aint, flag: *mut Fint, ierror: *mut Fint) {
        get_attr(c::MPI_Type_get_attr, *datatype, *keyval, value, flag, ierror);
    }
}

fortran_fn! {
    /// `MPI_TYPE_SET_ATTR(DATATYPE, TYPE_KEYVAL, ATTRIBUTE_VAL, IERROR)`.
    fn mpi_type_set_attr_(datatype: *const Fint, keyval: *const Fint, value: *const Aint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Type_set_attr(*datatype, *keyval, (*value).to_c()));
    }
}

fortran_fn! {
    /// `MPI_COMM_SET_ATTR(COMM, COMM_KEYVAL, ATTRIBUTE_VAL, IERROR)`.
    fn mpi_comm_set_attr_(comm: *const Fint, keyval: *const Fint, value: *const Aint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Comm_set_attr(*comm, *keyval, (*value).to_c()));
    }
}

fortran_fn! {
    /// `MPI_ATTR_PUT(COMM, KEYVAL, ATTRIBUTE_VAL, IERROR)` (MPI-1).
    fn mpi_attr_put_(comm: *const Fint, keyval: *const Fint, value: *const Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Attr_put(*comm, *keyval, (*value).to_c()));
    }
}

/// Exports the three predefined Fortran callbacks of one attribute family
/// (values of type `$v`): null copy (copies nothing), dup (copies the
/// value) and null delete (does nothing).
macro_rules! predefined_callbacks {
    ($v:ty, $null_copy:ident, $dup:ident, $null_delete:ident) => {
        fortran_fn! {
            /// Predefined copy callback that copies nothing (`FLAG = .FALSE.`).
            fn $null_copy(_old: *const Fint, _keyval: *const Fint, _extra: *const $v, _value_in: *const $v, _value_out: *mut $v, flag: *mut Fint, ierror: *mut Fint) {
                write_out(flag, 0);
                set_ierror(ierror, crate::MPI_SUCCESS);
            }
        }
        fortran_fn! {
            /// Predefined copy callback that copies the value (`FLAG = .TRUE.`).
            fn $dup(_old: *const Fint, _keyval: *const Fint, _extra: *const $v, value_in: *const $v, value_out: *mut $v, flag: *mut Fint, ierror: *mut Fint) {
                write_out(value_out, *value_in);
                write_out(flag, 1);
                set_ierror(ierror, crate::MPI_SUCCESS);
            }
        }
        fortran_fn! {
            /// Predefined delete callback that does nothing.
            fn $null_delete(_comm: *const Fint, _keyval: *const Fint, _value: *const $v, _extra: *const $v, ierror: *mut Fint) {
                set_ierror(ierror, crate::MPI_SUCCESS);
            }
        }
    };
}

predefined_callbacks!(
    Aint,
    mpi_comm_null_copy_fn_,
    mpi_comm_dup_fn_,
    mpi_comm_null_delete_fn_
);
predefined_callbacks!(
    Aint,
    mpi_type_null_copy_fn_,
    mpi_type_dup_fn_,
    mpi_type_null_delete_fn_
);
predefined_callbacks!(
    Aint,
    mpi_win_null_copy_fn_,
    mpi_win_dup_fn_,
    mpi_win_null_delete_fn_
);
predefined_callbacks!(Fint, mpi_null_copy_fn_, mpi_dup_fn_, mpi_null_delete_fn_);

fortran_fn! {
    /// `MPI_CONVERSION_FN_NULL`, the data-representation conversion
    /// callback `EXTERNAL` in mpif.h: `MPI_REGISTER_DATAREP` recognises it
    /// by its address and converts nothing (see `datarep`).
    fn mpi_conversion_fn_null_(_userbuf: *mut c_void, _datatype: *const Fint, _count: *const Fint, _filebuf: *mut c_void, _position: *const i64, _extra: *const Aint, ierror: *mut Fint) {
        set_ierror(ierror, crate::MPI_SUCCESS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_keyvals_are_recognised_by_their_handle_kind() {
        // MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL of Debian's mpif.h.
        for k in [1681915906, 1681915908, 1681915910, 1681915912] {
            assert!(is_predefined(k), "{k:#x}");
        }
        // The C shim's created keyvals and MPI_KEYVAL_INVALID.
        for k in [0x2400_1000, 0x2400_1001, 603979776] {
            assert!(!is_predefined(k), "{k:#x}");
            assert_eq!(c_keyval(k), k);
        }
    }

    #[test]
    fn fortran_predefined_keyvals_map_to_the_c_ones() {
        // (mpif.h, mpi.h) values of MPI_TAG_UB, MPI_HOST, MPI_IO,
        // MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM.
        let pairs = [
            (0x6440_0002, 0x6440_0001),
            (0x6440_0004, 0x6440_0003),
            (0x6440_0006, 0x6440_0005),
            (0x6440_0008, 0x6440_0007),
            (0x6440_000a, 0x6440_0009),
            (0x6440_000c, 0x6440_000b),
            (0x6440_000e, 0x6440_000d),
        ];
        for (f, c) in pairs {
            assert_eq!(c_keyval(f), c, "{f:#x}");
        }
    }

    #[test]
    fn integer_values_survive_the_c_pointer() {
        for v in [0, 1, -1, i32::MAX, i32::MIN] {
            assert_eq!(Fint::from_c(v.to_c()), v);
        }
        for v in [0, -5, 1 << 40, isize::MIN] {
            assert_eq!(Aint::from_c(v.to_c()), v);
        }
    }
}
