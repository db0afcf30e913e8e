//! The explicit network graph the simulator runs: nodes with numbered ports,
//! and full-duplex links joining two ports, every parameter resolved.
//!
//! Built from a [`NetworkConfig`] (the model) here; topology generators that
//! expand a few lines of TOML into such a graph are separate helpers.

use crate::base::addr::{default_host_ip, MacAddr};
use crate::config::{ConfigError, NetworkConfig, Placement, QueueKind, SwitchMode};

use std::net::Ipv4Addr;

use crate::base::ids::{LinkId, NodeId, PortId};

/// What a node does with frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// An end host: ranks run here; never forwards.
    Host,
    /// A layer-2 switch: forwards by destination MAC, leaves IP untouched.
    Switch(SwitchMode),
    /// A layer-3 router: forwards by destination IP, decrements TTL,
    /// rewrites MACs.
    Router,
}

impl NodeKind {
    /// True for nodes that terminate or route IP (hosts and routers).
    pub fn is_l3(self) -> bool {
        !matches!(self, NodeKind::Switch(_))
    }
}

/// A node of the graph.
#[derive(Debug, Clone)]
pub struct Node {
    /// Unique name from the config.
    pub name: String,
    /// Host, switch or router.
    pub kind: NodeKind,
    /// Its ports, in the order links were declared.
    pub ports: Vec<PortId>,
    /// IPv4 address (hosts only).
    pub ip: Option<Ipv4Addr>,
}

/// One end of a link on a node: a NIC, a switch port or a router interface.
#[derive(Debug, Clone)]
pub struct Port {
    /// The node that owns the port.
    pub node: NodeId,
    /// The port's MAC address.
    pub mac: MacAddr,
    /// The link it is attached to.
    pub link: LinkId,
    /// The port at the other end of the link.
    pub peer: PortId,
    /// "node/peer-node", used in captures and stats.
    pub name: String,
}

/// Resolved parameters of one link (the same for both directions).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LinkParams {
    /// Bits per second; 0 = unlimited.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_ns: u64,
    /// IP MTU in bytes.
    pub mtu: u32,
    /// Queue limit in packets (excluding the frame being transmitted).
    pub queue_packets: u32,
    /// Queue limit in bytes of frames.
    pub queue_bytes: u64,
    /// Per-frame loss probability.
    pub loss: f64,
    /// Queue discipline of both ports.
    pub queue: QueueKind,
    /// RED's parameters (used when `queue` is [`QueueKind::Red`]).
    pub red: RedParams,
    /// Frames waiting from which an arriving ECN-capable frame is marked
    /// (used when `queue` is [`QueueKind::EcnThreshold`]).
    pub ecn_threshold: u32,
}

/// Parameters of Random Early Detection (Floyd and Jacobson 1993; see
/// [`crate::wire::queue::Red`]). Queue lengths are in packets.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RedParams {
    /// Below this average queue length nothing is dropped early.
    pub min_th: f64,
    /// From this average queue length on every arrival is dropped.
    pub max_th: f64,
    /// Drop probability as the average approaches `max_th`.
    pub max_p: f64,
    /// Weight of the newest queue length in the average (w_q).
    pub weight: f64,
    /// Mark ECN-capable frames CE where RED would drop them (RFC 3168).
    pub ecn: bool,
}

/// The paper's simulation settings: min_th 5, max_th 15 packets (three
/// times min_th, as Floyd recommends), max_p 1/50, w_q 0.002.
pub const DEFAULT_RED: RedParams = RedParams {
    min_th: 5.0,
    max_th: 15.0,
    max_p: 0.02,
    weight: 0.002,
    ecn: false,
};

/// Built-in link defaults: 1 Gbps, no delay, 1500 MTU, 1000-packet
/// drop-tail queue.
pub const DEFAULT_LINK: LinkParams = LinkParams {
    rate_bps: 1_000_000_000,
    delay_ns: 0,
    mtu: 1500,
    queue_packets: 1000,
    queue_bytes: u64::MAX,
    loss: 0.0,
    queue: QueueKind::DropTail,
    red: DEFAULT_RED,
    ecn_threshold: DEFAULT_ECN_THRESHOLD,
};

