//! Stretches the program's computation by the time factor.
//!
//! The computation between two MPI calls is measured, by default, as the
//! CPU time the process consumed meanwhile (every thread; `--compute-clock
//! wall` measures wall time instead), and divided by the host's CPU speed:
//! the emulated machine has a core of that speed for every rank, which
//! runs the CPU time of all the rank's threads. Computation of c ns must take c ns of scaled time. At each MPI call
//! entry the scaled time the computation still owes — c minus the scaled
//! time that passed while it ran — is slept off once it is large enough to
//! sleep accurately, and any under-sleep (or oversleep) is carried to the
//! next call. Working in scaled time through the job's clock makes this
//! right across factor changes too (c/f of scaled time passes at a fixed
//! factor f, so the sleep is (f − 1)·c of wall time). When more scaled time
//! passed than the computation owes — the rank waited for a CPU, so its CPU
//! time c took more than factor × c of wall time — the rank is late by the
//! difference, recorded like a late simulator event, and it stays behind
//! (its messages are stamped with its emulated time, which is right) until
//! a later computation makes it up or it waits for a message that arrives
//! later still. Time blocked inside MPI is never stretched (deliveries
//! already arrive on the stretched schedule), and a wait for a message
//! ends at the message's arrival on the emulated machine, not when this
//! process woke up to take it (see [`super::clock::emulated_offset_ns`]).
//! Computations shorter than the host's `cpu_threshold` are not counted at
//! all: they are the program's and MPI's own few hundred nanoseconds
//! between back-to-back calls, which on this machine's cold caches cost
//! more than on the emulated one and would otherwise put a constant error
//! on every message of a microsecond network.

use super::clock::{
    cpu_clock_read_cost_ns, emulated_offset_ns, freeze, is_adaptive, job_ns, program_cpu_ns,
    set_emulated_offset_ns, thaw, wall_clock_read_cost_ns,
};
use super::timeline::{SpanKind, SpanLog};
use mpinetsim_protocol::{ComputeClock, HostCpu, LatenessHistogram, ScaledClock};
use std::sync::Arc;

/// Longest single sleep of an adaptive run, wall ns: shorter than the
/// 2 ms by which the gateway announces factor switches, so a sleeping
/// rank learns of a switch before it takes effect.
pub const ADAPTIVE_SLEEP_CHUNK_NS: u64 = 1_000_000;

/// Sleeps until scaled time `target` on `clock`; when the run is adaptive,
/// in chunks, taking the clock `refresh` gives after each. Returns the
/// clock as it is at the end.
fn sleep_until_srt(
    target: u64,
    clock: &ScaledClock,
    refresh: &mut dyn FnMut() -> Option<Arc<ScaledClock>>,
) -> Arc<ScaledClock> {
    let mut current = Arc::new(clock.clone());
    loop {
        let (wake, t) = (current.wall(target), job_ns());
        if t >= wake {
            return current;
        }
        let left = wake - t;
        if !is_adaptive() {
            std::thread::sleep(std::time::Duration::from_nanos(left));
            return current;
        }
        std::thread::sleep(std::time::Duration::from_nanos(
            left.min(ADAPTIVE_SLEEP_CHUNK_NS),
        ));
        if let Some(c) = refresh() {
            current = c;
        }
    }
}

/// Debts below this are carried rather than slept (sleep overshoot is a few µs).
const MIN_SLEEP_NS: i64 = 50_000;

/// The most by which the CPU clock's reads can overstate a computation:
/// a cold system call after a wake-up (measured here: up to ~0.6 µs more
/// than a warm read after a 1 ms sleep), or a read during which the host
/// preempted this virtual machine's CPU (the guest counts that time as
/// the thread's: seen here, 16 µs of CPU time in 2 µs of wall time).
/// CPU time beyond the wall interval by more than this is other threads'
/// computation and counts; a multi-threaded rank's intervals shorter than
/// this may be undercounted by up to it.
const CPU_READ_EXCESS_MAX_NS: u64 = 20_000;

