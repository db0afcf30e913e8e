//! A rank's *horizon*: the earliest emulated time at which it may still
//! send a message, published through its channel's header so the gateway
//! can read it without a frame or a system call.
//!
//! The gateway stamps a message into the network at its send time, but it
//! runs events on the wall clock, so a message that reaches it after events
//! later than its stamp already ran enters late (clamped to them). On a
//! microsecond network at small time factors that was nearly every reply of
//! a ping-pong: the woken rank's reply came back a few µs of wall time
//! after the acknowledgements it raced with had run. With horizons the
//! gateway holds back events later than the least horizon of the ranks,
//! for at most a bounded wall time (`--hold-cap`), so such a reply enters
//! at its own time.
//!
//! The word is one u64 so it is read whole:
//! - 0: nothing published (the gateway does not wait for this rank);
//! - [`ACTIVE_BIT`] | t: the rank runs, and sends nothing stamped before
//!   emulated time t (its time at its latest MPI call or wake-up: a rank's
//!   emulated time never goes back);
//! - [`IDLE_BIT`] | k: the rank waits inside MPI with nothing to do until
//!   the gateway's frame after the first k deliveries (Deliver and
//!   CollectiveDone frames) it read: its horizon is that delivery's
//!   arrival time, or none while there is no such delivery.
//!
//! Beside it the rank publishes how many deliveries it has read, so the
//! gateway can forget the arrival times of those.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Marks a running rank's word (the low bits are its floor, ns).
pub const ACTIVE_BIT: u64 = 1 << 62;
/// Marks a waiting rank's word (the low bits count deliveries read).
pub const IDLE_BIT: u64 = 1 << 63;
const VALUE_MASK: u64 = ACTIVE_BIT - 1;

/// What a horizon word says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Horizon {
    /// Nothing published: no promise.
    Unknown,
    /// Running: nothing will be stamped before this emulated time, ns.
    Active(u64),
    /// Waiting for the delivery after the first `reads` it read.
    Idle {
        /// Deliveries read when it began to wait.
        reads: u64,
    },
}

impl Horizon {
    /// The word for this horizon (times and counts above 2^62 saturate).
    pub fn encode(self) -> u64 {
        match self {
            Horizon::Unknown => 0,
            Horizon::Active(t) => ACTIVE_BIT | t.min(VALUE_MASK),
            Horizon::Idle { reads } => IDLE_BIT | reads.min(VALUE_MASK),
        }
    }

    /// The horizon a word says.
    pub fn decode(word: u64) -> Horizon {
        if word & IDLE_BIT != 0 {
            Horizon::Idle {
                reads: word & VALUE_MASK,
            }
        } else if word & ACTIVE_BIT != 0 {
            Horizon::Active(word & VALUE_MASK)
        } else {
            Horizon::Unknown
        }
    }
}

/// The three header words of a channel that carry a rank's horizon: the
/// horizon and the deliveries read (the rank writes them) and the
/// gateway's flag that it is holding events back for this rank (then the
/// rank rings the gateway's doorbell when its horizon moves).
pub struct HorizonWords<'a> {
    /// The horizon word.
    pub word: &'a AtomicU64,
    /// Deliveries the rank has read.
    pub reads: &'a AtomicU64,
    /// Nonzero while the gateway waits for this rank's horizon to move.
    pub holding: &'a AtomicU32,
}

impl HorizonWords<'_> {
    /// Rank side: publishes `h`. Returns true when the gateway was holding
    /// events back for this rank (the caller rings its doorbell).
    pub fn publish(&self, h: Horizon) -> bool {
        let word = h.encode();
        if self.word.load(Ordering::Relaxed) == word {
            return false;
        }
        // SeqCst pairs with the gateway's store of `holding` before it
        // reads the word: one of the two sees the other's write.
        self.word.store(word, Ordering::SeqCst);
        self.holding.load(Ordering::SeqCst) != 0 && self.holding.swap(0, Ordering::SeqCst) != 0
    }

    /// Rank side: `n` deliveries read so far.
    pub fn set_reads(&self, n: u64) {
        self.reads.store(n, Ordering::Release);
    }

    /// Gateway side: the horizon and the deliveries read.
    pub fn read(&self) -> (Horizon, u64) {
        let word = self.word.load(Ordering::SeqCst);
        (Horizon::decode(word), self.reads.load(Ordering::Acquire))
    }

    /// Gateway side: asks the rank to ring when its horizon moves.
    pub fn hold(&self) {
        self.holding.store(1, Ordering::SeqCst);
    }

    /// Gateway side: no longer waiting for this rank.
    pub fn release(&self) {
        self.holding.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_zero_means_nothing_published() {
        for h in [
            Horizon::Unknown,
            Horizon::Active(0),
            Horizon::Active(123_456_789),
            Horizon::Idle { reads: 0 },
            Horizon::Idle { reads: 77 },
        ] {
            assert_eq!(Horizon::decode(h.encode()), h);
        }
        assert_eq!(Horizon::decode(0), Horizon::Unknown);
        assert_ne!(Horizon::Active(0).encode(), 0);
        assert_ne!(Horizon::Idle { reads: 0 }.encode(), 0);
    }

    #[test]
    fn the_rank_rings_only_when_the_gateway_holds_and_only_once() {
        let (w, r, h) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU32::new(0));
        let words = HorizonWords {
            word: &w,
            reads: &r,
            holding: &h,
        };
        assert!(!words.publish(Horizon::Active(5)));
        words.hold();
        // The same word again: nothing moved, no ring.
        assert!(!words.publish(Horizon::Active(5)));
        assert!(words.publish(Horizon::Active(9)));
        assert!(!words.publish(Horizon::Idle { reads: 1 }));
        assert_eq!(words.read().0, Horizon::Idle { reads: 1 });
    }
}
