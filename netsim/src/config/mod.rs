//! The network description users write: TOML with human units.
//!
//! This module only reads and checks the text; [`crate::topology`] turns a
//! checked [`NetworkConfig`] into the explicit graph the simulator runs.
//! Unknown keys are rejected and every error names the key's path.

pub mod analytic;
pub mod storage;
pub mod xsim;

use crate::base::units;
use serde::{Deserialize, Deserializer};
use std::fmt;

/// Why a configuration could not be read: one sentence for the user. It
/// displays on one line even where it quotes input with control characters
/// (see [`crate::base::text::one_line`]).
#[derive(Debug, thiserror::Error)]
#[error("{}", crate::base::text::one_line(.0))]
pub struct ConfigError(pub String);

macro_rules! human_unit {
    ($(#[$doc:meta])* $name:ident, $parse:path, $what:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<$name, E> {
                        u64::try_from(v)
                            .map($name)
                            .map_err(|_| E::custom(concat!("a negative number is not ", $what)))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

human_unit!(
    /// A data rate in bits per second ("1Gbps"); 0 means unlimited.
    RateBps, units::parse_rate_bps, "a data rate such as \"1Gbps\""
);
human_unit!(
    /// A duration in nanoseconds ("500us").
    DurationNs, units::parse_duration_ns, "a duration such as \"500us\""
);
human_unit!(
    /// A size in bytes ("64KiB").
    ByteSize, units::parse_bytes, "a size such as \"64KiB\""
);

/// The whole network file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// A short name shown in reports.
    pub name: Option<String>,
    /// Free text describing the network.
    pub description: Option<String>,
    /// Seed for everything random (loss, initial sequence numbers).
    #[serde(default)]
    pub seed: u64,
    /// Which network model runs the job: `packet` (default) or `analytic`.
    #[serde(default)]
    pub model: analytic::ModelKind,
    /// Parameters of the analytic model (`[analytic]`).
    #[serde(default)]
    pub analytic: analytic::AnalyticConfig,
    /// Parameters every link gets unless it overrides them.
    #[serde(default)]
    pub link_defaults: LinkSettings,
    /// The link layer and transport: `ethernet` (default: Ethernet,
    /// IPv4 and TCP, queues that drop) or `lossless` (credit-based flow
    /// control and a message transport without retransmission, like
    /// InfiniBand).
    #[serde(default)]
    pub fabric: FabricKind,
    /// Parameters of the lossless fabric (`[lossless]`).
    #[serde(default)]
    pub lossless: LosslessConfig,
    /// The transport every rank pair uses on the Ethernet fabric.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// How two ranks on the same host talk (they bypass the network).
    #[serde(default)]
    pub intra_host: IntraHostConfig,
    /// End hosts; ranks run on them.
    #[serde(default, rename = "host")]
    pub hosts: Vec<HostConfig>,
    /// Layer-2 switches.
    #[serde(default, rename = "switch")]
    pub switches: Vec<SwitchConfig>,
    /// Layer-3 routers.
    #[serde(default, rename = "router")]
    pub routers: Vec<RouterConfig>,
    /// Full-duplex links between named nodes.
    #[serde(default, rename = "link")]
    pub links: Vec<LinkConfig>,
    /// A regular network generated from a few parameters instead of
    /// listing hosts, switches, routers and links.
    pub topology: Option<TopologyConfig>,
    /// Which ports write pcap captures.
    #[serde(default)]
    pub capture: CaptureConfig,
    /// How ranks are placed on hosts.
    #[serde(default)]
    pub ranks: RankPlacementConfig,
    /// How the network reacts to faults (`[faults]`).
    #[serde(default)]
    pub faults: FaultSettings,
    /// Scheduled and random faults (`[[fault]]`; see [`crate::faults`]).
    #[serde(default, rename = "fault")]
    pub fault_entries: Vec<FaultConfig>,
    /// Storage nodes MPI-IO goes through (`[[storage]]`; see [`crate::model::storage`]).
    #[serde(default, rename = "storage")]
    pub storage: Vec<storage::StorageConfig>,
}

/// `[faults]`: how routing and the run react to faults.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FaultSettings {
    /// Time from a link or node going down (or up) until forwarding tables
    /// reflect it; until then packets toward a dead link are dropped.
    pub convergence_delay: DurationNs,
    /// How long a message may wait to cross a partitioned network before
    /// the run ends with an error naming the partition.
    pub partition_timeout: DurationNs,
    /// Seed of the random faults; default the top-level `seed`.
    pub seed: Option<u64>,
}

impl Default for FaultSettings {
    fn default() -> Self {
        FaultSettings {
            convergence_delay: DurationNs(100_000_000),
            partition_timeout: DurationNs(60_000_000_000),
            seed: None,
        }
    }
}

/// What a scheduled fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultActionConfig {
    /// The link or node fails (frames on it and queued for it are lost).
    Down,
    /// The link or node is repaired.
    Up,
    /// The link's rate, delay or loss change.
    Degrade,
}

