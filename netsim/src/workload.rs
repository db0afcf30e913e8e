//! Synthetic workloads that drive a [`Simulator`] in pure virtual time, with
//! no MPI processes: for quick what-if questions and for benchmarks.

use crate::base::rng::SimRng;
use crate::base::time::Nanos;
use crate::model::Delivery;
use crate::sim::Simulator;
use bytes::Bytes;

/// The communication pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Rank 0 sends to rank 1, which answers; `iters` round trips.
    PingPong,
    /// Every rank sends `size` bytes to every other rank; the next of
    /// `iters` rounds starts at a rank once it has received the whole round.
    AllToAll,
    /// Every rank sends to its right neighbour and waits for its left one;
    /// `iters` shifts.
    Ring,
    /// Every rank sends `iters` messages, one at a time, to seeded random
    /// other ranks.
    Random,
}

impl std::str::FromStr for Pattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Pattern, String> {
        Ok(match s {
            "pingpong" => Pattern::PingPong,
            "alltoall" => Pattern::AllToAll,
            "ring" => Pattern::Ring,
            "random" => Pattern::Random,
            _ => {
                return Err(format!(
                    "unknown workload '{s}'; choose pingpong, alltoall, ring or random"
                ))
            }
        })
    }
}

/// A workload to run.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Pattern.
    pub pattern: Pattern,
    /// Bytes per message.
    pub size: usize,
    /// Round trips, rounds, shifts or messages per rank.
    pub iters: u64,
    /// Seed of the random pattern.
    pub seed: u64,
    /// Check every delivered message byte for byte.
    pub verify: bool,
}

/// What a workload run measured.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkloadOutcome {
    /// Virtual time of the last delivery.
    pub runtime_ns: u64,
    /// Messages delivered.
    pub messages: u64,
    /// Payload bytes delivered.
    pub bytes: u64,
    /// Messages whose content differed from what was sent (must be 0).
    pub corrupted: u64,
    /// Events the simulator ran, including trailing ACKs and timers.
    pub events: u64,
}

/// The content of every synthetic message: byte i is a hash of i, so a
/// misplaced or duplicated segment changes the message.
pub fn pattern_bytes(len: usize) -> Bytes {
    try_pattern_bytes(len).expect("memory for the message")
}

/// [`pattern_bytes`], or an error sentence when the memory for it cannot
/// be allocated.
pub fn try_pattern_bytes(len: usize) -> Result<Bytes, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|e| {
        format!(
            "cannot allocate {len} bytes for the workload's message ({e}); give a smaller --size"
        )
    })?;
    v.extend((0..len).map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 24) as u8));
    Ok(v.into())
}

/// Bytes of message data a workload holds at most at once: the one
/// payload every message shares, plus a copy of each message being
/// reassembled by its receiver (at most one per connection that can carry
/// a message at the same time).
pub fn peak_message_bytes(w: &Workload, ranks: usize) -> u128 {
    let n = ranks as u128;
    let receiving = match w.pattern {
        Pattern::PingPong => 1,
        Pattern::Ring | Pattern::Random => n,
        Pattern::AllToAll => n * n.saturating_sub(1),
    };
    w.size as u128 * (1 + receiving)
}

struct Driver {
    w: Workload,
    n: usize,
    payload: Bytes,
    rng: SimRng,
    /// received[r][j]: messages rank r got from rank j.
    received: Vec<Vec<u64>>,
    round: Vec<u64>,
    sent: Vec<u64>,
}

impl Driver {
    fn send(&mut self, sim: &mut Simulator, src: usize, dst: usize) {
        sim.inject(src as u32, dst as u32, self.payload.clone(), sim.now())
            .expect("workload ranks are valid and routable");
    }

    fn start_round(&mut self, sim: &mut Simulator, r: usize) {
        match self.w.pattern {
            Pattern::AllToAll => {
                for k in 1..self.n {
                    self.send(sim, r, (r + k) % self.n);
                }
            }
            Pattern::Ring => self.send(sim, r, (r + 1) % self.n),
            Pattern::Random => {
                let mut d = self.rng.below(self.n as u64 - 1) as usize;
                if d >= r {
                    d += 1;
                }
                self.send(sim, r, d);
            }
            Pattern::PingPong => {}
        }
        self.sent[r] += 1;
    }

    fn start(&mut self, sim: &mut Simulator) {
        if self.w.iters == 0 {
            return;
        }
        match self.w.pattern {
            Pattern::PingPong => self.send(sim, 0, 1),
            _ => {
                for r in 0..self.n {
                    self.start_round(sim, r);
                }
            }
        }
    }

