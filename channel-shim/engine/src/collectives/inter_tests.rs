//! Intercommunicators: creation from two halves of world, the queries,
//! every collective (both gather/scatter algorithms) against references
//! computed here, merge in both orders, dup/split/create, and context-id
//! agreement when several nonblocking dups run at once.

use super::{AlltoallwArgs, CollInput, ROOT_HERE, ROOT_NULL};
use crate::comm::CommId;
use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::engine::{CollThresholds, EngineConfig};
use crate::mem_transport::{run_world, run_world_with, MemTransport};
use crate::op::{BuiltinOp, OpId};
use crate::Engine;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);
const SUM: OpId = OpId::Builtin(BuiltinOp::Sum);

type E = Engine<MemTransport>;

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// What world rank `w` contributes: `count` ints.
fn val(w: u32, count: usize) -> Vec<u8> {
    ints((0..count).map(|i| w as i32 * 100 + i as i32))
}

/// The two groups of world split at `k`: (this rank's local
/// communicator, the intercommunicator, whether this is the low group).
/// The low group uses a context block more first, so the groups receive
/// on different contexts and each must send on the other's.
fn inter(e: &mut E, k: u32) -> (CommId, CommId, bool) {
    let low = e.rank() < k;
    let local = e.comm_split(W, Some(low as i32), 0).unwrap().unwrap();
    if low {
        e.comm_dup(local).unwrap();
    }
    let leader = if low { k } else { 0 };
    let ic = e.intercomm_create(local, 0, W, leader, 7).unwrap();
    (local, ic, low)
}

/// World ranks of the other group.
fn others(n: u32, k: u32, low: bool) -> Vec<u32> {
    if low {
        (k..n).collect()
    } else {
        (0..k).collect()
    }
}

fn sum_of(ranks: &[u32], count: usize) -> Vec<u8> {
    ints((0..count).map(|i| ranks.iter().map(|&w| w as i32 * 100 + i as i32).sum()))
}

#[test]
fn queries_and_merge_in_both_orders() {
    for n in 2..=6u32 {
        for k in 1..n {
            run_world(n, 64, |e| {
                let me = e.rank();
                let (_, ic, low) = inter(e, k);
                let (ln, rn) = if low { (k, n - k) } else { (n - k, k) };
                assert!(e.comm_test_inter(ic).unwrap());
                assert_eq!(e.comm_size(ic).unwrap(), ln);
                assert_eq!(e.comm_remote_size(ic).unwrap(), rn);
                assert_eq!(e.comm_rank(ic).unwrap(), if low { me } else { me - k });
                let rg = e.comm_remote_group(ic).unwrap();
                assert_eq!(e.group(rg).unwrap().ranks, others(n, k, low));
                // Low group first: world order.
                let m = e.intercomm_merge(ic, !low).unwrap();
                assert_eq!(e.comm_rank(m).unwrap(), me);
                // Same `high` everywhere: the low group (leader world 0) first.
                let m2 = e.intercomm_merge(ic, true).unwrap();
                assert_eq!(e.comm_rank(m2).unwrap(), me);
                // High group first.
                let m3 = e.intercomm_merge(ic, low).unwrap();
                let want = if low { me + (n - k) } else { me - k };
                assert_eq!(e.comm_rank(m3).unwrap(), want);
                let s = e.allreduce(CollInput::Buf(&ints([me as i32])), 1, INT, SUM, m3);
                assert_eq!(s.unwrap(), ints([(n * (n - 1) / 2) as i32]));
                for c in [m, m2, m3, ic] {
                    e.comm_free(c).unwrap();
                }
            });
        }
    }
}

fn configs() -> Vec<EngineConfig> {
    let d = EngineConfig::default();
    let linear = CollThresholds {
        inter_short: 0,
        ..CollThresholds::default()
    };
    vec![d, EngineConfig { coll: linear, ..d }]
}

#[test]
fn every_collective_on_an_intercommunicator() {
    for cfg in configs() {
        for n in 2..=6u32 {
            for k in 1..n {
                run_world_with(n, 64, cfg, |e| every_collective(e, n, k));
            }
        }
    }
}

