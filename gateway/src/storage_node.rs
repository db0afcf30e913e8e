//! The storage node of a job (`[[storage]]` in the network file): an
//! endpoint of the packet simulator on the node's host, whose requests the
//! gateway answers. A rank's request arrives through the simulated
//! network; the node's service model (`netsim::model::storage`) says when it is
//! done; the reply then leaves for the rank at that virtual time. Counts
//! per rank the bytes read and written and the time it had requests
//! outstanding, for the report.

use crate::error::Error;
use mpinetsim_protocol::storage::{StorageOp, StorageRequest};
use netsim::model::storage::StorageServer;
use netsim::NetworkModel;
use netsim::{Delivery, Nanos, NetworkConfig};
use schemars::JsonSchema;
use serde::Serialize;

/// One rank's storage traffic.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct RankIo {
    /// Bytes the rank read through the node.
    pub bytes_read: u64,
    /// Bytes the rank wrote through the node.
    pub bytes_written: u64,
    /// Requests it sent.
    pub requests: u64,
    /// Time it had at least one request outstanding (from the request's
    /// send to its reply's arrival), s.
    pub io_time_s: f64,
    #[serde(skip)]
    covered_until: Nanos,
}

impl RankIo {
    /// Adds the interval `from..to` in which a request was outstanding
    /// (intervals come in order of their end).
    fn cover(&mut self, from: Nanos, to: Nanos) {
        if to > self.covered_until {
            let start = from.max(self.covered_until);
            self.io_time_s += (to.0 - start.0) as f64 / 1e9;
            self.covered_until = to;
        }
    }
}

/// What the report says about the storage node.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct StorageReport {
    /// The host it sits on.
    pub host: String,
    /// Its endpoint number (after the ranks).
    pub endpoint: u32,
    /// Per rank.
    pub ranks: Vec<RankIo>,
}

impl StorageReport {
    /// The report's stderr lines: one per rank that used the node.
    pub fn stderr_lines(&self) -> String {
        let mut s = String::new();
        for (r, io) in self.ranks.iter().enumerate() {
            if io.requests > 0 {
                s.push_str(&format!(
                    "mpinetsim: storage on {}: rank {r} wrote {} B, read {} B in {} requests, I/O time {:.6} s\n",
                    self.host, io.bytes_written, io.bytes_read, io.requests, io.io_time_s
                ));
            }
        }
        s
    }
}

/// The job's storage node.
pub struct StorageNode {
    server: StorageServer,
    report: StorageReport,
    /// When each rank's outstanding requests were sent, by request id.
    sent: Vec<std::collections::HashMap<u64, Nanos>>,
}

impl StorageNode {
    /// The node `cfg` describes, as an endpoint of `sim` after the `ranks`
    /// ranks; None without `[[storage]]`. One sentence when it cannot be.
    pub fn attach(
        cfg: &NetworkConfig,
        origin: &str,
        sim: &mut dyn NetworkModel,
        ranks: u32,
    ) -> Result<Option<StorageNode>, Error> {
        let Some(st) = cfg.storage.first() else {
            return Ok(None);
        };
        if cfg.storage.len() > 1 {
            return Err(Error::Usage(format!(
                "{origin}: {} [[storage]] nodes; a job has at most one storage node: keep one",
                cfg.storage.len()
            )));
        }
        let Some(packet) = crate::network_model::packet_mut(sim) else {
            return Err(Error::Usage(format!(
                "{origin}: a storage node ([[storage]]) needs the packet model; remove it or run with --model packet"
            )));
        };
        let net = packet.network();
        let host = net.nodes.iter().position(|n| n.name == st.host);
        let Some(host) = host.filter(|&h| net.nodes[h].kind == netsim::topology::NodeKind::Host)
        else {
            return Err(Error::Usage(format!(
                "{origin}: [[storage]] sits on `{}`, which is no host of the network; name one of its hosts",
                st.host
            )));
        };
        let endpoint = packet.add_endpoint(host as u32);
        Ok(Some(StorageNode {
            server: StorageServer::new(st),
            report: StorageReport {
                host: st.host.clone(),
                endpoint,
                ranks: vec![RankIo::default(); ranks as usize],
            },
            sent: vec![Default::default(); ranks as usize],
        }))
    }

    /// The node's endpoint number.
    pub fn endpoint(&self) -> u32 {
        self.report.endpoint
    }

    /// Takes a delivery that concerns the node: a request to it (served,
    /// and its reply injected into `sim` at the time the service ends) or
    /// a reply from it (counted; the caller still delivers it to the
    /// rank). Returns true when the delivery was a request, which goes to
    /// no rank.
    pub fn on_delivery(&mut self, d: &Delivery, sim: &mut dyn NetworkModel) -> bool {
        let endpoint = self.report.endpoint;
        if d.src == endpoint {
            if let (Some(req), Some(io)) = (
                StorageRequest::decode(&d.bytes),
                self.report.ranks.get_mut(d.dst as usize),
            ) {
                if let Some(from) = self.sent[d.dst as usize].remove(&req.id) {
                    io.cover(from, d.delivered_at);
                }
            }
            return false;
        }
        if d.dst != endpoint {
            return false;
        }
        let (Some(req), Some(io)) = (
            StorageRequest::decode(&d.bytes),
            self.report.ranks.get_mut(d.src as usize),
        ) else {
            return true; // not a request: dropped
        };
        io.requests += 1;
        match req.op {
            StorageOp::Read => io.bytes_read += req.len,
            StorageOp::Write => io.bytes_written += req.len,
        }
        self.sent[d.src as usize].insert(req.id, d.injected_at);
        let done = self.server.serve(req.offset, req.len, d.delivered_at);
        // The endpoint and the rank exist: the request came from it.
        let _ = sim.inject(endpoint, d.src, req.reply().into(), done);
        true
    }

    /// The report's part.
    pub fn report(&self) -> StorageReport {
        self.report.clone()
    }
}