/// One `[[fault]]` entry: a scheduled change at `at`, or random failures
/// with `mtbf` / `mttr` (see [`crate::faults`] for the rules).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultConfig {
    /// The link(s): a link name or pattern (`*`), or "a-b" naming its two ends.
    pub link: Option<String>,
    /// The node(s): a node name or pattern.
    pub node: Option<String>,
    /// down, up or degrade (default: degrade when rate, delay or loss is
    /// given, down otherwise).
    pub action: Option<FaultActionConfig>,
    /// Virtual time of a scheduled fault.
    pub at: Option<DurationNs>,
    /// How long a scheduled down or degradation lasts (default: for good).
    #[serde(rename = "for")]
    pub duration: Option<DurationNs>,
    /// Degraded rate.
    pub rate: Option<RateBps>,
    /// Degraded one-way delay.
    pub delay: Option<DurationNs>,
    /// Degraded loss probability.
    pub loss: Option<f64>,
    /// Random faults: mean time between failures of each selected element.
    pub mtbf: Option<DurationNs>,
    /// Random faults: mean time to repair.
    pub mttr: Option<DurationNs>,
    /// Where the entry came from when not from the file (a `--fault` spec);
    /// errors name it.
    #[serde(skip)]
    pub source: Option<String>,
}

/// Link parameters; every field optional so they can be layered
/// (built-in default < `[link_defaults]` < the link's own keys).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSettings {
    /// Transmission rate of each direction.
    pub rate: Option<RateBps>,
    /// One-way propagation delay.
    pub delay: Option<DurationNs>,
    /// IP MTU in bytes (the Ethernet payload limit).
    pub mtu: Option<u32>,
    /// Output queue limit in packets (not counting the one on the wire).
    pub queue_packets: Option<u32>,
    /// Output queue limit in bytes; both limits apply.
    pub queue_bytes: Option<ByteSize>,
    /// Probability in [0, 1) that a frame is lost on this link.
    pub loss: Option<f64>,
    /// Queue discipline of the link's ports: `droptail` (default) or `red`.
    pub queue: Option<QueueKind>,
    /// RED: average queue length (packets) below which nothing is dropped early.
    pub red_min_th: Option<f64>,
    /// RED: average queue length (packets) from which every arrival is dropped.
    pub red_max_th: Option<f64>,
    /// RED: drop probability as the average reaches `red_max_th`.
    pub red_max_p: Option<f64>,
    /// RED: weight of the newest queue length in the average (w_q).
    pub red_weight: Option<f64>,
    /// ECN threshold marking: frames waiting from which an arriving
    /// ECN-capable frame is marked CE.
    pub ecn_threshold: Option<u32>,
    /// RED: mark ECN-capable frames CE instead of dropping them.
    pub red_ecn: Option<bool>,
}

/// One link between nodes `a` and `b`, with optional overrides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Name of one end.
    pub a: String,
    /// Name of the other end.
    pub b: String,
    /// A name for reports and captures; default "a-b".
    pub name: Option<String>,
    /// Overrides `[link_defaults].rate`.
    pub rate: Option<RateBps>,
    /// Overrides `[link_defaults].delay`.
    pub delay: Option<DurationNs>,
    /// Overrides `[link_defaults].mtu`.
    pub mtu: Option<u32>,
    /// Overrides `[link_defaults].queue_packets`.
    pub queue_packets: Option<u32>,
    /// Overrides `[link_defaults].queue_bytes`.
    pub queue_bytes: Option<ByteSize>,
    /// Overrides `[link_defaults].loss`.
    pub loss: Option<f64>,
    /// Overrides `[link_defaults].queue`.
    pub queue: Option<QueueKind>,
    /// Overrides `[link_defaults].red_min_th`.
    pub red_min_th: Option<f64>,
    /// Overrides `[link_defaults].red_max_th`.
    pub red_max_th: Option<f64>,
    /// Overrides `[link_defaults].red_max_p`.
    pub red_max_p: Option<f64>,
    /// Overrides `[link_defaults].red_weight`.
    pub red_weight: Option<f64>,
    /// Overrides `[link_defaults].ecn_threshold`.
    pub ecn_threshold: Option<u32>,
    /// Overrides `[link_defaults].red_ecn`.
    pub red_ecn: Option<bool>,
}

