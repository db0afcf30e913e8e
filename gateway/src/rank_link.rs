//! How bytes move between the loop and one rank: its socket, or the
//! shared-memory rings a local rank offered over its Unix socket before
//! its Hello (`mpinetsim-shm`). The shell's I/O only: the core sees the
//! same bytes either way.
//!
//! A Unix connection's first read takes descriptors passed with it
//! (SCM_RIGHTS): the rank's offer of a channel, checked and mapped here;
//! bytes without descriptors are a Hello, and the connection stays on the
//! socket. Once on shared memory, the socket only tells that the rank
//! process is gone (its end of stream) after the rings were drained.

use crate::clock::monotonic_ns;
use crate::loop_core::RankConnection;
use crate::stream::RankStream;
use mpinetsim_protocol::stream::UnixOrTcp;
use mpinetsim_shm::Channel;
use std::io::{self, Read, Write};
use std::os::fd::BorrowedFd;

/// Most bytes read from one connection in one turn (fairness between ranks).
const READ_TURN_BYTES: usize = 1 << 20;

/// Which way the frames go.
enum Path {
    /// A Unix connection before its first bytes: an offer or a Hello.
    Undecided,
    /// Frames on the socket.
    Socket,
    /// Frames through the rings; the socket only for the end.
    Shm(Channel),
}

/// What a read found.
pub enum ReadOutcome {
    /// Bytes (or nothing) read; the connection goes on.
    Open,
    /// The connection switched to shared memory: watch the doorbell.
    SwitchedToShm,
    /// The rank's end of stream (or a refused offer, said in the text).
    Ended(Option<String>),
}

/// One accepted connection.
pub struct RankLink {
    /// The socket.
    pub stream: RankStream,
    path: Path,
    /// Readable data may be waiting (edge-triggered readiness not yet
    /// consumed, or the doorbell rang).
    pub wants_read: bool,
    /// The socket had an event: on shared memory, look for its end.
    pub socket_event: bool,
    /// Counted as a sleeper on its ring (see [`RankLink::begin_sleep`]).
    asleep: bool,
    /// What one read takes (allocated once, not zeroed per read).
    scratch: Vec<u8>,
    /// The loop still reads it (false once the rank's end was seen).
    pub watched: bool,
}

impl RankLink {
    /// A new connection; a Unix one may still offer shared memory.
    pub fn new(stream: RankStream) -> RankLink {
        let path = match &stream.0 {
            UnixOrTcp::Unix(_) => Path::Undecided,
            UnixOrTcp::Tcp(_) => Path::Socket,
        };
        RankLink {
            stream,
            path,
            wants_read: true,
            socket_event: true,
            asleep: false,
            scratch: vec![0; 64 * 1024],
            watched: true,
        }
    }

