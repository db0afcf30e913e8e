//! Matched probes: `MPI_Mprobe` / `MPI_Improbe` take the message they
//! find out of the unexpected queue (no other receive or probe can match
//! it afterwards) and name it by a [`MessageId`]; `MPI_Mrecv` /
//! `MPI_Imrecv` receive exactly that message. A probe of `MPI_PROC_NULL`
//! finds `MPI_MESSAGE_NO_PROC` (`None` here) at once, whose receive
//! completes at once with the `MPI_PROC_NULL` status.
//!
//! A probed rendezvous message is an RTS whose data the sender keeps until
//! the receive is posted (the CTS goes then), like any receive matching it.

use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::engine::{Engine, Msg};
use crate::error::{MpiError, MpiResult};
use crate::matching::{Source, Tag};
use crate::message_data::UserBuffer;
use crate::request::{Pending, RecvPhase, Request, RequestId, State};
use crate::status::{Completion, Status};
use crate::transport::Transport;

/// A message handle (`MPI_Message`) of a message taken by a matched probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageId(pub u32);

/// A probed message and the communicator it was probed on.
#[derive(Debug)]
struct Probed {
    msg: Msg,
    comm: CommId,
}

/// The messages matched probes took and no receive got yet.
#[derive(Debug, Default)]
pub(crate) struct ProbedMessages {
    slots: Vec<Option<Probed>>,
}

impl ProbedMessages {
    fn add(&mut self, p: Probed) -> MessageId {
        match self.slots.iter().position(|s| s.is_none()) {
            Some(i) => {
                self.slots[i] = Some(p);
                MessageId(i as u32)
            }
            None => {
                self.slots.push(Some(p));
                MessageId(self.slots.len() as u32 - 1)
            }
        }
    }

    fn take(&mut self, m: MessageId) -> MpiResult<Probed> {
        self.slots
            .get_mut(m.0 as usize)
            .and_then(|s| s.take())
            .ok_or(MpiError::Request)
    }

    fn get(&self, m: MessageId) -> MpiResult<&Probed> {
        self.slots
            .get(m.0 as usize)
            .and_then(|s| s.as_ref())
            .ok_or(MpiError::Request)
    }
}

impl<T: Transport> Engine<T> {
    /// Takes the oldest unexpected message matching (src, tag) on `comm`.
    fn take_probed(
        &mut self,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<Option<(Option<MessageId>, Status)>> {
        let Some(pat) = self.probe_pattern(src, tag, comm)? else {
            return Ok(Some((None, Status::proc_null())));
        };
        self.progress(false);
        let Some(m) = self.queues.take(&pat) else {
            return Ok(None);
        };
        self.t.program_took(m.item.env.src, m.item.token);
        let c = self.comms.get_any(comm).ok_or(MpiError::Comm)?;
        let status = Status {
            source: c.rank_of_world(m.src).map_or(Source::Any, Source::Rank),
            tag: Tag::Value(m.tag),
            error: None,
            count_bytes: m.item.env.msg_len,
            cancelled: false,
        };
        let id = self.probed.add(Probed { msg: m.item, comm });
        Ok(Some((Some(id), status)))
    }

    /// `MPI_Improbe`: `None` when no message matches yet; else the message
    /// (`None` for `MPI_MESSAGE_NO_PROC`) and its status.
    pub fn improbe(
        &mut self,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<Option<(Option<MessageId>, Status)>> {
        self.note_call();
        self.take_probed(src, tag, comm)
    }

    /// `MPI_Mprobe`: waits for a matching message.
    pub fn mprobe(
        &mut self,
        src: Source,
        tag: Tag,
        comm: CommId,
    ) -> MpiResult<(Option<MessageId>, Status)> {
        self.note_call();
        loop {
            if let Some(found) = self.take_probed(src, tag, comm)? {
                return Ok(found);
            }
            self.progress(true);
        }
    }

    /// `MPI_Imrecv` of message `msg` (`None`: `MPI_MESSAGE_NO_PROC`) into
    /// program memory holding `count` instances of `dt`.
    pub fn imrecv_into(
        &mut self,
        msg: Option<MessageId>,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        let Some(m) = msg else {
            let c = Completion {
                status: Status::proc_null(),
                ..Completion::inactive()
            };
            return Ok(self.reqs.add(Request::new(State::Done(c))));
        };
        let comm = self.probed.get(m)?.comm;
        let capacity = self.types.committed(dt)?.size * count as u64;
        let target = self.recv_target(Some(mem), count, dt)?;
        let p = self.probed.take(m)?;
        let mut r = Request::new(State::Pending(Pending::Recv {
            comm,
            capacity,
            phase: RecvPhase::Posted,
            target,
            error: None,
        }));
        r.comm = Some(comm);
        let req = self.reqs.add(r);
        self.matched(req, p.msg);
        Ok(req)
    }

    /// `MPI_Mrecv`: [`imrecv_into`](Self::imrecv_into) and wait; the status.
    pub fn mrecv_into(
        &mut self,
        msg: Option<MessageId>,
        mem: Box<dyn UserBuffer>,
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<Status> {
        let r = self.imrecv_into(msg, mem, count, dt)?;
        Ok(self.wait_internal(r)?.status)
    }

    /// The communicator a probed message came on (for error handlers).
    pub fn message_comm(&self, m: MessageId) -> Option<CommId> {
        self.probed.get(m).ok().map(|p| p.comm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::BuiltinType as B;
    use crate::mem_transport::run_world;
    use crate::request::{Dest, SendMode};

    const W: CommId = CommId::WORLD;
    const INT: DatatypeId = DatatypeId::Builtin(B::Int);

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn a_probed_message_is_out_of_every_other_receives_reach() {
        // Eager (2 ints) and rendezvous (100 ints over a 64-byte limit).
        for n in [2usize, 100] {
            run_world(2, 64, |e| {
                let data: Vec<i32> = (0..n as i32).collect();
                if e.rank() == 0 {
                    let reqs: Vec<_> = (0..2)
                        .map(|_| {
                            let r = e.isend(
                                SendMode::Standard,
                                &ints(&data),
                                n,
                                INT,
                                Dest::Rank(1),
                                5,
                                W,
                            );
                            Some(r.unwrap())
                        })
                        .collect();
                    e.waitall(&reqs).unwrap();
                    return;
                }
                let (m1, s1) = e.mprobe(Source::Any, Tag::Value(5), W).unwrap();
                assert_eq!((s1.source, s1.count_bytes), (Source::Rank(0), 4 * n as u64));
                // The first message is taken: a plain probe sees the second
                // one, a second matched probe takes it.
                let (m2, _) = e.mprobe(Source::Rank(0), Tag::Any, W).unwrap();
                assert_ne!(m1, m2);
                assert!(e.improbe(Source::Any, Tag::Any, W).unwrap().is_none());
                for m in [m2, m1] {
                    let st = e.mrecv_into(m, Box::new(vec![0u8; 4 * n]), n, INT).unwrap();
                    assert_eq!(st.count_bytes, 4 * n as u64);
                }
                assert!(e
                    .mrecv_into(m1, Box::new(vec![0u8; 4 * n]), n, INT)
                    .is_err());
                let (none, st) = e.improbe(Source::ProcNull, Tag::Any, W).unwrap().unwrap();
                assert_eq!((none, st.source), (None, Source::ProcNull));
                let st = e.mrecv_into(None, Box::new(Vec::new()), 0, INT).unwrap();
                assert_eq!(st.source, Source::ProcNull);
            });
        }
    }
}
