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

use crate::base::time::{serialization_time, Nanos};
use crate::config::storage::StorageConfig;

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
    use crate::config::{ByteSize, DurationNs, RateBps};

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
