//! Selective acknowledgements: the blocks a receiver reports (RFC 2018)
//! and the sender's scoreboard with the loss-recovery rules of RFC 6675
//! (IsLost, pipe, NextSeg).
//!
//! Everything here counts in stream offsets (byte `k` of the sender's
//! stream is offset `k`); the wire sequence numbers are derived only where
//! a frame is encoded.

pub use crate::wire::packet::SackBlocks;
use std::collections::BTreeMap;

/// Duplicate ACKs (or SACKed segments above a hole) that signal a loss:
/// RFC 6675's DupThresh.
pub const DUP_THRESH: u64 = 3;

/// The most SACK blocks one segment carries: the 40 bytes of TCP option
/// space hold four (two NOPs, kind, length and 4 × 8 bytes = 36), three
/// beside the 12 bytes of a timestamp option.
pub const fn max_blocks(timestamps: bool) -> usize {
    if timestamps {
        3
    } else {
        4
    }
}

/// A set of byte ranges `[start, end)`, kept disjoint and not touching:
/// the out-of-order data a receiver holds, the SACKed data a sender knows.
#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    /// start → end.
    map: BTreeMap<u64, u64>,
}

impl RangeSet {
    /// Adds `[start, end)`; returns the (merged) range now holding it.
    pub fn insert(&mut self, start: u64, end: u64) -> (u64, u64) {
        let (mut s, mut e) = (start, end);
        // A range starting at or before `start` that reaches it.
        if let Some((&ps, &pe)) = self.map.range(..=s).next_back() {
            if pe >= s {
                s = ps;
                e = e.max(pe);
                self.map.remove(&ps);
            }
        }
        // Ranges starting inside (or touching) the new one.
        while let Some((&ns, &ne)) = self.map.range(s..).next() {
            if ns > e {
                break;
            }
            e = e.max(ne);
            self.map.remove(&ns);
        }
        self.map.insert(s, e);
        (s, e)
    }

    /// Forgets everything below `off` (cumulatively acknowledged).
    pub fn remove_below(&mut self, off: u64) {
        while let Some((&s, &e)) = self.map.first_key_value() {
            if s >= off {
                break;
            }
            self.map.remove(&s);
            if e > off {
                self.map.insert(off, e);
                break;
            }
        }
    }

    /// The range holding `off`, if any.
    pub fn containing(&self, off: u64) -> Option<(u64, u64)> {
        let (&s, &e) = self.map.range(..=off).next_back()?;
        (off < e).then_some((s, e))
    }

    /// The first range starting at or after `off`.
    pub fn next_from(&self, off: u64) -> Option<(u64, u64)> {
        self.map.range(off..).next().map(|(&s, &e)| (s, e))
    }

    /// The end of the highest range.
    pub fn highest_end(&self) -> Option<u64> {
        self.map.last_key_value().map(|(_, &e)| e)
    }

    /// True without ranges.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// The ranges in ascending order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.map.iter().map(|(&s, &e)| (s, e))
    }
}

/// The receiver's side: which out-of-order data it holds and which blocks
/// it reported last, so each ACK lists the newest block first and repeats
/// the recent ones (RFC 2018 §4).
#[derive(Clone, Debug, Default)]
pub struct SackReceiver {
    held: RangeSet,
    /// An offset inside each recently reported block, newest first.
    recent: Vec<u64>,
}

impl SackReceiver {
    /// Out-of-order data `[start, end)` arrived.
    pub fn on_out_of_order(&mut self, start: u64, end: u64) {
        self.held.insert(start, end);
        self.recent.retain(|&o| o != start);
        self.recent.insert(0, start);
        self.recent.truncate(2 * max_blocks(false));
    }

    /// The stream is complete up to `rcv_nxt`: blocks below it go.
    pub fn on_in_order(&mut self, rcv_nxt: u64) {
        self.held.remove_below(rcv_nxt);
        self.recent.retain(|&o| o >= rcv_nxt);
    }

