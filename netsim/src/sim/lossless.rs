//! The lossless fabric in the simulator (`fabric = "lossless"`): credit
//! flow control on every link ([`crate::wire::credits`]), a forwarding
//! latency at every switch and router, and the RDMA-like message
//! transport ([`crate::rdma`]) between ranks instead of TCP.
//!
//! Every port's queue is unbounded here: what bounds it is the credits of
//! the links feeding its node (each input link brings at most `credits`
//! packets), so the fabric never drops. A host's port takes at most the
//! NIC queue's `nic_queue_packets` from its queue pairs, as with TCP.

use super::{Event, Simulator};
use crate::base::fasthash::FastMap;
use crate::base::time::Nanos;
use crate::config::{ConfigError, FabricKind, NetworkConfig};
use crate::rdma::{RdmaConnection, RdmaSegment, SendPart};
use crate::tcp::MessageRecord;
use crate::topology::routing::Route;
use crate::topology::{NodeId, NodeKind, PortId};
use crate::wire::credits::Credits;
use crate::wire::infiniband::{lid, queue_pair, IbHeader, IbOpcode};
use crate::wire::packet::{connection_ports, Packet, PacketId};
use crate::wire::queue::{DropTail, PortQueue, QueueDiscipline};
use bytes::Bytes;
use std::collections::VecDeque;

/// InfiniBand MTUs: the payload sizes a lossless fabric's packets may have.
pub const IB_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];

/// One queue pair between two ranks.
struct QueuePair {
    qp: RdmaConnection<MessageRecord>,
    src_host: NodeId,
    dst_host: NodeId,
    /// First hop from the source host.
    fwd: Option<Route>,
    src_port: u16,
    dst_port: u16,
    dest_qp: u32,
    waiting: bool,
}

/// The lossless fabric's state.
pub(super) struct Lossless {
    credits: Credits,
    switch_latency: Nanos,
    mtu: u32,
    qps: Vec<QueuePair>,
    /// The LID of every node (hosts only; 0 elsewhere).
    lids: Vec<u16>,
    index: FastMap<(u32, u32), usize>,
    /// Queue pairs waiting for room at a host's port.
    waiting: FastMap<PortId, VecDeque<usize>>,
    segments: Vec<RdmaSegment>,
}

/// Checks `[lossless]` and what the lossless fabric cannot do.
pub(super) fn check(
    cfg: &NetworkConfig,
    net: &crate::topology::Network,
    origin: &str,
) -> Result<(), ConfigError> {
    if cfg.fabric != FabricKind::Lossless {
        return Ok(());
    }
    let l = &cfg.lossless;
    if l.credits == 0 {
        return Err(ConfigError(format!(
            "{origin}: `lossless.credits` is 0; a port needs at least one credit to send (the receiving buffer in packets; 16 is typical)"
        )));
    }
    if !IB_MTUS.contains(&l.mtu) {
        return Err(ConfigError(format!(
            "{origin}: `lossless.mtu` is {}; InfiniBand's MTU is one of 256, 512, 1024, 2048 or 4096 bytes",
            l.mtu
        )));
    }
    if !cfg.fault_entries.is_empty() {
        return Err(ConfigError(format!(
            "{origin}: `fabric = \"lossless\"` has no retransmission, so a failed link would lose messages for good; remove the [[fault]] entries or use fabric = \"ethernet\""
        )));
    }
    if let Some(link) = net.links.iter().find(|l| l.params.loss > 0.0) {
        return Err(ConfigError(format!(
            "{origin}: link {} has `loss` {} but `fabric = \"lossless\"` has no retransmission; remove `loss` or use fabric = \"ethernet\"",
            link.name, link.params.loss
        )));
    }
    Ok(())
}

impl Lossless {
    /// The state for a network with `ports` ports.
    pub(super) fn new(cfg: &NetworkConfig, net: &crate::topology::Network) -> Lossless {
        let mut lids = vec![0; net.nodes.len()];
        for (i, &h) in net.hosts.iter().enumerate() {
            lids[h as usize] = lid(i as u32);
        }
        let ports = net.ports.len();
        Lossless {
            lids,
            credits: Credits::new(ports, cfg.lossless.credits),
            switch_latency: Nanos(cfg.lossless.switch_latency.0),
            mtu: cfg.lossless.mtu,
            qps: Vec::new(),
            index: FastMap::default(),
            waiting: FastMap::default(),
            segments: Vec::new(),
        }
    }
}

