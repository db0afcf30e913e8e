//! MPI-IO (`MPI_File_*`): the C arguments of the file calls. The engine
//! (`shim_engine::io`) opens the files, maps views and runs the
//! collective exchanges; here are handles, buffers, statuses, requests
//! and the files' error handlers.
//!
//! `MPI_File` is a pointer in MPICH's ABI (ROMIO's): a file's C handle is
//! its table index plus one as an address (never dereferenced), its
//! Fortran handle the same number. Errors go to the file's handler, or
//! `MPI_FILE_NULL`'s (`MPI_ERRORS_RETURN` until the program changes it).

use crate::abi::*;
use crate::ffi::buffers::{region, region_mut, write_status};
use crate::ffi::engine_access::engine;
use crate::ffi::errors::{apply, create_errhandler, error_class, handler_function, HandlerFn};
use crate::ffi::handles::*;
use crate::ffi::info::{info_to, pairs_of, with_infos};
use crate::ffi::io_datarep::{
    converted_read, converted_write, file_registered_sizes, registered_sizes,
};
use crate::ffi::{write_c_string, write_out};
use crate::runtime::{self, GatewayTransport};
use shim_engine::datatype::BuiltinType;
use shim_engine::io::access::Position;
use shim_engine::io::open::Whence;
use shim_engine::io::FileId;
use shim_engine::{DatatypeId, Engine, ErrorAction, MpiError, Status};
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Mutex;

/// `MPI_File` as C passes it.
pub type MpiFile = *mut c_void;

/// `MPI_Offset`.
pub type MpiOffset = i64;

/// `MPI_ERR_FILE`.
const ERR_FILE: MpiError = MpiError::Code(MPI_ERR_FILE);

/// The file a handle names.
pub fn file_from(h: MpiFile) -> Result<FileId, MpiError> {
    let v = h as usize;
    if v == 0 || v > u32::MAX as usize {
        return Err(ERR_FILE);
    }
    Ok(FileId(v as u32 - 1))
}

/// The handle of a file.
pub fn file_to(f: FileId) -> MpiFile {
    (f.0 as usize + 1) as MpiFile
}

/// The Fortran handle of a file (`MPI_File_c2f`): 0 for `MPI_FILE_NULL`.
pub fn file_c2f(h: MpiFile) -> c_int {
    file_from(h).map_or(0, |f| f.0 as c_int + 1)
}

/// The C handle of a Fortran file handle (`MPI_File_f2c`).
pub fn file_f2c(h: c_int) -> MpiFile {
    if h <= 0 {
        std::ptr::null_mut()
    } else {
        file_to(FileId(h as u32 - 1))
    }
}

