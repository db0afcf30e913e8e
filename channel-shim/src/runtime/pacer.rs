//! Stretches the program's computation by the time factor.
//!
//! Computation of c wall ns must take c ns of scaled time (the emulated
//! machine computes as fast as this one). At each MPI call entry the scaled
//! time the computation still owes — c minus the scaled time that passed
//! while it ran — is slept off once it is large enough to sleep accurately,
//! and any over- or under-sleep is carried to the next call. Working in
//! scaled time through the job's clock makes this right across factor
//! changes too (c/f of scaled time passes at a fixed factor f, so the sleep
//! is (f − 1)·c of wall time). Time blocked inside MPI is never stretched
//! (deliveries already arrive on the stretched schedule).

use super::clock::job_ns;
use super::timeline::{SpanKind, SpanLog};
use mpinetsim_protocol::ScaledClock;

/// Debts below this are carried rather than slept (sleep overshoot is a few µs).
const MIN_SLEEP_NS: i64 = 50_000;

/// Time accounting of one process.
#[derive(Debug)]
pub struct Pacer {
    last_exit_ns: Option<u64>,
    call_start_ns: u64,
    /// Scaled time the computation still owes, ns.
    owed_srt_ns: i64,
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

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new()
    }
}

impl Pacer {
    /// A pacer created as MPI_Init returns: the computation before the
    /// first MPI call after it counts and is stretched.
    pub fn new() -> Pacer {
        Pacer {
            last_exit_ns: Some(job_ns()),
            call_start_ns: 0,
            owed_srt_ns: 0,
            depth: 0,
            compute_ns: 0,
            blocked_ns: 0,
            slept_ns: 0,
            calls: 0,
            call_name: "",
            timeline: None,
        }
    }

    /// The outermost MPI call in progress (or the last one made).
    pub fn call_name(&self) -> &'static str {
        self.call_name
    }

    /// Records every compute, sleep and MPI-call span into `log`.
    pub fn with_timeline(mut self, log: SpanLog) -> Pacer {
        self.timeline = Some(log);
        self
    }

    /// Entering MPI call `name`: account and sleep off the compute debt,
    /// on the job's `clock`.
    pub fn enter(&mut self, name: &'static str, clock: &ScaledClock) {
        self.depth += 1;
        if self.depth > 1 {
            return;
        }
        self.calls += 1;
        self.call_name = name;
        let now = job_ns();
        let mut call_start = now;
        if let Some(last) = self.last_exit_ns {
            let compute = now.saturating_sub(last);
            self.compute_ns += compute;
            self.record(SpanKind::Compute, "", last, now);
            let passed = clock.srt(now).saturating_sub(clock.srt(last));
            self.owed_srt_ns += compute as i64 - passed as i64;
            if self.owed_srt_ns > 0 {
                let srt_now = clock.srt(now);
                let wake = clock.wall(srt_now + self.owed_srt_ns as u64);
                if wake.saturating_sub(now) as i64 >= MIN_SLEEP_NS {
                    std::thread::sleep(std::time::Duration::from_nanos(wake - now));
                    call_start = job_ns();
                    self.slept_ns += call_start - now;
                    self.owed_srt_ns -= clock.srt(call_start).saturating_sub(srt_now) as i64;
                    self.record(SpanKind::Sleep, "", now, call_start);
                }
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
    pub fn exit(&mut self, clock: &ScaledClock) {
        if self.depth == 0 {
            return;
        }
        self.depth -= 1;
        if self.depth > 0 {
            return;
        }
        let now = job_ns();
        self.blocked_ns += clock.srt(now).saturating_sub(clock.srt(self.call_start_ns));
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
        let t = job_ns();
        while job_ns() - t < ns {}
    }

    #[test]
    fn compute_is_stretched_by_the_factor() {
        let c = ScaledClock::new(job_ns(), 4.0);
        let mut p = Pacer::new();
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        let t0 = job_ns();
        busy(20_000_000);
        p.enter("MPI_Barrier", &c);
        let wall = job_ns() - t0;
        p.exit(&c);
        // 20 ms of compute at factor 4 takes 80 ms of wall time, within the
        // sleep's overshoot.
        assert!(wall >= 79_000_000, "wall {wall}");
        assert!(p.compute_ns >= 20_000_000);
        assert!(p.slept_ns >= 59_000_000);
    }

    #[test]
    fn nested_calls_count_once() {
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new();
        p.enter("MPI_Send", &c);
        p.enter("MPI_Isend", &c);
        p.exit(&c);
        p.exit(&c);
        assert_eq!(p.calls, 1);
    }

    #[test]
    fn a_factor_change_during_computation_is_paid_in_scaled_time() {
        // Factor 2 for the first 5 ms of scaled time (10 ms wall), then 8.
        let mut c = ScaledClock::new(job_ns(), 2.0);
        c.change(5_000_000, 8.0);
        let mut p = Pacer::new();
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        let start = job_ns();
        let srt0 = c.srt(start);
        busy(20_000_000);
        p.enter("MPI_Barrier", &c);
        // 20 ms of computation must take 20 ms of scaled time, whatever the
        // factors on the way (within the sleep's overshoot).
        let srt = c.srt(job_ns()) - srt0;
        assert!((20_000_000..20_500_000).contains(&srt), "{srt}");
    }
}
