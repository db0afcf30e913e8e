//! Who may join: the Hello checks, refusals of strangers (the job goes on)
//! and of the job's own processes (the job ends), the handshake timeout,
//! and what a welcomed rank is told.

use super::*;
use crate::loop_core::ConnState;
use mpinetsim_protocol::HostCpu;

/// Connection `id` was refused with `why`: one line, socket closed,
/// counted, and the job goes on.
fn assert_refused(job: &mut Job, id: ConnId, result: Result<(), JobOutcome>, why: &str) {
    assert_eq!(result, Ok(()));
    assert_eq!(
        job.actions(),
        vec![
            Action::Say(format!("refused a connection from a local process: {why}")),
            Action::Close(id)
        ]
    );
    assert!(job.core.connection(id).is_none());
}

#[test]
fn a_hello_without_the_secret_is_refused_and_the_job_goes_on() {
    let mut job = Job::new(settings(2, 1.0));
    let id = job.connect(Some(999));
    let mut hello = job.hello(0);
    if let Frame::Hello { secret, .. } = &mut hello {
        *secret = JobSecret(1);
    }
    let r = job.send(id, &hello);
    assert_refused(&mut job, id, r, "wrong job secret");
    // An old shim without the secret is told why in its own terms.
    let id = job.connect(None);
    let old = Frame::Hello {
        version: 3,
        rank: 0,
        size: 2,
        pid: 1,
        job: JOB,
        secret: JobSecret(0),
    };
    let r = job.send(id, &old);
    assert_refused(
        &mut job,
        id,
        r,
        &format!("it speaks protocol version 3, not {VERSION}"),
    );
    assert_eq!(job.core.refused, 2);
    // The rank itself still joins.
    job.join(0);
}

#[test]
fn a_launched_process_without_the_secret_ends_the_job() {
    let mut job = Job::new(settings(2, 1.0));
    job.core.own_pids = vec![FIRST_PID, FIRST_PID + 1];
    let id = job.connect(Some(FIRST_PID + 1));
    let mut hello = job.hello(1);
    if let Frame::Hello { secret, .. } = &mut hello {
        *secret = JobSecret(7);
    }
    assert_eq!(
        job.send(id, &hello),
        Err(JobOutcome::ProtocolError {
            rank: None,
            pid: Some(FIRST_PID + 1),
            message: "it sent a Hello without the job's secret".into(),
        })
    );
    assert_eq!(job.core.refused, 0);
}

#[test]
fn a_hello_that_cannot_join_this_job_is_refused_with_the_reason() {
    let mut job = Job::new(settings(2, 1.0));
    job.join(0);
    let cases = [
        (
            Frame::Hello {
                version: VERSION,
                rank: 1,
                size: 2,
                pid: 5,
                job: 5,
                secret: SECRET,
            },
            format!("its Hello names job 5, not this gateway's job {JOB}; set MPINETSIM_JOB to the value the gateway printed"),
        ),
        (
            Frame::Hello {
                version: VERSION,
                rank: 1,
                size: 4,
                pid: 5,
                job: JOB,
                secret: SECRET,
            },
            "its Hello (rank 1) says the job has 4 ranks but this gateway runs 2; start 2 ranks, or the gateway with -n 4".into(),
        ),
        (
            Frame::Hello {
                version: VERSION,
                rank: 2,
                size: 2,
                pid: 5,
                job: JOB,
                secret: SECRET,
            },
            "its Hello names rank 2, but a job of 2 ranks has ranks 0 to 1".into(),
        ),
        (
            Frame::Hello {
                version: VERSION,
                rank: 0,
                size: 2,
                pid: 5,
                job: JOB,
                secret: SECRET,
            },
            format!("its Hello names rank 0, which is already connected (pid {FIRST_PID}); give every rank its own number"),
        ),
        (
            Frame::Hello {
                version: VERSION - 1,
                rank: 1,
                size: 2,
                pid: 5,
                job: JOB,
                secret: SECRET,
            },
            format!("its Hello speaks protocol version {} but this gateway speaks {VERSION}; start the ranks with the shim built with this mpinetsim", VERSION - 1),
        ),
    ];
    for (hello, why) in cases {
        let id = job.connect(Some(5));
        let r = job.send(id, &hello);
        assert_refused(&mut job, id, r, &why);
    }
    assert_eq!(job.core.refused, 5);
    // Rank 1 still has its place.
    job.join(1);
}

