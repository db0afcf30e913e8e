//! `MPI_Comm_spawn` as the core sees it: the root's request handed to the
//! shell, the ranks it adds admitted (and no others), messages to them
//! held until they connect, the answer queued for the root, and a job that
//! ends only once the spawned ranks have finished too.

use super::*;
use mpinetsim_protocol::spawn::{SpawnCommand, SpawnRequest};
use mpinetsim_protocol::HostCpu;

fn request(count: u32) -> SpawnRequest {
    SpawnRequest {
        commands: vec![SpawnCommand {
            program: "./child".into(),
            args: vec!["a".into()],
            count,
            ..SpawnCommand::default()
        }],
    }
}

#[test]
fn a_spawned_rank_is_admitted_reached_and_waited_for() {
    let mut job = Job::new(settings(1, 1.0));
    let r0 = job.join(0);
    let spawn = Frame::Spawn {
        srt_ns: 5,
        request: request(1).encode(),
    };
    job.send(r0, &spawn).unwrap();
    assert!(job.core.has_spawn_requests());
    let asks = job.core.take_spawn_requests();
    assert_eq!(asks.len(), 1);
    assert_eq!((asks[0].rank, asks[0].srt_ns), (0, 5));
    assert_eq!(asks[0].request, request(1));
    assert!(!job.core.has_spawn_requests());

    // What the shell does: a rank in the model, then in the core.
    let rank = job.core.sim.add_rank(None).unwrap();
    assert_eq!(rank, 1);
    job.core.add_rank(rank, HostCpu::NATIVE);
    job.core.answer_spawn(0, Ok((1, 1)));
    assert_eq!(
        job.output(r0),
        vec![Frame::Spawned {
            first: 1,
            count: 1,
            error: String::new()
        }]
    );
    assert_eq!(job.core.rank_count(), 2);

    // The parent writes to the child before it connects: the message
    // waits for its Hello.
    let to_child = Frame::Send {
        dst: 1,
        srt_ns: 10,
        bytes: vec![7; 8],
    };
    job.send(r0, &to_child).unwrap();
    job.at(job.wall_of(10 + LATENCY));
    job.run_due();
    // A rank no spawn added is refused.
    let stray = job.connect(None);
    let mut beyond = job.hello(2);
    if let Frame::Hello { size, .. } = &mut beyond {
        *size = 1;
    }
    job.send(stray, &beyond).unwrap();
    assert!(job.core.connection(stray).is_none(), "refused");
    let mut hello = job.hello(1);
    if let Frame::Hello { size, .. } = &mut hello {
        *size = 1; // a child says the size of the job that started it
    }
    let r1 = job.connect(Some(FIRST_PID + 1));
    job.send(r1, &hello).unwrap();
    let out = job.output(r1);
    assert!(matches!(out[0], Frame::Welcome { .. }), "{out:?}");
    assert!(
        out.iter()
            .any(|f| matches!(f, Frame::Deliver { src: 0, .. })),
        "the held message: {out:?}"
    );

    // The job ends once both have finished.
    job.send(r0, &Frame::Finalize(Default::default())).unwrap();
    job.close(r0).unwrap();
    assert_eq!(job.core.check(job.clock.now_ns()), None, "the child runs");
    job.send(r1, &Frame::Finalize(Default::default())).unwrap();
    job.close(r1).unwrap();
    assert_eq!(
        job.core.check(job.clock.now_ns()),
        Some(JobOutcome::Completed)
    );
}

#[test]
fn a_refusal_reaches_the_root_and_a_bad_request_is_a_protocol_error() {
    let mut job = Job::new(settings(2, 1.0));
    let (r0, r1) = (job.join(0), job.join(1));
    job.send(
        r0,
        &Frame::Spawn {
            srt_ns: 0,
            request: request(2).encode(),
        },
    )
    .unwrap();
    for ask in job.core.take_spawn_requests() {
        job.core
            .answer_spawn(ask.rank, Err("no such program".into()));
    }
    assert_eq!(
        job.output(r0),
        vec![Frame::Spawned {
            first: 0,
            count: 0,
            error: "no such program".into()
        }]
    );
    assert_eq!(job.core.rank_count(), 2);
    let e = job
        .send(
            r1,
            &Frame::Spawn {
                srt_ns: 0,
                request: vec![1, 2],
            },
        )
        .unwrap_err();
    assert!(
        matches!(&e, JobOutcome::ProtocolError { rank: Some(1), message, .. } if message.contains("bad spawn request")),
        "{e:?}"
    );
}
