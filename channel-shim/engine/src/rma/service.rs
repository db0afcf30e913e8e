//! One-sided progress while the program computes: the part of a rank an
//! RDMA NIC would be. A passive-target origin must not wait for its
//! target's next MPI call, so the shim serves arrived one-sided messages
//! (requests, answers, lock traffic) from a thread of its own whenever the
//! program is not inside MPI (see docs/architecture.md). Everything else —
//! point-to-point messages, collectives' — stays queued for the program's
//! next MPI call, so matching and collective progress are unchanged.

use crate::transport::Transport;
use crate::Engine;

impl<T: Transport> Engine<T> {
    /// Whether this process has a window (or an MPI-IO file, whose shared
    /// file pointer is one), i.e. whether one-sided messages can arrive.
    pub fn has_windows(&self) -> bool {
        !self.rma.windows.is_empty()
    }

    /// Handles every one-sided message that is due now and returns how
    /// many there were; the answers are stamped with the arrival time of
    /// the request they answer (see [`Transport::try_recv_one_sided`]).
    pub fn serve_one_sided(&mut self) -> u32 {
        let mut served = 0;
        while let Some(m) = self.t.try_recv_one_sided() {
            self.handle_taken(m);
            served += 1;
        }
        self.t.end_one_sided_service();
        served
    }

    /// When the earliest one-sided message already delivered but not yet
    /// due will be, ns of scaled time.
    pub fn next_one_sided_srt_ns(&self) -> Option<u64> {
        self.t.next_one_sided_srt_ns()
    }
}

#[cfg(test)]
mod tests {
    use crate::datatype::{BuiltinType as B, DatatypeId};
    use crate::mem_transport::run_world;
    use crate::request::{Dest, SendMode};
    use crate::rma::origin::{OriginBuf, TargetSpec};
    use crate::rma::{memory::WinMemory, Flavor};
    use crate::{CommId, Source, Tag};

    const W: CommId = CommId::WORLD;
    const INT: DatatypeId = DatatypeId::Builtin(B::Int);

    /// Rank 1 makes no MPI call while rank 0 sends it a message, then
    /// locks its window, puts and unlocks: serving one-sided messages
    /// alone handles exactly the lock, the put and the unlock (3), applies
    /// the put, and leaves the point-to-point message, sent first, for the
    /// next receive.
    #[test]
    fn serving_handles_the_one_sided_messages_and_leaves_the_others() {
        let out = run_world(2, 1 << 20, |e| {
            let win = e
                .win_create(Box::new(vec![0u8; 4]), 0, 4, Flavor::Create, W)
                .unwrap();
            assert!(e.has_windows());
            e.barrier(W).unwrap();
            if e.rank() == 0 {
                e.send(
                    SendMode::Standard,
                    &7i32.to_ne_bytes(),
                    1,
                    INT,
                    Dest::Rank(1),
                    5,
                    W,
                )
                .unwrap();
                e.win_lock(true, 1, 0, win).unwrap();
                let data = OriginBuf {
                    mem: Box::new(42i32.to_ne_bytes().to_vec()),
                    count: 1,
                    dt: INT,
                };
                let target = TargetSpec {
                    rank: Some(1),
                    disp: 0,
                    count: 1,
                    dt: INT,
                };
                e.put(data, target, win).unwrap();
                e.win_unlock(1, win).unwrap();
            } else {
                let mut served = 0;
                let start = std::time::Instant::now();
                while served < 3 {
                    served += e.serve_one_sided();
                    assert!(start.elapsed().as_secs() < 60, "served {served} of 3");
                    std::thread::yield_now();
                }
                let (d, _) = e.recv(1, INT, Source::Rank(0), Tag::Value(5), W).unwrap();
                assert_eq!(d, 7i32.to_ne_bytes());
            }
            e.barrier(W).unwrap();
            match e.win_free(win).unwrap() {
                WinMemory::Fixed(m) => m.bytes().to_vec(),
                WinMemory::Dynamic(_) => Vec::new(),
            }
        });
        assert_eq!(out[1], 42i32.to_ne_bytes());
    }
}
