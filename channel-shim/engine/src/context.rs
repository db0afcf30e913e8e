//! Context ids: which ones this process has free, and how a group agrees
//! on one that is free at all of its members (MPICH's mask algorithm).
//!
//! Context ids come in blocks of four, one block per communicator: the
//! point-to-point id (a multiple of 4 from 4 on; world is 0, self 2), its
//! collective id (+1) and, for an intercommunicator, the two ids of the
//! hidden intracommunicator of its local group (+2, +3). A process keeps a
//! bit mask of its free blocks. To create a communicator, its members
//! AND their masks (an allreduce of [`MASK_WORDS`] words) and take the
//! lowest block free everywhere; freeing a communicator frees its block.
//!
//! Several agreements may run at once on one process (nonblocking
//! `MPI_Comm_idup`, or creations on different communicators from
//! different threads). Only one of them at a time may offer the real
//! mask — the others offer an empty one, so their round finds nothing and
//! is repeated — and the one allowed is the waiting agreement with the
//! lowest `AgreeKey`, which every member computes alike, so the
//! agreement that is lowest everywhere always succeeds and none starves.
//!
//! An agreement may hold the mask only once every member has joined it,
//! or its round could wait for a member that first waits for another
//! agreement here (rank 0 blocked in `MPI_Comm_create_group` while the
//! others' `MPI_Comm_idup` holds the mask waiting for rank 0). So the
//! first round of every agreement offers only the *eager* blocks (the
//! first [`EAGER_WORDS`] words, held by one first round at a time, else
//! nothing): it succeeds at once when all members are free to offer them,
//! and otherwise only proves that every member has joined; later rounds
//! offer the other blocks under the rule above (MPICH's eager protocol).

use std::collections::BTreeSet;

/// Blocks of context ids one mask describes.
pub const SLOTS: usize = 2048;
/// Words of an offered mask: the free blocks, then a word that is 1 when
/// the mask is real (an empty real mask means no block is left).
pub const MASK_WORDS: usize = SLOTS / 64 + 1;
/// Words of the mask (64 blocks each) a first round may offer.
pub const EAGER_WORDS: usize = 1;

/// Names an agreement identically on every member: the collective
/// context and tag of the call that agrees.
pub(crate) type AgreeKey = (u32, i32);

/// What a round of an agreement decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Settled {
    /// This context id (block start) is now this communicator's.
    Context(u32),
    /// Some member offered an empty mask: repeat the round.
    Retry,
    /// Every member offered its mask and no block is free everywhere.
    Exhausted,
}

/// The context-id blocks of one process.
#[derive(Debug)]
pub(crate) struct ContextIds {
    free: Vec<u64>,
    holder: Option<AgreeKey>,
    eager_holder: Option<AgreeKey>,
    waiting: BTreeSet<AgreeKey>,
    /// Counts the masks given back, the agreements that ended and the
    /// blocks freed: a round that found nothing alone may find something
    /// once it changed.
    pub(crate) generation: u64,
}

impl Default for ContextIds {
    fn default() -> Self {
        ContextIds {
            free: vec![u64::MAX; SLOTS / 64],
            holder: None,
            eager_holder: None,
            waiting: BTreeSet::new(),
            generation: 0,
        }
    }
}

/// The first context id of block `slot`.
fn context_of(slot: usize) -> u32 {
    4 + 4 * slot as u32
}

