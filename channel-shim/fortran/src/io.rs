//! MPI-IO: the file routines. A Fortran file handle is the `INTEGER` of
//! `MPI_File_c2f` (0 for `MPI_FILE_NULL`); the C `MPI_File` is a pointer,
//! so every handle argument goes through [`FileIn`](crate::args::FileIn)
//! and the routines returning a handle (`MPI_FILE_OPEN`, `MPI_FILE_CLOSE`)
//! are written out. Offsets are `INTEGER(KIND=MPI_OFFSET_KIND)` (8 bytes).
//! A file error handler written in Fortran gets the handle by reference:
//! the C handler's `MPI_File *` points at the pointer whose low 32 bits
//! (little-endian) are the Fortran handle.

use crate::strings::{pad, text_in};
use crate::{set_ierror, write_out, Fint};
use std::os::raw::{c_char, c_int, c_void};

fortran_wrappers! {
    fn mpi_file_set_size_ = MPI_File_set_size(fh: FileIn, size: OffsetIn);
    fn mpi_file_preallocate_ = MPI_File_preallocate(fh: FileIn, size: OffsetIn);
    fn mpi_file_get_size_ = MPI_File_get_size(fh: FileIn, size: OffsetRef);
    fn mpi_file_get_group_ = MPI_File_get_group(fh: FileIn, group: IntRef);
    fn mpi_file_get_amode_ = MPI_File_get_amode(fh: FileIn, amode: IntRef);
    fn mpi_file_set_info_ = MPI_File_set_info(fh: FileIn, info: In);
    fn mpi_file_get_info_ = MPI_File_get_info(fh: FileIn, info_used: IntRef);
    fn mpi_file_seek_ = MPI_File_seek(fh: FileIn, offset: OffsetIn, whence: In);
    fn mpi_file_get_position_ = MPI_File_get_position(fh: FileIn, offset: OffsetRef);
    fn mpi_file_get_byte_offset_ = MPI_File_get_byte_offset(fh: FileIn, offset: OffsetIn, disp: OffsetRef);
    fn mpi_file_seek_shared_ = MPI_File_seek_shared(fh: FileIn, offset: OffsetIn, whence: In);
    fn mpi_file_get_position_shared_ = MPI_File_get_position_shared(fh: FileIn, offset: OffsetRef);
    fn mpi_file_sync_ = MPI_File_sync(fh: FileIn);
    fn mpi_file_set_atomicity_ = MPI_File_set_atomicity(fh: FileIn, flag: Logical);
    fn mpi_file_get_atomicity_ = MPI_File_get_atomicity(fh: FileIn, flag: IntRef);
    fn mpi_file_get_type_extent_ = MPI_File_get_type_extent(fh: FileIn, datatype: In, extent: AintRef);
    fn mpi_file_create_errhandler_ = MPI_File_create_errhandler(function: Procedure, errhandler: IntRef);
    fn mpi_file_set_errhandler_ = MPI_File_set_errhandler(fh: FileIn, errhandler: In);
    fn mpi_file_get_errhandler_ = MPI_File_get_errhandler(fh: FileIn, errhandler: IntRef);
    fn mpi_file_call_errhandler_ = MPI_File_call_errhandler(fh: FileIn, errorcode: In);
    fn mpi_file_write_at_ = MPI_File_write_at(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iwrite_at_ = MPI_File_iwrite_at(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_read_at_ = MPI_File_read_at(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iread_at_ = MPI_File_iread_at(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_write_at_all_ = MPI_File_write_at_all(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iwrite_at_all_ = MPI_File_iwrite_at_all(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_read_at_all_ = MPI_File_read_at_all(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iread_at_all_ = MPI_File_iread_at_all(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_write_ = MPI_File_write(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iwrite_ = MPI_File_iwrite(fh: FileIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_read_ = MPI_File_read(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iread_ = MPI_File_iread(fh: FileIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_write_all_ = MPI_File_write_all(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iwrite_all_ = MPI_File_iwrite_all(fh: FileIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_read_all_ = MPI_File_read_all(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iread_all_ = MPI_File_iread_all(fh: FileIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_write_shared_ = MPI_File_write_shared(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iwrite_shared_ = MPI_File_iwrite_shared(fh: FileIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_read_shared_ = MPI_File_read_shared(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_iread_shared_ = MPI_File_iread_shared(fh: FileIn, buf: Buf, count: In, datatype: In, request: IntRef);
    fn mpi_file_write_ordered_ = MPI_File_write_ordered(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_write_all_begin_ = MPI_File_write_all_begin(fh: FileIn, buf: Buf, count: In, datatype: In);
    fn mpi_file_write_all_end_ = MPI_File_write_all_end(fh: FileIn, buf: Buf, status: Status);
    fn mpi_file_write_at_all_begin_ = MPI_File_write_at_all_begin(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In);
    fn mpi_file_write_at_all_end_ = MPI_File_write_at_all_end(fh: FileIn, buf: Buf, status: Status);
    fn mpi_file_write_ordered_begin_ = MPI_File_write_ordered_begin(fh: FileIn, buf: Buf, count: In, datatype: In);
    fn mpi_file_write_ordered_end_ = MPI_File_write_ordered_end(fh: FileIn, buf: Buf, status: Status);
    fn mpi_file_read_ordered_ = MPI_File_read_ordered(fh: FileIn, buf: Buf, count: In, datatype: In, status: Status);
    fn mpi_file_read_all_begin_ = MPI_File_read_all_begin(fh: FileIn, buf: Buf, count: In, datatype: In);
    fn mpi_file_read_all_end_ = MPI_File_read_all_end(fh: FileIn, buf: Buf, status: Status);
    fn mpi_file_read_at_all_begin_ = MPI_File_read_at_all_begin(fh: FileIn, offset: OffsetIn, buf: Buf, count: In, datatype: In);
    fn mpi_file_read_at_all_end_ = MPI_File_read_at_all_end(fh: FileIn, buf: Buf, status: Status);
    fn mpi_file_read_ordered_begin_ = MPI_File_read_ordered_begin(fh: FileIn, buf: Buf, count: In, datatype: In);
    fn mpi_file_read_ordered_end_ = MPI_File_read_ordered_end(fh: FileIn, buf: Buf, status: Status);
}

extern "C" {
    fn MPI_File_open(
        comm: c_int,
        filename: *const c_char,
        amode: c_int,
        info: c_int,
        fh: *mut *mut c_void,
    ) -> c_int;
    fn MPI_File_close(fh: *mut *mut c_void) -> c_int;
    fn MPI_File_delete(filename: *const c_char, info: c_int) -> c_int;
    fn MPI_File_set_view(
        fh: *mut c_void,
        disp: i64,
        etype: c_int,
        filetype: c_int,
        datarep: *const c_char,
        info: c_int,
    ) -> c_int;
    fn MPI_File_get_view(
        fh: *mut c_void,
        disp: *mut i64,
        etype: *mut c_int,
        filetype: *mut c_int,
        datarep: *mut c_char,
    ) -> c_int;
    fn MPI_File_c2f(fh: *mut c_void) -> c_int;
    fn MPI_File_f2c(fh: c_int) -> *mut c_void;
}

/// `MPI_MAX_DATAREP_STRING`.
const MAX_DATAREP: usize = 128;

fortran_fn! {
    /// `MPI_FILE_OPEN(COMM, FILENAME, AMODE, INFO, FH, IERROR)`.
    fn mpi_file_open_(comm: *const Fint, filename: *const c_char, amode: *const Fint, info: *const Fint, fh: *mut Fint, ierror: *mut Fint, filename_len: usize) {
        let name = text_in(filename, filename_len);
        let mut h: *mut c_void = std::ptr::null_mut();
        let r = MPI_File_open(*comm, name.as_ptr(), *amode, *info, &mut h);
        if r == 0 {
            write_out(fh, MPI_File_c2f(h));
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_FILE_CLOSE(FH, IERROR)`.
    fn mpi_file_close_(fh: *mut Fint, ierror: *mut Fint) {
        let mut h = MPI_File_f2c(*fh);
        let r = MPI_File_close(&mut h);
        if r == 0 {
            write_out(fh, MPI_File_c2f(h));
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_FILE_DELETE(FILENAME, INFO, IERROR)`.
    fn mpi_file_delete_(filename: *const c_char, info: *const Fint, ierror: *mut Fint, filename_len: usize) {
        let name = text_in(filename, filename_len);
        set_ierror(ierror, MPI_File_delete(name.as_ptr(), *info));
    }
}

fortran_fn! {
    /// `MPI_FILE_SET_VIEW(FH, DISP, ETYPE, FILETYPE, DATAREP, INFO, IERROR)`.
    fn mpi_file_set_view_(fh: *const Fint, disp: *const i64, etype: *const Fint, filetype: *const Fint, datarep: *const c_char, info: *const Fint, ierror: *mut Fint, datarep_len: usize) {
        let rep = text_in(datarep, datarep_len);
        set_ierror(ierror, MPI_File_set_view(MPI_File_f2c(*fh), *disp, *etype, *filetype, rep.as_ptr(), *info));
    }
}

fortran_fn! {
    /// `MPI_FILE_GET_VIEW(FH, DISP, ETYPE, FILETYPE, DATAREP, IERROR)`.
    fn mpi_file_get_view_(fh: *const Fint, disp: *mut i64, etype: *mut Fint, filetype: *mut Fint, datarep: *mut c_char, ierror: *mut Fint, datarep_len: usize) {
        let mut buf = vec![0u8; MAX_DATAREP + 1];
        let r = MPI_File_get_view(MPI_File_f2c(*fh), disp, etype, filetype, buf.as_mut_ptr() as *mut c_char);
        if !datarep.is_null() {
            let n = buf.iter().position(|&b| b == 0).unwrap_or(MAX_DATAREP);
            pad(std::slice::from_raw_parts_mut(datarep as *mut u8, datarep_len), &buf[..n]);
        }
        set_ierror(ierror, r);
    }
}