    /// The blocks for the next ACK: at most `limit`, newest first, none
    /// repeated.
    pub fn blocks(&self, limit: usize) -> SackBlocks {
        let mut out = SackBlocks::default();
        for &o in &self.recent {
            if out.len() >= limit.min(4) {
                break;
            }
            if let Some((s, e)) = self.held.containing(o) {
                if !out.as_slice().contains(&(s, e)) {
                    out.push(s, e);
                }
            }
        }
        out
    }
}

/// Why [`Scoreboard::next_segment`] chose a segment (RFC 6675 NextSeg
/// rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextRule {
    /// Rule 1: the first hole IsLost declares lost.
    Lost,
    /// Rule 2: data never sent.
    NewData,
    /// Rule 3: a hole not yet known lost, below the highest SACKed byte.
    Unsacked,
    /// Rule 4: the rescue retransmission of the last hole.
    Rescue,
}

/// The sender's view of what the receiver holds above the cumulative ACK,
/// and its place in one loss-recovery episode (RFC 6675 §2–§5).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: RangeSet,
    /// End (exclusive) of the highest byte retransmitted in this recovery
    /// (RFC 6675's HighRxt + 1); `snd_una` at its start.
    high_rxt: u64,
    /// RescueRxt + 1, once set.
    rescue_rxt: Option<u64>,
}

impl Scoreboard {
    /// Records the blocks of an ACK (those within `[snd_una, snd_max)`);
    /// returns the bytes SACKed for the first time.
    pub fn update(&mut self, blocks: &SackBlocks, snd_una: u64, snd_max: u64) -> u64 {
        let mut fresh = 0;
        for &(s, e) in blocks.as_slice() {
            let (s, e) = (s.max(snd_una), e.min(snd_max));
            if s >= e {
                continue;
            }
            let before = self.sacked_bytes_in(s, e);
            self.sacked.insert(s, e);
            fresh += (e - s) - before;
        }
        fresh
    }

    fn sacked_bytes_in(&self, s: u64, e: u64) -> u64 {
        let mut n = 0;
        let from = self.sacked.containing(s).map_or(s, |(rs, _)| rs);
        for (rs, re) in self.sacked.map.range(from..e).map(|(&a, &b)| (a, b)) {
            n += re.min(e).saturating_sub(rs.max(s));
        }
        n
    }

    /// The cumulative ACK moved to `snd_una`.
    pub fn on_cumulative_ack(&mut self, snd_una: u64) {
        self.sacked.remove_below(snd_una);
        self.high_rxt = self.high_rxt.max(snd_una);
    }

    /// True when something above the cumulative ACK is SACKed.
    pub fn has_sacked(&self) -> bool {
        !self.sacked.is_empty()
    }

    /// The SACKed range holding `off`, if any.
    pub fn sacked_at(&self, off: u64) -> Option<(u64, u64)> {
        self.sacked.containing(off)
    }

    /// The first SACKed range at or above `off`.
    pub fn sacked_from(&self, off: u64) -> Option<(u64, u64)> {
        self.sacked.next_from(off)
    }

    /// Unsacked bytes below this offset are lost (IsLost): the start of
    /// the SACKed range at which, counting down from the highest, either
    /// DupThresh ranges or more than (DupThresh − 1) × MSS bytes are
    /// SACKed. 0 when nothing is lost.
    pub fn lost_below(&self, mss: u64) -> u64 {
        let (mut bytes, mut ranges) = (0, 0);
        for (s, e) in self.sacked.iter().rev() {
            bytes += e - s;
            ranges += 1;
            if bytes > (DUP_THRESH - 1) * mss || ranges >= DUP_THRESH {
                return s;
            }
        }
        0
    }

    /// RFC 6675 IsLost for the unsacked byte `off`.
    pub fn is_lost(&self, off: u64, mss: u64) -> bool {
        off < self.lost_below(mss)
    }

