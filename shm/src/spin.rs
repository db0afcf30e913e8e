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
//!
//! A yield hands the core to whoever else may run on it — and a process
//! that does not wait for us (a busy loop, a build) keeps it for its whole
//! time slice, a millisecond or more, during which the waiter neither
//! looks at its ring nor can be woken: it is runnable, not asleep, so its
//! peer rings no doorbell. Measured on 2 cores with a busy loop pinned
//! beside it: 12,037 of 20,000 yields took more than 100 µs (most more
//! than 1 ms). A waiter asleep on its doorbell is woken at once instead
//! (the kernel's wake-up preemption). So every yield is timed: one that
//! took longer than [`CONTENDED_YIELD_NS`] ends the spin (the waiter
//! sleeps), and the waiter does not spin again for a while
//! ([`FIRST_BACKOFF_NS`], doubled when the previous contended yield was
//! less than four back-offs before, at most [`MAX_BACKOFF_NS`]): under a
//! persistent busy neighbour one time slice is lost about once a second,
//! not at every wait, and an occasional preemption on a quiet machine
//! stops the spinning for 10 ms only.

use std::time::{Duration, Instant};

/// The floor of the budget, ns: a waiter whose waits all had to sleep
/// (its peer answers in milliseconds, not microseconds) does not spin at
/// all — a yield would only risk the core — until a wait that slept ends
/// soon enough for a spin to have caught it ([`Spinner::slept`]).
pub const MIN_SPIN_NS: u64 = 1_000;
/// Longest active wait, ns.
pub const MAX_SPIN_NS: u64 = 50_000;
/// A yield that took longer than this gave the core to a thread that
/// kept it (ns): the spin ends and backs off.
pub const CONTENDED_YIELD_NS: u64 = 50_000;
/// No spinning for this long after a contended yield, ns.
pub const FIRST_BACKOFF_NS: u64 = 10_000_000;
/// Longest back-off, ns.
pub const MAX_BACKOFF_NS: u64 = 1_000_000_000;

/// The adaptive spin budget of one waiter.
#[derive(Debug, Clone)]
pub struct Spinner {
    budget_ns: u64,
    /// No spinning before this instant (after a contended yield).
    quiet_until: Option<Instant>,
    /// The last back-off, ns.
    backoff_ns: u64,
    /// When a yield was last contended.
    last_contended: Option<Instant>,
}

impl Default for Spinner {
    fn default() -> Spinner {
        Spinner {
            budget_ns: MAX_SPIN_NS / 4,
            quiet_until: None,
            backoff_ns: FIRST_BACKOFF_NS,
            last_contended: None,
        }
    }
}

impl Spinner {
    /// The current budget, ns.
    pub fn budget_ns(&self) -> u64 {
        self.budget_ns
    }

    /// True while a contended yield's back-off lasts: a spin now would
    /// only look once.
    pub fn backing_off(&self) -> bool {
        self.quiet_until.is_some_and(|t| Instant::now() < t)
    }

    /// Looks at `done()`, yielding the core between looks, until it holds,
    /// the budget is spent (at most `limit_ns`), or a yield shows the core
    /// is contended; returns whether `done()` became true, and adapts the
    /// budget. While backing off, looks once and does not yield.
    pub fn spin(&mut self, limit_ns: u64, done: impl FnMut() -> bool) -> bool {
        self.spin_with(limit_ns, done, || {
            let t = Instant::now();
            std::thread::yield_now();
            t.elapsed()
        })
    }

    /// [`Spinner::spin`] with `give_way` in place of a timed `sched_yield`
    /// (it returns how long the core was away).
    fn spin_with(
        &mut self,
        limit_ns: u64,
        mut done: impl FnMut() -> bool,
        mut give_way: impl FnMut() -> Duration,
    ) -> bool {
        if done() {
            self.succeeded();
            return true;
        }
        let start = Instant::now();
        if self.quiet_until.is_some_and(|t| start < t) || self.budget_ns <= MIN_SPIN_NS {
            return false;
        }
        let end = Duration::from_nanos(self.budget_ns.min(limit_ns));
        loop {
            let away = give_way();
            if done() {
                self.succeeded();
                return true;
            }
            if away > Duration::from_nanos(CONTENDED_YIELD_NS) {
                self.contended(Instant::now());
                self.failed();
                return false;
            }
            if start.elapsed() >= end {
                break;
            }
        }
        self.failed();
        false
    }

    /// A yield at `now` found the core taken: no spinning for a back-off,
    /// twice the last one if that contention was recent.
    fn contended(&mut self, now: Instant) {
        let recent = self.last_contended.is_some_and(|t| {
            now.saturating_duration_since(t) < Duration::from_nanos(4 * self.backoff_ns)
        });
        self.backoff_ns = if recent {
            (self.backoff_ns * 2).min(MAX_BACKOFF_NS)
        } else {
            FIRST_BACKOFF_NS
        };
        self.quiet_until = Some(now + Duration::from_nanos(self.backoff_ns));
        self.last_contended = Some(now);
    }

