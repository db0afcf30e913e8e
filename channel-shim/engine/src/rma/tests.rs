//! Active-target one-sided communication on 1..=5 ranks over the
//! in-memory network: every result is computed here from the pattern the
//! ranks wrote.

use super::origin::{OriginBuf, TargetSpec};
use super::{Flavor, WinId};
use crate::comm::CommId;
use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::engine::EngineConfig;
use crate::envelope::CallCode;
use crate::error::MpiError;
use crate::mem_transport::{run_world, run_world_with, MemTransport};
use crate::op::{BuiltinOp, OpId};
use crate::rendezvous::tests::Reported;
use crate::Engine;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);
const DOUBLE: DatatypeId = DatatypeId::Builtin(B::Double);

type E = Engine<MemTransport>;

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn to_ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// A window over `init` (displacement unit `unit`).
fn window(e: &mut E, init: Vec<u8>, unit: u32) -> WinId {
    e.win_create(Box::new(init), 0, unit, Flavor::Create, W)
        .unwrap()
}

/// Frees `win` and returns its final contents.
fn free(e: &mut E, win: WinId) -> Vec<u8> {
    match e.win_free(win).unwrap() {
        super::memory::WinMemory::Fixed(m) => m.bytes().to_vec(),
        super::memory::WinMemory::Dynamic(_) => Vec::new(),
    }
}

fn origin(data: Vec<u8>, count: usize, dt: DatatypeId) -> OriginBuf {
    OriginBuf {
        mem: Box::new(data),
        count,
        dt,
    }
}

fn at(rank: u32, disp: i64, count: usize, dt: DatatypeId) -> TargetSpec {
    TargetSpec {
        rank: Some(rank),
        disp,
        count,
        dt,
    }
}

#[test]
fn puts_and_gets_between_fences_reach_every_window() {
    for n in 1..=5u32 {
        let out = run_world(n, 1 << 20, |e| {
            let me = e.rank();
            let win = window(e, ints(vec![-1; n as usize]), 4);
            e.win_fence(win).unwrap();
            for t in 0..n {
                let v = ints([(me * 10 + t) as i32]);
                e.put(origin(v, 1, INT), at(t, me as i64, 1, INT), win)
                    .unwrap();
            }
            e.win_fence(win).unwrap();
            // Read the next rank's whole window.
            let (mem, got) = Reported::new(4 * n as usize, 0);
            let result = OriginBuf {
                mem,
                count: n as usize,
                dt: INT,
            };
            e.get(result, at((me + 1) % n, 0, n as usize, INT), win)
                .unwrap();
            e.win_fence(win).unwrap();
            let read = to_ints(&got.lock().unwrap().take().unwrap());
            (to_ints(&free(e, win)), read)
        });
        for (t, (mine, read)) in out.iter().enumerate() {
            let want: Vec<i32> = (0..n as i32).map(|o| o * 10 + t as i32).collect();
            assert_eq!(mine, &want, "n={n} window of {t}");
            let next = (t as i32 + 1) % n as i32;
            let want: Vec<i32> = (0..n as i32).map(|o| o * 10 + next).collect();
            assert_eq!(read, &want, "n={n} read by {t}");
        }
    }
}

