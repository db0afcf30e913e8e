//! Environment management: init, finalize, abort, time, versions (ranks
//! and sizes of communicators are in `comm.rs`).

use crate::ffi::{write_c_string, write_out};
use crate::runtime;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

use crate::abi::{
    MPI_MAX_LIBRARY_VERSION_STRING, MPI_MAX_PROCESSOR_NAME, MPI_SUCCESS, MPI_THREAD_MULTIPLE,
};

/// Runs when the loader maps the library, before the program's `main`:
/// a rank started by `mpinetsim run` dies with it (see
/// `runtime::arm_parent_watch`) and keeps its buffered output when the
/// launcher ends it (`runtime::flush_output_on_sigterm`).
#[used]
#[link_section = ".init_array"]
static ARM_PARENT_WATCH: extern "C" fn() = library_loaded;

extern "C" fn library_loaded() {
    runtime::arm_parent_watch();
    runtime::flush_output_on_sigterm();
}

static RANK: AtomicU32 = AtomicU32::new(0);
/// The thread that initialised MPI (MPI's "main thread").
static MAIN_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();
/// The thread level of the process: the highest MPI_Init_thread and the
/// sessions were asked for (one level for all, as in MPICH, where a
/// session opened before MPI_Init_thread raises what it provides).
pub(crate) static THREAD_LEVEL: AtomicI32 = AtomicI32::new(0);

/// The variable that lowers the ranks' scheduling priority (a nice
/// increment; unset or 0: unchanged).
const RANK_NICE_VARIABLE: &str = "MPINETSIM_RANK_NICE";

/// Lowers this rank's scheduling priority (the thread calling MPI_Init,
/// and so every thread it creates afterwards) by `MPINETSIM_RANK_NICE`.
/// The gateway is the emulation's clock: on a machine of its own whose
/// cores the ranks' threads outnumber (several ranks per core, or threads
/// that spin while others are inside MPI, as MPICH's thread tests do), a
/// rank at the gateway's priority takes the CPU the simulator needs to run
/// its events on time. A rank's computation is measured in CPU time, so a
/// lower priority does not change the emulated machine's speed; but on a
/// machine other work loads, the ranks then also yield to that work, so it
/// is not the default (see docs/performance.md).
fn lower_priority() {
    let nice = std::env::var(RANK_NICE_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
        .unwrap_or(0);
    if nice > 0 {
        // SAFETY: setpriority only reads its integer arguments; PRIO_PROCESS
        // with 0 names the calling thread. Failure (e.g. a limit) is harmless.
        unsafe {
            let current = libc::getpriority(libc::PRIO_PROCESS, 0);
            libc::setpriority(libc::PRIO_PROCESS, 0, (current + nice).min(19));
        }
    }
}

fn do_init(required: c_int) -> c_int {
    lower_priority();
    match runtime::init() {
        Ok(info) => {
            RANK.store(info.rank, Ordering::SeqCst);
            // A spawned process meets the group that spawned it, inside
            // MPI_Init for the pacer (which exists from here on): the wait
            // is time blocked in MPI, not computation.
            let spawned = runtime::with_engine(|e| {
                shim_engine::transport::Transport::spawned_by(e.transport()).is_some()
            });
            if spawned == Some(true) {
                crate::ffi::enter("MPI_Init");
            }
            if let Some(Err(e)) = runtime::with_engine(|e| e.join_parent()) {
                runtime::fatal(&format!(
                    "rank {} could not reach the process that spawned it ({e:?})",
                    info.rank
                ));
            }
            let _ = MAIN_THREAD.set(std::thread::current().id());
            let level = required.clamp(0, MPI_THREAD_MULTIPLE);
            THREAD_LEVEL.fetch_max(level, Ordering::SeqCst);
            horizon_follows_thread_level();
            MPI_SUCCESS
        }
        Err(e) => runtime::fatal(&e),
    }
}

/// MPI_Session_init's part of initialisation: joins the job (unless
/// MPI_Init or another session did) and raises the process's thread
/// support to the session's `level`.
pub(crate) fn join_for_session(level: c_int) -> Result<(), String> {
    let info = runtime::start_session()?;
    RANK.store(info.rank, Ordering::SeqCst);
    THREAD_LEVEL.fetch_max(level.clamp(0, MPI_THREAD_MULTIPLE), Ordering::SeqCst);
    horizon_follows_thread_level();
    Ok(())
}

/// With MPI_THREAD_MULTIPLE one thread may send while another waits, so
/// the rank publishes no horizon (see [`runtime::horizon`]).
fn horizon_follows_thread_level() {
    if THREAD_LEVEL.load(Ordering::SeqCst) == MPI_THREAD_MULTIPLE {
        runtime::horizon::disable();
    }
}

mpi_fn! { fn MPI_Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) {
    do_init(0)
} }

