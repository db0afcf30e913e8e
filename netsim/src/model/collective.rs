//! Collectives as a model may time them: a member's entry into one call
//! ([`CollectiveEntry`], named by [`CollectiveKey`]), the operation
//! ([`CollectiveOp`], whose discriminant is the wire code the shim sends)
//! and a member's [`Release`] when the call has ended. A model that times
//! collectives as one operation (the analytic model) offers
//! [`super::CollectiveTiming`]; one that carries their messages (the packet
//! simulator) does not.

use crate::base::time::Nanos;
use crate::config::analytic::{CollectiveModel, PhaseModel, SizeRule};

/// Identifies one collective call of one communicator: its collective
/// context id, the world rank of its member 0 (disjoint communicators may
/// share a context id) and the call's number on that communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CollectiveKey {
    /// The communicator's collective context id.
    pub context: u32,
    /// World rank of the communicator's rank 0.
    pub leader: u32,
    /// Collective calls this member made on the communicator before.
    pub seq: u32,
}

/// One member's entry into a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollectiveEntry {
    /// Which call.
    pub key: CollectiveKey,
    /// The operation.
    pub op: CollectiveOp,
    /// Members of the communicator (P).
    pub members: u32,
    /// This member is the operation's root.
    pub is_root: bool,
    /// Bytes this member's send arguments describe (count × type size).
    pub sent_bytes: u64,
    /// Bytes this member's receive arguments describe.
    pub received_bytes: u64,
}

/// A member released from a finished collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// World rank.
    pub rank: u32,
    /// The collective (a rank may have several nonblocking ones under way).
    pub key: CollectiveKey,
    /// Virtual time the collective ended.
    pub at: Nanos,
}

/// The MPI collectives the shim reports (the wire code is the discriminant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
#[allow(missing_docs)]
pub enum CollectiveOp {
    Barrier = 1,
    Bcast = 2,
    Reduce = 3,
    Allreduce = 4,
    Gather = 5,
    Gatherv = 6,
    Scatter = 7,
    Scatterv = 8,
    Allgather = 9,
    Allgatherv = 10,
    Alltoall = 11,
    Alltoallv = 12,
    ReduceScatter = 13,
    ReduceScatterBlock = 14,
    Scan = 15,
    Exscan = 16,
}

impl CollectiveOp {
    /// Every operation, in wire-code order.
    pub const ALL: [CollectiveOp; 16] = [
        CollectiveOp::Barrier,
        CollectiveOp::Bcast,
        CollectiveOp::Reduce,
        CollectiveOp::Allreduce,
        CollectiveOp::Gather,
        CollectiveOp::Gatherv,
        CollectiveOp::Scatter,
        CollectiveOp::Scatterv,
        CollectiveOp::Allgather,
        CollectiveOp::Allgatherv,
        CollectiveOp::Alltoall,
        CollectiveOp::Alltoallv,
        CollectiveOp::ReduceScatter,
        CollectiveOp::ReduceScatterBlock,
        CollectiveOp::Scan,
        CollectiveOp::Exscan,
    ];

    /// The name `[analytic.collective.NAME]` uses: the MPI name in lower
    /// case without `MPI_`.
    pub fn name(self) -> &'static str {
        use CollectiveOp::*;
        match self {
            Barrier => "barrier",
            Bcast => "bcast",
            Reduce => "reduce",
            Allreduce => "allreduce",
            Gather => "gather",
            Gatherv => "gatherv",
            Scatter => "scatter",
            Scatterv => "scatterv",
            Allgather => "allgather",
            Allgatherv => "allgatherv",
            Alltoall => "alltoall",
            Alltoallv => "alltoallv",
            ReduceScatter => "reduce_scatter",
            ReduceScatterBlock => "reduce_scatter_block",
            Scan => "scan",
            Exscan => "exscan",
        }
    }

    /// The operation called `name` (see [`CollectiveOp::name`]).
    pub fn from_name(name: &str) -> Option<CollectiveOp> {
        Self::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// The operation with wire code `code`.
    pub fn from_code(code: u8) -> Option<CollectiveOp> {
        Self::ALL.iter().copied().find(|op| *op as u8 == code)
    }

    /// Whether one member is the root (its sizes drive the model); for the
    /// others the largest sizes any member reports are used.
    pub fn is_rooted(self) -> bool {
        use CollectiveOp::*;
        matches!(self, Bcast | Reduce | Gather | Gatherv | Scatter | Scatterv)
    }

    /// The model used unless `[analytic.collective.NAME]` says otherwise,
    /// chosen after the algorithm the shim runs for it (MPICH's): a tree
    /// or recursive doubling/halving is LOG, a linear or ring algorithm is
    /// LIN; a phase only where the algorithm has one; MAX sizes.
    pub fn default_model(self) -> CollectiveModel {
        use CollectiveOp::*;
        use PhaseModel::{Linear as LIN, Log as LOG, None as ZERO};
        let (model_in, model_out) = match self {
            // Dissemination; recursive doubling; recursive halving;
            // binomial trees towards the root.
            Barrier | Allreduce | ReduceScatter | ReduceScatterBlock | Reduce | Scan | Exscan
            | Gather | Allgather => (LOG, ZERO),
            // Binomial trees from the root.
            Bcast | Scatter => (ZERO, LOG),
            // Linear at the root, a ring, pairwise or all-at-once exchanges.
            Gatherv | Allgatherv | Alltoall | Alltoallv => (LIN, ZERO),
            Scatterv => (ZERO, LIN),
        };
        CollectiveModel {
            model_in,
            size_in: SizeRule::Max,
            model_out,
            size_out: SizeRule::Max,
        }
    }
}