#[test]
fn accumulates_combine_every_origin_and_fetch_and_op_hands_out_each_value_once() {
    for n in 1..=5u32 {
        let out = run_world(n, 1 << 20, |e| {
            let me = e.rank() as i32;
            // [sum, max, replace target, counter]
            let win = window(e, ints([0, i32::MIN, 0, 0]), 4);
            e.win_fence(win).unwrap();
            let acc = |e: &mut E, disp, v: i32, op| {
                e.accumulate(
                    origin(ints([v]), 1, INT),
                    at(0, disp, 1, INT),
                    OpId::Builtin(op),
                    win,
                )
                .unwrap()
            };
            acc(e, 0, me + 1, BuiltinOp::Sum);
            acc(e, 1, 7 * me, BuiltinOp::Max);
            let (mem, got) = Reported::new(4, 0);
            let result = OriginBuf {
                mem,
                count: 1,
                dt: INT,
            };
            e.get_accumulate(
                Some(origin(ints([1]), 1, INT)),
                result,
                at(0, 3, 1, INT),
                OpId::Builtin(BuiltinOp::Sum),
                win,
                CallCode::Fetch_and_op,
            )
            .unwrap();
            e.win_fence(win).unwrap();
            if me == 0 {
                acc(e, 2, 42, BuiltinOp::Replace);
            }
            e.win_fence(win).unwrap();
            let fetched = to_ints(&got.lock().unwrap().take().unwrap())[0];
            (to_ints(&free(e, win)), fetched)
        });
        let n = n as i32;
        assert_eq!(out[0].0, vec![n * (n + 1) / 2, 7 * (n - 1), 42, n], "n={n}");
        let mut fetched: Vec<i32> = out.iter().map(|o| o.1).collect();
        fetched.sort();
        assert_eq!(fetched, (0..n).collect::<Vec<_>>(), "n={n}");
    }
}

#[test]
fn exactly_one_compare_and_swap_wins() {
    for n in 1..=5u32 {
        let out = run_world(n, 1 << 20, |e| {
            let me = e.rank() as i32;
            let win = window(e, ints([-1]), 4);
            e.win_fence(win).unwrap();
            let (mem, got) = Reported::new(4, 0);
            e.compare_and_swap(
                origin(ints([me]), 1, INT),
                origin(ints([-1]), 1, INT),
                OriginBuf {
                    mem,
                    count: 1,
                    dt: INT,
                },
                at(0, 0, 1, INT),
                win,
            )
            .unwrap();
            e.win_fence(win).unwrap();
            let old = to_ints(&got.lock().unwrap().take().unwrap())[0];
            (to_ints(&free(e, win))[0], old)
        });
        let winner = out[0].0;
        assert!((0..n as i32).contains(&winner));
        assert_eq!(out.iter().filter(|o| o.1 == -1).count(), 1, "n={n}");
        for (r, o) in out.iter().enumerate() {
            let want = if r as i32 == winner { -1 } else { winner };
            assert_eq!(o.1, want, "n={n} rank {r}");
        }
    }
}

#[test]
fn a_strided_target_type_and_pieces_beyond_the_chunk_size_arrive_where_they_belong() {
    // 100 doubles every third slot of the target window: 800 bytes, in
    // pieces of at most 300 bytes minus the target description (72 + 33
    // for its one run group, 105 bytes): 195 bytes per put, 192 (24
    // doubles) per accumulate.
    let cfg = EngineConfig {
        rendezvous_chunk: 300,
        ..EngineConfig::default()
    };
    let out = run_world_with(2, 1 << 20, cfg, |e| {
        let me = e.rank();
        let vec = e.datatypes_mut().vector(100, 1, 3, DOUBLE).unwrap();
        e.datatypes_mut().commit(vec).unwrap();
        let init: Vec<u8> = (0..300).flat_map(|_| 1.0f64.to_ne_bytes()).collect();
        let win = window(e, init, 8);
        e.win_fence(win).unwrap();
        let data: Vec<u8> = (0..100).flat_map(|i| (i as f64).to_ne_bytes()).collect();
        let before = e.counters().messages_sent;
        if me == 0 {
            e.put(origin(data.clone(), 100, DOUBLE), at(1, 0, 1, vec), win)
                .unwrap();
            e.accumulate(
                origin(data, 100, DOUBLE),
                at(1, 1, 1, vec),
                OpId::Builtin(BuiltinOp::Sum),
                win,
            )
            .unwrap();
        }
        let sent = e.counters().messages_sent - before;
        e.win_fence(win).unwrap();
        (free(e, win), sent)
    });
    // ceil(800 / 195) put pieces and ceil(800 / 192) accumulate pieces.
    assert_eq!((out[0].1, out[1].1), (5 + 5, 0));
    let got: Vec<f64> = out[1]
        .0
        .chunks(8)
        .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    for (i, v) in got.iter().enumerate() {
        let (k, slot) = ((i / 3) as f64, i % 3);
        let want = [k, k + 1.0, 1.0][slot];
        assert_eq!(*v, want, "slot {i}");
    }
}