    /// The doorbell the rank rings, once on shared memory.
    pub fn bell_fd(&self) -> Option<BorrowedFd<'_>> {
        match &self.path {
            Path::Shm(c) => Some(c.bell_fd()),
            _ => None,
        }
    }

    /// True on shared memory.
    pub fn is_shm(&self) -> bool {
        matches!(self.path, Path::Shm(_))
    }

    /// True on shared memory while the loop reads it: the links the loop
    /// spins on and sleeps with.
    pub fn is_watched_shm(&self) -> bool {
        self.watched && self.is_shm()
    }

    /// True when a read would find something: readiness not consumed, or
    /// bytes in the ring.
    pub fn should_read(&self) -> bool {
        match &self.path {
            Path::Shm(c) => self.watched && (self.wants_read || self.socket_event || c.readable()),
            _ => self.wants_read,
        }
    }

    /// True when queued output could move now (only the ring says so
    /// without an event).
    pub fn ring_writable(&self) -> bool {
        matches!(&self.path, Path::Shm(c) if c.writable())
    }

    /// Reads what the rank sent (up to one turn's worth) into `c`.
    pub fn read_into(&mut self, c: &mut RankConnection) -> io::Result<ReadOutcome> {
        let chunk = &mut self.scratch;
        let mut outcome = ReadOutcome::Open;
        if let Path::Undecided = self.path {
            let fd = self.stream.0.raw_fd();
            let (n, fds) = match mpinetsim_shm::offer::recv_with_fds(fd, chunk) {
                Ok(r) => r,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.wants_read = false;
                    self.socket_event = false;
                    return Ok(ReadOutcome::Open);
                }
                Err(e) => return Err(e),
            };
            if n == 0 {
                return Ok(ReadOutcome::Ended(None));
            }
            match mpinetsim_shm::offer::parse_offer(&chunk[..n], fds) {
                Ok(None) => {
                    self.path = Path::Socket;
                    c.received(&chunk[..n], monotonic_ns());
                }
                Ok(Some(offer)) => match Channel::accept(offer) {
                    Ok(ch) => {
                        self.path = Path::Shm(ch);
                        outcome = ReadOutcome::SwitchedToShm;
                    }
                    Err(e) => return Ok(ReadOutcome::Ended(Some(e))),
                },
                Err(e) => return Ok(ReadOutcome::Ended(Some(e))),
            }
        }
        let mut total = 0;
        loop {
            if total >= READ_TURN_BYTES {
                return Ok(outcome); // more may wait: keep wants_read
            }
            let r = match &mut self.path {
                Path::Shm(ch) => ch.try_read(chunk),
                _ => self.stream.read(chunk),
            };
            match r {
                Ok(0) => {
                    self.wants_read = false;
                    return Ok(ReadOutcome::Ended(None));
                }
                Ok(n) => {
                    c.received(&chunk[..n], monotonic_ns());
                    total += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.wants_read = false;
        if self.is_shm() && std::mem::take(&mut self.socket_event) && self.socket_ended()? {
            return Ok(ReadOutcome::Ended(None));
        }
        Ok(outcome)
    }

    /// On shared memory: the socket's end of stream (any byte on it
    /// breaks the protocol, and ends the connection as well).
    fn socket_ended(&mut self) -> io::Result<bool> {
        let mut b = [0u8; 1];
        loop {
            return match self.stream.read(&mut b) {
                Ok(_) => Ok(true),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
        }
    }

    /// Writes what `c` has queued, as far as the socket or ring takes it
    /// now. On shared memory, a full ring asks the rank to ring the
    /// doorbell when it frees room.
    pub fn flush_from(&mut self, c: &mut RankConnection) -> io::Result<()> {
        match &mut self.path {
            Path::Shm(ch) => {
                // Room may appear between the write and the request.
                for _ in 0..2 {
                    c.flush_to(&mut RingWriter(ch))?;
                    if c.pending_out() == 0 || ch.ask_for_room() {
                        break;
                    }
                }
                Ok(())
            }
            _ => c.flush_to(&mut self.stream),
        }
    }

    /// Before the loop sleeps: on shared memory, asks the rank to ring
    /// the doorbell when it writes. False when bytes already wait (do
    /// not sleep); true otherwise ([`RankLink::end_sleep`] ends it).
    pub fn begin_sleep(&mut self) -> bool {
        match &self.path {
            Path::Shm(c) if self.watched => {
                self.asleep = c.begin_sleep();
                self.asleep
            }
            _ => true,
        }
    }

    /// After the loop woke: no longer counted as a sleeper.
    pub fn end_sleep(&mut self) {
        if let (Path::Shm(c), true) = (&self.path, std::mem::take(&mut self.asleep)) {
            c.end_sleep();
        }
    }

    /// The horizon the rank published on its channel and the deliveries
    /// it has read (None: not on shared memory).
    pub fn horizon(&self) -> Option<(mpinetsim_shm::horizon::Horizon, u64)> {
        match &self.path {
            Path::Shm(c) if self.watched => Some(c.horizon()),
            _ => None,
        }
    }

    /// Asks the rank to ring the doorbell when its horizon moves (an
    /// event waits for it); false when it moved from `seen` already.
    pub fn hold_for_horizon(&self, seen: mpinetsim_shm::horizon::Horizon) -> bool {
        match &self.path {
            Path::Shm(c) if self.watched => {
                c.hold_for_horizon();
                c.horizon().0 == seen
            }
            _ => true,
        }
    }

    /// No event waits for this rank's horizon any more.
    pub fn release_horizon(&self) {
        if let Path::Shm(c) = &self.path {
            c.release_horizon();
        }
    }

    /// True when the ring of a watched link has bytes (the loop's spin
    /// looks at this).
    pub fn ring_readable(&self) -> bool {
        matches!(&self.path, Path::Shm(c) if self.watched && c.readable())
    }
}

/// A channel as the connection's [`Write`] target.
struct RingWriter<'a>(&'a mut Channel);

impl Write for RingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loop_core::Peer;
    use mpinetsim_protocol::Frame;
    use mpinetsim_shm::offer::send_offer;
    use std::os::fd::AsRawFd;

    fn connection() -> RankConnection {
        let peer = Peer {
            description: "a test".into(),
            pid: None,
            tcp: false,
        };
        RankConnection::new(peer, 0)
    }

    /// A link whose rank end offered shared memory: the rank's socket and
    /// channel, the gateway's link and connection.
    fn offered(
        capacity_bytes: usize,
    ) -> (
        std::os::unix::net::UnixStream,
        Channel,
        RankLink,
        RankConnection,
    ) {
        let (rank_sock, gw_sock) = std::os::unix::net::UnixStream::pair().unwrap();
        gw_sock.set_nonblocking(true).unwrap();
        let gw_sock = mio::net::UnixStream::from_std(gw_sock);
        let mut link = RankLink::new(RankStream(UnixOrTcp::Unix(gw_sock)));
        let (rank, offer) = Channel::create(capacity_bytes).unwrap();
        send_offer(rank_sock.as_raw_fd(), &offer).unwrap();
        let mut c = connection();
        assert!(matches!(
            link.read_into(&mut c).unwrap(),
            ReadOutcome::SwitchedToShm
        ));
        assert!(link.is_shm() && link.bell_fd().is_some());
        (rank_sock, rank, link, c)
    }

    #[test]
    fn frames_come_through_the_offered_rings_and_a_plain_hello_stays_on_the_socket() {
        let (_sock, mut rank, mut link, mut c) = offered(mpinetsim_shm::DEFAULT_CAPACITY_BYTES);
        let f = Frame::ClockProbe { t1_ns: 42 };
        rank.try_write(&f.to_bytes()).unwrap();
        assert!(link.should_read());
        assert!(matches!(link.read_into(&mut c).unwrap(), ReadOutcome::Open));
        assert_eq!(c.next_frame().unwrap(), Some(f));

        let (mut rank_sock, gw_sock) = std::os::unix::net::UnixStream::pair().unwrap();
        gw_sock.set_nonblocking(true).unwrap();
        let mut link = RankLink::new(RankStream(UnixOrTcp::Unix(mio::net::UnixStream::from_std(
            gw_sock,
        ))));
        let f = Frame::ClockProbe { t1_ns: 7 };
        rank_sock.write_all(&f.to_bytes()).unwrap();
        let mut c = connection();
        assert!(matches!(link.read_into(&mut c).unwrap(), ReadOutcome::Open));
        assert!(!link.is_shm());
        assert_eq!(c.next_frame().unwrap(), Some(f));
    }

    #[test]
    fn a_delivery_larger_than_the_ring_goes_out_in_pieces_as_the_rank_reads() {
        const RING: usize = 256 * 1024;
        let (sock, mut rank, mut link, mut c) = offered(RING);
        let bytes: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 253) as u8).collect();
        c.queue_deliver(3, 99, &bytes);
        let total = c.pending_out();
        assert!(total > RING);
        let mut got = Vec::new();
        let mut buf = vec![0u8; 100_000];
        let mut flushes = 0;
        while got.len() < total {
            link.flush_from(&mut c).unwrap();
            flushes += 1;
            while let Ok(n) = rank.try_read(&mut buf) {
                got.extend_from_slice(&buf[..n]);
            }
            assert!(flushes < 100, "no progress");
        }
        assert!(flushes >= total / RING);
        let (f, _) = Frame::decode(&got).unwrap().unwrap();
        assert_eq!(
            f,
            Frame::Deliver {
                src: 3,
                vtime_ns: 99,
                bytes
            }
        );
        // A rank whose process is gone: the socket's end, after the rings.
        rank.try_write(&Frame::ClockProbe { t1_ns: 1 }.to_bytes())
            .unwrap();
        std::mem::forget(rank); // a crash: the ring is never marked closed
        drop(sock);
        link.socket_event = true;
        assert!(matches!(
            link.read_into(&mut c).unwrap(),
            ReadOutcome::Ended(None)
        ));
        assert_eq!(
            c.next_frame().unwrap(),
            Some(Frame::ClockProbe { t1_ns: 1 })
        );
    }
}
