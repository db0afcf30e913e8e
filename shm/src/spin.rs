//! How long to wait actively before sleeping, adapted to what waiting
//! achieved: a wait that ended in time lengthens the next one (up to a
//! ceiling), one that had to sleep halves it. A waiter whose peer answers
//! within microseconds never pays a wake-up through the kernel; one whose
//! waits are long soon waits actively only briefly.
//!
//! Each look at the condition is followed by `sched_yield`, not by a
//! busy pause: a rank, the gateway and the other rank are three threads
//! that each wait for one another, and on a machine with fewer cores
//! than busy threads a pure spin holds the core the awaited thread needs
//! until the spin's budget runs out. Yielding hands it over at once, and
//! costs one system call where the thread has its core to itself.
//! Measured on 2 cores (bench/overhead.sh, 32-byte round trip through
//! shim + gateway, median): 47–48 µs spinning, 14–23 µs yielding; with a
//! busy loop beside it 32–43 µs against 21–29 µs (docs/performance.md).

use std::time::{Duration, Instant};

/// Shortest active wait, ns.
pub const MIN_SPIN_NS: u64 = 1_000;
/// Longest active wait, ns.
pub const MAX_SPIN_NS: u64 = 50_000;

/// The adaptive spin budget of one waiter.
#[derive(Debug, Clone)]
pub struct Spinner {
    budget_ns: u64,
}

impl Default for Spinner {
    fn default() -> Spinner {
        Spinner {
            budget_ns: MAX_SPIN_NS / 4,
        }
    }
}

impl Spinner {
    /// The current budget, ns.
    pub fn budget_ns(&self) -> u64 {
        self.budget_ns
    }

    /// Looks at `done()`, yielding the core between looks, until it holds
    /// or the budget is spent (at most `limit_ns`);
    /// returns whether `done()` became true, and adapts the budget.
    pub fn spin(&mut self, limit_ns: u64, mut done: impl FnMut() -> bool) -> bool {
        let budget = self.budget_ns.min(limit_ns);
        let start = Instant::now();
        let end = Duration::from_nanos(budget);
        let mut i = 0u32;
        loop {
            if done() {
                self.succeeded();
                return true;
            }
            std::thread::yield_now();
            i = i.wrapping_add(1);
            if i.is_multiple_of(4) && start.elapsed() >= end {
                break;
            }
        }
        self.failed();
        false
    }

    /// A wait ended while spinning.
    pub fn succeeded(&mut self) {
        self.budget_ns = (self.budget_ns + self.budget_ns / 2).clamp(MIN_SPIN_NS, MAX_SPIN_NS);
    }

    /// A wait had to sleep.
    pub fn failed(&mut self) {
        self.budget_ns = (self.budget_ns / 2).max(MIN_SPIN_NS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_grows_on_success_and_halves_on_failure_within_its_bounds() {
        let mut s = Spinner::default();
        let start = s.budget_ns();
        assert!(s.spin(u64::MAX, || true));
        assert_eq!(s.budget_ns(), start + start / 2);
        for _ in 0..20 {
            s.succeeded();
        }
        assert_eq!(s.budget_ns(), MAX_SPIN_NS);
        assert!(!s.spin(u64::MAX, || false));
        assert_eq!(s.budget_ns(), MAX_SPIN_NS / 2);
        for _ in 0..20 {
            s.failed();
        }
        assert_eq!(s.budget_ns(), MIN_SPIN_NS);
    }
}
