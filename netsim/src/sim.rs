//! The simulator: an event loop over the network graph, its transmitters,
//! switches, routers and TCP connections, driven entirely by the caller.

use crate::addr::MacAddr;
use crate::capture::{self, CaptureFile, Direction, HostNames};
use crate::config::{ConfigError, NetworkConfig, SwitchMode};
use crate::event::EventQueue;
use crate::fasthash::FastMap;
use crate::packet::{ConnId, Packet, PacketArena, PacketId};
use crate::rng::SimRng;
use crate::routing::{Route, Routing};
use crate::stats::{ConnectionReport, LinkDirectionStats, NodeStats, SimStats};
use crate::tcp::{MessageId, MessageRecord, TcpAction, TcpConnection, TcpParams, TimerKind};
use crate::time::{serialization_time, Nanos};
use crate::topology::{Network, NodeId, NodeKind, PortId};
use crate::transmitter::Transmitter;
use bytes::Bytes;
use std::collections::VecDeque;

/// A message that reached its destination rank.
#[derive(Clone, Debug)]
pub struct Delivery {
    /// The id `inject` returned.
    pub id: MessageId,
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// The message bytes, reassembled from the segments that carried them.
    pub bytes: Bytes,
    /// Virtual time it was injected.
    pub injected_at: Nanos,
    /// Virtual time its last byte arrived in order.
    pub delivered_at: Nanos,
}

/// Why a message could not be injected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InjectError {
    /// A rank number outside 0..ranks.
    #[error("rank {rank} does not exist; the job has {ranks} ranks")]
    NoSuchRank {
        /// The rank given.
        rank: u32,
        /// Ranks in the job.
        ranks: u32,
    },
    /// No route joins the two ranks' hosts.
    #[error(
        "no route from rank {src}'s host to rank {dst}'s host; connect them in the network file"
    )]
    Unreachable {
        /// Source rank.
        src: u32,
        /// Destination rank.
        dst: u32,
    },
    /// Empty messages carry nothing on TCP and could never be delivered.
    #[error("a message must hold at least one byte")]
    Empty,
}

/// What kind of event ran: the gateway reports which kind ran latest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventClass {
    /// A message entered its connection.
    Inject,
    /// A frame finished serialising onto a link.
    TransmitDone,
    /// A frame arrived at a port.
    Arrival,
    /// A TCP timer (retransmission or delayed ACK).
    TcpTimer,
    /// A message between ranks of one host arrived.
    LocalDelivery,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Inject(MessageId),
    TxDone(PortId),
    Arrive(PortId, PacketId),
    Timer(ConnId, TimerKind),
    LocalDeliver(MessageId),
}

struct ConnEntry {
    tcp: TcpConnection,
    src_rank: u32,
    dst_rank: u32,
    src_host: NodeId,
    dst_host: NodeId,
    fwd: Route,
    rev: Route,
    src_port: u16,
    dst_port: u16,
    waiting: bool,
}

/// The packet-level simulation of one network with a fixed set of ranks.
pub struct Simulator {
    net: Network,
    routes: Routing,
    queue: EventQueue<Event>,
    now: Nanos,
    events_run: u64,
    packets: PacketArena,
    tx: Vec<Transmitter>,
    learned: Vec<FastMap<MacAddr, PortId>>,
    conns: Vec<ConnEntry>,
    conn_index: FastMap<(u32, u32), ConnId>,
    rank_hosts: Vec<NodeId>,
    pending: FastMap<MessageId, (MessageRecord, Bytes)>,
    deliveries: Vec<Delivery>,
    node_stats: Vec<NodeStats>,
    link_stats: Vec<LinkDirectionStats>,
    vectors: Option<crate::vectors::VectorRecorder>,
    captures: Vec<CaptureFile>,
    capture_of_port: Vec<Option<(u32, u32)>>,
    rng: SimRng,
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
}

