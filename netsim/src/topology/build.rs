//! From a checked [`NetworkConfig`] to the graph: a `[topology]` table is
//! first expanded by its generator into listed nodes and links, which
//! [`Network::from_listed`] then turns into the graph. Generators depend on
//! the graph's vocabulary, never the other way round.

use super::generators;
use super::graph::Network;
use crate::config::{ConfigError, NetworkConfig};

impl Network {
    /// Builds the graph from a config, listed or generated, checking names,
    /// endpoints and values. `origin` names the file in error messages.
    pub fn from_config(cfg: &NetworkConfig, origin: &str) -> Result<Network, ConfigError> {
        let mut net = match &cfg.topology {
            None => Network::from_listed(cfg, origin)?,
            Some(t) => {
                let (expanded, shape) = generators::expand(cfg, origin)?;
                let mut net = Network::from_listed(&expanded, origin)?;
                net.routing = t.routing;
                if let Some(gap) = t.flowlet_gap {
                    net.flowlet_gap_ns = gap.0;
                }
                net.shape = shape;
                net
            }
        };
        net.routing_seed = cfg.seed;
        net.fabric = cfg.fabric;
        Ok(net)
    }
}
