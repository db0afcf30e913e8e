//! The network as a graph, and how it is made: the graph itself
//! ([`graph`]: nodes, ports, links with resolved parameters, rank
//! placement), the regular [`shape`] a generator records, the
//! [`generators`] that expand a `[topology]` table, [`build`] (config →
//! graph), static [`routing`] and reachability ([`reach`]).
//!
//! Inside the layer: `shape` ← `graph` ← `generators` ← `build`, and
//! `routing` / `reach` use the graph (and the shapes) but nothing here uses
//! them.

pub mod build;
pub mod generators;
pub mod graph;
pub mod reach;
pub mod routing;
pub mod shape;

pub use crate::base::ids::{LinkId, NodeId, PortId};
pub use graph::{Link, LinkParams, Network, Node, NodeKind, Port};