/// The queue discipline of a link's ports (`queue` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueKind {
    /// A FIFO that drops arrivals past its limits.
    #[default]
    #[serde(rename = "droptail", alias = "drop-tail")]
    DropTail,
    /// Random Early Detection (Floyd and Jacobson 1993), see
    /// [`crate::wire::queue::Red`].
    Red,
    /// A FIFO marking ECN-capable frames CE from `ecn_threshold` frames
    /// waiting, see [`crate::wire::queue::EcnThreshold`].
    EcnThreshold,
}

impl LinkConfig {
    /// This link's own settings as a layer.
    pub fn settings(&self) -> LinkSettings {
        LinkSettings {
            rate: self.rate,
            delay: self.delay,
            mtu: self.mtu,
            queue_packets: self.queue_packets,
            queue_bytes: self.queue_bytes,
            loss: self.loss,
            queue: self.queue,
            red_min_th: self.red_min_th,
            red_max_th: self.red_max_th,
            red_max_p: self.red_max_p,
            red_weight: self.red_weight,
            ecn_threshold: self.ecn_threshold,
            red_ecn: self.red_ecn,
        }
    }
}

/// The regular network shapes `[topology]` can generate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    /// `hosts` hosts around one switch.
    Star,
    /// `hosts` routers in a cycle, one host on each; `directed` sends all
    /// traffic one way round.
    Ring,
    /// A grid of routers (`dims`), one host on each, no wrap-around.
    Mesh,
    /// A grid of routers (`dims`) wrapping around in the dimensions `wrap` selects.
    Torus,
    /// A torus whose wrap-around links also shift another dimension
    /// (`twist_degree`, `jump`).
    TwistedTorus,
    /// 2^`order` routers joined when their numbers differ in one bit.
    Hypercube,
    /// An `arity`-ary tree of routers, `levels` deep, hosts at the leaves.
    Tree,
    /// A `k`-ary three-level fat-tree (k pods, k³/4 hosts).
    FatTree,
    /// Groups of fully connected routers joined by global links.
    Dragonfly,
    /// The nodes and links listed in `[[host]]`, `[[switch]]`, `[[router]]`
    /// and `[[link]]` (the same as leaving `[topology]` out).
    #[default]
    Custom,
}

/// How routers choose a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingPolicy {
    /// Exact shortest paths on the graph; ties between equally short next
    /// hops are split by destination (see `routing`).
    #[default]
    Shortest,
    /// Mesh and torus: correct the first differing dimension first, then the
    /// next (the shorter way round a wrapped dimension; +1 on a tie).
    DimensionOrder,
    /// Hypercube: correct the lowest differing address bit first.
    ECube,
    /// Equal-cost multi-path: exact shortest paths, with ties split per
    /// flow (a TCP connection's direction) by a seeded hash of its 5-tuple
    /// at every node (see [`crate::topology::routing::flow`]), so the
    /// flows between two hosts spread over all equally short paths.
    Ecmp,
    /// Per-packet equal-cost multi-path ("packet spraying"): exact
    /// shortest paths, and at every node with several equally short next
    /// hops each packet takes one of them independently and uniformly, drawn
    /// from the simulator's seeded generator. Load spreads evenly whatever
    /// the flows' hashes; a flow's packets may arrive out of order.
    Spray,
    /// Fat-tree: destination-mod-k. Going up, an edge router takes the
    /// aggregation router numbered (destination host index mod k/2) and an
    /// aggregation router the core numbered (index ÷ k/2 mod k/2) among
    /// its own: every destination has one core, and an all-to-all loads
    /// every core link alike.
    #[serde(rename = "dmodk")]
    DModK,
    /// Dragonfly: every flowlet between two groups goes minimally to an
    /// intermediate group chosen by a seeded hash, then minimally to its
    /// destination (Valiant's randomised routing: at most two global
    /// links, load spread evenly whatever the traffic pattern).
    Valiant,
    /// Dragonfly: the source router sends each flowlet minimally, or
    /// through an intermediate group as Valiant would, whichever path's
    /// queues and links delay it less when the flowlet starts (UGAL with
    /// global queue knowledge; see [`crate::sim`]'s adaptive routing).
    Ugal,
}

impl RoutingPolicy {
    /// The name the network file's `routing` key gives it.
    pub fn name(self) -> &'static str {
        match self {
            RoutingPolicy::Shortest => "shortest",
            RoutingPolicy::DimensionOrder => "dimension-order",
            RoutingPolicy::ECube => "e-cube",
            RoutingPolicy::Ecmp => "ecmp",
            RoutingPolicy::Spray => "spray",
            RoutingPolicy::DModK => "dmodk",
            RoutingPolicy::Valiant => "valiant",
            RoutingPolicy::Ugal => "ugal",
        }
    }
}

