//! The machine the analytic model describes: SMP nodes of processors joined
//! by a network of `buses` buses, each node attached by `links_per_node`
//! links in each direction, plus the rank → node map.

use crate::base::time::{serialization_time, Nanos};
use crate::config::{ConfigError, NetworkConfig};
use crate::topology::routing::Routing;
use crate::topology::Network;

/// Resolved machine parameters (every default filled in).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MachineParams {
    /// Latency of an inter-node message, ns.
    pub latency_ns: u64,
    /// Bandwidth of an inter-node message, bits per second (0 = unlimited).
    pub bandwidth_bps: u64,
    /// Latency of a message inside a node, ns.
    pub local_latency_ns: u64,
    /// Bandwidth inside a node, bits per second (0 = unlimited).
    pub local_bandwidth_bps: u64,
    /// Links from each node to the network, per direction (0 = unlimited).
    pub links_per_node: u32,
    /// Buses in the network (0 = unlimited).
    pub buses: u32,
    /// The node every rank runs on.
    pub node_of_rank: Vec<u32>,
}

impl MachineParams {
    /// Number of nodes (one more than the largest node number used).
    pub fn nodes(&self) -> usize {
        self.node_of_rank
            .iter()
            .max()
            .map_or(0, |&n| n as usize + 1)
    }

    /// True when ranks `a` and `b` share a node.
    pub fn same_node(&self, a: u32, b: u32) -> bool {
        self.node_of_rank[a as usize] == self.node_of_rank[b as usize]
    }

    /// Latency and bandwidth of a message between ranks `a` and `b`.
    pub fn path(&self, a: u32, b: u32) -> (u64, u64) {
        if self.same_node(a, b) {
            (self.local_latency_ns, self.local_bandwidth_bps)
        } else {
            (self.latency_ns, self.bandwidth_bps)
        }
    }

    /// Time to move `bytes` at `bandwidth_bps` (size ÷ bandwidth), rounded
    /// up to the nanosecond; 0 when the bandwidth is unlimited.
    pub fn transfer_ns(bytes: u64, bandwidth_bps: u64) -> u64 {
        serialization_time(bytes, bandwidth_bps).0
    }

    /// Resolves `[analytic]` of `cfg` for `n_ranks` ranks: explicit keys
    /// win; the rest comes from the packet network. Ranks placed on one
    /// host share a node (in a hybrid `[topology.processor]` network, ranks
    /// on the cores of one processor do); the network latency and
    /// bandwidth are the propagation delay and slowest link on the route
    /// from rank 0's host to the first host of another node; local ones are
    /// `[intra_host]` (hybrid: the route between two cores of rank 0's
    /// processor).
    pub fn from_config(
        cfg: &NetworkConfig,
        origin: &str,
        n_ranks: usize,
    ) -> Result<MachineParams, ConfigError> {
        let a = &cfg.analytic;
        let net = Network::from_config(cfg, origin)?;
        let hosts = net.place_ranks(cfg, n_ranks, origin)?;
        let hybrid = cfg.topology.as_ref().is_some_and(|t| t.processor.is_some());
        // The SMP node of every host: its processor (`cpuP.coreC`) in a
        // hybrid network, else the host itself.
        let node_key = |h: u32| -> String {
            let name = &net.nodes[h as usize].name;
            match name.split_once(".core") {
                Some((cpu, _)) if hybrid => cpu.to_string(),
                _ => name.clone(),
            }
        };
        let node_of_rank: Vec<u32> = match a.processors_per_node {
            Some(0) => {
                return Err(ConfigError(format!(
                    "{origin}: `analytic.processors_per_node` is 0; a node needs at least one processor"
                )))
            }
            Some(p) => (0..n_ranks as u32).map(|r| r / p).collect(),
            None => {
                // Nodes numbered in order of first use by a rank.
                let mut seen: Vec<String> = Vec::new();
                hosts
                    .iter()
                    .map(|&h| {
                        let k = node_key(h);
                        match seen.iter().position(|x| *x == k) {
                            Some(i) => i as u32,
                            None => {
                                seen.push(k);
                                seen.len() as u32 - 1
                            }
                        }
                    })
                    .collect()
            }
        };
        // Network: the route between the first hosts of two different nodes.
        let first = hosts.first().copied();
        let other = hosts
            .iter()
            .zip(&node_of_rank)
            .find(|(_, &n)| n != node_of_rank[0])
            .map(|(h, _)| *h);
        let (derived_latency, derived_bandwidth) = route(&net, first, other);
        // Local, in a hybrid network: the route between two cores of node 0.
        let (mut local_latency, mut local_bandwidth) =
            (cfg.intra_host.latency.0, cfg.intra_host.rate.0);
        if hybrid {
            let core = hosts
                .iter()
                .zip(&node_of_rank)
                .find(|(&h, &n)| n == node_of_rank[0] && Some(h) != first)
                .map(|(h, _)| *h);
            if core.is_some() {
                (local_latency, local_bandwidth) = route(&net, first, core);
            }
        }
        Ok(MachineParams {
            latency_ns: a.latency.map_or(derived_latency, |d| d.0),
            bandwidth_bps: a.bandwidth.map_or(derived_bandwidth, |r| r.0),
            local_latency_ns: a.local_latency.map_or(local_latency, |d| d.0),
            local_bandwidth_bps: a.local_bandwidth.map_or(local_bandwidth, |r| r.0),
            links_per_node: a.links_per_node.unwrap_or(1),
            buses: a.buses.unwrap_or(0),
            node_of_rank,
        })
    }
}

/// Propagation delay and slowest rate on the route between hosts `a` and
/// `b` (with no second host: `a`'s first link; 0 and unlimited without
/// any link).
fn route(net: &Network, a: Option<u32>, b: Option<u32>) -> (u64, u64) {
    let ports: Vec<u32> = match (a, b) {
        (Some(a), Some(b)) => Routing::new(net).path(net, a, b).unwrap_or_default(),
        (Some(a), None) => net.nodes[a as usize]
            .ports
            .first()
            .copied()
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    let mut delay = 0u64;
    let mut rate = 0u64;
    for p in ports {
        let l = &net.links[net.ports[p as usize].link as usize].params;
        delay += l.delay_ns;
        if l.rate_bps != 0 && (rate == 0 || l.rate_bps < rate) {
            rate = l.rate_bps;
        }
    }
    (delay, rate)
}

/// A virtual time plus a duration.
pub(crate) fn after(t: Nanos, ns: u64) -> Nanos {
    Nanos(t.0.saturating_add(ns))
}
