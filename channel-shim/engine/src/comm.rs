//! Communicators: a group of world ranks, this process's rank in it, and a
//! context id. Point-to-point traffic uses the (even) context id, the
//! communicator's collectives use context id + 1, so the two never match.
//!
//! Context ids are agreed on by the processes that create a communicator
//! together: each process keeps the lowest context id it has never used,
//! and creation takes the maximum of these over the parent communicator (in
//! the same collective that exchanges colours or checks membership). Two
//! communicators of one process therefore never share a context id; two
//! disjoint communicators created by one split may, which is harmless
//! because matching is per receiving process.

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

/// One communicator.
#[derive(Clone, Debug)]
pub struct Comm {
    /// Point-to-point context id (even); collectives use `context + 1`.
    pub context: u32,
    /// Its members.
    pub group: Group,
    /// This process's rank in it.
    pub rank: u32,
    world_to_rank: HashMap<u32, u32>,
}

impl Comm {
    /// A communicator of `group` (which must contain `my_world_rank`).
    pub fn new(context: u32, group: Group, my_world_rank: u32) -> Comm {
        let world_to_rank: HashMap<u32, u32> = group
            .ranks
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, i as u32))
            .collect();
        let rank = world_to_rank[&my_world_rank];
        Comm {
            context,
            group,
            rank,
            world_to_rank,
        }
    }

    /// Number of members.
    pub fn size(&self) -> u32 {
        self.group.ranks.len() as u32
    }

    /// Context id of its collectives.
    pub fn coll_context(&self) -> u32 {
        self.context + 1
    }

    /// World rank of member `r`.
    pub fn world_of(&self, r: u32) -> MpiResult<u32> {
        self.group
            .ranks
            .get(r as usize)
            .copied()
            .ok_or(MpiError::Rank)
    }

    /// Member rank of world rank `w`.
    pub fn rank_of_world(&self, w: u32) -> Option<u32> {
        self.world_to_rank.get(&w).copied()
    }
}

/// The communicators of one process.
#[derive(Debug)]
pub struct Comms {
    list: Vec<Option<Comm>>,
    /// Freed communicators whose pending receives may still need them.
    retired: HashMap<u32, Comm>,
    /// Lowest context id this process has never used.
    pub next_context: u32,
}

impl Comms {
    /// World and self for world rank `rank` of `size`.
    pub fn new(rank: u32, size: u32) -> Comms {
        let world = Comm::new(
            0,
            Group {
                ranks: (0..size).collect(),
            },
            rank,
        );
        let me = Comm::new(2, Group { ranks: vec![rank] }, rank);
        Comms {
            list: vec![Some(world), Some(me)],
            retired: HashMap::new(),
            next_context: 4,
        }
    }

    /// A live communicator.
    pub fn get(&self, c: CommId) -> MpiResult<&Comm> {
        self.list
            .get(c.0 as usize)
            .and_then(|c| c.as_ref())
            .ok_or(MpiError::Comm)
    }

    /// A live or freed communicator (for completing pending receives).
    pub fn get_any(&self, c: CommId) -> Option<&Comm> {
        self.get(c).ok().or_else(|| self.retired.get(&c.0))
    }

    /// Stores a new communicator using context id `context`.
    pub fn add(&mut self, comm: Comm) -> CommId {
        self.next_context = self.next_context.max(comm.context + 2);
        self.list.push(Some(comm));
        CommId(self.list.len() as u32 - 1)
    }

    /// `MPI_Comm_free` (world and self cannot be freed).
    pub fn free(&mut self, c: CommId) -> MpiResult<()> {
        if c == CommId::WORLD || c == CommId::SELF {
            return Err(MpiError::Comm);
        }
        let slot = self.list.get_mut(c.0 as usize).ok_or(MpiError::Comm)?;
        let comm = slot.take().ok_or(MpiError::Comm)?;
        self.retired.insert(c.0, comm);
        Ok(())
    }
}
