//! Generalized requests (MPI 3.1 §12.2): requests the program completes
//! itself (`MPI_Grequest_start`, `MPI_Grequest_complete`) and waits for
//! like any other.
//!
//! The engine keeps their state and their callbacks (query, free and
//! cancel functions, as an [`Opaque`]); the C layer calls the callbacks
//! without the engine's lock: the query function when a wait or test
//! completes the request (or `MPI_Request_get_status` finds it complete),
//! the free function when the request is deallocated, the cancel function
//! on `MPI_Cancel`. A wait on a generalized request must not hold the lock,
//! since another thread completes it: the C layer waits for them by polling.

use crate::error::{MpiError, MpiResult};
use crate::opaque::Opaque;
use crate::request::{Pending, Request, RequestId, State};
use crate::status::Completion;
use crate::transport::Transport;
use crate::Engine;

impl<T: Transport> Engine<T> {
    /// `MPI_Grequest_start`: a pending request with the program's callbacks.
    pub fn grequest_start(&mut self, fns: Opaque) -> RequestId {
        self.note_call();
        let mut r = Request::new(State::Pending(Pending::Generalized));
        r.generalized = Some(fns);
        self.reqs.add(r)
    }

    /// `MPI_Grequest_complete`: the request is complete (a request the
    /// program already freed goes now). A request that is not a pending
    /// generalized request is `MPI_ERR_REQUEST`.
    pub fn grequest_complete(&mut self, req: RequestId) -> MpiResult<()> {
        self.note_call();
        let r = self.reqs.get(req)?;
        if !matches!(r.state, State::Pending(Pending::Generalized)) {
            return Err(MpiError::Request);
        }
        self.finish(req, Completion::inactive());
        Ok(())
    }

    /// The callbacks of generalized request `req` (None for other requests).
    pub fn generalized(&self, req: RequestId) -> Option<Opaque> {
        self.reqs.get(req).ok().and_then(|r| r.generalized.clone())
    }

    /// Whether `req` is complete (or inactive), without progress.
    pub fn is_done(&self, req: RequestId) -> MpiResult<bool> {
        self.is_complete(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem_transport::run_world;

    #[test]
    fn the_program_completes_them_and_waits_take_them() {
        run_world(1, 64, |e| {
            let g = e.grequest_start(Opaque::new(5u8));
            assert_eq!(e.generalized(g).unwrap().get::<u8>(), Some(&5));
            assert_eq!(e.test(g).unwrap(), None);
            assert!(!e.testall_done(&[Some(g)]).unwrap());
            assert_eq!(e.is_done(g), Ok(false));
            e.grequest_complete(g).unwrap();
            assert_eq!(e.grequest_complete(g), Err(MpiError::Request));
            assert!(e.testany_done(&[None, Some(g)]).unwrap());
            let c = e.wait(g).unwrap();
            assert!(c.freed);
            assert!(e.generalized(g).is_none());
            // Freed while pending: it goes when the program completes it.
            let h = e.grequest_start(Opaque::new(6u8));
            e.request_free(h).unwrap();
            assert!(e.generalized(h).is_some());
            e.grequest_complete(h).unwrap();
            assert!(e.generalized(h).is_none());
        });
    }
}
