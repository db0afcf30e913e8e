//! A nonblocking allreduce overlaps computation in emulated time
//! (tests/mpi/overlap.c on the reference network, 4 ranks). The model:
//! with T the allreduce alone and C the computation alone,
//!
//! * blocking (`MPI_Allreduce`, then compute) takes C + T: nothing overlaps;
//! * overlapped (`MPI_Iallreduce`, compute in 1 ms slices with an
//!   `MPI_Test` after each, `MPI_Wait`) takes max(C, T) — plus, when the
//!   communication is the longer, the slices its steps wait for a test
//!   (the library progresses inside MPI calls only, as MPICH does).
//!
//! Emulated times are read by the program with `MPI_Wtime` (medians of 9
//! repetitions); the factor is large so that a loaded machine's late
//! events stay small, and the tolerance is 0.25 ms plus the run's
//! maxBehind (how late the latest event ran). These tests measure real
//! time, so they run one after another.

mod common;
use common::*;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

/// The program's medians (T, C, blocking, overlapped) and the tolerance,
/// in ms.
fn measure(count: &str, compute_ms: &str) -> (f64, f64, f64, f64, f64) {
    let prog = build_c("overlap", "mpicc");
    let (o, report) = run_with_report("4", "reference.toml", "50", &prog, &[count, compute_ms]);
    let (out, err) = text(&o);
    assert!(o.status.success() && out.contains(" ok"), "{out}{err}");
    let tol = 0.25 + report["max_behind"]["max_ns"].as_f64().unwrap() / 1e6;
    let v = |k: &str| -> f64 {
        let s = &out[out.find(k).unwrap_or_else(|| panic!("{k} in {out}")) + k.len()..];
        s.split_whitespace().next().unwrap().parse().unwrap()
    };
    let m = (
        v("comm_ms="),
        v("compute_ms="),
        v("blocking_ms="),
        v("overlap_ms="),
        tol,
    );
    eprintln!(
        "count {count}, compute {compute_ms} ms: T, C, blocking, overlapped, tolerance = {m:?}"
    );
    m
}

/// One way on the reference network: two hops of (frame serialisation at
/// 1 Gbps + 0.5 ms) for the envelope and one double.
fn one_way_ms() -> f64 {
    let payload = (shim_engine::envelope::HEADER_LEN + 8) as u64;
    2.0 * (serialization_time(data_frame_wire_len(payload), 1_000_000_000).0 as f64 + 500_000.0)
        / 1e6
}

#[test]
fn an_iallreduce_started_before_computing_costs_only_the_longer_of_the_two() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    // One double on 4 ranks: recursive doubling, two exchanges (at least
    // two one-way latencies; the barrier before each phase leaves the
    // ranks up to a latency apart). 10 ms of computation is the longer.
    let (t, c, blocking, overlapped, tol) = measure("1", "10");
    let l = one_way_ms();
    assert!(
        t >= 2.0 * l - 0.01 && t <= 3.0 * l + tol,
        "T {t} ms, latency {l} ms"
    );
    assert!((c - 10.0).abs() < tol, "C {c} ms");
    assert!(
        (blocking - (c + t)).abs() < tol,
        "blocking {blocking} ms, model C + T = {} ms",
        c + t
    );
    assert!(
        (overlapped - c.max(t)).abs() < tol,
        "overlapped {overlapped} ms, model max(C, T) = {} ms",
        c.max(t)
    );
    assert!(overlapped < blocking - t + tol);
}

#[test]
fn an_iallreduce_longer_than_the_computation_hides_the_computation() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    // 256 KiB of doubles on 4 ranks: Rabenseifner's four exchanges, two of
    // them rendezvous (RTS, CTS, data), about 14 ms; 5 ms of computation.
    let (t, c, blocking, overlapped, tol) = measure("32768", "5");
    assert!(t > c, "T {t} ms, C {c} ms");
    // Each protocol step that lands during the computation waits for the
    // next test: at most one 1 ms slice for each of the 2 eager exchanges
    // and 3 steps of each of the 2 rendezvous ones.
    let slices = 8.0;
    // T of this size is not one constant: the TCP windows each phase
    // starts with depend on how long the connections idled before it (a
    // run measured 14.26 ms alone and 11.78 ms inside the blocking phase,
    // blocking − C). Overlapping can hide the computation but not make
    // the allreduce faster than the fastest one the run saw.
    let t_fastest = t.min(blocking - c);
    assert!(
        overlapped >= t_fastest.max(c) - 2.0 * tol && overlapped <= t + slices + tol,
        "overlapped {overlapped} ms, model max(C, T) = {t} ms (T as fast as {t_fastest} ms; + at most {slices} ms)"
    );
    assert!(
        overlapped < blocking,
        "overlapped {overlapped} ms, blocking {blocking} ms"
    );
}