/// Initial TTL of packets leaving a host.
pub const INITIAL_TTL: u8 = 64;
/// TCP port a rank listens on: 35000 + rank (a range no Wireshark dissector claims).
pub const LISTEN_PORT_BASE: u16 = 35_000;
/// TCP port a rank connects from: 50000 + rank (likewise unclaimed).
pub const CONNECT_PORT_BASE: u16 = 50_000;
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
        let rank_hosts = net.place_ranks(cfg, n_ranks, origin)?;
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
        };
        let mut sim = Simulator::new(net, rank_hosts, tcp_params, cfg.seed);
        sim.nic_queue_packets = cfg.tcp.nic_queue_packets.max(1) as usize;
        sim.intra_latency = Nanos(cfg.intra_host.latency.0);
        sim.intra_rate_bps = cfg.intra_host.rate.0;
        let plan = capture::plan(&sim.net, &sim.rank_hosts, &cfg.capture, origin)?;
        if capture {
            sim.set_captures(plan);
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
            .map(|p| {
                let l = &net.links[p.link as usize].params;
                Transmitter::new(l.queue_packets, l.queue_bytes)
            })
            .collect();
        let node_stats = net
            .nodes
            .iter()
            .map(|n| NodeStats {
                name: n.name.clone(),
                kind: match n.kind {
                    NodeKind::Host => "host",
                    NodeKind::Switch(_) => "switch",
                    NodeKind::Router => "router",
                }
                .into(),
                ..Default::default()
            })
            .collect();
        let link_stats = net
            .ports
            .iter()
            .map(|p| LinkDirectionStats {
                link: net.links[p.link as usize].name.clone(),
                from_port: p.name.clone(),
                ..Default::default()
            })
            .collect();
        Simulator {
            learned: vec![FastMap::default(); net.nodes.len()],
            capture_of_port: vec![None; net.ports.len()],
            waiting_on_port: vec![VecDeque::new(); net.ports.len()],
            ip_ids: vec![0; net.nodes.len()],
            routes,
            queue: EventQueue::default(),
            now: Nanos::ZERO,
            events_run: 0,
            packets: PacketArena::default(),
            tx,
            conns: Vec::new(),
            conn_index: FastMap::default(),
            rank_hosts,
            pending: FastMap::default(),
            deliveries: Vec::new(),
            node_stats,
            link_stats,
            vectors: None,
            captures: Vec::new(),
            rng: SimRng::new(seed ^ 0x6d70_696e_6574_7369),
            tcp_params,
            nic_queue_packets: 32,
            intra_latency: Nanos(1_000),
            intra_rate_bps: 0,
            intra_last: FastMap::default(),
            next_msg_id: 0,
            actions: Vec::new(),
            messages_injected: 0,
            messages_delivered: 0,
            net,
        }
    }

    /// Records frames into the files of `plan` (see [`capture::plan`]),
    /// replacing any capture set up before.
    pub fn set_captures(&mut self, plan: capture::CapturePlan) {
        self.captures = plan.files;
        self.capture_of_port = plan.of_port;
    }

    /// The names every host address resolves to ("rank0", …, the host's
    /// name), as written into pcapng name resolution blocks.
    pub fn host_names(&self) -> Vec<HostNames> {
        capture::host_names(&self.net, &self.rank_hosts)
    }

    /// The network graph being simulated.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Forwarding tables in use.
    pub fn routes(&self) -> &Routing {
        &self.routes
    }

    /// Host node of each rank.
    pub fn rank_hosts(&self) -> &[NodeId] {
        &self.rank_hosts
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

    /// Time of the next pending event.
    pub fn next_event_time(&self) -> Option<Nanos> {
        self.queue.peek_time()
    }

    /// Capture files (drain their bytes with `drain_to` or `take_bytes`).
    pub fn captures_mut(&mut self) -> &mut [CaptureFile] {
        &mut self.captures
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
        for rank in [src, dst] {
            if rank >= ranks {
                return Err(InjectError::NoSuchRank { rank, ranks });
            }
        }
        if bytes.is_empty() {
            return Err(InjectError::Empty);
        }
        let (hs, hd) = (self.rank_hosts[src as usize], self.rank_hosts[dst as usize]);
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

    /// Moves the messages delivered so far into `out`.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        out.append(&mut self.deliveries);
    }

    /// Runs every event scheduled at or before `t`, then sets the clock to `t`.
    pub fn advance_to(&mut self, t: Nanos) {
        while self.queue.peek_time().is_some_and(|e| e <= t) {
            self.step();
        }
        self.sample_until(t);
        self.now = self.now.max(t);
    }

    /// Starts recording time series every `interval` of virtual time (see
    /// [`crate::vectors`]); drain them with [`Simulator::take_samples`].
    pub fn enable_vectors(&mut self, interval: Nanos) {
        let mut rec = crate::vectors::VectorRecorder::new(interval, self.net.ports.len());
        while rec.next <= self.now {
            rec.next = Nanos(rec.next.0 + interval.0);
        }
        self.vectors = Some(rec);
    }

    /// The samples recorded since the last call.
    pub fn take_samples(&mut self) -> crate::vectors::Samples {
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
                    tx.len() as u32,
                    tx.queued_bytes(),
                    self.link_stats[port].busy_ns,
                );
            }
            for (c, e) in self.conns.iter().enumerate() {
                rec.tcp(
                    c,
                    crate::vectors::TcpSample {
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
        if let Some(t) = self.queue.peek_time() {
            self.sample_until(t);
        }
        let (t, ev) = self.queue.pop()?;
        let class = match ev {
            Event::Inject(_) => EventClass::Inject,
            Event::TxDone(_) => EventClass::TransmitDone,
            Event::Arrive(..) => EventClass::Arrival,
            Event::Timer(..) => EventClass::TcpTimer,
            Event::LocalDeliver(_) => EventClass::LocalDelivery,
        };
        self.now = t;
        self.events_run += 1;
        match ev {
            Event::Inject(id) => self.on_inject(id),
            Event::TxDone(port) => self.on_tx_done(port),
            Event::Arrive(port, pkt) => self.on_arrive(port, pkt),
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
        }
        Some((t, class))
    }

    fn on_inject(&mut self, id: MessageId) {
        let (rec, _) = &self.pending[&id];
        let (src, dst) = (rec.src, rec.dst);
        let (hs, hd) = (self.rank_hosts[src as usize], self.rank_hosts[dst as usize]);
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
        let c = self.connection(src, dst);
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
        let (hs, hd) = (self.rank_hosts[src as usize], self.rank_hosts[dst as usize]);
        let iss = self.rng.next_u64() as u32;
        let r_iss = self.rng.next_u64() as u32;
        let c = self.conns.len() as ConnId;
        self.conns.push(ConnEntry {
            tcp: TcpConnection::new(self.tcp_params.clone(), iss, r_iss),
            src_rank: src,
            dst_rank: dst,
            src_host: hs,
            dst_host: hd,
            fwd: self
                .routes
                .route(&self.net, hs, hd)
                .expect("checked at inject"),
            rev: self
                .routes
                .route(&self.net, hd, hs)
                .expect("checked at inject"),
            src_port: CONNECT_PORT_BASE + src as u16,
            dst_port: LISTEN_PORT_BASE + dst as u16,
            waiting: false,
        });
        self.conn_index.insert((src, dst), c);
        c
    }

    fn poll_conn(&mut self, c: ConnId) {
        let port = self.conns[c as usize].fwd.port;
        let t = &self.tx[port as usize];
        let room = t.room().min(self.nic_queue_packets.saturating_sub(t.len()))
            + usize::from(t.busy.is_none() && t.is_empty());
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
                        payload: seg.payload,
                        encoded: None,
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
        let host = self.rank_hosts[rec.dst as usize];
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
        let t = &mut self.tx[port as usize];
        if t.busy.is_none() {
            self.start_tx(port, pkt);
            return;
        }
        let frame = self.packets.get(pkt).frame_len();
        if !t.enqueue(pkt, frame) {
            self.link_stats[port as usize].drops_queue += 1;
            self.node_stats[node as usize].drops_queue += 1;
            self.packets.remove(pkt);
            return;
        }
        let ls = &mut self.link_stats[port as usize];
        ls.peak_queue_packets = t.peak_packets;
        ls.peak_queue_bytes = t.peak_bytes;
    }

    fn start_tx(&mut self, port: PortId, pkt: PacketId) {
        if let Some((fi, ii)) = self.capture_of_port[port as usize] {
            self.captures[fi as usize].record(
                ii,
                Direction::Outbound,
                self.now,
                self.packets.get_mut(pkt),
            );
        }
        let p = self.packets.get(pkt);
        let params = self.net.links[self.net.ports[port as usize].link as usize].params;
        let wire = serialization_time(p.wire_len(), params.rate_bps);
        let ls = &mut self.link_stats[port as usize];
        ls.packets += 1;
        ls.bytes += p.frame_len();
        ls.busy_ns += wire.0;
        self.tx[port as usize].busy = Some(pkt);
        self.queue.push(self.now + wire, Event::TxDone(port));
    }

    fn on_tx_done(&mut self, port: PortId) {
        let pkt = self.tx[port as usize]
            .busy
            .take()
            .expect("transmitter was busy");
        let pinfo = &self.net.ports[port as usize];
        let params = self.net.links[pinfo.link as usize].params;
        let lost = params.loss > 0.0 && self.rng.next_f64() < params.loss;
        if lost {
            self.link_stats[port as usize].drops_loss += 1;
            self.packets.remove(pkt);
        } else {
            self.queue.push(
                self.now + Nanos(params.delay_ns),
                Event::Arrive(pinfo.peer, pkt),
            );
        }
        if let Some(next) = self.tx[port as usize].dequeue() {
            self.start_tx(port, next);
        }
        if !self.waiting_on_port[port as usize].is_empty() {
            while self.tx[port as usize].room() > 0
                && self.tx[port as usize].len() < self.nic_queue_packets
            {
                let Some(c) = self.waiting_on_port[port as usize].pop_front() else {
                    break;
                };
                self.conns[c as usize].waiting = false;
                self.poll_conn(c);
            }
        }
    }

    fn on_arrive(&mut self, port: PortId, pkt: PacketId) {
        if let Some((fi, ii)) = self.capture_of_port[port as usize] {
            self.captures[fi as usize].record(
                ii,
                Direction::Inbound,
                self.now,
                self.packets.get_mut(pkt),
            );
        }
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
                self.routes.switch_port(&self.net, node, dst_host)
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
        let route = self.routes.route(&self.net, node, p.dst_host);
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

    /// Everything counted so far.
    pub fn stats(&self) -> SimStats {
        SimStats {
            simulated_ns: self.now.0,
            events: self.events_run,
            messages_injected: self.messages_injected,
            messages_delivered: self.messages_delivered,
            nodes: self.node_stats.clone(),
            links: self.link_stats.clone(),
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
