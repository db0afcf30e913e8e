//! Stretches the program's computation by the time factor.
//!
//! At each MPI call entry the time computed since the last MPI exit is
//! owed (factor − 1) times over; the debt is slept off once it is large
//! enough to sleep accurately, and any over- or under-sleep is carried to
//! the next call. Time blocked inside MPI is never stretched (deliveries
//! already arrive on the stretched schedule).

use super::clock::monotonic_ns;
use super::timeline::{SpanKind, SpanLog};

/// Debts below this are carried rather than slept (sleep overshoot is a few µs).
const MIN_SLEEP_NS: i64 = 50_000;

/// Time accounting of one process.
#[derive(Debug)]
pub struct Pacer {
    factor: f64,
    last_exit_ns: Option<u64>,
    call_start_ns: u64,
    debt_ns: i64,
    depth: u32,
    /// Computation between MPI calls, ns (equal in wall and scaled time).
    pub compute_ns: u64,
    /// Scaled time spent inside MPI calls, ns.
    pub blocked_ns: u64,
    /// Wall time slept to pay the debt, ns.
    pub slept_ns: u64,
    /// MPI calls made.
    pub calls: u64,
    call_name: &'static str,
    timeline: Option<SpanLog>,
}

impl Pacer {
    /// A pacer for `factor` (≥ 1), created as MPI_Init returns: the
    /// computation before the first MPI call after it counts and is stretched.
    pub fn new(factor: f64) -> Pacer {
        Pacer {
            factor: factor.max(1.0),
            last_exit_ns: Some(monotonic_ns()),
            call_start_ns: 0,
            debt_ns: 0,
            depth: 0,
            compute_ns: 0,
            blocked_ns: 0,
            slept_ns: 0,
            calls: 0,
            call_name: "",
            timeline: None,
        }
    }

    /// Records every compute, sleep and MPI-call span into `log`.
    pub fn with_timeline(mut self, log: SpanLog) -> Pacer {
        self.timeline = Some(log);
        self
    }

    /// Time factor.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// Entering MPI call `name`: account and sleep off the compute debt.
    pub fn enter(&mut self, name: &'static str) {
        self.depth += 1;
        if self.depth > 1 {
            return;
        }
        self.calls += 1;
        self.call_name = name;
        let now = monotonic_ns();
        let mut call_start = now;
        if let Some(last) = self.last_exit_ns {
            let compute = now.saturating_sub(last);
            self.compute_ns += compute;
            self.record(SpanKind::Compute, "", last, now);
            self.debt_ns += ((self.factor - 1.0) * compute as f64) as i64;
            if self.debt_ns >= MIN_SLEEP_NS {
                std::thread::sleep(std::time::Duration::from_nanos(self.debt_ns as u64));
                call_start = monotonic_ns();
                let slept = call_start - now;
                self.slept_ns += slept;
                self.debt_ns -= slept as i64;
                self.record(SpanKind::Sleep, "", now, call_start);
            }
        }
        self.call_start_ns = call_start;
    }

    fn record(&mut self, kind: SpanKind, name: &str, start: u64, end: u64) {
        if let Some(log) = self.timeline.as_mut() {
            log.span(kind, name, start, end);
        }
    }

    /// Leaving an MPI call.
    pub fn exit(&mut self) {
        if self.depth == 0 {
            return;
        }
        self.depth -= 1;
        if self.depth > 0 {
            return;
        }
        let now = monotonic_ns();
        self.blocked_ns += (now.saturating_sub(self.call_start_ns) as f64 / self.factor) as u64;
        self.last_exit_ns = Some(now);
        self.record(SpanKind::Call, self.call_name, self.call_start_ns, now);
        if self.call_name == "MPI_Finalize" {
            if let Some(log) = self.timeline.as_mut() {
                log.flush();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(ns: u64) {
        let t = monotonic_ns();
        while monotonic_ns() - t < ns {}
    }

    #[test]
    fn compute_is_stretched_by_the_factor() {
        let mut p = Pacer::new(4.0);
        p.enter("MPI_Barrier");
        p.exit();
        let t0 = monotonic_ns();
        busy(20_000_000);
        p.enter("MPI_Barrier");
        let wall = monotonic_ns() - t0;
        p.exit();
        // 20 ms of compute at factor 4 takes 80 ms of wall time, within the
        // sleep's overshoot.
        assert!(wall >= 79_000_000, "wall {wall}");
        assert!(p.compute_ns >= 20_000_000);
        assert!(p.slept_ns >= 59_000_000);
    }

    #[test]
    fn nested_calls_count_once() {
        let mut p = Pacer::new(1.0);
        p.enter("MPI_Send");
        p.enter("MPI_Isend");
        p.exit();
        p.exit();
        assert_eq!(p.calls, 1);
    }
}
