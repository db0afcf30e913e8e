//! Storage nodes (`[[storage]]`): a file server sitting on a host of the
//! network, so that MPI-IO is part of the what-if. A rank's file access
//! travels as messages between its host and the storage host (a request
//! carrying the data of a write; a reply carrying the data of a read), and
//! the node serves each request after it arrived: the request is cut at
//! stripe boundaries, stripe unit *k* going to target *k* mod
//! `stripe_count`; every target serves its pieces first come, first
//! served, a piece taking `latency + bytes ÷ bandwidth`; the request is
//! done when its last piece is.
//!
//! This module is the node's deterministic model; the wire format of the
//! requests and replies is `mpinetsim_protocol::storage`, shared by the
//! rank's shim and the driver (the gateway), which hands the model the
//! requests the simulator delivers to the node's endpoint and injects the
//! replies at the times it computes.

use crate::config::{ByteSize, ConfigError, DurationNs, RateBps};
use crate::time::{serialization_time, Nanos};
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

/// The service model of one storage node.
#[derive(Clone, Debug)]
pub struct StorageServer {
    bandwidth_bps: u64,
    latency: Nanos,
    stripe_size: u64,
    /// When each stripe target has served everything queued so far.
    free_at: Vec<Nanos>,
}

impl StorageServer {
    /// A node as `cfg` describes it, idle.
    pub fn new(cfg: &StorageConfig) -> StorageServer {
        StorageServer {
            bandwidth_bps: cfg.bandwidth.0,
            latency: Nanos(cfg.latency.0),
            stripe_size: cfg.stripe_size.0.max(1),
            free_at: vec![Nanos::ZERO; cfg.stripe_count.max(1) as usize],
        }
    }

    /// Serves a request for `len` bytes at file offset `offset`, which
    /// arrived at `arrival`: each stripe target queues its pieces behind
    /// what it already has. Returns when the last piece is done (a request
    /// of no bytes takes one latency at the target of its offset).
    pub fn serve(&mut self, offset: u64, len: u64, arrival: Nanos) -> Nanos {
        let targets = self.free_at.len() as u64;
        let mut done = arrival;
        let mut off = offset;
        let end = offset.saturating_add(len);
        loop {
            let unit = off / self.stripe_size;
            let piece = ((unit + 1) * self.stripe_size).min(end) - off;
            let t = &mut self.free_at[(unit % targets) as usize];
            let start = (*t).max(arrival);
            *t = start + self.latency + serialization_time(piece, self.bandwidth_bps);
            done = done.max(*t);
            off += piece;
            if off >= end {
                return done;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(count: u32, size: u64) -> StorageServer {
        StorageServer::new(&StorageConfig {
            host: "s".into(),
            bandwidth: RateBps(8_000_000_000), // 1 byte per ns
            latency: DurationNs(1000),
            stripe_count: count,
            stripe_size: ByteSize(size),
        })
    }

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

    #[test]
    fn one_target_serves_first_come_first_served() {
        let mut s = server(1, 1 << 20);
        // latency + 4096 B at 1 B/ns.
        assert_eq!(s.serve(0, 4096, Nanos(0)), Nanos(5096));
        // Arrives while the first is served: waits for it.
        assert_eq!(s.serve(4096, 100, Nanos(10)), Nanos(5096 + 1100));
        // Arrives when the target is idle again.
        assert_eq!(s.serve(0, 0, Nanos(1_000_000)), Nanos(1_001_000));
    }

    #[test]
    fn stripes_go_to_their_targets_in_parallel() {
        let mut s = server(2, 1000);
        // Units 0 and 2 on target 0, unit 1 on target 1: target 0 takes
        // 2 × (1000 + 1000), target 1 one.
        assert_eq!(s.serve(0, 3000, Nanos(0)), Nanos(4000));
        assert_eq!(s.free_at, vec![Nanos(4000), Nanos(2000)]);
        // A piece inside unit 1 (target 1) waits only for target 1.
        assert_eq!(s.serve(1500, 10, Nanos(100)), Nanos(3010));
    }
}
