use super::*;
use crate::datatype::BuiltinType as B;
use crate::mem_transport::run_world;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);
const BYTE: DatatypeId = DatatypeId::Builtin(B::Byte);

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

#[test]
fn eager_and_rendezvous_round_trip() {
    let sizes = [0usize, 1, 16, 17, 1000, 100_000];
    let out = run_world(2, 64, |e| {
        let mut got = Vec::new();
        for (i, &n) in sizes.iter().enumerate() {
            let data = ints((0..n as i32).map(|x| x * 3 + i as i32));
            if e.rank() == 0 {
                e.send(
                    SendMode::Standard,
                    &data,
                    n,
                    INT,
                    Dest::Rank(1),
                    i as i32,
                    W,
                )
                .unwrap();
            } else {
                let (d, s) = e
                    .recv(n, INT, Source::Rank(0), Tag::Value(i as i32), W)
                    .unwrap();
                assert_eq!(d, data);
                assert_eq!(s.count_bytes, 4 * n as u64);
                assert_eq!(s.source, Source::Rank(0));
                assert_eq!(
                    e.datatypes().get_count(INT, s.count_bytes).unwrap(),
                    Some(n as u64)
                );
                got.push(d.len());
            }
        }
        (got, e.counters())
    });
    let (got, c1) = &out[1];
    assert_eq!(got, &[0, 4, 64, 68, 4000, 400_000]);
    // 3 eager (<= 64 bytes) + 3 rendezvous (RTS + data) arrive at rank 1.
    assert_eq!(c1.messages_received, 3 + 3 * 2);
    // Rank 1 sent 3 CTS.
    assert_eq!(c1.messages_sent, 3);
    assert_eq!(out[0].1.messages_sent, 9);
}

#[test]
fn synchronous_send_waits_for_match() {
    for n in [4usize, 1000] {
        run_world(2, 64, |e| {
            let data = ints(0..n as i32);
            if e.rank() == 0 {
                let r = e
                    .isend(SendMode::Synchronous, &data, n, INT, Dest::Rank(1), 1, W)
                    .unwrap();
                for _ in 0..5 {
                    assert!(e.test(r).unwrap().is_none());
                }
                e.send(SendMode::Standard, &[], 0, INT, Dest::Rank(1), 2, W)
                    .unwrap();
                let c = e.wait(r).unwrap();
                assert!(c.freed);
            } else {
                e.recv(0, INT, Source::Rank(0), Tag::Value(2), W).unwrap();
                let (d, _) = e.recv(n, INT, Source::Rank(0), Tag::Value(1), W).unwrap();
                assert_eq!(d, data);
            }
        });
    }
}

/// The seed paper's Tag algorithm through the engine: sender sends n
/// messages with tags 0..n; receiver receives them in order or in reverse.
#[test]
fn matching_micro_benchmark_end_to_end() {
    for n in 1..=90u64 {
        for reverse in [false, true] {
            for preposted in [false, true] {
                let out = run_world(2, 1 << 20, |e| {
                    let tags: Vec<i32> = if reverse {
                        (0..n as i32).rev().collect()
                    } else {
                        (0..n as i32).collect()
                    };
                    if e.rank() == 0 {
                        if preposted {
                            e.recv(0, BYTE, Source::Rank(1), Tag::Value(1000), W)
                                .unwrap();
                        }
                        for t in 0..n as i32 {
                            e.send(SendMode::Standard, &[1u8; 8], 8, BYTE, Dest::Rank(1), t, W)
                                .unwrap();
                        }
                        None
                    } else {
                        let before = e.counters();
                        if !preposted {
                            while e.unexpected_len() < n as usize {
                                e.progress(true);
                            }
                        }
                        let reqs: Vec<Option<RequestId>> = tags
                            .iter()
                            .map(|&t| {
                                Some(e.irecv(8, BYTE, Source::Rank(0), Tag::Value(t), W).unwrap())
                            })
                            .collect();
                        if preposted {
                            e.send(SendMode::Standard, &[], 0, BYTE, Dest::Rank(0), 1000, W)
                                .unwrap();
                        }
                        let cs = e.waitall(&reqs).unwrap();
                        for (c, &t) in cs.iter().zip(&tags) {
                            assert_eq!(c.status.tag, Tag::Value(t));
                        }
                        let after = e.counters();
                        Some((
                            after.unsuccessful_matches - before.unsuccessful_matches,
                            after.expected - before.expected,
                            after.unexpected - before.unexpected,
                        ))
                    }
                });
                let (unsucc, exp, unexp) = out[1].unwrap();
                let want = if reverse { n * (n - 1) / 2 } else { 0 };
                assert_eq!(
                    unsucc, want,
                    "n={n} reverse={reverse} preposted={preposted}"
                );
                if preposted {
                    assert_eq!((exp, unexp), (n, 0));
                } else {
                    assert_eq!((exp, unexp), (0, n));
                }
            }
        }
    }
}

