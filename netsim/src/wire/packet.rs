//! The in-memory form of a frame: header fields as values, payload shared.
//! Bytes on the wire are produced only where a capture point needs them.

use crate::base::addr::MacAddr;
use crate::base::ids::NodeId;
use crate::base::ids::PortId;
use crate::wire::infiniband::{self, IbHeader};
use bytes::Bytes;
use std::net::Ipv4Addr;

/// Ethernet II header (14) + FCS (4).
pub const ETHERNET_OVERHEAD: u64 = 18;
/// Preamble + start delimiter (8) + inter-frame gap (12): wire time per frame.
pub const ETHERNET_GAP: u64 = 20;
/// Minimum Ethernet frame including FCS.
pub const ETHERNET_MIN_FRAME: u64 = 64;
/// IPv4 header without options.
pub const IPV4_HEADER: u64 = 20;
/// TCP header without options.
pub const TCP_HEADER: u64 = 20;
/// TCP options carried on SYN and SYN-ACK: MSS (4) + NOP (1) + window scale (3).
pub const TCP_SYN_OPTIONS: u64 = 8;
/// The SYN options with SACK permitted (RFC 2018), laid out as Linux
/// does without timestamps: MSS (4), NOP, NOP, SACK permitted (2), NOP,
/// window scale (3).
pub const TCP_SYN_OPTIONS_SACK: u64 = 12;
/// The SYN options with timestamps (RFC 7323), with or without SACK
/// permitted, laid out as Linux does: MSS (4), SACK permitted (2) or two
/// NOPs, timestamps (10), NOP, window scale (3).
pub const TCP_SYN_OPTIONS_TIMESTAMPS: u64 = 20;
/// The timestamps option of every segment after the SYNs once both ends
/// agreed on it: NOP, NOP, kind 8, length 10, TSval, TSecr (RFC 7323
/// Appendix A's layout, as Linux sends it). Linux's segments carry 12
/// bytes less data to make room for it.
pub const TCP_TIMESTAMPS_OPTION: u64 = 12;

/// The timestamps option (RFC 7323) of one segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpTimestamps {
    /// TSval: the sender's timestamp clock when the segment left.
    pub val: u32,
    /// TSecr: the most recent TSval the sender received (TS.Recent), 0 on
    /// a SYN.
    pub ecr: u32,
}

/// TCP control flags used by the simulator.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags {
    /// Synchronise sequence numbers.
    pub syn: bool,
    /// The ack field is valid.
    pub ack: bool,
    /// Push: the segment ends the data the sender has.
    pub psh: bool,
    /// ECN-Echo (RFC 3168): on a SYN, with CWR, the offer of ECN; on a
    /// SYN-ACK, alone, its acceptance; on an ACK, congestion was seen.
    pub ece: bool,
    /// Congestion Window Reduced (RFC 3168): the sender reduced its
    /// window for an ECN-Echo (and, with ECE, offers ECN on a SYN).
    pub cwr: bool,
}

/// The ECN field of the IPv4 header (RFC 3168 §5): the two low bits of
/// the former type-of-service byte.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    /// 00: the sender does not do ECN; a queue drops it as it would have.
    #[default]
    NotEct,
    /// 10: ECN-capable transport; a marking queue may set CE instead of
    /// dropping it.
    Ect0,
    /// 11: congestion experienced, set by a queue on an ECT frame.
    Ce,
}

impl Ecn {
    /// The field's two bits.
    pub fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }

    /// True for a frame a marking queue may mark (ECT or already CE).
    pub fn is_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// Up to four SACK blocks `[start, end)` of one ACK, the first the block
/// holding the segment that triggered the ACK (RFC 2018 §4). A fixed array,
/// so a packet carries it without an allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [(u64, u64); 4],
}

impl SackBlocks {
    /// Appends a block; false (and nothing changes) when four are there.
    pub fn push(&mut self, start: u64, end: u64) -> bool {
        if self.len as usize == self.blocks.len() {
            return false;
        }
        self.blocks[self.len as usize] = (start, end);
        self.len += 1;
        true
    }

    /// The blocks, most recent first.
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True without blocks (the ACK carries no SACK option).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the SACK option takes in the TCP header: two NOPs, kind,
    /// length and 8 bytes per block; 0 without blocks.
    pub fn option_len(&self) -> u64 {
        if self.len == 0 {
            0
        } else {
            4 + 8 * self.len as u64
        }
    }
}

/// TCP port a rank listens on: 35000 + rank (a range no Wireshark dissector claims).
pub const LISTEN_PORT_BASE: u16 = 35_000;
/// TCP port a rank connects from: 50000 + rank (likewise unclaimed).
pub const CONNECT_PORT_BASE: u16 = 50_000;

/// The TCP ports of the connection from rank `src` to rank `dst`: source
/// [`CONNECT_PORT_BASE`] + `src`, destination [`LISTEN_PORT_BASE`] + `dst`,
/// both modulo 2^16 (beyond 15,535 ranks ports repeat; connections are
/// told apart by their addresses and the simulator's own ids).
pub fn connection_ports(src: u32, dst: u32) -> (u16, u16) {
    (
        CONNECT_PORT_BASE.wrapping_add(src as u16),
        LISTEN_PORT_BASE.wrapping_add(dst as u16),
    )
}

/// Identifies the TCP connection (ordered rank pair) a segment belongs to.
pub type ConnId = u32;

