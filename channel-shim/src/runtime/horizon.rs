//! Publishing this rank's horizon to the gateway: the earliest emulated
//! time at which it may still send a message (see
//! [`mpinetsim_shm::horizon`]). Only a rank on shared memory publishes
//! (the gateway reads the word without a frame); the gateway then holds
//! back events later than the horizon for a while, so the rank's next
//! message does not enter the network late.
//!
//! The rank publishes at every MPI call's entry (its emulated time then:
//! it never goes back) and when it waits for the gateway with nothing
//! else to do (idle until the next delivery). With MPI_THREAD_MULTIPLE
//! another thread may send while one waits, so nothing is published.

use mpinetsim_shm::horizon::Horizon;
use mpinetsim_shm::HorizonHandle;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static HANDLE: Mutex<Option<HorizonHandle>> = Mutex::new(None);
static DISABLED: AtomicBool = AtomicBool::new(false);

fn handle() -> Option<HorizonHandle> {
    if DISABLED.load(Ordering::Relaxed) {
        return None;
    }
    HANDLE.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The channel's handle once connected on shared memory (None: a socket).
pub fn install(h: Option<HorizonHandle>) {
    *HANDLE.lock().unwrap_or_else(|p| p.into_inner()) = h;
}

/// Stops publishing for good (MPI_THREAD_MULTIPLE), and takes back what
/// was published.
pub fn disable() {
    if let Some(h) = handle() {
        h.publish(Horizon::Unknown);
    }
    DISABLED.store(true, Ordering::SeqCst);
}

/// Publishes `h`.
pub fn publish(h: Horizon) {
    if let Some(handle) = handle() {
        handle.publish(h);
    }
}

/// Publishes that `n` deliveries were read.
pub fn set_reads(n: u64) {
    if let Some(handle) = handle() {
        handle.set_reads(n);
    }
}
