//! `MPIX_Comm_revoke`, MPICH's fault-tolerance extension, where no process
//! fails (a crash ends an mpinetsim job): a process revokes a
//! communicator, and at every member the operations pending on it and
//! every later one fail with `MPIX_ERR_REVOKED` — except
//! `MPIX_Comm_shrink` and `MPIX_Comm_agree`, which still work on it
//! (the C layer runs them [`Engine::revocation_exempt`]), and freeing it.
//!
//! The revoking process sends a notice to every other member (local and
//! remote group of an intercommunicator) through the simulated network:
//! a control message on the communicator's point-to-point context with
//! [`NOTICE_TAG`]. A member learns of the revocation when the notice
//! arrives, as with MPICH's revoke messages: a receive it posted on the
//! communicator completes with the error then, and a collective it is in
//! returns it. A collective that fails this way still takes its place in
//! the communicator's sequence of collectives, so the members stay in
//! step for the shrink or agreement that follows.

use crate::comm::CommId;
use crate::envelope::{CallCode, Envelope, Kind};
use crate::error::{MpiError, MpiResult};
use crate::status::{Completion, Status};
use crate::transport::Transport;
use crate::Engine;
use std::collections::BTreeSet;

/// `MPIX_ERR_REVOKED` (MPICH's `MPICH_ERR_FIRST_MPIX + 3`).
pub const ERR_REVOKED: i32 = 103;

/// The tag of a revocation notice (apart from the connect requests'
/// `i32::MIN + 1 ..` and the partitions' `i32::MIN`; collectives use
/// their own context).
pub const NOTICE_TAG: i32 = i32::MIN + (1 << 25);

/// What this process knows of revocations.
#[derive(Debug, Default)]
pub struct Revocations {
    /// Receive contexts of the communicators revoked here.
    contexts: BTreeSet<u32>,
    /// Set while a routine that works on revoked communicators runs.
    exempt: bool,
}

impl<T: Transport> Engine<T> {
    /// `MPIX_Comm_revoke`: revokes `comm` here and tells every other
    /// member.
    pub fn comm_revoke(&mut self, comm: CommId) -> MpiResult<()> {
        self.note_call();
        let c = self.comm(comm)?;
        let (context, send_context) = (c.context, c.send_context);
        if self.revoked.contexts.contains(&context) {
            return Ok(());
        }
        let me = self.t.rank();
        let local: Vec<u32> = c.group.ranks.clone();
        let remote: Vec<u32> = c
            .inter
            .as_ref()
            .map(|i| i.remote.ranks.clone())
            .unwrap_or_default();
        let notices = (local.into_iter().map(|w| (w, context)))
            .chain(remote.into_iter().map(|w| (w, send_context)))
            .filter(|&(w, _)| w != me);
        let notices: Vec<(u32, u32)> = notices.collect();
        for (dst, ctx) in notices {
            let env = Envelope {
                kind: Kind::Control,
                flags: 0,
                call: CallCode::Comm_revoke,
                src: me,
                dst,
                tag: NOTICE_TAG,
                context: ctx,
                seq: 0,
                sender_op: 0,
                receiver_op: 0,
                msg_len: 0,
                payload_len: 0,
            };
            self.tsend(dst, &env, &[]);
        }
        self.revoke_here(context);
        Ok(())
    }

    /// A message is a revocation notice: the communicator it names is
    /// revoked here. False for any other message.
    pub(crate) fn on_revocation_notice(&mut self, env: &Envelope) -> bool {
        if env.kind != Kind::Control || env.tag != NOTICE_TAG || env.call != CallCode::Comm_revoke {
            return false;
        }
        self.revoke_here(env.context);
        true
    }

    /// Whether operations on `comm` fail: it was revoked, and no exempt
    /// routine runs.
    pub(crate) fn check_revoked(&self, comm: CommId) -> MpiResult<()> {
        let revoked = !self.revoked.exempt
            && !self.revoked.contexts.is_empty()
            && self
                .comms
                .get(comm)
                .is_ok_and(|c| self.revoked.contexts.contains(&c.context));
        if revoked {
            Err(MpiError::Code(ERR_REVOKED))
        } else {
            Ok(())
        }
    }

    /// Runs `MPIX_Comm_shrink`'s and `MPIX_Comm_agree`'s work on a
    /// communicator that may be revoked (`exempt` on, then off).
    pub fn revocation_exempt(&mut self, exempt: bool) {
        self.revoked.exempt = exempt;
    }

    /// A communicator received on `context` was freed: a later one that
    /// gets the context is not revoked.
    pub(crate) fn revoked_freed(&mut self, context: u32) {
        self.revoked.contexts.remove(&context);
    }

    /// Marks the communicator received on `context` revoked and fails the
    /// receives pending on it.
    fn revoke_here(&mut self, context: u32) {
        if !self.revoked.contexts.insert(context) {
            return;
        }
        let comms = self.comms.ids_with_context(context);
        for req in self.reqs.pending_receives_on(&comms) {
            self.queues.cancel(&req);
            let status = Status {
                error: Some(MpiError::Code(ERR_REVOKED)),
                ..Status::empty()
            };
            self.finish(
                req,
                Completion {
                    status,
                    data: Some(Vec::new()),
                    ..Completion::inactive()
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::BuiltinType;
    use crate::matching::{Source, Tag};
    use crate::mem_transport::run_world;

    #[test]
    fn a_revoked_communicator_fails_pending_and_later_operations_on_every_member() {
        for n in [2u32, 3, 4, 5] {
            let out = run_world(n, 64, |e| {
                let dup = e.comm_dup(CommId::WORLD).unwrap();
                let me = e.rank();
                if me == n - 1 {
                    e.comm_revoke(dup).unwrap();
                }
                // Everyone else is (or will be) in a barrier on it.
                let barrier = e.barrier(dup);
                let recv = e
                    .recv(
                        1,
                        BuiltinType::Int.into(),
                        Source::Rank(0),
                        Tag::Value(9),
                        dup,
                    )
                    .and_then(|(_, status)| status.error.map_or(Ok(()), Err));
                // Shrink's work still runs, in step on every member.
                e.revocation_exempt(true);
                let shrunk = e.comm_dup(dup);
                e.revocation_exempt(false);
                let shrunk = shrunk.unwrap();
                let size = e.comm_size(shrunk).unwrap();
                e.barrier(shrunk).unwrap();
                // Freed, its context serves a new communicator, not revoked.
                e.comm_free(dup).unwrap();
                e.comm_free(shrunk).unwrap();
                let again = e.comm_dup(CommId::WORLD).unwrap();
                e.barrier(again).unwrap();
                (barrier, recv, size)
            });
            for (rank, (barrier, recv, size)) in out.into_iter().enumerate() {
                assert_eq!(
                    barrier,
                    Err(MpiError::Code(ERR_REVOKED)),
                    "rank {rank} of {n}"
                );
                assert_eq!(recv, Err(MpiError::Code(ERR_REVOKED)), "rank {rank} of {n}");
                assert_eq!(size, n);
            }
        }
    }
}
