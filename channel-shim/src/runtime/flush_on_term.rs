//! A rank's buffered output survives the end of its job. When a job ends
//! early (a rank calls `MPI_Abort`, crashes, or the user presses Ctrl-C),
//! the launcher ends the other ranks with SIGTERM, whose default action
//! discards what the program's stdio (and gfortran's units) still holds
//! in memory: with stdout a pipe to the gateway, that is every line since
//! the last full buffer. For a rank started by `mpinetsim run`, the
//! library installs at load time (before `main`) a SIGTERM handler that
//! flushes C stdio and gfortran's units, then dies of SIGTERM as before,
//! so the job's report still names the signal. A program that installs
//! its own handler replaces this one.
//!
//! Flushing is not async-signal-safe: a rank stopped inside `printf`
//! could block in the handler on its own stream's lock. The launcher
//! sends SIGKILL after its grace period, which ends such a rank as it
//! would have without the handler.

use mpinetsim_protocol::ENV_LAUNCHER_PID;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};

/// libgfortran's `_gfortran_flush_i4`, when the program uses Fortran
/// (called with a null unit, it flushes every unit).
static GFORTRAN_FLUSH: AtomicUsize = AtomicUsize::new(0);

extern "C" fn flush_then_terminate(signal: c_int) {
    // SAFETY: flushing every stream and restoring the default action;
    // the function pointer was looked up as libgfortran's flush.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        let f = GFORTRAN_FLUSH.load(Ordering::Relaxed);
        if f != 0 {
            let flush: unsafe extern "C" fn(*const i32) = std::mem::transmute(f);
            flush(std::ptr::null());
        }
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the handler in a rank `mpinetsim run` started, unless the
/// program (or a library loaded before this one) already handles SIGTERM.
pub fn install() {
    if std::env::var_os(ENV_LAUNCHER_PID).is_none() {
        return;
    }
    // SAFETY: sigaction with valid, zero-initialised structures; dlsym on
    // the global namespace with a NUL-terminated name.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction != libc::SIG_DFL
        {
            return;
        }
        let f = libc::dlsym(libc::RTLD_DEFAULT, c"_gfortran_flush_i4".as_ptr());
        GFORTRAN_FLUSH.store(f as usize, Ordering::Relaxed);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = flush_then_terminate as extern "C" fn(c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}
