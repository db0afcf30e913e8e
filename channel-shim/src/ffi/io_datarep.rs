//! Data representations the program defines (`MPI_Register_datarep`,
//! MPI 3.1 §13.5.3): its callbacks give each predefined type's size in the
//! file and convert data between memory and the file.
//!
//! The callbacks are program code that may call MPI (to walk a datatype,
//! say), so they run here, never under the engine's lock: a write converts
//! the whole access into one buffer of file bytes (`count` is then every
//! predefined item of the access, `position` 0, as the standard allows)
//! and the engine writes those bytes through the view; a read lets the
//! engine read the file bytes and converts the whole items it got.
//! `MPI_CONVERSION_FN_NULL` (a null pointer) stores memory bytes
//! unconverted, which needs file sizes equal to the native ones.

use crate::abi::*;
use crate::ffi::buffers::{region, region_mut};
use crate::ffi::engine_access::engine;
use crate::ffi::handles::*;
use crate::ffi::io::{file_finish, run_read_bytes, run_write_bytes, Access, MpiOffset};
use shim_engine::datatype::{BuiltinType, FileSizes};
use shim_engine::io::FileId;
use shim_engine::{DatatypeId, MpiError};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Mutex;

/// `MPI_Datarep_conversion_function`.
pub type ConversionFn =
    unsafe extern "C" fn(*mut c_void, c_int, c_int, *mut c_void, MpiOffset, *mut c_void) -> c_int;
/// `MPI_Datarep_conversion_function_c` (MPI 4.0: the count is an `MPI_Count`).
pub type ConversionFnC =
    unsafe extern "C" fn(*mut c_void, c_int, i64, *mut c_void, MpiOffset, *mut c_void) -> c_int;
/// `MPI_Datarep_extent_function`.
pub type ExtentFn = unsafe extern "C" fn(c_int, *mut isize, *mut c_void) -> c_int;

/// `MPI_ERR_CONVERSION`.
const ERR_CONVERSION: MpiError = MpiError::Code(MPI_ERR_CONVERSION);

/// One conversion direction of a representation.
#[derive(Clone, Copy)]
enum Conversion {
    /// `MPI_CONVERSION_FN_NULL`: memory bytes as they are.
    None,
    /// A classic callback (`int` counts).
    Int(ConversionFn),
    /// A large-count callback.
    Large(ConversionFnC),
}

/// The callbacks of one registered representation.
#[derive(Clone, Copy)]
struct Callbacks {
    read: Conversion,
    write: Conversion,
    extent: ExtentFn,
    /// The program's `extra_state` pointer, kept as a number.
    extra: usize,
}

/// Registered representations' callbacks, by the engine's number.
static REGISTERED: Mutex<Vec<Callbacks>> = Mutex::new(Vec::new());

fn callbacks(n: u32) -> Result<Callbacks, MpiError> {
    let table = REGISTERED.lock().unwrap_or_else(|p| p.into_inner());
    table.get(n as usize).copied().ok_or(MpiError::Intern)
}

unsafe fn register(
    func: &str,
    datarep: *const c_char,
    read: Conversion,
    write: Conversion,
    extent: Option<ExtentFn>,
    extra: *mut c_void,
) -> c_int {
    let r = (|| {
        let extent = extent.ok_or(MpiError::Arg)?;
        if datarep.is_null() {
            return Err(MpiError::Arg);
        }
        let name = CStr::from_ptr(datarep)
            .to_str()
            .map_err(|_| MpiError::Arg)?;
        let mut table = REGISTERED.lock().unwrap_or_else(|p| p.into_inner());
        let n = engine(func, |e| e.register_datarep(name))?;
        debug_assert_eq!(n as usize, table.len());
        table.push(Callbacks {
            read,
            write,
            extent,
            extra: extra as usize,
        });
        Ok(())
    })();
    file_finish(std::ptr::null_mut(), func, r)
}

