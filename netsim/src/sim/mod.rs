//! The simulator: an event loop over the network graph, its transmitters,
//! switches, routers and TCP connections, driven entirely by the caller.

use crate::base::addr::MacAddr;
use crate::base::event::EventQueue;
use crate::base::fasthash::FastMap;
use crate::base::rng::SimRng;
use crate::base::time::{serialization_time, Nanos};
use crate::config::{ConfigError, NetworkConfig, SwitchMode};
use crate::faults::{Crossing, Effect, FaultPlan, FaultState, NetworkEvent, NetworkFailure};
use crate::model::stats::{ConnectionReport, LinkDirectionStats, NodeStats, SimStats};
use crate::model::{Delivery, EventClass, InjectError};
use crate::tcp::congestion::CongestionAlgorithm;
use crate::tcp::{MessageId, MessageRecord, TcpAction, TcpConnection, TcpParams, TimerKind};
use crate::topology::routing::flow::FlowKey;
use crate::topology::routing::{Route, Routing, Spread};
use crate::topology::{Network, NodeId, NodeKind, PortId};
use crate::wire::capture::{self, CaptureFile, HostNames, PortCaptures};
use crate::wire::observer::PortObserver;
use crate::wire::packet::{ConnId, Ecn, Packet, PacketArena, PacketId};
use crate::wire::queue::{Admission, QueueDiscipline};
use crate::wire::transmitter::Transmitter;
use bytes::Bytes;
use std::collections::VecDeque;
use std::net::Ipv4Addr;

mod adaptive;
mod lossless;
mod model;
pub mod vectors;

#[derive(Clone, Copy, Debug)]
enum Event {
    Inject(MessageId),
    /// A frame finished serialising; the link's fault epoch when it started.
    TxDone(PortId, u32),
    /// A frame arrived; the link's fault epoch when it left.
    Arrive(PortId, PacketId, u32),
    Timer(ConnId, TimerKind),
    LocalDeliver(MessageId),
    /// A credit of the lossless fabric is back at its port.
    CreditReturn(PortId),
}

struct ConnEntry {
    tcp: TcpConnection,
    src_rank: u32,
    dst_rank: u32,
    src_host: NodeId,
    dst_host: NodeId,
    /// First hop from the source host; `None` while faults leave no route.
    fwd: Option<Route>,
    /// First hop from the destination host back.
    rev: Option<Route>,
    src_port: u16,
    dst_port: u16,
    waiting: bool,
}

/// The packet-level simulation of one network with a fixed set of ranks.
pub struct Simulator {
    net: Network,
    /// The network's own routing (without faults).
    routes: Routing,
    /// Which links are dead, the routing around them, the network events.
    faults: Option<Box<FaultState>>,
    /// What the faults asked for, being carried out (kept for its memory).
    fault_effects: Vec<Effect>,
    failure: Option<NetworkFailure>,
    queue: EventQueue<Event>,
    now: Nanos,
    events_run: u64,
    packets: PacketArena,
    tx: Vec<Transmitter>,
    learned: Vec<FastMap<MacAddr, PortId>>,
    conns: Vec<ConnEntry>,
    conn_index: FastMap<(u32, u32), ConnId>,
    rank_hosts: Vec<NodeId>,
    /// Hosts of the endpoints that are not ranks (a storage node's
    /// server), numbered after the ranks: endpoint `ranks + i` is on
    /// `endpoint_hosts[i]`.
    endpoint_hosts: Vec<NodeId>,
    pending: FastMap<MessageId, (MessageRecord, Bytes)>,
    deliveries: Vec<Delivery>,
    node_stats: Vec<NodeStats>,
    link_stats: Vec<LinkDirectionStats>,
    vectors: Option<crate::sim::vectors::VectorRecorder>,
    /// The capture files, attached to the ports they record.
    captures: PortCaptures,
    rng: SimRng,
    /// Draws each packet's next hop among equal ones under
    /// `routing = "spray"` (its own stream, so spraying leaves the other
    /// random choices of a run as they were).
    spray_rng: SimRng,
    tcp_params: TcpParams,
    nic_queue_packets: usize,
    intra_latency: Nanos,
    intra_rate_bps: u64,
    intra_last: FastMap<(u32, u32), Nanos>,
    next_msg_id: MessageId,
    ip_ids: Vec<u16>,
    waiting_on_port: Vec<VecDeque<ConnId>>,
    actions: Vec<TcpAction>,
    messages_injected: u64,
    messages_delivered: u64,
    /// Adaptive dragonfly routing's flowlets (see [`adaptive`]).
    flowlets: adaptive::Flowlets,
    /// The lossless fabric's credits and queue pairs (`None`: Ethernet
    /// and TCP).
    lossless: Option<Box<lossless::Lossless>>,
}

/// Initial TTL of packets leaving a host.
pub const INITIAL_TTL: u8 = 64;
pub use crate::wire::packet::{connection_ports, CONNECT_PORT_BASE, LISTEN_PORT_BASE};
/// Most ranks one simulation can address with these port ranges.
pub const MAX_RANKS: usize = 7_000;

impl Simulator {
    /// Builds a simulator for `n_ranks` ranks from a parsed config. With
    /// `capture` true, the configured capture points record frames.
    pub fn from_config(
        cfg: &NetworkConfig,
        origin: &str,
        n_ranks: usize,
        capture: bool,
    ) -> Result<Simulator, ConfigError> {
        let net = Network::from_config(cfg, origin)?;
        Simulator::from_network(net, cfg, origin, n_ranks, capture)
    }