/// The computation between two MPI calls on the CPU clock: the CPU time
/// `cpu_ns` (less one read's cost already), less what the wall interval
/// `wall_ns` between the calls shows the clock's reads overstated it by.
/// After a wake-up the CPU clock's system call costs several times the
/// read cost measured at start (up to ~0.6 µs more here), and since the
/// rank sleeps longer the larger the time factor, a short computation
/// between calls grew with the factor. The wall interval holds no CPU-clock
/// read (see [`CallEntry`]); CPU time beyond it is that excess, up to
/// [`CPU_READ_EXCESS_MAX_NS`], or other threads computing, which counts.
fn cpu_computation_ns(cpu_ns: u64, wall_ns: u64) -> u64 {
    cpu_ns - cpu_ns.saturating_sub(wall_ns).min(CPU_READ_EXCESS_MAX_NS)
}

/// The clocks as an MPI call began: the wall clock, the CPU clock (a
/// system call), the wall clock again. The interval between the exit's
/// second and the entry's first wall reading holds no CPU-clock read nor
/// the shim's bookkeeping, and bounds the computation (see
/// [`cpu_computation_ns`]); the enclosing one, from the exit's first to
/// the entry's second reading, holds the CPU interval whole and is the
/// computation's span on the wall clock.
#[derive(Clone, Copy, Debug)]
pub struct CallEntry {
    /// Job clock (wall) before the CPU clock was read, ns.
    pub wall_ns: u64,
    /// The program's CPU time, ns.
    pub cpu_ns: u64,
    /// Job clock (wall) after the CPU clock was read, ns.
    pub wall_after_cpu_ns: u64,
}

impl CallEntry {
    /// Reads the wall clock, the CPU clock and the wall clock.
    pub fn now() -> CallEntry {
        let wall_ns = job_ns();
        let cpu_ns = program_cpu_ns();
        CallEntry {
            wall_ns,
            cpu_ns,
            wall_after_cpu_ns: job_ns(),
        }
    }
}

/// Time accounting of one process.
#[derive(Debug)]
pub struct Pacer {
    clock: ComputeClock,
    cpu: HostCpu,
    /// What reading the CPU clock adds to each interval, ns (subtracted).
    cpu_read_cost_ns: u64,
    /// What reading the wall clock adds to each interval, ns (subtracted).
    wall_read_cost_ns: u64,
    last_exit_ns: Option<u64>,
    /// Job clock after the last exit's CPU-clock read, ns.
    last_exit_after_cpu_ns: u64,
    last_exit_cpu_ns: u64,
    call_start_ns: u64,
    /// Scaled time the computation still owes, ns; negative: how far the
    /// rank is behind the emulated schedule (its lag). Between calls the
    /// pacer holds the rank's emulated-time offset here; inside a call
    /// the job clock's [`emulated_offset_ns`] holds it.
    owed_srt_ns: i64,
    depth: u32,
    /// Computation between MPI calls on the emulated machine (measured ÷
    /// CPU speed), ns of scaled time.
    pub compute_ns: u64,
    /// CPU time the process consumed between MPI calls, ns.
    pub compute_cpu_ns: u64,
    /// Computations not counted, being shorter than the threshold.
    pub below_threshold: u64,
    /// What those computations measured, ns (before the CPU speed).
    pub below_threshold_ns: u64,
    /// Wall time between MPI calls (before the sleep), ns.
    pub compute_wall_ns: u64,
    /// Lateness of every computation, scaled ns.
    pub lateness: LatenessHistogram,
    /// The largest lateness, scaled ns.
    pub late_max_ns: u64,
    /// SRT at which the latest computation ended, ns.
    pub late_max_at_ns: u64,
    /// The largest lateness since [`Pacer::take_recent_lateness`] last
    /// took it, scaled ns.
    recent_late_ns: u64,
    /// Scaled time spent inside MPI calls, ns.
    pub blocked_ns: u64,
    /// Wall time slept to pay the debt, ns.
    pub slept_ns: u64,
    /// MPI calls made.
    pub calls: u64,
    call_name: &'static str,
    timeline: Option<SpanLog>,
    /// Tests and probes that had found nothing when the current (or last)
    /// call began.
    polls_at_entry: u64,
    /// The last call was a test or probe that found nothing.
    after_poll: bool,
}