fn conversion(f: Option<ConversionFn>) -> Conversion {
    f.map_or(Conversion::None, Conversion::Int)
}

fn conversion_c(f: Option<ConversionFnC>) -> Conversion {
    f.map_or(Conversion::None, Conversion::Large)
}

mpi_fn! { fn MPI_Register_datarep(datarep: *const c_char, read_conversion_fn: Option<ConversionFn>,
        write_conversion_fn: Option<ConversionFn>, dtype_file_extent_fn: Option<ExtentFn>, extra_state: *mut c_void) {
    register("MPI_Register_datarep", datarep, conversion(read_conversion_fn),
        conversion(write_conversion_fn), dtype_file_extent_fn, extra_state)
} }

mpi_fn! { fn MPI_Register_datarep_c(datarep: *const c_char, read_conversion_fn: Option<ConversionFnC>,
        write_conversion_fn: Option<ConversionFnC>, dtype_file_extent_fn: Option<ExtentFn>, extra_state: *mut c_void) {
    register("MPI_Register_datarep_c", datarep, conversion_c(read_conversion_fn),
        conversion_c(write_conversion_fn), dtype_file_extent_fn, extra_state)
} }

/// The file sizes registered representation `n`'s extent callback gives
/// `types` (`MPI_ERR_CONVERSION` if it fails or answers less than 1).
unsafe fn sizes_of(n: u32, types: &[BuiltinType]) -> Result<FileSizes, MpiError> {
    let cb = callbacks(n)?;
    let mut sizes = FileSizes::new();
    for &b in types {
        let mut extent: isize = 0;
        let rc = (cb.extent)(datatype_to(b.into()), &mut extent, cb.extra as *mut c_void);
        if rc != MPI_SUCCESS || extent <= 0 {
            return Err(ERR_CONVERSION);
        }
        sizes.insert(b, extent as u64);
    }
    Ok(sizes)
}

/// The file sizes a view or extent query in representation `datarep`
/// needs for the predefined types of `types`: none for a predefined
/// representation (the engine knows them), the extent callback's answers
/// for a registered one.
pub(crate) unsafe fn registered_sizes(
    func: &str,
    datarep: &str,
    types: &[DatatypeId],
) -> Result<FileSizes, MpiError> {
    match engine(func, |e| e.registered_datarep(datarep))? {
        None => Ok(FileSizes::new()),
        Some(n) => {
            let predefined = engine(func, |e| e.file_view_types(types))?;
            sizes_of(n, &predefined)
        }
    }
}

/// The file sizes of file `f`'s registered representation for `types`
/// (empty when its view is in a predefined one).
pub(crate) unsafe fn file_registered_sizes(
    func: &str,
    f: FileId,
    types: &[DatatypeId],
) -> Result<FileSizes, MpiError> {
    match engine(func, |e| e.file_registered_datarep(f))? {
        None => Ok(FileSizes::new()),
        Some(n) => {
            let predefined = engine(func, |e| e.file_view_types(types))?;
            sizes_of(n, &predefined)
        }
    }
}

/// Calls conversion `c` on `items` predefined items (none: nothing to do).
unsafe fn convert(
    c: Conversion,
    userbuf: *mut c_void,
    datatype: c_int,
    items: u64,
    filebuf: *mut c_void,
    extra: usize,
) -> Result<(), MpiError> {
    if items == 0 {
        return Ok(());
    }
    let rc = match c {
        Conversion::None => return Err(MpiError::Intern),
        Conversion::Int(f) => {
            let n = c_int::try_from(items).map_err(|_| MpiError::Count)?;
            f(userbuf, datatype, n, filebuf, 0, extra as *mut c_void)
        }
        Conversion::Large(f) => {
            let n = i64::try_from(items).map_err(|_| MpiError::Count)?;
            f(userbuf, datatype, n, filebuf, 0, extra as *mut c_void)
        }
    };
    if rc == MPI_SUCCESS {
        Ok(())
    } else {
        Err(ERR_CONVERSION)
    }
}

