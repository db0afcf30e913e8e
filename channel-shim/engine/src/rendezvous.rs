//! The data path of a rendezvous transfer. Once the receiver's CTS
//! arrives, the sender streams the message in pieces of at most
//! [`EngineConfig::rendezvous_chunk`](crate::EngineConfig) bytes, each a
//! data message of its own, packed from where the data lies (program
//! memory or a packed buffer) as it goes. It keeps at most
//! [`EngineConfig::rendezvous_window`](crate::EngineConfig) pieces
//! unacknowledged: the receiver stores each piece where the receive's data
//! goes (unpacked straight into program memory) and acknowledges piece *i*
//! only when the message has a piece *i* + window, which the sender then
//! sends. A message of any size thus costs the sender, the network between
//! and the receiver memory for a window of pieces, never for the message.

use crate::engine::Engine;
use crate::envelope::{Envelope, Kind, FLAG_COLL_ERROR, HEADER_LEN};
use crate::error::MpiError;
use crate::message_data::MessageData;
use crate::request::{Pending, RecvPhase, Request, RequestId, State};
use crate::status::{Completion, Status};
use crate::transport::Transport;

/// A rendezvous send streaming its data.
#[derive(Debug)]
pub(crate) struct OutStream {
    req: RequestId,
    data: MessageData,
    /// The envelope every piece carries (its payload length aside).
    piece: Envelope,
    /// Offset of the next piece in the message.
    next: u64,
    /// The data could not be read (reported in the send's status).
    error: Option<MpiError>,
}

impl OutStream {
    /// The rank the pieces go to (whose acks this stream waits for).
    pub(crate) fn dst(&self) -> u32 {
        self.piece.dst
    }
}

impl<T: Transport> Engine<T> {
    /// Pieces a message of `len` bytes is sent in.
    fn pieces(&self, len: u64) -> u64 {
        len.div_ceil(self.cfg.rendezvous_chunk.max(1))
    }

    /// The receive matched: sends the first window of pieces.
    pub(crate) fn on_cts(&mut self, cts: Envelope) {
        let Some(req) = self.rdv_send.remove(&cts.sender_op) else {
            self.counters.bad_messages += 1;
            return;
        };
        let data = match self.reqs.get_mut(req) {
            Ok(Request {
                state: State::Pending(Pending::Send { data, .. }),
                ..
            }) => std::mem::take(data),
            _ => return,
        };
        let piece = Envelope {
            kind: Kind::Data,
            flags: cts.flags & FLAG_COLL_ERROR,
            src: cts.dst,
            dst: cts.src,
            msg_len: data.len(),
            payload_len: 0,
            ..cts
        };
        let mut s = OutStream {
            req,
            data,
            piece,
            next: 0,
            error: None,
        };
        for _ in 0..self.cfg.rendezvous_window.max(1) {
            if !self.send_piece(&mut s) {
                break;
            }
        }
        self.continue_or_finish(cts.sender_op, s);
    }

    /// The receiver stored a piece: sends the one a window further.
    pub(crate) fn on_piece_ack(&mut self, ack: Envelope) {
        let Some(mut s) = self.streams_out.remove(&ack.sender_op) else {
            self.counters.bad_messages += 1;
            return;
        };
        self.send_piece(&mut s);
        self.continue_or_finish(ack.sender_op, s);
    }

    /// Keeps a stream with pieces left; completes the send once the last
    /// piece is out (the program may reuse its buffer then).
    fn continue_or_finish(&mut self, op: u32, s: OutStream) {
        if s.next < s.piece.msg_len {
            self.streams_out.insert(op, s);
            return;
        }
        let status = Status {
            error: s.error,
            ..Status::empty()
        };
        self.finish(
            s.req,
            Completion {
                status,
                ..Completion::inactive()
            },
        );
    }

    /// Sends the next piece of `s`; false when none was left.
    fn send_piece(&mut self, s: &mut OutStream) -> bool {
        let total = s.piece.msg_len;
        if s.next >= total {
            return false;
        }
        let len = (total - s.next).min(self.cfg.rendezvous_chunk.max(1)) as usize;
        let mut bytes = Vec::with_capacity(HEADER_LEN + len);
        s.piece.encode_header(len as u64, &mut bytes);
        if let Err(e) = s.data.read(s.next, len, &mut bytes) {
            // The receiver still gets a piece of the announced length.
            s.error.get_or_insert(e);
            bytes.resize(HEADER_LEN + len, 0);
        }
        s.next += len as u64;
        self.tsend_encoded(s.piece.dst, bytes);
        true
    }

    /// A piece of rendezvous data: stored where the receive's data goes,
    /// acknowledged if the sender waits for that, and the receive completed
    /// with the last piece.
    pub(crate) fn on_data(&mut self, env: Envelope, payload: &[u8]) {
        let Some(&req) = self.rdv_recv.get(&env.receiver_op) else {
            self.counters.bad_messages += 1;
            return;
        };
        let offset = match self.reqs.get_mut(req) {
            Ok(Request {
                state:
                    State::Pending(Pending::Recv {
                        phase: RecvPhase::Data { received, .. },
                        ..
                    }),
                ..
            }) => {
                let offset = *received;
                *received += payload.len() as u64;
                offset
            }
            _ => {
                self.counters.bad_messages += 1;
                return;
            }
        };
        self.store_received(req, offset, payload);
        let index = offset / self.cfg.rendezvous_chunk.max(1);
        if index + u64::from(self.cfg.rendezvous_window.max(1)) < self.pieces(env.msg_len) {
            let ack = Envelope {
                kind: Kind::PieceAck,
                flags: 0,
                src: env.dst,
                dst: env.src,
                msg_len: offset + payload.len() as u64,
                payload_len: 0,
                ..env.clone()
            };
            self.tsend(env.src, &ack, &[]);
        }
        if offset + payload.len() as u64 >= env.msg_len {
            self.rdv_recv.remove(&env.receiver_op);
            self.complete_recv(req, &env);
        }
    }
}

#[cfg(test)]
#[path = "rendezvous_tests.rs"]
pub(crate) mod tests;
