//! This host's CLOCK_MONOTONIC, the same clock moved onto the gateway's
//! (plus the offset the clock handshake measured: ~0 on the gateway's host,
//! anything on another), and this process's copy of the job's scaled
//! clock, which the gateway may change during an adaptive run (see
//! `mpinetsim_protocol::ScaledClock`). The scaled clock is defined on the
//! gateway's CLOCK_MONOTONIC, so it is always read through [`job_ns`].

use mpinetsim_protocol::ScaledClock;
use nix::time::{clock_gettime, ClockId};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// CLOCK_MONOTONIC now, ns.
pub fn monotonic_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always available");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// CPU time this process has consumed, all threads together, ns.
pub fn process_cpu_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_PROCESS_CPUTIME_ID)
        .expect("CLOCK_PROCESS_CPUTIME_ID is always available on Linux");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// CPU time the calling thread has consumed, ns.
pub fn thread_cpu_ns() -> u64 {
    let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("CLOCK_THREAD_CPUTIME_ID is always available on Linux");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// CPU time the shim's own threads (the one-sided service) have consumed
/// and published, ns: part of the process's CPU time that is not the
/// program's computation.
static SHIM_THREADS_CPU_NS: AtomicU64 = AtomicU64::new(0);

/// Adds `ns` of CPU time a shim thread consumed.
pub fn add_shim_thread_cpu_ns(ns: u64) {
    SHIM_THREADS_CPU_NS.fetch_add(ns, Ordering::Relaxed);
}

/// The scheduler statistics of the shim's one-sided service thread while
/// it runs (`/proc/self/task/TID/schedstat`, kept open), else None.
static SHIM_THREAD_SCHEDSTAT: Mutex<Option<std::fs::File>> = Mutex::new(None);
/// Whether [`SHIM_THREAD_SCHEDSTAT`] holds a file: read at every MPI
/// call's entry and exit, so without a lock.
static SHIM_THREAD_RUNS: AtomicBool = AtomicBool::new(false);

/// The calling thread is the shim's one-sided service thread (`running`)
/// or stops being it: [`program_cpu_ns`] reads its CPU time as the
/// process's CPU clock counts it.
pub fn set_shim_thread(running: bool) {
    let file = running
        .then(|| {
            let tid = nix::unistd::gettid().as_raw();
            std::fs::File::open(format!("/proc/self/task/{tid}/schedstat")).ok()
        })
        .flatten();
    let mut guard = SHIM_THREAD_SCHEDSTAT
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    SHIM_THREAD_RUNS.store(file.is_some(), Ordering::Relaxed);
    *guard = file;
}

/// CPU time the shim's own threads have consumed, ns, as the process's
/// CPU clock holds it. That clock brings only the calling thread's time
/// up to date; a thread running on another core counts up to its last
/// scheduler tick (4 ms). So the service thread's time is read where the
/// process clock reads it, its `sum_exec_runtime` in schedstat: its own
/// CPU clock, up to date, took from the program what the process clock
/// did not hold yet, and the next interval gave it back as computation
/// (130 µs between two one-sided calls at factor 16). Without the file,
/// what the thread published.
fn shim_threads_cpu_ns() -> u64 {
    let published = SHIM_THREADS_CPU_NS.load(Ordering::Relaxed);
    if !SHIM_THREAD_RUNS.load(Ordering::Relaxed) {
        return published;
    }
    let guard = SHIM_THREAD_SCHEDSTAT
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let Some(file) = guard.as_ref() else {
        return published;
    };
    let mut buf = [0u8; 96];
    let n = std::os::unix::fs::FileExt::read_at(file, &mut buf, 0).unwrap_or(0);
    std::str::from_utf8(&buf[..n])
        .ok()
        .and_then(|text| text.split_whitespace().next())
        .and_then(|first| first.parse::<u64>().ok())
        .unwrap_or(published)
}

/// Whether the shim's one-sided service thread runs in this process.
#[cfg(not(test))]
fn shim_thread_runs() -> bool {
    SHIM_THREAD_RUNS.load(Ordering::Relaxed)
}

/// Wall time between two counts of the process's threads, ns.
#[cfg(not(test))]
const THREAD_COUNT_EVERY_NS: u64 = 10_000_000;
/// When the threads were last counted (CLOCK_MONOTONIC, ns).
#[cfg(not(test))]
static THREADS_COUNTED_NS: AtomicU64 = AtomicU64::new(0);
/// The program had threads beside the calling one and the shim's at the
/// last count.
#[cfg(not(test))]
static OTHER_PROGRAM_THREADS: AtomicBool = AtomicBool::new(true);

/// The process's threads (`/proc/self/stat`, field 20), if readable.
#[cfg(not(test))]
fn process_threads() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which ends at the last ')': state is
    // field 3, num_threads field 20.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(17)?.parse().ok()
}