impl Simulator {
    /// Switches this simulator to the lossless fabric of `cfg`.
    pub(super) fn make_lossless(&mut self, cfg: &NetworkConfig) {
        for t in &mut self.tx {
            t.queue = PortQueue::DropTail(DropTail::new(u32::MAX, u64::MAX));
        }
        self.lossless = Some(Box::new(Lossless::new(cfg, &self.net)));
    }

    /// True on the lossless fabric.
    pub(super) fn is_lossless(&self) -> bool {
        self.lossless.is_some()
    }

    /// Queues message `rec` on its queue pair and sends what fits.
    pub(super) fn rdma_send(&mut self, rec: MessageRecord, bytes: Bytes) {
        let qp = self.queue_pair(rec.src, rec.dst);
        let l = self.lossless.as_mut().expect("lossless fabric");
        l.qps[qp].qp.app_send(rec, bytes);
        self.rdma_poll(qp);
    }

    fn queue_pair(&mut self, src: u32, dst: u32) -> usize {
        let (hs, hd) = (self.host_of(src), self.host_of(dst));
        let l = self.lossless.as_ref().expect("lossless fabric");
        if let Some(&i) = l.index.get(&(src, dst)) {
            return i;
        }
        let (src_port, dst_port) = connection_ports(src, dst);
        let flow = self.flow_key(hs, hd, src_port, dst_port);
        let fwd = (self.routes()).route_spread(&self.net, hs, hd, self.routes().spread(&flow));
        let mtu = l.mtu;
        let l = self.lossless.as_mut().expect("lossless fabric");
        let i = l.qps.len();
        l.qps.push(QueuePair {
            qp: RdmaConnection::new(mtu),
            src_host: hs,
            dst_host: hd,
            fwd,
            src_port,
            dst_port,
            dest_qp: queue_pair(src),
            waiting: false,
        });
        l.index.insert((src, dst), i);
        i
    }

    /// Sends as many packets of queue pair `i` as its host's port has room
    /// for; waits for room otherwise.
    fn rdma_poll(&mut self, i: usize) {
        let l = self.lossless.as_mut().expect("lossless fabric");
        let Some(route) = l.qps[i].fwd else {
            return;
        };
        let port = route.port;
        let t = &self.tx[port as usize];
        let room = self.nic_queue_packets.saturating_sub(t.queue.len()) + usize::from(t.is_idle());
        let mut segments = std::mem::take(&mut l.segments);
        let blocked = l.qps[i].qp.poll_transmit(room, &mut segments);
        let q = &l.qps[i];
        let (from, to) = (q.src_host, q.dst_host);
        let (sp, dp, dest_qp) = (q.src_port, q.dst_port, q.dest_qp);
        let lids = (l.lids[from as usize], l.lids[to as usize]);
        for seg in segments.drain(..) {
            let pkt = Packet {
                src_mac: self.net.ports[port as usize].mac,
                dst_mac: route.next_hop_mac,
                src_ip: self.net.nodes[from as usize].ip.unwrap(),
                dst_ip: self.net.nodes[to as usize].ip.unwrap(),
                dst_host: to,
                ttl: super::INITIAL_TTL,
                ip_id: 0,
                conn: i as u32,
                reverse: false,
                src_port: sp,
                dst_port: dp,
                seq: 0,
                ack: 0,
                seq_off: seg.offset,
                ack_off: 0,
                flags: Default::default(),
                window: 0,
                wscale: None,
                mss: None,
                sack_permitted: false,
                ts: None,
                ecn: Default::default(),
                sack: Default::default(),
                payload: seg.payload,
                encoded: None,
                detour: None,
                hop_draw: None,
                ib: Some(IbHeader {
                    opcode: match seg.part {
                        SendPart::First => IbOpcode::SendFirst,
                        SendPart::Middle => IbOpcode::SendMiddle,
                        SendPart::Last => IbOpcode::SendLast,
                        SendPart::Only => IbOpcode::SendOnly,
                    },
                    psn: seg.psn,
                    dest_qp,
                    slid: lids.0,
                    dlid: lids.1,
                }),
                credit_of: None,
            };
            let frame = pkt.frame_len();
            let ns = &mut self.node_stats[from as usize];
            ns.packets_sent += 1;
            ns.bytes_sent += frame;
            let id = self.packets.insert(pkt);
            self.send_on_port(port, id, from);
        }
        let l = self.lossless.as_mut().expect("lossless fabric");
        l.segments = segments;
        let q = &mut l.qps[i];
        if blocked && !q.waiting {
            q.waiting = true;
            l.waiting.entry(port).or_default().push_back(i);
        }
    }

