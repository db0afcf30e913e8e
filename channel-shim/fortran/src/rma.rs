//! One-sided communication: windows, operations (and their request-based
//! forms), fence, post/start/complete/wait, locks and flushes. `MPI_WIN_ALLOCATE`'s `BASEPTR` and
//! `MPI_WIN_GET_ATTR`'s values are `INTEGER(KIND=MPI_ADDRESS_KIND)`:
//! `MPI_WIN_BASE` reads as the address, `MPI_WIN_SIZE`,
//! `MPI_WIN_DISP_UNIT`, `MPI_WIN_CREATE_FLAVOR` and `MPI_WIN_MODEL` as
//! their values (the C attributes point at them).

use crate::attr::{c_keyval, create_keyval, FCopyFn, FDeleteFn};
use crate::comm::MAX_OBJECT_NAME;
use crate::strings::{text_in, text_out};
use crate::{set_ierror, write_out, Aint, Fint};
use std::os::raw::{c_char, c_int, c_void};

fortran_wrappers! {
    fn mpi_win_create_ = MPI_Win_create(base: Buf, size: AintIn, disp_unit: In, info: In, comm: In, win: IntRef);
    fn mpi_win_create_dynamic_ = MPI_Win_create_dynamic(info: In, comm: In, win: IntRef);
    fn mpi_win_attach_ = MPI_Win_attach(win: In, base: Buf, size: AintIn);
    fn mpi_win_detach_ = MPI_Win_detach(win: In, base: Buf);
    fn mpi_win_allocate_ = MPI_Win_allocate(size: AintIn, disp_unit: In, info: In, comm: In, baseptr: AintRef, win: IntRef);
    fn mpi_win_allocate_shared_ = MPI_Win_allocate_shared(size: AintIn, disp_unit: In, info: In, comm: In, baseptr: AintRef, win: IntRef);
    fn mpi_win_shared_query_ = MPI_Win_shared_query(win: In, rank: In, size: AintRef, disp_unit: IntRef, baseptr: AintRef);
    fn mpi_win_free_ = MPI_Win_free(win: IntRef);
    fn mpi_win_get_group_ = MPI_Win_get_group(win: In, group: IntRef);
    fn mpi_win_fence_ = MPI_Win_fence(assert: In, win: In);
    fn mpi_win_post_ = MPI_Win_post(group: In, assert: In, win: In);
    fn mpi_win_start_ = MPI_Win_start(group: In, assert: In, win: In);
    fn mpi_win_complete_ = MPI_Win_complete(win: In);
    fn mpi_win_wait_ = MPI_Win_wait(win: In);
    fn mpi_win_test_ = MPI_Win_test(win: In, flag: IntRef);
    fn mpi_put_ = MPI_Put(origin_addr: Buf, origin_count: In, origin_datatype: In, target_rank: In,
                          target_disp: AintIn, target_count: In, target_datatype: In, win: In);
    fn mpi_get_ = MPI_Get(origin_addr: Buf, origin_count: In, origin_datatype: In, target_rank: In,
                          target_disp: AintIn, target_count: In, target_datatype: In, win: In);
    fn mpi_accumulate_ = MPI_Accumulate(origin_addr: Buf, origin_count: In, origin_datatype: In, target_rank: In,
                                        target_disp: AintIn, target_count: In, target_datatype: In, op: In, win: In);
    fn mpi_get_accumulate_ = MPI_Get_accumulate(origin_addr: Buf, origin_count: In, origin_datatype: In,
                                                result_addr: Buf, result_count: In, result_datatype: In,
                                                target_rank: In, target_disp: AintIn, target_count: In,
                                                target_datatype: In, op: In, win: In);
    fn mpi_fetch_and_op_ = MPI_Fetch_and_op(origin_addr: Buf, result_addr: Buf, datatype: In, target_rank: In,
                                            target_disp: AintIn, op: In, win: In);
    fn mpi_compare_and_swap_ = MPI_Compare_and_swap(origin_addr: Buf, compare_addr: Buf, result_addr: Buf,
                                                    datatype: In, target_rank: In, target_disp: AintIn, win: In);
    fn mpi_win_create_errhandler_ = MPI_Win_create_errhandler(function: Procedure, errhandler: IntRef);
    fn mpi_win_set_errhandler_ = MPI_Win_set_errhandler(win: In, errhandler: In);
    fn mpi_win_get_errhandler_ = MPI_Win_get_errhandler(win: In, errhandler: IntRef);
    fn mpi_win_call_errhandler_ = MPI_Win_call_errhandler(win: In, errorcode: In);
    fn mpi_win_free_keyval_ = MPI_Win_free_keyval(keyval: IntRef);
    fn mpi_win_lock_ = MPI_Win_lock(lock_type: In, rank: In, assert: In, win: In);
    fn mpi_win_unlock_ = MPI_Win_unlock(rank: In, win: In);
    fn mpi_win_lock_all_ = MPI_Win_lock_all(assert: In, win: In);
    fn mpi_win_unlock_all_ = MPI_Win_unlock_all(win: In);
    fn mpi_win_flush_ = MPI_Win_flush(rank: In, win: In);
    fn mpi_win_flush_local_ = MPI_Win_flush_local(rank: In, win: In);
    fn mpi_win_flush_all_ = MPI_Win_flush_all(win: In);
    fn mpi_win_flush_local_all_ = MPI_Win_flush_local_all(win: In);
    fn mpi_win_sync_ = MPI_Win_sync(win: In);
    fn mpi_win_set_info_ = MPI_Win_set_info(win: In, info: In);
    fn mpi_win_get_info_ = MPI_Win_get_info(win: In, info_used: IntRef);
    fn mpi_rput_ = MPI_Rput(origin_addr: Buf, origin_count: In, origin_datatype: In, target_rank: In,
                            target_disp: AintIn, target_count: In, target_datatype: In, win: In, request: IntRef);
    fn mpi_rget_ = MPI_Rget(origin_addr: Buf, origin_count: In, origin_datatype: In, target_rank: In,
                            target_disp: AintIn, target_count: In, target_datatype: In, win: In, request: IntRef);
    fn mpi_raccumulate_ = MPI_Raccumulate(origin_addr: Buf, origin_count: In, origin_datatype: In, target_rank: In,
                                          target_disp: AintIn, target_count: In, target_datatype: In, op: In, win: In,
                                          request: IntRef);
    fn mpi_rget_accumulate_ = MPI_Rget_accumulate(origin_addr: Buf, origin_count: In, origin_datatype: In,
                                                  result_addr: Buf, result_count: In, result_datatype: In,
                                                  target_rank: In, target_disp: AintIn, target_count: In,
                                                  target_datatype: In, op: In, win: In, request: IntRef);
    fn mpi_win_delete_attr_ = MPI_Win_delete_attr(win: In, keyval: In);
}

