//! `[analytic]`: the parameters of the analytic (Dimemas-style) network
//! model, as the user writes them. Everything is optional: what is left out
//! is derived from the packet network of the same file (see
//! `analytic::MachineParams::from_config`).

use super::{DurationNs, RateBps};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Which network model a run uses (top-level `model` key, `--model`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// How a phase's cost scales with the number of members P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum PhaseModel {
    /// The phase does not exist (factor 0).
    #[serde(rename = "0")]
    None,
    /// Constant time (factor 1).
    #[serde(rename = "CTE")]
    Constant,
    /// Linear: one step per member (factor P).
    #[serde(rename = "LIN")]
    Linear,
    /// Logarithmic: a tree of ⌈log2 P⌉ phases, each needing ⌈C_i ÷ B⌉ steps
    /// when it has C_i simultaneous messages and the network B buses.
    #[serde(rename = "LOG")]
    Log,
}

/// Which message size a phase moves, from the root's sent (S) and
/// received (R) bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum SizeRule {
    /// max(S, R).
    #[serde(rename = "MAX")]
    Max,
    /// min(S, R).
    #[serde(rename = "MIN")]
    Min,
    /// (S + R) ÷ 2, rounded down.
    #[serde(rename = "MEAN")]
    Mean,
    /// 2 × max(S, R).
    #[serde(rename = "2*MAX")]
    TwiceMax,
    /// S + R.
    #[serde(rename = "S+R")]
    SendPlusRecv,
}

impl SizeRule {
    /// The phase's size in bytes for a root that sends `sent` and receives
    /// `received` bytes.
    pub fn bytes(self, sent: u64, received: u64) -> u64 {
        match self {
            SizeRule::Max => sent.max(received),
            SizeRule::Min => sent.min(received),
            SizeRule::Mean => (sent + received) / 2,
            SizeRule::TwiceMax => 2 * sent.max(received),
            SizeRule::SendPlusRecv => sent + received,
        }
    }
}

/// The fan-in and fan-out models of one collective
/// (`[analytic.collective.NAME]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CollectiveModel {
    /// Scaling of the fan-in phase.
    pub model_in: PhaseModel,
    /// Size moved in each fan-in step.
    pub size_in: SizeRule,
    /// Scaling of the fan-out phase.
    pub model_out: PhaseModel,
    /// Size moved in each fan-out step.
    pub size_out: SizeRule,
}
