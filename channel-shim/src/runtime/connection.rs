//! The rank's connection to the gateway, as the engine's [`Transport`].

use super::clock::{self, monotonic_ns};
use mpinetsim_protocol::{Frame, RankCounters, MAX_FRAME_BODY, VERSION};
use nix::sys::socket::{recv, MsgFlags};
use shim_engine::transport::{Incoming, Transport};
use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

/// Connection to the gateway plus the job's time parameters.
pub struct GatewayTransport {
    stream: UnixStream,
    rank: u32,
    size: u32,
    eager_limit: u64,
    inbuf: Vec<u8>,
    ready: VecDeque<Incoming>,
    out: Vec<u8>,
    analytic: bool,
    coll_seq: HashMap<(u32, u32), u32>,
    collective_done: Option<u64>,
}

/// One collective call as the analytic network model needs it.
#[derive(Clone, Copy, Debug)]
pub struct CollectiveReport {
    /// The communicator's collective context id.
    pub context: u32,
    /// World rank of the communicator's rank 0.
    pub leader: u32,
    /// Operation code (netsim's `CollectiveOp`).
    pub op: u8,
    /// Members of the communicator.
    pub members: u32,
    /// This rank is the root.
    pub is_root: bool,
    /// Bytes of the call's send arguments.
    pub sent_bytes: u64,
    /// Bytes of the call's receive arguments.
    pub received_bytes: u64,
    /// Scaled time the rank entered the call, ns.
    pub entered_srt_ns: u64,
}

/// Envelope offset of the context id (see `shim_engine::envelope`).
const CONTEXT_OFFSET: usize = 20;

/// True for a message on a collective context (odd context ids).
fn is_collective_message(bytes: &[u8]) -> bool {
    bytes
        .get(CONTEXT_OFFSET..CONTEXT_OFFSET + 4)
        .is_some_and(|c| u32::from_le_bytes(c.try_into().unwrap()) & 1 == 1)
}

impl GatewayTransport {
    /// Connects, says Hello and waits for Welcome.
    pub fn connect(
        socket: &str,
        rank: u32,
        size: u32,
        job: u64,
    ) -> Result<GatewayTransport, String> {
        let mut stream = UnixStream::connect(socket)
            .map_err(|e| format!("cannot reach the mpinetsim gateway at {socket}: {e}"))?;
        let hello = Frame::Hello {
            version: VERSION,
            rank,
            size,
            pid: std::process::id(),
            job,
        };
        stream
            .write_all(&hello.to_bytes())
            .map_err(|e| format!("cannot talk to the gateway: {e}"))?;
        let mut t = GatewayTransport {
            stream,
            rank,
            size,
            eager_limit: 64 * 1024,
            inbuf: Vec::new(),
            ready: VecDeque::new(),
            out: Vec::new(),
            analytic: false,
            coll_seq: HashMap::new(),
            collective_done: None,
        };
        match t.read_frame(true) {
            Some(Frame::Welcome {
                version,
                factor,
                epoch_ns,
                eager_limit,
                adaptive,
                analytic,
            }) if version == VERSION => {
                t.analytic = analytic;
                clock::start(
                    mpinetsim_protocol::ScaledClock::new(epoch_ns, factor),
                    adaptive,
                );
                t.eager_limit = eager_limit;
                Ok(t)
            }
            other => Err(format!("the gateway answered {other:?} instead of Welcome")),
        }
    }

    /// The socket's file descriptor (for waiting on it without the engine
    /// lock when several threads call MPI).
    pub fn raw_fd(&self) -> i32 {
        self.stream.as_raw_fd()
    }

    /// Rendezvous threshold announced by the gateway.
    pub fn eager_limit_bytes(&self) -> u64 {
        self.eager_limit
    }

