//! One rank's connection to the gateway: non-blocking socket (Unix or TCP),
//! bounded input and output buffers, the frames read from it, and the
//! rank's clock offset as it last reported it.

use crate::stream::RankStream;
use mpinetsim_protocol::{DecodeError, Frame, RankCounters, LENGTH_PREFIX, MAX_HELLO_BODY};
use std::io::{self, Read, Write};

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

/// Most bytes read from one connection in one turn (fairness between ranks).
const READ_TURN_BYTES: usize = 1 << 20;

/// A rank's connection.
pub struct RankConnection {
    /// The socket (non-blocking).
    pub stream: RankStream,
    /// Who connected (for log lines), fixed at accept.
    pub peer: String,
    /// CLOCK_MONOTONIC when the connection was accepted, ns.
    pub accepted_ns: u64,
    /// CLOCK_MONOTONIC when bytes were last read, ns (a clock probe's t2).
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
    /// Readable data may be waiting (edge-triggered readiness not yet consumed).
    pub wants_read: bool,
    inbuf: Vec<u8>,
    in_start: usize,
    outbuf: Vec<u8>,
    out_start: usize,
}

impl RankConnection {
    /// Wraps an accepted socket.
    pub fn new(stream: RankStream, now_ns: u64) -> RankConnection {
        RankConnection {
            peer: stream.peer(),
            stream,
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
            wants_read: true,
            inbuf: Vec::with_capacity(64 * 1024),
            in_start: 0,
            outbuf: Vec::new(),
            out_start: 0,
        }
    }

    /// Reads what the socket has (up to one turn's worth). Returns true at
    /// end of stream.
    pub fn read_available(&mut self) -> io::Result<bool> {
        if self.in_start > 0 && self.in_start == self.inbuf.len() {
            self.inbuf.clear();
            self.in_start = 0;
        }
        let mut total = 0;
        let mut chunk = [0u8; 64 * 1024];
        loop {
            if total >= READ_TURN_BYTES {
                return Ok(false); // more may wait: keep wants_read
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    self.wants_read = false;
                    return Ok(true);
                }
                Ok(n) => {
                    self.inbuf.extend_from_slice(&chunk[..n]);
                    self.last_read_ns = crate::clock::monotonic_ns();
                    total += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.wants_read = false;
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
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

    /// Process id of a Unix peer, from the socket's credentials.
    pub fn peer_pid(&self) -> Option<u32> {
        self.stream.peer_pid()
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
        mpinetsim_protocol::encode_deliver(src, vtime_ns, bytes, &mut self.outbuf);
    }

    /// Bytes queued and not yet written.
    pub fn pending_out(&self) -> usize {
        self.outbuf.len() - self.out_start
    }

    /// Writes as much as the socket takes now.
    pub fn flush(&mut self) -> io::Result<()> {
        while self.out_start < self.outbuf.len() {
            match self.stream.write(&self.outbuf[self.out_start..]) {
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