/// The default marking threshold K of `queue = "ecn-threshold"`, frames:
/// the 20 packets DCTCP's authors recommend for 1 Gbps links.
pub const DEFAULT_ECN_THRESHOLD: u32 = 20;

/// A full-duplex link between two ports.
#[derive(Debug, Clone)]
pub struct Link {
    /// "a-b" unless named in the config.
    pub name: String,
    /// The two ends.
    pub ends: [PortId; 2],
    /// Rate, delay, MTU, queue, loss.
    pub params: LinkParams,
}

/// The whole explicit graph.
#[derive(Debug, Clone)]
pub struct Network {
    /// All nodes.
    pub nodes: Vec<Node>,
    /// All ports of all nodes.
    pub ports: Vec<Port>,
    /// All links.
    pub links: Vec<Link>,
    /// Host nodes in declaration order (a host's index here is its host index).
    pub hosts: Vec<NodeId>,
    /// The regular structure this graph was generated from, if any; lets
    /// routing compute paths from coordinates instead of tables.
    pub shape: Option<crate::topology::shape::Shape>,
    /// How routers choose among paths.
    pub routing: crate::config::RoutingPolicy,
    /// The network's `seed`, which seeds the per-flow hash of
    /// `routing = "ecmp"`.
    pub routing_seed: u64,
    /// Under adaptive dragonfly routing, how long a flow must be idle
    /// before its next packet may take another path, ns.
    pub flowlet_gap_ns: u64,
    /// What carries the packets: Ethernet frames, or the lossless
    /// fabric's InfiniBand packets (captures need the link type).
    pub fabric: crate::config::FabricKind,
    by_name: crate::base::fasthash::FastMap<String, NodeId>,
    parallel: crate::base::fasthash::FastMap<(NodeId, NodeId), u32>,
}

/// `topology.flowlet_gap` when the network file leaves it out, ns: longer
/// than the extra latency of a dragonfly's non-minimal path (a second
/// global and a local link), so a flowlet that moves to a shorter path
/// does not overtake the previous one's packets in most networks.
pub const DEFAULT_FLOWLET_GAP_NS: u64 = 5_000;

fn err(origin: &str, msg: String) -> ConfigError {
    ConfigError(format!("{origin}: {msg}"))
}

impl Network {
    /// A graph without nodes, to add nodes and links to.
    pub fn empty() -> Network {
        Network {
            nodes: Vec::new(),
            ports: Vec::new(),
            links: Vec::new(),
            hosts: Vec::new(),
            shape: None,
            routing: Default::default(),
            routing_seed: 0,
            flowlet_gap_ns: DEFAULT_FLOWLET_GAP_NS,
            fabric: Default::default(),
            by_name: Default::default(),
            parallel: Default::default(),
        }
    }

