//! File accesses through a storage node of the simulated network
//! (`[[storage]]` in the network file). The rank still reads and writes
//! the real file; in addition every access it makes on the file system
//! (an independent access's segments, an aggregator's runs in a
//! collective one) becomes requests to the storage node's endpoint — a
//! write's carrying its data, a read's answered by a reply carrying it —
//! of at most [`PIECE`] bytes each, at most [`WINDOW`] unanswered, and the
//! call returns when every reply has arrived. So the accesses take the
//! network's and the node's time, and show in captures and the report.

use super::view::FileSegment;
use crate::transport::Transport;
use crate::Engine;
use mpinetsim_protocol::storage::{StorageOp, StorageRequest};
use std::collections::HashSet;

/// Largest piece of one request, bytes (as a message piece).
pub const PIECE: u64 = mpinetsim_protocol::MAX_MESSAGE_PIECE;

/// Requests a rank keeps unanswered at once, as a parallel file system
/// client keeps a few RPCs in flight per target.
pub const WINDOW: usize = 8;

/// This rank's connection to the storage node.
#[derive(Debug)]
pub struct StorageClient {
    /// The storage node's endpoint (a number after the world ranks).
    pub endpoint: u32,
    next_id: u64,
    unanswered: HashSet<u64>,
}

impl StorageClient {
    /// A client of the node at `endpoint`.
    pub fn new(endpoint: u32) -> StorageClient {
        StorageClient {
            endpoint,
            next_id: 1,
            unanswered: HashSet::new(),
        }
    }

    /// Notes a reply: true when it answers one of this rank's requests.
    pub fn answered(&mut self, reply: &[u8]) -> bool {
        StorageRequest::decode(reply).is_some_and(|r| self.unanswered.remove(&r.id))
    }
}

/// The requests for `segments` in pieces of at most [`PIECE`] bytes, with
/// where each piece's data starts in the segments' concatenated stream.
fn pieces(segments: &[FileSegment]) -> Vec<(u64, u64, usize)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for s in segments {
        let mut done = 0;
        while done < s.len {
            let n = (s.len - done).min(PIECE);
            out.push((s.offset + done, n, at + done as usize));
            done += n;
        }
        at += s.len as usize;
    }
    out
}

impl<T: Transport> Engine<T> {
    /// The storage node's share of an access this rank made to the file
    /// system: requests for `segments` (a write sends `data`, the
    /// segments' bytes in order), at most [`WINDOW`] unanswered, and waits
    /// for every reply. Nothing without a storage node.
    pub(crate) fn storage_access(&mut self, op: StorageOp, segments: &[FileSegment], data: &[u8]) {
        let Some(endpoint) = self.files.storage.as_ref().map(|s| s.endpoint) else {
            return;
        };
        for (offset, len, at) in pieces(segments) {
            while self.storage_unanswered() >= WINDOW {
                self.progress(true);
            }
            let client = self.files.storage.as_mut().expect("checked above");
            let req = StorageRequest {
                op,
                id: client.next_id,
                offset,
                len,
            };
            client.next_id += 1;
            client.unanswered.insert(req.id);
            let mut bytes = req.encode();
            if op == StorageOp::Write {
                match data.get(at..at + len as usize) {
                    Some(d) => bytes.extend_from_slice(d),
                    None => bytes.resize(req.request_len() as usize, 0),
                }
            }
            self.t.send(endpoint, bytes);
        }
        while self.storage_unanswered() > 0 {
            self.progress(true);
        }
    }

    /// Sends this rank's file accesses through the storage node at
    /// `endpoint` from now on (the C layer calls it once the job says
    /// there is one).
    pub fn use_storage_node(&mut self, endpoint: u32) {
        if self.files.storage.as_ref().map(|s| s.endpoint) != Some(endpoint) {
            self.files.storage = Some(StorageClient::new(endpoint));
        }
    }

    fn storage_unanswered(&self) -> usize {
        self.files
            .storage
            .as_ref()
            .map_or(0, |s| s.unanswered.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_cut_into_pieces_with_their_data_positions() {
        let segs = [
            FileSegment {
                offset: 100,
                len: PIECE + 5,
            },
            FileSegment {
                offset: 10 * PIECE,
                len: 3,
            },
        ];
        assert_eq!(
            pieces(&segs),
            vec![
                (100, PIECE, 0),
                (100 + PIECE, 5, PIECE as usize),
                (10 * PIECE, 3, PIECE as usize + 5)
            ]
        );
    }

    #[test]
    fn only_replies_to_unanswered_requests_count() {
        let mut c = StorageClient::new(4);
        c.unanswered.insert(3);
        let reply = |id| {
            StorageRequest {
                op: StorageOp::Write,
                id,
                offset: 0,
                len: 1,
            }
            .reply()
        };
        assert!(!c.answered(&reply(2)));
        assert!(c.answered(&reply(3)));
        assert!(!c.answered(&reply(3)));
        assert!(!c.answered(b"garbage"));
    }
}