impl Pacer {
    /// A pacer created as MPI_Init returns: the computation before the
    /// first MPI call after it counts and is stretched. `clock` measures
    /// the computation; `cpu` makes it emulated time.
    pub fn new(clock: ComputeClock, cpu: HostCpu) -> Pacer {
        set_emulated_offset_ns(0);
        Pacer {
            clock,
            cpu,
            cpu_read_cost_ns: cpu_clock_read_cost_ns(),
            wall_read_cost_ns: wall_clock_read_cost_ns(),
            last_exit_ns: Some(job_ns()),
            last_exit_after_cpu_ns: job_ns(),
            last_exit_cpu_ns: program_cpu_ns(),
            call_start_ns: 0,
            owed_srt_ns: 0,
            depth: 0,
            compute_ns: 0,
            compute_cpu_ns: 0,
            below_threshold: 0,
            below_threshold_ns: 0,
            compute_wall_ns: 0,
            lateness: LatenessHistogram::default(),
            late_max_ns: 0,
            late_max_at_ns: 0,
            recent_late_ns: 0,
            blocked_ns: 0,
            slept_ns: 0,
            calls: 0,
            call_name: "",
            timeline: None,
            polls_at_entry: 0,
            after_poll: false,
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
        self.enter_refreshing(name, clock, CallEntry::now(), &mut || None);
    }

    /// [`Pacer::enter`] when the factor may change during the sleep (an
    /// adaptive run): the sleep wakes every [`ADAPTIVE_SLEEP_CHUNK_NS`] and
    /// asks `refresh` for the job's clock as it is then (None: unchanged),
    /// so it ends at the scaled time it owes whatever the factor became.
    /// `entry` holds the clocks as the call began (read first thing, so
    /// the shim's own bookkeeping does not count as the program's
    /// computation).
    pub fn enter_refreshing(
        &mut self,
        name: &'static str,
        clock: &ScaledClock,
        entry: CallEntry,
        refresh: &mut dyn FnMut() -> Option<Arc<ScaledClock>>,
    ) {
        self.depth += 1;
        if self.depth > 1 {
            return;
        }
        self.calls += 1;
        self.call_name = name;
        let now = entry.wall_after_cpu_ns;
        let mut call_start = now;
        if let Some(last) = self.last_exit_ns {
            let wall = now.saturating_sub(last);
            let cpu = entry
                .cpu_ns
                .saturating_sub(self.last_exit_cpu_ns)
                .saturating_sub(self.cpu_read_cost_ns);
            let measured = match self.clock {
                ComputeClock::Cpu => {
                    let between_reads = entry
                        .wall_ns
                        .saturating_sub(self.last_exit_after_cpu_ns)
                        .saturating_sub(self.wall_read_cost_ns);
                    cpu_computation_ns(cpu, between_reads)
                }
                ComputeClock::Wall => wall,
            };
            super::trace_record::record(mpinetsim_protocol::trace::TraceEvent::Compute {
                ns: measured,
            });
            if !self.cpu.counts(measured) {
                self.below_threshold += 1;
                self.below_threshold_ns += measured;
            }
            let compute = self.cpu.emulated_ns(measured);
            self.compute_ns += compute;
            self.compute_cpu_ns += cpu;
            self.compute_wall_ns += wall;
            if let Some(log) = self.timeline.as_mut() {
                log.compute_span(last, now, measured);
            }
            let srt_now = clock.srt(now);
            let passed = srt_now.saturating_sub(clock.srt(last));
            self.owed_srt_ns += compute as i64 - passed as i64;
            // Behind the schedule: the rank stays there (its emulated time
            // is right; its messages are stamped with it) until a later
            // computation makes it up.
            let late = if self.owed_srt_ns < 0 {
                self.owed_srt_ns.unsigned_abs()
            } else {
                0
            };
            self.lateness.record(late);
            self.recent_late_ns = self.recent_late_ns.max(late);
            if late > self.late_max_ns {
                self.late_max_ns = late;
                self.late_max_at_ns = srt_now;
            }
            if self.owed_srt_ns > 0 {
                let target = srt_now + self.owed_srt_ns as u64;
                if clock.wall(target).saturating_sub(now) as i64 >= MIN_SLEEP_NS {
                    let clock = sleep_until_srt(target, clock, refresh);
                    call_start = job_ns();
                    self.slept_ns += call_start - now;
                    self.owed_srt_ns -= clock.srt(call_start).saturating_sub(srt_now) as i64;
                    self.record(SpanKind::Sleep, "", now, call_start);
                } else if self.after_poll {
                    // A test or probe comes next after one that found
                    // nothing: it must look at the ring no earlier than
                    // its emulated time on the schedule, or it misses a
                    // message that has arrived by then and the loop ends
                    // up to the carried debt late. The debt is too small
                    // to sleep; wait for it offering the core, as the
                    // polling itself would.
                    let wake = clock.wall(target);
                    while job_ns() < wake {
                        std::thread::yield_now();
                    }
                    call_start = job_ns();
                    self.slept_ns += call_start - now;
                    self.owed_srt_ns -= clock.srt(call_start).saturating_sub(srt_now) as i64;
                }
            }
        }
        self.polls_at_entry = super::clock::polls();
        self.call_start_ns = call_start;
        set_emulated_offset_ns(self.owed_srt_ns);
        freeze(clock.srt(call_start));
    }

    /// The largest lateness of a computation since the previous call
    /// (0: none was late), scaled ns; for the adaptive factor controller.
    pub fn take_recent_lateness(&mut self) -> u64 {
        std::mem::take(&mut self.recent_late_ns)
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
        thaw(clock.srt(now));
        self.blocked_ns += clock.srt(now).saturating_sub(clock.srt(self.call_start_ns));
        // Where the call left the rank against the schedule (a message it
        // waited for may have moved it): the next computation owes that
        // much more or less, so a rank behind catches up.
        self.owed_srt_ns = emulated_offset_ns();
        self.after_poll = super::clock::polls() > self.polls_at_entry;
        self.last_exit_ns = Some(now);
        // Before the clocks the next computation counts from: writing
        // the timeline is the shim's work, not the program's.
        self.record(SpanKind::Call, self.call_name, self.call_start_ns, now);
        if self.call_name == "MPI_Finalize" {
            if let Some(log) = self.timeline.as_mut() {
                log.flush();
            }
        }
        // The CPU clock last, then the wall clock once more (see
        // [`CallEntry`]).
        self.last_exit_cpu_ns = program_cpu_ns();
        self.last_exit_after_cpu_ns = job_ns();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests measure the process's CPU time and set the clock's
    /// globals: one at a time.
    fn serial() -> std::sync::MutexGuard<'static, ()> {
        super::super::clock::serial_for_tests()
    }

    /// Spins until this process has consumed `ns` more CPU time.
    fn busy_cpu(ns: u64) {
        let t = program_cpu_ns();
        while program_cpu_ns() - t < ns {}
    }

    fn busy_wall(ns: u64) {
        let t = job_ns();
        while job_ns() - t < ns {}
    }

    /// Calls back to back compute (nearly) nothing on the emulated
    /// machine: reading the CPU clock costs about 170 ns of CPU, which
    /// once counted as the program's computation at every call and put a
    /// constant error on every message whatever the factor.
    #[test]
    fn back_to_back_calls_compute_nearly_nothing() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new(ComputeClock::Cpu, HostCpu::new(1.0, 0));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        let mut each: Vec<u64> = (0..1001)
            .map(|_| {
                let before = p.compute_ns;
                p.enter("MPI_Barrier", &c);
                p.exit(&c);
                p.compute_ns - before
            })
            .collect();
        each.sort_unstable();
        let median = each[each.len() / 2];
        let cost = cpu_clock_read_cost_ns();
        assert!(cost > 0, "reading the CPU clock costs nothing?");
        assert!(
            median < cost / 2,
            "a call right after another computed {median} ns; the clock read costs {cost} ns"
        );
    }