/// `[topology]`: a regular network expanded into hosts, switches, routers
/// and links (see [`crate::topology::generators`]). Which keys apply depends on `kind`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyConfig {
    /// The shape (default `custom`: the listed nodes and links).
    #[serde(default)]
    pub kind: TopologyKind,
    /// Speed of every host's CPUs relative to the machine running the job,
    /// unless a `[[host]]` sets its own (default 1).
    pub cpu_speed: Option<f64>,
    /// Every host's shortest computation that counts, unless a `[[host]]`
    /// sets its own (default 0: all count); see [`HostConfig::cpu_threshold`].
    pub cpu_threshold: Option<DurationNs>,
    /// Every host's cost of a poll that finds nothing, unless a `[[host]]`
    /// sets its own; see [`HostConfig::poll_cost`].
    pub poll_cost: Option<DurationNs>,
    /// Star and ring: the number of hosts.
    pub hosts: Option<u32>,
    /// Ring: route every packet the same way round (a unidirectional ring).
    pub directed: Option<bool>,
    /// Mesh, torus, twisted torus: routers along each dimension.
    pub dims: Option<Vec<u32>>,
    /// Torus and twisted torus: whether each dimension wraps around (default: all do).
    pub wrap: Option<Vec<bool>>,
    /// Twisted torus: wrapping in dimension i shifts dimension
    /// (i + twist_degree) mod n (default 1; 0 means no twist).
    pub twist_degree: Option<u32>,
    /// Twisted torus: by how much wrapping in dimension i shifts the other
    /// dimension (default 1 for every dimension).
    pub jump: Option<Vec<u32>>,
    /// Hypercube: the dimension N (2^N routers).
    pub order: Option<u32>,
    /// Tree: children of every inner router.
    pub arity: Option<u32>,
    /// Tree: levels of routers, the root being one.
    pub levels: Option<u32>,
    /// Tree: hosts on every leaf router (default `arity`, so hosts form the
    /// tree's last level).
    pub hosts_per_leaf: Option<u32>,
    /// Fat-tree: the switch radix k (even).
    pub k: Option<u32>,
    /// Dragonfly: number of groups.
    pub groups: Option<u32>,
    /// Dragonfly: routers in each group (all linked to each other).
    pub routers_per_group: Option<u32>,
    /// Dragonfly: hosts on each router.
    pub hosts_per_router: Option<u32>,
    /// Dragonfly: global links each router has to other groups.
    pub global_links_per_router: Option<u32>,
    /// Dragonfly under `routing = "valiant"` or `"ugal"`: a flow's packets
    /// keep their path until the flow has been idle this long; the next
    /// packet starts a new flowlet, which chooses again (default 5 µs).
    pub flowlet_gap: Option<DurationNs>,
    /// How routers choose among paths (default `shortest`).
    #[serde(default)]
    pub routing: RoutingPolicy,
    /// Rate of the generated links (overrides `[link_defaults].rate`).
    pub rate: Option<RateBps>,
    /// Delay of the generated links (overrides `[link_defaults].delay`).
    pub delay: Option<DurationNs>,
    /// Hybrid networks: every host slot of this topology becomes a
    /// processor whose cores (the ranks' hosts) are connected by this
    /// processor topology.
    pub processor: Option<Box<TopologyConfig>>,
    /// Per-link overrides of `[link_defaults]` for generated links, found by
    /// their two end nodes.
    #[serde(default, rename = "link")]
    pub links: Vec<LinkConfig>,
}

/// `[tcp] congestion`: which congestion control the senders use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionName {
    /// NewReno (RFC 5681, RFC 6582): halve on loss, one segment per round
    /// trip after.
    #[default]
    NewReno,
    /// CUBIC (RFC 9438), Linux's default: reduce to 0.7 on loss, regrow
    /// along a cubic curve in time.
    Cubic,
}

