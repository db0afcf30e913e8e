//! One-sided operations take the time the network model gives them, in
//! emulated time (tests/mpi/rma_timing.c on the reference network, 2
//! ranks, read by the program with `MPI_Wtime`, medians of 9):
//!
//! * `MPI_Put` of one double then `MPI_Win_flush`: one round trip, the
//!   request (envelope, target description, 8 bytes) one way and its
//!   acknowledgement (an envelope) back; each one way is two hops of
//!   frame serialisation at 1 Gbps plus 0.5 ms of propagation.
//! * `MPI_Get` of 1 MiB then `MPI_Win_flush` (after five gets opened the
//!   congestion window): the request one way, then the reply — 1 MiB and
//!   an envelope per piece of at most 1 MiB, in MSS-sized segments — back
//!   to back on the target's link, the propagation of both hops, and the
//!   last frame's serialisation on the second hop.
//!
//! The report counts the operations and the bytes they covered. Both
//! times within 2 % of the model (a fixed bound; the run's lateness is not
//! added). The factor is large so that a loaded machine's late events stay
//! far below that.

mod common;
use common::*;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;
use shim_engine::envelope::HEADER_LEN;
use shim_engine::rma::wire::{FIXED, RUN};
use std::sync::Mutex;

/// The tests measure emulated time from real time: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

const RATE_BPS: u64 = 1_000_000_000;
const PROPAGATION_NS: f64 = 500_000.0;
const MSS: u64 = 1460;

/// Serialisation of a frame carrying `payload` TCP bytes, ns.
fn frame_ns(payload: u64) -> f64 {
    serialization_time(data_frame_wire_len(payload), RATE_BPS).0 as f64
}

/// One message of `payload` bytes in one frame across the two hops, ns.
fn one_way_ns(payload: u64) -> f64 {
    2.0 * (frame_ns(payload) + PROPAGATION_NS)
}

/// A request for one run of a predefined type carrying `data` bytes.
fn request(data: u64) -> u64 {
    (HEADER_LEN + FIXED + RUN) as u64 + data
}

#[test]
fn a_put_and_flush_take_a_round_trip_and_a_1_mib_get_its_serialisation() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("rma_timing", "mpicc");
    let (o, report) = run_with_report("2", "reference.toml", "32", &prog, &[]);
    let (out, err) = text(&o);
    assert!(o.status.success() && out.contains(" ok"), "{out}{err}");
    // The report counts the origin's operations: 5 + 9 gets of 1 MiB and
    // 9 puts of one double; the target issued none.
    let mpi = |r: usize, k: &str| report["rank_reports"][r]["mpi"][k].as_u64().unwrap();
    assert_eq!(mpi(0, "rma_operations"), 23);
    assert_eq!(mpi(0, "rma_bytes"), 14 * (1 << 20) + 9 * 8);
    assert_eq!(mpi(1, "rma_operations"), 0);
    assert!(
        err.contains("one-sided operations issued: rank 0 23 ("),
        "{err}"
    );
    let v = |k: &str| -> f64 {
        let s = &out[out.find(k).unwrap_or_else(|| panic!("{k} in {out}")) + k.len()..];
        s.split_whitespace().next().unwrap().parse::<f64>().unwrap() * 1e3
    };
    let (put, get) = (v("put_flush_us="), v("get_us="));

    let put_model = one_way_ns(request(8)) + one_way_ns(HEADER_LEN as u64);

    let big = 1u64 << 20;
    let piece = mpinetsim_protocol::MAX_MESSAGE_PIECE - (FIXED + RUN) as u64;
    let pieces = big.div_ceil(piece);
    let stream = big + pieces * HEADER_LEN as u64;
    let (full, rest) = (stream / MSS, stream % MSS);
    let reply_ns = full as f64 * frame_ns(MSS) + if rest > 0 { frame_ns(rest) } else { 0.0 };
    let last_frame = if rest > 0 {
        frame_ns(rest)
    } else {
        frame_ns(MSS)
    };
    let get_model = one_way_ns(request(0)) + reply_ns + 2.0 * PROPAGATION_NS + last_frame;

    eprintln!(
        "put+flush {put:.0} ns (model {put_model:.0}), get {get:.0} ns (model {get_model:.0})"
    );
    assert!(
        (put - put_model).abs() <= 0.02 * put_model,
        "put + flush took {put:.0} ns; one round trip is {put_model:.0} ns"
    );
    assert!(
        (get - get_model).abs() <= 0.02 * get_model,
        "a 1 MiB get took {get:.0} ns; the model gives {get_model:.0} ns"
    );
}

/// tests/mpi/rma_locks.c (4 ranks incrementing one counter with
/// MPI_Fetch_and_op and with get-put cycles under exclusive locks, shared
/// locks, lock_all, flushes): the counters end at exactly 4 × 20 and every
/// check passes at factors 1, 4 and 16 alike (s (s + 6) checks on s ranks),
/// since the locks' order, not their timing, decides the result.
#[test]
fn lock_contention_gives_the_exact_sum_at_every_factor() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("rma_locks", "mpicc");
    for factor in ["1", "4", "16"] {
        let (o, _) = run_with_report("4", "reference.toml", factor, &prog, &[]);
        let (out, err) = text(&o);
        assert!(
            o.status.success() && out.contains("rma_locks: 40 checks passed"),
            "at factor {factor}: {out}{err}"
        );
    }
}
