//! Process topologies: Cartesian grids, graphs and distributed graphs
//! attached to communicators, their queries, and `MPI_Dims_create`.
//!
//! A topology belongs to one communicator (`MPI_Comm_dup` copies it,
//! `MPI_Comm_free` drops it). Rank reordering is the identity: the
//! `reorder` argument is accepted and ignored, so process *i* of the old
//! communicator is process *i* of the new one (as in MPICH, whose
//! `MPI_Cart_map` and `MPI_Graph_map` also keep every rank).
//!
//! Each topology defines the in- and out-neighbours the neighbourhood
//! collectives ([`crate::collectives`]) exchange with, in the order the
//! standard fixes: a Cartesian grid lists, per dimension, the neighbour at
//! −1 then the one at +1 (`MPI_PROC_NULL` off a non-periodic edge); a
//! graph lists `MPI_Graph_neighbors` both ways; a distributed graph its
//! sources and its destinations.

mod cart;
mod create;
pub mod dims;

pub use cart::Cart;

use crate::comm::CommId;
use crate::error::{MpiError, MpiResult};
use std::collections::HashMap;

/// A graph topology (`MPI_Graph_create`): node *i*'s neighbours are
/// `edges[index[i − 1] .. index[i]]` (from 0 for node 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// Cumulative neighbour counts, one per node.
    pub index: Vec<u32>,
    /// Neighbour lists of all nodes, concatenated.
    pub edges: Vec<u32>,
}

impl Graph {
    /// Neighbours of node `rank` (`MPI_Graph_neighbors`).
    pub fn neighbors(&self, rank: u32) -> MpiResult<&[u32]> {
        let r = rank as usize;
        let end = *self.index.get(r).ok_or(MpiError::Rank)? as usize;
        let start = if r == 0 {
            0
        } else {
            self.index[r - 1] as usize
        };
        self.edges.get(start..end).ok_or(MpiError::Topology)
    }
}

/// A distributed graph topology: this process's edges only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistGraph {
    /// Ranks with an edge to this process, in order.
    pub sources: Vec<u32>,
    /// The weight of each of those edges (0 when unweighted).
    pub source_weights: Vec<i32>,
    /// Ranks this process has an edge to, in order.
    pub destinations: Vec<u32>,
    /// The weight of each of those edges (0 when unweighted).
    pub destination_weights: Vec<i32>,
    /// Whether this process gave weights (not `MPI_UNWEIGHTED`).
    pub weighted: bool,
}

/// The topology of a communicator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Topology {
    /// `MPI_CART`.
    Cart(Cart),
    /// `MPI_GRAPH`.
    Graph(Graph),
    /// `MPI_DIST_GRAPH`.
    DistGraph(DistGraph),
}

/// One neighbour of a neighbourhood collective: a rank of the
/// communicator, or `MPI_PROC_NULL` (no message, the buffer slot stays).
pub type Neighbor = Option<u32>;

impl Topology {
    /// (in-neighbours, out-neighbours) of the process of rank `rank`.
    pub fn neighbors(&self, rank: u32) -> MpiResult<(Vec<Neighbor>, Vec<Neighbor>)> {
        Ok(match self {
            Topology::Cart(c) => {
                let all = c.neighbors();
                (all.clone(), all)
            }
            Topology::Graph(g) => {
                let n: Vec<Neighbor> = g.neighbors(rank)?.iter().map(|&r| Some(r)).collect();
                (n.clone(), n)
            }
            Topology::DistGraph(d) => (
                d.sources.iter().map(|&r| Some(r)).collect(),
                d.destinations.iter().map(|&r| Some(r)).collect(),
            ),
        })
    }
}

/// The topologies of one process's communicators.
#[derive(Debug, Default)]
pub struct Topologies {
    by_comm: HashMap<CommId, Topology>,
}

impl Topologies {
    pub(crate) fn get(&self, c: CommId) -> Option<&Topology> {
        self.by_comm.get(&c)
    }

    pub(crate) fn set(&mut self, c: CommId, t: Topology) {
        self.by_comm.insert(c, t);
    }

    pub(crate) fn remove(&mut self, c: CommId) {
        self.by_comm.remove(&c);
    }
}
