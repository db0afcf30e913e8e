//! When events run and how late things are: the lookahead and the timer,
//! maxBehind of events and of injections, the clock probes, factor
//! switches, backpressure and the capture flushes.

use super::*;
use crate::adaptive::{AdaptivePolicy, FactorChange};
use crate::lateness::{LatenessKind, LatenessSummary};
use crate::loop_core::{DueEvents, EVENTS_PER_CAPTURE_FLUSH};
use netsim::EventClass;

/// Connection `from` sends `bytes` bytes to rank `dst` stamped `srt_ns`.
fn send(job: &mut Job, from: ConnId, dst: u32, srt_ns: u64, bytes: usize) {
    let f = Frame::Send {
        dst,
        srt_ns,
        bytes: vec![1; bytes],
    };
    job.send(from, &f).expect("a valid send");
}

/// How many injections were recorded late.
fn injections_late(s: &LatenessSummary) -> u64 {
    (s.by_kind.iter())
        .find(|k| k.kind == LatenessKind::Event(EventClass::Inject))
        .map_or(0, |k| k.events)
}

#[test]
fn an_event_runs_once_its_deadline_is_within_the_lookahead() {
    let mut job = Job::new(settings(2, 4.0));
    let (r0, r1) = (job.join(0), job.join(1));
    send(&mut job, r0, 1, 1_000, 100);
    // Arrival at v = 1 us + 1 ms; its deadline is epoch + 4 x v.
    let v = 1_000 + LATENCY;
    let deadline = EPOCH + 4 * v;
    let wake = deadline - DEFAULT_LOOKAHEAD;
    assert_eq!(job.core.timer_deadline(), Some(wake));
    job.at(wake - 1);
    job.run_due();
    assert_eq!((job.core.messages_out, job.output(r1)), (0, vec![]));
    job.at(wake);
    job.run_due();
    assert_eq!(
        job.output(r1),
        vec![Frame::Deliver {
            src: 0,
            vtime_ns: v,
            bytes: vec![1; 100]
        }]
    );
    assert_eq!(job.core.timer_deadline(), None);
    // Run early, it was not late.
    let s = job.core.lateness.summary();
    assert_eq!((s.events, s.max_ns), (1, 0));
}

/// On a network whose smallest latency is 1 ms, the lookahead spans at
/// most a tenth of it in emulated time: at factor 1, 100 µs of wall time
/// instead of 250 µs, so a rank's send can be clamped behind events run
/// early by at most 100 µs of emulated time.
#[test]
fn a_network_bounded_lookahead_runs_events_at_most_a_tenth_of_its_latency_early() {
    let mut s = settings(2, 1.0);
    s.lookahead = crate::loop_core::Lookahead::for_network(Some(LATENCY));
    let mut job = Job::new(s);
    let (r0, r1) = (job.join(0), job.join(1));
    send(&mut job, r0, 1, 1_000, 100);
    let deadline = EPOCH + 1_000 + LATENCY;
    let wake = deadline - LATENCY / 10;
    assert_eq!(job.core.timer_deadline(), Some(wake));
    job.at(wake - 1);
    job.run_due();
    assert_eq!((job.core.messages_out, job.output(r1)), (0, vec![]));
    job.at(wake);
    job.run_due();
    assert_eq!(job.core.messages_out, 1);
}

/// The lookahead of `run` (the settings the tests use).
const DEFAULT_LOOKAHEAD: u64 = crate::loop_core::DEFAULT_LOOKAHEAD_NS;

#[test]
fn an_event_run_late_counts_its_lateness_in_scaled_time() {
    let mut job = Job::new(settings(2, 4.0));
    let (r0, _) = (job.join(0), job.join(1));
    send(&mut job, r0, 1, 1_000, 100);
    let v = 1_000 + LATENCY;
    // 400 us of wall time after the deadline: 100 us of scaled time.
    job.at(EPOCH + 4 * v + 400_000);
    job.run_due();
    let s = job.core.lateness.summary();
    assert_eq!(s.max_ns, 100_000);
    assert_eq!(s.max_kind, Some(LatenessKind::Event(EventClass::Arrival)));
    assert_eq!(s.max_at_ns, Some(v));
    assert_eq!(job.core.messages_out, 1);
}

#[test]
fn a_send_stamped_before_the_model_time_enters_late_by_the_difference() {
    let mut job = Job::new(settings(2, 4.0));
    let (r0, r1) = (job.join(0), job.join(1));
    send(&mut job, r0, 1, 1_000, 100);
    let v = 1_000 + LATENCY;
    job.at(EPOCH + 4 * v);
    job.run_due();
    assert_eq!(job.core.sim.now(), Nanos(v));
    // Rank 1's clock is known to 8 us of wall time: 2 us scaled at factor 4.
    job.send(
        r1,
        &Frame::ClockOffset {
            offset_ns: -300,
            uncertainty_ns: 8_000,
        },
    )
    .unwrap();
    // Its answer is stamped 100 us before the model's time.
    send(&mut job, r1, 0, v - 100_000, 10);
    let s = job.core.lateness.summary();
    assert_eq!(s.max_ns, 102_000);
    assert_eq!(s.max_kind, Some(LatenessKind::Event(EventClass::Inject)));
    assert_eq!(injections_late(&s), 1);
    // It enters at the model's time.
    let wake = EPOCH + 4 * (v + LATENCY) - DEFAULT_LOOKAHEAD;
    assert_eq!(job.core.timer_deadline(), Some(wake));
    // A send stamped ahead of the model from a rank with an exact clock
    // is not late.
    send(&mut job, r0, 1, v + 5_000, 10);
    let s = job.core.lateness.summary();
    assert_eq!((s.max_ns, injections_late(&s)), (102_000, 1));
    assert_eq!(job.core.messages_in, 3);
    let c = job.core.connection(r1).unwrap();
    assert_eq!(
        (c.clock_offset_ns, c.clock_uncertainty_ns),
        (Some(-300), 8_000)
    );
}

