//! Dynamic processes (MPI 3.1 §10.3): `MPI_Comm_spawn`,
//! `MPI_Comm_spawn_multiple` and `MPI_Comm_get_parent`.
//!
//! The spawning group's root asks its transport for the processes
//! ([`Transport::spawn`]); the transport answers with the world ranks the
//! new processes have (consecutive: their `MPI_COMM_WORLD`). The root
//! tells its group the outcome, and the two groups make their
//! intercommunicator as `MPI_Intercomm_create` does, with the spawning
//! root and the children's rank 0 as leaders. No communicator holds both
//! leaders, so the leaders first make a *bridge*: a communicator of just
//! the two of them on a context id no agreement ever hands out, on which
//! they swap their groups (the tag is the children's first world rank,
//! so the bridges of different spawns never meet). The children do their
//! half when they initialise ([`Engine::join_parent`]): `MPI_Init`
//! returns once their parent intercommunicator exists.

use crate::comm::CommId;
use crate::datatype::BuiltinType;
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;

/// `MPI_ERR_SPAWN`: the processes could not be started.
pub const ERR_SPAWN: i32 = 42;

/// The bridge's context id: above every agreed one (`4 + 4 × SLOTS`) and
/// below [`crate::comm::PENDING_CONTEXT`].
const BRIDGE_CONTEXT: u32 = u32::MAX - 7;

/// What a process knows of dynamic processes.
#[derive(Debug, Default)]
pub struct SpawnState {
    /// The intercommunicator to the group that spawned this process.
    parent: Option<CommId>,
    /// Why this process's last `MPI_Comm_spawn` started nothing, as the
    /// transport said it (at the root only).
    pub last_refusal: Option<String>,
}

impl<T: Transport> Engine<T> {
    /// `MPI_Comm_spawn` and `MPI_Comm_spawn_multiple`, collective over
    /// `comm`: `root` asks for the processes `request` describes (the
    /// transport's encoding; only the root's is read). Returns the
    /// intercommunicator with the new processes' world and how many
    /// there are; `MPI_ERR_SPAWN` on every member when none was started
    /// (the root keeps the reason in [`SpawnState::last_refusal`]).
    pub fn comm_spawn(
        &mut self,
        request: Option<Vec<u8>>,
        root: u32,
        comm: CommId,
    ) -> MpiResult<(CommId, u32)> {
        self.note_call();
        let c = self.comm(comm)?;
        if c.is_inter() {
            return Err(MpiError::Comm);
        }
        if root >= c.size() {
            return Err(MpiError::Root);
        }
        let leads = c.rank == root;
        let answer = match (leads, request) {
            (true, Some(r)) => self.t.spawn(r),
            (true, None) => Err("the root gave no command".into()),
            (false, _) => Ok((0, 0)),
        };
        let outcome: [u32; 3] = match &answer {
            Ok((first, count)) => [1, *first, *count],
            Err(_) => [0, 0, 0],
        };
        let bytes: Vec<u8> = outcome.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let b = self.bcast(&bytes, 3, BuiltinType::Int.into(), root, comm)?;
        let word = |i: usize| u32::from_ne_bytes(b[4 * i..4 * i + 4].try_into().expect("int"));
        let (ok, first, count) = (word(0), word(1), word(2));
        self.spawn.last_refusal = answer.err();
        if ok == 0 {
            return Err(MpiError::Code(ERR_SPAWN));
        }
        let inter =
            self.intercomm_across(comm, root, leads.then_some(first), self.spawn_tag(first))?;
        Ok((inter, count))
    }

    /// A spawned process's half of its spawn (its `MPI_Init`): makes the
    /// intercommunicator with the group that spawned its world. Nothing
    /// for a process no spawn started.
    pub fn join_parent(&mut self) -> MpiResult<()> {
        let Some(parent_root) = self.t.spawned_by() else {
            return Ok(());
        };
        let (first, _) = self.t.world();
        let leads = self.t.rank() == first;
        let tag = self.spawn_tag(first);
        let inter = self.intercomm_across(CommId::WORLD, 0, leads.then_some(parent_root), tag)?;
        self.spawn.parent = Some(inter);
        // MPI 3.1 §10.3.2: the parent intercommunicator's name.
        self.names
            .set(crate::object::Object::Comm(inter), "MPI_COMM_PARENT");
        Ok(())
    }

