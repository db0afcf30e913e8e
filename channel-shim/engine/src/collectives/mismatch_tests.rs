//! Collectives whose ranks disagree on the message size: the error classes
//! Debian's MPICH 4.0 returns on each rank (tests/mpi/errors.c checks the
//! same against it), and that every rank finishes the call without
//! panicking and without leaving a message behind.

use super::CollInput;
use crate::comm::CommId;
use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::engine::{CollThresholds, EngineConfig};
use crate::error::MpiError;
use crate::mem_transport::{run_world_with, MemTransport};
use crate::op::{BuiltinOp, OpId};
use crate::Engine;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);
const SUM: OpId = OpId::Builtin(BuiltinOp::Sum);

type E = Engine<MemTransport>;

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// `count` ints of value `rank`.
fn mine(rank: u32, count: usize) -> Vec<u8> {
    ints(std::iter::repeat(rank as i32).take(count))
}

/// Default thresholds (binomial bcast, recursive doubling allreduce, ...).
fn default_config() -> EngineConfig {
    EngineConfig::default()
}

/// Thresholds that pick the other algorithms whose message pattern does
/// not depend on the sizes: Bruck allgather and alltoall, all-at-once alltoall.
fn small_config() -> EngineConfig {
    let coll = CollThresholds {
        alltoall_short: u64::MAX,
        alltoall_medium: u64::MAX,
        allgather_short: u64::MAX,
        allgather_long: 0,
        ..CollThresholds::default()
    };
    EngineConfig {
        coll,
        ..EngineConfig::default()
    }
}

/// Thresholds for ring allgather and pairwise alltoall.
fn long_config() -> EngineConfig {
    let coll = CollThresholds {
        alltoall_short: 0,
        alltoall_medium: 0,
        allgather_short: 0,
        allgather_long: 0,
        ..CollThresholds::default()
    };
    EngineConfig {
        coll,
        ..EngineConfig::default()
    }
}

/// Runs `f` on 1..=8 ranks with eager and rendezvous messages; afterwards
/// a matching allreduce is right and no message is left on any rank.
fn each_world(cfg: EngineConfig, f: impl Fn(&mut E) + Sync) {
    for eager in [1 << 20, 4] {
        for n in 1..=8 {
            run_world_with(n, eager, cfg, |e| {
                f(e);
                let n = e.size();
                let sum = e.allreduce(CollInput::Buf(&mine(1, 1)), 1, INT, SUM, W);
                assert_eq!(sum, Ok(mine(n, 1)), "allreduce afterwards on {n} ranks");
                e.barrier(W).unwrap();
                assert_eq!((e.unexpected_len(), e.posted_len()), (0, 0), "{n} ranks");
            });
        }
    }
}

/// MPICH's classes when root 0 broadcasts more than the others expect: its
/// children (powers of two) truncate, the ranks they forward to fail too.
fn bcast_class_for_longer_root(rank: u32) -> Result<(), MpiError> {
    match rank {
        0 => Ok(()),
        r if r.is_power_of_two() => Err(MpiError::Truncate),
        _ => Err(MpiError::Other),
    }
}

#[test]
fn a_longer_broadcast_truncates_at_the_roots_children_and_fails_downstream() {
    each_world(default_config(), |e| {
        let me = e.rank();
        let count = if me == 0 { 2 } else { 1 };
        let got = e.bcast(&mine(7, count), count, INT, 0, W).map(|_| ());
        assert_eq!(got, bcast_class_for_longer_root(me), "rank {me}");
        let got = e.bcast(&mine(9, 1), 1, INT, 0, W);
        assert_eq!(got, Ok(mine(9, 1)), "bcast afterwards on rank {me}");
    });
}

#[test]
fn a_shorter_broadcast_is_a_size_mismatch_everywhere_but_the_root() {
    each_world(default_config(), |e| {
        let me = e.rank();
        let count = if me == 0 { 1 } else { 2 };
        let got = e.bcast(&mine(7, count), count, INT, 0, W).map(|_| ());
        let want = if me == 0 {
            Ok(())
        } else {
            Err(MpiError::Other)
        };
        assert_eq!(got, want, "rank {me}");
    });
}

#[test]
fn a_root_reducing_fewer_elements_truncates_alone() {
    for cfg in [default_config(), small_config()] {
        each_world(cfg, |e| {
            let me = e.rank();
            let count = if me == 0 { 1 } else { 2 };
            let got = e.reduce(CollInput::Buf(&mine(1, count)), count, INT, SUM, 0, W);
            let want = if me == 0 && e.size() > 1 {
                Err(MpiError::Truncate)
            } else {
                Ok(())
            };
            assert_eq!(got.map(|_| ()), want, "rank {me}");
        });
    }
}