/// Atomic mode's whole-file lock: `flock` on the rank's own descriptor
/// of the file (each rank opened the file itself, so the ranks' locks
/// exclude each other as processes' do).
fn lock_file(file: &std::fs::File, lock: shim_engine::io::Lock) -> std::io::Result<()> {
    use shim_engine::io::Lock;
    use std::os::unix::io::AsRawFd;
    let op = match lock {
        Lock::Shared => libc::LOCK_SH,
        Lock::Exclusive => libc::LOCK_EX,
        Lock::Unlock => libc::LOCK_UN,
    };
    loop {
        // SAFETY: flock on a descriptor the open `File` owns.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Handles error `code` of `func` on file `fh` with the file's handler.
fn file_fail_code(fh: MpiFile, func: &str, code: c_int) -> c_int {
    if runtime::engine_held_by_this_thread() {
        return code;
    }
    let action = runtime::with_engine(|e| e.file_error_handling(file_from(fh).ok()))
        .unwrap_or(ErrorAction::Abort);
    match action {
        ErrorAction::Call(fns) => {
            if let Some(f) = handler_function(&fns) {
                let (mut h, mut k) = (fh, code);
                // SAFETY: the program created the handler from an
                // MPI_File_errhandler_function, whose first argument is an
                // MPI_File pointer.
                unsafe { f(&mut h as *mut MpiFile as *mut c_int, &mut k) };
            }
            code
        }
        other => apply(other, MPI_COMM_WORLD, func, code),
    }
}

/// Handles an error of `func` on file `fh`.
pub fn file_fail(fh: MpiFile, func: &str, e: MpiError) -> c_int {
    file_fail_code(fh, func, error_class(e))
}

/// Turns a file call's result into its return code.
pub fn file_finish(fh: MpiFile, func: &str, r: Result<(), MpiError>) -> c_int {
    match r {
        Ok(()) => MPI_SUCCESS,
        Err(e) => file_fail(fh, func, e),
    }
}

/// A C string argument.
unsafe fn text<'a>(p: *const c_char, e: MpiError) -> Result<&'a str, MpiError> {
    if p.is_null() {
        return Err(e);
    }
    CStr::from_ptr(p).to_str().map_err(|_| e)
}

/// Writes the status of a file access that moved `bytes` bytes of memory.
unsafe fn write_file_status(status: *mut MpiStatus, bytes: u64) {
    write_status(
        status,
        &Status {
            count_bytes: bytes,
            ..Status::empty()
        },
    );
}

type Eng = Engine<GatewayTransport>;

/// Which access a read or write call makes.
#[derive(Clone, Copy)]
pub(crate) enum Access {
    /// Independent, at an explicit offset or the individual pointer.
    Independent(Position),
    /// Collective (`_all`), at an explicit offset or the individual pointer.
    Collective(Position),
    /// `_shared`.
    Shared,
    /// `_ordered`.
    Ordered,
}

fn run_write(
    e: &mut Eng,
    f: FileId,
    a: Access,
    buf: &[u8],
    n: usize,
    dt: DatatypeId,
) -> Result<u64, MpiError> {
    match a {
        Access::Independent(p) => e.file_write(f, p, buf, n, dt),
        Access::Collective(p) => e.file_write_all(f, p, buf, n, dt),
        Access::Shared => e.file_write_shared(f, buf, n, dt),
        Access::Ordered => e.file_write_ordered(f, buf, n, dt),
    }
}

fn run_read(
    e: &mut Eng,
    f: FileId,
    a: Access,
    buf: &mut [u8],
    n: usize,
    dt: DatatypeId,
) -> Result<u64, MpiError> {
    match a {
        Access::Independent(p) => e.file_read(f, p, buf, n, dt),
        Access::Collective(p) => e.file_read_all(f, p, buf, n, dt),
        Access::Shared => e.file_read_shared(f, buf, n, dt),
        Access::Ordered => e.file_read_ordered(f, buf, n, dt),
    }
}

/// A count argument of either width.
fn count_of(count: i64) -> Result<usize, MpiError> {
    usize::try_from(count).map_err(|_| MpiError::Count)
}

/// Writes `count` × `datatype` from `buf`; returns the memory bytes written.
pub(crate) unsafe fn write_bytes(
    func: &str,
    fh: MpiFile,
    a: Access,
    buf: *const c_void,
    count: i64,
    datatype: c_int,
) -> Result<u64, MpiError> {
    let f = file_from(fh)?;
    let (dt, n) = (datatype_from(datatype)?, count_of(count)?);
    if let Some(rep) = engine(func, |e| e.file_registered_datarep(f))? {
        return converted_write(func, f, rep, a, buf, n, datatype);
    }
    engine(func, |e| {
        let span = e.datatypes().span(dt, n)?;
        run_write(e, f, a, region(buf, span), n, dt)
    })
}

/// Writes file bytes `data` (already in the view's representation).
pub(crate) fn run_write_bytes(
    func: &str,
    f: FileId,
    a: Access,
    data: &[u8],
) -> Result<u64, MpiError> {
    engine(func, |e| {
        run_write(e, f, a, data, data.len(), BuiltinType::Byte.into())
    })
}

/// Reads file bytes into `data`; returns how many it read.
pub(crate) fn run_read_bytes(
    func: &str,
    f: FileId,
    a: Access,
    data: &mut [u8],
) -> Result<u64, MpiError> {
    let n = data.len();
    engine(func, |e| {
        run_read(e, f, a, data, n, BuiltinType::Byte.into())
    })
}

/// Reads up to `count` × `datatype` into `buf`; returns the memory bytes read.
pub(crate) unsafe fn read_bytes(
    func: &str,
    fh: MpiFile,
    a: Access,
    buf: *mut c_void,
    count: i64,
    datatype: c_int,
) -> Result<u64, MpiError> {
    let f = file_from(fh)?;
    let (dt, n) = (datatype_from(datatype)?, count_of(count)?);
    if let Some(rep) = engine(func, |e| e.file_registered_datarep(f))? {
        return converted_read(func, f, rep, a, buf, n, datatype);
    }
    engine(func, |e| {
        let span = e.datatypes().span(dt, n)?;
        run_read(e, f, a, region_mut(buf, span), n, dt)
    })
}

/// A blocking write call.
pub(crate) unsafe fn write_call(
    func: &str,
    fh: MpiFile,
    a: Access,
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    status: *mut MpiStatus,
) -> c_int {
    let r = write_bytes(func, fh, a, buf, count, datatype).map(|n| write_file_status(status, n));
    file_finish(fh, func, r)
}

/// A blocking read call.
pub(crate) unsafe fn read_call(
    func: &str,
    fh: MpiFile,
    a: Access,
    buf: *mut c_void,
    count: i64,
    datatype: c_int,
    status: *mut MpiStatus,
) -> c_int {
    let r = read_bytes(func, fh, a, buf, count, datatype).map(|n| write_file_status(status, n));
    file_finish(fh, func, r)
}

/// A nonblocking write: done at the call, its request already complete.
pub(crate) unsafe fn iwrite_call(
    func: &str,
    fh: MpiFile,
    a: Access,
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    request: *mut c_int,
) -> c_int {
    let r = write_bytes(func, fh, a, buf, count, datatype)
        .and_then(|n| engine(func, |e| Ok(e.io_done_request(n))))
        .map(|q| write_out(request, request_to(q)));
    file_finish(fh, func, r)
}

/// A nonblocking read: done at the call, its request already complete.
pub(crate) unsafe fn iread_call(
    func: &str,
    fh: MpiFile,
    a: Access,
    buf: *mut c_void,
    count: i64,
    datatype: c_int,
    request: *mut c_int,
) -> c_int {
    let r = read_bytes(func, fh, a, buf, count, datatype)
        .and_then(|n| engine(func, |e| Ok(e.io_done_request(n))))
        .map(|q| write_out(request, request_to(q)));
    file_finish(fh, func, r)
}

// ---- open, close, delete ----

/// The storage node's endpoint the launcher names when the network file
/// has a `[[storage]]` node (see `shim_engine::io::storage`).
fn storage_endpoint() -> Option<u32> {
    std::env::var(mpinetsim_protocol::storage::ENV_STORAGE_ENDPOINT)
        .ok()
        .and_then(|v| v.trim().parse().ok())
}

mpi_fn! { fn MPI_File_open(comm: c_int, filename: *const c_char, amode: c_int, info: c_int, fh: *mut MpiFile) {
    let func = "MPI_File_open";
    let r = (|| {
        let c = comm_from(comm)?;
        let name = text(filename, MpiError::Code(MPI_ERR_BAD_FILE))?;
        let hints = pairs_of(info)?;
        let storage = storage_endpoint();
        let f = engine(func, |e| {
            e.set_file_locker(lock_file);
            if let Some(endpoint) = storage {
                e.use_storage_node(endpoint);
            }
            e.file_open(c, name, amode, hints)
        })?;
        // The shared file pointer is a window.
        crate::runtime::serve_one_sided_while_computing();
        write_out(fh, file_to(f));
        Ok(())
    })();
    file_finish(std::ptr::null_mut(), func, r)
} }

mpi_fn! { fn MPI_File_close(fh: *mut MpiFile) {
    let func = "MPI_File_close";
    if fh.is_null() {
        return file_fail(std::ptr::null_mut(), func, MpiError::Arg);
    }
    let h = *fh;
    let r = file_from(h).and_then(|f| engine(func, |e| e.file_close(f)));
    if r.is_ok() {
        write_out(fh, std::ptr::null_mut());
    }
    file_finish(h, func, r)
} }

mpi_fn! { fn MPI_File_delete(filename: *const c_char, _info: c_int) {
    let func = "MPI_File_delete";
    let r = text(filename, MpiError::Code(MPI_ERR_BAD_FILE)).and_then(|name| engine(func, |e| e.file_delete(name)));
    file_finish(std::ptr::null_mut(), func, r)
} }

// ---- size, mode, group, hints ----

mpi_fn! { fn MPI_File_set_size(fh: MpiFile, size: MpiOffset) {
    let func = "MPI_File_set_size";
    file_finish(fh, func, file_from(fh).and_then(|f| engine(func, |e| e.file_set_size(f, size))))
} }

mpi_fn! { fn MPI_File_preallocate(fh: MpiFile, size: MpiOffset) {
    let func = "MPI_File_preallocate";
    file_finish(fh, func, file_from(fh).and_then(|f| engine(func, |e| e.file_preallocate(f, size))))
} }

mpi_fn! { fn MPI_File_get_size(fh: MpiFile, size: *mut MpiOffset) {
    let func = "MPI_File_get_size";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_size(f)));
    file_finish(fh, func, r.map(|n| write_out(size, n as MpiOffset)))
} }

