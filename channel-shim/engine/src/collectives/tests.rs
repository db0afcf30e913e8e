//! Every collective on 1..=7 ranks (and 8 for Bruck alltoall), under
//! configurations that select each algorithm, against references computed
//! here; non-commutative user ops check the reduction order.

use super::CollInput;
use crate::comm::CommId;
use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::engine::{CollThresholds, EngineConfig};
use crate::mem_transport::{run_world_with, MemTransport};
use crate::op::{BuiltinOp, OpId};
use crate::Engine;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);

type E = Engine<MemTransport>;

fn configs() -> Vec<(u64, EngineConfig)> {
    let d = EngineConfig::default();
    let small = CollThresholds {
        bcast_short: 0,
        bcast_long: u64::MAX,
        bcast_min_procs: 1,
        allreduce_short: 0,
        alltoall_short: u64::MAX,
        alltoall_medium: u64::MAX,
        allgather_short: u64::MAX,
        allgather_long: 0,
        inter_short: u64::MAX,
    };
    let long = CollThresholds {
        bcast_short: 0,
        bcast_long: 0,
        bcast_min_procs: 1,
        allreduce_short: 0,
        alltoall_short: 0,
        alltoall_medium: 0,
        allgather_short: 0,
        allgather_long: 0,
        inter_short: 0,
    };
    vec![
        (1 << 20, d),
        (16, d),
        (16, EngineConfig { coll: small, ..d }),
        (1 << 20, EngineConfig { coll: long, ..d }),
    ]
}

fn each_world(max_n: u32, f: impl Fn(&mut E) + Sync) {
    for (eager, cfg) in configs() {
        for n in 1..=max_n {
            run_world_with(n, eager, cfg, &f);
        }
    }
}

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn val(rank: u32, i: usize) -> i32 {
    (rank as i32 + 1) * 1000 + i as i32
}

fn contrib(rank: u32, count: usize) -> Vec<u8> {
    ints((0..count).map(|i| val(rank, i)))
}

/// Affine maps x -> a x + b as (a, b) pairs; "x then y" is associative and
/// not commutative.
fn compose(x: (i32, i32), y: (i32, i32)) -> (i32, i32) {
    (
        y.0.wrapping_mul(x.0),
        y.0.wrapping_mul(x.1).wrapping_add(y.1),
    )
}

fn affine(rank: u32, i: usize) -> (i32, i32) {
    (
        2 + (rank as i32 + i as i32) % 3,
        rank as i32 * 10 + i as i32,
    )
}

fn affine_bytes(rank: u32, count: usize) -> Vec<u8> {
    ints((0..count).flat_map(|i| {
        let (a, b) = affine(rank, i);
        [a, b]
    }))
}

fn affine_fold(ranks: impl Iterator<Item = u32>, count: usize) -> Vec<u8> {
    let ranks: Vec<u32> = ranks.collect();
    ints((0..count).flat_map(|i| {
        let mut acc = affine(ranks[0], i);
        for &r in &ranks[1..] {
            acc = compose(acc, affine(r, i));
        }
        [acc.0, acc.1]
    }))
}

/// The affine datatype (2 ints) and its non-commutative op.
fn affine_setup(e: &mut E) -> (DatatypeId, OpId) {
    let dt = e.datatypes_mut().contiguous(2, INT).unwrap();
    e.datatypes_mut().commit(dt).unwrap();
    let op = e.ops_mut().create(
        Box::new(|i: &[u8], io: &mut [u8], count, _, _, _| {
            let get =
                |b: &[u8], k: usize| i32::from_ne_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
            for k in 0..count {
                let x = (get(i, 2 * k), get(i, 2 * k + 1));
                let y = (get(io, 2 * k), get(io, 2 * k + 1));
                let z = compose(x, y);
                io[8 * k..8 * k + 4].copy_from_slice(&z.0.to_ne_bytes());
                io[8 * k + 4..8 * k + 8].copy_from_slice(&z.1.to_ne_bytes());
            }
        }),
        false,
    );
    (dt, op)
}

