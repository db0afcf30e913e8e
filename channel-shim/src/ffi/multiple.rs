//! MPI_THREAD_MULTIPLE: every call runs under the engine's one lock, and a
//! call that must wait does not hold the lock while waiting. It polls the
//! engine without blocking, releases the lock, waits for the gateway socket
//! (at most 200 µs, so deliveries the shim holds until their virtual
//! arrival time are seen in time), and tries again — so another thread's
//! MPI call can run meanwhile. Without MULTIPLE the engine blocks directly,
//! which is cheaper and more precise.

use crate::abi::MPI_THREAD_MULTIPLE;
use crate::ffi::engine_access::engine;
use crate::ffi::init::THREAD_LEVEL;
use crate::runtime::{self, GatewayTransport};
use shim_engine::{Engine, MpiError};
use std::sync::atomic::Ordering;

/// Longest wait between two polls of the engine, ns.
const WAIT_NS: i64 = 200_000;

/// True when the program asked for (and got) MPI_THREAD_MULTIPLE.
pub fn thread_multiple() -> bool {
    THREAD_LEVEL.load(Ordering::SeqCst) == MPI_THREAD_MULTIPLE
}

/// Repeats `poll` (under the lock) until it yields a value, waiting for the
/// gateway socket without the lock in between.
pub fn block_until<R>(
    func: &str,
    mut poll: impl FnMut(&mut Engine<GatewayTransport>) -> Result<Option<R>, MpiError>,
) -> Result<R, MpiError> {
    loop {
        if let Some(r) = engine(func, &mut poll)? {
            return Ok(r);
        }
        wait_for_gateway();
    }
}

fn wait_for_gateway() {
    let fd = runtime::gateway_fd();
    if fd < 0 {
        return;
    }
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let timeout = libc::timespec {
        tv_sec: 0,
        tv_nsec: WAIT_NS,
    };
    // SAFETY: one valid pollfd and a valid timespec; the descriptor stays
    // open while MPI is initialised (a closed one only yields POLLNVAL).
    unsafe {
        libc::ppoll(&mut p, 1, &timeout, std::ptr::null());
    }
    if p.revents == 0 {
        std::thread::yield_now();
    }
}