/// Whether the program runs threads of its own beside the one calling
/// MPI (counted at most every [`THREAD_COUNT_EVERY_NS`]), with the
/// shim's service thread running.
#[cfg(not(test))]
fn program_has_other_threads() -> bool {
    let now = monotonic_ns();
    if now.saturating_sub(THREADS_COUNTED_NS.load(Ordering::Relaxed)) >= THREAD_COUNT_EVERY_NS {
        THREADS_COUNTED_NS.store(now, Ordering::Relaxed);
        let others = process_threads().is_none_or(|n| n > 2);
        OTHER_PROGRAM_THREADS.store(others, Ordering::Relaxed);
    }
    OTHER_PROGRAM_THREADS.load(Ordering::Relaxed)
}

/// How [`program_cpu_ns`] read the program's CPU time last: 0 not yet,
/// 1 the process's less the shim's threads', 2 the calling thread's.
#[cfg(not(test))]
static PROGRAM_CPU_READING: AtomicU64 = AtomicU64::new(0);
/// What it returned last, ns.
#[cfg(not(test))]
static PROGRAM_CPU_LAST_NS: AtomicU64 = AtomicU64::new(0);
/// Added to the reading so that a change of reading continues from the
/// last value, ns.
#[cfg(not(test))]
static PROGRAM_CPU_SHIFT_NS: AtomicI64 = AtomicI64::new(0);

/// CPU time the program consumed, all its threads together, ns: the
/// process's CPU time without the shim's own threads'. While the shim's
/// service thread runs beside a program of one thread, the calling
/// thread's own CPU clock: even read from schedstat, the service thread's
/// time and the process clock's disagree while it runs on another core,
/// and the difference (up to a scheduler tick) became computation between
/// two calls (a put measured 84 µs long at factor 16).
#[cfg(not(test))]
pub fn program_cpu_ns() -> u64 {
    let (reading, raw) = if shim_thread_runs() && !program_has_other_threads() {
        (2, thread_cpu_ns())
    } else {
        (1, process_cpu_ns().saturating_sub(shim_threads_cpu_ns()))
    };
    let before = PROGRAM_CPU_READING.swap(reading, Ordering::Relaxed);
    if before != 0 && before != reading {
        let last = PROGRAM_CPU_LAST_NS.load(Ordering::Relaxed);
        PROGRAM_CPU_SHIFT_NS.store(last as i64 - raw as i64, Ordering::Relaxed);
    }
    let value = (raw as i64)
        .saturating_add(PROGRAM_CPU_SHIFT_NS.load(Ordering::Relaxed))
        .max(0) as u64;
    PROGRAM_CPU_LAST_NS.store(value, Ordering::Relaxed);
    value
}

/// In the crate's unit tests the program is the test's own thread: the
/// other tests run on other threads of the same process, and their CPU
/// time (a CI run saw 225 µs of it land in a pacer test's 20 µs interval)
/// is not the computation a pacer test measures. Each pacer test runs on
/// one thread, so this is all of its program's CPU time.
#[cfg(test)]
pub fn program_cpu_ns() -> u64 {
    thread_cpu_ns()
}

