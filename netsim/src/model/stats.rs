//! Counters per node, per link direction and per connection, written as
//! JSON at the end of a run (in the spirit of a per-node summary table).

use crate::tcp::ConnectionStats;
use serde::Serialize;

/// Counters of one node.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NodeStats {
    /// Node name.
    pub name: String,
    /// "host", "switch" or "router".
    pub kind: String,
    /// Frames this node originated.
    pub packets_sent: u64,
    /// Frame bytes this node originated.
    pub bytes_sent: u64,
    /// Frames that ended here.
    pub packets_received: u64,
    /// Frame bytes that ended here.
    pub bytes_received: u64,
    /// Frames passed on (switches, routers).
    pub packets_forwarded: u64,
    /// Frame bytes passed on.
    pub bytes_forwarded: u64,
    /// Application messages sent from ranks on this host.
    pub messages_sent: u64,
    /// Application messages delivered to ranks on this host.
    pub messages_received: u64,
    /// Frames dropped by a full output queue of this node (its packet or
    /// byte limit reached).
    pub drops_queue: u64,
    /// Frames an output queue of this node dropped early, before it was
    /// full (RED's early drops; 0 with drop-tail).
    pub drops_early: u64,
    /// Frames dropped because TTL reached zero, no route/port was known, or
    /// the route led into a failed link (before routing converged).
    pub drops_unroutable: u64,
    /// TCP retransmissions by senders on this host.
    pub retransmissions: u64,
}

/// Counters of one direction of one link (named by its transmitting port).
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinkDirectionStats {
    /// Link name.
    pub link: String,
    /// Transmitting port ("node/peer").
    pub from_port: String,
    /// Frames put on the wire.
    pub packets: u64,
    /// Frame bytes put on the wire (without preamble/gap).
    pub bytes: u64,
    /// TCP payload bytes in those frames (retransmissions included): the
    /// application's bytes over this link, independent of how TCP cut
    /// them into segments and of how many ACKs it sent.
    pub payload_bytes: u64,
    /// Time the wire was busy, in ns.
    pub busy_ns: u64,
    /// Frames dropped at the tail of a full queue (its packet or byte
    /// limit reached).
    pub drops_queue: u64,
    /// Frames the queue dropped early, before it was full (RED's early
    /// drops; 0 with drop-tail).
    pub drops_early: u64,
    /// Frames lost on the wire (random loss).
    pub drops_loss: u64,
    /// ECN-capable frames the queue marked Congestion Experienced
    /// (`queue = "ecn-threshold"`) instead of dropping them.
    pub ecn_marks: u64,
    /// Frames lost because the link failed while they were queued, being
    /// sent or propagating on it.
    pub drops_down: u64,
    /// Peak frames waiting.
    pub peak_queue_packets: u32,
    /// Peak frame bytes waiting.
    pub peak_queue_bytes: u64,
    /// Lossless fabric: times the port had a frame to send and no credit
    /// (the next node's buffer for this link was full).
    pub credit_stalls: u64,
}

/// Counters of one TCP connection.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConnectionReport {
    /// Sending rank.
    pub src_rank: u32,
    /// Receiving rank.
    pub dst_rank: u32,
    /// Counters.
    #[serde(flatten)]
    pub stats: ConnectionStats,
}

/// Everything a run counted.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SimStats {
    /// Virtual time of the last event run, ns.
    pub simulated_ns: u64,
    /// Events executed.
    pub events: u64,
    /// Messages injected.
    pub messages_injected: u64,
    /// Messages delivered.
    pub messages_delivered: u64,
    /// Per node.
    pub nodes: Vec<NodeStats>,
    /// Per link direction.
    pub links: Vec<LinkDirectionStats>,
    /// Per connection that carried data.
    pub connections: Vec<ConnectionReport>,
    /// Faults, route changes and partitions, in time order (the first
    /// [`crate::faults::MAX_RECORDED_NETWORK_EVENTS`]).
    pub network_events: Vec<crate::faults::NetworkEvent>,
    /// Network events after those, counted but not recorded.
    pub network_events_unrecorded: u64,
    /// Under adaptive dragonfly routing (`routing = "valiant"` or
    /// `"ugal"`): flowlets whose path a source router chose.
    pub flowlets: u64,
    /// Of those, the flowlets sent through an intermediate group.
    pub detoured_flowlets: u64,
}