fn every_collective(e: &mut E, n: u32, k: u32) {
    let me = e.rank();
    let (_, ic, low) = inter(e, k);
    let rank = e.comm_rank(ic).unwrap();
    let other = others(n, k, low);
    let rn = other.len();
    let c = 3usize;
    e.barrier(ic).unwrap();
    // Bcast from the low group's rank 0.
    let root = if low {
        if rank == 0 {
            ROOT_HERE
        } else {
            ROOT_NULL
        }
    } else {
        0
    };
    let got = e.bcast(&val(me, c), c, INT, root, ic).unwrap();
    assert_eq!(got, if low { Vec::new() } else { val(0, c) });
    // Reduce to the high group's last rank.
    let last = n - k - 1;
    let root = if low {
        last
    } else if rank == last {
        ROOT_HERE
    } else {
        ROOT_NULL
    };
    let inp = val(me, c);
    let got = e
        .reduce(CollInput::Buf(&inp), c, INT, SUM, root, ic)
        .unwrap();
    let want = (root == ROOT_HERE).then(|| sum_of(&other, c));
    assert_eq!(got, want);
    // Allreduce: the other group's sum.
    let got = e.allreduce(CollInput::Buf(&inp), c, INT, SUM, ic).unwrap();
    assert_eq!(got, sum_of(&other, c));
    // Gather to the low group's rank 0 and scatter back from it.
    let root = if low {
        if rank == 0 {
            ROOT_HERE
        } else {
            ROOT_NULL
        }
    } else {
        0
    };
    let got = e
        .gather(CollInput::Buf(&inp), c, INT, c, INT, root, ic)
        .unwrap();
    let all: Vec<u8> = other.iter().flat_map(|&w| val(w, c)).collect();
    assert_eq!(got, (root == ROOT_HERE).then(|| all.clone()));
    let send: Vec<u8> = (0..rn as u32).flat_map(|j| val(1000 + j, c)).collect();
    let got = e
        .scatter(&send, c, INT, (!low).then_some((c, INT)), root, ic)
        .unwrap();
    assert_eq!(got, (!low).then(|| val(1000 + rank, c)));
    // Gatherv / scatterv with counts by remote rank.
    let counts: Vec<usize> = (0..rn).map(|j| j % 3 + 1).collect();
    let displs: Vec<i64> = (0..rn).map(|j| 4 * j as i64).collect();
    let mine_count = rank as usize % 3 + 1;
    let got = e
        .gatherv(
            CollInput::Buf(&val(me, mine_count)),
            mine_count,
            INT,
            &counts,
            &displs,
            INT,
            root,
            ic,
        )
        .unwrap();
    let want: Vec<Vec<u8>> = other
        .iter()
        .enumerate()
        .map(|(j, &w)| val(w, counts[j]))
        .collect();
    assert_eq!(got, (root == ROOT_HERE).then(|| want.clone()));
    let send: Vec<u8> = (0..rn as u32).flat_map(|j| val(2000 + j, 4)).collect();
    let got = e
        .scatterv(
            &send,
            &counts,
            &displs,
            INT,
            (!low).then_some((mine_count, INT)),
            root,
            ic,
        )
        .unwrap();
    assert_eq!(got, (!low).then(|| val(2000 + rank, mine_count)));
    // Allgather(v): the other group's blocks.
    let got = e
        .allgather(CollInput::Buf(&inp), c, INT, c, INT, ic)
        .unwrap();
    assert_eq!(got, all);
    let got = e
        .allgatherv(
            CollInput::Buf(&val(me, mine_count)),
            mine_count,
            INT,
            &counts,
            &displs,
            INT,
            ic,
        )
        .unwrap();
    assert_eq!(got, want);
    // Alltoall(v,w): block j goes to remote rank j.
    let send: Vec<u8> = (0..rn as u32).flat_map(|j| val(me * 10 + j, c)).collect();
    let got = e
        .alltoall(CollInput::Buf(&send), c, INT, c, INT, ic)
        .unwrap();
    let want: Vec<u8> = other.iter().flat_map(|&w| val(w * 10 + rank, c)).collect();
    assert_eq!(got, want);
    let send_counts: Vec<usize> = vec![c; rn];
    let sd: Vec<i64> = (0..rn as i64).map(|j| j * c as i64).collect();
    let got = e
        .alltoallv(
            CollInput::Buf(&send),
            &send_counts,
            &sd,
            INT,
            &send_counts,
            &sd,
            INT,
            ic,
        )
        .unwrap();
    assert_eq!(got.concat(), want);
    let blocks: Vec<(i64, usize, DatatypeId)> =
        (0..rn).map(|j| (4 * (j * c) as i64, c, INT)).collect();
    let args = AlltoallwArgs {
        input: CollInput::Buf(&send),
        send: &blocks,
        recv: &blocks,
    };
    assert_eq!(e.alltoallw(&args, ic).unwrap().concat(), want);
    // Reduce_scatter_block: the other group's sum, scattered here; both
    // groups reduce local × remote elements (each block has the other
    // group's size).
    let ln = e.comm_size(ic).unwrap() as usize;
    let inp = val(me, ln * rn);
    let got = e
        .reduce_scatter_block(CollInput::Buf(&inp), rn, INT, SUM, ic)
        .unwrap();
    let all = sum_of(&other, ln * rn);
    let r = rank as usize;
    assert_eq!(got, all[4 * rn * r..4 * rn * (r + 1)]);
    // In place is not allowed on intercommunicators.
    let bad = e.allreduce(CollInput::InPlace(&ints([1])), 1, INT, SUM, ic);
    assert!(bad.is_err());
    e.barrier(ic).unwrap();
    assert_eq!((e.unexpected_len(), e.posted_len()), (0, 0));
}

