//! An in-memory [`Transport`]: one endpoint per rank, connected by std mpsc
//! channels (in order per pair), with a shared logical clock. For tests of
//! the engine and of code above it.

use crate::engine::{Engine, EngineConfig};
use crate::transport::{Incoming, Transport};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

/// One rank's endpoint.
#[derive(Debug)]
pub struct MemTransport {
    rank: u32,
    txs: Vec<Sender<Incoming>>,
    rx: Receiver<Incoming>,
    clock: Arc<AtomicU64>,
    eager_limit: u64,
}

/// Endpoints for `n` ranks sharing one logical clock. The clock ticks by
/// one on every `now_srt_ns` and every `send` (a message's `vtime_ns` is the
/// tick of its send), so virtual times follow the real order of events.
pub fn mem_network(n: u32, eager_limit: u64) -> Vec<MemTransport> {
    let clock = Arc::new(AtomicU64::new(0));
    let (txs, rxs): (Vec<_>, Vec<_>) = (0..n).map(|_| channel()).unzip();
    rxs.into_iter()
        .enumerate()
        .map(|(rank, rx)| MemTransport {
            rank: rank as u32,
            txs: txs.clone(),
            rx,
            clock: clock.clone(),
            eager_limit,
        })
        .collect()
}

impl MemTransport {
    /// The shared logical clock (tests may read or advance it).
    pub fn clock(&self) -> Arc<AtomicU64> {
        self.clock.clone()
    }
}

impl Transport for MemTransport {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.txs.len() as u32
    }
    fn send(&mut self, dst: u32, bytes: Vec<u8>) {
        let vtime_ns = self.clock.fetch_add(1, Ordering::SeqCst) + 1;
        let _ = self.txs[dst as usize].send(Incoming {
            src: self.rank,
            vtime_ns,
            bytes,
        });
    }
    fn try_recv(&mut self) -> Option<Incoming> {
        self.rx.try_recv().ok()
    }
    fn recv_blocking(&mut self) -> Incoming {
        match self.rx.recv_timeout(Duration::from_secs(60)) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => {
                panic!("rank {} waited 60 s for a message (deadlock?)", self.rank)
            }
            Err(RecvTimeoutError::Disconnected) => panic!("rank {}: network gone", self.rank),
        }
    }
    fn now_srt_ns(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::SeqCst) + 1
    }
    fn eager_limit(&self) -> u64 {
        self.eager_limit
    }
}

/// Runs `f` on `n` ranks, one thread each, with engines over an in-memory
/// network, and returns the results in rank order.
pub fn run_world<R, F>(n: u32, eager_limit: u64, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&mut Engine<MemTransport>) -> R + Sync,
{
    run_world_with(n, eager_limit, EngineConfig::default(), f)
}

/// Like [`run_world`] with an engine configuration.
pub fn run_world_with<R, F>(n: u32, eager_limit: u64, cfg: EngineConfig, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&mut Engine<MemTransport>) -> R + Sync,
{
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = mem_network(n, eager_limit)
            .into_iter()
            .map(|t| {
                s.spawn(move || {
                    let mut e = Engine::new(t, cfg);
                    let r = f(&mut e);
                    // Keep the endpoint alive until every rank is done so that
                    // late messages (e.g. acks) never hit a closed channel.
                    (r, e)
                })
            })
            .collect();
        let out: Vec<(R, Engine<MemTransport>)> = handles
            .into_iter()
            .map(|h| h.join().expect("rank panicked"))
            .collect();
        out.into_iter().map(|(r, _)| r).collect()
    })
}