    /// Builds the graph from a config whose hosts, switches, routers and
    /// links are listed (a `[topology]` table is expanded into such a list
    /// first: see [`Network::from_config`]), checking names, endpoints and
    /// values. `origin` names the file in error messages.
    pub fn from_listed(cfg: &NetworkConfig, origin: &str) -> Result<Network, ConfigError> {
        let mut net = Network::empty();
        let add =
            |net: &mut Network, name: &str, kind: NodeKind, ip: Option<Ipv4Addr>, what: &str| {
                if name.is_empty() {
                    return Err(err(
                        origin,
                        format!("a {what} has an empty name; give every node a unique name"),
                    ));
                }
                if net.by_name.contains_key(name) {
                    return Err(err(
                        origin,
                        format!("the node name '{name}' is used twice; node names must be unique"),
                    ));
                }
                let id = net.nodes.len() as NodeId;
                net.by_name.insert(name.to_string(), id);
                net.nodes.push(Node {
                    name: name.to_string(),
                    kind,
                    ports: Vec::new(),
                    ip,
                });
                Ok(id)
            };
        for (i, h) in cfg.hosts.iter().enumerate() {
            let ip = h.ip.unwrap_or_else(|| default_host_ip(i as u32));
            let id = add(&mut net, &h.name, NodeKind::Host, Some(ip), "host")?;
            net.hosts.push(id);
        }
        for s in &cfg.switches {
            add(&mut net, &s.name, NodeKind::Switch(s.mode), None, "switch")?;
        }
        for r in &cfg.routers {
            add(&mut net, &r.name, NodeKind::Router, None, "router")?;
        }
        let mut ips: crate::base::fasthash::FastMap<Ipv4Addr, NodeId> = Default::default();
        for &h in &net.hosts {
            let n = &net.nodes[h as usize];
            if let Some(prev) = ips.insert(n.ip.unwrap(), h) {
                let prev = &net.nodes[prev as usize].name;
                return Err(err(origin, format!("hosts '{prev}' and '{}' have the same IP address {}; give each host its own", n.name, n.ip.unwrap())));
            }
        }
        let defaults = layer(DEFAULT_LINK, &cfg.link_defaults, origin, &"link_defaults")?;
        for (i, lc) in cfg.links.iter().enumerate() {
            // The key path is formatted only for an error (a generated
            // network has millions of links).
            let params = layer(defaults, &lc.settings(), origin, &format_args!("link[{i}]"))?;
            let a = *net.by_name.get(&lc.a).ok_or_else(|| {
                err(origin, format!("link[{i}] names node '{}' in `a`, but no host, switch or router has that name", lc.a))
            })?;
            let b = *net.by_name.get(&lc.b).ok_or_else(|| {
                err(origin, format!("link[{i}] names node '{}' in `b`, but no host, switch or router has that name", lc.b))
            })?;
            if a == b {
                return Err(err(
                    origin,
                    format!(
                        "link[{i}] joins '{}' to itself; a link needs two different nodes",
                        lc.a
                    ),
                ));
            }
            let name = lc
                .name
                .clone()
                .unwrap_or_else(|| format!("{}-{}", lc.a, lc.b));
            net.add_link(a, b, name, params);
        }
        for (id, n) in net.nodes.iter().enumerate() {
            if n.ports.is_empty() && (net.nodes.len() > 1) {
                return Err(err(
                    origin,
                    format!(
                        "node '{}' has no link; connect it with a [[link]] or remove it",
                        n.name
                    ),
                ));
            }
            let _ = id;
        }
        if net.hosts.is_empty() {
            return Err(err(
                origin,
                "the network has no [[host]]; ranks need at least one host".into(),
            ));
        }
        Ok(net)
    }

    /// Adds a link between two nodes, creating one port on each.
    pub fn add_link(&mut self, a: NodeId, b: NodeId, name: String, params: LinkParams) -> LinkId {
        let link = self.links.len() as LinkId;
        let pa = self.ports.len() as PortId;
        let pb = pa + 1;
        for (node, peer_node, me, peer) in [(a, b, pa, pb), (b, a, pb, pa)] {
            let pname = format!(
                "{}/{}",
                self.nodes[node as usize].name, self.nodes[peer_node as usize].name
            );
            // Two parallel links to the same peer get distinct port names.
            let dup = self.parallel.entry((node, peer_node)).or_insert(0);
            let pname = if *dup == 0 {
                pname
            } else {
                format!("{pname}#{dup}")
            };
            *dup += 1;
            self.ports.push(Port {
                node,
                mac: MacAddr::for_port(me),
                link,
                peer,
                name: pname,
            });
            self.nodes[node as usize].ports.push(me);
        }
        self.links.push(Link {
            name,
            ends: [pa, pb],
            params,
        });
        link
    }

    /// The node a port belongs to.
    pub fn node_of(&self, port: PortId) -> &Node {
        &self.nodes[self.ports[port as usize].node as usize]
    }

    /// Looks a node up by name.
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// The node at the far end of `port`'s link.
    pub fn peer_node(&self, port: PortId) -> NodeId {
        self.ports[self.ports[port as usize].peer as usize].node
    }

    /// The node a host is attached to through its first port (its router or
    /// switch), or `None` for a host without links.
    pub fn attachment(&self, host: NodeId) -> Option<NodeId> {
        self.nodes[host as usize]
            .ports
            .first()
            .map(|&p| self.peer_node(p))
    }