#[test]
fn dup_split_and_create_of_an_intercommunicator() {
    for n in 2..=6u32 {
        for k in 1..n {
            run_world(n, 64, |e| {
                let me = e.rank();
                let (local, ic, low) = inter(e, k);
                let d = e.comm_dup(ic).unwrap();
                let s = e.allreduce(CollInput::Buf(&val(me, 1)), 1, INT, SUM, d);
                assert_eq!(s.unwrap(), sum_of(&others(n, k, low), 1));
                // Split by parity of the world rank.
                let sp = e.comm_split(ic, Some((me % 2) as i32), 0).unwrap();
                let mates: Vec<u32> = others(n, k, low)
                    .into_iter()
                    .filter(|w| w % 2 == me % 2)
                    .collect();
                match sp {
                    None => assert!(mates.is_empty()),
                    Some(sp) => {
                        assert_eq!(e.comm_remote_size(sp).unwrap() as usize, mates.len());
                        let s = e.allreduce(CollInput::Buf(&val(me, 1)), 1, INT, SUM, sp);
                        assert_eq!(s.unwrap(), sum_of(&mates, 1));
                    }
                }
                // Create from each group's first member.
                let lg = e.comm_group(local).unwrap();
                let first = e.group_incl(lg, &[0]).unwrap();
                let cr = e.comm_create(ic, first).unwrap();
                if e.comm_rank(local).unwrap() == 0 {
                    let cr = cr.unwrap();
                    assert_eq!(e.comm_remote_size(cr).unwrap(), 1);
                    let s = e.allreduce(CollInput::Buf(&val(me, 1)), 1, INT, SUM, cr);
                    assert_eq!(s.unwrap(), val(if low { k } else { 0 }, 1));
                } else {
                    assert!(cr.is_none());
                }
            });
        }
    }
}