#[test]
fn post_start_complete_wait_passes_data_around_a_ring() {
    for n in 1..=5u32 {
        let out = run_world(n, 1 << 20, |e| {
            let me = e.rank();
            let (next, prev) = ((me + 1) % n, (me + n - 1) % n);
            let win = window(e, ints([-1]), 4);
            let to = e.groups.add(crate::group::Group { ranks: vec![next] });
            let from = e.groups.add(crate::group::Group { ranks: vec![prev] });
            e.win_post(from, win).unwrap();
            e.win_start(to, win).unwrap();
            e.put(origin(ints([me as i32]), 1, INT), at(next, 0, 1, INT), win)
                .unwrap();
            // A target outside the access epoch is refused.
            if n > 2 {
                let other = at(prev, 0, 1, INT);
                assert_eq!(
                    e.put(origin(ints([0]), 1, INT), other, win),
                    Err(MpiError::RmaSync)
                );
            }
            e.win_complete(win).unwrap();
            e.win_wait(win).unwrap();
            (to_ints(&free(e, win))[0], prev)
        });
        for (v, prev) in out {
            assert_eq!(v, prev as i32);
        }
    }
}

#[test]
fn an_operation_outside_the_target_window_fails_the_origins_fence() {
    let out = run_world(2, 1 << 20, |e| {
        let win = window(e, ints([0, 0]), 4);
        e.win_fence(win).unwrap();
        if e.rank() == 0 {
            e.put(origin(ints([1, 2]), 2, INT), at(1, 1, 2, INT), win)
                .unwrap();
        }
        let r = e.win_fence(win);
        (r, free(e, win))
    });
    assert_eq!(out[0].0, Err(MpiError::RmaRange));
    assert_eq!(out[1].0, Ok(()));
    assert_eq!(to_ints(&out[1].1), vec![0, 0]);
}

#[test]
fn a_put_and_get_of_several_default_pieces_to_oneself_and_a_neighbour() {
    const N: usize = 400_000;
    for n in 1..=2u32 {
        let out = run_world(n, 1 << 20, |e| {
            let me = e.rank();
            let next = (me + 1) % n;
            let win = window(e, vec![0; 4 * N], 4);
            e.win_fence(win).unwrap();
            let src = ints((0..N as i32).map(|i| i + 7 * me as i32));
            e.put(origin(src, N, INT), at(next, 0, N, INT), win)
                .unwrap();
            e.win_fence(win).unwrap();
            let (mem, got) = Reported::new(4 * N, 0);
            e.get(
                OriginBuf {
                    mem,
                    count: N,
                    dt: INT,
                },
                at(next, 0, N, INT),
                win,
            )
            .unwrap();
            e.win_fence(win).unwrap();
            let read = to_ints(&got.lock().unwrap().take().unwrap());
            (to_ints(&free(e, win)), read, me, (me + n - 1) % n)
        });
        for (mine, read, me, prev) in out {
            assert!(mine
                .iter()
                .enumerate()
                .all(|(i, &v)| v == i as i32 + 7 * prev as i32));
            assert!(read
                .iter()
                .enumerate()
                .all(|(i, &v)| v == i as i32 + 7 * me as i32));
        }
    }
}

