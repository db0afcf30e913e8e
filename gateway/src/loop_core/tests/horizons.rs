//! Holding events back for the ranks' horizons (see
//! [`crate::loop_core::horizon_hold`]): the woken rank's reply enters the
//! network at its own stamp, not behind events the gateway could have run
//! meanwhile; the cap bounds the wait; ranks without a horizon (sockets)
//! hold nothing.

use super::*;
use crate::lateness::LatenessKind;
use mpinetsim_shm::horizon::Horizon;
use netsim::EventClass;

/// The wait `run` allows by default, wall ns.
const CAP: u64 = crate::loop_core::horizon_hold::DEFAULT_HOLD_CAP_NS;

/// Connection `from` sends 100 bytes to rank `dst` stamped `srt_ns`.
fn send(job: &mut Job, from: ConnId, dst: u32, srt_ns: u64) {
    let f = Frame::Send {
        dst,
        srt_ns,
        bytes: vec![1; 100],
    };
    job.send(from, &f).expect("a valid send");
}

/// Injections recorded late, and the largest lateness among them, ns.
fn late_injections(job: &Job) -> (u64, u64) {
    let s = job.core.lateness.summary();
    (s.by_kind.iter())
        .find(|k| k.kind == LatenessKind::Event(EventClass::Inject))
        .map_or((0, 0), |k| (k.events, k.max_ns))
}

/// Rank 2's message: stamped so that it arrives after rank 1's, beyond
/// the lookahead (250 µs) of that arrival.
const LATER: u64 = 400_000;

/// Three ranks at factor 1: rank 0 sends to rank 1 at 0 (arrives at
/// LATENCY), rank 2 to rank 0 at 400 µs (arrives 400 µs later: an event
/// the woken rank 1 cannot know of). Every rank published that it waits.
fn race(hold_cap_ns: u64) -> (Job, [ConnId; 3]) {
    let mut s = settings(3, 1.0);
    s.hold_cap_ns = hold_cap_ns;
    let mut job = Job::new(s);
    let ids = [job.join(0), job.join(1), job.join(2)];
    for &id in &ids {
        job.core.set_horizon(id, Horizon::Idle { reads: 0 }, 0);
    }
    send(&mut job, ids[0], 1, 0);
    send(&mut job, ids[2], 0, LATER);
    // Rank 0 and rank 2 wait again after sending.
    job.at(job.wall_of(LATENCY));
    job.run_due();
    assert_eq!(job.core.messages_out, 1, "rank 1's message arrived");
    (job, ids)
}

#[test]
fn a_woken_ranks_reply_enters_at_its_stamp_not_behind_later_events() {
    let (mut job, ids) = race(CAP);
    // Wall time passes the second arrival's deadline before rank 1 answers:
    // that event waits, since rank 1 may still send before it.
    let second = job.wall_of(LATENCY + LATER);
    job.at(second + 10_000);
    job.run_due();
    assert_eq!(job.core.messages_out, 1, "the later arrival waited");
    let hold = job.core.hold().expect("an event waits");
    assert_eq!((hold.holder, hold.horizon_ns), (ids[1], LATENCY));
    // The loop was already behind: the cap counts from the wait's start.
    assert_eq!(job.core.timer_deadline(), Some(second + 10_000 + CAP));
    job.at(second + 15_000);
    job.run_due();
    assert_eq!(job.core.messages_out, 1, "still waiting");
    // Rank 1 answers at its emulated time (the arrival plus 10 µs of
    // computation), then waits again having read its one delivery.
    job.at(second + 20_000);
    send(&mut job, ids[1], 0, LATENCY + 10_000);
    job.core.set_horizon(ids[1], Horizon::Idle { reads: 1 }, 1);
    job.run_due();
    assert_eq!(job.core.messages_out, 2, "the held arrival ran");
    assert_eq!(
        late_injections(&job),
        (0, 0),
        "the reply entered at its stamp"
    );
    assert_eq!(job.core.hold(), None);
    let holds = job.core.holds;
    assert_eq!((holds.holds, holds.cap_expiries), (1, 0));
    // From the wait's start to the last check that still needed it.
    assert_eq!(holds.held_wall_ns, 5_000);
    // The held event is late only from then on.
    let s = job.core.lateness.summary();
    assert_eq!(s.max_ns, 5_000, "{s:?}");
}

#[test]
fn without_holding_the_same_reply_enters_behind_the_later_event() {
    let (mut job, ids) = race(0);
    let second = job.wall_of(LATENCY + LATER);
    job.at(second + 10_000);
    job.run_due();
    assert_eq!(job.core.messages_out, 2, "nothing waits");
    job.at(second + 20_000);
    send(&mut job, ids[1], 0, LATENCY + 10_000);
    // Clamped to the later event: 390 µs late (the lateness histogram
    // keeps three significant digits).
    let (n, late) = late_injections(&job);
    assert_eq!(n, 1);
    assert!(late.abs_diff(LATER - 10_000) < 1_000, "{late}");
    assert_eq!(job.core.holds.holds, 0);
}

