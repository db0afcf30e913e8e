//! MPI message matching: the posted-receive queue and the unexpected-message
//! queue of one process.
//!
//! Both queues are single lists for the whole process (as in MPICH), searched
//! from the oldest entry, so MPI's non-overtaking order holds per (source,
//! communicator): an arriving message takes the oldest posted receive it
//! matches, a new receive takes the oldest queued message it matches.
//! Messages match only receives of the same context id.
//!
//! Counters follow the matching micro-benchmark of the seeds: every queue
//! entry examined without matching counts as one unsuccessful match attempt,
//! and every match is classified as *expected* or *unexpected* by virtual
//! time — expected when the message's arrival time is not before the
//! receive's posting time — so the counts do not depend on when the process
//! happened to read its socket.

use std::collections::VecDeque;

/// Source selector of a receive or probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A rank (of the communicator at the API; of the world inside the queues).
    Rank(u32),
    /// `MPI_ANY_SOURCE`.
    Any,
    /// `MPI_PROC_NULL` (API only; never queued).
    ProcNull,
}

/// Tag selector of a receive or probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    /// A tag value.
    Value(i32),
    /// `MPI_ANY_TAG`.
    Any,
}

/// What a receive accepts: context id, world source and tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Context id of the communicator (point-to-point or collective).
    pub context: u32,
    /// World rank of the source, or any.
    pub src: Option<u32>,
    /// Tag, or any.
    pub tag: Option<i32>,
}

impl Pattern {
    /// Whether a message with this (context, world source, tag) matches.
    pub fn accepts(&self, context: u32, src: u32, tag: i32) -> bool {
        self.context == context
            && self.src.map_or(true, |s| s == src)
            && self.tag.map_or(true, |t| t == tag)
    }
}

/// A receive waiting in the posted queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted<R> {
    /// What it accepts.
    pub pattern: Pattern,
    /// Scaled real time at posting, ns.
    pub posted_at: u64,
    /// The owner's handle (a request id in the engine).
    pub item: R,
}

/// A message waiting in the unexpected queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrived<M> {
    /// Context id it was sent on.
    pub context: u32,
    /// Sending world rank.
    pub src: u32,
    /// Its tag.
    pub tag: i32,
    /// Virtual arrival time, ns.
    pub vtime_ns: u64,
    /// The message itself (envelope and payload in the engine).
    pub item: M,
}

/// Matching counters of one process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchCounters {
    /// Matches where the message arrived (virtually) after the receive was posted.
    pub expected: u64,
    /// Matches where the message arrived (virtually) before the receive was posted.
    pub unexpected: u64,
    /// Queue entries examined without matching (both queues).
    pub unsuccessful: u64,
    /// Of those, posted receives an arriving message examined.
    pub unsuccessful_posted: u64,
    /// Of those, queued messages a new receive examined.
    pub unsuccessful_unexpected: u64,
}

/// The two queues and their counters.
#[derive(Debug)]
pub struct MatchQueues<R, M> {
    posted: VecDeque<Posted<R>>,
    unexpected: VecDeque<Arrived<M>>,
    counters: MatchCounters,
    /// Longest each queue has been since [`MatchQueues::take_peaks`]: (posted, unexpected).
    peaks: (usize, usize),
}

impl<R, M> Default for MatchQueues<R, M> {
    fn default() -> Self {
        MatchQueues {
            posted: VecDeque::new(),
            unexpected: VecDeque::new(),
            counters: MatchCounters::default(),
            peaks: (0, 0),
        }
    }
}

impl<R: PartialEq, M> MatchQueues<R, M> {
    /// Empty queues.
    pub fn new() -> Self {
        Self::default()
    }

    fn classify(&mut self, posted_at: u64, vtime_ns: u64) {
        if vtime_ns >= posted_at {
            self.counters.expected += 1;
        } else {
            self.counters.unexpected += 1;
        }
    }

    fn miss_posted(&mut self, entries: usize) {
        self.counters.unsuccessful += entries as u64;
        self.counters.unsuccessful_posted += entries as u64;
    }

    fn miss_unexpected(&mut self, entries: usize) {
        self.counters.unsuccessful += entries as u64;
        self.counters.unsuccessful_unexpected += entries as u64;
    }

    /// A message arrived: returns the oldest posted receive it matches
    /// (removed from the queue), or queues the message as unexpected.
    pub fn arrive(&mut self, msg: Arrived<M>) -> Option<(Posted<R>, Arrived<M>)> {
        let pos = self
            .posted
            .iter()
            .position(|p| p.pattern.accepts(msg.context, msg.src, msg.tag));
        match pos {
            Some(i) => {
                self.miss_posted(i);
                let p = self.posted.remove(i).expect("index from position");
                self.classify(p.posted_at, msg.vtime_ns);
                Some((p, msg))
            }
            None => {
                self.miss_posted(self.posted.len());
                self.unexpected.push_back(msg);
                self.peaks.1 = self.peaks.1.max(self.unexpected.len());
                None
            }
        }
    }