    fn on_delivery(&mut self, sim: &mut Simulator, d: &Delivery) {
        let (src, dst) = (d.src as usize, d.dst as usize);
        self.received[dst][src] += 1;
        match self.w.pattern {
            Pattern::PingPong => {
                if dst == 1 {
                    self.send(sim, 1, 0);
                } else if self.received[0][1] < self.w.iters {
                    self.send(sim, 0, 1);
                }
            }
            Pattern::AllToAll | Pattern::Ring => {
                let done = |me: &Self| match me.w.pattern {
                    Pattern::Ring => me.received[dst][(dst + me.n - 1) % me.n],
                    _ => (0..me.n)
                        .filter(|&j| j != dst)
                        .map(|j| me.received[dst][j])
                        .min()
                        .unwrap_or(0),
                };
                while done(self) > self.round[dst] {
                    self.round[dst] += 1;
                    if self.round[dst] < self.w.iters {
                        self.start_round(sim, dst);
                    }
                }
            }
            Pattern::Random => {
                // The sender may send its next message once this one arrived.
                if self.sent[src] < self.w.iters {
                    self.start_round(sim, src);
                }
            }
        }
    }
}

/// Runs `w` on `sim` until every message is delivered and the network is
/// quiet. Errors name what is wrong with the request, or why the network
/// stopped the run (a partition that outlasted its timeout: see
/// [`Simulator::failure`]).
///
/// ```
/// use netsim::workload::{run, Pattern, Workload};
/// use netsim::{NetworkConfig, Simulator};
/// let cfg = NetworkConfig::from_toml_str(
///     "[link_defaults]\nrate = '1Gbps'\ndelay = '500us'\n\
///      [[host]]\nname = 'a'\n[[host]]\nname = 'b'\n[[link]]\na = 'a'\nb = 'b'\n",
///     "example",
/// )?;
/// let mut sim = Simulator::from_config(&cfg, "example", 2, false)?;
/// let w = Workload { pattern: Pattern::PingPong, size: 32, iters: 100, seed: 1, verify: true };
/// let out = run(&mut sim, &w)?;
/// assert_eq!((out.messages, out.bytes, out.corrupted), (200, 6400, 0));
/// // Each one-way trip: 0.5 ms of propagation plus 880 ns for its
/// // 110-byte frame (32 B + 78 B of headers, preamble and gap) at 1 Gbps.
/// let one_way = 500_000 + 880;
/// // Each direction has its own connection, opened once: SYN and SYN-ACK
/// // (86 B, 688 ns, each crossing the link), then the handshake's last
/// // ACK (a 84-byte minimum frame, 672 ns) just ahead of the first data.
/// let handshake = 2 * (500_000 + 688) + 672;
/// // A receiver acknowledges every second segment at once, and that ACK
/// // leaves just ahead of its reply: 50 times on one connection, 49 on
/// // the other (the last reply is answered by nobody).
/// let acks = (50 + 49) * 672;
/// assert_eq!(out.runtime_ns, 200 * one_way + 2 * handshake + acks);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(sim: &mut Simulator, w: &Workload) -> Result<WorkloadOutcome, String> {
    run_with(sim, w, FLUSH_EVERY_EVENTS, |_| Ok(()))
}

/// Events between two calls of the `flush` hook of [`run_with`].
pub const FLUSH_EVERY_EVENTS: u64 = 1 << 16;

/// Like [`run`], calling `flush` every `every` events and at the end, so the
/// caller can move capture bytes to storage and keep memory bounded.
pub fn run_with(
    sim: &mut Simulator,
    w: &Workload,
    every: u64,
    mut flush: impl FnMut(&mut Simulator) -> Result<(), String>,
) -> Result<WorkloadOutcome, String> {
    let n = sim.rank_hosts().len();
    if n < 2 {
        return Err(format!(
            "the {:?} workload needs at least 2 ranks; the job has {n}",
            w.pattern
        ));
    }
    if w.size == 0 {
        return Err("--size must be at least 1 byte".into());
    }
    let payload = try_pattern_bytes(w.size)?;
    let mut drv = Driver {
        w: w.clone(),
        n,
        payload: payload.clone(),
        rng: SimRng::new(w.seed),
        received: vec![vec![0; n]; n],
        round: vec![0; n],
        sent: vec![0; n],
    };
    drv.start(sim);
    let mut out = WorkloadOutcome::default();
    let mut batch = Vec::new();
    let mut last = Nanos::ZERO;
    let mut since_flush = 0u64;
    while sim.step().is_some() {
        since_flush += 1;
        if since_flush >= every {
            since_flush = 0;
            flush(sim)?;
        }
        sim.take_deliveries(&mut batch);
        for d in batch.drain(..) {
            out.messages += 1;
            out.bytes += d.bytes.len() as u64;
            if w.verify && d.bytes != payload {
                out.corrupted += 1;
            }
            last = d.delivered_at;
            drv.on_delivery(sim, &d);
        }
    }
    flush(sim)?;
    if let Some(f) = sim.failure() {
        return Err(f.message.clone());
    }
    out.runtime_ns = last.0;
    out.events = sim.events_run();
    Ok(out)
}