/// TCP parameters shared by every connection.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Nagle's algorithm (MPI libraries switch it off with TCP_NODELAY).
    pub nagle: bool,
    /// Delayed-ACK timeout; "0" sends an ACK for every segment at once.
    pub delayed_ack: DurationNs,
    /// With delayed ACKs on, ACK at once after this many full segments.
    pub delayed_ack_segments: u32,
    /// Lower bound of the retransmission timeout.
    pub rto_min: DurationNs,
    /// Retransmission timeout before any RTT sample (also for SYN).
    pub rto_initial: DurationNs,
    /// Upper bound of the backed-off retransmission timeout.
    pub rto_max: DurationNs,
    /// Initial congestion window in segments.
    pub initial_cwnd: u32,
    /// Receive buffer, advertised as the window (with window scaling).
    pub receive_window: ByteSize,
    /// Maximum segment size; default the path MTU minus 40 bytes of headers.
    pub mss: Option<u32>,
    /// Data frames TCP may keep waiting in a host's NIC queue (all its
    /// connections together) before it holds further segments back, like
    /// Linux's TCP small queues; ACKs are never held back.
    pub nic_queue_packets: u32,
    /// Selective acknowledgements (RFC 2018) with SACK-based loss recovery
    /// (RFC 6675), as Linux runs TCP; false keeps NewReno's recovery of one
    /// lost segment per round trip.
    pub sack: bool,
    /// The senders' congestion control: `newreno` (RFC 5681/6582) or
    /// `cubic` (RFC 9438, Linux's default).
    pub congestion: CongestionName,
    /// Timestamps (RFC 7323) on every segment: 12 bytes of option, so 12
    /// bytes less data a segment, and a round-trip sample from every ACK.
    /// Off by default, unlike Linux, so the closed-form frame sizes of the
    /// default configuration stay those of plain 1460-byte segments.
    pub timestamps: bool,
    /// Explicit Congestion Notification (RFC 3168): negotiated on the
    /// handshake, data sent ECT(0), the window reduced once a round trip
    /// for an ECN-Echo instead of waiting for a loss.
    pub ecn: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            nagle: false,
            delayed_ack: DurationNs(40_000_000),
            delayed_ack_segments: 2,
            rto_min: DurationNs(200_000_000),
            rto_initial: DurationNs(1_000_000_000),
            rto_max: DurationNs(60_000_000_000),
            initial_cwnd: 10,
            receive_window: ByteSize(512 * 1024),
            mss: None,
            nic_queue_packets: 32,
            sack: false,
            congestion: Default::default(),
            timestamps: false,
            ecn: false,
        }
    }
}

/// `fabric`: what carries the messages between hosts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FabricKind {
    /// Ethernet frames, IPv4 and TCP; a full queue drops and TCP resends.
    #[default]
    Ethernet,
    /// Credit-based link-level flow control (a port sends only while the
    /// next node has buffer for the frame, so nothing is ever dropped) and
    /// a reliable message transport without acknowledgements or
    /// retransmission, like InfiniBand's reliable connections; captures
    /// are InfiniBand packets.
    Lossless,
}

/// `[lossless]`: the lossless fabric's parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LosslessConfig {
    /// Buffer of every link direction's receiving end, in packets: the
    /// credits the sending port starts with.
    pub credits: u32,
    /// Time a switch or router takes to forward a packet once it has
    /// arrived, on top of the link's delay.
    pub switch_latency: DurationNs,
    /// Largest payload of one packet, bytes (InfiniBand's MTU: 256, 512,
    /// 1024, 2048 or 4096).
    pub mtu: u32,
}

impl Default for LosslessConfig {
    fn default() -> Self {
        LosslessConfig {
            credits: 16,
            switch_latency: DurationNs(100),
            mtu: 4096,
        }
    }
}

/// Ranks sharing a host exchange messages through memory: a fixed latency
/// plus size ÷ rate, never through a NIC.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IntraHostConfig {
    /// Fixed latency per message.
    pub latency: DurationNs,
    /// Copy rate (0 = unlimited).
    pub rate: RateBps,
}

impl Default for IntraHostConfig {
    fn default() -> Self {
        IntraHostConfig {
            latency: DurationNs(1_000),
            rate: RateBps(80_000_000_000),
        }
    }
}

/// An end host.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Unique node name.
    pub name: String,
    /// IPv4 address; default 10.0.0.(index+1) and upwards.
    pub ip: Option<std::net::Ipv4Addr>,
    /// Speed of this host's CPUs relative to the machine running the job
    /// (0.5: ranks on it compute twice as long); default `[topology]
    /// cpu_speed`, else 1.
    pub cpu_speed: Option<f64>,
    /// Computations between two MPI calls measured shorter than this (on
    /// the machine running the job, before `cpu_speed`) are not counted:
    /// on a microsecond network the few hundred nanoseconds of program
    /// and MPI code between back-to-back calls, which this machine runs on
    /// cold caches after every wake-up, would otherwise add to every
    /// message (SimGrid's SMPI discards computations under 1 µs for the
    /// same reason). Default `[topology] cpu_threshold`, else 0.
    pub cpu_threshold: Option<DurationNs>,
    /// Emulated time an MPI test or probe that completes or finds nothing
    /// costs on this host (`MPI_Test`, `MPI_Testany`, `MPI_Testall`,
    /// `MPI_Testsome`, `MPI_Iprobe`, `MPI_Improbe` saying "not yet";
    /// every `MPI_Request_get_status`): a loop polling for a message
    /// spends emulated time as it would on the emulated machine. Default
    /// `[topology] poll_cost`, else [`DEFAULT_POLL_COST_NS`].
    pub poll_cost: Option<DurationNs>,
}

