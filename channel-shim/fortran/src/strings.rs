//! Fortran `CHARACTER` arguments: gfortran passes the address of the text
//! and, after all other arguments, its length (`size_t`). Fortran text has
//! no terminating NUL: outputs are blank-padded to the declared length,
//! inputs end at their last non-blank character.

use crate::{set_ierror, write_out, Fint};
use std::ffi::CString;
use std::os::raw::{c_char, c_int};

/// Copies `text` into a Fortran `CHARACTER*(len)`: as much as fits, then
/// blanks. Returns how many characters of `text` were written.
pub fn pad(out: &mut [u8], text: &[u8]) -> usize {
    let n = text.len().min(out.len());
    out[..n].copy_from_slice(&text[..n]);
    out[n..].fill(b' ');
    n
}

/// A Fortran input text without its trailing blanks, as a C string (cut at
/// an embedded NUL, which C could not see past anyway).
pub fn trimmed(text: &[u8]) -> CString {
    let end = text.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    let text = &text[..end];
    let text = text.split(|&b| b == 0).next().unwrap_or_default();
    CString::new(text).expect("no NUL left")
}

/// Runs a C function that writes a NUL-terminated text of at most
/// `c_capacity` bytes and its length (`MPI_Get_processor_name` and the
/// like), then stores the text blank-padded in the Fortran `CHARACTER`
/// argument `(out, out_len)`, the number of characters stored in
/// `resultlen`, and the C return code in `ierror`.
///
/// # Safety
/// `out` must be valid for `out_len` bytes; `resultlen` and `ierror` null or
/// valid for writing.
pub unsafe fn text_out(
    c_capacity: usize,
    call: impl FnOnce(*mut c_char, *mut c_int) -> c_int,
    out: *mut c_char,
    out_len: usize,
    resultlen: *mut Fint,
    ierror: *mut Fint,
) {
    let mut buf = vec![0u8; c_capacity + 1];
    let mut len: c_int = 0;
    let r = call(buf.as_mut_ptr() as *mut c_char, &mut len);
    let text_len = (len.max(0) as usize).min(c_capacity);
    let mut n = 0;
    if !out.is_null() {
        let out = std::slice::from_raw_parts_mut(out as *mut u8, out_len);
        n = pad(out, &buf[..text_len]);
    }
    write_out(resultlen, n as Fint);
    set_ierror(ierror, r);
}

/// A Fortran input `CHARACTER` argument as a C string.
///
/// # Safety
/// `text` must be null or valid for `len` bytes.
pub unsafe fn text_in(text: *const c_char, len: usize) -> CString {
    if text.is_null() {
        return CString::default();
    }
    trimmed(std::slice::from_raw_parts(text as *const u8, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_blank_padded_or_truncated() {
        let mut out = [b'?'; 8];
        assert_eq!(pad(&mut out, b"node1"), 5);
        assert_eq!(&out, b"node1   ");
        assert_eq!(pad(&mut out, b"a-long-hostname"), 8);
        assert_eq!(&out, b"a-long-h");
        assert_eq!(pad(&mut out, b""), 0);
        assert_eq!(&out, b"        ");
        assert_eq!(pad(&mut [], b"x"), 0);
    }

    #[test]
    fn input_loses_trailing_blanks_only() {
        assert_eq!(trimmed(b"  my comm   ").as_bytes(), b"  my comm");
        assert_eq!(trimmed(b"     ").as_bytes(), b"");
        assert_eq!(trimmed(b"").as_bytes(), b"");
        assert_eq!(trimmed(b"ab\0cd  ").as_bytes(), b"ab");
    }
}
