//! How a job ends, as the core decides it: every rank finalized, an Abort,
//! a rank gone before MPI_Finalize, a protocol error, a stall; and frames
//! a rank may not send.

use super::*;
use crate::loop_core::{ConnState, LOST_RANK_GRACE_NS};
use crate::stall::StallPolicy;

#[test]
fn the_job_completes_when_every_rank_finalized_and_closed() {
    let mut job = Job::new(settings(2, 1.0));
    let (r0, r1) = (job.join(0), job.join(1));
    for r in [r0, r1] {
        job.send(r, &Frame::Finalize(Default::default())).unwrap();
        assert_eq!(job.output(r), vec![Frame::FinalizeAck]);
    }
    job.close(r0).unwrap();
    assert_eq!(job.actions(), vec![Action::Unwatch(r0)]);
    assert_eq!(job.core.check(EPOCH), None, "rank 1 is still connected");
    job.close(r1).unwrap();
    assert_eq!(job.core.check(EPOCH), Some(JobOutcome::Completed));
    let c = job.core.connection(r1).unwrap();
    assert_eq!(c.state, ConnState::Closed);
    assert!(c.counters.is_some());
}

#[test]
fn an_abort_is_acknowledged_at_once_and_ends_the_job() {
    let mut job = Job::new(settings(2, 1.0));
    let (_, r1) = (job.join(0), job.join(1));
    let abort = Frame::Abort {
        code: 3,
        text: "bad input".into(),
    };
    assert_eq!(
        job.send(r1, &abort),
        Err(JobOutcome::Aborted {
            rank: 1,
            code: 3,
            text: "bad input".into()
        })
    );
    assert_eq!(job.actions(), vec![Action::Flush(r1)]);
    assert_eq!(job.output(r1), vec![Frame::AbortAck]);
}

#[test]
fn a_rank_gone_before_finalize_fails_the_job_after_the_grace_period() {
    let mut job = Job::new(settings(2, 1.0));
    let (_, r1) = (job.join(0), job.join(1));
    let t = EPOCH + 1_000;
    job.at(t);
    job.close(r1).unwrap();
    assert_eq!(job.actions(), vec![Action::Unwatch(r1)]);
    // The supervisor has the grace period to report the process's end.
    assert_eq!(job.core.check(t + LOST_RANK_GRACE_NS), None);
    assert_eq!(
        job.core.check(t + LOST_RANK_GRACE_NS + 1),
        Some(JobOutcome::RankFailed {
            rank: 1,
            reason: "closed its connection to the gateway before MPI_Finalize".into()
        })
    );
}

#[test]
fn a_client_that_leaves_before_its_hello_is_forgotten() {
    let mut job = Job::new(settings(2, 1.0));
    let id = job.connect(None);
    job.close(id).unwrap();
    assert_eq!(job.actions(), vec![Action::Close(id)]);
    assert!(job.core.connection(id).is_none());
    assert_eq!(job.core.refused, 0);
    assert_eq!(job.core.check(EPOCH + 10 * LOST_RANK_GRACE_NS), None);
}

#[test]
fn frames_a_rank_may_not_send_end_the_job_naming_it() {
    let mut job = Job::new(settings(2, 1.0));
    let r0 = job.join(0);
    let to_nobody = Frame::Send {
        dst: 5,
        srt_ns: 0,
        bytes: vec![1],
    };
    assert_eq!(
        job.send(r0, &to_nobody),
        Err(JobOutcome::ProtocolError {
            rank: Some(0),
            pid: Some(FIRST_PID),
            message: "it sent a message to rank 5, but the job has ranks 0 to 1".into()
        })
    );
    let mut job = Job::new(settings(2, 1.0));
    let r0 = job.join(0);
    assert_eq!(
        job.send(r0, &job.hello(1)),
        Err(JobOutcome::ProtocolError {
            rank: Some(0),
            pid: Some(FIRST_PID),
            message: "it sent a Hello frame out of order (connection state Active)".into()
        })
    );
    // Collectives are the analytic model's.
    let mut job = Job::new(settings(2, 1.0));
    let r0 = job.join(0);
    let data = Frame::CollectiveData {
        dst: 1,
        srt_ns: 0,
        bytes: vec![1],
    };
    assert_eq!(
        job.send(r0, &data),
        Err(JobOutcome::ProtocolError {
            rank: Some(0),
            pid: Some(FIRST_PID),
            message: "it sent collective data, which only the analytic model takes".into()
        })
    );
    // A malformed frame after Hello is no refusal: the rank broke the protocol.
    let mut job = Job::new(settings(2, 1.0));
    let r0 = job.join(0);
    let e = Frame::decode(&[1, 0, 0, 0, 0xee]).unwrap_err();
    assert_eq!(
        job.send_bytes(r0, &[1, 0, 0, 0, 0xee]),
        Err(JobOutcome::ProtocolError {
            rank: Some(0),
            pid: Some(FIRST_PID),
            message: format!("it sent a malformed frame ({e})")
        })
    );
}

