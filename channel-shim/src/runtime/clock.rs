//! CLOCK_MONOTONIC, shared with the gateway on this host.

use nix::time::{clock_gettime, ClockId};

/// CLOCK_MONOTONIC now, ns.
pub fn monotonic_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always available");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}
