//! The transport of a replayed rank's engine: every send, receive and
//! clock reading is a question to the replay's scheduler, which answers in
//! virtual time. One rank runs at a time, so a replay is deterministic.

use shim_engine::transport::{Incoming, Transport};
use std::sync::mpsc::{Receiver, Sender};

/// What a rank's thread asks the scheduler.
#[derive(Debug)]
pub enum Ask {
    /// Hand `bytes` to the network for world rank `dst`, now.
    Send {
        /// Destination world rank.
        dst: u32,
        /// The message.
        bytes: Vec<u8>,
    },
    /// The next delivered message, if there is one now.
    TryRecv,
    /// The next delivered message, waiting for it in virtual time.
    Recv,
    /// The rank's virtual time.
    Now,
    /// The program computes for this long (ns of virtual time): other
    /// ranks and the network run meanwhile.
    Compute(u64),
    /// The program ended (MPI_Finalize).
    Done,
}

/// The scheduler's answer.
#[derive(Debug)]
pub enum Answer {
    /// Go on.
    Go,
    /// A delivered message (None: nothing now).
    Message(Option<Incoming>),
    /// Virtual time, ns.
    Now(u64),
}

/// Unwinds a rank's thread when the scheduler gave the replay up (it
/// dropped the rank's answer channel); carries no message.
#[derive(Debug)]
pub struct Abandoned;

/// A replayed rank's connection to the scheduler.
#[derive(Debug)]
pub struct VirtualTransport {
    rank: u32,
    size: u32,
    eager_limit: u64,
    node: u32,
    asks: Sender<(u32, Ask)>,
    answers: Receiver<Answer>,
}

impl VirtualTransport {
    /// The transport of world rank `rank` of `size`, on simulated host
    /// `node`, with the recorded eager limit.
    pub fn new(
        rank: u32,
        size: u32,
        node: u32,
        eager_limit: u64,
        asks: Sender<(u32, Ask)>,
        answers: Receiver<Answer>,
    ) -> VirtualTransport {
        VirtualTransport {
            rank,
            size,
            eager_limit,
            node,
            asks,
            answers,
        }
    }

    /// The transport with eager limit `bytes`.
    pub fn set_eager_limit(mut self, bytes: u64) -> VirtualTransport {
        self.eager_limit = bytes;
        self
    }

    /// Asks and waits for the answer; unwinds the thread (without a panic
    /// message) if the scheduler is gone.
    pub fn ask(&self, ask: Ask) -> Answer {
        if self.asks.send((self.rank, ask)).is_err() {
            std::panic::resume_unwind(Box::new(Abandoned));
        }
        match self.answers.recv() {
            Ok(a) => a,
            Err(_) => std::panic::resume_unwind(Box::new(Abandoned)),
        }
    }

    /// Waits for the scheduler's first go.
    pub fn wait_for_start(&self) {
        if self.answers.recv().is_err() {
            std::panic::resume_unwind(Box::new(Abandoned));
        }
    }

    fn message(&self, ask: Ask) -> Option<Incoming> {
        match self.ask(ask) {
            Answer::Message(m) => m,
            _ => None,
        }
    }
}

impl Transport for VirtualTransport {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.size
    }
    fn send(&mut self, dst: u32, bytes: Vec<u8>) {
        self.ask(Ask::Send { dst, bytes });
    }
    fn try_recv(&mut self) -> Option<Incoming> {
        self.message(Ask::TryRecv)
    }
    fn recv_blocking(&mut self) -> Incoming {
        match self.message(Ask::Recv) {
            Some(m) => m,
            // The scheduler answers a blocking receive only with a message.
            None => std::panic::resume_unwind(Box::new(Abandoned)),
        }
    }
    fn now_srt_ns(&self) -> u64 {
        match self.ask(Ask::Now) {
            Answer::Now(t) => t,
            _ => 0,
        }
    }
    fn eager_limit(&self) -> u64 {
        self.eager_limit
    }
    fn node(&self) -> u32 {
        self.node
    }
}