#[test]
fn exclusive_locks_serialise_read_modify_write_cycles_to_the_exact_sum() {
    // Each rank, 5 times: lock rank 0 exclusively, get the counter,
    // put it back plus one, unlock. Without the locks increments would
    // be lost.
    for n in 1..=5u32 {
        let out = run_world(n, 1 << 20, |e| {
            let win = window(e, ints([0]), 4);
            for _ in 0..5 {
                e.win_lock(true, 0, 0, win).unwrap();
                let (mem, got) = Reported::new(4, 0);
                let _ = e
                    .get(
                        OriginBuf {
                            mem,
                            count: 1,
                            dt: INT,
                        },
                        at(0, 0, 1, INT),
                        win,
                    )
                    .unwrap();
                e.win_flush(Some(0), win).unwrap();
                let v = to_ints(&got.lock().unwrap().take().unwrap())[0];
                let _ = e
                    .put(origin(ints([v + 1]), 1, INT), at(0, 0, 1, INT), win)
                    .unwrap();
                e.win_unlock(0, win).unwrap();
            }
            to_ints(&free(e, win))[0]
        });
        assert_eq!(out[0], 5 * n as i32, "n={n}");
    }
}

#[test]
fn lock_all_fetch_and_op_and_request_based_operations() {
    for n in 1..=5u32 {
        let out = run_world(n, 1 << 20, |e| {
            let me = e.rank() as i32;
            let win = window(e, ints([0, -1]), 4);
            e.win_lock_all(0, win).unwrap();
            let mut reqs = Vec::new();
            for t in 0..n {
                let one = origin(ints([1]), 1, INT);
                let (mem, _) = Reported::new(4, 0);
                let res = OriginBuf {
                    mem,
                    count: 1,
                    dt: INT,
                };
                let op = e
                    .get_accumulate(
                        Some(one),
                        res,
                        at(t, 0, 1, INT),
                        OpId::Builtin(BuiltinOp::Sum),
                        win,
                        CallCode::Fetch_and_op,
                    )
                    .unwrap();
                reqs.push(e.rma_request(op));
            }
            for r in reqs {
                assert_eq!(e.wait(r).unwrap().status.error, None);
            }
            e.win_unlock_all(win).unwrap();
            e.barrier(W).unwrap();
            // Every rank added one to every counter; now each reads its
            // own counter with a request-based get under a shared lock.
            e.win_lock(false, e.rank(), 0, win).unwrap();
            let (mem, got) = Reported::new(4, 0);
            let op = e
                .get(
                    OriginBuf {
                        mem,
                        count: 1,
                        dt: INT,
                    },
                    at(e.rank(), 0, 1, INT),
                    win,
                )
                .unwrap();
            let r = e.rma_request(op);
            e.wait(r).unwrap();
            e.win_unlock(e.rank(), win).unwrap();
            // A request for an operation on MPI_PROC_NULL is complete at once.
            let none = TargetSpec {
                rank: None,
                ..at(0, 0, 1, INT)
            };
            let op = e.put(origin(ints([me]), 1, INT), none, win).unwrap();
            let r = e.rma_request(op);
            assert!(e.test(r).unwrap().is_some());
            let v = to_ints(&got.lock().unwrap().take().unwrap())[0];
            free(e, win);
            v
        });
        assert!(out.iter().all(|&v| v == n as i32), "n={n}: {out:?}");
    }
}

#[test]
fn a_dynamic_window_addresses_attached_regions_by_address() {
    let out = run_world(3, 1 << 20, |e| {
        let me = e.rank();
        let win = e.win_create_dynamic(W).unwrap();
        // Each rank "attaches" 4 ints at address 1000 × (rank + 1).
        let (mem, got) = Reported::new(16, 0);
        let start = 1000 * (me as usize + 1);
        e.win_attach(win, start, mem).unwrap();
        assert_eq!(
            e.win_attach(win, start + 8, Box::new(vec![0u8; 4])),
            Err(MpiError::RmaAttach)
        );
        e.barrier(W).unwrap();
        let next = (me + 1) % 3;
        let at_next = 1000 * (next as i64 + 1) + 4;
        e.win_lock(true, next, 0, win).unwrap();
        let _ = e
            .put(
                origin(ints([me as i32 + 1, 7]), 2, INT),
                at(next, at_next, 2, INT),
                win,
            )
            .unwrap();
        // Beyond the attached region: the target refuses it.
        let _ = e
            .put(
                origin(ints([9]), 1, INT),
                at(next, at_next + 12, 1, INT),
                win,
            )
            .unwrap();
        let r = e.win_unlock(next, win);
        assert_eq!(r, Err(MpiError::RmaRange));
        e.barrier(W).unwrap();
        e.win_detach(win, start).unwrap();
        assert_eq!(e.win_detach(win, start), Err(MpiError::RmaAttach));
        free(e, win);
        let v = to_ints(&got.lock().unwrap().take().unwrap());
        v
    });
    for (r, v) in out.iter().enumerate() {
        let prev = (r as i32 + 2) % 3;
        assert_eq!(v, &vec![0, prev + 1, 7, 0]);
    }
}