#[test]
fn truncation_is_reported() {
    for n in [10usize, 100] {
        run_world(2, 64, |e| {
            if e.rank() == 0 {
                e.send(
                    SendMode::Standard,
                    &ints(0..n as i32),
                    n,
                    INT,
                    Dest::Rank(1),
                    0,
                    W,
                )
                .unwrap();
            } else {
                let (d, s) = e.recv(5, INT, Source::Any, Tag::Any, W).unwrap();
                assert_eq!(s.error, Some(MpiError::Truncate));
                assert_eq!(d, ints(0..5));
                assert_eq!(s.count_bytes, 20);
            }
        });
    }
}

#[test]
fn wildcards_and_statuses() {
    run_world(4, 64, |e| {
        let me = e.rank();
        if me > 0 {
            e.send(
                SendMode::Standard,
                &ints([me as i32]),
                1,
                INT,
                Dest::Rank(0),
                10 + me as i32,
                W,
            )
            .unwrap();
        } else {
            let mut seen = Vec::new();
            for _ in 0..3 {
                let (d, s) = e.recv(1, INT, Source::Any, Tag::Any, W).unwrap();
                let Source::Rank(r) = s.source else { panic!() };
                assert_eq!(s.tag, Tag::Value(10 + r as i32));
                assert_eq!(d, ints([r as i32]));
                seen.push(r);
            }
            seen.sort();
            assert_eq!(seen, vec![1, 2, 3]);
        }
    });
}

#[test]
fn proc_null_and_errors() {
    run_world(2, 64, |e| {
        e.send(SendMode::Standard, &[], 0, INT, Dest::ProcNull, 0, W)
            .unwrap();
        let (d, s) = e.recv(4, INT, Source::ProcNull, Tag::Any, W).unwrap();
        assert!(d.is_empty());
        assert_eq!(s, Status::proc_null());
        assert_eq!(
            e.send(SendMode::Standard, &[], 0, INT, Dest::Rank(2), 0, W),
            Err(MpiError::Rank)
        );
        assert_eq!(
            e.send(SendMode::Standard, &[], 0, INT, Dest::Rank(0), -3, W),
            Err(MpiError::Tag)
        );
        assert_eq!(
            e.send(
                SendMode::Standard,
                &[],
                0,
                INT,
                Dest::Rank(0),
                0,
                CommId(77)
            ),
            Err(MpiError::Comm)
        );
        assert_eq!(e.wait(RequestId(999)), Err(MpiError::Request));
        let v = e.datatypes_mut().vector(2, 1, 2, INT).unwrap();
        assert_eq!(
            e.send(SendMode::Standard, &[0; 12], 1, v, Dest::Rank(0), 0, W),
            Err(MpiError::Datatype)
        );
        assert_eq!(
            e.send(SendMode::Standard, &[0; 4], 2, INT, Dest::Rank(0), 0, W),
            Err(MpiError::Buffer)
        );
    });
}

#[test]
fn persistent_requests() {
    run_world(2, 64, |e| {
        if e.rank() == 0 {
            let r = e
                .send_init(SendMode::Standard, 30, INT, Dest::Rank(1), 5, W)
                .unwrap();
            for i in 0..3 {
                e.start(r, Some(&ints((0..30).map(|x| x + i)))).unwrap();
                let c = e.wait(r).unwrap();
                assert!(!c.freed);
            }
            // Inactive persistent requests complete at once with an empty status.
            assert_eq!(e.wait(r).unwrap(), Completion::inactive());
            e.request_free(r).unwrap();
            assert!(e.wait(r).is_err());
        } else {
            let r = e
                .recv_init(30, INT, Source::Rank(0), Tag::Value(5), W)
                .unwrap();
            for i in 0..3 {
                e.start(r, None).unwrap();
                assert_eq!(e.start(r, None), Err(MpiError::Request));
                let c = e.wait(r).unwrap();
                assert_eq!(c.data.unwrap(), ints((0..30).map(|x| x + i)));
            }
        }
    });
}

#[test]
fn cancel_probe_and_any_some() {
    run_world(2, 64, |e| {
        if e.rank() == 0 {
            let r = e.irecv(1, INT, Source::Rank(1), Tag::Value(99), W).unwrap();
            e.cancel(r).unwrap();
            let c = e.wait(r).unwrap();
            assert!(c.status.cancelled);
            for t in 0..3 {
                e.send(
                    SendMode::Standard,
                    &ints(0..t + 1),
                    (t + 1) as usize,
                    INT,
                    Dest::Rank(1),
                    t,
                    W,
                )
                .unwrap();
            }
        } else {
            let s = e.probe(Source::Any, Tag::Value(2), W).unwrap();
            assert_eq!(s.count_bytes, 12);
            assert_eq!(s.source, Source::Rank(0));
            assert!(e.iprobe(Source::Any, Tag::Value(7), W).unwrap().is_none());
            let reqs: Vec<Option<RequestId>> = vec![
                None,
                Some(e.irecv(3, INT, Source::Rank(0), Tag::Value(2), W).unwrap()),
                Some(e.irecv(3, INT, Source::Rank(0), Tag::Value(0), W).unwrap()),
                Some(e.irecv(3, INT, Source::Rank(0), Tag::Value(1), W).unwrap()),
            ];
            let (i, c) = e.waitany(&reqs).unwrap().unwrap();
            let mut done = vec![i];
            assert!(c.freed);
            let rest: Vec<Option<RequestId>> = reqs
                .iter()
                .enumerate()
                .map(|(k, r)| if done.contains(&k) { None } else { *r })
                .collect();
            let some = e.waitsome(&rest).unwrap().unwrap();
            done.extend(some.iter().map(|(k, _)| *k));
            let rest: Vec<Option<RequestId>> = reqs
                .iter()
                .enumerate()
                .map(|(k, r)| if done.contains(&k) { None } else { *r })
                .collect();
            let all = e.waitall(&rest).unwrap();
            assert_eq!(all.len(), 4);
            assert_eq!(e.waitany(&[None, None]).unwrap(), None);
            assert_eq!(e.testany(&[None]).unwrap(), TestAny::NoneActive);
            assert_eq!(e.testsome(&[None]).unwrap(), None);
        }
    });
}

