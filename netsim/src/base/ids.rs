//! The numbers that name a network's parts. They are plain indices into
//! [`crate::topology::Network`]'s tables, defined here, below every layer,
//! so that frames, shapes and counters can name a node or port without
//! depending on the graph.

/// Index of a node in `Network::nodes`.
pub type NodeId = u32;
/// Index of a port in `Network::ports` (global over all nodes).
pub type PortId = u32;
/// Index of a link in `Network::links`.
pub type LinkId = u32;