#[test]
fn win_sync_needs_a_passive_target_epoch() {
    run_world(2, 64, |e| {
        let win = window(e, ints([0; 4]), 4);
        assert_eq!(e.win_sync(win), Err(MpiError::RmaSync));
        e.win_lock_all(0, win).unwrap();
        assert_eq!(e.win_sync(win), Ok(()));
        e.win_unlock_all(win).unwrap();
        assert_eq!(e.win_sync(win), Err(MpiError::RmaSync));
        free(e, win);
    });
}

#[test]
fn operations_span_regions_attached_back_to_back_but_not_a_gap() {
    let out = run_world(2, 1 << 20, |e| {
        let me = e.rank();
        let other = 1 - me;
        let win = e.win_create_dynamic(W).unwrap();
        // Two regions of 4 ints back to back at 2000 and 2016, a third
        // after a gap of 8 bytes at 2040.
        let (a, got_a) = Reported::new(16, 0);
        let (b, got_b) = Reported::new(16, 0);
        e.win_attach(win, 2000, a).unwrap();
        e.win_attach(win, 2016, b).unwrap();
        e.win_attach(win, 2040, Box::new(vec![0u8; 16])).unwrap();
        e.barrier(W).unwrap();
        let base = 10 * (me as i32 + 1);
        e.win_lock(true, other, 0, win).unwrap();
        // Ints 2..6 of the two regions: the last two of one, first two of the other.
        let _ = e
            .put(
                origin(ints((1..=4).map(|i| base + i)), 4, INT),
                at(other, 2008, 4, INT),
                win,
            )
            .unwrap();
        e.win_flush(Some(other), win).unwrap();
        let (mem, read) = Reported::new(24, 0);
        let _ = e
            .get(
                OriginBuf {
                    mem,
                    count: 6,
                    dt: INT,
                },
                at(other, 2004, 6, INT),
                win,
            )
            .unwrap();
        e.win_flush(Some(other), win).unwrap();
        // Into the gap after the second region: refused.
        let _ = e
            .put(origin(ints([1, 2]), 2, INT), at(other, 2028, 2, INT), win)
            .unwrap();
        assert_eq!(e.win_unlock(other, win), Err(MpiError::RmaRange));
        e.barrier(W).unwrap();
        e.win_detach(win, 2000).unwrap();
        e.win_detach(win, 2016).unwrap();
        free(e, win);
        let read = to_ints(&read.lock().unwrap().take().unwrap());
        let a = to_ints(&got_a.lock().unwrap().take().unwrap());
        let b = to_ints(&got_b.lock().unwrap().take().unwrap());
        (read, a, b)
    });
    for (me, (read, a, b)) in out.into_iter().enumerate() {
        let mine = 10 * (me as i32 + 1);
        let theirs = 10 * (2 - me as i32);
        assert_eq!(a, [0, 0, theirs + 1, theirs + 2]);
        assert_eq!(b, [theirs + 3, theirs + 4, 0, 0]);
        assert_eq!(read, [0, mine + 1, mine + 2, mine + 3, mine + 4, 0]);
    }
}
