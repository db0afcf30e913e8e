//! One rank's connection as the core sees it: where it is in the protocol,
//! what the rank said (its rank, pid, counters, clock offset, what it
//! waits for), and its bounded input and output byte buffers. The socket
//! itself belongs to the shell ([`crate::realtime`]), which hands the core
//! the bytes it read ([`RankConnection::received`]) and writes what the core
//! queued ([`RankConnection::flush_to`]).

use mpinetsim_protocol::{DecodeError, Frame, RankCounters, LENGTH_PREFIX, MAX_HELLO_BODY};
use mpinetsim_shm::horizon::Horizon;
use std::collections::VecDeque;
use std::io::{self, Write};

/// Where a connection is in the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnState {
    /// Accepted; the first frame must be Hello with the job's secret.
    AwaitHello,
    /// Welcomed; sending and receiving messages.
    Active,
    /// MPI_Finalize done.
    Finalized,
    /// Socket closed.
    Closed,
}

/// Who connected, as the shell learnt it when it accepted the socket.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Peer {
    /// For log lines: `a local process (pid 123)` or `tcp:10.0.0.2:40112`.
    pub description: String,
    /// Process id of a Unix peer, from the socket's credentials.
    pub pid: Option<u32>,
    /// The connection is TCP (else a Unix socket).
    pub tcp: bool,
}

/// A rank's connection.
pub struct RankConnection {
    /// Who connected (for log lines), fixed at accept.
    pub peer: String,
    /// Process id of a Unix peer, from the socket's credentials.
    pub peer_pid: Option<u32>,
    /// The connection is TCP (else a Unix socket).
    pub tcp: bool,
    /// Wall clock when the connection was accepted, ns.
    pub accepted_ns: u64,
    /// Wall clock when bytes were last read, ns (a clock probe's t2).
    pub last_read_ns: u64,
    /// Gateway clock − rank clock the rank last reported, ns.
    pub clock_offset_ns: Option<i64>,
    /// Uncertainty of that offset, ns.
    pub clock_uncertainty_ns: u64,
    /// Largest uncertainty the rank reported during the run, ns.
    pub max_clock_uncertainty_ns: u64,
    /// Clock probes answered.
    pub clock_probes: u64,
    /// Rank, once Hello named it.
    pub rank: Option<u32>,
    /// Protocol state.
    pub state: ConnState,
    /// SRT at which Hello arrived, ns.
    pub hello_srt_ns: u64,
    /// Process id from Hello.
    pub pid: u32,
    /// Counters sent with Finalize.
    pub counters: Option<RankCounters>,
    /// What the rank said it waits for, until it next does something or
    /// gets a delivery.
    pub waiting: Option<crate::stall::RankWaiting>,
    /// Deliver and CollectiveDone frames queued for the rank (a Waiting
    /// frame that saw fewer is stale).
    pub wakeups: u64,
    /// The rank's horizon as its shared-memory channel last showed it
    /// (None: a socket, which carries no horizon).
    pub horizon: Option<Horizon>,
    /// Deliveries (Deliver and CollectiveDone frames) queued for the rank.
    pub deliveries_queued: u64,
    /// Of those, the ones the rank may not have read yet, with a rank
    /// that publishes horizons: (number from 1, arrival time ns).
    unread_arrivals: VecDeque<(u64, u64)>,
    /// An event waited the whole cap for this rank: until it next waits
    /// inside MPI, its horizon is taken to advance with the wall clock
    /// from then on (see [`super::horizon_hold`]).
    pub paced_from: Option<super::horizon_hold::Pace>,
    inbuf: Vec<u8>,
    in_start: usize,
    outbuf: Vec<u8>,
    out_start: usize,
}

impl RankConnection {
    /// A connection from `peer`, accepted at wall time `now_ns`.
    pub fn new(peer: Peer, now_ns: u64) -> RankConnection {
        RankConnection {
            peer: peer.description,
            peer_pid: peer.pid,
            tcp: peer.tcp,
            accepted_ns: now_ns,
            last_read_ns: now_ns,
            clock_offset_ns: None,
            clock_uncertainty_ns: 0,
            max_clock_uncertainty_ns: 0,
            clock_probes: 0,
            rank: None,
            state: ConnState::AwaitHello,
            hello_srt_ns: 0,
            pid: 0,
            counters: None,
            waiting: None,
            wakeups: 0,
            horizon: None,
            deliveries_queued: 0,
            unread_arrivals: VecDeque::new(),
            paced_from: None,
            inbuf: Vec::with_capacity(64 * 1024),
            in_start: 0,
            outbuf: Vec::new(),
            out_start: 0,
        }
    }

    /// Appends bytes the shell read from the socket at wall time `now_ns`.
    pub fn received(&mut self, bytes: &[u8], now_ns: u64) {
        if self.in_start > 0 && self.in_start == self.inbuf.len() {
            self.inbuf.clear();
            self.in_start = 0;
        }
        self.inbuf.extend_from_slice(bytes);
        self.last_read_ns = now_ns;
    }

    /// Before Hello: the first frame announces more bytes than any Hello
    /// has (so the gateway need not buffer them to find out it is not one).
    pub fn announces_oversized_hello(&self) -> Option<usize> {
        let b = &self.inbuf[self.in_start..];
        if self.state != ConnState::AwaitHello || b.len() < LENGTH_PREFIX {
            return None;
        }
        let len = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        (len > MAX_HELLO_BODY).then_some(len)
    }

