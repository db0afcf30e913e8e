//! The thread that serves one-sided messages while the program computes,
//! as an RDMA NIC serves them on a cluster: a passive-target operation
//! (and the lock traffic around it) completes without waiting for the
//! target program's next MPI call.
//!
//! The thread starts with the process's first window and sleeps on the
//! gateway connection (socket or shared-memory doorbell). When frames arrive it takes the engine — which waits
//! while the program is inside an MPI call, whose own progress serves
//! them then — and handles the one-sided messages that are due, leaving
//! everything else for the program (see
//! [`Engine::serve_one_sided`](shim_engine::Engine::serve_one_sided)).
//! A message the gateway wrote early (its lookahead) is served when
//! scaled time reaches its arrival. Answers are stamped with the arrival
//! time of the request they answer, so in emulated time the target
//! answers at once, whatever its program does; the thread's CPU time is
//! not counted as the program's computation.

use super::clock::{add_shim_thread_cpu_ns, job_ns, set_shim_thread, snapshot, thread_cpu_ns};
use super::gateway_stream::GatewayWaiter;
use super::state::{gateway_waiter, with_engine};
use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// Longest sleep between two looks at whether the process still has
/// windows and is still connected, wall time.
const IDLE_WAIT: Duration = Duration::from_millis(50);

/// The service thread, once started.
static THREAD: OnceLock<std::thread::Thread> = OnceLock::new();
/// Set when the process leaves the network: the thread ends.
static STOP: AtomicBool = AtomicBool::new(false);

/// A window was created: starts the service thread if it is not running,
/// or wakes it if it slept for want of windows.
pub fn window_created() {
    if let Some(t) = THREAD.get() {
        t.unpark();
        return;
    }
    let Some(socket) = gateway_waiter() else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("mpinetsim-rma".into())
        .spawn(move || serve(socket));
    match spawned {
        Ok(handle) => {
            let _ = THREAD.set(handle.thread().clone());
        }
        Err(e) => super::fatal(&format!(
            "cannot start the thread that serves one-sided operations while the program computes ({e}); raise the process's thread limit (ulimit -u)"
        )),
    }
}

/// The process leaves the network: the thread ends.
pub fn stop() {
    STOP.store(true, Ordering::SeqCst);
    if let Some(t) = THREAD.get() {
        t.unpark();
    }
}

/// What one turn of the service found.
enum Turn {
    /// The process has no window: sleep until one is created.
    NoWindows,
    /// Served; the next one-sided message delivered early is due at this
    /// scaled time, if any.
    Served(Option<u64>),
}

/// The thread's loop.
fn serve(socket: GatewayWaiter) {
    // The program's signals go to the program's threads.
    let _ = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&SigSet::all()), None);
    let mut published_cpu_ns = thread_cpu_ns();
    set_shim_thread(true);
    let mut next_due: Option<u64> = None;
    while !STOP.load(Ordering::SeqCst) {
        wait_for_frames(&socket, next_due);
        let turn = with_engine(|e| {
            if !e.has_windows() {
                return Turn::NoWindows;
            }
            e.transport_mut().poll();
            e.serve_one_sided();
            Turn::Served(e.next_one_sided_srt_ns())
        });
        let cpu = thread_cpu_ns();
        add_shim_thread_cpu_ns(cpu.saturating_sub(published_cpu_ns));
        published_cpu_ns = cpu;
        match turn {
            None => return, // the process left the network
            Some(Turn::NoWindows) => {
                next_due = None;
                std::thread::park();
            }
            Some(Turn::Served(due)) => next_due = due,
        }
    }
}

/// Sleeps until the gateway socket has something to read, scaled time
/// reaches `due_srt_ns`, or [`IDLE_WAIT`] passed.
fn wait_for_frames(socket: &GatewayWaiter, due_srt_ns: Option<u64>) {
    let mut wait = IDLE_WAIT;
    if let (Some(due), Some(clock)) = (due_srt_ns, snapshot()) {
        let left_ns = clock.wall(due).saturating_sub(job_ns());
        wait = wait.min(Duration::from_nanos(left_ns));
        if wait.is_zero() {
            return;
        }
    }
    socket.wait(wait);
}