/// Rank `r` on connection `id` waits in MPI_Recv for `peer`, having read
/// `wakeups` deliveries.
fn waits(job: &mut Job, id: ConnId, peer: u32, wakeups: u64) {
    let w = Frame::Waiting {
        call: "MPI_Recv".into(),
        any_source: false,
        peers: vec![peer],
        more_peers: false,
        wakeups,
    };
    job.send(id, &w).unwrap();
}

#[test]
fn ranks_that_all_wait_with_nothing_in_flight_are_a_stall() {
    let mut s = settings(2, 1.0);
    s.stall = StallPolicy {
        quiet_ns: Some(1_000_000_000),
        stop: true,
    };
    let mut job = Job::new(s);
    let (r0, r1) = (job.join(0), job.join(1));
    let t = EPOCH + 5_000;
    job.at(t);
    waits(&mut job, r0, 1, 0);
    waits(&mut job, r1, 0, 0);
    assert_eq!(job.core.check(t + 999_999_999), None);
    let Some(JobOutcome::Stalled(text)) = job.core.check(t + 1_000_000_000) else {
        panic!("a stall");
    };
    let states = [
        crate::stall::RankState::Waiting(&crate::stall::RankWaiting {
            call: "MPI_Recv".into(),
            any_source: false,
            peers: vec![1],
            more_peers: false,
        }),
        crate::stall::RankState::Waiting(&crate::stall::RankWaiting {
            call: "MPI_Recv".into(),
            any_source: false,
            peers: vec![0],
            more_peers: false,
        }),
    ];
    assert_eq!(text, crate::stall::describe(&states, 1_000_000_000));
}

#[test]
fn a_stall_is_only_said_once_when_the_job_waits_on() {
    let mut s = settings(2, 1.0);
    s.stall = StallPolicy {
        quiet_ns: Some(1_000_000_000),
        stop: false,
    };
    let mut job = Job::new(s);
    let (r0, r1) = (job.join(0), job.join(1));
    waits(&mut job, r0, 1, 0);
    waits(&mut job, r1, 0, 0);
    let later = EPOCH + 2_000_000_000;
    assert_eq!(job.core.check(later), None);
    let said = job.actions();
    assert_eq!(said.len(), 1);
    assert!(
        matches!(&said[0], Action::Say(t) if t.ends_with("; the job keeps waiting (--on-stall stop would end it)")),
        "{said:?}"
    );
    assert_eq!(job.core.check(later + 1_000_000_000), None);
    assert!(job.actions().is_empty());
}

#[test]
fn a_waiting_frame_that_a_delivery_crossed_is_no_stall() {
    let mut s = settings(2, 1.0);
    s.stall = StallPolicy {
        quiet_ns: Some(1_000_000_000),
        stop: true,
    };
    let mut job = Job::new(s);
    let (r0, r1) = (job.join(0), job.join(1));
    // Rank 0 sends to rank 1, which gets it (1 wakeup) ...
    job.send(
        r0,
        &Frame::Send {
            dst: 1,
            srt_ns: 0,
            bytes: vec![1],
        },
    )
    .unwrap();
    job.at(job.wall_of(LATENCY));
    job.run_due();
    job.output(r1);
    waits(&mut job, r0, 1, 0);
    // ... but its Waiting was written before it read the delivery.
    waits(&mut job, r1, 0, 0);
    assert_eq!(job.core.connection(r1).unwrap().waiting, None);
    assert_eq!(job.core.check(EPOCH + 100_000_000_000), None);
    // Once it says so having read it, the stall is real.
    waits(&mut job, r1, 0, 1);
    assert!(matches!(
        job.core.check(EPOCH + 100_000_000_000),
        Some(JobOutcome::Stalled(_))
    ));
}