/// The CPU time one reading of [`process_cpu_ns`] adds to the interval it
/// closes (the system call's own cost, about 170 ns on this project's
/// machines), measured once: the least difference of 64 back-to-back
/// readings. The pacer subtracts it from every computation, so a program
/// that calls MPI back to back computes (nearly) nothing in emulated time
/// instead of 0.2 µs per call whatever the time factor.
pub fn cpu_clock_read_cost_ns() -> u64 {
    static COST: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *COST.get_or_init(|| least_read_cost(process_cpu_ns))
}

/// The wall time one reading of [`job_ns`] adds to the interval it closes
/// (a vDSO read, about 30 ns on this project's machines), measured once
/// like [`cpu_clock_read_cost_ns`]: the pacer takes it off the wall
/// interval between two calls, which it compares the CPU time with.
pub fn wall_clock_read_cost_ns() -> u64 {
    static COST: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *COST.get_or_init(|| least_read_cost(job_ns))
}

/// The least difference of 64 back-to-back readings of `clock`, ns.
fn least_read_cost(clock: fn() -> u64) -> u64 {
    (0..64)
        .map(|_| {
            let a = clock();
            clock().saturating_sub(a)
        })
        .min()
        .unwrap_or(0)
}

/// Gateway clock − this host's clock, ns.
static OFFSET_NS: AtomicI64 = AtomicI64::new(0);

/// Applies a measured offset (gateway clock − this host's clock, ns).
pub fn set_offset(offset_ns: i64) {
    OFFSET_NS.store(offset_ns, Ordering::SeqCst);
}

/// Now on the gateway's CLOCK_MONOTONIC, as well as this rank knows it, ns.
pub fn job_ns() -> u64 {
    (monotonic_ns() as i64).saturating_add(OFFSET_NS.load(Ordering::Relaxed)) as u64
}

/// The rank's emulated time minus scaled real time, ns: how far ahead
/// (positive: a computation's debt too small to sleep accurately, carried)
/// or behind (negative: its *lag*: it took a message later than the
/// message arrived, waiting for a CPU or for its own wake-up, or it
/// overslept) the rank is on the emulated machine's schedule. It lasts
/// across MPI calls until a computation makes it up or a wait for a later
/// message ends it, so neither the gateway's nor this process's wake-up
/// latency leaks into the rank's emulated time. Inside a call the pacer
/// keeps it here, where the transport stamps messages with it; between
/// calls the pacer holds it (see the pacer).
static EMULATED_OFFSET_NS: AtomicI64 = AtomicI64::new(0);

/// The rank's emulated time minus scaled real time now, ns.
pub fn emulated_offset_ns() -> i64 {
    EMULATED_OFFSET_NS.load(Ordering::Relaxed)
}

/// Sets the rank's emulated time minus scaled real time, ns.
pub fn set_emulated_offset_ns(offset: i64) {
    EMULATED_OFFSET_NS.store(offset, Ordering::Relaxed);
}

/// Not inside an MPI call (see [`FROZEN_NS`]).
const NOT_FROZEN: u64 = u64::MAX;

/// Inside an MPI call, the rank's emulated time, which stands still there:
/// it moves only to the arrival of a message the rank takes. The shim's
/// own work inside a call (handling messages, writing frames, waking up)
/// is this machine's, not the emulated MPI library's, and counting its
/// wall time ÷ factor put an error of that size on every message — at
/// small factors, with several ranks per core, most of a microsecond
/// network's latency. [`NOT_FROZEN`] between calls.
static FROZEN_NS: AtomicU64 = AtomicU64::new(NOT_FROZEN);

/// The rank's emulated time at scaled real time `srt_ns`: inside an MPI
/// call the time it stands at, between calls the two differ by
/// [`emulated_offset_ns`].
pub fn emulated_at(srt_ns: u64) -> u64 {
    let frozen = FROZEN_NS.load(Ordering::Relaxed);
    if frozen != NOT_FROZEN {
        return frozen;
    }
    (srt_ns as i64).saturating_add(emulated_offset_ns()).max(0) as u64
}