/// What an access of `count` × `dt` in representation `n` moves.
struct Extent {
    callbacks: Callbacks,
    sizes: FileSizes,
    /// Predefined items.
    items: u64,
    /// Bytes in the file.
    file_bytes: usize,
    /// Bytes of data in memory.
    memory_bytes: u64,
}

unsafe fn access_extent(
    func: &str,
    n: u32,
    dt: DatatypeId,
    count: usize,
) -> Result<Extent, MpiError> {
    let callbacks = callbacks(n)?;
    let types = engine(func, |e| e.datatypes().predefined_types_in(dt))?;
    let sizes = sizes_of(n, &types)?;
    let (items, file_bytes, memory_bytes) = engine(func, |e| {
        let t = e.datatypes();
        t.committed(dt)?;
        Ok((
            t.predefined_items(dt, count)?,
            t.file_bytes(dt, count, &sizes)?,
            t.size(dt)? * count as u64,
        ))
    })?;
    let file_bytes = usize::try_from(file_bytes).map_err(|_| MpiError::Count)?;
    Ok(Extent {
        callbacks,
        sizes,
        items,
        file_bytes,
        memory_bytes,
    })
}

/// A write through registered representation `n`: converts `count` ×
/// `datatype` from `buf` to file bytes and writes them; returns the memory
/// bytes written.
pub(crate) unsafe fn converted_write(
    func: &str,
    f: FileId,
    n: u32,
    a: Access,
    buf: *const c_void,
    count: usize,
    datatype: c_int,
) -> Result<u64, MpiError> {
    let dt = datatype_from(datatype)?;
    let x = access_extent(func, n, dt, count)?;
    let filebuf = match x.callbacks.write {
        Conversion::None => {
            let span = engine(func, |e| e.datatypes().span(dt, count))?;
            let packed = engine(func, |e| e.datatypes().pack(dt, count, region(buf, span)))?;
            if packed.len() != x.file_bytes {
                return Err(ERR_CONVERSION);
            }
            packed
        }
        w => {
            let mut filebuf = vec![0u8; x.file_bytes];
            let file = filebuf.as_mut_ptr() as *mut c_void;
            convert(
                w,
                buf as *mut c_void,
                datatype,
                x.items,
                file,
                x.callbacks.extra,
            )?;
            filebuf
        }
    };
    run_write_bytes(func, f, a, &filebuf)?;
    Ok(x.memory_bytes)
}

/// A read through registered representation `n`: reads the file bytes of
/// up to `count` × `datatype` and converts the whole items read into
/// `buf`; returns the memory bytes read.
pub(crate) unsafe fn converted_read(
    func: &str,
    f: FileId,
    n: u32,
    a: Access,
    buf: *mut c_void,
    count: usize,
    datatype: c_int,
) -> Result<u64, MpiError> {
    let dt = datatype_from(datatype)?;
    let x = access_extent(func, n, dt, count)?;
    let mut filebuf = vec![0u8; x.file_bytes];
    let got = run_read_bytes(func, f, a, &mut filebuf)?;
    let (items, memory) = engine(func, |e| {
        e.datatypes().items_within(dt, count, got, &x.sizes)
    })?;
    match x.callbacks.read {
        Conversion::None => {
            if x.file_bytes as u64 != x.memory_bytes {
                return Err(ERR_CONVERSION);
            }
            let span = engine(func, |e| e.datatypes().span(dt, count))?;
            let data = &filebuf[..got as usize];
            engine(func, |e| {
                e.datatypes()
                    .unpack(dt, count, data, region_mut(buf, span))
                    .map(drop)
            })?;
        }
        r => {
            let file = filebuf.as_mut_ptr() as *mut c_void;
            convert(r, buf, datatype, items, file, x.callbacks.extra)?;
        }
    }
    Ok(memory)
}
