//! Communicators: a group of world ranks, this process's rank in it, and a
//! context id. Point-to-point traffic uses the (even) context id, the
//! communicator's collectives use context id + 1, so the two never match.
//!
//! Context ids are agreed on by the processes that create a communicator
//! together (see [`crate::context`]): two communicators of one process
//! never share a context id; two disjoint communicators created by one
//! split may, which is harmless because matching is per receiving process.
//! An intercommunicator's two groups agree on their receive contexts
//! separately and send on each other's, as in MPICH.

use crate::context::ContextIds;
use crate::envelope::FLAG_INTERCOMM;
use crate::error::{MpiError, MpiResult};
use crate::group::Group;
use std::collections::HashMap;

/// A communicator handle. World is 0, self is 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommId(pub u32);

impl CommId {
    /// `MPI_COMM_WORLD`.
    pub const WORLD: CommId = CommId(0);
    /// `MPI_COMM_SELF`.
    pub const SELF: CommId = CommId(1);
}

/// The context of a communicator whose nonblocking creation has not
/// completed (no communicator ever gets it: agreed contexts are below
/// `4 + 4 × SLOTS`).
pub const PENDING_CONTEXT: u32 = u32::MAX - 3;

/// The other side of an intercommunicator.
#[derive(Clone, Debug)]
pub struct Inter {
    /// The remote group.
    pub remote: Group,
    remote_to_rank: HashMap<u32, u32>,
    /// The hidden intracommunicator of the local group, on which the
    /// local phases of collectives run (context id `context + 2`).
    pub local_comm: Option<CommId>,
    /// This side is the "low" group: first in `MPI_Intercomm_merge` when
    /// both sides pass the same `high`.
    pub is_low: bool,
}

/// One communicator.
#[derive(Clone, Debug)]
pub struct Comm {
    /// Point-to-point context id its messages are received on (a multiple
    /// of 4 but for world 0 and self 2, see [`crate::context`]);
    /// collectives use `context + 1`, and an intercommunicator's hidden
    /// intracommunicator of its local group `context + 2`.
    pub context: u32,
    /// Context id its messages are sent on: `context`, except on an
    /// intercommunicator, whose groups each agree on their own receive
    /// context (as MPICH) and send on the other's.
    pub send_context: u32,
    /// Its members (the local group of an intercommunicator).
    pub group: Group,
    /// This process's rank in it.
    pub rank: u32,
    world_to_rank: HashMap<u32, u32>,
    /// Collective calls made on it so far (every member counts the same
    /// calls, so the count names a call on all of them).
    pub coll_seq: u32,
    /// The remote side, for intercommunicators.
    pub inter: Option<Inter>,
}

fn index(g: &Group) -> HashMap<u32, u32> {
    g.ranks
        .iter()
        .enumerate()
        .map(|(i, &w)| (w, i as u32))
        .collect()
}

impl Comm {
    /// A communicator of `group` (which must contain `my_world_rank`).
    pub fn new(context: u32, group: Group, my_world_rank: u32) -> Comm {
        let world_to_rank = index(&group);
        let rank = world_to_rank[&my_world_rank];
        Comm {
            context,
            send_context: context,
            group,
            rank,
            world_to_rank,
            coll_seq: 0,
            inter: None,
        }
    }

    /// An intercommunicator between `local` (which must contain
    /// `my_world_rank`) and `remote`.
    pub fn new_inter(
        context: u32,
        send_context: u32,
        local: Group,
        remote: Group,
        my_world_rank: u32,
        is_low: bool,
    ) -> Comm {
        let mut c = Comm::new(context, local, my_world_rank);
        c.send_context = send_context;
        c.inter = Some(Inter {
            remote_to_rank: index(&remote),
            remote,
            local_comm: None,
            is_low,
        });
        c
    }

    /// Number of members (of the local group).
    pub fn size(&self) -> u32 {
        self.group.ranks.len() as u32
    }

    /// Whether it is an intercommunicator.
    pub fn is_inter(&self) -> bool {
        self.inter.is_some()
    }

    /// The group that ranks name in point-to-point calls and collective
    /// messages: the remote group of an intercommunicator, else its own.
    pub fn peers(&self) -> &Group {
        match &self.inter {
            Some(i) => &i.remote,
            None => &self.group,
        }
    }

    /// Members of both groups.
    pub fn total_size(&self) -> u32 {
        self.size()
            + self
                .inter
                .as_ref()
                .map_or(0, |i| i.remote.ranks.len() as u32)
    }

    /// World rank naming the communicator to the network model: its rank
    /// 0, or the lower of the two groups' ranks 0.
    pub fn leader(&self) -> u32 {
        let mine = self.group.ranks.first().copied().unwrap_or(0);
        match &self.inter {
            Some(i) => mine.min(i.remote.ranks.first().copied().unwrap_or(mine)),
            None => mine,
        }
    }

    /// Context id its collective messages are received on.
    pub fn coll_context(&self) -> u32 {
        self.context + 1
    }

    /// Context id its collective messages are sent on.
    pub fn send_coll_context(&self) -> u32 {
        self.send_context + 1
    }

    /// Envelope flags of its messages.
    pub fn envelope_flags(&self) -> u8 {
        if self.is_inter() {
            FLAG_INTERCOMM
        } else {
            0
        }
    }

    /// What `MPI_Comm_idup` hands out at once, as MPICH does: this
    /// communicator's groups and rank, so that attributes, names and error
    /// handlers can be set before the request completes, but on a context
    /// no process receives on (the program may not communicate on it
    /// before then; messages it would send match nothing).
    pub fn pending_copy(&self) -> Comm {
        let mut c = self.clone();
        c.context = PENDING_CONTEXT;
        c.send_context = PENDING_CONTEXT;
        c.coll_seq = 0;
        if let Some(i) = &mut c.inter {
            i.local_comm = None;
        }
        c
    }