mpi_fn! { fn MPI_File_get_amode(fh: MpiFile, amode: *mut c_int) {
    let func = "MPI_File_get_amode";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_amode(f)));
    file_finish(fh, func, r.map(|m| write_out(amode, m)))
} }

mpi_fn! { fn MPI_File_get_group(fh: MpiFile, group: *mut c_int) {
    let func = "MPI_File_get_group";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_group(f)));
    file_finish(fh, func, r.map(|g| write_out(group, group_to(g))))
} }

mpi_fn! { fn MPI_File_set_info(fh: MpiFile, info: c_int) {
    let func = "MPI_File_set_info";
    let r = (|| {
        let f = file_from(fh)?;
        let hints = pairs_of(info)?;
        engine(func, |e| e.file_set_hints(f, hints))
    })();
    file_finish(fh, func, r)
} }

mpi_fn! { fn MPI_File_get_info(fh: MpiFile, info_used: *mut c_int) {
    let func = "MPI_File_get_info";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_hints(f))).map(|hints| {
        let id = with_infos(|t| t.create_from(hints));
        write_out(info_used, info_to(id));
    });
    file_finish(fh, func, r)
} }

// ---- views and pointers ----

mpi_fn! { fn MPI_File_set_view(fh: MpiFile, disp: MpiOffset, etype: c_int, filetype: c_int, datarep: *const c_char, _info: c_int) {
    let func = "MPI_File_set_view";
    let r = (|| {
        let f = file_from(fh)?;
        let (et, ft) = (datatype_from(etype)?, datatype_from(filetype)?);
        let rep = text(datarep, MpiError::Code(MPI_ERR_UNSUPPORTED_DATAREP))?;
        // A failing extent callback fails the view inside the collective,
        // so every rank returns.
        let sizes = registered_sizes(func, rep, &[et, ft]);
        engine(func, |e| e.file_set_view(f, disp, et, ft, rep, sizes.as_ref().map_err(|e| *e)))
    })();
    file_finish(fh, func, r)
} }

