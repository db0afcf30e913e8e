//! What a rank waits for when an MPI call blocks: the peers of its
//! unfinished operations. The engine reports it through the transport
//! after a blocking wait has lasted [`REPORT_WAITING_AFTER`] with nothing
//! arriving, so the gateway can say who waits for whom when a whole job
//! stalls (a deadlock) — and short waits cost nothing.

use crate::engine::Engine;
use crate::request::{Pending, RecvPhase, State};
use crate::transport::Transport;
use std::time::Duration;

/// How long a blocking wait lasts with nothing arriving before the engine
/// reports what it waits for.
pub const REPORT_WAITING_AFTER: Duration = Duration::from_millis(200);

/// The peers a blocked rank waits for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Waiting {
    /// A receive from `MPI_ANY_SOURCE` is pending.
    pub any_source: bool,
    /// World ranks, ascending, each once: sources of pending receives,
    /// destinations of sends waiting for their clear-to-send, their match
    /// (synchronous sends) or the acks of their pieces.
    pub peers: Vec<u32>,
}

impl<T: Transport> Engine<T> {
    /// What this rank's unfinished operations wait for.
    pub fn waiting(&self) -> Waiting {
        let mut w = Waiting::default();
        for p in self.queues.posted() {
            match p.pattern.src {
                Some(src) => w.peers.push(src),
                None => w.any_source = true,
            }
        }
        let reqs = self.rdv_recv.values();
        let sends = self.rdv_send.values().chain(self.sync_send.values());
        for r in reqs.chain(sends).filter_map(|r| self.reqs.get(*r).ok()) {
            match &r.state {
                State::Pending(Pending::Recv {
                    phase: RecvPhase::Data { rts, .. },
                    ..
                }) => w.peers.push(rts.src),
                State::Pending(Pending::Send { dst, .. }) => w.peers.push(*dst),
                _ => {}
            }
        }
        w.peers.extend(self.streams_out.values().map(|s| s.dst()));
        // A collective the analytic model times awaits its release from
        // this rank itself (the transport delivers it): it waits for the
        // model, that is for the other members, not for a peer of its own.
        let me = self.t.rank();
        w.peers.retain(|&p| p != me);
        w.peers.sort_unstable();
        w.peers.dedup();
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::{BuiltinType, DatatypeId};
    use crate::mem_transport::run_world;
    use crate::{CommId, Dest, SendMode, Source, Tag};

    const BYTE: DatatypeId = DatatypeId::Builtin(BuiltinType::Byte);

    #[test]
    fn pending_receives_and_sends_name_their_peers() {
        run_world(4, 8, |e| {
            if e.rank() != 0 {
                return;
            }
            assert_eq!(e.waiting(), Waiting::default());
            let w = CommId::WORLD;
            let r1 = e.irecv(1, BYTE, Source::Rank(3), Tag::Any, w).unwrap();
            let r2 = e.irecv(1, BYTE, Source::Any, Tag::Value(5), w).unwrap();
            // A rendezvous send (above the 8-byte eager limit) waits for
            // its clear-to-send; a synchronous one for its match.
            let s1 = e
                .isend(SendMode::Standard, &[0; 64], 64, BYTE, Dest::Rank(2), 0, w)
                .unwrap();
            let s2 = e
                .isend(SendMode::Synchronous, &[0; 4], 4, BYTE, Dest::Rank(3), 0, w)
                .unwrap();
            let got = e.waiting();
            assert!(got.any_source);
            assert_eq!(got.peers, vec![2, 3]);
            for r in [r1, r2] {
                e.cancel(r).unwrap();
                e.wait(r).unwrap();
            }
            let _ = (s1, s2); // never matched: the job ends here
            assert_eq!(e.waiting().peers, vec![2, 3]);
        });
    }
}
