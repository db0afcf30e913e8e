//! Partitioned communication over the in-memory network: the sender cuts
//! the buffer into 4 or 64 partitions, the receiver into 2 or 8; every
//! byte lands where the packed layout puts it, in every round.

use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::mem_transport::run_world;
use crate::rendezvous::tests::Reported;
use crate::request::Dest;
use crate::{CommId, MpiError};

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// `send_parts` partitions of 12 / `send_parts` ints each way; the sender
/// readies its partitions last to first and runs round 2 before the
/// receiver starts it (its pieces wait for the receiver's start).
fn exchange(send_parts: usize, recv_parts: usize) {
    let total = 12 * 64;
    let out = run_world(2, 1 << 20, |e| {
        let mut rounds = Vec::new();
        if e.rank() == 0 {
            let r = e
                .partitioned_init(
                    true,
                    send_parts,
                    total / send_parts,
                    INT,
                    Dest::Rank(1),
                    3,
                    W,
                )
                .unwrap();
            for round in 0..2 {
                let data = ints((0..total as i32).map(|i| i * 10 + round));
                e.start(r, Some(&data)).unwrap();
                let all: Vec<usize> = (0..send_parts).rev().collect();
                e.pready(r, &all[..1]).unwrap();
                if send_parts > 1 {
                    assert_eq!(e.pready(r, &all[..1]), Err(MpiError::Arg), "ready twice");
                }
                e.pready(r, &all[1..]).unwrap();
                e.wait(r).unwrap();
            }
            e.barrier(W).unwrap();
            e.request_free(r).unwrap();
        } else {
            let r = e
                .partitioned_init(
                    false,
                    recv_parts,
                    total / recv_parts,
                    INT,
                    Dest::Rank(0),
                    3,
                    W,
                )
                .unwrap();
            e.barrier(W).unwrap();
            for _ in 0..2 {
                let (mem, got) = Reported::new(4 * total, 0);
                e.start_with(r, mem).unwrap();
                let c = e.wait(r).unwrap();
                assert_eq!(c.status.count_bytes, 4 * total as u64);
                assert!(e.parrived(r, 0).is_err(), "inactive again after the wait");
                rounds.push(got.lock().unwrap().take().unwrap());
            }
            e.request_free(r).unwrap();
        }
        rounds
    });
    for (round, got) in out[1].iter().enumerate() {
        assert_eq!(got, &ints((0..total as i32).map(|i| i * 10 + round as i32)));
    }
}

#[test]
fn partitions_of_different_counts_on_each_side_deliver_every_round() {
    exchange(4, 2);
    exchange(64, 8);
    exchange(1, 16);
}

/// A request that is never started is freed without traffic; one to
/// `MPI_PROC_NULL` completes at its start.
#[test]
fn unstarted_and_proc_null_requests() {
    run_world(2, 1 << 20, |e| {
        let peer = Dest::Rank(1 - e.rank());
        let r = e
            .partitioned_init(e.rank() == 0, 2, 1, INT, peer, 0, W)
            .unwrap();
        e.request_free(r).unwrap();
        let n = e
            .partitioned_init(true, 2, 1, INT, Dest::ProcNull, 0, W)
            .unwrap();
        e.start(n, Some(&ints([1, 2]))).unwrap();
        e.wait(n).unwrap();
        e.request_free(n).unwrap();
        assert_eq!(
            e.partitioned_init(true, 0, 1, INT, peer, 0, W).err(),
            Some(MpiError::Arg)
        );
        e.barrier(W).unwrap();
        assert_eq!(
            e.counters().messages_sent - e.counters().messages_received,
            0
        );
    });
}

/// Three requests with one peer, tag and communicator match in the order
/// of their init calls, whatever order the sender starts them in.
#[test]
fn requests_match_in_init_order() {
    let out = run_world(2, 1 << 20, |e| {
        let mut got = Vec::new();
        if e.rank() == 0 {
            let reqs: Vec<_> = (0..3)
                .map(|_| {
                    e.partitioned_init(true, 8, 64, INT, Dest::Rank(1), 0, W)
                        .unwrap()
                })
                .collect();
            for &i in &[2usize, 0, 1] {
                let data = ints((0..512).map(|k| k + 1000 * i as i32));
                e.start(reqs[i], Some(&data)).unwrap();
                e.pready(reqs[i], &(0..8).collect::<Vec<_>>()).unwrap();
            }
            let all: Vec<_> = reqs.iter().map(|&r| Some(r)).collect();
            e.waitall(&all).unwrap();
            for r in reqs {
                e.request_free(r).unwrap();
            }
        } else {
            let reqs: Vec<_> = (0..3)
                .map(|_| {
                    e.partitioned_init(false, 8, 64, INT, Dest::Rank(0), 0, W)
                        .unwrap()
                })
                .collect();
            let mut reports = Vec::new();
            for &r in &reqs {
                let (mem, out) = Reported::new(4 * 512, 0);
                e.start_with(r, mem).unwrap();
                reports.push(out);
            }
            let all: Vec<_> = reqs.iter().map(|&r| Some(r)).collect();
            e.waitall(&all).unwrap();
            for r in reqs {
                e.request_free(r).unwrap();
            }
            for out in reports {
                got.push(out.lock().unwrap().take().unwrap());
            }
        }
        e.barrier(W).unwrap();
        got
    });
    for (i, got) in out[1].iter().enumerate() {
        assert_eq!(
            got,
            &ints((0..512).map(|k| k + 1000 * i as i32)),
            "request {i}"
        );
    }
}