    /// A receive is posted: returns the oldest queued message it matches
    /// (removed from the queue), or queues the receive.
    pub fn post(&mut self, recv: Posted<R>) -> Option<(Posted<R>, Arrived<M>)> {
        let pos = self
            .unexpected
            .iter()
            .position(|m| recv.pattern.accepts(m.context, m.src, m.tag));
        match pos {
            Some(i) => {
                self.miss_unexpected(i);
                let m = self.unexpected.remove(i).expect("index from position");
                self.classify(recv.posted_at, m.vtime_ns);
                Some((recv, m))
            }
            None => {
                self.miss_unexpected(self.unexpected.len());
                self.posted.push_back(recv);
                self.peaks.0 = self.peaks.0.max(self.posted.len());
                None
            }
        }
    }

    /// The oldest queued message `pattern` matches, left in the queue
    /// (`MPI_Iprobe`; not counted).
    pub fn peek(&self, pattern: &Pattern) -> Option<&Arrived<M>> {
        self.unexpected
            .iter()
            .find(|m| pattern.accepts(m.context, m.src, m.tag))
    }

    /// Removes and returns the oldest queued message `pattern` matches
    /// (`MPI_Improbe`; not counted).
    pub fn take(&mut self, pattern: &Pattern) -> Option<Arrived<M>> {
        let i = self
            .unexpected
            .iter()
            .position(|m| pattern.accepts(m.context, m.src, m.tag))?;
        self.unexpected.remove(i)
    }

    /// Removes and returns the oldest queued message `which` selects
    /// (a cancelled send's message; not counted).
    pub fn remove_unexpected(&mut self, which: impl Fn(&Arrived<M>) -> bool) -> Option<Arrived<M>> {
        let i = self.unexpected.iter().position(which)?;
        self.unexpected.remove(i)
    }

    /// Removes a posted receive (`MPI_Cancel`); false if it is not queued.
    pub fn cancel(&mut self, item: &R) -> bool {
        match self.posted.iter().position(|p| &p.item == item) {
            Some(i) => {
                self.posted.remove(i);
                true
            }
            None => false,
        }
    }

    /// Number of posted receives.
    pub fn posted_len(&self) -> usize {
        self.posted.len()
    }

    /// The posted receives, oldest first.
    pub fn posted(&self) -> impl Iterator<Item = &Posted<R>> {
        self.posted.iter()
    }

    /// Number of unexpected messages.
    pub fn unexpected_len(&self) -> usize {
        self.unexpected.len()
    }

    /// The unexpected messages, oldest first.
    pub fn unexpected(&self) -> impl Iterator<Item = &Arrived<M>> {
        self.unexpected.iter()
    }

    /// The longest the (posted, unexpected) queues have been since the
    /// previous call (or since they were made); the next period starts at
    /// their current lengths. The tool interface's high-water marks.
    pub fn take_peaks(&mut self) -> (usize, usize) {
        let peaks = self.peaks;
        self.peaks = (self.posted.len(), self.unexpected.len());
        peaks
    }

    /// The counters so far.
    pub fn counters(&self) -> MatchCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(context: u32, src: u32, tag: i32, t: u64, id: u32) -> Arrived<u32> {
        Arrived {
            context,
            src,
            tag,
            vtime_ns: t,
            item: id,
        }
    }

    fn recv(context: u32, src: Option<u32>, tag: Option<i32>, t: u64, id: u32) -> Posted<u32> {
        Posted {
            pattern: Pattern { context, src, tag },
            posted_at: t,
            item: id,
        }
    }

    /// The seed paper's Tag algorithm with all messages unexpected.
    #[test]
    fn micro_benchmark_unexpected_queue() {
        for n in 1..=90u32 {
            for reverse in [false, true] {
                let mut q: MatchQueues<u32, u32> = MatchQueues::new();
                for tag in 0..n {
                    assert!(q.arrive(msg(0, 1, tag as i32, tag as u64, tag)).is_none());
                }
                let order: Vec<u32> = if reverse {
                    (0..n).rev().collect()
                } else {
                    (0..n).collect()
                };
                for (k, &tag) in order.iter().enumerate() {
                    let (_, m) = q
                        .post(recv(0, Some(1), Some(tag as i32), 1000 + k as u64, 0))
                        .unwrap();
                    assert_eq!(m.item, tag);
                }
                let c = q.counters();
                let want = if reverse { (n * (n - 1) / 2) as u64 } else { 0 };
                assert_eq!(c.unsuccessful, want, "n={n} reverse={reverse}");
                assert_eq!(c.unsuccessful_unexpected, want);
                assert_eq!(c.unsuccessful_posted, 0);
                assert_eq!((c.expected, c.unexpected), (0, n as u64));
            }
        }
    }

