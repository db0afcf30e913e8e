//! MPI 4.0's persistent collectives (`MPI_Bcast_init`, `MPI_Allreduce_init`,
//! … `MPI_Neighbor_alltoallw_init`): a persistent request that each
//! `MPI_Start` turns into one nonblocking collective, as MPICH builds them
//! on its nonblocking schedules.
//!
//! The init call stores the C layer's *starter* with the request (the
//! engine never calls it: it starts the nonblocking collective through the
//! public calls, with the program's buffers, and must run without the
//! engine's lock). At each start the C layer runs it, then binds the
//! nonblocking collective it got to the persistent request with
//! [`Engine::bind_persistent_collective`]: the hidden request's output
//! delivery moves to the persistent one, which completes when the hidden
//! one does and then becomes inactive, ready for the next start.

use crate::comm::CommId;
use crate::engine::Engine;
use crate::error::{MpiError, MpiResult};
use crate::opaque::Opaque;
use crate::request::{Pending, Persist, Request, RequestId, State};
use crate::transport::Transport;

impl<T: Transport> Engine<T> {
    /// An inactive persistent collective on `comm` that each start begins
    /// with `starter`.
    pub fn persistent_collective(&mut self, comm: CommId, starter: Opaque) -> MpiResult<RequestId> {
        // Its place among the communicator's collectives is the init
        // call's, whatever order the ranks start it in.
        let c = self.comms.get_mut(comm)?;
        let seq = c.coll_seq;
        c.coll_seq = seq.wrapping_add(1);
        self.note_call();
        let mut r = Request::new(State::Inactive);
        r.persistent = Some(Persist::Coll { starter, comm, seq });
        r.comm = Some(comm);
        Ok(self.reqs.add(r))
    }

    /// The starter of persistent collective `req`, which must be inactive
    /// (`MPI_ERR_REQUEST` otherwise); `None` for other requests. The next
    /// collective started on its communicator takes the sequence number
    /// the init call reserved.
    pub fn collective_starter(&mut self, req: RequestId) -> MpiResult<Option<Opaque>> {
        let r = self.reqs.get(req)?;
        let Some(Persist::Coll { starter, comm, seq }) = &r.persistent else {
            return Ok(None);
        };
        if !matches!(r.state, State::Inactive) {
            return Err(MpiError::Request);
        }
        let starter = starter.clone();
        self.persistent_seq = Some((*comm, *seq));
        Ok(Some(starter))
    }

    /// The start of a persistent collective failed before its collective
    /// began: the reserved sequence number is not used.
    pub fn persistent_start_failed(&mut self) {
        self.persistent_seq = None;
    }

    /// Makes persistent collective `req` active on `inner`, the nonblocking
    /// collective its starter began: `inner` becomes hidden, its output
    /// delivery becomes `req`'s, and `req` completes when `inner` does.
    pub fn bind_persistent_collective(
        &mut self,
        req: RequestId,
        inner: RequestId,
    ) -> MpiResult<()> {
        let r = self.reqs.get(req)?;
        if !matches!(r.persistent, Some(Persist::Coll { .. }))
            || !matches!(r.state, State::Inactive)
            || inner == req
        {
            return Err(MpiError::Request);
        }
        self.persistent_seq = None;
        let on_done = self.reqs.get_mut(inner)?.on_done.take();
        self.reqs.get_mut(inner)?.parent = Some(req);
        let r = self.reqs.get_mut(req)?;
        let old = std::mem::replace(&mut r.on_done, on_done);
        r.state = State::Pending(Pending::Inner(inner));
        if let Some(crate::request::OnDone(f)) = old {
            for dt in f.types {
                self.types.release_use(dt);
            }
        }
        // The collective may be complete already.
        self.inner_done(req);
        Ok(())
    }

