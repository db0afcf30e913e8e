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
use shim_engine::waiting::REPORT_WAITING_AFTER;
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
    let mut watch = QuietWatch::default();
    loop {
        let done = engine(func, |e| {
            let r = poll(e)?;
            if r.is_none() {
                watch.observe(e);
            }
            Ok(r)
        })?;
        if let Some(r) = done {
            return Ok(r);
        }
        wait_for_gateway();
    }
}

/// Tells the gateway what a waiting call waits for once nothing has
/// arrived for [`REPORT_WAITING_AFTER`] (as the engine does when it
/// blocks itself), and again after each later arrival and quiet spell.
#[derive(Default)]
struct QuietWatch {
    received: u64,
    since: Option<std::time::Instant>,
    reported: bool,
}

impl QuietWatch {
    fn observe(&mut self, e: &mut Engine<GatewayTransport>) {
        let now = std::time::Instant::now();
        let received = e.counters().messages_received;
        if self.since.is_none() || received != self.received {
            (self.received, self.since, self.reported) = (received, Some(now), false);
        } else if !self.reported && now - self.since.unwrap_or(now) >= REPORT_WAITING_AFTER {
            let w = e.waiting();
            e.transport_mut().send_waiting(&w);
            self.reported = true;
        }
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