mpi_fn! { fn MPI_File_get_view(fh: MpiFile, disp: *mut MpiOffset, etype: *mut c_int, filetype: *mut c_int, datarep: *mut c_char) {
    let func = "MPI_File_get_view";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_view(f))).map(|(d, et, ft, rep)| {
        write_out(disp, d);
        write_out(etype, datatype_to(et));
        write_out(filetype, datatype_to(ft));
        write_c_string(datarep, MPI_MAX_DATAREP_STRING as usize, &rep);
    });
    file_finish(fh, func, r)
} }

fn whence_from(w: c_int) -> Result<Whence, MpiError> {
    match w {
        MPI_SEEK_SET => Ok(Whence::Set),
        MPI_SEEK_CUR => Ok(Whence::Cur),
        MPI_SEEK_END => Ok(Whence::End),
        _ => Err(MpiError::Arg),
    }
}

mpi_fn! { fn MPI_File_seek(fh: MpiFile, offset: MpiOffset, whence: c_int) {
    let func = "MPI_File_seek";
    let r = file_from(fh).and_then(|f| { let w = whence_from(whence)?; engine(func, |e| e.file_seek(f, offset, w)) });
    file_finish(fh, func, r)
} }

mpi_fn! { fn MPI_File_get_position(fh: MpiFile, offset: *mut MpiOffset) {
    let func = "MPI_File_get_position";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_position(f)));
    file_finish(fh, func, r.map(|o| write_out(offset, o)))
} }