/// What a poll that finds nothing costs unless the network says: one
/// `MPI_Iprobe` or `MPI_Test` with nothing to find takes 18–20 ns in
/// Debian's MPICH 4.0.2 (ch4:ucx) on this project's machines
/// (bench/poll-cost.sh), ns.
pub const DEFAULT_POLL_COST_NS: u64 = 20;

/// How a switch decides where a frame goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchMode {
    /// Forwarding tables computed from the graph before the run.
    #[default]
    Static,
    /// Learn source MACs, flood unknown destinations (loop-free L2 only).
    Learning,
}

/// A layer-2 switch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    /// Unique node name.
    pub name: String,
    /// Static tables (default) or MAC learning.
    #[serde(default)]
    pub mode: SwitchMode,
}

/// A layer-3 router.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    /// Unique node name.
    pub name: String,
}

/// Capture selection and file format (see [`crate::wire::capture`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CaptureConfig {
    /// Port name patterns ("host0", "switch0/*", "router*"); `*` matches any
    /// run of characters. A node name selects all its ports. When `points`
    /// and `links` are both empty, `--capture` captures every host NIC.
    pub points: Vec<String>,
    /// Link name patterns ("host0-router0", "router*-router*"): both ends of
    /// every matching link are captured.
    pub links: Vec<String>,
    /// Bytes of each frame written to the file.
    pub snaplen: u32,
    /// One classic pcap per port, or one pcapng per node.
    pub format: CaptureFormat,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            points: Vec::new(),
            links: Vec::new(),
            snaplen: 65_535,
            format: CaptureFormat::Pcap,
        }
    }
}

/// Capture file formats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureFormat {
    /// One classic pcap (nanosecond timestamps) per captured port.
    #[default]
    Pcap,
    /// One pcapng per node, one interface per captured port, with a name
    /// resolution block.
    Pcapng,
}

/// Placement policy names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Consecutive ranks fill one host before the next.
    #[default]
    Block,
    /// Rank r goes to host r mod hosts.
    RoundRobin,
}

/// How ranks map to hosts.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankPlacementConfig {
    /// Block (default) or round-robin over hosts in file order.
    #[serde(default)]
    pub placement: Placement,
    /// Explicit host per rank; overrides `placement`.
    pub hosts: Option<Vec<String>>,
    /// The job must have exactly one rank per host (set by the thesis-style
    /// network string, whose dimensions describe the ranks).
    #[serde(default)]
    pub one_per_host: bool,
}