    /// [`Simulator::from_config`] for a graph already built from `cfg`
    /// (a caller that needed the graph first need not build it twice).
    pub fn from_network(
        net: Network,
        cfg: &NetworkConfig,
        origin: &str,
        n_ranks: usize,
        capture: bool,
    ) -> Result<Simulator, ConfigError> {
        lossless::check(cfg, &net, origin)?;
        let rank_hosts = net.place_ranks(cfg, n_ranks, origin)?;
        if let Some((a, b)) = crate::topology::reach::unreachable_pair(&net, &rank_hosts) {
            let name = |r: usize| &net.nodes[rank_hosts[r] as usize].name;
            return Err(ConfigError(format!(
                "{origin}: rank {a}'s host {} and rank {b}'s host {} are not connected (no chain of links through switches and routers joins them); link the two parts of the network, or place the ranks on connected hosts with [ranks]",
                name(a),
                name(b)
            )));
        }
        if n_ranks > MAX_RANKS {
            return Err(ConfigError(format!(
                "{n_ranks} ranks exceed the {MAX_RANKS} this simulator can address; run fewer ranks"
            )));
        }
        let min_mtu = net.links.iter().map(|l| l.params.mtu).min().unwrap_or(1500);
        let mss = cfg.tcp.mss.unwrap_or(min_mtu - 40);
        if mss < 88 || mss + 40 > min_mtu {
            return Err(ConfigError(format!(
                "{origin}: `tcp.mss` is {mss}; it must be at least 88 and at most the smallest MTU minus 40 ({})",
                min_mtu - 40
            )));
        }
        let tcp_params = TcpParams {
            mss,
            nagle: cfg.tcp.nagle,
            delayed_ack: Nanos(cfg.tcp.delayed_ack.0),
            delayed_ack_segments: cfg.tcp.delayed_ack_segments,
            rto_min: Nanos(cfg.tcp.rto_min.0),
            rto_initial: Nanos(cfg.tcp.rto_initial.0),
            rto_max: Nanos(cfg.tcp.rto_max.0),
            initial_cwnd: cfg.tcp.initial_cwnd,
            receive_window: cfg.tcp.receive_window.0.max(mss as u64),
            sack: cfg.tcp.sack,
            congestion: match cfg.tcp.congestion {
                crate::config::CongestionName::NewReno => CongestionAlgorithm::NewReno,
                crate::config::CongestionName::Cubic => CongestionAlgorithm::Cubic,
            },
            timestamps: cfg.tcp.timestamps,
            ecn: cfg.tcp.ecn,
        };
        let plan = FaultPlan::resolve(cfg, &net, origin)?;
        let mut sim = Simulator::new(net, rank_hosts, tcp_params, cfg.seed);
        if cfg.fabric == crate::config::FabricKind::Lossless {
            sim.make_lossless(cfg);
        }
        if let Some(plan) = plan {
            sim.set_faults(plan);
        }
        sim.nic_queue_packets = cfg.tcp.nic_queue_packets.max(1) as usize;
        sim.intra_latency = Nanos(cfg.intra_host.latency.0);
        sim.intra_rate_bps = cfg.intra_host.rate.0;
        if capture {
            let plan = capture::plan(&sim.net, &sim.rank_hosts, &cfg.capture, origin)?;
            sim.set_captures(plan);
        } else {
            // The `[capture]` table is checked all the same; no file is
            // prepared (a file per host of a large network costs memory).
            capture::check_config(&cfg.capture, origin)?;
            capture::select_ports(&sim.net, &cfg.capture, origin)?;
        }
        if sim.faults.is_some() {
            for f in sim.captures.files_mut() {
                f.enable_event_comments();
            }
        }
        Ok(sim)
    }