#[test]
fn bytes_that_are_not_a_hello_are_refused_without_buffering_them() {
    let mut job = Job::new(settings(2, 1.0));
    // An HTTP client: "GET " read as a length is far above any Hello.
    let id = job.connect(None);
    let r = job.send_bytes(id, b"GET / HTTP/1.1\r\n\r\n");
    let len = u32::from_le_bytes(*b"GET ");
    assert_refused(
        &mut job,
        id,
        r,
        &format!("its first frame announces {len} bytes, more than any Hello"),
    );
    // A short frame of an unknown kind.
    let id = job.connect(None);
    let r = job.send_bytes(id, &[1, 0, 0, 0, 0xee]);
    let e = Frame::decode(&[1, 0, 0, 0, 0xee]).unwrap_err();
    assert_refused(
        &mut job,
        id,
        r,
        &format!("it sent bytes that are not a Hello ({e})"),
    );
    // A valid frame, but not a Hello.
    let id = job.connect(None);
    let r = job.send(id, &Frame::ClockProbe { t1_ns: 1 });
    assert_refused(&mut job, id, r, "its first frame was ClockProbe, not Hello");
    // Half a Hello is neither accepted nor refused yet.
    let id = job.connect(None);
    let hello = job.hello(0).to_bytes();
    assert_eq!(job.send_bytes(id, &hello[..10]), Ok(()));
    assert!(job.actions().is_empty());
    assert_eq!(job.send_bytes(id, &hello[10..]), Ok(()));
    assert!(matches!(job.output(id)[0], Frame::Welcome { .. }));
}

#[test]
fn a_connection_gets_the_handshake_timeout_to_say_hello() {
    let mut s = settings(2, 1.0);
    s.handshake_timeout_ns = 2_000_000_000;
    s.stall.quiet_ns = None; // nobody connects: no stall report in between
    let mut job = Job::new(s);
    let t0 = EPOCH + 123;
    job.at(t0);
    let id = job.connect(None);
    assert_eq!(job.core.check(t0 + 2_000_000_000), None);
    assert!(job.actions().is_empty());
    assert_eq!(job.core.check(t0 + 2_000_000_001), None);
    assert_eq!(
        job.actions(),
        vec![
            Action::Say(
                "refused a connection from a local process: no Hello with the job's secret within 2.0 s"
                    .into()
            ),
            Action::Close(id)
        ]
    );
    // One of the job's own processes that stays silent is a failed rank.
    job.at(t0 + 10_000_000_000);
    let id = job.connect(Some(FIRST_PID));
    job.core.own_pids.push(FIRST_PID);
    assert_eq!(job.core.check(t0 + 10_000_000_000 + 2_000_000_000), None);
    assert_eq!(
        job.core.check(t0 + 10_000_000_000 + 2_000_000_001),
        Some(JobOutcome::ProtocolError {
            rank: None,
            pid: Some(FIRST_PID),
            message: "it sent no Hello".into()
        })
    );
    assert!(job.core.connection(id).is_some());
}

#[test]
fn the_welcome_carries_the_jobs_clock_and_the_ranks_host() {
    let mut s = settings(2, 8.0);
    s.rank_cpus = vec![HostCpu::NATIVE, HostCpu::new(0.5, 3_000).with_poll_ns(70)];
    s.compute_clock = ComputeClock::Wall;
    let mut job = Job::new(s);
    // Rank 1 says Hello 2 ms of wall time after the epoch: SRT 250 us.
    job.at(EPOCH + 2_000_000);
    let id = job.connect(Some(FIRST_PID + 1));
    job.send(id, &job.hello(1)).unwrap();
    assert_eq!(
        job.output(id),
        vec![Frame::Welcome {
            version: VERSION,
            factor: 8.0,
            epoch_ns: EPOCH,
            eager_limit: 65536,
            adaptive: false,
            analytic: false,
            node: 1,
            compute_clock: ComputeClock::Wall,
            cpu_speed: 0.5,
            cpu_threshold_ns: 3_000,
            poll_ns: 70,
        }]
    );
    let c = job.core.connection(id).unwrap();
    assert_eq!(
        (c.state, c.rank, c.pid, c.hello_srt_ns),
        (ConnState::Active, Some(1), FIRST_PID + 1, 250_000)
    );
}

#[test]
fn messages_for_a_rank_not_yet_connected_wait_for_its_welcome() {
    let mut job = Job::new(settings(2, 1.0));
    let r0 = job.join(0);
    let send = Frame::Send {
        dst: 1,
        srt_ns: 0,
        bytes: vec![7; 10],
    };
    job.send(r0, &send).unwrap();
    job.at(job.wall_of(LATENCY));
    job.run_due();
    assert_eq!(job.core.messages_out, 1);
    let r1 = job.join_keeping_output(1);
    assert_eq!(
        job.output(r1)[1..],
        [Frame::Deliver {
            src: 0,
            vtime_ns: LATENCY,
            bytes: vec![7; 10]
        }]
    );
    assert_eq!(job.core.connection(r1).unwrap().wakeups, 1);
}