#[test]
fn a_root_gathering_less_than_is_sent_truncates_alone() {
    for cfg in [default_config(), small_config()] {
        each_world(cfg, |e| {
            let (me, n) = (e.rank(), e.size());
            let room = vec![0u8; 4 * n as usize];
            let got = if me == 0 {
                e.gather(CollInput::InPlace(&room), 0, INT, 1, INT, 0, W)
            } else {
                e.gather(CollInput::Buf(&mine(me, 2)), 2, INT, 1, INT, 0, W)
            };
            let want = if me == 0 && n > 1 {
                Err(MpiError::Truncate)
            } else {
                Ok(())
            };
            assert_eq!(got.map(|_| ()), want, "rank {me} of {n}");
        });
    }
}

#[test]
fn longer_allgather_and_alltoall_blocks_truncate_everywhere_shorter_ones_pass() {
    for cfg in [default_config(), small_config(), long_config()] {
        each_world(cfg, |e| {
            let n = e.size() as usize;
            let sent = mine(e.rank(), 2 * n);
            let got = e.allgather(CollInput::Buf(&sent[..8]), 2, INT, 1, INT, W);
            assert_eq!(got.map(|_| ()), Err(MpiError::Truncate));
            let got = e.alltoall(CollInput::Buf(&sent), 2, INT, 1, INT, W);
            assert_eq!(got.map(|_| ()), Err(MpiError::Truncate));
            let got = e.allgather(CollInput::Buf(&sent[..4]), 1, INT, 2, INT, W);
            assert_eq!(got.map(|v| v.len()), Ok(8 * n));
            let got = e.alltoall(CollInput::Buf(&sent[..4 * n]), 1, INT, 2, INT, W);
            assert_eq!(got.map(|v| v.len()), Ok(8 * n));
        });
    }
}

/// Every collective with a count that depends on the rank (2 or 3
/// elements): whatever each rank returns, all finish and the world stays
/// usable (checked by `each_world`).
fn rank_dependent_counts(e: &mut E) {
    let (me, n) = (e.rank(), e.size() as usize);
    let k = 2 + me as usize % 2;
    let buf = mine(me, 3 * n);
    let counts = vec![k; n];
    let displs: Vec<i64> = (0..n as i64).map(|i| 3 * i).collect();
    let _ = e.gather(CollInput::Buf(&buf[..4 * k]), k, INT, k, INT, 0, W);
    let _ = e.scatter(&buf[..4 * k * n], k, INT, Some((k, INT)), 0, W);
    let _ = e.allgather(CollInput::Buf(&buf[..4 * k]), k, INT, k, INT, W);
    let _ = e.alltoall(CollInput::Buf(&buf[..4 * k * n]), k, INT, k, INT, W);
    let _ = e.gatherv(
        CollInput::Buf(&buf[..4 * k]),
        k,
        INT,
        &counts,
        &displs,
        INT,
        0,
        W,
    );
    let _ = e.scatterv(&buf, &counts, &displs, INT, Some((k, INT)), 0, W);
    let _ = e.allgatherv(
        CollInput::Buf(&buf[..4 * k]),
        k,
        INT,
        &counts,
        &displs,
        INT,
        W,
    );
    let _ = e.alltoallv(
        CollInput::Buf(&buf),
        &counts,
        &displs,
        INT,
        &counts,
        &displs,
        INT,
        W,
    );
    let _ = e.reduce(CollInput::Buf(&buf[..4 * k]), k, INT, SUM, 0, W);
    let _ = e.scan(CollInput::Buf(&buf[..4 * k]), k, INT, SUM, W);
    let _ = e.exscan(CollInput::Buf(&buf[..4 * k]), k, INT, SUM, W);
    let _ = e.reduce_scatter_block(CollInput::Buf(&buf[..4 * k * n]), k, INT, SUM, W);
}

#[test]
fn rank_dependent_counts_never_panic_or_leave_messages_behind() {
    for cfg in [default_config(), small_config(), long_config()] {
        each_world(cfg, rank_dependent_counts);
    }
    each_world(default_config(), |e| {
        let k = 2 + e.rank() as usize % 2;
        let _ = e.bcast(&mine(1, k), k, INT, 0, W);
        let _ = e.allreduce(CollInput::Buf(&mine(1, k)), k, INT, SUM, W);
    });
}