    /// Places `n_ranks` ranks on hosts according to the config; returns the
    /// host node of every rank.
    pub fn place_ranks(
        &self,
        cfg: &NetworkConfig,
        n_ranks: usize,
        origin: &str,
    ) -> Result<Vec<NodeId>, ConfigError> {
        if n_ranks == 0 {
            return Err(ConfigError(
                "the job has no ranks; give at least one (-n 1 or more)".into(),
            ));
        }
        if let Some(list) = &cfg.ranks.hosts {
            if list.len() < n_ranks {
                return Err(err(origin, format!(
                    "`ranks.hosts` places {} ranks but the job has {n_ranks}; list a host for every rank",
                    list.len()
                )));
            }
            return list[..n_ranks]
                .iter()
                .map(|h| match self.node_by_name(h) {
                    Some(id) if self.nodes[id as usize].kind == NodeKind::Host => Ok(id),
                    _ => Err(err(
                        origin,
                        format!(
                            "`ranks.hosts` names '{h}', which is not a [[host]]; use a host's name"
                        ),
                    )),
                })
                .collect();
        }
        let h = self.hosts.len();
        if cfg.ranks.one_per_host && n_ranks != h {
            return Err(err(
                origin,
                format!("the network has {h} hosts but the job has {n_ranks} ranks; this description needs exactly one rank per host, so run {h} ranks or change its dimensions"),
            ));
        }
        Ok(match cfg.ranks.placement {
            Placement::Block => {
                let per = n_ranks.div_ceil(h);
                (0..n_ranks).map(|r| self.hosts[r / per]).collect()
            }
            Placement::RoundRobin => (0..n_ranks).map(|r| self.hosts[r % h]).collect(),
        })
    }
}