mpi_fn! { fn MPI_File_get_byte_offset(fh: MpiFile, offset: MpiOffset, disp: *mut MpiOffset) {
    let func = "MPI_File_get_byte_offset";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_byte_offset(f, offset)));
    file_finish(fh, func, r.map(|o| write_out(disp, o)))
} }

mpi_fn! { fn MPI_File_seek_shared(fh: MpiFile, offset: MpiOffset, whence: c_int) {
    let func = "MPI_File_seek_shared";
    let r = file_from(fh).and_then(|f| { let w = whence_from(whence)?; engine(func, |e| e.file_seek_shared(f, offset, w)) });
    file_finish(fh, func, r)
} }

mpi_fn! { fn MPI_File_get_position_shared(fh: MpiFile, offset: *mut MpiOffset) {
    let func = "MPI_File_get_position_shared";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_position_shared(f)));
    file_finish(fh, func, r.map(|o| write_out(offset, o)))
} }

// ---- consistency ----

mpi_fn! { fn MPI_File_sync(fh: MpiFile) {
    let func = "MPI_File_sync";
    file_finish(fh, func, file_from(fh).and_then(|f| engine(func, |e| e.file_sync(f))))
} }

mpi_fn! { fn MPI_File_set_atomicity(fh: MpiFile, flag: c_int) {
    let func = "MPI_File_set_atomicity";
    file_finish(fh, func, file_from(fh).and_then(|f| engine(func, |e| e.file_set_atomicity(f, flag != 0))))
} }

mpi_fn! { fn MPI_File_get_atomicity(fh: MpiFile, flag: *mut c_int) {
    let func = "MPI_File_get_atomicity";
    let r = file_from(fh).and_then(|f| engine(func, |e| e.file_atomicity(f)));
    file_finish(fh, func, r.map(|a| write_out(flag, a as c_int)))
} }

/// `MPI_File_get_type_extent`: the extent of `datatype` in the view's representation.
unsafe fn file_type_extent(func: &str, fh: MpiFile, datatype: c_int) -> Result<i64, MpiError> {
    let f = file_from(fh)?;
    let dt = datatype_from(datatype)?;
    let sizes = file_registered_sizes(func, f, &[dt])?;
    engine(func, |e| e.file_type_extent(f, dt, &sizes))
}

mpi_fn! { fn MPI_File_get_type_extent(fh: MpiFile, datatype: c_int, extent: *mut isize) {
    let func = "MPI_File_get_type_extent";
    let r = file_type_extent(func, fh, datatype);
    file_finish(fh, func, r.map(|x| write_out(extent, x as isize)))
} }

mpi_fn! { fn MPI_File_get_type_extent_c(fh: MpiFile, datatype: c_int, extent: *mut i64) {
    let func = "MPI_File_get_type_extent_c";
    let r = file_type_extent(func, fh, datatype);
    file_finish(fh, func, r.map(|x| write_out(extent, x)))
} }

// ---- error handlers and handles ----

mpi_fn! { fn MPI_File_create_errhandler(file_errhandler_fn: Option<HandlerFn>, errhandler: *mut c_int) {
    create_errhandler("MPI_File_create_errhandler", file_errhandler_fn, errhandler)
} }

/// `None` for `MPI_FILE_NULL`, the file otherwise.
fn file_or_null(fh: MpiFile) -> Result<Option<FileId>, MpiError> {
    if fh.is_null() {
        Ok(None)
    } else {
        file_from(fh).map(Some)
    }
}

mpi_fn! { fn MPI_File_set_errhandler(fh: MpiFile, errhandler: c_int) {
    let func = "MPI_File_set_errhandler";
    let r = (|| {
        let f = file_or_null(fh)?;
        let h = errhandler_from(errhandler)?;
        engine(func, |e| e.file_set_errhandler(f, h))
    })();
    file_finish(fh, func, r)
} }

