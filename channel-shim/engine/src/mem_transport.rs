//! An in-memory [`Transport`]: one endpoint per rank, connected by std mpsc
//! channels (in order per pair), with a shared logical clock. For tests of
//! the engine and of code above it.

use crate::engine::{Engine, EngineConfig};
use crate::envelope::{CallCode, Envelope, Kind};
use crate::transport::{CollectiveStart, Incoming, Transport};
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
    /// Set: collectives are timed as one operation (a stand-in for the
    /// analytic model): each call is recorded here and released at once.
    timed: Option<Vec<CallCode>>,
    /// The node of each rank (`MPI_COMM_TYPE_SHARED`).
    nodes: Vec<u32>,
    /// Messages read while looking for one-sided ones, in arrival order.
    held: std::collections::VecDeque<Incoming>,
    /// This rank's world, when not every rank (see [`run_spawned`]).
    world: Option<(u32, u32)>,
    /// The root that spawned this rank's world.
    spawned_by: Option<u32>,
    /// What a spawn asks answers: the children's world (an empty request
    /// is refused).
    children: Option<(u32, u32)>,
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
            timed: None,
            nodes: vec![0; n as usize],
            held: Default::default(),
            world: None,
            spawned_by: None,
            children: None,
        })
        .collect()
}

impl MemTransport {
    /// The collectives reported so far, when collectives are timed.
    pub fn reported(&self) -> Option<&[CallCode]> {
        self.timed.as_deref()
    }

    /// Places the ranks on nodes (`nodes[r]` is rank r's).
    pub fn set_nodes(&mut self, nodes: Vec<u32>) {
        self.nodes = nodes;
    }

    /// The shared logical clock (tests may read or advance it).
    pub fn clock(&self) -> Arc<AtomicU64> {
        self.clock.clone()
    }
}

impl Transport for MemTransport {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn world(&self) -> (u32, u32) {
        self.world.unwrap_or((0, self.size()))
    }
    fn spawned_by(&self) -> Option<u32> {
        self.spawned_by
    }
    fn spawn(&mut self, request: Vec<u8>) -> Result<(u32, u32), String> {
        match self.children {
            Some(c) if !request.is_empty() => Ok(c),
            _ => Err("refused: nothing to start".into()),
        }
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
        self.held.pop_front().or_else(|| self.rx.try_recv().ok())
    }
    fn try_recv_one_sided(&mut self) -> Option<Incoming> {
        self.held.extend(self.rx.try_iter());
        let i = self
            .held
            .iter()
            .position(|m| crate::envelope::is_one_sided_message(&m.bytes))?;
        self.held.remove(i)
    }
    fn recv_blocking(&mut self) -> Incoming {
        if let Some(m) = self.held.pop_front() {
            return m;
        }
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
    fn collective_begin(&mut self, c: &CollectiveStart) -> bool {
        let Some(calls) = &mut self.timed else {
            return false;
        };
        calls.push(c.call);
        let release = Envelope {
            kind: Kind::Control,
            flags: 0,
            call: CallCode::Other,
            src: self.rank,
            dst: self.rank,
            tag: c.tag,
            context: c.recv_context,
            seq: 0,
            sender_op: 0,
            receiver_op: 0,
            msg_len: 0,
            payload_len: 0,
        };
        let vtime_ns = self.clock.fetch_add(1, Ordering::SeqCst) + 1;
        let _ = self.txs[self.rank as usize].send(Incoming {
            src: self.rank,
            vtime_ns,
            bytes: release.encode(&[]),
        });
        true
    }
    fn node(&self) -> u32 {
        self.nodes.get(self.rank as usize).copied().unwrap_or(0)
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
    run_on(mem_network(n, eager_limit), cfg, f)
}

/// Like [`run_world`] with collectives timed as one operation each (see
/// [`Transport::collective_begin`]): returns the calls each rank reported.
pub fn run_world_timed<F>(n: u32, eager_limit: u64, f: F) -> Vec<Vec<CallCode>>
where
    F: Fn(&mut Engine<MemTransport>) + Sync,
{
    let mut net = mem_network(n, eager_limit);
    for t in &mut net {
        t.timed = Some(Vec::new());
    }
    run_on(net, EngineConfig::default(), |e| {
        f(e);
        e.transport().reported().unwrap_or_default().to_vec()
    })
}

/// Like [`run_world`] with rank r on node `nodes[r]`.
pub fn run_world_on_nodes<R, F>(nodes: &[u32], eager_limit: u64, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&mut Engine<MemTransport>) -> R + Sync,
{
    let mut net = mem_network(nodes.len() as u32, eager_limit);
    for t in &mut net {
        t.set_nodes(nodes.to_vec());
    }
    run_on(net, EngineConfig::default(), f)
}

/// Like [`run_world`] for `parents` ranks whose `root` spawns `children`
/// more: world ranks `parents..parents + children`, already running in a
/// world of their own, join their parents first
/// ([`Engine::join_parent`]) and then run `f` too.
pub fn run_spawned<R, F>(parents: u32, children: u32, root: u32, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&mut Engine<MemTransport>) -> R + Sync,
{
    let mut net = mem_network(parents + children, 1 << 16);
    for t in &mut net {
        if t.rank < parents {
            t.world = Some((0, parents));
            t.children = Some((parents, children));
        } else {
            t.world = Some((parents, children));
            t.spawned_by = Some(root);
        }
    }
    run_on(net, EngineConfig::default(), |e| {
        e.join_parent().expect("a child joins its parents");
        f(e)
    })
}

/// Runs `f` on the ranks of `net`, one thread each.
fn run_on<R, F>(net: Vec<MemTransport>, cfg: EngineConfig, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&mut Engine<MemTransport>) -> R + Sync,
{
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = net
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