fn sum_of(ranks: impl Iterator<Item = u32> + Clone, count: usize) -> Vec<u8> {
    ints((0..count).map(|i| {
        ranks
            .clone()
            .map(|r| val(r, i))
            .fold(0i32, |a, b| a.wrapping_add(b))
    }))
}

const SUM: OpId = OpId::Builtin(BuiltinOp::Sum);

#[test]
fn barrier_and_bcast() {
    each_world(7, |e| {
        e.barrier(W).unwrap();
        let n = e.size();
        for count in [0usize, 1, 37, 3000] {
            for root in 0..n {
                let buf = if e.rank() == root {
                    contrib(root, count)
                } else {
                    Vec::new()
                };
                let got = e.bcast(&buf, count, INT, root, W).unwrap();
                assert_eq!(got, contrib(root, count), "count {count} root {root}");
            }
        }
        e.barrier(W).unwrap();
    });
}

#[test]
fn reduce_and_allreduce() {
    each_world(7, |e| {
        let (n, me) = (e.size(), e.rank());
        let (adt, aop) = affine_setup(e);
        for count in [1usize, 3, 100] {
            for root in 0..n {
                let got = e
                    .reduce(
                        CollInput::Buf(&contrib(me, count)),
                        count,
                        INT,
                        SUM,
                        root,
                        W,
                    )
                    .unwrap();
                assert_eq!(got, (me == root).then(|| sum_of(0..n, count)));
                let got = e
                    .reduce(
                        CollInput::Buf(&affine_bytes(me, count)),
                        count,
                        adt,
                        aop,
                        root,
                        W,
                    )
                    .unwrap();
                assert_eq!(got, (me == root).then(|| affine_fold(0..n, count)));
            }
            let got = e
                .allreduce(CollInput::Buf(&contrib(me, count)), count, INT, SUM, W)
                .unwrap();
            assert_eq!(got, sum_of(0..n, count));
            let got = e
                .allreduce(CollInput::InPlace(&contrib(me, count)), count, INT, SUM, W)
                .unwrap();
            assert_eq!(got, sum_of(0..n, count));
            let got = e
                .allreduce(CollInput::Buf(&affine_bytes(me, count)), count, adt, aop, W)
                .unwrap();
            assert_eq!(got, affine_fold(0..n, count), "n {n} count {count}");
        }
        let max = e
            .allreduce(
                CollInput::Buf(&ints([me as i32])),
                1,
                INT,
                BuiltinOp::Max.into(),
                W,
            )
            .unwrap();
        assert_eq!(max, ints([n as i32 - 1]));
    });
}

#[test]
fn scans() {
    each_world(7, |e| {
        let me = e.rank();
        let (adt, aop) = affine_setup(e);
        for count in [1usize, 5] {
            let got = e
                .scan(CollInput::Buf(&contrib(me, count)), count, INT, SUM, W)
                .unwrap();
            assert_eq!(got, sum_of(0..me + 1, count));
            let got = e
                .scan(CollInput::Buf(&affine_bytes(me, count)), count, adt, aop, W)
                .unwrap();
            assert_eq!(got, affine_fold(0..me + 1, count));
            let got = e
                .exscan(CollInput::Buf(&affine_bytes(me, count)), count, adt, aop, W)
                .unwrap();
            assert_eq!(got, (me > 0).then(|| affine_fold(0..me, count)));
            let got = e
                .exscan(CollInput::InPlace(&contrib(me, count)), count, INT, SUM, W)
                .unwrap();
            assert_eq!(got, (me > 0).then(|| sum_of(0..me, count)));
        }
    });
}

