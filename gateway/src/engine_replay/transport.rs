//! The transport of a replayed rank's engine. A rank runs in turns, as a
//! coroutine on the scheduler's thread: the scheduler resumes it with its
//! clock and every message delivered to it so far; the rank's engine then
//! sends, polls and reads the clock locally (nothing else moves while it
//! runs: the network waits), and suspends — handing back the messages it
//! sent — when its program computes or when its engine must wait for a
//! message; the coroutine returns when the program ends. A switch costs a
//! few nanoseconds, against tens of microseconds for handing a turn
//! between threads.

use corosensei::Yielder;
use shim_engine::transport::{Incoming, Transport};
use std::collections::VecDeque;

/// Why a rank hands its turn back.
#[derive(Debug)]
pub enum Then {
    /// Its program computes for this long (ns of recorded time).
    Compute(u64),
    /// Its test or probe completed or found nothing: its clock moves on
    /// by its host's poll cost.
    Poll,
    /// Its engine waits for the next delivered message.
    Recv,
    /// Its program ended (MPI_Finalize).
    Done,
    /// It cannot go on (one sentence).
    Failed(String),
}

/// A rank's turn, handed back to the scheduler.
#[derive(Debug)]
pub struct Yield {
    /// The messages it sent during the turn, in order: (destination world
    /// rank, bytes), all at its clock.
    pub sends: Vec<(u32, Vec<u8>)>,
    /// Why it stopped.
    pub then: Then,
}

/// The scheduler's resumption of a rank.
#[derive(Debug)]
pub struct Resume {
    /// The rank's virtual time, ns.
    pub clock_ns: u64,
    /// Messages delivered to it since its last turn, in delivery order.
    pub delivered: Vec<Incoming>,
}

/// A replayed rank's connection to the scheduler.
pub struct VirtualTransport<'y> {
    rank: u32,
    size: u32,
    eager_limit: u64,
    node: u32,
    clock_ns: u64,
    inbox: VecDeque<Incoming>,
    sends: Vec<(u32, Vec<u8>)>,
    yielder: &'y Yielder<Resume, Yield>,
}

impl<'y> VirtualTransport<'y> {
    /// The transport of world rank `rank` of `size`, on simulated host
    /// `node`, with eager limit `eager_limit` bytes, first resumed with
    /// `first`, suspending through `yielder`.
    pub fn new(
        (rank, size, node): (u32, u32, u32),
        eager_limit: u64,
        yielder: &'y Yielder<Resume, Yield>,
        first: Resume,
    ) -> VirtualTransport<'y> {
        let mut t = VirtualTransport {
            rank,
            size,
            eager_limit,
            node,
            clock_ns: 0,
            inbox: VecDeque::new(),
            sends: Vec::new(),
            yielder,
        };
        t.resumed(first);
        t
    }

    fn resumed(&mut self, r: Resume) {
        self.clock_ns = r.clock_ns;
        self.inbox.extend(r.delivered);
    }

    /// Hands the turn back (with the messages sent) and waits for the next.
    pub fn hand_back(&mut self, then: Then) {
        let y = self.last_turn(then);
        let r = self.yielder.suspend(y);
        self.resumed(r);
    }

    /// The rank's last turn: the messages sent and why it ends.
    pub fn last_turn(&mut self, then: Then) -> Yield {
        Yield {
            sends: std::mem::take(&mut self.sends),
            then,
        }
    }
}

impl std::fmt::Debug for VirtualTransport<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualTransport")
            .field("rank", &self.rank)
            .field("clock_ns", &self.clock_ns)
            .finish()
    }
}

impl Transport for VirtualTransport<'_> {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.size
    }
    fn send(&mut self, dst: u32, bytes: Vec<u8>) {
        self.sends.push((dst, bytes));
    }
    fn try_recv(&mut self) -> Option<Incoming> {
        self.inbox.pop_front()
    }
    fn recv_blocking(&mut self) -> Incoming {
        loop {
            if let Some(m) = self.inbox.pop_front() {
                return m;
            }
            self.hand_back(Then::Recv);
        }
    }
    fn now_srt_ns(&self) -> u64 {
        self.clock_ns
    }
    fn eager_limit(&self) -> u64 {
        self.eager_limit
    }
    fn node(&self) -> u32 {
        self.node
    }
}