/// An MPI call begins at scaled real time `srt_ns`: the rank's emulated
/// time stands at `srt_ns` plus its offset until the call ends.
pub fn freeze(srt_ns: u64) {
    let at = (srt_ns as i64).saturating_add(emulated_offset_ns()).max(0) as u64;
    FROZEN_NS.store(at, Ordering::Relaxed);
}

/// The MPI call ends at scaled real time `srt_ns`: from now on emulated
/// time runs with scaled real time again, from where the call left it.
pub fn thaw(srt_ns: u64) {
    let frozen = FROZEN_NS.swap(NOT_FROZEN, Ordering::Relaxed);
    if frozen != NOT_FROZEN {
        set_emulated_offset_ns(frozen as i64 - srt_ns as i64);
    }
}

/// The rank took a message that arrived at emulated time `arrival_ns`
/// (at scaled real time `srt_ns`): its emulated time moves there unless
/// it is later already.
pub fn take_message_at(arrival_ns: u64, srt_ns: u64) {
    let frozen = FROZEN_NS.load(Ordering::Relaxed);
    if frozen != NOT_FROZEN {
        FROZEN_NS.store(frozen.max(arrival_ns), Ordering::Relaxed);
    } else {
        let offset = emulated_offset_ns().max(arrival_ns as i64 - srt_ns as i64);
        set_emulated_offset_ns(offset);
    }
}

/// Emulated time a test or probe that completes or finds nothing costs on
/// this rank's host (its `poll_cost`, from Welcome), ns.
static POLL_COST_NS: AtomicU64 = AtomicU64::new(0);

/// Tests and probes that completed or found nothing so far.
static POLLS: AtomicU64 = AtomicU64::new(0);

/// Sets the host's poll cost (MPI_Init, from Welcome), ns.
pub fn set_poll_cost_ns(ns: u64) {
    POLL_COST_NS.store(ns, Ordering::Relaxed);
}

/// A test or probe of the current MPI call completed or found nothing:
/// the rank's emulated time, which stands still inside the call, moves on
/// by the host's poll cost. A loop of such calls so spends the time it
/// would on the emulated machine, stays on the job's schedule (the pacer
/// sleeps off what it owes, as for a computation) and tells the gateway a
/// horizon that moves, instead of standing at the time the loop began.
pub fn poll_found_nothing() {
    POLLS.fetch_add(1, Ordering::Relaxed);
    let cost = POLL_COST_NS.load(Ordering::Relaxed);
    let frozen = FROZEN_NS.load(Ordering::Relaxed);
    if frozen != NOT_FROZEN {
        FROZEN_NS.store(frozen.saturating_add(cost), Ordering::Relaxed);
    } else {
        set_emulated_offset_ns(emulated_offset_ns().saturating_add(cost as i64));
    }
}

/// Tests and probes that completed or found nothing since the rank began.
pub fn polls() -> u64 {
    POLLS.load(Ordering::Relaxed)
}

/// The job's clock once Welcome arrived. Readers take a snapshot (an Arc
/// clone) so nobody holds the lock while sleeping.
static CLOCK: Mutex<Option<Arc<ScaledClock>>> = Mutex::new(None);
static ADAPTIVE: AtomicBool = AtomicBool::new(false);

fn lock() -> std::sync::MutexGuard<'static, Option<Arc<ScaledClock>>> {
    CLOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the clock (MPI_Init).
pub fn start(clock: ScaledClock, adaptive: bool) {
    *lock() = Some(Arc::new(clock));
    ADAPTIVE.store(adaptive, Ordering::SeqCst);
}

/// True when the factor may change during the run.
pub fn is_adaptive() -> bool {
    ADAPTIVE.load(Ordering::Relaxed)
}

/// Makes the run adaptive or not without a clock (the pacer's tests).
#[cfg(test)]
pub fn set_adaptive(adaptive: bool) {
    ADAPTIVE.store(adaptive, Ordering::SeqCst);
}

