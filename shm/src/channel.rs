//! One rank's channel: the two rings of its shared file and the two
//! doorbells, as one end (rank or gateway) holds them. Reads and writes
//! never block (`WouldBlock` when the ring is empty or full, like a
//! non-blocking socket); [`Channel::wait_readable`] and
//! [`Channel::wait_writable`] spin adaptively, then sleep on this end's
//! doorbell (and on a hang-up descriptor, the Unix socket, whose end says
//! the peer process is gone).

use crate::doorbell::Doorbell;
use crate::layout::{self, Side};
use crate::mapping::SharedMapping;
use crate::ring::Ring;
use crate::spin::Spinner;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Ring capacity the shim creates, bytes per direction: room for one
/// largest frame (a 1 MiB message piece) and most of the next, so a
/// rendezvous stream never waits for the reader between two pieces (with
/// 256 KiB rings every piece took four wake-ups, and a 24 MiB transfer at
/// factor 8 ran 6 % long); larger frames, or frames that meet a ring still
/// partly full, go through in pieces. Pages are allocated as touched.
pub const DEFAULT_CAPACITY_BYTES: usize = 2 << 20;

/// What both ends' handles share.
struct Shared {
    map: SharedMapping,
    side: Side,
    send: Ring,
    recv: Ring,
    /// Rung by the peer to wake this end.
    own_bell: Doorbell,
    /// Rung by this end to wake the peer.
    peer_bell: Doorbell,
}

/// The descriptors a rank passes to the gateway (in this order).
pub struct Offer {
    /// The shared file.
    pub memfd: OwnedFd,
    /// The doorbell that wakes the rank.
    pub rank_bell: OwnedFd,
    /// The doorbell that wakes the gateway.
    pub gateway_bell: OwnedFd,
}

/// One end of a rank's channel.
pub struct Channel {
    shared: Arc<Shared>,
    /// Consumer position in the ring this end reads.
    head: u64,
    /// Producer position in the ring this end writes.
    tail: u64,
    read_spin: Spinner,
    write_spin: Spinner,
}

impl Channel {
    /// The rank's end of a new channel with rings of `capacity_bytes`,
    /// and the descriptors to offer the gateway.
    pub fn create(capacity_bytes: usize) -> io::Result<(Channel, Offer)> {
        let (memfd, map) = layout::create(capacity_bytes)?;
        let rank_bell = Doorbell::new()?;
        let gateway_bell = Doorbell::new()?;
        let offer = Offer {
            memfd,
            rank_bell: rank_bell.try_clone()?,
            gateway_bell: gateway_bell.try_clone()?,
        };
        Ok((
            Channel::new(map, capacity_bytes, Side::Rank, rank_bell, gateway_bell),
            offer,
        ))
    }

    /// The gateway's end of a channel a rank offered. The error is one
    /// sentence.
    pub fn accept(offer: Offer) -> Result<Channel, String> {
        let (map, capacity) = layout::open(&offer.memfd)?;
        let rank_bell = Doorbell::adopt(offer.rank_bell)?;
        let gateway_bell = Doorbell::adopt(offer.gateway_bell)?;
        Ok(Channel::new(
            map,
            capacity,
            Side::Gateway,
            gateway_bell,
            rank_bell,
        ))
    }

    fn new(map: SharedMapping, cap: usize, side: Side, own: Doorbell, peer: Doorbell) -> Channel {
        Channel {
            shared: Arc::new(Shared {
                map,
                side,
                send: layout::ring(side.sends_on(), cap),
                recv: layout::ring(side.receives_on(), cap),
                own_bell: own,
                peer_bell: peer,
            }),
            head: 0,
            tail: 0,
            read_spin: Spinner::default(),
            write_spin: Spinner::default(),
        }
    }