mpi_fn! { fn MPI_File_get_errhandler(fh: MpiFile, errhandler: *mut c_int) {
    let func = "MPI_File_get_errhandler";
    let r = file_or_null(fh).and_then(|f| engine(func, |e| e.file_get_errhandler(f)));
    file_finish(fh, func, r.map(|h| write_out(errhandler, errhandler_to(h))))
} }

mpi_fn! { fn MPI_File_call_errhandler(fh: MpiFile, errorcode: c_int) {
    let func = "MPI_File_call_errhandler";
    match file_or_null(fh) {
        Err(e) => file_fail(fh, func, e),
        Ok(_) => {
            file_fail_code(fh, func, errorcode);
            // MPI: success once the handler was called and returned.
            MPI_SUCCESS
        }
    }
} }

/// `MPI_File_c2f`.
#[no_mangle]
#[allow(non_snake_case)]
pub extern "C" fn MPI_File_c2f(fh: MpiFile) -> c_int {
    file_c2f(fh)
}

/// `PMPI_File_c2f`.
#[no_mangle]
#[allow(non_snake_case)]
pub extern "C" fn PMPI_File_c2f(fh: MpiFile) -> c_int {
    file_c2f(fh)
}

/// `MPI_File_f2c`.
#[no_mangle]
#[allow(non_snake_case)]
pub extern "C" fn MPI_File_f2c(fh: c_int) -> MpiFile {
    file_f2c(fh)
}

/// `PMPI_File_f2c`.
#[no_mangle]
#[allow(non_snake_case)]
pub extern "C" fn PMPI_File_f2c(fh: c_int) -> MpiFile {
    file_f2c(fh)
}

// ---- reads and writes ----

// MPI_File_write_at and its read, nonblocking and large-count forms.

mpi_fn! { fn MPI_File_write_at(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_at", fh, Access::Independent(Position::At(offset)), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_write_at_c(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_at_c", fh, Access::Independent(Position::At(offset)), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iwrite_at(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_at", fh, Access::Independent(Position::At(offset)), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iwrite_at_c(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_at_c", fh, Access::Independent(Position::At(offset)), buf, count, datatype, request)
} }
mpi_fn! { fn MPI_File_read_at(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_at", fh, Access::Independent(Position::At(offset)), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_read_at_c(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_at_c", fh, Access::Independent(Position::At(offset)), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iread_at(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_at", fh, Access::Independent(Position::At(offset)), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iread_at_c(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_at_c", fh, Access::Independent(Position::At(offset)), buf, count, datatype, request)
} }

// MPI_File_write_at_all and its read, nonblocking and large-count forms.

mpi_fn! { fn MPI_File_write_at_all(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_at_all", fh, Access::Collective(Position::At(offset)), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_write_at_all_c(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_at_all_c", fh, Access::Collective(Position::At(offset)), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iwrite_at_all(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_at_all", fh, Access::Collective(Position::At(offset)), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iwrite_at_all_c(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_at_all_c", fh, Access::Collective(Position::At(offset)), buf, count, datatype, request)
} }
mpi_fn! { fn MPI_File_read_at_all(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_at_all", fh, Access::Collective(Position::At(offset)), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_read_at_all_c(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_at_all_c", fh, Access::Collective(Position::At(offset)), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iread_at_all(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_at_all", fh, Access::Collective(Position::At(offset)), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iread_at_all_c(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_at_all_c", fh, Access::Collective(Position::At(offset)), buf, count, datatype, request)
} }

// MPI_File_write and its read, nonblocking and large-count forms.

mpi_fn! { fn MPI_File_write(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write", fh, Access::Independent(Position::Individual), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_write_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_c", fh, Access::Independent(Position::Individual), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iwrite(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite", fh, Access::Independent(Position::Individual), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iwrite_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_c", fh, Access::Independent(Position::Individual), buf, count, datatype, request)
} }
mpi_fn! { fn MPI_File_read(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read", fh, Access::Independent(Position::Individual), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_read_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_c", fh, Access::Independent(Position::Individual), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iread(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread", fh, Access::Independent(Position::Individual), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iread_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_c", fh, Access::Independent(Position::Individual), buf, count, datatype, request)
} }

// MPI_File_write_all and its read, nonblocking and large-count forms.