impl NetworkConfig {
    /// Parses TOML text; `origin` (usually the file path) starts every error.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<NetworkConfig, ConfigError> {
        let cfg = Self::parse_toml(text, origin)?;
        cfg.check_names(origin)?;
        cfg.check_cpu_speeds(origin)?;
        for st in &cfg.storage {
            st.check(origin)?;
        }
        Ok(cfg)
    }

    /// Refuses CPU speeds that are not positive finite numbers, and one
    /// on a hybrid network's `[topology.processor]`.
    pub fn check_cpu_speeds(&self, origin: &str) -> Result<(), ConfigError> {
        let topology = self.topology.as_ref();
        if topology
            .and_then(|t| t.processor.as_ref())
            .is_some_and(|p| {
                p.cpu_speed.is_some() || p.cpu_threshold.is_some() || p.poll_cost.is_some()
            })
        {
            return Err(ConfigError(format!(
                "{origin}: `topology.processor.cpu_speed`, `cpu_threshold` or `poll_cost`: set the CPU's keys on [topology] (or on a [[host]]), not on the processor network"
            )));
        }
        let speeds = (topology.and_then(|t| t.cpu_speed))
            .map(|v| ("topology.cpu_speed".to_string(), v))
            .into_iter()
            .chain(self.hosts.iter().filter_map(|h| {
                h.cpu_speed
                    .map(|v| (format!("host.{}.cpu_speed", h.name), v))
            }));
        for (key, v) in speeds {
            if !(v.is_finite() && v > 0.0) {
                return Err(ConfigError(format!(
                    "{origin}: `{key}` is {v}: a CPU speed is a positive number relative to this machine (0.5 = half as fast, 2 = twice as fast)"
                )));
            }
        }
        Ok(())
    }

    /// The CPU speed of the host named `host` (a hybrid network's
    /// processor `machine.procN` takes its machine's): its own
    /// `cpu_speed`, else `[topology] cpu_speed`, else 1.
    pub fn cpu_speed(&self, host: &str) -> f64 {
        self.host_setting(host, |h| h.cpu_speed, |t| t.cpu_speed)
            .unwrap_or(1.0)
    }

    /// The shortest computation that counts on the host named `host`
    /// (found like [`NetworkConfig::cpu_speed`]), ns.
    pub fn cpu_threshold_ns(&self, host: &str) -> u64 {
        self.host_setting(host, |h| h.cpu_threshold, |t| t.cpu_threshold)
            .map_or(0, |d| d.0)
    }

    /// The emulated cost of a poll that finds nothing on the host named
    /// `host` (found like [`NetworkConfig::cpu_speed`]; default
    /// [`DEFAULT_POLL_COST_NS`]), ns.
    pub fn poll_cost_ns(&self, host: &str) -> u64 {
        self.host_setting(host, |h| h.poll_cost, |t| t.poll_cost)
            .map_or(DEFAULT_POLL_COST_NS, |d| d.0)
    }

    /// A per-host setting of the host named `host`: its own `[[host]]`
    /// entry's, else its machine's (a hybrid processor `machine.procN`),
    /// else `[topology]`'s; None when none sets it.
    fn host_setting<T>(
        &self,
        host: &str,
        own: impl Fn(&HostConfig) -> Option<T>,
        topology: impl Fn(&TopologyConfig) -> Option<T>,
    ) -> Option<T> {
        let machine = host.split('.').next().unwrap_or(host);
        let entry = |name: &str| self.hosts.iter().find(|h| h.name == name).and_then(&own);
        entry(host)
            .or_else(|| entry(machine))
            .or_else(|| self.topology.as_ref().and_then(&topology))
    }

    /// Refuses node and link names that could not serve as file names
    /// (captures are named after them): ones holding `/`, `..`, NUL or
    /// another control character. The error names the key.
    pub fn check_names(&self, origin: &str) -> Result<(), ConfigError> {
        let nodes = (self.hosts.iter().enumerate())
            .map(|(i, h)| (format!("host[{i}].name"), &h.name))
            .chain(
                (self.switches.iter().enumerate())
                    .map(|(i, s)| (format!("switch[{i}].name"), &s.name)),
            )
            .chain(
                (self.routers.iter().enumerate())
                    .map(|(i, r)| (format!("router[{i}].name"), &r.name)),
            );
        let links = self.links.iter().enumerate().flat_map(|(i, l)| {
            [
                (format!("link[{i}].a"), Some(&l.a)),
                (format!("link[{i}].b"), Some(&l.b)),
                (format!("link[{i}].name"), l.name.as_ref()),
            ]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
        });
        for (key, name) in nodes.chain(links) {
            if !usable_as_file_name(name) {
                return Err(ConfigError(format!(
                    "{origin}: `{key}` is {name:?}: node and link names may not contain '/', '..', NUL or control characters (capture files are named after them); rename it"
                )));
            }
        }
        Ok(())
    }

    fn parse_toml(text: &str, origin: &str) -> Result<NetworkConfig, ConfigError> {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let msg = inner.message().trim_end_matches('.').to_string();
            let line = inner
                .span()
                .map(|s| {
                    format!(
                        " (line {})",
                        text[..s.start.min(text.len())].lines().count().max(1)
                    )
                })
                .unwrap_or_default();
            if path == "." || path.is_empty() {
                ConfigError(format!("{origin}{line}: {msg}; fix the file and try again"))
            } else {
                ConfigError(format!(
                    "{origin}{line}: at `{path}`: {msg}; fix the file and try again"
                ))
            }
        })
    }
}

