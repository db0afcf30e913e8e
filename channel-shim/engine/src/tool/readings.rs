//! What the tool interface's variables read: a snapshot of the engine's
//! counters, queues and settings, taken by the C layer before every call
//! that reads a value, so the tool state never holds the engine.

use crate::engine::{CollThresholds, Counters, Engine, RENDEZVOUS_WINDOW};
use crate::envelope::Kind;
use crate::transport::Transport;

/// The engine's values the variables expose, at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Readings {
    /// Message and matching counters since `MPI_Init`.
    pub counters: Counters,
    /// Unsuccessful matches while searching the posted-receive queue (an
    /// arriving message examined that many receives it did not match).
    pub posted_search_misses: u64,
    /// Unsuccessful matches while searching the unexpected-message queue
    /// (a new receive examined that many messages it did not match).
    pub unexpected_search_misses: u64,
    /// Receives waiting in the posted queue now.
    pub posted_len: u64,
    /// Messages waiting in the unexpected queue now.
    pub unexpected_len: u64,
    /// Eager payload bytes the unexpected queue holds now.
    pub unexpected_bytes: u64,
    /// Longest the posted queue has been since the previous readings.
    pub posted_peak: u64,
    /// Longest the unexpected queue has been since the previous readings.
    pub unexpected_peak: u64,
    /// Settings the control variables mirror.
    pub settings: Settings,
}

/// The rank-side settings the control variables mirror.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Messages up to this many bytes go eager (0: not known before `MPI_Init`).
    pub eager_threshold: u64,
    /// Largest piece of rendezvous data one message carries, bytes (0
    /// before `MPI_Init`).
    pub rendezvous_chunk: u64,
    /// Rendezvous pieces a sender may have unacknowledged.
    pub rendezvous_window: u32,
    /// Collective algorithm thresholds.
    pub coll: CollThresholds,
    /// Thread level `MPI_Init_thread` provided (0, `MPI_THREAD_SINGLE`, before).
    pub thread_level: i32,
}

impl Default for Settings {
    /// The settings before `MPI_Init`: the engine's defaults, the sizes the
    /// network decides unknown (0).
    fn default() -> Self {
        Settings {
            eager_threshold: 0,
            rendezvous_chunk: 0,
            rendezvous_window: RENDEZVOUS_WINDOW,
            coll: CollThresholds::default(),
            thread_level: 0,
        }
    }
}

impl<T: Transport> Engine<T> {
    /// The values the tool interface's variables read now; `thread_level`
    /// is the level `MPI_Init_thread` provided (the C layer keeps it). The
    /// queues' peaks are taken: the next readings report the peaks since
    /// these, so hand every readings to the tool interface.
    pub fn tool_readings(&mut self, thread_level: i32) -> Readings {
        let m = self.queues.counters();
        let (posted_peak, unexpected_peak) = self.queues.take_peaks();
        Readings {
            posted_peak: posted_peak as u64,
            unexpected_peak: unexpected_peak as u64,
            counters: self.counters(),
            posted_search_misses: m.unsuccessful_posted,
            unexpected_search_misses: m.unsuccessful_unexpected,
            posted_len: self.queues.posted_len() as u64,
            unexpected_len: self.queues.unexpected_len() as u64,
            unexpected_bytes: self
                .queues
                .unexpected()
                .filter(|m| m.item.env.kind == Kind::Eager)
                .map(|m| m.item.payload.len() as u64)
                .sum(),
            settings: Settings {
                eager_threshold: self.eager_threshold(),
                rendezvous_chunk: self.cfg.rendezvous_chunk,
                rendezvous_window: self.cfg.rendezvous_window,
                coll: self.cfg.coll,
                thread_level,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::datatype::BuiltinType;
    use crate::mem_transport::run_world;
    use crate::{CommId, DatatypeId, Dest, SendMode, Source, Tag};

    /// k messages wait unexpected, then are received newest first: the
    /// queue reads k, their bytes, and k(k-1)/2 + k misses (the probe's
    /// receive of the last message examined the k older ones first).
    #[test]
    fn queue_lengths_bytes_and_misses_follow_the_messages() {
        const K: usize = 6;
        const INT: DatatypeId = DatatypeId::Builtin(BuiltinType::Int);
        let out = run_world(2, 1024, |e| {
            let w = CommId::WORLD;
            let data = [7u8; 40];
            if e.rank() == 0 {
                for tag in 0..=K as i32 {
                    e.send(SendMode::Standard, &data, 10, INT, Dest::Rank(1), tag, w)
                        .unwrap();
                }
                return None;
            }
            let before = e.tool_readings(0);
            e.probe(Source::Rank(0), Tag::Value(K as i32), w).unwrap();
            let queued = e.tool_readings(0);
            e.recv(10, INT, Source::Rank(0), Tag::Value(K as i32), w)
                .unwrap();
            for tag in (0..K as i32).rev() {
                e.recv(10, INT, Source::Rank(0), Tag::Value(tag), w)
                    .unwrap();
            }
            Some((before, queued, e.tool_readings(2)))
        });
        let (before, queued, after) = out[1].unwrap();
        assert_eq!((before.unexpected_len, before.posted_len), (0, 0));
        assert_eq!(queued.unexpected_len, K as u64 + 1);
        assert_eq!(queued.unexpected_bytes, 40 * (K as u64 + 1));
        assert_eq!(queued.unexpected_peak, K as u64 + 1);
        assert_eq!(after.unexpected_peak, K as u64 + 1);
        assert_eq!(after.posted_peak, 0);
        assert_eq!(after.unexpected_len, 0);
        assert_eq!(after.unexpected_bytes, 0);
        let k = K as u64;
        assert_eq!(after.unexpected_search_misses, k + k * (k - 1) / 2);
        assert_eq!(after.posted_search_misses, 0);
        assert_eq!(after.counters.messages_received, k + 1);
        assert_eq!(after.settings.eager_threshold, 1024);
        assert_eq!(after.settings.thread_level, 2);
    }
}
