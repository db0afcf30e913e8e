//! Cancelling sends (`MPI_Cancel` of a send request).
//!
//! A send can be cancelled as long as no receive has matched its message.
//! Its message may already sit in the destination's unexpected queue (an
//! eager message, or a rendezvous request): the sender asks the
//! destination with a cancel request naming the message by (source,
//! context, sequence number); the destination removes it if it is still
//! unmatched and answers with a cancel reply. Both travel the network like
//! any message (envelope kinds 8 and 9), so a cancel is visible in
//! captures. The send's request completes when the reply has come (and,
//! if the message was not cancelled, when the send itself has): its status
//! then says whether it was cancelled. A cancelled rendezvous send never
//! sends its data; a cancelled buffered send gives its space back.
//!
//! Messages travel in order between two processes, so the request always
//! arrives after the message it names: a message the destination does not
//! hold any more was matched.

use crate::engine::Engine;
use crate::envelope::{CallCode, Envelope, Kind};
use crate::error::MpiResult;
use crate::request::{Pending, RecvPhase, RequestId, State};
use crate::status::Completion;
use crate::transport::Transport;

impl<T: Transport> Engine<T> {
    /// Asks the destination of send `req`'s message to drop it, unless the
    /// request already asked or sent nothing (`MPI_PROC_NULL`).
    pub(crate) fn cancel_send(&mut self, req: RequestId) -> MpiResult<()> {
        let r = self.reqs.get(req)?;
        let Some(sent) = r.sent else {
            return Ok(());
        };
        if r.cancelling.is_some() || matches!(r.state, State::Inactive) {
            return Ok(());
        }
        let op = self.new_op();
        let env = Envelope {
            kind: Kind::CancelRequest,
            flags: 0,
            call: CallCode::Cancel,
            src: self.t.rank(),
            dst: sent.dst,
            tag: 0,
            context: sent.context,
            seq: sent.seq,
            sender_op: op,
            receiver_op: 0,
            msg_len: 0,
            payload_len: 0,
        };
        let r = self.reqs.get_mut(req)?;
        r.cancelling = Some(op);
        if matches!(r.state, State::Done(_)) {
            // The message left; the reply decides what the send reports.
            r.state = State::Pending(Pending::CancelReply);
        }
        self.cancels.insert(op, req);
        self.tsend(sent.dst, &env, &[]);
        Ok(())
    }

    /// A cancel request: drops the message it names if no receive matched
    /// it yet, and answers.
    pub(crate) fn on_cancel_request(&mut self, env: Envelope) {
        let dropped = self
            .queues
            .remove_unexpected(|m| {
                let e = &m.item.env;
                e.src == env.src && e.context == env.context && e.seq == env.seq
            })
            .is_some();
        let reply = Envelope {
            kind: Kind::CancelReply,
            src: env.dst,
            dst: env.src,
            msg_len: u64::from(dropped),
            ..env
        };
        self.tsend(reply.dst, &reply, &[]);
    }

    /// The destination's answer to a cancel request.
    pub(crate) fn on_cancel_reply(&mut self, env: Envelope) {
        let Some(req) = self.cancels.remove(&env.sender_op) else {
            self.counters.bad_messages += 1;
            return;
        };
        let Ok(r) = self.reqs.get_mut(req) else {
            return;
        };
        if r.cancelling != Some(env.sender_op) {
            return;
        }
        r.cancelling = None;
        let sent = r.sent;
        if env.msg_len == 0 {
            // Matched before the request came: the send goes on (or is done).
            if matches!(r.state, State::Pending(Pending::CancelReply)) {
                self.finish(req, Completion::inactive());
            }
            return;
        }
        // Cancelled: what still waits to send it gives up.
        if let Some(s) = sent {
            self.rdv_send.retain(|_, &mut q| q != s.carrier);
            self.sync_send.retain(|_, &mut q| q != s.carrier);
            if s.carrier != req {
                if let Ok(c) = self.reqs.get(s.carrier) {
                    if matches!(c.state, State::Pending(_)) {
                        self.finish(s.carrier, Completion::inactive());
                    }
                }
            }
        }
        self.finish_cancelled(req, None);
    }