/// The clock as it is now, if started.
pub fn snapshot() -> Option<Arc<ScaledClock>> {
    lock().clone()
}

/// Applies a factor change announced by the gateway.
pub fn change(at_srt_ns: u64, factor: f64) {
    let mut g = lock();
    if let Some(c) = g.as_ref() {
        let mut next = (**c).clone();
        if next.change(at_srt_ns, factor) {
            *g = Some(Arc::new(next));
        }
    }
}

/// Scaled real time now, ns (0 before MPI_Init).
pub fn srt_now() -> u64 {
    snapshot().map_or(0, |c| c.srt(job_ns()))
}

/// Tests that set this module's globals (the offset, the frozen time)
/// run one at a time.
#[cfg(test)]
pub fn serial_for_tests() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inside a call emulated time stands still and moves only to the
    /// arrival of a message taken (never back); after the call it runs
    /// with scaled real time again from there.
    #[test]
    fn emulated_time_stands_still_inside_a_call_but_for_arrivals() {
        let _g = serial_for_tests();
        set_emulated_offset_ns(-100);
        freeze(1_000);
        assert_eq!(emulated_at(5_000), 900);
        take_message_at(700, 5_000);
        assert_eq!(emulated_at(6_000), 900, "an earlier arrival leaves it");
        take_message_at(2_500, 6_000);
        assert_eq!(emulated_at(9_000), 2_500);
        thaw(10_000);
        assert_eq!(emulated_offset_ns(), -7_500);
        assert_eq!(emulated_at(11_000), 3_500);
        // Between calls a message brings the time forward only.
        take_message_at(3_000, 11_000);
        assert_eq!(emulated_at(11_000), 3_500);
        take_message_at(12_000, 11_000);
        assert_eq!(emulated_at(11_000), 12_000);
        set_emulated_offset_ns(0);
    }

    /// Each test or probe that finds nothing moves the frozen time on by
    /// the host's poll cost, and a later arrival still moves it to the
    /// arrival: a loop of n polls ends at its start plus n costs, or at
    /// the message it took if that arrived later.
    #[test]
    fn a_poll_that_finds_nothing_costs_the_hosts_poll_cost() {
        let _g = serial_for_tests();
        set_poll_cost_ns(40);
        set_emulated_offset_ns(0);
        let before = polls();
        freeze(1_000);
        for _ in 0..5 {
            poll_found_nothing();
        }
        assert_eq!(emulated_at(50_000), 1_200);
        assert_eq!(polls() - before, 5);
        take_message_at(1_150, 50_000);
        assert_eq!(
            emulated_at(50_000),
            1_200,
            "an arrival before the polls' end"
        );
        take_message_at(1_500, 50_000);
        assert_eq!(emulated_at(50_000), 1_500);
        thaw(2_000);
        assert_eq!(emulated_offset_ns(), -500);
        // Outside a call the offset carries it.
        poll_found_nothing();
        assert_eq!(emulated_offset_ns(), -460);
        set_emulated_offset_ns(0);
        set_poll_cost_ns(0);
    }

    /// The service thread's CPU time is read from its schedstat, as the
    /// process clock counts it: 5 ms it burned show (all but what the
    /// scheduler has not accounted yet), and none once it stops.
    #[test]
    fn the_service_threads_cpu_time_is_read_where_the_process_clock_counts_it() {
        let _g = serial_for_tests();
        let live = std::thread::spawn(|| {
            set_shim_thread(true);
            let start = thread_cpu_ns();
            while thread_cpu_ns() - start < 5_000_000 {}
            let seen = shim_threads_cpu_ns();
            set_shim_thread(false);
            (seen, thread_cpu_ns())
        });
        let (seen, own) = live.join().unwrap();
        assert!(
            seen >= 4_000_000 && seen <= own,
            "schedstat gave {seen} ns for a thread that used {own} ns"
        );
        assert_eq!(
            shim_threads_cpu_ns(),
            SHIM_THREADS_CPU_NS.load(Ordering::Relaxed)
        );
    }
}