#[test]
fn reduce_scatters() {
    each_world(7, |e| {
        let (n, me) = (e.size(), e.rank());
        let (adt, aop) = affine_setup(e);
        let rc = 3usize;
        let total = rc * n as usize;
        let got = e
            .reduce_scatter_block(CollInput::Buf(&contrib(me, total)), rc, INT, SUM, W)
            .unwrap();
        let all = sum_of(0..n, total);
        assert_eq!(got, all[me as usize * rc * 4..(me as usize + 1) * rc * 4]);
        let got = e
            .reduce_scatter_block(CollInput::Buf(&affine_bytes(me, total)), rc, adt, aop, W)
            .unwrap();
        let all = affine_fold(0..n, total);
        assert_eq!(got, all[me as usize * rc * 8..(me as usize + 1) * rc * 8]);
        // Uneven counts, some zero.
        let rcounts: Vec<usize> = (0..n as usize).map(|i| (i * 2) % 5).collect();
        let total: usize = rcounts.iter().sum();
        let start: usize = rcounts[..me as usize].iter().sum();
        let got = e
            .reduce_scatter(
                CollInput::InPlace(&contrib(me, total)),
                &rcounts,
                INT,
                SUM,
                W,
            )
            .unwrap();
        let all = sum_of(0..n, total);
        assert_eq!(got, all[start * 4..(start + rcounts[me as usize]) * 4]);
        let got = e
            .reduce_scatter(
                CollInput::Buf(&affine_bytes(me, total)),
                &rcounts,
                adt,
                aop,
                W,
            )
            .unwrap();
        let all = affine_fold(0..n, total);
        assert_eq!(got, all[start * 8..(start + rcounts[me as usize]) * 8]);
    });
}

#[test]
fn gathers_and_scatters() {
    each_world(7, |e| {
        let (n, me) = (e.size(), e.rank());
        for count in [1usize, 40] {
            let everyone: Vec<u8> = (0..n).flat_map(|r| contrib(r, count)).collect();
            for root in 0..n {
                let got = e
                    .gather(
                        CollInput::Buf(&contrib(me, count)),
                        count,
                        INT,
                        count,
                        INT,
                        root,
                        W,
                    )
                    .unwrap();
                assert_eq!(got, (me == root).then(|| everyone.clone()));
                // In place at the root: its block already sits in the receive buffer.
                let input = if me == root {
                    let mut region = vec![0u8; everyone.len()];
                    let at = root as usize * count * 4;
                    region[at..at + count * 4].copy_from_slice(&contrib(me, count));
                    region
                } else {
                    contrib(me, count)
                };
                let inp = if me == root {
                    CollInput::InPlace(&input)
                } else {
                    CollInput::Buf(&input)
                };
                let got = e.gather(inp, count, INT, count, INT, root, W).unwrap();
                assert_eq!(got, (me == root).then(|| everyone.clone()));
                let sendbuf = if me == root {
                    everyone.clone()
                } else {
                    Vec::new()
                };
                let got = e
                    .scatter(&sendbuf, count, INT, Some((count, INT)), root, W)
                    .unwrap();
                assert_eq!(got, Some(contrib(me, count)));
                let recv = if me == root { None } else { Some((count, INT)) };
                let got = e.scatter(&sendbuf, count, INT, recv, root, W).unwrap();
                assert_eq!(got, (me != root).then(|| contrib(me, count)));
            }
            let got = e
                .allgather(
                    CollInput::Buf(&contrib(me, count)),
                    count,
                    INT,
                    count,
                    INT,
                    W,
                )
                .unwrap();
            assert_eq!(got, everyone);
            let mut region = vec![0u8; everyone.len()];
            let at = me as usize * count * 4;
            region[at..at + count * 4].copy_from_slice(&contrib(me, count));
            let got = e
                .allgather(CollInput::InPlace(&region), count, INT, count, INT, W)
                .unwrap();
            assert_eq!(got, everyone);
        }
        // v variants: rank i contributes i + 1 ints, placed in reverse order.
        let counts: Vec<usize> = (0..n as usize).map(|i| i + 1).collect();
        let mut displs = vec![0i64; n as usize];
        let mut at = 0i64;
        for i in (0..n as usize).rev() {
            displs[i] = at;
            at += counts[i] as i64 + 1;
        }
        let mine = contrib(me, counts[me as usize]);
        for root in 0..n {
            let got = e
                .gatherv(
                    CollInput::Buf(&mine),
                    counts[me as usize],
                    INT,
                    &counts,
                    &displs,
                    INT,
                    root,
                    W,
                )
                .unwrap();
            if me == root {
                let want: Vec<Vec<u8>> = (0..n).map(|r| contrib(r, counts[r as usize])).collect();
                assert_eq!(got.unwrap(), want);
            } else {
                assert!(got.is_none());
            }
            let sendbuf = if me == root {
                let mut b = vec![0u8; at as usize * 4];
                for r in 0..n as usize {
                    let d = displs[r] as usize * 4;
                    b[d..d + counts[r] * 4].copy_from_slice(&contrib(r as u32, counts[r]));
                }
                b
            } else {
                Vec::new()
            };
            let got = e
                .scatterv(
                    &sendbuf,
                    &counts,
                    &displs,
                    INT,
                    Some((counts[me as usize], INT)),
                    root,
                    W,
                )
                .unwrap();
            assert_eq!(got, Some(mine.clone()));
        }
        let got = e
            .allgatherv(
                CollInput::Buf(&mine),
                counts[me as usize],
                INT,
                &counts,
                &displs,
                INT,
                W,
            )
            .unwrap();
        let want: Vec<Vec<u8>> = (0..n).map(|r| contrib(r, counts[r as usize])).collect();
        assert_eq!(got, want);
    });
}