    /// Lets queue pairs waiting for room at host port `port` send again.
    pub(super) fn rdma_wake(&mut self, port: PortId) {
        loop {
            let t = &self.tx[port as usize];
            if t.queue.len() >= self.nic_queue_packets {
                return;
            }
            let l = self.lossless.as_mut().expect("lossless fabric");
            let Some(i) = l.waiting.get_mut(&port).and_then(|w| w.pop_front()) else {
                return;
            };
            l.qps[i].waiting = false;
            self.rdma_poll(i);
        }
    }

    /// True when `port` may start its next frame: always on Ethernet; on
    /// the lossless fabric, while it holds a credit (a frame that has to
    /// wait counts as a stall).
    pub(super) fn may_send(&mut self, port: PortId) -> bool {
        match self.lossless.as_mut() {
            None => true,
            Some(l) if l.credits.has(port) => true,
            Some(l) => {
                l.credits.stalled(port);
                self.link_stats[port as usize].credit_stalls += 1;
                false
            }
        }
    }

    /// `pkt` starts onto `port`: it takes one of the port's credits and
    /// gives back the one it held for the link it came in on (which
    /// travels back over that link).
    pub(super) fn on_lossless_departure(&mut self, port: PortId, pkt: PacketId) {
        let Some(l) = self.lossless.as_mut() else {
            return;
        };
        l.credits.take(port);
        let held = self.packets.get_mut(pkt).credit_of.replace(port);
        if let Some(prev) = held {
            self.return_credit(prev);
        }
    }

    /// Sends the credit of `port` back to it, one link delay from now.
    fn return_credit(&mut self, port: PortId) {
        let link = self.net.ports[port as usize].link;
        let delay = Nanos(self.net.links[link as usize].params.delay_ns);
        self.queue.push(self.now + delay, Event::CreditReturn(port));
    }

    /// A credit of `port` came back: a waiting frame may go.
    pub(super) fn on_credit_return(&mut self, port: PortId) {
        let l = self.lossless.as_mut().expect("lossless fabric");
        l.credits.give_back(port);
        if !self.tx[port as usize].wire.is_busy() {
            if let Some(next) = self.tx[port as usize].queue.dequeue(self.now) {
                self.start_tx(port, next);
                self.wake_waiting(port);
            }
        }
    }

    /// The extra time a frame crossing `port` takes to arrive: a switch's
    /// or router's forwarding latency on the lossless fabric.
    pub(super) fn forwarding_latency(&self, port: PortId) -> Nanos {
        match &self.lossless {
            Some(l) => {
                let peer = self.net.ports[port as usize].peer;
                let node = self.net.ports[peer as usize].node;
                if self.net.nodes[node as usize].kind == NodeKind::Host {
                    Nanos::ZERO
                } else {
                    l.switch_latency
                }
            }
            None => Nanos::ZERO,
        }
    }

    /// A lossless-fabric packet reached its destination host: its credit
    /// goes back and its queue pair takes the payload.
    pub(super) fn rdma_receive(&mut self, pkt: PacketId) {
        let p = self.packets.remove(pkt);
        if let Some(prev) = p.credit_of {
            self.return_credit(prev);
        }
        let ns = &mut self.node_stats[p.dst_host as usize];
        ns.packets_received += 1;
        ns.bytes_received += p.frame_len();
        let mut delivered = Vec::new();
        let l = self.lossless.as_mut().expect("lossless fabric");
        (l.qps[p.conn as usize].qp).on_segment(p.seq_off, p.payload.len() as u64, &mut delivered);
        for (rec, bytes) in delivered {
            self.deliver(rec, bytes);
        }
    }
}