    /// A wait that had to sleep ended after `waited` (from before its
    /// spin): one short enough for a spin to have caught it lengthens the
    /// budget — the way back from the floor, where the waiter does not
    /// spin.
    pub fn slept(&mut self, waited: Duration) {
        if waited <= Duration::from_nanos(MAX_SPIN_NS) {
            self.succeeded();
        }
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

    /// A yield that came back at once.
    fn quick() -> Duration {
        Duration::ZERO
    }

    /// A yield whose core another process kept.
    fn lost_slice() -> Duration {
        Duration::from_nanos(2 * CONTENDED_YIELD_NS)
    }

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
        assert!(!s.spin_with(u64::MAX, || false, quick));
        assert_eq!(s.budget_ns(), MAX_SPIN_NS / 2);
        for _ in 0..20 {
            s.failed();
        }
        assert_eq!(s.budget_ns(), MIN_SPIN_NS);
    }

    #[test]
    fn quick_yields_spin_until_the_budget_or_the_limit() {
        let mut s = Spinner::default();
        let mut yields = 0u64;
        let t = Instant::now();
        assert!(!s.spin_with(
            2_000,
            || false,
            || {
                yields += 1;
                quick()
            }
        ));
        assert!(t.elapsed() >= Duration::from_nanos(2_000));
        assert!(yields >= 1);
        assert!(!s.backing_off());
        // Found on the third look after the first.
        let mut looks = 0;
        assert!(s.spin_with(
            u64::MAX,
            || {
                looks += 1;
                looks > 3
            },
            quick
        ));
        assert_eq!(looks, 4);
    }

    #[test]
    fn a_yield_that_lost_the_core_ends_the_spin_and_the_next_spins_back_off() {
        let mut s = Spinner::default();
        let mut n = 0;
        assert!(!s.spin_with(
            u64::MAX,
            || false,
            || {
                n += 1;
                lost_slice()
            }
        ));
        assert_eq!(n, 1, "one contended yield ends the spin");
        assert!(s.backing_off());
        // While backing off: one look, no yield.
        n = 0;
        assert!(!s.spin_with(
            u64::MAX,
            || false,
            || {
                n += 1;
                quick()
            }
        ));
        assert!(s.spin_with(
            u64::MAX,
            || true,
            || {
                n += 1;
                quick()
            }
        ));
        assert_eq!(n, 0);
        // After the back-off it spins again; a second contended yield
        // soon after the first doubles the back-off (the sleep may last
        // longer on a loaded machine: the first contention is put back
        // to one back-off ago).
        std::thread::sleep(Duration::from_nanos(FIRST_BACKOFF_NS));
        assert!(!s.backing_off());
        s.last_contended = Some(Instant::now() - Duration::from_nanos(FIRST_BACKOFF_NS));
        let before = Instant::now();
        assert!(!s.spin_with(
            u64::MAX,
            || false,
            || {
                n += 1;
                lost_slice()
            }
        ));
        assert_eq!(n, 1);
        let quiet = s.quiet_until.unwrap() - before;
        assert!(
            quiet >= Duration::from_nanos(2 * FIRST_BACKOFF_NS),
            "{quiet:?}"
        );
        // Contention long past: the back-off starts again at the first.
        s.quiet_until = None;
        s.last_contended = Some(Instant::now() - Duration::from_nanos(8 * s.backoff_ns));
        let before = Instant::now();
        assert!(!s.spin_with(u64::MAX, || false, lost_slice));
        assert_eq!(s.backoff_ns, FIRST_BACKOFF_NS);
        let quiet = s.quiet_until.unwrap() - before;
        assert!(
            quiet < Duration::from_nanos(2 * FIRST_BACKOFF_NS),
            "{quiet:?}"
        );
    }

    #[test]
    fn at_the_floor_it_does_not_yield_until_a_short_sleep_raises_the_budget() {
        let mut s = Spinner::default();
        for _ in 0..20 {
            s.failed();
        }
        let n = std::cell::Cell::new(0);
        let count = || {
            n.set(n.get() + 1);
            quick()
        };
        assert!(!s.spin_with(u64::MAX, || false, count));
        assert!(s.spin_with(u64::MAX, || true, count));
        s.failed();
        s.slept(Duration::from_millis(1));
        assert!(!s.spin_with(u64::MAX, || false, count));
        assert_eq!(n.get(), 0, "no yield at the floor");
        s.slept(Duration::from_nanos(MAX_SPIN_NS / 2));
        assert!(s.budget_ns() > MIN_SPIN_NS);
        assert!(!s.spin_with(u64::MAX, || false, count));
        assert!(n.get() >= 1);
    }
}