/// Two nonblocking dups on two communicators, started in opposite orders
/// by even and odd ranks: both agree on context ids free everywhere, and
/// the four communicators never exchange messages by mistake.
#[test]
fn concurrent_dups_in_opposite_orders_get_distinct_contexts() {
    for n in 2..=7u32 {
        run_world(n, 64, |e| {
            let me = e.rank();
            let a = e.comm_dup(W).unwrap();
            let b = e.comm_dup(W).unwrap();
            let order = if me % 2 == 0 { [a, b] } else { [b, a] };
            let (x, rx) = e.comm_idup(order[0]).unwrap();
            let (y, ry) = e.comm_idup(order[1]).unwrap();
            e.waitall(&[Some(ry), Some(rx)]).unwrap();
            // The duplicates of a and of b, in that order on every rank.
            let (da, db) = if me % 2 == 0 { (x, y) } else { (y, x) };
            let mut ctxs: Vec<u32> = [W, a, b, x, y]
                .iter()
                .map(|&c| e.comms.get(c).unwrap().context)
                .collect();
            ctxs.sort_unstable();
            ctxs.dedup();
            assert_eq!(ctxs.len(), 5);
            for (i, c) in [da, db].into_iter().enumerate() {
                let s = e.allreduce(CollInput::Buf(&ints([i as i32 + 1])), 1, INT, SUM, c);
                assert_eq!(s.unwrap(), ints([(i as i32 + 1) * n as i32]));
            }
        });
    }
}

/// Five nonblocking dups interleaved with nonblocking barriers on one
/// communicator, then point-to-point on each duplicate (MPICH's
/// comm_idup_nb), twice in a row after freeing them.
#[test]
fn idups_interleaved_with_ibarriers_give_working_communicators() {
    use super::Form;
    use crate::matching::{Source, Tag};
    use crate::request::{Dest, SendMode};
    for n in 2..=4u32 {
        run_world(n, 64, |e| {
            let me = e.rank();
            for _round in 0..2 {
                let mut reqs = Vec::new();
                let mut dups = Vec::new();
                for _ in 0..5 {
                    reqs.push(Some(e.start_barrier(Form::Nonblocking, W).unwrap()));
                    let (d, r) = e.comm_idup(W).unwrap();
                    dups.push(d);
                    reqs.push(Some(r));
                }
                e.waitall(&reqs).unwrap();
                for &d in &dups {
                    let next = (me + 1) % n;
                    let prev = (me + n - 1) % n;
                    let (got, _) = e
                        .sendrecv(
                            &ints([me as i32]),
                            1,
                            INT,
                            crate::request::Dest::Rank(next),
                            0,
                            1,
                            INT,
                            Source::Rank(prev),
                            Tag::Value(0),
                            d,
                        )
                        .unwrap();
                    assert_eq!(got, ints([prev as i32]));
                    let _ = (Dest::ProcNull, SendMode::Standard);
                }
                for d in dups {
                    e.comm_free(d).unwrap();
                }
            }
        });
    }
}

/// Nonblocking dups of a duplicated intercommunicator, interleaved with
/// nonblocking barriers on it, then point-to-point across each.
#[test]
fn idups_of_a_duplicated_intercommunicator_work() {
    use super::Form;
    use crate::matching::{Source, Tag};
    use crate::request::Dest;
    for n in 2..=4u32 {
        run_world(n, 64, |e| {
            let me = e.rank();
            let k = n / 2;
            let (local, ic, _) = inter(e, k);
            e.comm_free(local).unwrap();
            let d = e.comm_dup(ic).unwrap();
            let mut reqs = Vec::new();
            let mut dups = Vec::new();
            for _ in 0..5 {
                reqs.push(Some(e.start_barrier(Form::Nonblocking, d).unwrap()));
                let (x, r) = e.comm_idup(d).unwrap();
                dups.push(x);
                reqs.push(Some(r));
            }
            e.waitall(&reqs).unwrap();
            let rn = e.comm_remote_size(d).unwrap();
            for &x in &dups {
                let mut sends = Vec::new();
                for j in 0..rn {
                    sends.push(Some(
                        e.isend(
                            crate::request::SendMode::Standard,
                            &ints([me as i32]),
                            1,
                            INT,
                            Dest::Rank(j),
                            0,
                            x,
                        )
                        .unwrap(),
                    ));
                }
                for j in 0..rn {
                    let (got, _) = e.recv(1, INT, Source::Rank(j), Tag::Value(0), x).unwrap();
                    let want = if me < k { k + j } else { j };
                    assert_eq!(got, ints([want as i32]));
                }
                e.waitall(&sends).unwrap();
            }
        });
    }
}