mpi_fn! { fn MPI_Init_thread(_argc: *mut c_int, _argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) {
    let r = do_init(required);
    write_out(provided, THREAD_LEVEL.load(Ordering::SeqCst));
    r
} }

mpi_fn! { fn MPI_Query_thread(provided: *mut c_int) {
    write_out(provided, THREAD_LEVEL.load(Ordering::SeqCst));
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Is_thread_main(flag: *mut c_int) {
    let main = MAIN_THREAD.get() == Some(&std::thread::current().id());
    write_out(flag, main as c_int);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Initialized(flag: *mut c_int) {
    write_out(flag, runtime::is_initialized() as c_int);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Finalized(flag: *mut c_int) {
    write_out(flag, runtime::is_finalized() as c_int);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Finalize() {
    // MPI 2.2: first the delete callbacks of MPI_COMM_SELF's attributes
    // (last set first), as an "at exit" hook; MPICH then deletes
    // MPI_COMM_WORLD's and the predefined datatypes'.
    if let Some(calls) = runtime::with_engine(|e| e.finalize_deletions()) {
        if let Err(e) = crate::ffi::attr::run_deletions("MPI_Finalize", calls) {
            return crate::ffi::errors::fail(crate::abi::MPI_COMM_SELF, "MPI_Finalize", e);
        }
    }
    // The tool interface keeps the engine's last values for tools that
    // read variables after MPI_Finalize.
    crate::ffi::tool::tool(|_| ());
    match runtime::finalize() {
        Ok(()) => MPI_SUCCESS,
        Err(e) => runtime::fatal(&e),
    }
} }

mpi_fn! { fn MPI_Abort(_comm: c_int, errorcode: c_int) {
    let rank = RANK.load(Ordering::SeqCst);
    runtime::abort_job(errorcode, &format!("rank {rank} called MPI_Abort with error code {errorcode}"))
} }

mpi_fn! { fn MPI_Get_processor_name(name: *mut c_char, resultlen: *mut c_int) {
    let host = nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_else(|| "localhost".into());
    let text = format!("rank{}@{host}", RANK.load(Ordering::SeqCst));
    let n = write_c_string(name, MPI_MAX_PROCESSOR_NAME as usize, &text);
    write_out(resultlen, n as c_int);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Get_version(version: *mut c_int, subversion: *mut c_int) {
    // What Debian's mpi.h and mpif.h promise: programs compare them.
    write_out(version, crate::abi::MPI_VERSION);
    write_out(subversion, crate::abi::MPI_SUBVERSION);
    MPI_SUCCESS
} }

mpi_fn! { fn MPI_Get_library_version(text: *mut c_char, resultlen: *mut c_int) {
    let s = format!(
        "mpinetsim channel shim {} (MPI {}.{}, the ABI of MPICH 4.0 as Debian ships it): MPI over a simulated network",
        env!("CARGO_PKG_VERSION"), crate::abi::MPI_VERSION, crate::abi::MPI_SUBVERSION
    );
    let n = write_c_string(text, MPI_MAX_LIBRARY_VERSION_STRING as usize, &s);
    write_out(resultlen, n as c_int);
    MPI_SUCCESS
} }

// `MPI_Pcontrol(level, ...)`: profiling control. The shim runs no
// profiler of its own, so, as MPICH does, it accepts any level and does
// nothing (a PMPI profiling layer linked before the shim sees the call).
// The variadic arguments are ignored, which the C calling convention allows.
mpi_fn! { fn MPI_Pcontrol(_level: c_int) {
    MPI_SUCCESS
} }

/// MPI_Wtime: the rank's emulated time in seconds (scaled real time plus
/// the rank's offset from it), so the program's own timings read as the
/// emulated machine's.
#[no_mangle]
pub extern "C" fn PMPI_Wtime() -> f64 {
    crate::ffi::enter("MPI_Wtime");
    let t = runtime::now_emulated_ns() as f64 / 1e9;
    crate::ffi::exit();
    t
}

mpi_value_fn! {
    /// MPI_Wtime (profiling name is PMPI_Wtime).
    fn MPI_Wtime() -> f64
}

/// MPI_Wtick: resolution of MPI_Wtime (1 ns of scaled time).
#[no_mangle]
pub extern "C" fn PMPI_Wtick() -> f64 {
    1e-9
}

mpi_value_fn! {
    /// MPI_Wtick.
    fn MPI_Wtick() -> f64
}

/// Ends the job because a routine is not supported, with the same one line
/// a C program gets (`mpinetsim: MPI_File_open is not supported`). Called by
/// the Fortran library's stubs, which cannot use the C stubs of functions C
/// does implement.
///
/// # Safety
/// `name` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn mpinetsim_unsupported(name: *const c_char) -> ! {
    let name = std::ffi::CStr::from_ptr(name).to_string_lossy();
    crate::abi::unsupported(&name)
}