#[test]
fn a_rank_that_stays_behind_its_horizon_holds_events_only_until_the_cap() {
    let (mut job, ids) = race(CAP);
    let second = job.wall_of(LATENCY + LATER);
    job.at(second);
    job.run_due();
    assert_eq!(job.core.messages_out, 1);
    assert_eq!(job.core.timer_deadline(), Some(second + CAP));
    job.at(second + CAP - 1);
    job.run_due();
    assert_eq!(job.core.messages_out, 1, "still within the cap");
    job.at(second + CAP);
    job.run_due();
    assert_eq!(job.core.messages_out, 2, "the cap ended the wait");
    let holds = job.core.holds;
    assert_eq!((holds.holds, holds.cap_expiries), (1, 1));
    assert_eq!(holds.max_held_wall_ns, CAP);
    // Not late: it ran when the cap released it.
    assert_eq!(job.core.lateness.summary().max_ns, 0);
    // Until rank 1 waits inside MPI again, its horizon is taken to move
    // with the wall clock from when the hold began (its horizon LATENCY
    // at wall time `second`), however little it moves itself: a later
    // message is delivered when that paced horizon passes its arrival, not
    // on the schedule the loop is behind (rank 0 read the message the
    // released event brought it).
    job.core.set_horizon(ids[0], Horizon::Idle { reads: 1 }, 1);
    job.core
        .set_horizon(ids[1], Horizon::Active(LATENCY + 1), 1);
    let stamp = LATENCY + 2 * LATER;
    send(&mut job, ids[2], 0, stamp);
    let paced = second + (stamp + LATENCY - LATENCY);
    job.at(paced - 1);
    job.run_due();
    assert_eq!(
        job.core.messages_out, 2,
        "the paced horizon is not there yet"
    );
    assert_eq!(job.core.timer_deadline(), Some(paced));
    job.at(paced);
    job.run_due();
    assert_eq!((job.core.messages_out, job.core.holds.holds), (3, 2));
    assert_eq!(job.core.holds.cap_expiries, 1, "a paced hold has no cap");
    // Waiting again, it holds events again (rank 0 read its second
    // message).
    job.core.set_horizon(ids[0], Horizon::Idle { reads: 2 }, 2);
    job.core.set_horizon(ids[1], Horizon::Idle { reads: 1 }, 1);
    send(&mut job, ids[2], 1, stamp + LATENCY);
    send(&mut job, ids[2], 0, stamp + LATENCY + LATER);
    job.at(job.wall_of(stamp + 2 * LATENCY + LATER));
    job.run_due();
    assert_eq!((job.core.messages_out, job.core.holds.holds), (4, 3));
}

#[test]
fn a_rank_whose_horizon_creeps_holds_for_one_cap_in_all() {
    let (mut job, ids) = race(CAP);
    let second = job.wall_of(LATENCY + LATER);
    job.at(second);
    job.run_due();
    // Rank 1 polls: its horizon moves a little at every call.
    for step in 1..=4u64 {
        job.at(second + step * CAP / 4 - 1);
        job.core
            .set_horizon(ids[1], Horizon::Active(LATENCY + step * 1_000), 1);
        job.run_due();
        assert_eq!(job.core.messages_out, 1, "step {step}");
    }
    job.at(second + CAP);
    job.run_due();
    assert_eq!(job.core.messages_out, 2, "one cap in all");
    assert_eq!((job.core.holds.holds, job.core.holds.cap_expiries), (1, 1));
}

#[test]
fn a_running_rank_holds_only_events_after_its_published_time() {
    let (mut job, ids) = race(CAP);
    // Rank 1 took its message and entered its next call at LATENCY + 450
    // µs of emulated time: the arrival at LATENCY + 400 µs may run.
    job.core
        .set_horizon(ids[1], Horizon::Active(LATENCY + LATER + 50_000), 1);
    job.core.set_horizon(ids[0], Horizon::Unknown, 0);
    // Rank 2 sends again, at the model's present: it arrives at 2 ms.
    send(&mut job, ids[2], 0, LATENCY);
    job.at(job.wall_of(2 * LATENCY));
    job.run_due();
    assert_eq!(job.core.messages_out, 2);
    let hold = job.core.hold().expect("the third arrival waits");
    assert_eq!(hold.event_ns, 2 * LATENCY);
    assert_eq!(hold.horizon_ns, LATENCY + LATER + 50_000);
}

#[test]
fn ranks_without_a_horizon_hold_nothing() {
    let mut job = Job::new(settings(3, 1.0));
    let ids = [job.join(0), job.join(1), job.join(2)];
    send(&mut job, ids[0], 1, 0);
    send(&mut job, ids[2], 0, LATER);
    job.at(job.wall_of(LATENCY + LATER));
    job.run_due();
    assert_eq!(job.core.messages_out, 2);
    assert_eq!(job.core.hold(), None);
}
