//! QMPI, MPICH's tool stacking interface, at the C boundary: the six
//! `QMPI_` registration and query functions, the `QMPI_Context` tools
//! pass along, and [`first_tool`], which every `MPI_` entry point of the
//! `mpi_fn!` macro asks before running MPI's own implementation. The
//! chain's logic lives in `shim_engine::tool::qmpi`; this file holds the
//! process's one registry, converts pointers and strings, and calls the
//! tools' initialisation functions.
//!
//! Each `MPI_X` the macro defines has a `QMPI_X(context, tool_id, ...)`
//! beside it: MPI's own implementation (what `PMPI_X` does), which
//! `QMPI_Get_function` hands to the last tool of a chain. Calls through
//! `PMPI_X` bypass the tools.

use crate::abi::*;
use shim_engine::tool::qmpi::{QmpiError, QmpiFunctions, QmpiTools};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// `QMPI_Context` of MPICH's `mpi.h`, passed by value along a chain.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct QmpiContext {
    storage_stack: *mut *mut c_void,
}

impl QmpiContext {
    /// The context an `MPI_` entry point starts a chain with.
    pub fn new() -> QmpiContext {
        QmpiContext {
            storage_stack: std::ptr::null_mut(),
        }
    }
}

impl Default for QmpiContext {
    fn default() -> QmpiContext {
        QmpiContext::new()
    }
}

/// MPICH's function numbers (`channel-shim/qmpi-functions.txt`, written
/// by `tools/list-qmpi-functions.py` from Debian's `mpi_proto.h`).
pub fn functions() -> &'static QmpiFunctions {
    static FUNCTIONS: OnceLock<QmpiFunctions> = OnceLock::new();
    FUNCTIONS.get_or_init(|| QmpiFunctions::parse(include_str!("../../qmpi-functions.txt")))
}

/// The tools of this process, from the environment at the first use.
fn tools() -> MutexGuard<'static, QmpiTools> {
    static TOOLS: OnceLock<Mutex<QmpiTools>> = OnceLock::new();
    let list = || {
        std::env::var("MPIR_CVAR_QMPI_TOOL_LIST")
            .or_else(|_| std::env::var("QMPI_TOOL_LIST"))
            .unwrap_or_default()
    };
    let tools = TOOLS.get_or_init(|| Mutex::new(QmpiTools::new(&list(), functions().count())));
    tools.lock().unwrap_or_else(|p| p.into_inner())
}

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

/// Whether the process loads QMPI tools ([`UNKNOWN`] until the first call).
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// The tool function at `address`, as the caller's function type `F` (a
/// C function pointer; the tool registered it under the type QMPI gives
/// its function number).
///
/// # Safety
/// `address` must be a function of type `F`.
pub unsafe fn function_at<F: Copy>(address: usize) -> F {
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    std::mem::transmute_copy(&address)
}

/// The first tool of the MPI function `name`'s chain (its function's
/// address and the tool's id), or None when MPI's own implementation
/// runs. The first call of the process reads the tool list and calls the
/// tools' initialisation functions, as MPICH does at its first MPI call.
#[inline]
pub fn first_tool(name: &'static str) -> Option<(usize, c_int)> {
    if STATE.load(Ordering::Relaxed) == OFF {
        return None;
    }
    first_tool_of_a_chain(name)
}

#[cold]
fn first_tool_of_a_chain(name: &'static str) -> Option<(usize, c_int)> {
    let starting = {
        let mut t = tools();
        if t.is_empty() {
            STATE.store(OFF, Ordering::Relaxed);
            return None;
        }
        STATE.store(ON, Ordering::Relaxed);
        t.start()
    };
    for (id, init) in starting {
        // SAFETY: registered by QMPI_Register_tool_name as `void (*)(int)`.
        let init: unsafe extern "C" fn(c_int) = unsafe { function_at(init) };
        unsafe { init(id) };
    }
    let n = functions().number(name)?;
    tools()
        .next(0, n as c_int)
        .ok()
        .flatten()
        .map(|(id, f)| (f, id))
}

fn code(e: QmpiError) -> c_int {
    match e {
        QmpiError::NotListed(name) => {
            eprintln!(
                "mpinetsim: QMPI_Register_tool_name: tool {name:?} is not in \
                 MPIR_CVAR_QMPI_TOOL_LIST (or registered already); list it there to load it"
            );
            MPI_ERR_OTHER
        }
        QmpiError::BadToolId(_) | QmpiError::BadFunction(_) => MPI_ERR_ARG,
    }
}

fn result(r: Result<(), QmpiError>) -> c_int {
    r.map_or_else(code, |()| MPI_SUCCESS)
}

/// `QMPI_Register_tool_name`: the tool `tool_name`, if the tool list
/// holds it, is initialised by `init_function_ptr(tool_id)` at the first
/// MPI call (tools call this from a constructor, before `main`).
#[no_mangle]
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub unsafe extern "C" fn QMPI_Register_tool_name(
    tool_name: *const c_char,
    init_function_ptr: Option<unsafe extern "C" fn(c_int)>,
) -> c_int {
    let (false, Some(init)) = (tool_name.is_null(), init_function_ptr) else {
        return MPI_ERR_ARG;
    };
    let name = CStr::from_ptr(tool_name).to_string_lossy();
    result(tools().register_name(&name, init as usize))
}