    /// Takes the next complete frame from the input buffer.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, DecodeError> {
        match Frame::decode(&self.inbuf[self.in_start..])? {
            Some((f, used)) => {
                self.in_start += used;
                Ok(Some(f))
            }
            None => {
                if self.in_start > 0 {
                    self.inbuf.drain(..self.in_start);
                    self.in_start = 0;
                }
                Ok(None)
            }
        }
    }

    /// Queues a frame for writing.
    pub fn queue(&mut self, f: &Frame) {
        f.encode(&mut self.outbuf);
    }

    /// Records the offset and uncertainty the rank reported.
    pub fn set_clock(&mut self, offset_ns: i64, uncertainty_ns: u64) {
        self.clock_offset_ns = Some(offset_ns);
        self.clock_uncertainty_ns = uncertainty_ns;
        self.max_clock_uncertainty_ns = self.max_clock_uncertainty_ns.max(uncertainty_ns);
    }

    /// Queues a delivery without copying the message first.
    pub fn queue_deliver(&mut self, src: u32, vtime_ns: u64, bytes: &[u8]) {
        self.wakeups += 1;
        self.waiting = None;
        self.count_delivery(vtime_ns);
        mpinetsim_protocol::encode_deliver(src, vtime_ns, bytes, &mut self.outbuf);
    }

    /// Queues a collective's release (analytic model) ending at `vtime_ns`.
    pub fn queue_collective_done(&mut self, f: &Frame, vtime_ns: u64) {
        self.wakeups += 1;
        self.waiting = None;
        self.count_delivery(vtime_ns);
        self.queue(f);
    }

    /// Queues a Deliver frame kept while the rank had not connected.
    pub fn queue_kept_delivery(&mut self, f: &Frame) {
        self.wakeups += 1;
        if let Frame::Deliver { vtime_ns, .. } = f {
            self.count_delivery(*vtime_ns);
        }
        self.queue(f);
    }

    fn count_delivery(&mut self, vtime_ns: u64) {
        self.deliveries_queued += 1;
        if self.horizon.is_some() {
            self.unread_arrivals
                .push_back((self.deliveries_queued, vtime_ns));
        }
    }

    /// Records the horizon the rank published and the deliveries it has
    /// read (see [`mpinetsim_shm::horizon`]).
    pub fn set_horizon(&mut self, h: Horizon, reads: u64) {
        self.horizon = Some(h);
        if matches!(h, Horizon::Idle { .. }) {
            self.paced_from = None;
        }
        // A waiting rank's count says which delivery wakes it: keep that
        // one even if the rank has read it meanwhile (it publishes its
        // new horizon next).
        let read = match h {
            Horizon::Idle { reads: k } => k.min(reads),
            _ => reads,
        };
        while self
            .unread_arrivals
            .front()
            .is_some_and(|&(i, _)| i <= read)
        {
            self.unread_arrivals.pop_front();
        }
    }

    /// [`RankConnection::horizon_ns`], or, after a hold for this rank
    /// reached the cap, at least where that horizon would be had the rank
    /// advanced with the wall clock since (wall time `now_ns`, time factor
    /// `factor`).
    pub fn holding_horizon_ns(&self, now_ns: u64, factor: f64) -> Option<u64> {
        let own = self.horizon_ns()?;
        Some(match self.paced_from {
            Some(pace) => own.max(pace.horizon_at(now_ns, factor)),
            None => own,
        })
    }

    /// The earliest emulated time at which the rank may still send a
    /// message, as far as it told: None when it promised nothing (no
    /// horizon published, or a socket) or waits with nothing on its way.
    pub fn horizon_ns(&self) -> Option<u64> {
        if self.state != ConnState::Active {
            return None;
        }
        match self.horizon? {
            Horizon::Unknown => None,
            Horizon::Active(t) => Some(t),
            Horizon::Idle { reads } => self
                .unread_arrivals
                .iter()
                .find(|&&(i, _)| i > reads)
                .map(|&(_, t)| t),
        }
    }

    /// Bytes queued and not yet written.
    pub fn pending_out(&self) -> usize {
        self.outbuf.len() - self.out_start
    }

    /// Writes as much of the queued output as `out` (the socket) takes now.
    pub fn flush_to(&mut self, out: &mut impl Write) -> io::Result<()> {
        while self.out_start < self.outbuf.len() {
            match out.write(&self.outbuf[self.out_start..]) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "socket closed")),
                Ok(n) => self.out_start += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if self.out_start == self.outbuf.len() {
            self.outbuf.clear();
            self.out_start = 0;
        } else if self.out_start > (1 << 20) && self.out_start >= self.outbuf.len() / 2 {
            // Compact only once the written part is at least half of the
            // buffer: each byte moves at most once, whatever the backlog
            // (compacting after every partial write moved the whole
            // backlog each time, quadratic in it: half the gateway's CPU
            // when a rank reads 16 MiB messages slower than they arrive).
            self.outbuf.drain(..self.out_start);
            self.out_start = 0;
        }
        Ok(())
    }
}