    /// Why this process's last `MPI_Comm_spawn` (as its root) started
    /// nothing.
    pub fn spawn_refusal(&self) -> Option<String> {
        self.spawn.last_refusal.clone()
    }

    /// `MPI_Comm_get_parent`: the intercommunicator with the spawning
    /// group, until this process frees or disconnects it.
    pub fn comm_parent(&self) -> Option<CommId> {
        self.spawn.parent.filter(|&c| self.comms.get(c).is_ok())
    }

    /// The tag a spawn's leaders meet with: the children's first world
    /// rank names the spawn.
    fn spawn_tag(&self, first: u32) -> i32 {
        (first % self.cfg.tag_ub.max(1) as u32) as i32
    }

    /// The intercommunicator between `local` (whose leader is
    /// `local_leader`) and another group that need share no communicator
    /// with it: the leader passes the other leader's world rank, and the
    /// two leaders meet on a bridge of their own with `tag`.
    pub(crate) fn intercomm_across(
        &mut self,
        local: CommId,
        local_leader: u32,
        other_leader: Option<u32>,
        tag: i32,
    ) -> MpiResult<CommId> {
        let me = self.t.rank();
        let bridge = other_leader.map(|other| self.comms.add_pair(BRIDGE_CONTEXT, me, other));
        let (peer, remote_leader) = bridge.unwrap_or((local, 0));
        let made = self.intercomm_create(local, local_leader, peer, remote_leader, tag);
        if let Some((id, _)) = bridge {
            self.comms.forget(id);
        }
        made
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collectives::CollInput;
    use crate::mem_transport::run_spawned;
    use crate::op::BuiltinOp;

    /// Parents (world ranks 0..p) spawn children (p..p+c) from root
    /// `root`; every process reports its view.
    fn spawn_and_talk(p: u32, c: u32, root: u32) -> Vec<(bool, u32, u32, i32)> {
        run_spawned(p, c, root, |e| {
            let world = e.comm_size(CommId::WORLD).unwrap();
            let inter = match e.comm_parent() {
                Some(parent) => parent,
                None => {
                    let req = (e.comm_rank(CommId::WORLD).unwrap() == root).then(|| vec![7]);
                    let (inter, count) = e.comm_spawn(req, root, CommId::WORLD).unwrap();
                    assert_eq!(count, c);
                    inter
                }
            };
            let remote = e.comm_remote_size(inter).unwrap();
            // Every process sums its world rank across the intercommunicator:
            // each side gets the other side's sum.
            let me = e.rank() as i32;
            let sum = e
                .allreduce(
                    CollInput::Buf(&me.to_ne_bytes()),
                    1,
                    BuiltinType::Int.into(),
                    BuiltinOp::Sum.into(),
                    inter,
                )
                .unwrap();
            let sum = i32::from_ne_bytes(sum[..4].try_into().unwrap());
            let is_child = e.comm_parent().is_some();
            if is_child {
                let name = e.names.get(crate::object::Object::Comm(inter));
                assert_eq!(name, "MPI_COMM_PARENT");
            }
            e.comm_disconnect(inter).unwrap();
            assert_eq!(e.comm_parent(), None);
            (is_child, world, remote, sum)
        })
    }

    #[test]
    fn parents_and_children_make_one_intercommunicator() {
        for (p, c, root) in [(1, 2, 0), (2, 3, 1), (3, 1, 2)] {
            let views = spawn_and_talk(p, c, root);
            let parents_sum = (0..p as i32).sum::<i32>();
            let children_sum = (p as i32..(p + c) as i32).sum::<i32>();
            for (rank, v) in views.iter().enumerate() {
                let child = rank as u32 >= p;
                let expect = if child {
                    (true, c, p, parents_sum)
                } else {
                    (false, p, c, children_sum)
                };
                assert_eq!(*v, expect, "rank {rank} of {p}+{c}");
            }
        }
    }

    #[test]
    fn a_refused_spawn_is_err_spawn_on_every_parent() {
        let out = run_spawned(2, 0, 0, |e| {
            let req = (e.rank() == 0).then(Vec::new);
            let r = e.comm_spawn(req, 0, CommId::WORLD).map(|_| ());
            (r, e.spawn.last_refusal.clone())
        });
        assert_eq!(out[0].0, Err(MpiError::Code(ERR_SPAWN)));
        assert_eq!(out[1].0, Err(MpiError::Code(ERR_SPAWN)));
        assert!(out[0].1.as_deref().unwrap().contains("nothing"));
        assert_eq!(out[1].1, None);
    }
}
