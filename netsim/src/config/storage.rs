//! `[[storage]]`: a storage node of the network, the file system the
//! ranks' MPI-IO reaches through the simulated network (its service model
//! is `model::storage`).

use super::{ByteSize, ConfigError, DurationNs, RateBps};
use serde::Deserialize;

/// `[[storage]]`: one storage node.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    /// The host it sits on (a `[[host]]` name or a generated host).
    pub host: String,
    /// Rate at which one stripe target reads or writes (default 1 GB/s,
    /// "8Gbps"); "unlimited" serves in no time beyond the latency.
    #[serde(default = "default_bandwidth")]
    pub bandwidth: RateBps,
    /// Fixed time per request piece at a target (default 100 µs).
    #[serde(default = "default_latency")]
    pub latency: DurationNs,
    /// Stripe targets that serve in parallel (default 1).
    #[serde(default = "default_stripe_count")]
    pub stripe_count: u32,
    /// Bytes of the file one target holds before the next takes over
    /// (default 1 MiB).
    #[serde(default = "default_stripe_size")]
    pub stripe_size: ByteSize,
}

fn default_bandwidth() -> RateBps {
    RateBps(8_000_000_000)
}
fn default_latency() -> DurationNs {
    DurationNs(100_000)
}
fn default_stripe_count() -> u32 {
    1
}
fn default_stripe_size() -> ByteSize {
    ByteSize(1 << 20)
}

impl StorageConfig {
    /// Checks the values (`origin` names the file in the message).
    pub fn check(&self, origin: &str) -> Result<(), ConfigError> {
        if self.stripe_count == 0 {
            return Err(ConfigError(format!(
                "{origin}: [[storage]] on {}: `stripe_count` is 0; give at least 1",
                self.host
            )));
        }
        if self.stripe_size.0 == 0 {
            return Err(ConfigError(format!(
                "{origin}: [[storage]] on {}: `stripe_size` is 0; give a size such as \"1MiB\"",
                self.host
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_file_gives_the_node_and_its_defaults() {
        let cfg = crate::NetworkConfig::from_toml_str(
            "[[host]]\nname = 'h0'\n[[storage]]\nhost = 'h0'\n",
            "t",
        )
        .unwrap();
        let st = &cfg.storage[0];
        assert_eq!(st.host, "h0");
        assert_eq!(st.bandwidth.0, 8_000_000_000);
        assert_eq!(st.latency.0, 100_000);
        assert_eq!((st.stripe_count, st.stripe_size.0), (1, 1 << 20));
        let e = crate::NetworkConfig::from_toml_str(
            "[[host]]\nname = 'h0'\n[[storage]]\nhost = 'h0'\nstripe_size = 0\n",
            "t",
        )
        .unwrap_err();
        assert!(e.0.contains("`stripe_size` is 0"), "{}", e.0);
    }
}