fn layer(
    base: LinkParams,
    s: &crate::config::LinkSettings,
    origin: &str,
    at: &dyn std::fmt::Display,
) -> Result<LinkParams, ConfigError> {
    let mut p = base;
    if let Some(r) = s.rate {
        p.rate_bps = r.0;
    }
    if let Some(d) = s.delay {
        p.delay_ns = d.0;
    }
    if let Some(m) = s.mtu {
        if !(576..=65_000).contains(&m) {
            return Err(err(
                origin,
                format!("`{at}.mtu` is {m}; an IPv4 MTU must be between 576 and 65000 bytes"),
            ));
        }
        p.mtu = m;
    }
    if let Some(q) = s.queue_packets {
        if q == 0 {
            return Err(err(
                origin,
                format!("`{at}.queue_packets` is 0; a queue must hold at least one packet"),
            ));
        }
        p.queue_packets = q;
    }
    if let Some(q) = s.queue_bytes {
        if q.0 < 1600 {
            return Err(err(
                origin,
                format!(
                    "`{at}.queue_bytes` is {} B; it must hold at least one full frame (1600 B)",
                    q.0
                ),
            ));
        }
        p.queue_bytes = q.0;
    }
    if let Some(l) = s.loss {
        if !(0.0..1.0).contains(&l) {
            return Err(err(
                origin,
                format!("`{at}.loss` is {l}; a loss probability must be at least 0 and below 1"),
            ));
        }
        p.loss = l;
    }
    if let Some(q) = s.queue {
        p.queue = q;
    }
    if let Some(k) = s.ecn_threshold {
        p.ecn_threshold = k;
    }
    if let Some(e) = s.red_ecn {
        p.red.ecn = e;
    }
    let in_range = |key: &str, v: Option<f64>, ok: fn(f64) -> bool, want: &str| match v {
        Some(v) if !ok(v) => Err(err(origin, format!("`{at}.{key}` is {v}; {want}"))),
        _ => Ok(v),
    };
    let positive = |v: f64| v.is_finite() && v >= 0.0;
    let fraction = |v: f64| v > 0.0 && v <= 1.0;
    if let Some(v) = in_range(
        "red_min_th",
        s.red_min_th,
        positive,
        "give an average queue length of at least 0 packets",
    )? {
        p.red.min_th = v;
    }
    if let Some(v) = in_range(
        "red_max_th",
        s.red_max_th,
        positive,
        "give an average queue length of at least 0 packets",
    )? {
        p.red.max_th = v;
    }
    if let Some(v) = in_range(
        "red_max_p",
        s.red_max_p,
        fraction,
        "a drop probability must be above 0 and at most 1",
    )? {
        p.red.max_p = v;
    }
    if let Some(v) = in_range(
        "red_weight",
        s.red_weight,
        fraction,
        "the average's weight must be above 0 and at most 1",
    )? {
        p.red.weight = v;
    }
    if p.queue == QueueKind::Red && p.red.min_th >= p.red.max_th {
        return Err(err(
            origin,
            format!(
                "at `{at}` RED's red_min_th ({}) is not below red_max_th ({}); give a minimum threshold below the maximum (e.g. 5 and 15 packets)",
                p.red.min_th, p.red.max_th
            ),
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_key_chooses_red_per_link_with_its_parameters() {
        let net = |extra: &str| {
            let text = format!(
                "[link_defaults]\nqueue = 'red'\nred_max_th = 30\n[[host]]\nname='a'\n[[host]]\nname='b'\n[[switch]]\nname='s'\n[[link]]\na='a'\nb='s'\nred_min_th = 10\nred_max_p = 0.1\nred_weight = 0.01\n[[link]]\na='b'\nb='s'\n{extra}"
            );
            let cfg = NetworkConfig::from_toml_str(&text, "n.toml").unwrap();
            Network::from_config(&cfg, "n.toml")
        };
        let n = net("").unwrap();
        let (first, second) = (n.links[0].params, n.links[1].params);
        assert_eq!(first.queue, QueueKind::Red);
        assert_eq!(
            first.red,
            RedParams {
                min_th: 10.0,
                max_th: 30.0,
                max_p: 0.1,
                weight: 0.01,
                ecn: false,
            }
        );
        assert_eq!(
            (second.queue, second.red),
            (
                QueueKind::Red,
                RedParams {
                    max_th: 30.0,
                    ..DEFAULT_RED
                }
            )
        );
        let n = net("queue = 'droptail'\n").unwrap();
        assert_eq!(n.links[1].params.queue, QueueKind::DropTail);
        assert_eq!(DEFAULT_LINK.queue, QueueKind::DropTail);
        let e = net("red_min_th = 40\n").unwrap_err();
        assert!(
            e.0.contains("at `link[1]` RED's red_min_th (40) is not below red_max_th (30)"),
            "{e}"
        );
        let e = net("red_max_p = 0\n").unwrap_err();
        assert!(
            e.0.contains(
                "`link[1].red_max_p` is 0; a drop probability must be above 0 and at most 1"
            ),
            "{e}"
        );
        let e = NetworkConfig::from_toml_str("[link_defaults]\nqueue = 'codel'\n", "n.toml")
            .unwrap_err();
        assert!(e.0.contains("codel"), "{e}");
    }

    #[test]
    fn unknown_endpoint_is_one_sentence() {
        let cfg = NetworkConfig::from_toml_str(
            "[[host]]\nname='h0'\n[[link]]\na='h0'\nb='nowhere'\n",
            "n.toml",
        )
        .unwrap();
        let e = Network::from_config(&cfg, "n.toml").unwrap_err();
        assert!(e.0.contains("'nowhere'"), "{e}");
    }

    #[test]
    fn block_and_round_robin_placement() {
        let cfg = NetworkConfig::from_toml_str(
            "[[host]]\nname='a'\n[[host]]\nname='b'\n[[switch]]\nname='s'\n[[link]]\na='a'\nb='s'\n[[link]]\na='b'\nb='s'\n",
            "n",
        )
        .unwrap();
        let net = Network::from_config(&cfg, "n").unwrap();
        assert_eq!(net.place_ranks(&cfg, 4, "n").unwrap(), vec![0, 0, 1, 1]);
        let mut rr = cfg.clone();
        rr.ranks.placement = Placement::RoundRobin;
        assert_eq!(net.place_ranks(&rr, 4, "n").unwrap(), vec![0, 1, 0, 1]);
    }
}