#[test]
fn buffered_send_completes_locally() {
    run_world(2, 64, |e| {
        if e.rank() == 0 {
            let n = 1000;
            assert_eq!(
                e.send(
                    SendMode::Buffered,
                    &ints(0..n),
                    n as usize,
                    INT,
                    Dest::Rank(1),
                    0,
                    W
                ),
                Err(MpiError::Buffer)
            );
            e.buffer_attach(0x1000, 10_000).unwrap();
            // Rendezvous-sized, but the receiver posts only after our go.
            e.send(
                SendMode::Buffered,
                &ints(0..n),
                n as usize,
                INT,
                Dest::Rank(1),
                0,
                W,
            )
            .unwrap();
            e.send(SendMode::Standard, &[], 0, INT, Dest::Rank(1), 1, W)
                .unwrap();
            assert_eq!(e.buffer_detach().unwrap(), (0x1000, 10_000));
        } else {
            e.recv(0, INT, Source::Rank(0), Tag::Value(1), W).unwrap();
            let (d, _) = e
                .recv(1000, INT, Source::Rank(0), Tag::Value(0), W)
                .unwrap();
            assert_eq!(d, ints(0..1000));
        }
    });
}

#[test]
fn sendrecv_ring_and_self() {
    let out = run_world(5, 64, |e| {
        let (me, n) = (e.rank(), e.size());
        let data = ints((0..50).map(|x| x + me as i32));
        let (d, s) = e
            .sendrecv(
                &data,
                50,
                INT,
                Dest::Rank((me + 1) % n),
                3,
                50,
                INT,
                Source::Rank((me + n - 1) % n),
                Tag::Value(3),
                W,
            )
            .unwrap();
        assert_eq!(s.source, Source::Rank((me + n - 1) % n));
        let (d2, _) = e
            .sendrecv(
                &[7, 0, 0, 0],
                1,
                INT,
                Dest::Rank(0),
                0,
                1,
                INT,
                Source::Rank(0),
                Tag::Any,
                CommId::SELF,
            )
            .unwrap();
        assert_eq!(d2, ints([7]));
        d
    });
    for (me, d) in out.iter().enumerate() {
        assert_eq!(d, &ints((0..50).map(|x| x + ((me + 4) % 5) as i32)));
    }
}

/// Persistent requests name their datatype at every start: a type the
/// program freed stays usable by them, its number is not given to a new
/// type meanwhile, and it goes with the last request.
#[test]
fn persistent_requests_keep_their_freed_types() {
    run_world(2, 16, |e| {
        let v = e.datatypes_mut().vector(4, 1, 3, INT).unwrap();
        e.datatypes_mut().commit(v).unwrap();
        let r = if e.rank() == 0 {
            e.send_init(SendMode::Standard, 2, v, Dest::Rank(1), 3, W)
        } else {
            e.recv_init(2, v, Source::Rank(0), Tag::Value(3), W)
        }
        .unwrap();
        assert_eq!(e.persistent_buffer(r), Some((2, v)));
        e.set_request_buffer_address(r, 0x1000).unwrap();
        assert_eq!(e.request_buffer_address(r), Some(0x1000));
        assert_eq!(e.request_comm(r), Some(W));
        e.type_free(v).unwrap();
        let other = e.datatypes_mut().contiguous(2, INT).unwrap();
        assert_ne!(other, v);
        for round in 0..3 {
            if e.rank() == 0 {
                // Two vectors of extent 10 ints: 80 bytes of memory.
                e.start_with(r, Box::new(ints(0..20))).unwrap();
                e.wait(r).unwrap();
            } else {
                e.start(r, None).unwrap();
                let c = e.wait(r).unwrap();
                assert!(!c.freed && c.status.error.is_none(), "round {round}");
                assert_eq!(c.data, Some(ints([0, 3, 6, 9, 10, 13, 16, 19])));
            }
        }
        e.request_free(r).unwrap();
        assert!(e.datatypes().info(v).is_err());
        assert_eq!(e.datatypes().derived_count(), 1);
    });
}
