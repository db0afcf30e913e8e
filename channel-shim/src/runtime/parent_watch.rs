//! A rank started by `mpinetsim run` dies with it: when the library loads
//! (before `main`, so also a rank computing outside MPI), a process whose
//! parent is the launcher named by `MPINETSIM_LAUNCHER_PID` asks the
//! kernel for SIGKILL when that parent dies (`PR_SET_PDEATHSIG`). Other
//! processes loading the library (a rank's own children, programs not
//! started by mpinetsim) are left alone; the launcher's watchdog kills
//! the ranks' process groups, which reaches those children.

use mpinetsim_protocol::ENV_LAUNCHER_PID;
use nix::sys::signal::Signal;
use nix::unistd::getppid;

/// Arms the parent-death signal when the launcher is this process's
/// parent.
pub fn arm() {
    let Some(launcher) = std::env::var(ENV_LAUNCHER_PID)
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
    else {
        return;
    };
    if getppid().as_raw() != launcher {
        return;
    }
    if nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).is_err() {
        return;
    }
    // The launcher may have died between the check and the request: then
    // the signal will never come, so act on it now.
    if getppid().as_raw() != launcher {
        let _ = nix::sys::signal::raise(Signal::SIGKILL);
    }
}
