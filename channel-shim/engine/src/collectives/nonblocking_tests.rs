//! Nonblocking collectives: several outstanding at once on one
//! communicator complete in any order with their own results; they make
//! progress in any engine call that handles messages; errors reach the
//! wait; and a network model that times whole collectives releases each
//! call exactly once.

use super::{CollInput, CollOutput, Form};
use crate::comm::CommId;
use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::envelope::CallCode;
use crate::error::MpiError;
use crate::matching::{Source, Tag};
use crate::mem_transport::{run_world, run_world_timed};
use crate::op::{BuiltinOp, OpId};
use crate::request::{Dest, RequestId, SendMode};
use crate::transport::Transport;
use crate::Engine;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);
const SUM: OpId = OpId::Builtin(BuiltinOp::Sum);
const NB: Form = Form::Nonblocking;

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn output<T: Transport>(e: &mut Engine<T>, r: RequestId) -> CollOutput {
    let c = e.wait(r).unwrap();
    assert_eq!(c.status.error, None);
    c.output
}

#[test]
fn outstanding_collectives_complete_in_any_order_with_their_own_results() {
    for n in 1..=7u32 {
        run_world(n, 64, |e| {
            let me = e.rank();
            let d = e.comm_dup(W).unwrap();
            // Six calls on world (and one on a duplicate) under way at once.
            let b = e.start_barrier(NB, W).unwrap();
            let root = n - 1;
            let mine = ints([7, 8, 9]);
            let bc = e
                .start_bcast(NB, if me == root { &mine } else { &[] }, 3, INT, root, W)
                .unwrap();
            let ar = e
                .start_allreduce(NB, CollInput::Buf(&ints([me as i32; 40])), 40, INT, SUM, W)
                .unwrap();
            let ar2 = e
                .start_allreduce(NB, CollInput::Buf(&ints([1])), 1, INT, SUM, d)
                .unwrap();
            let all: Vec<i32> = (0..n).map(|j| (me * 100 + j) as i32).collect();
            let a2a = e
                .start_alltoall(NB, CollInput::Buf(&ints(all)), 1, INT, 1, INT, W)
                .unwrap();
            let g = e
                .start_gather(NB, CollInput::Buf(&ints([me as i32])), 1, INT, 1, INT, 0, W)
                .unwrap();
            let sc = e
                .start_scan(NB, CollInput::Buf(&ints([1])), 1, INT, SUM, W)
                .unwrap();
            // Waited for in reverse order.
            let sum: i32 = (0..n as i32).sum();
            assert_eq!(output(e, sc), CollOutput::Bytes(ints([me as i32 + 1])));
            let want_g = if me == 0 {
                CollOutput::Bytes(ints(0..n as i32))
            } else {
                CollOutput::None
            };
            assert_eq!(output(e, g), want_g);
            let want: Vec<i32> = (0..n).map(|j| (j * 100 + me) as i32).collect();
            assert_eq!(output(e, a2a), CollOutput::Bytes(ints(want)));
            assert_eq!(output(e, ar2), CollOutput::Bytes(ints([n as i32])));
            assert_eq!(output(e, ar), CollOutput::Bytes(ints([sum; 40])));
            assert_eq!(output(e, bc), CollOutput::Bytes(mine));
            assert_eq!(output(e, b), CollOutput::None);
            assert!(!e.has_pending_collectives());
            assert_eq!((e.unexpected_len(), e.posted_len()), (0, 0));
        });
    }
}

/// Rank 1 sits in a blocking receive that rank 3 satisfies only after its
/// allreduce completed — which needs rank 1's second round: the receive
/// must let rank 1's allreduce progress.
#[test]
fn a_blocking_receive_progresses_an_outstanding_allreduce() {
    run_world(4, 64, |e| {
        let me = e.rank();
        let r = e
            .start_allreduce(NB, CollInput::Buf(&ints([me as i32])), 1, INT, SUM, W)
            .unwrap();
        match me {
            1 => {
                let (got, _) = e.recv(1, INT, Source::Rank(3), Tag::Value(5), W).unwrap();
                assert_eq!(got, ints([6]));
            }
            3 => {
                let done = e.wait(r).unwrap();
                assert_eq!(done.output, CollOutput::Bytes(ints([6])));
                e.send(SendMode::Standard, &ints([6]), 1, INT, Dest::Rank(1), 5, W)
                    .unwrap();
            }
            _ => {}
        }
        if me != 3 {
            assert_eq!(output(e, r), CollOutput::Bytes(ints([6])));
        }
    });
}

/// Tests alone drive a collective to its end.
#[test]
fn tests_alone_complete_a_nonblocking_broadcast() {
    for n in 2..=6u32 {
        run_world(n, 16, |e| {
            let data = ints(0..1000);
            let me = e.rank();
            let r = e
                .start_bcast(NB, if me == 0 { &data } else { &[] }, 1000, INT, 0, W)
                .unwrap();
            let out = loop {
                if let Some(c) = e.test(r).unwrap() {
                    break c.output;
                }
                std::thread::yield_now();
            };
            assert_eq!(out, CollOutput::Bytes(data));
        });
    }
}

#[test]
fn a_failed_nonblocking_collective_reports_its_error_at_the_wait() {
    run_world(3, 64, |e| {
        let me = e.rank();
        // Rank 2 expects fewer elements than the root sends.
        let count = if me == 2 { 1 } else { 4 };
        let r = e
            .start_bcast(NB, &ints([1, 2, 3, 4]), count, INT, 0, W)
            .unwrap();
        let c = e.wait(r).unwrap();
        let want = if me == 2 {
            Some(MpiError::Truncate)
        } else {
            None
        };
        assert_eq!(c.status.error, want);
        e.barrier(W).unwrap();
    });
}

/// With a network model that times collectives, every public call is
/// reported once (internal ones, such as a dup's agreement, are not) and
/// completes only after its release.
#[test]
fn timed_collectives_are_reported_once_and_wait_for_their_release() {
    let reports = run_world_timed(4, 64, |e| {
        let me = e.rank();
        e.barrier(W).unwrap();
        let r = e
            .start_allreduce(NB, CollInput::Buf(&ints([me as i32])), 1, INT, SUM, W)
            .unwrap();
        let d = e.comm_dup(W).unwrap();
        e.bcast(&ints([3]), 1, INT, 0, d).unwrap();
        assert_eq!(output(e, r), CollOutput::Bytes(ints([6])));
    });
    for calls in reports {
        assert_eq!(
            calls,
            vec![CallCode::Barrier, CallCode::Iallreduce, CallCode::Bcast]
        );
    }
}