    /// Same with the receives pre-posted: the posted queue is searched.
    #[test]
    fn micro_benchmark_posted_queue() {
        for n in 1..=90u32 {
            for reverse in [false, true] {
                let mut q: MatchQueues<u32, u32> = MatchQueues::new();
                let order: Vec<u32> = if reverse {
                    (0..n).rev().collect()
                } else {
                    (0..n).collect()
                };
                for &tag in &order {
                    assert!(q.post(recv(0, Some(1), Some(tag as i32), 0, tag)).is_none());
                }
                for tag in 0..n {
                    let (p, _) = q.arrive(msg(0, 1, tag as i32, 10, tag)).unwrap();
                    assert_eq!(p.item, tag);
                }
                let want = if reverse { (n * (n - 1) / 2) as u64 } else { 0 };
                assert_eq!(q.counters().unsuccessful, want);
                assert_eq!(q.counters().unsuccessful_posted, want);
                assert_eq!(q.counters().unsuccessful_unexpected, 0);
                assert_eq!(q.counters().expected, n as u64);
            }
        }
    }

    #[test]
    fn non_overtaking_and_wildcards() {
        let mut q: MatchQueues<u32, u32> = MatchQueues::new();
        q.arrive(msg(0, 2, 5, 0, 1));
        q.arrive(msg(0, 3, 5, 0, 2));
        q.arrive(msg(0, 2, 6, 0, 3));
        q.arrive(msg(0, 2, 5, 0, 4));
        // Any source, tag 5: the oldest.
        assert_eq!(q.post(recv(0, None, Some(5), 1, 0)).unwrap().1.item, 1);
        // Source 2, any tag: oldest from 2 is now id 3.
        assert_eq!(q.post(recv(0, Some(2), None, 1, 0)).unwrap().1.item, 3);
        assert_eq!(q.post(recv(0, Some(2), Some(5), 1, 0)).unwrap().1.item, 4);
        assert_eq!(q.post(recv(0, None, None, 1, 0)).unwrap().1.item, 2);
    }

    #[test]
    fn contexts_never_match() {
        let mut q: MatchQueues<u32, u32> = MatchQueues::new();
        q.arrive(msg(4, 1, 0, 0, 1));
        assert!(q.post(recv(0, None, None, 0, 7)).is_none());
        assert_eq!(q.unexpected_len(), 1);
        assert_eq!(q.arrive(msg(0, 1, 0, 0, 2)).unwrap().0.item, 7);
    }

    #[test]
    fn classification_by_virtual_time() {
        let mut q: MatchQueues<u32, u32> = MatchQueues::new();
        // Read early from the socket, but virtually arrives at 500 > posting at 100.
        q.arrive(msg(0, 1, 0, 500, 1));
        q.post(recv(0, Some(1), Some(0), 100, 0)).unwrap();
        assert_eq!(q.counters().expected, 1);
        // Posted at 300, read late, but it virtually arrived at 200.
        q.post(recv(0, Some(1), Some(0), 300, 0));
        q.arrive(msg(0, 1, 0, 200, 2)).unwrap();
        assert_eq!(q.counters().unexpected, 1);
    }

    #[test]
    fn peaks_since_the_last_take() {
        let mut q: MatchQueues<u32, u32> = MatchQueues::new();
        for t in 0..5 {
            q.arrive(msg(0, 1, t, 0, t as u32));
        }
        q.post(recv(0, Some(1), Some(0), 1, 0)).unwrap();
        q.post(recv(0, Some(2), None, 1, 7));
        assert_eq!(q.take_peaks(), (1, 5));
        // The next period starts at the current lengths (1 posted, 4 queued).
        assert_eq!(q.take_peaks(), (1, 4));
        q.post(recv(0, Some(1), Some(1), 1, 0)).unwrap();
        assert_eq!(q.take_peaks(), (1, 4));
        assert_eq!(q.take_peaks(), (1, 3));
    }

    #[test]
    fn cancel_and_probe() {
        let mut q: MatchQueues<u32, u32> = MatchQueues::new();
        q.post(recv(0, None, None, 0, 9));
        assert!(q.cancel(&9));
        assert!(!q.cancel(&9));
        q.arrive(msg(0, 1, 3, 0, 5));
        let pat = Pattern {
            context: 0,
            src: None,
            tag: Some(3),
        };
        assert_eq!(q.peek(&pat).unwrap().item, 5);
        assert_eq!(q.take(&pat).unwrap().item, 5);
        assert!(q.peek(&pat).is_none());
    }
}