    /// Loss recovery starts with the retransmission of `[snd_una,
    /// rxt_end)` (RFC 6675 step 4.3): HighRxt and RescueRxt both there.
    pub fn start_recovery(&mut self, rxt_end: u64) {
        self.high_rxt = rxt_end;
        self.rescue_rxt = Some(rxt_end);
    }

    /// A timeout ended the episode (the SACKed data stays known: this
    /// receiver never reneges).
    pub fn end_recovery(&mut self) {
        self.rescue_rxt = None;
    }

    /// RFC 6675 SetPipe: bytes believed in the network among
    /// `[snd_una, snd_max)` — each unsacked byte not lost, plus each
    /// unsacked byte retransmitted in this recovery.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, mss: u64) -> u64 {
        let lost = self.lost_below(mss);
        let mut pipe = 0;
        let mut at = snd_una;
        let mut holes = self
            .sacked
            .iter()
            .chain(std::iter::once((snd_max, snd_max)));
        while at < snd_max {
            let (s, e) = holes.next().unwrap_or((snd_max, snd_max));
            let hole_end = s.min(snd_max);
            if hole_end > at {
                // Not lost: [max(at, lost), hole_end).
                pipe += hole_end.saturating_sub(at.max(lost));
                // Retransmitted: [at, min(hole_end, high_rxt)).
                pipe += hole_end.min(self.high_rxt).saturating_sub(at);
            }
            at = at.max(e);
        }
        pipe
    }

    /// RFC 6675 NextSeg: the segment `[start, end)` to send next and the
    /// rule that chose it, or `None`. `new_data_end` is how far never-sent
    /// data may go (stream end and receive window; `snd_max` when none).
    pub fn next_segment(
        &self,
        snd_una: u64,
        snd_max: u64,
        new_data_end: u64,
        mss: u64,
    ) -> Option<(u64, u64, NextRule)> {
        let highest_sacked = self.sacked.highest_end().unwrap_or(snd_una);
        let lost = self.lost_below(mss);
        // The first unsacked hole at or above HighRxt, below the highest
        // SACKed byte.
        let hole = self.first_hole_from(self.high_rxt.max(snd_una), highest_sacked, mss);
        if let Some((s, e)) = hole {
            if s < lost {
                return Some((s, e, NextRule::Lost));
            }
        }
        if new_data_end > snd_max {
            return Some((snd_max, new_data_end.min(snd_max + mss), NextRule::NewData));
        }
        if let Some((s, e)) = hole {
            return Some((s, e, NextRule::Unsacked));
        }
        // Rule 4: once per cumulative advance past the last rescue, the
        // segment ending at the highest unsacked outstanding byte (a tail
        // hole no SACK can reveal), if not retransmitted already.
        if self.rescue_rxt.is_some_and(|r| snd_una > r) {
            let mut end = snd_max;
            let mut floor = snd_una;
            if let Some((s, e)) = self.sacked.iter().next_back() {
                if e >= snd_max {
                    end = s;
                    floor = self.sacked.iter().rev().nth(1).map_or(snd_una, |(_, e)| e);
                } else {
                    floor = e;
                }
            }
            if end > snd_una && end > self.high_rxt {
                let start = end.saturating_sub(mss).max(floor).max(self.high_rxt);
                return Some((start, end, NextRule::Rescue));
            }
        }
        None
    }

    /// The first unsacked `[s, e)` (at most one MSS) with `from ≤ s <
    /// below`.
    fn first_hole_from(&self, from: u64, below: u64, mss: u64) -> Option<(u64, u64)> {
        let mut s = from;
        if let Some((_, e)) = self.sacked.containing(s) {
            s = e;
        }
        if s >= below {
            return None;
        }
        let next = self.sacked.next_from(s).map_or(below, |(ns, _)| ns);
        Some((s, next.min(s + mss)))
    }

    /// A segment `[start, end)` chosen by `rule` was sent (RFC 6675 C.2,
    /// C.4): HighRxt follows retransmissions, RescueRxt the rescue.
    pub fn on_sent(&mut self, end: u64, rule: NextRule, recovery_point: u64) {
        match rule {
            NextRule::Lost | NextRule::Unsacked => self.high_rxt = self.high_rxt.max(end),
            NextRule::Rescue => self.rescue_rxt = Some(recovery_point),
            NextRule::NewData => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_when_they_touch_and_trim_below_the_ack() {
        let mut r = RangeSet::default();
        assert_eq!(r.insert(10, 20), (10, 20));
        assert_eq!(r.insert(30, 40), (30, 40));
        assert_eq!(r.insert(20, 30), (10, 40));
        assert_eq!(r.insert(50, 60), (50, 60));
        assert_eq!(r.insert(45, 55), (45, 60));
        r.remove_below(15);
        assert_eq!(r.iter().collect::<Vec<_>>(), [(15, 40), (45, 60)]);
        assert_eq!(r.containing(39), Some((15, 40)));
        assert_eq!(r.containing(40), None);
    }

    #[test]
    fn a_receiver_lists_the_newest_block_first_and_at_most_the_limit() {
        let mut r = SackReceiver::default();
        for s in [2, 4, 6, 8, 10] {
            r.on_out_of_order(s * 1000, s * 1000 + 1000);
        }
        let b = r.blocks(4);
        assert_eq!(
            b.as_slice(),
            [(10_000, 11_000), (8000, 9000), (6000, 7000), (4000, 5000)]
        );
        assert_eq!(b.option_len(), 36);
        assert_eq!(r.blocks(3).as_slice().len(), 3);
        // 7000..8000 joins two blocks: the joined one comes first.
        r.on_out_of_order(7000, 8000);
        assert_eq!(
            r.blocks(4).as_slice(),
            [(6000, 9000), (10_000, 11_000), (4000, 5000), (2000, 3000)]
        );
        r.on_in_order(5000);
        assert_eq!(r.blocks(4).as_slice(), [(6000, 9000), (10_000, 11_000)]);
    }

    #[test]
    fn is_lost_needs_three_sacked_segments_or_ranges_above() {
        let mut b = Scoreboard::default();
        let mut blocks = SackBlocks::default();
        blocks.push(2000, 3000);
        blocks.push(4000, 5000);
        assert_eq!(b.update(&blocks, 1000, 10_000), 2000);
        assert!(!b.is_lost(1000, 1000));
        let mut more = SackBlocks::default();
        more.push(6000, 7000);
        more.push(2000, 3000);
        assert_eq!(b.update(&more, 1000, 10_000), 1000);
        // Three ranges above 1000 and 3000 B above: lost; above 3000 only two.
        assert!(b.is_lost(1000, 1000));
        assert!(!b.is_lost(3000, 1000));
        assert_eq!(b.lost_below(1000), 2000);
    }

    #[test]
    fn pipe_counts_holes_not_lost_and_retransmissions() {
        let mut b = Scoreboard::default();
        let mut blocks = SackBlocks::default();
        blocks.push(6000, 7000);
        blocks.push(4000, 5000);
        blocks.push(2000, 3000);
        b.update(&blocks, 1000, 10_000);
        // Before any retransmission: 1000..2000 lost (0), 3000..4000 and
        // 5000..6000 not lost, 7000..10 000 in flight.
        assert_eq!(b.pipe(1000, 10_000, 1000), 5000);
        b.start_recovery(2000);
        assert_eq!(b.pipe(1000, 10_000, 1000), 6000);
        // NextSeg: nothing lost above HighRxt, no new data: rule 3 picks
        // the hole 3000..4000.
        assert_eq!(
            b.next_segment(1000, 10_000, 10_000, 1000),
            Some((3000, 4000, NextRule::Unsacked))
        );
        assert_eq!(
            b.next_segment(1000, 10_000, 12_000, 1000),
            Some((10_000, 11_000, NextRule::NewData))
        );
    }
}