/// `QMPI_Register_tool_storage`: what `QMPI_Get_tool_storage` returns to
/// tool `tool_id`.
#[no_mangle]
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub unsafe extern "C" fn QMPI_Register_tool_storage(tool_id: c_int, storage: *mut c_void) -> c_int {
    result(tools().register_storage(tool_id, storage as usize))
}

/// `QMPI_Register_function`: tool `calling_tool_id` intercepts function
/// number `function_enum` with `function_ptr` (of the `QMPI_X_t` type).
#[no_mangle]
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub unsafe extern "C" fn QMPI_Register_function(
    calling_tool_id: c_int,
    function_enum: c_int,
    function_ptr: Option<unsafe extern "C" fn()>,
) -> c_int {
    let Some(f) = function_ptr else {
        return MPI_ERR_ARG;
    };
    result(tools().register_function(calling_tool_id, function_enum, f as usize))
}

/// MPI's own implementation of function number `n`: the shim's `QMPI_X`.
fn own_function(n: c_int) -> Option<usize> {
    let enumerator = functions().enumerator(usize::try_from(n).ok()?)?;
    let name = crate::abi::coverage::name_of_enumerator(enumerator)?;
    let symbol = std::ffi::CString::new(format!("Q{name}")).ok()?;
    let lib = own_library()?;
    // SAFETY: `lib` is this library's handle; `symbol` is NUL-terminated.
    let f = unsafe { libc::dlsym(lib as *mut c_void, symbol.as_ptr()) };
    (!f.is_null()).then_some(f as usize)
}

/// This library's handle, for looking up its own `QMPI_X` functions
/// (not a program's or another library's of the same name).
fn own_library() -> Option<usize> {
    static HANDLE: OnceLock<Option<usize>> = OnceLock::new();
    *HANDLE.get_or_init(|| {
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let here = QMPI_Register_function as *const c_void;
        // SAFETY: `here` is a function of this library; `info` is writable.
        if unsafe { libc::dladdr(here, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dli_fname is the NUL-terminated path of a loaded object.
        let h = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
        (!h.is_null()).then_some(h as usize)
    })
}

/// `QMPI_Get_function`: the function and id of the tool that follows
/// `calling_tool_id` in the chain of function number `function_enum`, or
/// MPI's own implementation and id 0 when none does. A number the shim
/// does not implement gets NULL and `MPI_ERR_OTHER`.
#[no_mangle]
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub unsafe extern "C" fn QMPI_Get_function(
    calling_tool_id: c_int,
    function_enum: c_int,
    function_ptr: *mut Option<unsafe extern "C" fn()>,
    next_tool_id: *mut c_int,
) -> c_int {
    if function_ptr.is_null() || next_tool_id.is_null() {
        return MPI_ERR_ARG;
    }
    let next = tools().next(calling_tool_id, function_enum);
    let (address, id) = match next {
        Err(e) => return code(e),
        Ok(Some((id, f))) => (Some(f), id),
        Ok(None) => (own_function(function_enum), 0),
    };
    *function_ptr = address.map(|a| function_at::<unsafe extern "C" fn()>(a));
    *next_tool_id = id;
    if address.is_some() {
        MPI_SUCCESS
    } else {
        MPI_ERR_OTHER
    }
}

/// `QMPI_Get_tool_storage`: what tool `tool_id` registered.
#[no_mangle]
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub unsafe extern "C" fn QMPI_Get_tool_storage(
    _context: QmpiContext,
    tool_id: c_int,
    storage: *mut *mut c_void,
) -> c_int {
    if storage.is_null() {
        return MPI_ERR_ARG;
    }
    match tools().storage(tool_id) {
        Ok(s) => {
            *storage = s as *mut c_void;
            MPI_SUCCESS
        }
        Err(e) => code(e),
    }
}

/// `QMPI_Get_calling_address`: where the program called the MPI function
/// a tool is intercepting, as MPICH gives it: a `malloc`ed string holding
/// the return address in hexadecimal (`0x55d0c0a1b2c3`), which the tool
/// frees. Found on the stack: above the tools' frames and then the
/// shim's `MPI_X`, the first frame outside this library.
#[no_mangle]
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub unsafe extern "C" fn QMPI_Get_calling_address(
    _context: QmpiContext,
    address: *mut *mut c_void,
) -> c_int {
    if address.is_null() {
        return MPI_ERR_ARG;
    }
    let mut frames = [std::ptr::null_mut::<c_void>(); 64];
    let n = libc::backtrace(frames.as_mut_ptr(), frames.len() as c_int).max(0) as usize;
    let ours = |f: *mut c_void| {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let mut here: libc::Dl_info = std::mem::zeroed();
        libc::dladdr(f, &mut info) != 0
            && libc::dladdr(QMPI_Get_calling_address as *const c_void, &mut here) != 0
            && info.dli_fbase == here.dli_fbase
    };
    // Frame 0 is this function; then the tools, then MPI_X, then the caller.
    let mut i = 1;
    while i < n && !ours(frames[i]) {
        i += 1;
    }
    while i < n && ours(frames[i]) {
        i += 1;
    }
    let Some(&caller) = frames[..n].get(i) else {
        return MPI_ERR_OTHER;
    };
    let text = format!("{caller:p}\0");
    let out = libc::malloc(text.len()) as *mut u8;
    if out.is_null() {
        return MPI_ERR_NO_MEM;
    }
    std::ptr::copy_nonoverlapping(text.as_ptr(), out, text.len());
    *address = out as *mut c_void;
    MPI_SUCCESS
}