    /// Waits until scaled time reaches `srt_ns`: sleeps while far, then
    /// spins the last stretch for precision.
    fn wait_until_srt(&self, srt_ns: u64) {
        const SPIN_WALL_NS: u64 = 200_000;
        let Some(c) = clock::snapshot() else {
            return;
        };
        let deadline = c.wall(srt_ns);
        loop {
            let now = monotonic_ns();
            if now >= deadline {
                return;
            }
            let left = deadline - now;
            if left > SPIN_WALL_NS {
                std::thread::sleep(std::time::Duration::from_nanos(left - SPIN_WALL_NS));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Scaled real time now, ns.
    pub fn srt_ns(&self) -> u64 {
        clock::srt_now()
    }

    /// Reads whatever the gateway has sent (deliveries are kept; factor
    /// changes are applied) without waiting.
    pub fn poll(&mut self) {
        while self.pump(false) {}
    }

    fn write_frame(&mut self, f: &Frame) {
        self.out.clear();
        f.encode(&mut self.out);
        if let Err(e) = self.stream.write_all(&self.out) {
            super::fatal(&format!(
                "lost the connection to the mpinetsim gateway while sending ({e})"
            ));
        }
    }

    /// Reads until one frame is complete; without `block`, returns None
    /// when the socket has nothing more right now.
    fn read_frame(&mut self, block: bool) -> Option<Frame> {
        loop {
            match Frame::decode(&self.inbuf) {
                Ok(Some((f, used))) => {
                    self.inbuf.drain(..used);
                    return Some(f);
                }
                Ok(None) => {}
                Err(e) => super::fatal(&format!("the gateway sent a malformed frame ({e})")),
            }
            let mut chunk = [0u8; 64 * 1024];
            let n = if block {
                match self.stream.read(&mut chunk) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => super::fatal(&format!(
                        "lost the connection to the mpinetsim gateway ({e})"
                    )),
                }
            } else {
                match recv(self.stream.as_raw_fd(), &mut chunk, MsgFlags::MSG_DONTWAIT) {
                    Ok(0) => 0,
                    Ok(n) => n,
                    Err(nix::errno::Errno::EAGAIN) => return None,
                    Err(nix::errno::Errno::EINTR) => continue,
                    Err(e) => super::fatal(&format!(
                        "lost the connection to the mpinetsim gateway ({e})"
                    )),
                }
            };
            if n == 0 {
                super::fatal("the mpinetsim gateway closed the connection (the job was ended)");
            }
            self.inbuf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Handles a frame that is not a delivery.
    fn control(&mut self, f: Frame) {
        match f {
            Frame::Abort { code, text } => {
                eprintln!("mpinetsim: {text}");
                std::process::exit(if code == 0 { 1 } else { code });
            }
            Frame::Factor { at_srt_ns, factor } => clock::change(at_srt_ns, factor),
            Frame::CollectiveDone { vtime_ns } => self.collective_done = Some(vtime_ns),
            other => super::fatal(&format!("the gateway sent an unexpected frame {other:?}")),
        }
    }

    /// Reads one frame if there is one (waiting for it with `block`);
    /// returns false when nothing was available.
    fn pump(&mut self, block: bool) -> bool {
        match self.read_frame(block) {
            Some(Frame::Deliver {
                src,
                vtime_ns,
                bytes,
            }) => {
                self.ready.push_back(Incoming {
                    src,
                    vtime_ns,
                    bytes,
                });
                true
            }
            Some(other) => {
                self.control(other);
                true
            }
            None => false,
        }
    }

    /// Sends Finalize and waits for its acknowledgement (deliveries that
    /// still arrive are dropped: nobody will receive them).
    pub fn finalize(&mut self, counters: RankCounters) {
        self.write_frame(&Frame::Finalize(counters));
        loop {
            match self.read_frame(true) {
                Some(Frame::FinalizeAck) => return,
                Some(Frame::Deliver { .. }) | None => {}
                Some(other) => self.control(other),
            }
        }
    }

    /// The job runs on the analytic network model: collectives are
    /// reported with [`GatewayTransport::collective`].
    pub fn is_analytic(&self) -> bool {
        self.analytic
    }

    /// Analytic model: reports a finished collective's data exchange as one
    /// operation, waits until the gateway releases it and then until scaled
    /// time reaches the modelled end.
    pub fn collective(&mut self, r: CollectiveReport) {
        let seq = self.coll_seq.entry((r.context, r.leader)).or_insert(0);
        let frame = Frame::Collective {
            context: r.context,
            leader: r.leader,
            seq: *seq,
            op: r.op,
            members: r.members,
            is_root: r.is_root,
            sent_bytes: r.sent_bytes,
            received_bytes: r.received_bytes,
            srt_ns: r.entered_srt_ns,
        };
        *seq += 1;
        self.write_frame(&frame);
        while self.collective_done.is_none() {
            self.pump(true);
        }
        let end = self.collective_done.take().unwrap();
        self.wait_until_srt(end);
    }

    /// Tells the gateway the job is aborted (best effort).
    pub fn send_abort(&mut self, code: i32, text: &str) {
        let f = Frame::Abort {
            code,
            text: text.to_string(),
        };
        let _ = self.stream.write_all(&f.to_bytes());
    }
}

impl Transport for GatewayTransport {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.size
    }
    fn send(&mut self, dst: u32, bytes: Vec<u8>) {
        if bytes.len() + 16 > MAX_FRAME_BODY {
            super::fatal(&format!(
                "a message of {} bytes exceeds the {} bytes one message may carry",
                bytes.len(),
                MAX_FRAME_BODY - 64
            ));
        }
        let srt_ns = self.srt_ns();
        if self.analytic && is_collective_message(&bytes) {
            // The collective model times the whole operation.
            self.write_frame(&Frame::CollectiveData { dst, srt_ns, bytes });
        } else {
            self.write_frame(&Frame::Send { dst, srt_ns, bytes });
        }
    }
    /// A delivery becomes visible only once scaled time reaches its
    /// virtual arrival time: the gateway may write it a little early (its
    /// lookahead) so that neither its own nor this process's wake-up latency
    /// adds to the emulated latency.
    fn try_recv(&mut self) -> Option<Incoming> {
        while self.pump(false) {}
        match self.ready.front() {
            Some(m) if m.vtime_ns <= self.srt_ns() => self.ready.pop_front(),
            _ => None,
        }
    }
    fn recv_blocking(&mut self) -> Incoming {
        while self.ready.is_empty() {
            self.pump(true);
        }
        let due = self.ready.front().unwrap().vtime_ns;
        self.wait_until_srt(due);
        self.ready.pop_front().unwrap()
    }
    fn now_srt_ns(&self) -> u64 {
        self.srt_ns()
    }
    fn eager_limit(&self) -> u64 {
        self.eager_limit
    }
}