mpi_fn! { fn MPI_File_write_all(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_all", fh, Access::Collective(Position::Individual), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_write_all_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_all_c", fh, Access::Collective(Position::Individual), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iwrite_all(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_all", fh, Access::Collective(Position::Individual), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iwrite_all_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_all_c", fh, Access::Collective(Position::Individual), buf, count, datatype, request)
} }
mpi_fn! { fn MPI_File_read_all(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_all", fh, Access::Collective(Position::Individual), buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_read_all_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_all_c", fh, Access::Collective(Position::Individual), buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iread_all(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_all", fh, Access::Collective(Position::Individual), buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iread_all_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_all_c", fh, Access::Collective(Position::Individual), buf, count, datatype, request)
} }

// MPI_File_write_shared and its read, nonblocking and large-count forms.

mpi_fn! { fn MPI_File_write_shared(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_shared", fh, Access::Shared, buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_write_shared_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_shared_c", fh, Access::Shared, buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iwrite_shared(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_shared", fh, Access::Shared, buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iwrite_shared_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iwrite_call("MPI_File_iwrite_shared_c", fh, Access::Shared, buf, count, datatype, request)
} }
mpi_fn! { fn MPI_File_read_shared(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_shared", fh, Access::Shared, buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_read_shared_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_shared_c", fh, Access::Shared, buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_iread_shared(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_shared", fh, Access::Shared, buf, count.into(), datatype, request)
} }
mpi_fn! { fn MPI_File_iread_shared_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, request: *mut c_int) {
    iread_call("MPI_File_iread_shared_c", fh, Access::Shared, buf, count, datatype, request)
} }

mpi_fn! { fn MPI_File_write_ordered(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_ordered", fh, Access::Ordered, buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_write_ordered_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    write_call("MPI_File_write_ordered_c", fh, Access::Ordered, buf, count, datatype, status)
} }
mpi_fn! { fn MPI_File_read_ordered(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_ordered", fh, Access::Ordered, buf, count.into(), datatype, status)
} }
mpi_fn! { fn MPI_File_read_ordered_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int, status: *mut MpiStatus) {
    read_call("MPI_File_read_ordered_c", fh, Access::Ordered, buf, count, datatype, status)
} }

// ---- split collectives ----

/// The memory bytes of each file's split collective in progress (MPI
/// allows one per file): `_begin` does the access, `_end` reports it.
static SPLIT: Mutex<Option<HashMap<FileId, u64>>> = Mutex::new(None);