impl ContextIds {
    /// The mask of a process that takes part in agreement `key` but gets
    /// no communicator from it (an undefined colour of a split, a rank
    /// outside `MPI_Comm_create`'s group): every block, so it constrains
    /// nothing, and it keeps none (MPICH's `ignore_id`).
    pub fn offer_all(&self) -> Vec<u8> {
        let mut words = vec![u64::MAX; MASK_WORDS];
        words[SLOTS / 64] = 1;
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    /// The mask agreement `key` offers in its first round: the free eager
    /// blocks unless another first round holds them (then nothing); not a
    /// real mask, so finding no block means "repeat", never "exhausted".
    pub fn offer_first(&mut self, key: AgreeKey) -> Vec<u8> {
        let mut words = vec![0u64; MASK_WORDS];
        if self.eager_holder.is_none() {
            self.eager_holder = Some(key);
            words[..EAGER_WORDS].copy_from_slice(&self.free[..EAGER_WORDS]);
        }
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    /// The mask agreement `key` offers in a later round (as bytes: words
    /// in native order, as the allreduce of unsigned longs sees them): the
    /// free blocks past the eager ones, if it may hold the mask.
    pub fn offer(&mut self, key: AgreeKey) -> Vec<u8> {
        self.waiting.insert(key);
        let allowed = self.holder.is_none() && self.waiting.first() == Some(&key);
        let mut words = vec![0u64; MASK_WORDS];
        if allowed {
            self.holder = Some(key);
            words[EAGER_WORDS..SLOTS / 64].copy_from_slice(&self.free[EAGER_WORDS..]);
            words[SLOTS / 64] = 1;
        }
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    /// Ends a round of agreement `key` with the AND of every member's
    /// offer (or the error the round met, which ends the agreement); with
    /// `keep` false (see [`offer_all`](Self::offer_all)) the block found is
    /// not taken here.
    pub fn settle(&mut self, key: AgreeKey, agreed: Result<&[u8], ()>, keep: bool) -> Settled {
        // A mask given back may let a waiting agreement offer it.
        if self.holder == Some(key) {
            self.holder = None;
            self.generation += 1;
        }
        if self.eager_holder == Some(key) {
            self.eager_holder = None;
            self.generation += 1;
        }
        let Ok(agreed) = agreed else {
            self.waiting.remove(&key);
            self.generation += 1;
            return Settled::Exhausted;
        };
        let words: Vec<u64> = agreed
            .chunks_exact(8)
            .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
            .collect();
        if words.len() != MASK_WORDS {
            return Settled::Retry;
        }
        // A block set in the AND was offered by every member (a member
        // that may not offer offers nothing).
        for (i, w) in words[..SLOTS / 64].iter().enumerate() {
            if *w != 0 {
                let bit = w.trailing_zeros() as usize;
                if keep {
                    self.free[i] &= !(1u64 << bit);
                }
                self.waiting.remove(&key);
                self.generation += 1;
                return Settled::Context(context_of(i * 64 + bit));
            }
        }
        if words[SLOTS / 64] != 1 {
            return Settled::Retry;
        }
        self.waiting.remove(&key);
        self.generation += 1;
        Settled::Exhausted
    }

    /// Frees the block of context id `context` (a communicator was freed).
    pub fn release(&mut self, context: u32) {
        if context < 4 {
            return;
        }
        let slot = ((context - 4) / 4) as usize;
        if slot < SLOTS {
            self.free[slot / 64] |= 1u64 << (slot % 64);
            self.generation += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn and(a: &[u8], b: &[u8]) -> Vec<u8> {
        a.iter().zip(b).map(|(x, y)| x & y).collect()
    }

    #[test]
    fn two_processes_agree_on_the_lowest_common_block() {
        let (mut p, mut q) = (ContextIds::default(), ContextIds::default());
        let k = (1, 0);
        let a = and(&p.offer_first(k), &q.offer_first(k));
        assert_eq!(p.settle(k, Ok(&a), true), Settled::Context(4));
        assert_eq!(q.settle(k, Ok(&a), true), Settled::Context(4));
        let x = (1, 1);
        let o = q.offer_first(x);
        assert_eq!(q.settle(x, Ok(&o), true), Settled::Context(8));
        let k = (1, 2);
        let a = and(&p.offer_first(k), &q.offer_first(k));
        assert_eq!(p.settle(k, Ok(&a), true), Settled::Context(12));
        assert_eq!(q.settle(k, Ok(&a), true), Settled::Context(12));
        p.release(4);
        let k = (1, 3);
        let o = p.offer_first(k);
        assert_eq!(p.settle(k, Ok(&o), true), Settled::Context(4));
        // Later rounds agree on the blocks past the eager ones.
        let k = (1, 4);
        let a = and(&p.offer(k), &q.offer(k));
        let first_later = context_of(EAGER_WORDS * 64);
        assert_eq!(p.settle(k, Ok(&a), true), Settled::Context(first_later));
        assert_eq!(q.settle(k, Ok(&a), true), Settled::Context(first_later));
    }

    #[test]
    fn only_the_lowest_waiting_agreement_offers_the_real_mask() {
        let mut p = ContextIds::default();
        let (lo, hi) = ((3, 9), (5, 1));
        let h = p.offer(hi);
        // `hi` holds the mask for its round; `lo` gets an empty one.
        let l = p.offer(lo);
        assert!(l.iter().all(|&b| b == 0));
        assert_eq!(p.settle(lo, Ok(&l), true), Settled::Retry);
        // Another member offered nothing to `hi`: its round fails too.
        assert_eq!(p.settle(hi, Ok(&vec![0; h.len()]), true), Settled::Retry);
        // Now `lo` is first in line, and `hi` waits.
        assert!(p.offer(hi).iter().all(|&b| b == 0));
        let l = p.offer(lo);
        let first_later = context_of(EAGER_WORDS * 64);
        assert_eq!(p.settle(lo, Ok(&l), true), Settled::Context(first_later));
        let h = p.offer(hi);
        assert_eq!(
            p.settle(hi, Ok(&h), true),
            Settled::Context(first_later + 4)
        );
    }

    /// MPICH's comm_create_group_idup: q joins agreement `a` (an idup)
    /// that p has not reached, because p first waits in agreement `b` (a
    /// blocking creation) that q joins second. `a`'s pending first round
    /// must not keep `b` from succeeding.
    #[test]
    fn an_agreement_not_yet_joined_by_all_does_not_block_another() {
        let (mut p, mut q) = (ContextIds::default(), ContextIds::default());
        let (a, b) = ((1, 5), (1, -1));
        let qa = q.offer_first(a);
        assert!(
            qa.iter().any(|&x| x != 0),
            "q's first round holds the eager blocks"
        );
        // b's first round: q offers nothing (its eager blocks are held).
        let r = and(&p.offer_first(b), &q.offer_first(b));
        assert_eq!(p.settle(b, Ok(&r), true), Settled::Retry);
        assert_eq!(q.settle(b, Ok(&r), true), Settled::Retry);
        // b's second round: everyone joined b, which may hold the mask.
        let r = and(&p.offer(b), &q.offer(b));
        let first_later = context_of(EAGER_WORDS * 64);
        assert_eq!(p.settle(b, Ok(&r), true), Settled::Context(first_later));
        assert_eq!(q.settle(b, Ok(&r), true), Settled::Context(first_later));
        // Then p joins a, whose first round q started long ago.
        let r = and(&p.offer_first(a), &qa);
        assert_eq!(p.settle(a, Ok(&r), true), Settled::Context(4));
        assert_eq!(q.settle(a, Ok(&r), true), Settled::Context(4));
    }

    #[test]
    fn a_process_that_keeps_nothing_constrains_nothing_and_takes_nothing() {
        let (mut p, mut q) = (ContextIds::default(), ContextIds::default());
        let k = (1, 0);
        let o = p.offer_first(k);
        assert_eq!(p.settle(k, Ok(&o), true), Settled::Context(4));
        // q takes part without getting a communicator: p's choice stands
        // and q's block 0 stays free.
        let k = (1, 1);
        let a = and(&p.offer_first(k), &q.offer_all());
        assert_eq!(p.settle(k, Ok(&a), true), Settled::Context(8));
        assert_eq!(q.settle(k, Ok(&a), false), Settled::Context(8));
        let k = (1, 2);
        let o = q.offer_first(k);
        assert_eq!(q.settle(k, Ok(&o), true), Settled::Context(4));
    }

    #[test]
    fn running_out_is_reported() {
        let mut p = ContextIds::default();
        for i in 0..(SLOTS - EAGER_WORDS * 64) as i32 {
            let o = p.offer((1, i));
            assert!(matches!(
                p.settle((1, i), Ok(&o), true),
                Settled::Context(_)
            ));
        }
        let o = p.offer((1, -1));
        assert_eq!(p.settle((1, -1), Ok(&o), true), Settled::Exhausted);
    }
}