/// True when `name` can be part of a file name inside a folder: no `/`,
/// no `..`, no NUL or other control character.
fn usable_as_file_name(name: &str) -> bool {
    !name.contains('/') && !name.contains("..") && !name.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_leave_the_capture_folder_are_refused_with_their_key() {
        for (toml, key) in [
            ("[[host]]\nname='../x'\n", "`host[0].name` is \"../x\""),
            (
                "[[host]]\nname='h0'\n[[switch]]\nname='/abs/path'\n",
                "`switch[0].name`",
            ),
            (
                "[[router]]\nname=\"r\\u0000\"\n",
                "`router[0].name` is \"r\\0\"",
            ),
            (
                "[[host]]\nname='h0'\n[[link]]\na='h0'\nb=\"s\\n0\"\n",
                "`link[0].b`",
            ),
            ("[[link]]\na='h0'\nb='s0'\nname='a/b'\n", "`link[0].name`"),
        ] {
            let e = NetworkConfig::from_toml_str(toml, "x.toml").unwrap_err();
            assert!(e.0.starts_with("x.toml: "), "{e}");
            assert!(e.0.contains(key), "{key}: {e}");
            assert!(e.0.ends_with("rename it"), "{e}");
        }
        NetworkConfig::from_toml_str("[[host]]\nname='host-0.a_b'\n", "x").unwrap();
    }

    #[test]
    fn a_hosts_cpu_settings_come_from_its_entry_then_its_machine_then_the_topology() {
        let c = NetworkConfig::from_toml_str(
            "[topology]\nkind='star'\nhosts=4\ncpu_speed=3\ncpu_threshold='7us'\n\
             [[host]]\nname='m'\ncpu_speed=2\n\
             [[host]]\nname='m.proc1'\ncpu_speed=0.5\ncpu_threshold='1us'\npoll_cost='50ns'\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(c.cpu_speed("m.proc1"), 0.5);
        assert_eq!(c.cpu_threshold_ns("m.proc1"), 1_000);
        assert_eq!(c.cpu_speed("m.proc0"), 2.0);
        assert_eq!(c.cpu_threshold_ns("m.proc0"), 7_000);
        assert_eq!(c.poll_cost_ns("m.proc1"), 50);
        assert_eq!(c.poll_cost_ns("m.proc0"), DEFAULT_POLL_COST_NS);
        assert_eq!(c.cpu_speed("other"), 3.0);
        let plain = NetworkConfig::from_toml_str("[[host]]\nname='h'\n", "x").unwrap();
        assert_eq!(plain.cpu_speed("h"), 1.0);
        assert_eq!(plain.cpu_threshold_ns("h"), 0);
        assert_eq!(plain.poll_cost_ns("h"), DEFAULT_POLL_COST_NS);
    }

    #[test]
    fn congestion_names_newreno_or_cubic_and_nothing_else() {
        let c = NetworkConfig::from_toml_str("[tcp]\ncongestion='cubic'\n", "x").unwrap();
        assert_eq!(c.tcp.congestion, CongestionName::Cubic);
        let d = NetworkConfig::from_toml_str("", "x").unwrap();
        assert_eq!(d.tcp.congestion, CongestionName::NewReno);
        let e = NetworkConfig::from_toml_str("[tcp]\ncongestion='bbr'\n", "x.toml").unwrap_err();
        assert!(e.0.contains("tcp.congestion"), "{e}");
        assert!(e.0.contains("`newreno` or `cubic`"), "{e}");
    }

    #[test]
    fn unknown_key_is_rejected_with_its_path() {
        let e = NetworkConfig::from_toml_str(
            "[[host]]\nname='h0'\n[[link]]\na='h0'\nb='s0'\nrat='1Gbps'\n",
            "x.toml",
        )
        .unwrap_err();
        assert!(e.0.contains("link[0]"), "{e}");
        assert!(e.0.contains("rat"), "{e}");
    }

    #[test]
    fn bad_unit_names_the_key() {
        let e = NetworkConfig::from_toml_str("[link_defaults]\ndelay='3 parsecs'\n", "x.toml")
            .unwrap_err();
        assert!(e.0.contains("link_defaults.delay"), "{e}");
        assert!(e.0.contains("not a duration"), "{e}");
    }

    #[test]
    fn topology_parses_and_rejects_unknown_keys() {
        let c = NetworkConfig::from_toml_str(
            "[topology]\nkind='torus'\ndims=[4,4]\nwrap=[true,false]\n",
            "x",
        )
        .unwrap();
        let t = c.topology.unwrap();
        assert_eq!(t.kind, TopologyKind::Torus);
        assert_eq!(t.dims, Some(vec![4, 4]));
        let e = NetworkConfig::from_toml_str("[topology]\nkind='mesh'\ndim=[2]\n", "x.toml")
            .unwrap_err();
        assert!(e.0.contains("topology"), "{e}");
        assert!(e.0.contains("dim"), "{e}");
        let e = NetworkConfig::from_toml_str("[topology]\nkind='moebius'\n", "x.toml").unwrap_err();
        assert!(e.0.contains("topology.kind"), "{e}");
    }

    #[test]
    fn human_units_parse() {
        let c = NetworkConfig::from_toml_str(
            "[link_defaults]\nrate='1Gbps'\ndelay='500us'\nqueue_bytes='64KiB'\n",
            "x",
        )
        .unwrap();
        assert_eq!(c.link_defaults.rate, Some(RateBps(1_000_000_000)));
        assert_eq!(c.link_defaults.delay, Some(DurationNs(500_000)));
        assert_eq!(c.link_defaults.queue_bytes, Some(ByteSize(65_536)));
    }
}