extern "C" {
    fn MPI_Win_get_attr(win: c_int, keyval: c_int, value: *mut c_void, flag: *mut c_int) -> c_int;
    fn MPI_Win_set_attr(win: c_int, keyval: c_int, value: *mut c_void) -> c_int;
    fn MPI_Win_set_name(win: c_int, name: *const c_char) -> c_int;
    fn MPI_Win_get_name(win: c_int, name: *mut c_char, resultlen: *mut c_int) -> c_int;
    fn MPI_Win_create_keyval(
        copy: Option<crate::attr::CCopyFn>,
        delete: Option<crate::attr::CDeleteFn>,
        keyval: *mut c_int,
        extra: *mut c_void,
    ) -> c_int;
}

/// mpi.h's `MPI_WIN_BASE`: its attribute value is the address itself.
const WIN_BASE: c_int = 0x6600_0001;
/// mpi.h's `MPI_WIN_SIZE`: points at an `MPI_Aint`.
const WIN_SIZE: c_int = 0x6600_0003;

fortran_fn! {
    /// `MPI_WIN_GET_ATTR(WIN, WIN_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)`.
    fn mpi_win_get_attr_(win: *const Fint, keyval: *const Fint, value: *mut Aint, flag: *mut Fint, ierror: *mut Fint) {
        let k = c_keyval(*keyval);
        let mut p: *mut c_void = std::ptr::null_mut();
        let mut found: c_int = 0;
        let r = MPI_Win_get_attr(*win, k, &mut p as *mut *mut c_void as *mut c_void, &mut found);
        if r == crate::MPI_SUCCESS && found != 0 {
            let v = match k {
                WIN_BASE => p as Aint,
                WIN_SIZE => *(p as *const Aint),
                // WIN_DISP_UNIT, WIN_CREATE_FLAVOR, WIN_MODEL point at an int.
                0x6600_0005..=0x6600_0009 => *(p as *const c_int) as Aint,
                _ => crate::attr::fortran_value(p),
            };
            write_out(value, v);
        }
        write_out(flag, (found != 0) as Fint);
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_WIN_SET_ATTR(WIN, WIN_KEYVAL, ATTRIBUTE_VAL, IERROR)`.
    fn mpi_win_set_attr_(win: *const Fint, keyval: *const Fint, value: *const Aint, ierror: *mut Fint) {
        set_ierror(ierror, MPI_Win_set_attr(*win, *keyval, crate::attr::fortran_cell(*value)));
    }
}

fortran_fn! {
    /// `MPI_WIN_CREATE_KEYVAL(WIN_COPY_ATTR_FN, WIN_DELETE_ATTR_FN,
    /// WIN_KEYVAL, EXTRA_STATE, IERROR)`.
    fn mpi_win_create_keyval_(copy: Option<FCopyFn<Aint>>, delete: Option<FDeleteFn<Aint>>, keyval: *mut Fint, extra: *const Aint, ierror: *mut Fint) {
        create_keyval(MPI_Win_create_keyval, copy, delete, keyval, *extra, ierror);
    }
}

fortran_fn! {
    /// `MPI_WIN_SET_NAME(WIN, WIN_NAME, IERROR)`: trailing blanks are not
    /// part of the name.
    fn mpi_win_set_name_(win: *const Fint, name: *const c_char, ierror: *mut Fint, name_len: usize) {
        let name = text_in(name, name_len);
        set_ierror(ierror, MPI_Win_set_name(*win, name.as_ptr()));
    }
}

fortran_fn! {
    /// `MPI_WIN_GET_NAME(WIN, WIN_NAME, RESULTLEN, IERROR)`.
    fn mpi_win_get_name_(win: *const Fint, name: *mut c_char, resultlen: *mut Fint, ierror: *mut Fint, name_len: usize) {
        let win = *win;
        text_out(MAX_OBJECT_NAME, |t, l| MPI_Win_get_name(win, t, l), name, name_len, resultlen, ierror);
    }
}