/// A TCP/IPv4/Ethernet frame in flight.
#[derive(Clone, Debug)]
pub struct Packet {
    /// Ethernet source (rewritten at every L3 hop).
    pub src_mac: MacAddr,
    /// Ethernet destination (the next L3 hop's interface).
    pub dst_mac: MacAddr,
    /// IPv4 source.
    pub src_ip: Ipv4Addr,
    /// IPv4 destination.
    pub dst_ip: Ipv4Addr,
    /// Destination host node (routing shortcut for `dst_ip`).
    pub dst_host: NodeId,
    /// IPv4 time to live.
    pub ttl: u8,
    /// IPv4 ECN field (RFC 3168).
    pub ecn: Ecn,
    /// IPv4 identification.
    pub ip_id: u16,
    /// Connection this segment belongs to.
    pub conn: ConnId,
    /// True when travelling from the data receiver back to the data sender.
    pub reverse: bool,
    /// TCP source port.
    pub src_port: u16,
    /// TCP destination port.
    pub dst_port: u16,
    /// TCP sequence number on the wire.
    pub seq: u32,
    /// TCP acknowledgement number on the wire.
    pub ack: u32,
    /// Stream offset of the first payload byte (sender's data stream).
    pub seq_off: u64,
    /// Stream offset acknowledged (next expected byte).
    pub ack_off: u64,
    /// Flags.
    pub flags: TcpFlags,
    /// Window field as sent (already scaled down).
    pub window: u16,
    /// Window-scale shift announced on SYN/SYN-ACK.
    pub wscale: Option<u8>,
    /// MSS announced on SYN/SYN-ACK.
    pub mss: Option<u16>,
    /// SACK permitted announced on SYN/SYN-ACK (RFC 2018).
    pub sack_permitted: bool,
    /// SACK blocks of an ACK, in the sender's stream offsets.
    pub sack: SackBlocks,
    /// Timestamps option (RFC 7323): on the SYNs of an end offering it,
    /// and on every later segment once both ends agreed.
    pub ts: Option<TcpTimestamps>,
    /// Application bytes.
    pub payload: Bytes,
    /// The frame as bytes, built by the first capture point that sees the
    /// packet and reused by the next ones; cleared when a router rewrites
    /// headers.
    pub encoded: Option<Bytes>,
    /// The dragonfly group this packet must reach before heading to its
    /// destination (a Valiant detour that adaptive routing chose at its
    /// source router); `None` on a minimal path. Not on the wire.
    pub detour: Option<u32>,
    /// Under `routing = "spray"`: the value the last router drew for this
    /// packet's hop ([`crate::topology::routing::Spread::Flow`]), which the
    /// static switches up to the next L3 node choose by, as the router did
    /// when it addressed the frame; `None` until a router drew one (the
    /// sending host chose by the flow's hash). Not on the wire.
    pub hop_draw: Option<u64>,
    /// On the lossless fabric: the packet's InfiniBand transport fields
    /// (it is an InfiniBand packet, not an Ethernet frame; the MAC and IP
    /// fields above only steer the forwarding).
    pub ib: Option<IbHeader>,
    /// On the lossless fabric: the port whose credit the packet holds
    /// (the last link it crossed), returned when it leaves the node's
    /// buffer.
    pub credit_of: Option<PortId>,
}

impl Packet {
    /// Length of the TCP header including options.
    pub fn tcp_header_len(&self) -> u64 {
        let ts = self.ts.is_some();
        let options = match (self.flags.syn, self.sack_permitted, ts) {
            (true, _, true) => TCP_SYN_OPTIONS_TIMESTAMPS,
            (true, false, false) => TCP_SYN_OPTIONS,
            (true, true, false) => TCP_SYN_OPTIONS_SACK,
            (false, _, true) => TCP_TIMESTAMPS_OPTION + self.sack.option_len(),
            (false, _, false) => self.sack.option_len(),
        };
        TCP_HEADER + options
    }
    /// IPv4 total length.
    pub fn ip_len(&self) -> u64 {
        IPV4_HEADER + self.tcp_header_len() + self.payload.len() as u64
    }
    /// Frame length including Ethernet header and FCS, padded to 64 bytes
    /// (an InfiniBand packet: its headers, padded payload and CRCs).
    pub fn frame_len(&self) -> u64 {
        if self.ib.is_some() {
            return infiniband::frame_len(self.payload.len());
        }
        (self.ip_len() + ETHERNET_OVERHEAD).max(ETHERNET_MIN_FRAME)
    }
    /// Bytes of wire time: frame plus preamble and inter-frame gap (an
    /// InfiniBand packet: the packet itself; the link rate is its data
    /// rate, after the line code).
    pub fn wire_len(&self) -> u64 {
        if self.ib.is_some() {
            return self.frame_len();
        }
        self.frame_len() + ETHERNET_GAP
    }
}

/// Wire bytes of a frame carrying `payload` bytes of TCP data with no options:
/// the closed form the tests use.
pub fn data_frame_wire_len(payload: u64) -> u64 {
    (payload + TCP_HEADER + IPV4_HEADER + ETHERNET_OVERHEAD).max(ETHERNET_MIN_FRAME) + ETHERNET_GAP
}

/// Storage for packets in flight, so events carry a small index instead of
/// the packet itself.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
}

/// Index of a packet in a [`PacketArena`].
pub type PacketId = u32;

impl PacketArena {
    /// Stores a packet, returning its id.
    #[inline]
    pub fn insert(&mut self, p: Packet) -> PacketId {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = Some(p);
            i
        } else {
            self.slots.push(Some(p));
            (self.slots.len() - 1) as PacketId
        }
    }
    /// The packet with this id.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        self.slots[id as usize].as_ref().expect("live packet")
    }
    /// The packet with this id, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.slots[id as usize].as_mut().expect("live packet")
    }
    /// Removes a packet (delivered or dropped).
    #[inline]
    pub fn remove(&mut self, id: PacketId) -> Packet {
        let p = self.slots[id as usize].take().expect("live packet");
        self.free.push(id);
        p
    }
}