/// MPICH's comm_create_group_idup: rank 0 creates a communicator from a
/// group (blocking) and then starts a nonblocking dup, the other ranks in
/// the opposite order; both communicators must come out and work.
#[test]
fn a_blocking_creation_and_an_idup_in_opposite_orders_both_finish() {
    for n in 2..=4u32 {
        run_world(n, 64, |e| {
            let g = e.comm_group(W).unwrap();
            let (made, dup, req) = if e.rank() == 0 {
                let made = e.comm_create_group(W, g, 0).unwrap();
                let (dup, req) = e.comm_idup(W).unwrap();
                (made, dup, req)
            } else {
                let (dup, req) = e.comm_idup(W).unwrap();
                (e.comm_create_group(W, g, 0).unwrap(), dup, req)
            };
            e.waitall(&[Some(req)]).unwrap();
            assert_ne!(made, dup);
            e.barrier(dup).unwrap();
            e.barrier(made).unwrap();
            e.comm_free(dup).unwrap();
            e.comm_free(made).unwrap();
        });
    }
}

/// MPICH's threads/comm/comm_create_group_threads, as concurrent tasks:
/// each rank runs four creations from groups on four duplicates of world
/// at once (started in a different order on each rank) and a duplicate of
/// MPI_COMM_SELF, then a barrier on each new communicator, ten times over.
#[test]
fn concurrent_creations_on_several_communicators_and_self_dups_finish() {
    for n in [2u32, 4] {
        run_world(n, 64, |e| {
            let me = e.rank();
            let comms: Vec<CommId> = (0..4).map(|_| e.comm_dup(W).unwrap()).collect();
            for _round in 0..10 {
                let order: Vec<usize> = if me % 2 == 0 {
                    vec![0, 1, 2, 3]
                } else {
                    vec![3, 1, 0, 2]
                };
                let mut reqs = vec![None; 4];
                for &i in &order {
                    let g = e.comm_group(comms[i]).unwrap();
                    reqs[i] = Some(e.start_comm_create_group(comms[i], g, i as i32).unwrap());
                }
                let d = e.start_comm_dup(CommId::SELF).unwrap();
                let mut made = Vec::new();
                for r in reqs.into_iter().flatten() {
                    made.push(e.wait_comm(r).unwrap().unwrap());
                }
                let sd = e.wait_comm(d).unwrap().unwrap();
                for &c in &made {
                    e.barrier(c).unwrap();
                    e.comm_free(c).unwrap();
                }
                e.barrier(sd).unwrap();
                e.comm_free(sd).unwrap();
            }
        });
    }
}

/// A blocking MPI_COMM_SELF duplicate while this rank's first round of
/// another creation holds the eager blocks, waiting for a rank that itself
/// first duplicates MPI_COMM_SELF behind a creation the first rank joins
/// only later (threads/comm/comm_create_group_threads hung so): a round
/// alone goes on to the main mask at once after its first round.
#[test]
fn a_self_duplicate_does_not_wait_for_a_pending_first_round() {
    run_world(2, 64, |e| {
        let me = e.rank();
        let a = e.comm_dup(W).unwrap();
        let b = e.comm_dup(W).unwrap();
        let ((first, t1), (second, t2)) = if me == 0 {
            ((a, 1), (b, 2))
        } else {
            ((b, 2), (a, 1))
        };
        let g = e.comm_group(W).unwrap();
        let r1 = e.start_comm_create_group(first, g, t1).unwrap();
        let sd = e.comm_dup(CommId::SELF).unwrap();
        let r2 = e.start_comm_create_group(second, g, t2).unwrap();
        let c1 = e.wait_comm(r1).unwrap().unwrap();
        let c2 = e.wait_comm(r2).unwrap().unwrap();
        // The communicators made from a, then from b, then the own one.
        let (from_a, from_b) = if me == 0 { (c1, c2) } else { (c2, c1) };
        for c in [from_a, from_b, sd] {
            e.barrier(c).unwrap();
        }
    });
}
