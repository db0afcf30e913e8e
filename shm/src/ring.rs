//! One single-producer, single-consumer byte ring inside a shared mapping:
//! its control words (where the producer and the consumer are, who sleeps)
//! and its data area. The ring carries a byte stream, like a socket: a
//! write takes as many bytes as fit, so a message larger than the ring goes
//! through it in pieces as the consumer makes room.
//!
//! Positions are byte counts since the ring was created (u64, never
//! wrapping in practice); a position's place in the data area is the
//! position modulo the capacity (a power of two). The producer alone writes
//! `tail`, the consumer alone `head`. Every position read from the peer is
//! checked (`tail - head` within the capacity): a peer that wrote nonsense
//! makes the ring [`Corrupt`], never an access outside it.
//!
//! Wake-ups: a consumer about to sleep counts itself in `sleepers` and
//! looks once more; a producer that added bytes looks at `sleepers` after
//! a full fence and wakes the consumer when it is nonzero. Either the
//! consumer sees the bytes or the producer sees the sleeper (the two
//! stores are each followed by a sequentially consistent fence before the
//! other side's word is read). The producer waiting for room does the same
//! with `producer_waiting`, which the consumer clears when it wakes it.

use crate::mapping::SharedMapping;
use std::sync::atomic::{fence, Ordering};

/// The ring's positions are inconsistent: the peer wrote nonsense.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrupt;

impl std::fmt::Display for Corrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the shared-memory ring's positions are inconsistent (the peer wrote outside the protocol)")
    }
}

impl std::error::Error for Corrupt {}

impl From<Corrupt> for std::io::Error {
    fn from(c: Corrupt) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, c)
    }
}

/// Offsets inside a ring's control block (each counter on its own cache
/// line, so the producer's and the consumer's writes do not share one).
const TAIL: usize = 0;
const HEAD: usize = 64;
const SLEEPERS: usize = 128;
const PRODUCER_WAITING: usize = 132;
/// Bytes of one ring's control block.
pub const CONTROL_BYTES: usize = 192;

/// Where one ring lives in a mapping.
#[derive(Debug, Clone, Copy)]
pub struct Ring {
    /// Offset of the control block.
    pub control: usize,
    /// Offset of the data area.
    pub data: usize,
    /// Data area bytes (a power of two).
    pub capacity_bytes: usize,
}

/// What a write or read did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    /// Bytes written or read.
    pub bytes: usize,
    /// The peer sleeps (or waits for room) and must be woken.
    pub wake_peer: bool,
}

impl Ring {
    fn used(&self, tail: u64, head: u64) -> Result<usize, Corrupt> {
        let used = tail.wrapping_sub(head);
        if used > self.capacity_bytes as u64 {
            return Err(Corrupt);
        }
        Ok(used as usize)
    }

    /// Producer: bytes that fit now, given its own `tail`.
    pub fn free_bytes(&self, m: &SharedMapping, tail: u64) -> Result<usize, Corrupt> {
        let head = m.atomic_u64(self.control + HEAD).load(Ordering::Acquire);
        Ok(self.capacity_bytes - self.used(tail, head)?)
    }

    /// Consumer: bytes waiting, given its own `head`.
    pub fn available_bytes(&self, m: &SharedMapping, head: u64) -> Result<usize, Corrupt> {
        let tail = m.atomic_u64(self.control + TAIL).load(Ordering::Acquire);
        self.used(tail, head)
    }

    /// Anyone: bytes written and not yet read, from both published
    /// positions (for a thread that waits while another reads).
    pub fn pending_bytes(&self, m: &SharedMapping) -> Result<usize, Corrupt> {
        let head = m.atomic_u64(self.control + HEAD).load(Ordering::Acquire);
        self.available_bytes(m, head)
    }

    /// Producer: copies as much of `src` as fits at `*tail`, publishes it
    /// and advances `*tail`.
    pub fn write(&self, m: &SharedMapping, tail: &mut u64, src: &[u8]) -> Result<Moved, Corrupt> {
        let n = self.free_bytes(m, *tail)?.min(src.len());
        if n == 0 {
            return Ok(Moved {
                bytes: 0,
                wake_peer: false,
            });
        }
        let at = (*tail as usize) & (self.capacity_bytes - 1);
        let first = n.min(self.capacity_bytes - at);
        m.copy_in(self.data + at, &src[..first]);
        m.copy_in(self.data, &src[first..n]);
        *tail += n as u64;
        m.atomic_u64(self.control + TAIL)
            .store(*tail, Ordering::Release);
        fence(Ordering::SeqCst);
        let wake_peer = m
            .atomic_u32(self.control + SLEEPERS)
            .load(Ordering::Relaxed)
            > 0;
        Ok(Moved {
            bytes: n,
            wake_peer,
        })
    }

    /// Consumer: copies as many waiting bytes as `dst` holds from `*head`,
    /// frees their room and advances `*head`.
    pub fn read(
        &self,
        m: &SharedMapping,
        head: &mut u64,
        dst: &mut [u8],
    ) -> Result<Moved, Corrupt> {
        let n = self.available_bytes(m, *head)?.min(dst.len());
        if n == 0 {
            return Ok(Moved {
                bytes: 0,
                wake_peer: false,
            });
        }
        let at = (*head as usize) & (self.capacity_bytes - 1);
        let first = n.min(self.capacity_bytes - at);
        m.copy_out(self.data + at, &mut dst[..first]);
        m.copy_out(self.data, &mut dst[first..n]);
        *head += n as u64;
        m.atomic_u64(self.control + HEAD)
            .store(*head, Ordering::Release);
        fence(Ordering::SeqCst);
        let waiting = m.atomic_u32(self.control + PRODUCER_WAITING);
        let wake_peer =
            waiting.load(Ordering::Relaxed) != 0 && waiting.swap(0, Ordering::AcqRel) != 0;
        Ok(Moved {
            bytes: n,
            wake_peer,
        })
    }