    /// The descriptor the peer rings to wake this end (for epoll).
    pub fn bell_fd(&self) -> BorrowedFd<'_> {
        self.shared.own_bell.as_fd()
    }

    /// Writes as much of `buf` as fits now; `WouldBlock` when nothing
    /// fits, `BrokenPipe` once the peer closed its end. Wakes the peer if
    /// it sleeps.
    pub fn try_write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let s = &*self.shared;
        if layout::is_closed(&s.map, s.side.peer()) {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let m = s.send.write(&s.map, &mut self.tail, buf)?;
        if m.wake_peer {
            s.peer_bell.ring();
        }
        if m.bytes == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        Ok(m.bytes)
    }

    /// Reads what has arrived into `buf`; `WouldBlock` when nothing has,
    /// `Ok(0)` once the peer closed its end and everything it wrote was
    /// read. Wakes the peer if it waits for room.
    pub fn try_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let s = &*self.shared;
        let m = s.recv.read(&s.map, &mut self.head, buf)?;
        if m.wake_peer {
            s.peer_bell.ring();
        }
        if m.bytes > 0 || buf.is_empty() {
            return Ok(m.bytes);
        }
        if layout::is_closed(&s.map, s.side.peer()) {
            // Bytes written just before the close are visible now.
            let m = s.recv.read(&s.map, &mut self.head, buf)?;
            return Ok(m.bytes);
        }
        Err(io::ErrorKind::WouldBlock.into())
    }

    /// True when a read would not be `WouldBlock` (bytes, the peer's
    /// close, or a corrupt ring to report).
    pub fn readable(&self) -> bool {
        let s = &*self.shared;
        s.recv
            .available_bytes(&s.map, self.head)
            .map_or(true, |n| n > 0)
            || layout::is_closed(&s.map, s.side.peer())
    }

    /// True when a write would not be `WouldBlock`.
    pub fn writable(&self) -> bool {
        let s = &*self.shared;
        s.send.free_bytes(&s.map, self.tail).map_or(true, |n| n > 0)
            || layout::is_closed(&s.map, s.side.peer())
    }

    /// Before sleeping for input elsewhere (the gateway's epoll): counts
    /// this end as a sleeper, so the peer rings its bell when it writes.
    /// Returns false (and counts nothing) when input is already there.
    pub fn begin_sleep(&self) -> bool {
        let s = &*self.shared;
        s.recv.begin_sleep(&s.map);
        if self.readable() {
            s.recv.end_sleep(&s.map);
            return false;
        }
        true
    }

    /// Ends the sleep [`Channel::begin_sleep`] began.
    pub fn end_sleep(&self) {
        let s = &*self.shared;
        s.recv.end_sleep(&s.map);
    }

    /// Asks the peer to ring this end's bell when it frees room; false
    /// (nothing asked) when there is room already.
    pub fn ask_for_room(&self) -> bool {
        let s = &*self.shared;
        s.send.wait_for_room(&s.map);
        !self.writable()
    }

    /// Spins, then sleeps until input arrives, `hangup` (the socket to
    /// the peer) becomes readable (the peer is gone), or `timeout`
    /// passes. Returns whether input (or the peer's close) is there.
    pub fn wait_readable(&mut self, hangup: BorrowedFd<'_>, timeout: Duration) -> bool {
        if self.readable() {
            return true;
        }
        let limit = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        let mut spin = std::mem::take(&mut self.read_spin);
        let found = spin.spin(limit, || self.readable());
        self.read_spin = spin;
        if found {
            return true;
        }
        self.waiter().wait(hangup, timeout)
    }

    /// Spins, then sleeps until the ring this end writes has room, the
    /// peer closed, `hangup` becomes readable, or `timeout` passes.
    /// Returns whether a write may proceed.
    pub fn wait_writable(&mut self, hangup: BorrowedFd<'_>, timeout: Duration) -> bool {
        if self.writable() {
            return true;
        }
        let limit = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        let mut spin = std::mem::take(&mut self.write_spin);
        let found = spin.spin(limit, || self.writable());
        self.write_spin = spin;
        if found {
            return true;
        }
        let s = &*self.shared;
        s.own_bell.drain();
        if !self.ask_for_room() {
            return true;
        }
        sleep_on(&s.own_bell, hangup, timeout);
        self.writable()
    }

    /// A handle through which any thread of the rank publishes its
    /// horizon (see [`crate::horizon`]).
    pub fn horizon_handle(&self) -> HorizonHandle {
        HorizonHandle {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Gateway side: the rank's horizon and the deliveries it read.
    pub fn horizon(&self) -> (crate::horizon::Horizon, u64) {
        layout::horizon_words(&self.shared.map).read()
    }

    /// Gateway side: asks the rank to ring this end's doorbell when its
    /// horizon moves (the gateway holds events back for it).
    pub fn hold_for_horizon(&self) {
        layout::horizon_words(&self.shared.map).hold();
    }

    /// Gateway side: no longer holding events back for this rank.
    pub fn release_horizon(&self) {
        layout::horizon_words(&self.shared.map).release();
    }

    /// A handle another thread can sleep on until this end has input.
    pub fn waiter(&self) -> Waiter {
        Waiter {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Drop for Channel {
    /// Closes this end and wakes the peer so it sees that.
    fn drop(&mut self) {
        let s = &*self.shared;
        layout::mark_closed(&s.map, s.side);
        s.peer_bell.ring();
    }
}

/// The rank's side of its horizon words, for any of its threads.
#[derive(Clone)]
pub struct HorizonHandle {
    shared: Arc<Shared>,
}

impl HorizonHandle {
    /// Publishes the rank's horizon, waking the gateway if it holds
    /// events back for this rank.
    pub fn publish(&self, h: crate::horizon::Horizon) {
        let s = &*self.shared;
        if layout::horizon_words(&s.map).publish(h) {
            s.peer_bell.ring();
        }
    }

    /// Publishes how many deliveries the rank has read.
    pub fn set_reads(&self, n: u64) {
        layout::horizon_words(&self.shared.map).set_reads(n);
    }
}

/// Sleeps on one end's input without owning its read position: for a
/// thread that waits while another reads (the shim's one-sided service).
pub struct Waiter {
    shared: Arc<Shared>,
}

impl Waiter {
    /// Sleeps until the ring holds bytes the reader has not read, the
    /// peer closed, `hangup` is readable, or `timeout` passes. True when
    /// input (or the close) is there.
    pub fn wait(&self, hangup: BorrowedFd<'_>, timeout: Duration) -> bool {
        let s = &*self.shared;
        let pending = || {
            s.recv.pending_bytes(&s.map).map_or(true, |n| n > 0)
                || layout::is_closed(&s.map, s.side.peer())
        };
        s.own_bell.drain();
        s.recv.begin_sleep(&s.map);
        if !pending() {
            sleep_on(&s.own_bell, hangup, timeout);
        }
        s.recv.end_sleep(&s.map);
        pending()
    }
}

/// poll(2) on the bell and the hang-up descriptor, at most `timeout`.
fn sleep_on(bell: &Doorbell, hangup: BorrowedFd<'_>, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        // Round up so a sub-millisecond rest still sleeps.
        let ms = if ms == 0 && !left.is_zero() { 1 } else { ms };
        let mut fds = [
            PollFd::new(bell.as_fd(), PollFlags::POLLIN),
            PollFd::new(hangup, PollFlags::POLLIN),
        ];
        match poll(
            &mut fds,
            PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX),
        ) {
            Err(nix::errno::Errno::EINTR) if !left.is_zero() => continue,
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    fn pair(capacity: usize) -> (Channel, Channel) {
        let (rank, offer) = Channel::create(capacity).unwrap();
        let gw = Channel::accept(offer).unwrap();
        (rank, gw)
    }

    #[test]
    fn bytes_go_both_ways_and_a_message_larger_than_the_ring_goes_in_pieces() {
        let (mut rank, mut gw) = pair(4096);
        rank.try_write(b"hello").unwrap();
        let mut got = [0u8; 16];
        assert_eq!(gw.try_read(&mut got).unwrap(), 5);
        assert_eq!(&got[..5], b"hello");
        assert_eq!(
            gw.try_read(&mut got).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );

        // 1 MiB through a 4 KiB ring: a reader thread makes room.
        let msg: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
        let expect = msg.clone();
        let (_a, b) = UnixStream::pair().unwrap();
        let reader = std::thread::spawn(move || {
            let (_keep, hang) = UnixStream::pair().unwrap();
            let mut all = Vec::new();
            let mut buf = vec![0u8; 10_000];
            while all.len() < expect.len() {
                match gw.try_read(&mut buf) {
                    Ok(n) => all.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        gw.wait_readable(hang.as_fd(), Duration::from_secs(5));
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(all == expect, "the bytes arrived in order");
            gw
        });
        let mut sent = 0;
        let mut pieces = 0;
        while sent < msg.len() {
            match rank.try_write(&msg[sent..]) {
                Ok(n) => {
                    assert!(n <= 4096);
                    sent += n;
                    pieces += 1;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    assert!(rank.wait_writable(b.as_fd(), Duration::from_secs(5)));
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(pieces >= 256, "{pieces} pieces of at most 4 KiB");
        reader.join().unwrap();
    }

    #[test]
    fn a_sleeping_consumer_is_woken_by_the_doorbell_not_by_its_timeout() {
        let (mut rank, mut gw) = pair(4096);
        let (_keep, hang) = UnixStream::pair().unwrap();
        let sleeper = std::thread::spawn(move || {
            let start = Instant::now();
            // Spinning ends long before the writer writes: this sleeps.
            let got = rank.wait_readable(hang.as_fd(), Duration::from_secs(10));
            let mut buf = [0u8; 4];
            (got, start.elapsed(), rank.try_read(&mut buf).unwrap())
        });
        std::thread::sleep(Duration::from_millis(200));
        gw.try_write(b"wake").unwrap();
        let (got, waited, n) = sleeper.join().unwrap();
        assert!(got);
        assert_eq!(n, 4);
        assert!(
            waited >= Duration::from_millis(150),
            "it slept ({waited:?})"
        );
        assert!(
            waited < Duration::from_secs(5),
            "woken by the bell ({waited:?})"
        );
    }

    #[test]
    fn the_gateway_counted_as_sleeper_gets_its_bell_rung() {
        let (mut rank, gw) = pair(4096);
        let readable = |c: &Channel| {
            let mut p = [PollFd::new(c.bell_fd(), PollFlags::POLLIN)];
            poll(&mut p, PollTimeout::ZERO).unwrap() == 1
        };
        rank.try_write(b"x").unwrap();
        assert!(!readable(&gw), "nobody slept: no system call");
        assert!(!gw.begin_sleep(), "input already there");
        let (mut rank2, gw2) = pair(4096);
        assert!(gw2.begin_sleep());
        rank2.try_write(b"y").unwrap();
        assert!(readable(&gw2));
        gw2.end_sleep();
        drop(rank);
    }

    #[test]
    fn a_closed_peer_is_end_of_stream_after_its_last_bytes_and_a_broken_pipe_to_write() {
        let (mut rank, mut gw) = pair(4096);
        rank.try_write(b"last words").unwrap();
        drop(rank);
        let mut buf = [0u8; 64];
        assert_eq!(gw.try_read(&mut buf).unwrap(), 10);
        assert_eq!(gw.try_read(&mut buf).unwrap(), 0);
        assert_eq!(
            gw.try_write(b"anyone?").unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
        // A sleeper is woken by the close.
        let (mut rank, gw) = pair(4096);
        let (_keep, hang) = UnixStream::pair().unwrap();
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            let r = rank.wait_readable(hang.as_fd(), Duration::from_secs(10));
            (r, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(100));
        drop(gw);
        let (r, waited) = t.join().unwrap();
        assert!(r && waited < Duration::from_secs(5));
    }

    #[test]
    fn a_hang_up_on_the_socket_ends_the_sleep() {
        let (mut rank, _gw) = pair(4096);
        let (a, b) = UnixStream::pair().unwrap();
        let t = std::thread::spawn(move || {
            let start = Instant::now();
            let r = rank.wait_readable(b.as_fd(), Duration::from_secs(10));
            (r, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(100));
        drop(a);
        let (r, waited) = t.join().unwrap();
        assert!(!r, "no input, the peer is gone");
        assert!(waited < Duration::from_secs(5));
    }
}