fn split<R>(f: impl FnOnce(&mut HashMap<FileId, u64>) -> R) -> R {
    let mut g = SPLIT.lock().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// `_begin`: refuses a second split collective on the file, then runs `op`.
pub(crate) fn split_begin(
    func: &str,
    fh: MpiFile,
    op: impl FnOnce() -> Result<u64, MpiError>,
) -> c_int {
    let r = file_from(fh).and_then(|f| {
        if split(|m| m.contains_key(&f)) {
            return Err(MpiError::Other);
        }
        let n = op()?;
        split(|m| m.insert(f, n));
        Ok(())
    });
    file_finish(fh, func, r)
}

/// `_end`: the status of the split collective `_begin` started.
pub(crate) unsafe fn split_end(func: &str, fh: MpiFile, status: *mut MpiStatus) -> c_int {
    let r = file_from(fh).and_then(|f| {
        engine(func, |_| Ok(()))?;
        let n = split(|m| m.remove(&f)).ok_or(MpiError::Other)?;
        write_file_status(status, n);
        Ok(())
    });
    file_finish(fh, func, r)
}

mpi_fn! { fn MPI_File_write_all_begin(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int) {
    let func = "MPI_File_write_all_begin";
    split_begin(func, fh, || write_bytes(func, fh, Access::Collective(Position::Individual), buf, count.into(), datatype))
} }
mpi_fn! { fn MPI_File_write_all_begin_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int) {
    let func = "MPI_File_write_all_begin_c";
    split_begin(func, fh, || write_bytes(func, fh, Access::Collective(Position::Individual), buf, count, datatype))
} }
mpi_fn! { fn MPI_File_write_all_end(fh: MpiFile, _buf: *const c_void, status: *mut MpiStatus) {
    split_end("MPI_File_write_all_end", fh, status)
} }
mpi_fn! { fn MPI_File_read_all_begin(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int) {
    let func = "MPI_File_read_all_begin";
    split_begin(func, fh, || read_bytes(func, fh, Access::Collective(Position::Individual), buf, count.into(), datatype))
} }
mpi_fn! { fn MPI_File_read_all_begin_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int) {
    let func = "MPI_File_read_all_begin_c";
    split_begin(func, fh, || read_bytes(func, fh, Access::Collective(Position::Individual), buf, count, datatype))
} }
mpi_fn! { fn MPI_File_read_all_end(fh: MpiFile, _buf: *mut c_void, status: *mut MpiStatus) {
    split_end("MPI_File_read_all_end", fh, status)
} }
mpi_fn! { fn MPI_File_write_ordered_begin(fh: MpiFile, buf: *const c_void, count: c_int, datatype: c_int) {
    let func = "MPI_File_write_ordered_begin";
    split_begin(func, fh, || write_bytes(func, fh, Access::Ordered, buf, count.into(), datatype))
} }
mpi_fn! { fn MPI_File_write_ordered_begin_c(fh: MpiFile, buf: *const c_void, count: i64, datatype: c_int) {
    let func = "MPI_File_write_ordered_begin_c";
    split_begin(func, fh, || write_bytes(func, fh, Access::Ordered, buf, count, datatype))
} }
mpi_fn! { fn MPI_File_write_ordered_end(fh: MpiFile, _buf: *const c_void, status: *mut MpiStatus) {
    split_end("MPI_File_write_ordered_end", fh, status)
} }
mpi_fn! { fn MPI_File_read_ordered_begin(fh: MpiFile, buf: *mut c_void, count: c_int, datatype: c_int) {
    let func = "MPI_File_read_ordered_begin";
    split_begin(func, fh, || read_bytes(func, fh, Access::Ordered, buf, count.into(), datatype))
} }
mpi_fn! { fn MPI_File_read_ordered_begin_c(fh: MpiFile, buf: *mut c_void, count: i64, datatype: c_int) {
    let func = "MPI_File_read_ordered_begin_c";
    split_begin(func, fh, || read_bytes(func, fh, Access::Ordered, buf, count, datatype))
} }
mpi_fn! { fn MPI_File_read_ordered_end(fh: MpiFile, _buf: *mut c_void, status: *mut MpiStatus) {
    split_end("MPI_File_read_ordered_end", fh, status)
} }

mpi_fn! { fn MPI_File_write_at_all_begin(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: c_int, datatype: c_int) {
    let func = "MPI_File_write_at_all_begin";
    split_begin(func, fh, || write_bytes(func, fh, Access::Collective(Position::At(offset)), buf, count.into(), datatype))
} }
mpi_fn! { fn MPI_File_write_at_all_begin_c(fh: MpiFile, offset: MpiOffset, buf: *const c_void, count: i64, datatype: c_int) {
    let func = "MPI_File_write_at_all_begin_c";
    split_begin(func, fh, || write_bytes(func, fh, Access::Collective(Position::At(offset)), buf, count, datatype))
} }
mpi_fn! { fn MPI_File_write_at_all_end(fh: MpiFile, _buf: *const c_void, status: *mut MpiStatus) {
    split_end("MPI_File_write_at_all_end", fh, status)
} }
mpi_fn! { fn MPI_File_read_at_all_begin(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: c_int, datatype: c_int) {
    let func = "MPI_File_read_at_all_begin";
    split_begin(func, fh, || read_bytes(func, fh, Access::Collective(Position::At(offset)), buf, count.into(), datatype))
} }
mpi_fn! { fn MPI_File_read_at_all_begin_c(fh: MpiFile, offset: MpiOffset, buf: *mut c_void, count: i64, datatype: c_int) {
    let func = "MPI_File_read_at_all_begin_c";
    split_begin(func, fh, || read_bytes(func, fh, Access::Collective(Position::At(offset)), buf, count, datatype))
} }
mpi_fn! { fn MPI_File_read_at_all_end(fh: MpiFile, _buf: *mut c_void, status: *mut MpiStatus) {
    split_end("MPI_File_read_at_all_end", fh, status)
} }