    /// Consumer: counts a sleeper before the last look at the ring (then
    /// [`Ring::end_sleep`] after waking).
    pub fn begin_sleep(&self, m: &SharedMapping) {
        m.atomic_u32(self.control + SLEEPERS)
            .fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// Consumer: the sleeper counted by [`Ring::begin_sleep`] is awake.
    pub fn end_sleep(&self, m: &SharedMapping) {
        let _ = m.atomic_u32(self.control + SLEEPERS).fetch_update(
            Ordering::SeqCst,
            Ordering::SeqCst,
            |n| n.checked_sub(1),
        );
    }

    /// Producer: asks to be woken when the consumer frees room (before the
    /// last look at the free room).
    pub fn wait_for_room(&self, m: &SharedMapping) {
        m.atomic_u32(self.control + PRODUCER_WAITING)
            .store(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::create_memfd;

    fn ring(capacity_bytes: usize) -> (SharedMapping, Ring) {
        let len = 4096 + capacity_bytes;
        let fd = create_memfd(len).unwrap();
        let m = SharedMapping::map(&fd, len).unwrap();
        (
            m,
            Ring {
                control: 0,
                data: 4096,
                capacity_bytes,
            },
        )
    }

    #[test]
    fn bytes_wrap_around_the_end_of_the_data_area_in_order() {
        let (m, r) = ring(64);
        let (mut tail, mut head) = (0u64, 0u64);
        let mut next = 0u8;
        let mut expect = 0u8;
        // 10 rounds of 40 bytes through 64: most rounds straddle the end.
        for _ in 0..10 {
            let chunk: Vec<u8> = (0..40)
                .map(|_| {
                    next = next.wrapping_add(1);
                    next
                })
                .collect();
            assert_eq!(r.write(&m, &mut tail, &chunk).unwrap().bytes, 40);
            let mut got = [0u8; 40];
            assert_eq!(r.read(&m, &mut head, &mut got).unwrap().bytes, 40);
            for b in got {
                expect = expect.wrapping_add(1);
                assert_eq!(b, expect);
            }
        }
        assert_eq!(tail, 400);
        assert_eq!(head, 400);
    }

    #[test]
    fn a_write_takes_only_what_fits_and_the_rest_goes_once_room_is_freed() {
        let (m, r) = ring(64);
        let (mut tail, mut head) = (0u64, 0u64);
        let msg: Vec<u8> = (0..150u8).collect();
        assert_eq!(r.write(&m, &mut tail, &msg).unwrap().bytes, 64);
        assert_eq!(r.write(&m, &mut tail, &msg[64..]).unwrap().bytes, 0);
        assert_eq!(r.free_bytes(&m, tail).unwrap(), 0);
        let mut got = vec![0u8; 150];
        assert_eq!(r.read(&m, &mut head, &mut got[..30]).unwrap().bytes, 30);
        assert_eq!(r.write(&m, &mut tail, &msg[64..]).unwrap().bytes, 30);
        assert_eq!(r.read(&m, &mut head, &mut got[30..]).unwrap().bytes, 64);
        assert_eq!(r.write(&m, &mut tail, &msg[94..]).unwrap().bytes, 56);
        assert_eq!(r.read(&m, &mut head, &mut got[94..]).unwrap().bytes, 56);
        assert_eq!(got, msg);
    }

    #[test]
    fn the_producer_is_told_to_wake_a_counted_sleeper_and_the_consumer_a_waiting_producer() {
        let (m, r) = ring(64);
        let (mut tail, mut head) = (0u64, 0u64);
        assert!(!r.write(&m, &mut tail, b"a").unwrap().wake_peer);
        r.begin_sleep(&m);
        assert!(r.write(&m, &mut tail, b"b").unwrap().wake_peer);
        r.end_sleep(&m);
        assert!(!r.write(&m, &mut tail, b"c").unwrap().wake_peer);
        let mut got = [0u8; 3];
        assert!(!r.read(&m, &mut head, &mut got[..1]).unwrap().wake_peer);
        r.wait_for_room(&m);
        assert!(r.read(&m, &mut head, &mut got[1..2]).unwrap().wake_peer);
        // Woken once: the flag was cleared.
        assert!(!r.read(&m, &mut head, &mut got[2..]).unwrap().wake_peer);
        assert_eq!(&got, b"abc");
    }

    #[test]
    fn positions_a_peer_garbled_are_an_error_not_an_access_outside_the_ring() {
        let (m, r) = ring(64);
        m.atomic_u64(r.control + TAIL).store(1000, Ordering::SeqCst);
        let mut head = 0u64;
        let mut got = [0u8; 8];
        assert_eq!(r.read(&m, &mut head, &mut got), Err(Corrupt));
        let mut tail = 0u64;
        m.atomic_u64(r.control + HEAD).store(7, Ordering::SeqCst);
        assert_eq!(r.write(&m, &mut tail, b"x"), Err(Corrupt));
    }
}