    /// The hidden collective of persistent collective `p` completed:
    /// completes `p` with its completion.
    pub(crate) fn inner_done(&mut self, p: RequestId) {
        let Ok(Request {
            state: State::Pending(Pending::Inner(inner)),
            ..
        }) = self.reqs.get(p)
        else {
            return;
        };
        let inner = *inner;
        if !matches!(self.reqs.get(inner).map(|r| &r.state), Ok(State::Done(_))) {
            return;
        }
        let Ok(Request {
            state: State::Done(mut c),
            ..
        }) = self.reqs.remove(inner)
        else {
            return;
        };
        c.freed = false;
        self.finish(p, c);
    }
}

#[cfg(test)]
mod tests {
    use crate::collectives::Form;
    use crate::comm::CommId;
    use crate::datatype::{BuiltinType as B, DatatypeId};
    use crate::mem_transport::run_world;
    use crate::opaque::Opaque;

    const W: CommId = CommId::WORLD;

    /// Three starts of one persistent barrier and of one persistent
    /// broadcast (whose root changes its data between starts): each start
    /// runs one nonblocking collective, the request stays allocated and
    /// inactive between them, and a start of an active request fails.
    #[test]
    fn each_start_runs_one_collective_and_leaves_the_request_reusable() {
        run_world(4, 64, |e| {
            let me = e.rank();
            let p = e.persistent_collective(W, Opaque::new(())).unwrap();
            let b = e.persistent_collective(W, Opaque::new(())).unwrap();
            for round in 0..3i32 {
                assert!(e.collective_starter(p).unwrap().is_some());
                let inner = e.start_barrier(Form::Nonblocking, W).unwrap();
                e.bind_persistent_collective(p, inner).unwrap();
                let data = (100 * round).to_ne_bytes();
                let src: &[u8] = if me == 0 { &data } else { &[] };
                let inner = e
                    .start_bcast(Form::Nonblocking, src, 1, DatatypeId::Builtin(B::Int), 0, W)
                    .unwrap();
                e.bind_persistent_collective(b, inner).unwrap();
                assert!(
                    e.collective_starter(b).is_err(),
                    "active: cannot start again"
                );
                let done = e.waitall(&[Some(p), Some(b)]).unwrap();
                if me != 0 {
                    assert_eq!(done[1].output.clone().into_bytes(), data.to_vec());
                }
                // Inactive again (the next round starts them), still
                // allocated.
            }
            e.request_free(p).unwrap();
            e.request_free(b).unwrap();
        });
    }

    /// MPICH's p_order: the init calls order persistent collectives, so
    /// ranks may start them in different orders.
    #[test]
    fn ranks_may_start_persistent_collectives_in_different_orders() {
        run_world(2, 64, |e| {
            let me = e.rank();
            let bc = e.persistent_collective(W, Opaque::new(())).unwrap();
            let ba = e.persistent_collective(W, Opaque::new(())).unwrap();
            let data = 7i32.to_ne_bytes();
            let start_bcast =
                |e: &mut crate::engine::Engine<crate::mem_transport::MemTransport>| {
                    e.collective_starter(bc).unwrap().unwrap();
                    let src: &[u8] = if me == 0 { &data } else { &[] };
                    let i = e
                        .start_bcast(Form::Nonblocking, src, 1, DatatypeId::Builtin(B::Int), 0, W)
                        .unwrap();
                    e.bind_persistent_collective(bc, i).unwrap();
                };
            let start_barrier =
                |e: &mut crate::engine::Engine<crate::mem_transport::MemTransport>| {
                    e.collective_starter(ba).unwrap().unwrap();
                    let i = e.start_barrier(Form::Nonblocking, W).unwrap();
                    e.bind_persistent_collective(ba, i).unwrap();
                };
            if me == 0 {
                start_bcast(e);
                start_barrier(e);
            } else {
                start_barrier(e);
                start_bcast(e);
            }
            let done = e.waitall(&[Some(bc), Some(ba)]).unwrap();
            if me == 1 {
                assert_eq!(done[0].output.clone().into_bytes(), data.to_vec());
            }
            // A blocking collective after them still matches.
            e.barrier(W).unwrap();
        });
    }
}