    /// Records the hidden intracommunicator of an intercommunicator's
    /// local group.
    pub fn set_local_comm(&mut self, id: CommId) {
        if let Some(i) = &mut self.inter {
            i.local_comm = Some(id);
        }
    }

    /// World rank of rank `r` of the peers (see [`Comm::peers`]).
    pub fn world_of(&self, r: u32) -> MpiResult<u32> {
        self.peers()
            .ranks
            .get(r as usize)
            .copied()
            .ok_or(MpiError::Rank)
    }

    /// Rank among the peers of world rank `w` (see [`Comm::peers`]).
    pub fn rank_of_world(&self, w: u32) -> Option<u32> {
        match &self.inter {
            Some(i) => i.remote_to_rank.get(&w).copied(),
            None => self.world_to_rank.get(&w).copied(),
        }
    }

    /// Rank in the local group of world rank `w`.
    pub fn local_rank_of_world(&self, w: u32) -> Option<u32> {
        self.world_to_rank.get(&w).copied()
    }
}

/// The communicators of one process.
#[derive(Debug)]
pub struct Comms {
    list: Vec<Option<Comm>>,
    /// Freed communicators whose pending receives may still need them.
    retired: HashMap<u32, Comm>,
    /// The context-id blocks this process has free.
    pub(crate) ids: ContextIds,
}

impl Comms {
    /// World and self for rank `rank` of a world of the `count` ranks from
    /// `first` on.
    pub fn new(rank: u32, (first, count): (u32, u32)) -> Comms {
        let world = Comm::new(
            0,
            Group {
                ranks: (first..first + count).collect(),
            },
            rank,
        );
        let me = Comm::new(2, Group { ranks: vec![rank] }, rank);
        Comms {
            list: vec![Some(world), Some(me)],
            retired: HashMap::new(),
            ids: ContextIds::default(),
        }
    }

    /// A live communicator.
    pub fn get(&self, c: CommId) -> MpiResult<&Comm> {
        self.list
            .get(c.0 as usize)
            .and_then(|c| c.as_ref())
            .ok_or(MpiError::Comm)
    }

    /// A live communicator, to change.
    pub fn get_mut(&mut self, c: CommId) -> MpiResult<&mut Comm> {
        self.list
            .get_mut(c.0 as usize)
            .and_then(|c| c.as_mut())
            .ok_or(MpiError::Comm)
    }

    /// A live or freed communicator (for completing pending receives).
    pub fn get_any(&self, c: CommId) -> Option<&Comm> {
        self.get(c).ok().or_else(|| self.retired.get(&c.0))
    }

    /// Stores a new communicator (its context block already agreed on).
    pub fn add(&mut self, comm: Comm) -> CommId {
        self.list.push(Some(comm));
        CommId(self.list.len() as u32 - 1)
    }

    /// A handle for a communicator that a nonblocking call will create
    /// ([`Comms::fill`]); until then it names `placeholder` (see
    /// [`Comm::pending_copy`]).
    pub fn reserve(&mut self, placeholder: Comm) -> CommId {
        self.list.push(Some(placeholder));
        CommId(self.list.len() as u32 - 1)
    }

    /// Stores the communicator a reserved handle names.
    pub fn fill(&mut self, id: CommId, comm: Comm) {
        if let Some(slot) = self.list.get_mut(id.0 as usize) {
            *slot = Some(comm);
        }
    }

    /// The communicators (live) received on `context`.
    pub(crate) fn ids_with_context(&self, context: u32) -> Vec<CommId> {
        (self.list.iter().enumerate())
            .filter(|(_, c)| c.as_ref().is_some_and(|c| c.context == context))
            .map(|(i, _)| CommId(i as u32))
            .collect()
    }

    /// Stores a communicator of just `me` and `other` on `context` (one no
    /// agreement hands out); its id and `other`'s rank in it. Drop it with
    /// [`Comms::forget`].
    pub(crate) fn add_pair(&mut self, context: u32, me: u32, other: u32) -> (CommId, u32) {
        let mut ranks = vec![me, other];
        ranks.sort_unstable();
        let other_rank = u32::from(ranks[0] == me);
        (
            self.add(Comm::new(context, Group { ranks }, me)),
            other_rank,
        )
    }

    /// Drops a communicator that was never agreed on (its context is not
    /// one of this process's blocks), such as the two leaders' bridge of
    /// a spawn.
    pub(crate) fn forget(&mut self, c: CommId) {
        if let Some(slot) = self.list.get_mut(c.0 as usize) {
            *slot = None;
        }
    }

    /// `MPI_Comm_free` (world and self cannot be freed).
    pub fn free(&mut self, c: CommId) -> MpiResult<()> {
        if c == CommId::WORLD || c == CommId::SELF {
            return Err(MpiError::Comm);
        }
        let slot = self.list.get_mut(c.0 as usize).ok_or(MpiError::Comm)?;
        let comm = slot.take().ok_or(MpiError::Comm)?;
        let local = comm.inter.as_ref().and_then(|i| i.local_comm);
        self.ids.release(comm.context);
        self.retired.insert(c.0, comm);
        if let Some(l) = local {
            if let Some(lc) = self.list.get_mut(l.0 as usize).and_then(|s| s.take()) {
                self.retired.insert(l.0, lc);
            }
        }
        Ok(())
    }
}