    /// A single thread cannot compute longer than the wall time between
    /// two calls: CPU time beyond it up to 20 µs is the clock reads'
    /// excess and goes; beyond that it is other threads' and stays.
    #[test]
    fn cpu_time_beyond_the_wall_interval_is_read_cost_up_to_a_bound() {
        assert_eq!(cpu_computation_ns(100, 300), 100);
        assert_eq!(cpu_computation_ns(500, 300), 300);
        assert_eq!(cpu_computation_ns(2_300, 300), 300);
        // Two threads computing 20 ms each in 20 ms of wall time.
        assert_eq!(cpu_computation_ns(16_200, 1_990), 1_990);
        assert_eq!(cpu_computation_ns(40_000_000, 20_000_000), 39_980_000);
    }

    /// A call that slept (its thread woke cold) and the next call right
    /// after it: the computation between them is at most their wall
    /// interval, though reading the CPU clock after a wake-up costs more
    /// than the read cost subtracted.
    #[test]
    fn a_call_after_a_wake_up_computes_at_most_the_wall_interval() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new(ComputeClock::Cpu, HostCpu::new(1.0, 0));
        for _ in 0..50 {
            p.enter("MPI_Recv", &c);
            std::thread::sleep(std::time::Duration::from_micros(500));
            p.exit(&c);
            let (exit_wall, before) = (p.last_exit_ns.unwrap(), p.compute_ns);
            p.enter("MPI_Send", &c);
            let wall = job_ns() - exit_wall;
            p.exit(&c);
            assert!(
                p.compute_ns - before <= wall,
                "{} in {wall}",
                p.compute_ns - before
            );
        }
    }

    #[test]
    fn compute_is_stretched_by_the_factor() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 4.0);
        let mut p = Pacer::new(ComputeClock::Cpu, HostCpu::new(1.0, 0));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        // What the first call carried (a loaded machine may have made it
        // sleep, and overshoot): the next computation owes that much more.
        let (t0, before, carry) = (p.last_exit_ns.unwrap(), p.compute_ns, p.owed_srt_ns);
        busy_cpu(20_000_000);
        p.enter("MPI_Barrier", &c);
        let wall = job_ns() - t0;
        p.exit(&c);
        // 20 ms of CPU at factor 4 takes at least 80 ms of wall time (more
        // when a loaded machine made it late), never less. (The CPU clock
        // may run a few ppm ahead of the wall clock: what it shows beyond
        // the wall interval goes, up to CPU_READ_EXCESS_MAX_NS.)
        let compute = p.compute_ns - before;
        assert!(compute >= 20_000_000 - CPU_READ_EXCESS_MAX_NS && p.compute_cpu_ns >= 20_000_000);
        let owed = (compute as i64 + carry).max(0) as u64;
        assert!(wall + 200_000 >= 4 * owed, "wall {wall} for {compute}");
        // ... and at most that plus the sleep's overshoot, which is
        // carried to the next computation (a woken rank waiting for a CPU
        // overshoots by that wait).
        // When the CPU time took longer than 80 ms of wall time (a loaded
        // machine), the rank was late by the excess and did not sleep.
        let (overshoot, late) = ((-p.owed_srt_ns).max(0) as u64, p.late_max_ns);
        assert!(
            wall <= 4 * (owed + late + overshoot) + 1_000_000,
            "wall {wall} for {compute} (+ {late} late, {overshoot} overshoot)"
        );
    }

    #[test]
    fn waiting_without_a_cpu_is_not_computation_but_lateness() {
        let _g = serial();
        // A rank that gets no CPU for 20 ms (here: it sleeps) between two
        // calls at factor 1 computed nothing, and its next call came 20 ms
        // after the schedule.
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new(ComputeClock::Cpu, HostCpu::new(1.0, 0));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        std::thread::sleep(std::time::Duration::from_millis(20));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        assert!(p.compute_ns < 2_000_000, "{}", p.compute_ns);
        assert!(p.compute_wall_ns >= 20_000_000);
        assert!(p.late_max_ns >= 18_000_000, "{}", p.late_max_ns);
        assert_eq!(p.lateness.len(), 2);
        assert_eq!(p.slept_ns, 0);
    }

    #[test]
    fn wall_clock_counts_waiting_as_computation() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 2.0);
        let mut p = Pacer::new(ComputeClock::Wall, HostCpu::new(1.0, 0));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        std::thread::sleep(std::time::Duration::from_millis(20));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        // 20 ms of wall time is 20 ms of computation, owing 10 ms more of
        // scaled time at factor 2 (20 ms of sleep); never late.
        assert!(p.compute_ns >= 20_000_000);
        assert!(p.slept_ns >= 19_000_000, "{}", p.slept_ns);
        assert_eq!(p.late_max_ns, 0);
    }

    #[test]
    fn cpu_speed_divides_the_computation() {
        let _g = serial();
        // Half speed at factor 1: w of computation owes 2w, so the rank
        // sleeps w more; double speed owes w/2 and is w/2 late (whatever
        // the clock; wall time here, so the machine's load cannot matter).
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut slow = Pacer::new(ComputeClock::Wall, HostCpu::new(0.5, 0));
        slow.enter("MPI_Barrier", &c);
        slow.exit(&c);
        busy_wall(10_000_000);
        slow.enter("MPI_Barrier", &c);
        let w = slow.compute_wall_ns;
        assert!(w >= 10_000_000);
        assert!(
            slow.compute_ns.abs_diff(2 * w) <= 1,
            "{} for {w}",
            slow.compute_ns
        );
        assert!(
            slow.slept_ns >= w - 100_000,
            "slept {} for {w}",
            slow.slept_ns
        );
        assert_eq!(slow.late_max_ns, 0);
        let mut fast = Pacer::new(ComputeClock::Wall, HostCpu::new(2.0, 0));
        fast.enter("MPI_Barrier", &c);
        fast.exit(&c);
        // Where the first call left the rank (behind by the little that
        // passed since MPI_Init, which it stays until made up).
        let (w0, c0, carry) = (fast.compute_wall_ns, fast.compute_ns, fast.owed_srt_ns);
        busy_wall(10_000_000);
        fast.enter("MPI_Barrier", &c);
        let w = fast.compute_wall_ns - w0;
        let compute = fast.compute_ns - c0;
        assert!(compute.abs_diff(w / 2) <= 1, "{compute} for {w}");
        assert!(
            (fast.late_max_ns as i64).abs_diff((w / 2) as i64 - carry) <= 2,
            "late {} for {w} (carried {carry})",
            fast.late_max_ns
        );
        assert_eq!(fast.slept_ns, 0);
    }

    #[test]
    fn a_factor_switch_during_the_sleep_ends_it_at_the_scaled_time_owed() {
        let _g = serial();
        super::super::clock::set_adaptive(true);
        // Factor 16; 5 ms of computation owes ~75 ms of sleep. 3 ms of
        // wall time into it the gateway switches to factor 1: the rest of
        // the debt (~4.5 ms of scaled time) then takes ~4.5 ms of wall
        // time, not the ~70 ms the old factor would have slept.
        let c = ScaledClock::new(job_ns(), 16.0);
        let mut p = Pacer::new(ComputeClock::Wall, HostCpu::new(1.0, 0));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        busy_wall(5_000_000);
        let t0 = job_ns();
        let mut switched = c.clone();
        switched.change(c.srt(t0 + 3_000_000), 1.0);
        let switched = Arc::new(switched);
        let (srt0, before, carry) = (
            switched.srt(p.last_exit_ns.unwrap()),
            p.compute_ns,
            p.owed_srt_ns,
        );
        p.enter_refreshing("MPI_Barrier", &c, CallEntry::now(), &mut || {
            Some(Arc::clone(&switched))
        });
        let srt = switched.srt(job_ns()) - srt0;
        super::super::clock::set_adaptive(false);
        let compute = p.compute_ns - before;
        // The scaled time at the end, on the switched clock, is what the
        // computation owed (the old factor would have slept ~65 ms more).
        let owed = (compute as i64 + carry).max(0) as u64;
        let overshoot = (-p.owed_srt_ns).max(0) as u64;
        assert!(
            srt + 10_000 >= owed && srt <= owed + overshoot + 500_000,
            "{srt} of scaled time for {compute} (+ {overshoot} overshoot)"
        );
    }

    /// A rank whose call took 5 µs of this machine's time (it woke up to
    /// take a message, handled it) stays that far behind across its next
    /// calls until a computation makes it up: emulated time stands still
    /// inside a call, its next message is stamped at its emulated time,
    /// so neither its wake-up nor the shim's work adds to the exchange.
    #[test]
    fn a_lag_lasts_across_calls_until_a_computation_makes_it_up() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new(ComputeClock::Cpu, HostCpu::new(1.0, 0));
        p.enter("MPI_Recv", &c);
        let inside = super::super::clock::emulated_at(c.srt(job_ns()));
        busy_wall(5_000);
        assert_eq!(super::super::clock::emulated_at(c.srt(job_ns())), inside);
        p.exit(&c);
        p.enter("MPI_Send", &c);
        // At factor 1 the computation between the calls is at most the
        // scaled time that passed: the rank is still at least 5 µs behind.
        assert!(emulated_offset_ns() <= -5_000, "{}", emulated_offset_ns());
        assert!(p.late_max_ns >= 5_000, "{}", p.late_max_ns);
        p.exit(&c);
        // At factor 8 a 2 ms computation owes 1.75 ms of scaled time more
        // than passes while it runs: the rank sleeps, and is on schedule
        // again (within the sleep's overshoot).
        let c8 = ScaledClock::new(job_ns(), 8.0);
        p.enter("MPI_Barrier", &c8);
        p.exit(&c8);
        busy_cpu(2_000_000);
        p.enter("MPI_Barrier", &c8);
        assert!(p.slept_ns > 0);
        assert!(
            emulated_offset_ns() > -1_000_000,
            "{}",
            emulated_offset_ns()
        );
        p.exit(&c8);
    }

    /// Computations shorter than the host's threshold do not count; longer
    /// ones count whole.
    #[test]
    fn computations_below_the_threshold_do_not_count() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new(ComputeClock::Wall, HostCpu::new(1.0, 1_000_000));
        p.enter("MPI_Send", &c);
        p.exit(&c);
        for _ in 0..100 {
            p.enter("MPI_Send", &c);
            p.exit(&c);
        }
        assert_eq!(p.compute_ns, 0);
        assert_eq!(p.below_threshold, 101);
        busy_wall(2_000_000);
        p.enter("MPI_Send", &c);
        assert!(p.compute_ns >= 2_000_000, "{}", p.compute_ns);
        assert_eq!(p.below_threshold, 101);
        p.exit(&c);
    }

    #[test]
    fn nested_calls_count_once() {
        let _g = serial();
        let c = ScaledClock::new(job_ns(), 1.0);
        let mut p = Pacer::new(ComputeClock::Cpu, HostCpu::new(1.0, 0));
        p.enter("MPI_Send", &c);
        p.enter("MPI_Isend", &c);
        p.exit(&c);
        p.exit(&c);
        assert_eq!(p.calls, 1);
    }

    #[test]
    fn a_factor_change_during_computation_is_paid_in_scaled_time() {
        let _g = serial();
        // Factor 2 for the first 5 ms of scaled time (10 ms wall), then 8.
        let mut c = ScaledClock::new(job_ns(), 2.0);
        c.change(5_000_000, 8.0);
        let mut p = Pacer::new(ComputeClock::Wall, HostCpu::new(1.0, 0));
        p.enter("MPI_Barrier", &c);
        p.exit(&c);
        let (srt0, before, carry) = (c.srt(p.last_exit_ns.unwrap()), p.compute_ns, p.owed_srt_ns);
        busy_wall(20_000_000);
        p.enter("MPI_Barrier", &c);
        // 20 ms (or more, on a loaded machine) of computation must take as
        // much scaled time, whatever the factors on the way (within the
        // sleep's overshoot).
        let srt = c.srt(job_ns()) - srt0;
        let compute = p.compute_ns - before;
        let owed = (compute as i64 + carry).max(0) as u64;
        assert!(compute >= 20_000_000);
        // A loaded machine may wake the rank late: that overshoot is
        // carried to the next computation.
        let overshoot = (-p.owed_srt_ns).max(0) as u64;
        assert!(
            srt + 10_000 >= owed && srt <= owed + overshoot + 500_000,
            "{srt} for {compute} (+ {overshoot} overshoot)"
        );
    }
}