    /// `MPI_Cancel`: an unmatched receive is cancelled at once; a send asks
    /// its destination (see the module docs); anything else is left to
    /// complete.
    pub fn cancel(&mut self, req: RequestId) -> MpiResult<()> {
        self.note_call();
        let r = self.reqs.get(req)?;
        match r.state {
            State::Pending(Pending::Recv {
                phase: RecvPhase::Posted,
                ..
            }) => {
                self.cancel_recv(req);
                Ok(())
            }
            State::Pending(Pending::Recv { .. }) | State::Pending(Pending::Pair { .. }) => Ok(()),
            _ => self.cancel_send(req),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::comm::CommId;
    use crate::datatype::{BuiltinType as B, DatatypeId};
    use crate::matching::{Source, Tag};
    use crate::mem_transport::run_world;
    use crate::request::{Dest, SendMode};

    const W: CommId = CommId::WORLD;
    const INT: DatatypeId = DatatypeId::Builtin(B::Int);

    fn ints(n: usize, base: i32) -> Vec<u8> {
        (0..n as i32)
            .flat_map(|x| (x + base).to_ne_bytes())
            .collect()
    }

    #[test]
    fn an_unmatched_send_is_cancelled_and_never_received() {
        // Eager (4 ints) and rendezvous (100 ints over a 64-byte limit), in
        // every mode; the receiver then gets the second message only.
        for n in [4usize, 100] {
            for mode in [
                SendMode::Standard,
                SendMode::Synchronous,
                SendMode::Buffered,
            ] {
                run_world(2, 64, |e| {
                    if e.rank() == 0 {
                        if mode == SendMode::Buffered {
                            e.buffer_attach(0, 4 * n + 96).unwrap();
                        }
                        let r = e
                            .isend(mode, &ints(n, 1000), n, INT, Dest::Rank(1), 3, W)
                            .unwrap();
                        e.cancel(r).unwrap();
                        let c = e.wait(r).unwrap();
                        assert!(c.status.cancelled, "{mode:?} n={n}");
                        if mode == SendMode::Buffered {
                            // The space came back.
                            assert_eq!(e.buffer_detach().unwrap().1, 4 * n + 96);
                        }
                        e.barrier(W).unwrap();
                        e.send(
                            SendMode::Standard,
                            &ints(n, 2000),
                            n,
                            INT,
                            Dest::Rank(1),
                            3,
                            W,
                        )
                        .unwrap();
                    } else {
                        // Receives only after the sender cancelled.
                        e.barrier(W).unwrap();
                        let (d, s) = e.recv(n, INT, Source::Rank(0), Tag::Value(3), W).unwrap();
                        assert_eq!(d, ints(n, 2000));
                        assert!(!s.cancelled);
                    }
                    e.barrier(W).unwrap();
                });
            }
        }
    }

    #[test]
    fn a_matched_send_is_not_cancelled() {
        for n in [4usize, 100] {
            run_world(2, 64, |e| {
                if e.rank() == 0 {
                    let r = e
                        .isend(SendMode::Standard, &ints(n, 7), n, INT, Dest::Rank(1), 0, W)
                        .unwrap();
                    e.barrier(W).unwrap();
                    e.cancel(r).unwrap();
                    assert!(!e.wait(r).unwrap().status.cancelled);
                } else {
                    let q = e.irecv(n, INT, Source::Rank(0), Tag::Any, W).unwrap();
                    e.barrier(W).unwrap();
                    let c = e.wait(q).unwrap();
                    assert_eq!(c.data.unwrap(), ints(n, 7));
                }
                // Keeps the receiver answering until the sender has its reply.
                e.barrier(W).unwrap();
            });
        }
    }
}
