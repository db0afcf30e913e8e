//! `[analytic]`: the parameters of the analytic (Dimemas-style) network
//! model, as the user writes them. Everything is optional: what is left out
//! is derived from the packet network of the same file (see
//! [`super::MachineParams::from_config`]).

use super::collectives::CollectiveModel;
use crate::config::{DurationNs, RateBps};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Which network model a run uses (top-level `model` key, `--model`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// The packet-level simulator (TCP, links, queues, switches).
    #[default]
    Packet,
    /// The analytic model: latency + size ÷ bandwidth with link and bus
    /// contention; collectives as one modelled operation.
    Analytic,
}

impl ModelKind {
    /// Parses `packet` or `analytic` (the `--model` option).
    pub fn parse(text: &str) -> Result<ModelKind, String> {
        match text {
            "packet" => Ok(ModelKind::Packet),
            "analytic" => Ok(ModelKind::Analytic),
            other => Err(format!(
                "--model {other}: give `packet` (the packet-level simulator) or `analytic` (the Dimemas-style model)"
            )),
        }
    }

    /// The name users write.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Packet => "packet",
            ModelKind::Analytic => "analytic",
        }
    }
}

/// `[analytic]`: machine parameters and per-collective models.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyticConfig {
    /// Ranks per SMP node: rank r runs on node ⌊r / processors_per_node⌋.
    /// Default: ranks placed on the same `[[host]]` share a node.
    pub processors_per_node: Option<u32>,
    /// Network latency of an inter-node message. Default: the propagation
    /// delay along the route between the first two hosts that hold ranks.
    pub latency: Option<DurationNs>,
    /// Network bandwidth of an inter-node message. Default: the slowest
    /// link on that route.
    pub bandwidth: Option<RateBps>,
    /// Latency of a message inside a node. Default `[intra_host].latency`.
    pub local_latency: Option<DurationNs>,
    /// Bandwidth inside a node (0 = unlimited). Default `[intra_host].rate`.
    pub local_bandwidth: Option<RateBps>,
    /// Links from each node to the network, per direction (L); default 1.
    pub links_per_node: Option<u32>,
    /// Buses in the network (B): at most B messages cross it at once;
    /// 0 (the default) means unlimited.
    pub buses: Option<u32>,
    /// Per-collective fan-in/fan-out models, keyed by the MPI name in lower
    /// case without `MPI_` (`bcast`, `allreduce`, …); unnamed ones keep
    /// their defaults.
    #[serde(default)]
    pub collective: BTreeMap<String, CollectiveModel>,
}
