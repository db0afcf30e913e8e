//! [`Shape`]: what a generator knows about the regular structure it built,
//! so routing and analysis can work from coordinates (memory linear in the
//! routers) instead of per-destination tables.

use crate::base::ids::NodeId;

/// The regular structures routing can compute paths on directly. Router
/// numbers are in generation order (`router0`… or the role names' order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// Mesh, torus and bidirectional ring: router *i* is grid point *i*
    /// (last dimension fastest); `wrap[k]` when dimension k has wrap links
    /// (only generated for more than two routers).
    Grid {
        /// Routers along each dimension.
        dims: Vec<u32>,
        /// Which dimensions wrap around.
        wrap: Vec<bool>,
    },
    /// A ring used one way: router *i* sends only to router *i*+1 mod n.
    DirectedRing {
        /// Routers in the ring.
        n: u32,
    },
    /// 2^order routers; router *i* linked to *i* XOR 2^b.
    Hypercube {
        /// N.
        order: u32,
    },
    /// Breadth-first numbered `arity`-ary tree `levels` deep; hosts on leaves.
    Tree {
        /// Children per inner router.
        arity: u32,
        /// Levels of routers.
        levels: u32,
    },
    /// Three-level k-ary fat-tree: (k/2)² cores, then k pods of k/2
    /// aggregation routers, then k pods of k/2 edge routers.
    FatTree {
        /// Radix.
        k: u32,
    },
    /// `groups` groups of `a` fully linked routers; router G·a+i; one global
    /// link between every two groups (see the generator).
    Dragonfly {
        /// Number of groups.
        groups: u32,
        /// Routers per group.
        a: u32,
        /// Global links per router.
        h: u32,
    },
}

/// A generated network's layout and where its routers start among the nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The structure.
    pub layout: Layout,
    /// Node id of router number 0 (hosts and switches come first).
    pub first_router: NodeId,
}
