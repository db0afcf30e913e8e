//! MPI 4.0's nonblocking `MPI_Isendrecv` and `MPI_Isendrecv_replace`: a
//! receive and a send started together under one request, which completes
//! when both have (with the receive's status).
//!
//! `MPI_Isendrecv_replace` sends the buffer's contents as they are at the
//! call (packed then), so the receive may overwrite the buffer at any time.

use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::Engine;
use crate::envelope::CallCode;
use crate::error::MpiResult;
use crate::matching::{Source, Tag};
use crate::message_data::UserBuffer;
use crate::p2p::SendBuf;
use crate::request::{Dest, Pending, Request, RequestId, SendMode, State};
use crate::status::Completion;
use crate::transport::Transport;

/// One side of an exchange: (count, datatype, peer, tag).
pub type Side<P, G> = (usize, DatatypeId, P, G);

impl<T: Transport> Engine<T> {
    /// `MPI_Isendrecv` between program memories.
    pub fn isendrecv_with(
        &mut self,
        smem: Box<dyn UserBuffer>,
        send: Side<Dest, i32>,
        rmem: Box<dyn UserBuffer>,
        recv: Side<Source, Tag>,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.exchange(
            SendBuf::Program(smem),
            send,
            rmem,
            recv,
            comm,
            CallCode::Isendrecv,
        )
    }

    /// `MPI_Isendrecv_replace`: `current` is the buffer's region now (sent
    /// as it is), `mem` the same region, received into.
    pub fn isendrecv_replace_with(
        &mut self,
        current: &[u8],
        mem: Box<dyn UserBuffer>,
        (count, dt): (usize, DatatypeId),
        (dest, stag): (Dest, i32),
        (src, rtag): (Source, Tag),
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.exchange(
            SendBuf::Slice(current),
            (count, dt, dest, stag),
            mem,
            (count, dt, src, rtag),
            comm,
            CallCode::Isendrecv_replace,
        )
    }

    fn exchange(
        &mut self,
        sbuf: SendBuf<'_>,
        (scount, stype, dest, stag): Side<Dest, i32>,
        rmem: Box<dyn UserBuffer>,
        (rcount, rtype, src, rtag): Side<Source, Tag>,
        comm: CommId,
        call: CallCode,
    ) -> MpiResult<RequestId> {
        // The receive's arguments are checked first; the send starts
        // before the receive is posted, so that a replace's data is packed
        // before a waiting message can overwrite the buffer.
        let (cap, ctx) = self.check_recv(rcount, rtype, src, rtag, comm)?;
        let target = self.recv_target(Some(rmem), rcount, rtype)?;
        let send = self.isend_call(
            SendMode::Standard,
            sbuf,
            scount,
            stype,
            dest,
            stag,
            comm,
            call,
        )?;
        let recv = self.irecv_raw(cap, src, rtag, comm, ctx, None, target)?;
        let mut pair = Request::new(State::Pending(Pending::Pair { recv, send }));
        pair.comm = Some(comm);
        let p = self.reqs.add(pair);
        self.reqs.get_mut(recv)?.parent = Some(p);
        self.reqs.get_mut(send)?.parent = Some(p);
        // Either half may be complete already.
        self.half_done(p);
        Ok(p)
    }

    /// A half of pair `p` completed: completes `p` once both have, with
    /// the receive's status (or the send's error, if only it failed).
    pub(crate) fn half_done(&mut self, p: RequestId) {
        let Ok(Request {
            state: State::Pending(Pending::Pair { recv, send }),
            ..
        }) = self.reqs.get(p)
        else {
            return;
        };
        let (recv, send) = (*recv, *send);
        let done = |e: &Self, r| matches!(e.reqs.get(r).map(|r| &r.state), Ok(State::Done(_)));
        if !done(self, recv) || !done(self, send) {
            return;
        }
        let take = |e: &mut Self, r| match e.reqs.remove(r) {
            Ok(Request {
                state: State::Done(c),
                ..
            }) => Some(c),
            _ => None,
        };
        let mut c = take(self, recv).unwrap_or_else(Completion::inactive);
        if let Some(s) = take(self, send) {
            c.status.error = c.status.error.or(s.status.error);
        }
        c.freed = false;
        self.finish(p, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::BuiltinType as B;
    use crate::mem_transport::run_world;

    const W: CommId = CommId::WORLD;
    const INT: DatatypeId = DatatypeId::Builtin(B::Int);

    #[test]
    fn a_ring_exchange_completes_with_the_receive_status() {
        // Each rank sends n ints to the next and receives from the previous,
        // eager (n = 3) and rendezvous (n = 100 over a 64-byte limit).
        for n in [3usize, 100] {
            let got = run_world(4, 64, |e| {
                let me = e.rank() as i32;
                let (next, prev) = ((me + 1) % 4, (me + 3) % 4);
                let data: Vec<u8> = (0..n as i32)
                    .flat_map(|x| (x + 100 * me).to_ne_bytes())
                    .collect();
                let r = e
                    .isendrecv_replace_with(
                        &data,
                        Box::new(vec![0u8; 4 * n]),
                        (n, INT),
                        (Dest::Rank(next as u32), 7),
                        (Source::Rank(prev as u32), Tag::Value(7)),
                        W,
                    )
                    .unwrap();
                let c = e.wait(r).unwrap();
                (c.status.source, c.status.count_bytes, c.freed)
            });
            for (me, g) in got.iter().enumerate() {
                assert_eq!(
                    *g,
                    (Source::Rank(((me + 3) % 4) as u32), 4 * n as u64, true)
                );
            }
        }
    }

    #[test]
    fn proc_null_on_both_sides_completes_at_once() {
        run_world(1, 64, |e| {
            let r = e
                .isendrecv_with(
                    Box::new(vec![0u8; 4]),
                    (1, INT, Dest::ProcNull, 0),
                    Box::new(vec![0u8; 4]),
                    (1, INT, Source::ProcNull, Tag::Any),
                    W,
                )
                .unwrap();
            let c = e.test(r).unwrap().expect("complete at once");
            assert_eq!(
                (c.status.source, c.status.count_bytes),
                (Source::ProcNull, 0)
            );
        });
    }
}