#[test]
fn a_clock_probe_is_answered_at_once_with_the_read_and_reply_times() {
    let mut job = Job::new(settings(1, 1.0));
    let r0 = job.join(0);
    let read_at = EPOCH + 5_000;
    let c = job.core.connection_mut(r0).unwrap();
    c.received(&Frame::ClockProbe { t1_ns: 42 }.to_bytes(), read_at);
    job.at(EPOCH + 7_000);
    job.core.on_input(r0, false).unwrap();
    assert_eq!(job.actions(), vec![Action::Flush(r0)]);
    assert_eq!(
        job.output(r0),
        vec![Frame::ClockReply {
            t1_ns: 42,
            t2_ns: read_at,
            t3_ns: EPOCH + 7_000
        }]
    );
    assert_eq!(job.core.connection(r0).unwrap().clock_probes, 1);
}

#[test]
fn the_adaptive_factor_switches_ahead_on_every_ranks_clock() {
    let mut s = settings(3, 2.0);
    s.adaptive = Some(AdaptivePolicy::default());
    let window = AdaptivePolicy::default().window_ns; // 20 ms
    let lead = AdaptivePolicy::default().lead_wall_ns; // 2 ms
    let mut job = Job::new(s);
    let (r0, r1) = (job.join(0), job.join(1));
    // A computation 500 us late (above the 100 us threshold).
    job.send(r0, &Frame::ComputeLate { late_ns: 500_000 })
        .unwrap();
    assert!(!job.core.adapt(EPOCH + window - 1));
    assert!(job.core.adapt(EPOCH + window));
    // Doubled at SRT (20 + 2 ms) / 2.
    let first = (window + lead) / 2;
    for r in [r0, r1] {
        assert_eq!(
            job.output(r),
            vec![Frame::Factor {
                at_srt_ns: first,
                factor: 4.0
            }]
        );
    }
    // Deadlines after the switch run at the new factor.
    send(&mut job, r0, 1, first, 10);
    let v = first + LATENCY;
    let deadline = EPOCH + window + lead + 4 * LATENCY;
    assert_eq!(
        job.core.timer_deadline(),
        Some(deadline - DEFAULT_LOOKAHEAD)
    );
    // That event runs 800 us of wall late: 200 us scaled, above the
    // threshold again, so the next window doubles once more.
    job.at(deadline + 800_000);
    job.run_due();
    assert_eq!(job.core.lateness.summary().max_ns, 200_000);
    assert_eq!(job.output(r1).len(), 1, "the delivery at {v}");
    assert!(!job.core.adapt(EPOCH + 2 * window - 1));
    assert!(job.core.adapt(EPOCH + 2 * window));
    // The second switch is 20 ms of wall time after the first, at factor 4.
    let second = first + window / 4;
    assert_eq!(
        job.core.factor_changes,
        vec![
            FactorChange {
                at_srt_s: first as f64 / 1e9,
                factor: 4.0
            },
            FactorChange {
                at_srt_s: second as f64 / 1e9,
                factor: 8.0
            }
        ]
    );
    // A rank that connects later learns both switches after its Welcome.
    let r2 = job.join_keeping_output(2);
    let out = job.output(r2);
    assert!(matches!(
        out[0],
        Frame::Welcome {
            factor: 2.0,
            adaptive: true,
            ..
        }
    ));
    assert_eq!(
        out[1..],
        [
            Frame::Factor {
                at_srt_ns: first,
                factor: 4.0
            },
            Frame::Factor {
                at_srt_ns: second,
                factor: 8.0
            }
        ]
    );
}

#[test]
fn output_above_the_limit_holds_back_every_ranks_input() {
    let mut s = settings(2, 1.0);
    s.output_limit_bytes = 1000;
    let mut job = Job::new(s);
    let (r0, r1) = (job.join(0), job.join(1));
    // One Deliver of 800 B is 4 + 13 + 800 bytes: within the limit.
    send(&mut job, r0, 1, 0, 800);
    job.at(job.wall_of(LATENCY));
    job.run_due();
    assert_eq!(job.core.connection(r1).unwrap().pending_out(), 817);
    assert!(job.core.accepts_input());
    // A second one makes 1634 queued bytes: no input is read.
    send(&mut job, r0, 1, LATENCY, 800);
    job.at(job.wall_of(2 * LATENCY));
    job.run_due();
    assert_eq!(job.core.connection(r1).unwrap().pending_out(), 1634);
    assert!(!job.core.accepts_input());
    // Once the rank has read them, input flows again.
    assert_eq!(job.output(r1).len(), 2);
    assert!(job.core.accepts_input());
}

#[test]
fn captures_are_flushed_between_batches_of_events() {
    let mut job = Job::new(settings(2, 1.0));
    let n = EVENTS_PER_CAPTURE_FLUSH + 1;
    for i in 0..n {
        job.core
            .sim
            .inject(0, 1, vec![1u8].into(), Nanos(i))
            .unwrap();
    }
    job.at(job.wall_of(n + LATENCY));
    assert_eq!(job.core.run_due_events(), DueEvents::FlushCaptures);
    assert_eq!(job.core.messages_out, EVENTS_PER_CAPTURE_FLUSH);
    assert_eq!(job.core.run_due_events(), DueEvents::Done);
    assert_eq!(job.core.messages_out, n);
}