    /// Builds a simulator from an explicit graph and rank placement.
    pub fn new(
        net: Network,
        rank_hosts: Vec<NodeId>,
        tcp_params: TcpParams,
        seed: u64,
    ) -> Simulator {
        let routes = Routing::new(&net);
        let tx = net
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let l = &net.links[p.link as usize].params;
                // Each port's own stream of random numbers (RED).
                let port_seed = (seed ^ 0x7265_645f_7175_6575)
                    .wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                Transmitter::new(l, port_seed)
            })
            .collect();
        // Counters only: the names are filled in by `stats()` (a large
        // network would otherwise hold every node and port name twice).
        let node_stats = vec![NodeStats::default(); net.nodes.len()];
        let link_stats = vec![LinkDirectionStats::default(); net.ports.len()];
        Simulator {
            learned: vec![FastMap::default(); net.nodes.len()],
            waiting_on_port: vec![VecDeque::new(); net.ports.len()],
            ip_ids: vec![0; net.nodes.len()],
            routes,
            faults: None,
            fault_effects: Vec::new(),
            failure: None,
            queue: EventQueue::default(),
            now: Nanos::ZERO,
            events_run: 0,
            packets: PacketArena::default(),
            tx,
            conns: Vec::new(),
            conn_index: FastMap::default(),
            rank_hosts,
            endpoint_hosts: Vec::new(),
            pending: FastMap::default(),
            deliveries: Vec::new(),
            node_stats,
            link_stats,
            vectors: None,
            captures: PortCaptures::none(net.ports.len()),
            rng: SimRng::new(seed ^ 0x6d70_696e_6574_7369),
            spray_rng: SimRng::new(seed ^ 0x7370_7261_795f_726e),
            tcp_params,
            nic_queue_packets: 32,
            intra_latency: Nanos(1_000),
            intra_rate_bps: 0,
            intra_last: FastMap::default(),
            next_msg_id: 0,
            actions: Vec::new(),
            messages_injected: 0,
            messages_delivered: 0,
            flowlets: Default::default(),
            lossless: None,
            net,
        }
    }

    /// Records frames into the files of `plan` (see [`capture::plan`]),
    /// replacing any capture set up before.
    pub fn set_captures(&mut self, plan: capture::CapturePlan) {
        self.captures = PortCaptures::new(plan);
    }

    /// The names every host address resolves to ("rank0", …, the host's
    /// name), as written into pcapng name resolution blocks.
    pub fn host_names(&self) -> Vec<HostNames> {
        capture::host_names(&self.net, &self.rank_hosts)
    }

    /// The node each rank runs on, numbered from 0 in order of the ranks:
    /// ranks on one host share a node, and so do the cores of one
    /// processor of a hybrid network (hosts `cpuP.coreC`: every host whose
    /// name has the same part before its first '.'), which share memory.
    pub fn rank_nodes(&self) -> Vec<u32> {
        let mut seen: Vec<&str> = Vec::new();
        self.rank_hosts
            .iter()
            .map(|&h| {
                let name = self.net.nodes[h as usize].name.as_str();
                let machine = name.split('.').next().unwrap_or(name);
                match seen.iter().position(|m| *m == machine) {
                    Some(i) => i as u32,
                    None => {
                        seen.push(machine);
                        seen.len() as u32 - 1
                    }
                }
            })
            .collect()
    }

    /// The network graph being simulated.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Forwarding tables in use (recomputed around dead links while any are).
    pub fn routes(&self) -> &Routing {
        (self.faults.as_ref())
            .and_then(|f| f.routes())
            .unwrap_or(&self.routes)
    }

    /// Schedules the faults of `plan` (see [`crate::faults`]), replacing any
    /// set before. Call before running events.
    pub fn set_faults(&mut self, plan: FaultPlan) {
        self.faults = Some(Box::new(FaultState::new(plan, &self.net)));
    }

    /// Every fault, route change and partition so far, in time order.
    pub fn network_events(&self) -> &[NetworkEvent] {
        self.faults.as_ref().map_or(&[], |f| f.events())
    }

    /// Set when the run cannot go on: a message waited longer than
    /// `faults.partition_timeout` at a partition. No event runs after it.
    pub fn failure(&self) -> Option<&NetworkFailure> {
        self.failure.as_ref()
    }

    /// Host node of each rank.
    pub fn rank_hosts(&self) -> &[NodeId] {
        &self.rank_hosts
    }

    /// Adds an endpoint that is not a rank (such as a storage node's
    /// server) on `host`: messages to and from it travel like a rank's.
    /// Returns its number, which follows the ranks and the endpoints added
    /// before.
    pub fn add_endpoint(&mut self, host: NodeId) -> u32 {
        self.endpoint_hosts.push(host);
        (self.rank_hosts.len() + self.endpoint_hosts.len() - 1) as u32
    }

    /// Adds a rank started during the run (see
    /// [`crate::NetworkModel::add_rank`]); not on a network with other
    /// endpoints, which are numbered after the ranks.
    pub fn add_rank(&mut self, host: Option<&str>) -> Result<u32, String> {
        if !self.endpoint_hosts.is_empty() {
            return Err("the network has a [[storage]] node, whose endpoint follows the ranks, so no rank can be added during the run; spawn on a network without it".into());
        }
        if self.rank_hosts.len() >= MAX_RANKS {
            return Err(format!(
                "the job already has {MAX_RANKS} ranks, as many as this simulator can address"
            ));
        }
        let node = match host {
            Some(name) => match self.net.node_by_name(name) {
                Some(id) if self.net.hosts.contains(&id) => id,
                _ => {
                    return Err(format!(
                        "the info key `host` names '{name}', which is not a host of the network; name one of its [[host]]s"
                    ))
                }
            },
            None => *self
                .net
                .hosts
                .iter()
                .min_by_key(|&&h| self.rank_hosts.iter().filter(|&&r| r == h).count())
                .ok_or("the network has no host to start a rank on")?,
        };
        self.rank_hosts.push(node);
        Ok(self.rank_hosts.len() as u32 - 1)
    }

    /// The host of endpoint `e` (a rank, or one [`Simulator::add_endpoint`] added).
    fn host_of(&self, e: u32) -> NodeId {
        let e = e as usize;
        match self.rank_hosts.get(e) {
            Some(&h) => h,
            None => self.endpoint_hosts[e - self.rank_hosts.len()],
        }
    }

    /// Parameters every TCP connection uses.
    pub fn tcp_params(&self) -> &TcpParams {
        &self.tcp_params
    }

    /// Current virtual time.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Events executed so far.
    pub fn events_run(&self) -> u64 {
        self.events_run
    }

    /// Time of the next pending event (`None` once the run has failed).
    /// Scheduled faults are not events: they are applied just before the
    /// first event at or after their time.
    pub fn next_event_time(&self) -> Option<Nanos> {
        if self.failure.is_some() {
            return None;
        }
        let q = self.queue.peek_time();
        match (q, self.faults.as_ref().and_then(|f| f.check_at())) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Capture files (drain their bytes with `drain_to` or `take_bytes`).
    pub fn captures_mut(&mut self) -> &mut [CaptureFile] {
        self.captures.files_mut()
    }

    /// Hands a message from rank `src` to rank `dst` at virtual time `at`
    /// (clamped to now). Delivery is reported by `take_deliveries`.
    pub fn inject(
        &mut self,
        src: u32,
        dst: u32,
        bytes: Bytes,
        at: Nanos,
    ) -> Result<MessageId, InjectError> {
        let ranks = self.rank_hosts.len() as u32;
        let endpoints = ranks + self.endpoint_hosts.len() as u32;
        for rank in [src, dst] {
            if rank >= endpoints {
                return Err(InjectError::NoSuchRank { rank, ranks });
            }
        }
        if bytes.is_empty() {
            return Err(InjectError::Empty);
        }
        let (hs, hd) = (self.host_of(src), self.host_of(dst));
        if hs != hd
            && (self.routes.route(&self.net, hs, hd).is_none()
                || self.routes.route(&self.net, hd, hs).is_none())
        {
            return Err(InjectError::Unreachable { src, dst });
        }
        let id = self.next_msg_id;
        self.next_msg_id += 1;
        let at = at.max(self.now);
        let rec = MessageRecord {
            id,
            src,
            dst,
            injected_at: at,
            end_off: 0,
        };
        self.pending.insert(id, (rec, bytes));
        self.queue.push(at, Event::Inject(id));
        self.messages_injected += 1;
        Ok(id)
    }

    /// Messages injected and not yet delivered.
    pub fn messages_in_flight(&self) -> u64 {
        self.messages_injected - self.messages_delivered
    }

    /// Moves the messages delivered so far into `out`.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        out.append(&mut self.deliveries);
    }

    /// Runs every event scheduled at or before `t` and applies the faults
    /// due by then, then sets the clock to `t`.
    pub fn advance_to(&mut self, t: Nanos) {
        while self.next_event_time().is_some_and(|e| e <= t) {
            self.step();
        }
        if self.failure.is_none() {
            self.apply_faults_until(t);
        }
        self.sample_until(t);
        self.now = self.now.max(t);
    }

    /// Starts recording time series every `interval` of virtual time (see
    /// [`crate::sim::vectors`]); drain them with [`Simulator::take_samples`].
    pub fn enable_vectors(&mut self, interval: Nanos) {
        let mut rec = crate::sim::vectors::VectorRecorder::new(interval, self.net.ports.len());
        while rec.next <= self.now {
            rec.next = Nanos(rec.next.0 + interval.0);
        }
        self.vectors = Some(rec);
    }

    /// The samples recorded since the last call.
    pub fn take_samples(&mut self) -> crate::sim::vectors::Samples {
        self.vectors
            .as_mut()
            .map(|v| std::mem::take(&mut v.samples))
            .unwrap_or_default()
    }

    /// Takes every sample due at or before `t` (state as of just before `t`'s events).
    fn sample_until(&mut self, t: Nanos) {
        let Some(mut rec) = self.vectors.take() else {
            return;
        };
        while rec.next <= t {
            let at = rec.next;
            for (port, tx) in self.tx.iter().enumerate() {
                rec.link(
                    at,
                    port as u32,
                    tx.queue.len() as u32,
                    tx.queue.queued_bytes(),
                    self.link_stats[port].busy_ns,
                );
            }
            for (c, e) in self.conns.iter().enumerate() {
                rec.tcp(
                    c,
                    crate::sim::vectors::TcpSample {
                        t_ns: at.0,
                        src_rank: e.src_rank,
                        dst_rank: e.dst_rank,
                        cwnd_bytes: e.tcp.cwnd(),
                        srtt_ns: e.tcp.srtt().map(|s| s.0),
                        unacked_bytes: e.tcp.unacked_bytes(),
                    },
                );
            }
            rec.next = Nanos(at.0 + rec.interval.0);
        }
        self.vectors = Some(rec);
    }

    /// Runs the next event; returns its time, or None when nothing is pending.
    pub fn step(&mut self) -> Option<Nanos> {
        self.step_classified().map(|(t, _)| t)
    }

    /// Runs the next event; returns its time and kind.
    pub fn step_classified(&mut self) -> Option<(Nanos, EventClass)> {
        let t = self.next_time_with_faults()?;
        self.sample_until(t);
        if self.faults.as_ref().and_then(|f| f.check_at()) == Some(t) {
            self.now = t;
            self.events_run += 1;
            self.check_partition();
            return Some((t, EventClass::Fault));
        }
        let (t, ev) = self.queue.pop()?;
        let class = match ev {
            Event::Inject(_) => EventClass::Inject,
            Event::TxDone(..) => EventClass::TransmitDone,
            Event::Arrive(..) => EventClass::Arrival,
            Event::Timer(..) => EventClass::TcpTimer,
            Event::LocalDeliver(_) => EventClass::LocalDelivery,
            Event::CreditReturn(_) => EventClass::CreditReturn,
        };
        self.now = t;
        self.events_run += 1;
        match ev {
            Event::Inject(id) => self.on_inject(id),
            Event::TxDone(port, epoch) => self.on_tx_done(port, epoch),
            Event::Arrive(port, pkt, epoch) => self.on_arrive(port, pkt, epoch),
            Event::Timer(c, kind) => {
                let mut actions = std::mem::take(&mut self.actions);
                self.conns[c as usize].tcp.on_timer(t, kind, &mut actions);
                self.apply(c, &mut actions);
                self.actions = actions;
                self.poll_conn(c);
            }
            Event::LocalDeliver(id) => {
                let (rec, bytes) = self.pending.remove(&id).expect("pending local message");
                self.deliver(rec, bytes);
            }
            Event::CreditReturn(port) => self.on_credit_return(port),
        }
        Some((t, class))
    }

    fn on_inject(&mut self, id: MessageId) {
        let (rec, _) = &self.pending[&id];
        let (src, dst) = (rec.src, rec.dst);
        let (hs, hd) = (self.host_of(src), self.host_of(dst));
        self.node_stats[hs as usize].messages_sent += 1;
        if hs == hd {
            let len = self.pending[&id].1.len() as u64;
            let mut t =
                self.now + self.intra_latency + serialization_time(len, self.intra_rate_bps);
            let last = self.intra_last.entry((src, dst)).or_insert(Nanos::ZERO);
            t = t.max(*last);
            *last = t;
            self.queue.push(t, Event::LocalDeliver(id));
            return;
        }
        let (rec, bytes) = self.pending.remove(&id).unwrap();
        if self.is_lossless() {
            self.rdma_send(rec, bytes);
            return;
        }
        let c = self.connection(src, dst);
        self.note_partition_traffic(c);
        let mut actions = std::mem::take(&mut self.actions);
        self.conns[c as usize]
            .tcp
            .app_send(self.now, rec, bytes, &mut actions);
        self.apply(c, &mut actions);
        self.actions = actions;
        self.poll_conn(c);
    }

    fn connection(&mut self, src: u32, dst: u32) -> ConnId {
        if let Some(&c) = self.conn_index.get(&(src, dst)) {
            return c;
        }
        let (hs, hd) = (self.host_of(src), self.host_of(dst));
        let iss = self.rng.next_u64() as u32;
        let r_iss = self.rng.next_u64() as u32;
        let c = self.conns.len() as ConnId;
        let (src_port, dst_port) = connection_ports(src, dst);
        let flow = self.flow_key(hs, hd, src_port, dst_port);
        let (fwd, rev) = (
            (self.routes()).route_spread(&self.net, hs, hd, self.routes().spread(&flow)),
            (self.routes()).route_spread(&self.net, hd, hs, self.routes().spread(&flow.reversed())),
        );
        self.conns.push(ConnEntry {
            tcp: TcpConnection::new(self.tcp_params.clone(), iss, r_iss),
            src_rank: src,
            dst_rank: dst,
            src_host: hs,
            dst_host: hd,
            fwd,
            rev,
            src_port,
            dst_port,
            waiting: false,
        });
        self.conn_index.insert((src, dst), c);
        c
    }

    /// The 5-tuple of the flow from host `from` to host `to` between the
    /// given TCP ports (what ECMP hashes).
    fn flow_key(&self, from: NodeId, to: NodeId, src_port: u16, dst_port: u16) -> FlowKey {
        FlowKey {
            src_ip: self.net.nodes[from as usize]
                .ip
                .unwrap_or(Ipv4Addr::UNSPECIFIED),
            dst_ip: self.net.nodes[to as usize]
                .ip
                .unwrap_or(Ipv4Addr::UNSPECIFIED),
            src_port,
            dst_port,
        }
    }

    /// How a router splits ties for packet `pkt`: by a value drawn for
    /// this packet at this hop when spraying (kept in the packet for the
    /// switches up to the next L3 node), by its flow under ECMP, else by
    /// destination.
    fn packet_spread(&mut self, pkt: PacketId) -> Spread {
        if self.routes().is_spray() {
            let draw = self.spray_rng.next_u64();
            self.packets.get_mut(pkt).hop_draw = Some(draw);
            return Spread::Flow(draw);
        }
        self.switch_spread(pkt)
    }

    /// How a static switch splits ties for packet `pkt`: as the router (or
    /// host) that addressed the frame did.
    fn switch_spread(&self, pkt: PacketId) -> Spread {
        let p = self.packets.get(pkt);
        if let Some(draw) = p.hop_draw {
            return Spread::Flow(draw);
        }
        self.routes().spread(&FlowKey {
            src_ip: p.src_ip,
            dst_ip: p.dst_ip,
            src_port: p.src_port,
            dst_port: p.dst_port,
        })
    }

    fn poll_conn(&mut self, c: ConnId) {
        let e = &self.conns[c as usize];
        // Without a route, segments are dropped at the host: use the NIC's
        // room anyway so TCP behaves as if it sent them.
        let port = match e.fwd {
            Some(r) => r.port,
            None => self.net.nodes[e.src_host as usize].ports[0],
        };
        let t = &self.tx[port as usize];
        let room = (t.queue.room()).min(self.nic_queue_packets.saturating_sub(t.queue.len()))
            + usize::from(t.is_idle());
        let mut actions = std::mem::take(&mut self.actions);
        let blocked = self.conns[c as usize]
            .tcp
            .poll_transmit(self.now, room, &mut actions);
        self.apply(c, &mut actions);
        self.actions = actions;
        let e = &mut self.conns[c as usize];
        if blocked && !e.waiting {
            e.waiting = true;
            self.waiting_on_port[port as usize].push_back(c);
        }
    }

    fn apply(&mut self, c: ConnId, actions: &mut Vec<TcpAction>) {
        for a in actions.drain(..) {
            match a {
                TcpAction::Send(seg) => {
                    let e = &self.conns[c as usize];
                    let (from, to, route) = if seg.reverse {
                        (e.dst_host, e.src_host, e.rev)
                    } else {
                        (e.src_host, e.dst_host, e.fwd)
                    };
                    let (sp, dp) = if seg.reverse {
                        (e.dst_port, e.src_port)
                    } else {
                        (e.src_port, e.dst_port)
                    };
                    if seg.retransmission {
                        self.node_stats[from as usize].retransmissions += 1;
                    }
                    let Some(route) = route else {
                        // Faults left this host without a route: the
                        // segment is lost here and TCP retransmits later.
                        self.node_stats[from as usize].drops_unroutable += 1;
                        continue;
                    };
                    let ip_id = {
                        let v = &mut self.ip_ids[from as usize];
                        *v = v.wrapping_add(1);
                        *v
                    };
                    let pkt = Packet {
                        src_mac: self.net.ports[route.port as usize].mac,
                        dst_mac: route.next_hop_mac,
                        src_ip: self.net.nodes[from as usize].ip.unwrap(),
                        dst_ip: self.net.nodes[to as usize].ip.unwrap(),
                        dst_host: to,
                        ttl: INITIAL_TTL,
                        ecn: if seg.ect { Ecn::Ect0 } else { Ecn::NotEct },
                        ip_id,
                        conn: c,
                        reverse: seg.reverse,
                        src_port: sp,
                        dst_port: dp,
                        seq: seg.seq,
                        ack: seg.ack,
                        seq_off: seg.seq_off,
                        ack_off: seg.ack_off,
                        flags: seg.flags,
                        window: seg.window,
                        wscale: seg.wscale,
                        mss: seg.mss,
                        sack_permitted: seg.sack_permitted,
                        sack: seg.sack,
                        ts: seg.ts,
                        payload: seg.payload,
                        encoded: None,
                        detour: None,
                        hop_draw: None,
                        ib: None,
                        credit_of: None,
                    };
                    let frame = pkt.frame_len();
                    let ns = &mut self.node_stats[from as usize];
                    ns.packets_sent += 1;
                    ns.bytes_sent += frame;
                    let id = self.packets.insert(pkt);
                    self.send_on_port(route.port, id, from);
                }
                TcpAction::ScheduleTimer(kind, at) => self.queue.push(at, Event::Timer(c, kind)),
                TcpAction::Deliver(rec, bytes) => self.deliver(rec, bytes),
            }
        }
    }

    fn deliver(&mut self, rec: MessageRecord, bytes: Bytes) {
        let host = self.host_of(rec.dst);
        self.node_stats[host as usize].messages_received += 1;
        self.messages_delivered += 1;
        self.deliveries.push(Delivery {
            id: rec.id,
            src: rec.src,
            dst: rec.dst,
            bytes,
            injected_at: rec.injected_at,
            delivered_at: self.now,
        });
    }

    fn send_on_port(&mut self, port: PortId, pkt: PacketId, node: NodeId) {
        if self.port_dead(port) {
            // Forwarding still points at a link that failed (routing has
            // not converged yet): the frame is lost.
            self.drop_unroutable(node, pkt);
            return;
        }
        if !self.tx[port as usize].wire.is_busy() && self.may_send(port) {
            self.start_tx(port, pkt);
            return;
        }
        let p = self.packets.get(pkt);
        let (frame, ecn_capable) = (p.frame_len(), p.ecn.is_capable());
        let t = &mut self.tx[port as usize];
        match t.queue.enqueue_ecn(pkt, frame, ecn_capable, self.now) {
            Admission::Queued => {}
            Admission::Marked => {
                let p = self.packets.get_mut(pkt);
                p.ecn = Ecn::Ce;
                p.encoded = None; // captured bytes so far show it unmarked
                self.link_stats[port as usize].ecn_marks += 1;
            }
            Admission::DroppedEarly => {
                self.link_stats[port as usize].drops_early += 1;
                self.node_stats[node as usize].drops_early += 1;
                self.packets.remove(pkt);
                return;
            }
            Admission::DroppedFull => {
                self.link_stats[port as usize].drops_queue += 1;
                self.node_stats[node as usize].drops_queue += 1;
                self.packets.remove(pkt);
                return;
            }
        }
        let ls = &mut self.link_stats[port as usize];
        ls.peak_queue_packets = t.queue.peak_packets();
        ls.peak_queue_bytes = t.queue.peak_bytes();
    }

    fn start_tx(&mut self, port: PortId, pkt: PacketId) {
        self.on_lossless_departure(port, pkt);
        (self.captures).departed(port, self.now, self.packets.get_mut(pkt));
        let p = self.packets.get(pkt);
        let params = self.net.links[self.net.ports[port as usize].link as usize].params;
        let (wire_len, frame_len) = (p.wire_len(), p.frame_len());
        let payload_len = p.payload.len() as u64;
        let wire = self.tx[port as usize]
            .wire
            .start(pkt, wire_len, params.rate_bps);
        let ls = &mut self.link_stats[port as usize];
        ls.packets += 1;
        ls.bytes += frame_len;
        ls.payload_bytes += payload_len;
        ls.busy_ns += wire.0;
        let epoch = self.link_epoch(port);
        self.queue.push(self.now + wire, Event::TxDone(port, epoch));
    }

    /// How often the link of `port` has died (0 without faults).
    fn link_epoch(&self, port: PortId) -> u32 {
        match &self.faults {
            Some(f) => f.epoch(self.net.ports[port as usize].link),
            None => 0,
        }
    }

    /// True while the link of `port` is dead.
    fn port_dead(&self, port: PortId) -> bool {
        self.faults
            .as_ref()
            .is_some_and(|f| f.is_dead(self.net.ports[port as usize].link))
    }

    fn on_tx_done(&mut self, port: PortId, epoch: u32) {
        if epoch != self.link_epoch(port) {
            return; // the link died during the transmission: frame already counted lost
        }
        let pkt = self.tx[port as usize]
            .wire
            .finish()
            .expect("transmitter was busy");
        let pinfo = &self.net.ports[port as usize];
        let params = self.net.links[pinfo.link as usize].params;
        let lost = params.loss > 0.0 && self.rng.next_f64() < params.loss;
        if lost {
            self.link_stats[port as usize].drops_loss += 1;
            self.packets.remove(pkt);
        } else {
            let at = self.now + Nanos(params.delay_ns) + self.forwarding_latency(port);
            self.queue.push(at, Event::Arrive(pinfo.peer, pkt, epoch));
        }
        if !self.tx[port as usize].queue.is_empty() && self.may_send(port) {
            if let Some(next) = self.tx[port as usize].queue.dequeue(self.now) {
                self.start_tx(port, next);
            }
        }
        self.wake_waiting(port);
    }

    /// Lets connections waiting for room in `port`'s queue send again.
    fn wake_waiting(&mut self, port: PortId) {
        if self.is_lossless() {
            self.rdma_wake(port);
            return;
        }
        if !self.waiting_on_port[port as usize].is_empty() {
            while self.tx[port as usize].queue.room() > 0
                && self.tx[port as usize].queue.len() < self.nic_queue_packets
            {
                let Some(c) = self.waiting_on_port[port as usize].pop_front() else {
                    break;
                };
                self.conns[c as usize].waiting = false;
                self.poll_conn(c);
            }
        }
    }

    fn on_arrive(&mut self, port: PortId, pkt: PacketId, epoch: u32) {
        if epoch != self.link_epoch(port) {
            // The link died while the frame was propagating on it.
            let from = self.net.ports[port as usize].peer;
            self.link_stats[from as usize].drops_down += 1;
            self.packets.remove(pkt);
            return;
        }
        (self.captures).arrived(port, self.now, self.packets.get_mut(pkt));
        let node = self.net.ports[port as usize].node;
        match self.net.nodes[node as usize].kind {
            NodeKind::Host => self.host_receive(node, port, pkt),
            NodeKind::Switch(mode) => self.switch_forward(node, port, pkt, mode),
            NodeKind::Router => self.router_forward(node, port, pkt),
        }
    }

    fn host_receive(&mut self, node: NodeId, port: PortId, pkt: PacketId) {
        let p = self.packets.get(pkt);
        if p.dst_mac != self.net.ports[port as usize].mac {
            self.packets.remove(pkt); // a flooded frame meant for someone else
            return;
        }
        if p.dst_host != node {
            self.node_stats[node as usize].drops_unroutable += 1;
            self.packets.remove(pkt);
            return;
        }
        if p.ib.is_some() {
            self.rdma_receive(pkt);
            return;
        }
        let p = self.packets.remove(pkt);
        let ns = &mut self.node_stats[node as usize];
        ns.packets_received += 1;
        ns.bytes_received += p.frame_len();
        let c = p.conn;
        let mut actions = std::mem::take(&mut self.actions);
        if p.reverse {
            self.conns[c as usize]
                .tcp
                .on_sender_segment(self.now, &p, &mut actions);
        } else {
            self.conns[c as usize]
                .tcp
                .on_receiver_segment(self.now, &p, &mut actions);
        }
        self.apply(c, &mut actions);
        self.actions = actions;
        if p.reverse {
            self.poll_conn(c);
        }
    }

    fn forward(&mut self, node: NodeId, out: PortId, pkt: PacketId) {
        let ns = &mut self.node_stats[node as usize];
        ns.packets_forwarded += 1;
        ns.bytes_forwarded += self.packets.get(pkt).frame_len();
        self.send_on_port(out, pkt, node);
    }

    fn drop_unroutable(&mut self, node: NodeId, pkt: PacketId) {
        self.node_stats[node as usize].drops_unroutable += 1;
        self.packets.remove(pkt);
    }

    fn switch_forward(&mut self, node: NodeId, in_port: PortId, pkt: PacketId, mode: SwitchMode) {
        let dst = self.packets.get(pkt).dst_mac;
        let out = match mode {
            SwitchMode::Static => {
                let dst_host = self.packets.get(pkt).dst_host;
                let spread = self.switch_spread(pkt);
                (self.routes()).next_port_spread(&self.net, node, dst_host, spread)
            }
            SwitchMode::Learning => {
                let src = self.packets.get(pkt).src_mac;
                self.learned[node as usize].insert(src, in_port);
                let known = self.learned[node as usize].get(&dst).copied();
                if known.is_none() {
                    // Flood a copy out of every other port.
                    let ports: Vec<PortId> = self.net.nodes[node as usize].ports.clone();
                    let original = self.packets.remove(pkt);
                    for p in ports.into_iter().filter(|&p| p != in_port) {
                        let copy = self.packets.insert(original.clone());
                        self.forward(node, p, copy);
                    }
                    return;
                }
                known
            }
        };
        match out {
            Some(p) if p != in_port => self.forward(node, p, pkt),
            _ => self.drop_unroutable(node, pkt),
        }
    }

    fn router_forward(&mut self, node: NodeId, in_port: PortId, pkt: PacketId) {
        let p = self.packets.get(pkt);
        if p.dst_mac != self.net.ports[in_port as usize].mac {
            self.packets.remove(pkt);
            return;
        }
        let route = match self.adaptive_detour(node, in_port, pkt) {
            Some(via) => self.detour_route(node, via),
            None => {
                let spread = self.packet_spread(pkt);
                let dst = self.packets.get(pkt).dst_host;
                (self.routes()).route_spread(&self.net, node, dst, spread)
            }
        };
        let p = self.packets.get(pkt);
        let Some(route) = route.filter(|_| p.ttl > 1) else {
            self.drop_unroutable(node, pkt);
            return;
        };
        let src_mac = self.net.ports[route.port as usize].mac;
        let p = self.packets.get_mut(pkt);
        p.ttl -= 1;
        p.encoded = None;
        p.src_mac = src_mac;
        p.dst_mac = route.next_hop_mac;
        self.forward(node, route.port, pkt);
    }

    // ---- faults (see crate::faults) ----

    /// The time of the next event, after applying every fault-schedule
    /// entry due at or before it (faults at the same time as an event come
    /// first). Faults are never applied ahead of an event, so an idle
    /// simulation stays idle.
    fn next_time_with_faults(&mut self) -> Option<Nanos> {
        loop {
            let next = self.next_event_time()?;
            match self.faults.as_ref().and_then(|f| f.next_time()) {
                Some(ft) if ft <= next => self.apply_next_fault(),
                _ => return Some(next),
            }
        }
    }

    /// Applies every fault-schedule entry due at or before `t`.
    fn apply_faults_until(&mut self, t: Nanos) {
        while self
            .faults
            .as_ref()
            .and_then(|f| f.next_time())
            .is_some_and(|ft| ft <= t)
        {
            self.apply_next_fault();
        }
    }

    fn apply_next_fault(&mut self) {
        let Some(f) = self.faults.as_mut() else {
            return;
        };
        let mut effects = std::mem::take(&mut self.fault_effects);
        f.apply_next(&mut self.now, &mut self.net, &self.rank_hosts, &mut effects);
        self.carry_out(&mut effects);
        self.fault_effects = effects;
    }

    /// Does what the faults asked, in order.
    fn carry_out(&mut self, effects: &mut Vec<Effect>) {
        let now = self.now;
        for e in effects.drain(..) {
            match e {
                Effect::LinkDied(l) => {
                    for port in self.net.links[l as usize].ends {
                        let lost = &mut self.link_stats[port as usize].drops_down;
                        let tx = &mut self.tx[port as usize];
                        for pkt in tx
                            .wire
                            .finish()
                            .into_iter()
                            .chain(std::iter::from_fn(|| tx.queue.dequeue(now)))
                        {
                            self.packets.remove(pkt);
                            *lost += 1;
                        }
                    }
                }
                Effect::LinkRevived(l) => {
                    for port in self.net.links[l as usize].ends {
                        self.wake_waiting(port);
                    }
                }
                Effect::NodeForgot(n) => self.learned[n as usize].clear(),
                Effect::Rerouted => self.reroute(),
                Effect::Note(line) => self.captures.note(self.now, &line),
            }
        }
    }

    /// New forwarding tables are in force: every connection's first hops
    /// follow them, and switches learn addresses again.
    fn reroute(&mut self) {
        let routes = self.routes();
        let firsts: Vec<(Option<Route>, Option<Route>)> = self
            .conns
            .iter()
            .map(|e| {
                let flow = self.flow_key(e.src_host, e.dst_host, e.src_port, e.dst_port);
                let (there, back) = (routes.spread(&flow), routes.spread(&flow.reversed()));
                (
                    routes.route_spread(&self.net, e.src_host, e.dst_host, there),
                    routes.route_spread(&self.net, e.dst_host, e.src_host, back),
                )
            })
            .collect();
        for (e, (fwd, rev)) in self.conns.iter_mut().zip(firsts) {
            e.fwd = fwd;
            e.rev = rev;
        }
        for l in &mut self.learned {
            l.clear();
        }
    }

    /// A message entered connection `c`: if it must cross a partition,
    /// make sure its wait is checked.
    fn note_partition_traffic(&mut self, c: ConnId) {
        if let Some(f) = self.faults.as_mut() {
            let e = &self.conns[c as usize];
            f.note_traffic(self.now, e.src_host, e.dst_host);
        }
    }

    /// Ends the run if a message has waited the partition timeout to cross
    /// the partition; otherwise arms the next check.
    fn check_partition(&mut self) {
        let f = self.faults.as_mut().expect("faults are set");
        let conns = self.conns.iter().map(|e| Crossing {
            src_host: e.src_host,
            dst_host: e.dst_host,
            src_rank: e.src_rank,
            dst_rank: e.dst_rank,
            oldest_undelivered: e.tcp.oldest_undelivered(),
        });
        let mut effects = std::mem::take(&mut self.fault_effects);
        let failure = f.check_partition(self.now, &self.net, &self.rank_hosts, conns, &mut effects);
        self.carry_out(&mut effects);
        self.fault_effects = effects;
        if failure.is_some() {
            self.failure = failure;
        }
    }

    /// Everything counted so far.
    pub fn stats(&self) -> SimStats {
        SimStats {
            simulated_ns: self.now.0,
            events: self.events_run,
            messages_injected: self.messages_injected,
            messages_delivered: self.messages_delivered,
            nodes: self
                .node_stats
                .iter()
                .zip(&self.net.nodes)
                .map(|(st, n)| NodeStats {
                    name: n.name.clone(),
                    kind: match n.kind {
                        NodeKind::Host => "host",
                        NodeKind::Switch(_) => "switch",
                        NodeKind::Router => "router",
                    }
                    .into(),
                    ..st.clone()
                })
                .collect(),
            links: self
                .link_stats
                .iter()
                .zip(&self.net.ports)
                .map(|(st, p)| LinkDirectionStats {
                    link: self.net.links[p.link as usize].name.clone(),
                    from_port: p.name.clone(),
                    ..st.clone()
                })
                .collect(),
            network_events: self.network_events().to_vec(),
            network_events_unrecorded: self.faults.as_ref().map_or(0, |f| f.unrecorded()),
            flowlets: self.flowlets.decisions,
            detoured_flowlets: self.flowlets.detoured,
            connections: self
                .conns
                .iter()
                .map(|e| ConnectionReport {
                    src_rank: e.src_rank,
                    dst_rank: e.dst_rank,
                    stats: e.tcp.stats.clone(),
                })
                .collect(),
        }
    }
}
