//! Info objects, communicator info and `MPI_ALLOC_MEM` from Fortran.
//!
//! Keys and values are `CHARACTER` arguments: as MPI says for Fortran,
//! leading and trailing blanks of a key or value given are not part of it;
//! values returned are blank-padded. `MPI_INFO_GET_STRING` copies at most
//! `BUFLEN` characters and sets `BUFLEN` to the value's length.

use crate::strings::{pad, text_out};
use crate::{c, set_ierror, write_out, Fint};
use std::ffi::CString;
use std::os::raw::{c_char, c_int};

fortran_wrappers! {
    fn mpi_info_create_ = MPI_Info_create(info: IntRef);
    fn mpi_info_dup_ = MPI_Info_dup(info: In, newinfo: IntRef);
    fn mpi_info_free_ = MPI_Info_free(info: IntRef);
    fn mpi_info_get_nkeys_ = MPI_Info_get_nkeys(info: In, nkeys: IntRef);
    fn mpi_comm_set_info_ = MPI_Comm_set_info(comm: In, info: In);
    fn mpi_comm_get_info_ = MPI_Comm_get_info(comm: In, info_used: IntRef);
    fn mpi_comm_dup_with_info_ = MPI_Comm_dup_with_info(comm: In, info: In, newcomm: IntRef);
    fn mpi_comm_idup_with_info_ = MPI_Comm_idup_with_info(comm: In, info: In, newcomm: IntRef, request: IntRef);
    fn mpi_alloc_mem_ = MPI_Alloc_mem(size: AintIn, info: In, baseptr: AintRef);
    fn mpi_free_mem_ = MPI_Free_mem(base: Location);
}

/// `MPI_MAX_INFO_KEY` of MPICH's C header (the buffer holds one more).
const MAX_INFO_KEY: usize = 255;

/// A Fortran key or value argument without its leading and trailing blanks.
///
/// # Safety
/// `text` must be null or valid for `len` bytes.
unsafe fn stripped(text: *const c_char, len: usize) -> CString {
    if text.is_null() {
        return CString::default();
    }
    let bytes = std::slice::from_raw_parts(text as *const u8, len);
    let start = bytes.iter().position(|&b| b != b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(start, |i| i + 1);
    let inner = &bytes[start..end];
    let inner = inner.split(|&b| b == 0).next().unwrap_or_default();
    CString::new(inner).expect("no NUL left")
}

/// Reads a value with `MPI_Info_get_valuelen` and `MPI_Info_get`: the
/// return code and the value if set.
unsafe fn value(info: c_int, key: &CString) -> (c_int, Option<Vec<u8>>) {
    let (mut len, mut flag) = (0, 0);
    let r = c::MPI_Info_get_valuelen(info, key.as_ptr(), &mut len, &mut flag);
    if r != crate::MPI_SUCCESS || flag == 0 {
        return (r, None);
    }
    let mut buf = vec![0u8; len.max(0) as usize + 1];
    let r = c::MPI_Info_get(
        info,
        key.as_ptr(),
        len,
        buf.as_mut_ptr() as *mut c_char,
        &mut flag,
    );
    buf.truncate(len.max(0) as usize);
    (r, (flag != 0).then_some(buf))
}

fortran_fn! {
    /// `MPI_INFO_SET(INFO, KEY, VALUE, IERROR)`.
    fn mpi_info_set_(info: *const Fint, key: *const c_char, value: *const c_char, ierror: *mut Fint, key_len: usize, value_len: usize) {
        let (k, v) = (stripped(key, key_len), stripped(value, value_len));
        set_ierror(ierror, c::MPI_Info_set(*info, k.as_ptr(), v.as_ptr()));
    }
}

fortran_fn! {
    /// `MPI_INFO_DELETE(INFO, KEY, IERROR)`.
    fn mpi_info_delete_(info: *const Fint, key: *const c_char, ierror: *mut Fint, key_len: usize) {
        let k = stripped(key, key_len);
        set_ierror(ierror, c::MPI_Info_delete(*info, k.as_ptr()));
    }
}

fortran_fn! {
    /// `MPI_INFO_GET(INFO, KEY, VALUELEN, VALUE, FLAG, IERROR)`: at most
    /// `VALUELEN` characters, blank-padded to `VALUE`'s length.
    fn mpi_info_get_(info: *const Fint, key: *const c_char, valuelen: *const Fint, out: *mut c_char, flag: *mut Fint, ierror: *mut Fint, key_len: usize, out_len: usize) {
        let k = stripped(key, key_len);
        let (r, v) = value(*info, &k);
        write_out(flag, v.is_some() as Fint);
        if let (Some(v), false) = (v, out.is_null()) {
            let n = out_len.min((*valuelen).max(0) as usize);
            let dst = std::slice::from_raw_parts_mut(out as *mut u8, out_len);
            pad(&mut dst[..n], &v);
            dst[n..].fill(b' ');
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_INFO_GET_STRING(INFO, KEY, BUFLEN, VALUE, FLAG, IERROR)`.
    fn mpi_info_get_string_(info: *const Fint, key: *const c_char, buflen: *mut Fint, out: *mut c_char, flag: *mut Fint, ierror: *mut Fint, key_len: usize, out_len: usize) {
        let k = stripped(key, key_len);
        let (r, v) = value(*info, &k);
        write_out(flag, v.is_some() as Fint);
        if let Some(v) = v {
            let n = out_len.min((*buflen).max(0) as usize);
            if n > 0 && !out.is_null() {
                let dst = std::slice::from_raw_parts_mut(out as *mut u8, out_len);
                pad(&mut dst[..n], &v);
                dst[n..].fill(b' ');
            }
            write_out(buflen, v.len() as Fint);
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_INFO_GET_VALUELEN(INFO, KEY, VALUELEN, FLAG, IERROR)`.
    fn mpi_info_get_valuelen_(info: *const Fint, key: *const c_char, valuelen: *mut Fint, flag: *mut Fint, ierror: *mut Fint, key_len: usize) {
        let k = stripped(key, key_len);
        set_ierror(ierror, c::MPI_Info_get_valuelen(*info, k.as_ptr(), valuelen, flag));
    }
}

fortran_fn! {
    /// `MPI_INFO_GET_NTHKEY(INFO, N, KEY, IERROR)`: keys count from 0.
    fn mpi_info_get_nthkey_(info: *const Fint, n: *const Fint, key: *mut c_char, ierror: *mut Fint, key_len: usize) {
        let (info, n) = (*info, *n);
        text_out(MAX_INFO_KEY + 1, |k, l| {
            let r = c::MPI_Info_get_nthkey(info, n, k);
            let end = (0..=MAX_INFO_KEY).find(|&i| *k.add(i) == 0).unwrap_or(MAX_INFO_KEY);
            write_out(l, end as c_int);
            r
        }, key, key_len, std::ptr::null_mut(), ierror);
    }
}

fortran_fn! {
    /// `MPI_INFO_CREATE_ENV(INFO, IERROR)` (MPI 4.0): a copy of `MPI_INFO_ENV`.
    fn mpi_info_create_env_(info: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, c::MPI_Info_create_env(0, std::ptr::null_mut(), info));
    }
}

fortran_fn! {
    /// `MPI_PCONTROL(LEVEL)`: no `IERROR` in Fortran.
    fn mpi_pcontrol_(level: *const Fint) {
        c::MPI_Pcontrol(*level);
    }
}