fn a2a_val(src: u32, dst: u32, i: usize) -> i32 {
    (src * 100 + dst) as i32 * 1000 + i as i32
}

#[test]
fn alltoalls() {
    each_world(8, |e| {
        let (n, me) = (e.size(), e.rank());
        for count in [1usize, 3, 100] {
            let send = ints((0..n).flat_map(|d| (0..count).map(move |i| a2a_val(me, d, i))));
            let want = ints((0..n).flat_map(|s| (0..count).map(move |i| a2a_val(s, me, i))));
            let got = e
                .alltoall(CollInput::Buf(&send), count, INT, count, INT, W)
                .unwrap();
            assert_eq!(got, want, "n {n} count {count}");
            let got = e
                .alltoall(CollInput::InPlace(&send), count, INT, count, INT, W)
                .unwrap();
            assert_eq!(got, want);
        }
        // v: rank s sends (s + d) % 3 ints to d, blocks in order with a gap of one.
        let k = |s: u32, d: u32| ((s + d) % 3) as usize;
        let scounts: Vec<usize> = (0..n).map(|d| k(me, d)).collect();
        let mut sdispls = Vec::new();
        let mut at = 0i64;
        for &c in &scounts {
            sdispls.push(at);
            at += c as i64 + 1;
        }
        let mut send = vec![0u8; at as usize * 4];
        for d in 0..n {
            let o = sdispls[d as usize] as usize * 4;
            send[o..o + scounts[d as usize] * 4]
                .copy_from_slice(&ints((0..k(me, d)).map(|i| a2a_val(me, d, i))));
        }
        let rcounts: Vec<usize> = (0..n).map(|s| k(s, me)).collect();
        let rdispls: Vec<i64> = (0..n as i64).map(|i| i * 3).collect();
        let blocks: Vec<(i64, usize)> = sdispls
            .iter()
            .copied()
            .zip(scounts.iter().copied())
            .collect();
        let sp = e.datatypes().span_blocks(INT, &blocks).unwrap();
        let region = &send[sp.base as usize..sp.base as usize + sp.len];
        let got = e
            .alltoallv(
                CollInput::Buf(region),
                &scounts,
                &sdispls,
                INT,
                &rcounts,
                &rdispls,
                INT,
                W,
            )
            .unwrap();
        let want: Vec<Vec<u8>> = (0..n)
            .map(|s| ints((0..k(s, me)).map(|i| a2a_val(s, me, i))))
            .collect();
        assert_eq!(got, want);
    });
}
