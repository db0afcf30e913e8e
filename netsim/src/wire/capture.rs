//! Capture files: the frames crossing selected ports, with real Ethernet II /
//! IPv4 / TCP headers, valid checksums and nanosecond timestamps equal to the
//! virtual time, in classic pcap (one file per port) or pcapng (one file per
//! node, one interface per captured port, host names in a Name Resolution
//! Block).
//!
//! Which ports are captured comes from `[capture]` ([`plan`]). Bytes
//! accumulate in memory; the caller drains them to a writer of its choosing
//! with [`CaptureFile::drain_to`], so the simulator stays free of I/O.

use crate::base::text::glob_match;
use crate::base::time::Nanos;
use crate::config::{CaptureConfig, CaptureFormat, ConfigError};
use crate::topology::{Network, NodeId, NodeKind, PortId};
use crate::wire::observer::PortObserver;
use crate::wire::packet::Packet;
use bytes::Bytes;
use etherparse::{EtherType, Ethernet2Header, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement};
use pcap_file::pcap::PcapHeader;
use pcap_file::{DataLink, TsResolution};
use std::io::{IoSlice, Write};
use std::net::Ipv4Addr;

/// Frames up to this many captured bytes are copied into the file's own
/// buffer; larger ones are kept as shared slices (copying a small frame is
/// cheaper than reference counting it).
const INLINE_FRAME_MAX: usize = 256;

/// Largest snaplen accepted (libpcap's maximum).
pub const MAX_SNAPLEN: u32 = 262_144;

/// Which way a frame crossed a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Arrived at the port (recorded when its last bit arrived).
    Inbound,
    /// Left through the port (recorded when its transmission started).
    Outbound,
}

/// One captured port as it appears in a capture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureInterface {
    /// The port.
    pub port: PortId,
    /// Port name ("router3/host3"); the pcapng `if_name`.
    pub name: String,
    /// The port, its peer and the link; the pcapng `if_description`.
    pub description: String,
    /// Link rate in bits per second (0 = unlimited); the pcapng `if_speed`.
    pub speed_bps: u64,
    /// The pcap link type of its frames: Ethernet, or InfiniBand on the
    /// lossless fabric.
    pub link_type: u16,
}

/// The names an IPv4 address resolves to in Wireshark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostNames {
    /// The host's address.
    pub ip: Ipv4Addr,
    /// The name Wireshark should show first ("rank0"; "rank0+rank1" for a
    /// host with several ranks; the node name for a host without ranks),
    /// then every rank's own name and the host's node name.
    pub names: Vec<String>,
}

/// One piece of output waiting to be written, in order.
enum Pending {
    /// `inline[start..end]`: headers, trailers and small frames, copied.
    Inline { start: usize, end: usize },
    /// A large frame shared with the packet, truncated to the snaplen.
    Shared(Bytes),
}

/// One capture file: a classic pcap of one port, or a pcapng of some ports
/// of one node.
///
/// Records are kept as shared slices of the encoded frames (no copy) until
/// the caller drains them into a writer of its choosing.
pub struct CaptureFile {
    /// Suggested file name ("host0.pcap", "switch0-host1.pcap", "router0.pcapng").
    pub file_name: String,
    /// The file's format.
    pub format: CaptureFormat,
    /// The captured ports, in interface-id order (one for classic pcap).
    pub interfaces: Vec<CaptureInterface>,
    inline: Vec<u8>,
    pending: Vec<Pending>,
    pending_bytes: usize,
    snaplen: u32,
    /// Frames recorded.
    pub frames: u64,
    /// pcapng interface id of the network-event comments, once enabled.
    event_interface: Option<u32>,
}

/// pcapng block types and option codes (draft-ietf-opsawg-pcapng).
mod ng {
    pub const SHB: u32 = 0x0A0D_0D0A;
    pub const IDB: u32 = 1;
    pub const NRB: u32 = 4;
    pub const EPB: u32 = 6;
    pub const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
    pub const OPT_END: u16 = 0;
    pub const SHB_USERAPPL: u16 = 4;
    pub const IF_NAME: u16 = 2;
    pub const IF_DESCRIPTION: u16 = 3;
    pub const IF_SPEED: u16 = 8;
    pub const IF_TSRESOL: u16 = 9;
    pub const EPB_FLAGS: u16 = 2;
    pub const OPT_COMMENT: u16 = 1;
    /// LINKTYPE_USER0: the network-event interface carries no frames.
    pub const LINKTYPE_USER0: u16 = 147;
    pub const NRB_END: u16 = 0;
    pub const NRB_IPV4: u16 = 1;
    pub const LINKTYPE_ETHERNET: u16 = 1;
    /// epb_flags direction bits: 01 inbound, 10 outbound.
    pub const INBOUND: u32 = 1;
    pub const OUTBOUND: u32 = 2;
}

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// Appends one pcapng option (code, length, value, padding).
fn put_option(out: &mut Vec<u8>, code: u16, value: &[u8]) {
    out.extend_from_slice(&code.to_le_bytes());
    out.extend_from_slice(&(value.len() as u16).to_le_bytes());
    out.extend_from_slice(value);
    out.resize(out.len() + pad4(value.len()), 0);
}

/// Appends a whole pcapng block of type `kind` around `body` (whose length
/// is a multiple of 4).
fn put_block(out: &mut Vec<u8>, kind: u32, body: &[u8]) {
    debug_assert_eq!(body.len() % 4, 0);
    let total = (12 + body.len()) as u32;
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&total.to_le_bytes());
}

impl CaptureFile {
    fn with_header(
        file_name: String,
        format: CaptureFormat,
        interfaces: Vec<CaptureInterface>,
        header: Vec<u8>,
        snaplen: u32,
    ) -> CaptureFile {
        // Grows with the frames recorded (a large network has many files).
        let inline = header;
        CaptureFile {
            file_name,
            format,
            interfaces,
            pending: vec![Pending::Inline {
                start: 0,
                end: inline.len(),
            }],
            pending_bytes: inline.len(),
            inline,
            snaplen,
            frames: 0,
            event_interface: None,
        }
    }

    /// A classic pcap of one port: the file starts with a pcap header
    /// (nanosecond timestamps, Ethernet, little-endian) carrying `snaplen`.
    pub fn pcap(file_name: String, interface: CaptureInterface, snaplen: u32) -> CaptureFile {
        let header = PcapHeader {
            version_major: 2,
            version_minor: 4,
            ts_correction: 0,
            ts_accuracy: 0,
            snaplen,
            datalink: DataLink::from(u32::from(interface.link_type)),
            ts_resolution: TsResolution::NanoSecond,
            endianness: pcap_file::Endianness::Little,
        };
        let mut bytes = Vec::new();
        header
            .write_to(&mut bytes)
            .expect("writing to memory cannot fail");
        CaptureFile::with_header(
            file_name,
            CaptureFormat::Pcap,
            vec![interface],
            bytes,
            snaplen,
        )
    }

    /// A pcapng file: a Section Header Block, one Interface Description
    /// Block per entry of `interfaces` (interface id = index; if_name,
    /// if_description, if_speed, if_tsresol = 9 for nanoseconds), and a
    /// Name Resolution Block with `names`.
    pub fn pcapng(
        file_name: String,
        interfaces: Vec<CaptureInterface>,
        names: &[HostNames],
        snaplen: u32,
    ) -> CaptureFile {
        let mut out = Vec::new();
        let mut body = Vec::new();
        body.extend_from_slice(&ng::BYTE_ORDER_MAGIC.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&(-1i64).to_le_bytes());
        let appl = format!(
            "mpinetsim {} (timestamps are virtual time)",
            env!("CARGO_PKG_VERSION")
        );
        put_option(&mut body, ng::SHB_USERAPPL, appl.as_bytes());
        put_option(&mut body, ng::OPT_END, &[]);
        put_block(&mut out, ng::SHB, &body);
        for i in &interfaces {
            body.clear();
            body.extend_from_slice(&i.link_type.to_le_bytes());
            body.extend_from_slice(&0u16.to_le_bytes());
            body.extend_from_slice(&snaplen.to_le_bytes());
            put_option(&mut body, ng::IF_NAME, i.name.as_bytes());
            put_option(&mut body, ng::IF_DESCRIPTION, i.description.as_bytes());
            if i.speed_bps > 0 {
                put_option(&mut body, ng::IF_SPEED, &i.speed_bps.to_le_bytes());
            }
            put_option(&mut body, ng::IF_TSRESOL, &[9]);
            put_option(&mut body, ng::OPT_END, &[]);
            put_block(&mut out, ng::IDB, &body);
        }
        if !names.is_empty() {
            body.clear();
            for h in names {
                let mut value = h.ip.octets().to_vec();
                // Wireshark shows the last name of a record: the display
                // name goes last.
                for n in h.names.iter().rev() {
                    value.extend_from_slice(n.as_bytes());
                    value.push(0);
                }
                put_option(&mut body, ng::NRB_IPV4, &value);
            }
            put_option(&mut body, ng::NRB_END, &[]);
            put_block(&mut out, ng::NRB, &body);
        }
        CaptureFile::with_header(file_name, CaptureFormat::Pcapng, interfaces, out, snaplen)
    }

    /// Records `pkt` as seen on interface `interface` of this file (its
    /// index in [`CaptureFile::interfaces`]) at virtual time `at`, encoding
    /// it once and caching the frame in the packet for later captures.
    pub fn record(&mut self, interface: u32, dir: Direction, at: Nanos, pkt: &mut Packet) {
        if pkt.encoded.is_none() {
            let mut frame = Vec::with_capacity(14 + pkt.ip_len() as usize);
            match &pkt.ib {
                Some(h) => super::infiniband::encode(h, &pkt.payload, &mut frame),
                None => encode_frame(pkt, &mut frame),
            }
            pkt.encoded = Some(Bytes::from(frame));
        }
        let frame = pkt.encoded.as_ref().expect("just encoded");
        // A lossless-fabric packet goes in an ERF record (see
        // `super::infiniband`): its header, with this capture's time, first.
        let erf = (pkt.ib.is_some()).then(|| super::infiniband::erf_header(at.0, frame.len()));
        let prefix: &[u8] = erf.as_ref().map_or(&[], |h| &h[..]);
        let orig_len = prefix.len() + frame.len();
        let keep = (self.snaplen as usize).max(prefix.len()).min(orig_len);
        let frame_keep = keep - prefix.len();
        let start = self.inline.len();
        let trailer_len;
        match self.format {
            CaptureFormat::Pcap => {
                // Record header: seconds, nanoseconds, captured length,
                // original length, each a little-endian u32.
                let mut h = [0u8; 16];
                h[0..4].copy_from_slice(&((at.0 / 1_000_000_000) as u32).to_le_bytes());
                h[4..8].copy_from_slice(&((at.0 % 1_000_000_000) as u32).to_le_bytes());
                h[8..12].copy_from_slice(&(keep as u32).to_le_bytes());
                h[12..16].copy_from_slice(&(orig_len as u32).to_le_bytes());
                self.inline.extend_from_slice(&h);
                trailer_len = 0;
            }
            CaptureFormat::Pcapng => {
                // Enhanced Packet Block: type, total length, interface id,
                // timestamp (ns, high and low halves), captured and original
                // length, the frame padded to 4 bytes, epb_flags with the
                // direction, end of options, total length again.
                let pad = pad4(keep);
                trailer_len = pad + 16;
                let total = (28 + keep + trailer_len) as u32;
                let mut h = [0u8; 28];
                h[0..4].copy_from_slice(&ng::EPB.to_le_bytes());
                h[4..8].copy_from_slice(&total.to_le_bytes());
                h[8..12].copy_from_slice(&interface.to_le_bytes());
                h[12..16].copy_from_slice(&((at.0 >> 32) as u32).to_le_bytes());
                h[16..20].copy_from_slice(&(at.0 as u32).to_le_bytes());
                h[20..24].copy_from_slice(&(keep as u32).to_le_bytes());
                h[24..28].copy_from_slice(&(orig_len as u32).to_le_bytes());
                self.inline.extend_from_slice(&h);
            }
        }
        self.inline.extend_from_slice(prefix);
        let shared = frame_keep > INLINE_FRAME_MAX;
        if !shared {
            self.inline.extend_from_slice(&frame[..frame_keep]);
        }
        let mut end = self.inline.len();
        self.push_inline(start, end);
        if shared {
            self.pending
                .push(Pending::Shared(frame.slice(..frame_keep)));
        }
        if self.format == CaptureFormat::Pcapng {
            let t = self.inline.len();
            self.inline.resize(t + pad4(keep), 0);
            let flags = match dir {
                Direction::Inbound => ng::INBOUND,
                Direction::Outbound => ng::OUTBOUND,
            };
            self.inline.extend_from_slice(&ng::EPB_FLAGS.to_le_bytes());
            self.inline.extend_from_slice(&4u16.to_le_bytes());
            self.inline.extend_from_slice(&flags.to_le_bytes());
            self.inline.extend_from_slice(&[0; 4]);
            let total = (28 + keep + trailer_len) as u32;
            self.inline.extend_from_slice(&total.to_le_bytes());
            end = self.inline.len();
            debug_assert_eq!(end - t, trailer_len);
            self.push_inline(t, end);
        }
        self.pending_bytes += end - start + if shared { frame_keep } else { 0 };
        self.frames += 1;
    }

    /// pcapng only: adds an interface named `mpinetsim-events` (link type
    /// USER0) whose empty packet records carry network events (faults,
    /// route changes) as packet comments at their virtual time; Wireshark
    /// shows them in the packet list and under Expert Information →
    /// Comments. Classic pcap has no comments: nothing happens.
    pub fn enable_event_comments(&mut self) {
        if self.format != CaptureFormat::Pcapng || self.event_interface.is_some() {
            return;
        }
        let mut body = Vec::new();
        body.extend_from_slice(&ng::LINKTYPE_USER0.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&self.snaplen.to_le_bytes());
        put_option(&mut body, ng::IF_NAME, b"mpinetsim-events");
        put_option(
            &mut body,
            ng::IF_DESCRIPTION,
            b"network events of the simulation (faults, route changes, partitions) as packet comments; no frames",
        );
        put_option(&mut body, ng::IF_TSRESOL, &[9]);
        put_option(&mut body, ng::OPT_END, &[]);
        let start = self.inline.len();
        put_block(&mut self.inline, ng::IDB, &body);
        let end = self.inline.len();
        self.push_inline(start, end);
        self.pending_bytes += end - start;
        self.event_interface = Some(self.interfaces.len() as u32);
    }

    /// Writes `text` as a comment at virtual time `at` (an empty packet
    /// record on the event interface), if [`Self::enable_event_comments`]
    /// was called.
    pub fn record_comment(&mut self, at: Nanos, text: &str) {
        let Some(interface) = self.event_interface else {
            return;
        };
        let text = &text.as_bytes()[..text.len().min(60_000)];
        let mut body = Vec::with_capacity(32 + text.len());
        body.extend_from_slice(&interface.to_le_bytes());
        body.extend_from_slice(&((at.0 >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(at.0 as u32).to_le_bytes());
        body.extend_from_slice(&0u32.to_le_bytes());
        body.extend_from_slice(&0u32.to_le_bytes());
        put_option(&mut body, ng::OPT_COMMENT, text);
        put_option(&mut body, ng::OPT_END, &[]);
        let start = self.inline.len();
        put_block(&mut self.inline, ng::EPB, &body);
        let end = self.inline.len();
        self.push_inline(start, end);
        self.pending_bytes += end - start;
    }

    fn push_inline(&mut self, start: usize, end: usize) {
        match self.pending.last_mut() {
            Some(Pending::Inline { end: e, .. }) if *e == start => *e = end,
            _ => self.pending.push(Pending::Inline { start, end }),
        }
    }

    /// Bytes recorded and not yet drained.
    pub fn pending_len(&self) -> usize {
        self.pending_bytes
    }

    /// Writes everything recorded since the last drain to `out` with
    /// vectored writes (the frames are not copied on the way), then forgets it.
    pub fn drain_to(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        for chunk in self.pending.chunks(1024) {
            let mut slices: Vec<IoSlice<'_>> = chunk
                .iter()
                .map(|p| match p {
                    Pending::Inline { start, end } => IoSlice::new(&self.inline[*start..*end]),
                    Pending::Shared(b) => IoSlice::new(b),
                })
                .collect();
            write_all_vectored(out, &mut slices)?;
        }
        self.pending.clear();
        self.inline.clear();
        self.pending_bytes = 0;
        Ok(())
    }

    /// Everything recorded since the last drain, as one byte vector.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.pending_bytes);
        self.drain_to(&mut v)
            .expect("writing to memory cannot fail");
        v
    }
}

/// The capture files of a run and where each port's frames go.
pub struct CapturePlan {
    /// The files, in the order their ports appear in the network.
    pub files: Vec<CaptureFile>,
    /// For every port of the network: (file index, interface id) when captured.
    pub of_port: Vec<Option<(u32, u32)>>,
}

/// The capture files attached to the ports they record: the simulator's
/// [`PortObserver`] for `[capture]`.
pub struct PortCaptures {
    files: Vec<CaptureFile>,
    /// For every port: (file index, interface id) when captured.
    of_port: Vec<Option<(u32, u32)>>,
}

impl PortCaptures {
    /// Nothing captured on a network of `ports` ports.
    pub fn none(ports: usize) -> PortCaptures {
        PortCaptures {
            files: Vec::new(),
            of_port: vec![None; ports],
        }
    }

    /// The files of `plan`, attached to its ports.
    pub fn new(plan: CapturePlan) -> PortCaptures {
        PortCaptures {
            files: plan.files,
            of_port: plan.of_port,
        }
    }

    /// The files, in the order their ports appear in the network.
    pub fn files_mut(&mut self) -> &mut [CaptureFile] {
        &mut self.files
    }
}

impl PortObserver for PortCaptures {
    #[inline]
    fn departed(&mut self, port: PortId, now: Nanos, pkt: &mut Packet) {
        if let Some((fi, ii)) = self.of_port[port as usize] {
            self.files[fi as usize].record(ii, Direction::Outbound, now, pkt);
        }
    }

    #[inline]
    fn arrived(&mut self, port: PortId, now: Nanos, pkt: &mut Packet) {
        if let Some((fi, ii)) = self.of_port[port as usize] {
            self.files[fi as usize].record(ii, Direction::Inbound, now, pkt);
        }
    }

    fn note(&mut self, now: Nanos, line: &str) {
        for f in &mut self.files {
            f.record_comment(now, line);
        }
    }
}

/// Ports selected by `[capture]`: every port whose name ("node/peer") or
/// node name matches a `points` pattern, and both ends of every link whose
/// name matches a `links` pattern; every host NIC when both lists are
/// empty. A pattern that selects nothing is an error (most likely a typo).
pub fn select_ports(
    net: &Network,
    cfg: &CaptureConfig,
    origin: &str,
) -> Result<Vec<PortId>, ConfigError> {
    let mut selected = vec![false; net.ports.len()];
    if cfg.points.is_empty() && cfg.links.is_empty() {
        for &h in &net.hosts {
            for &p in &net.nodes[h as usize].ports {
                selected[p as usize] = true;
            }
        }
    }
    for pat in &cfg.points {
        let mut any = false;
        for (pid, port) in net.ports.iter().enumerate() {
            if glob_match(pat, &port.name) || glob_match(pat, &net.nodes[port.node as usize].name) {
                selected[pid] = true;
                any = true;
            }
        }
        if !any {
            return Err(ConfigError(format!(
                "{origin}: `capture.points` pattern '{pat}' matches no node and no port; \
                 name a node (\"router0\") or a port as node/peer (\"switch0/host1\"), `*` matching any characters"
            )));
        }
    }
    for pat in &cfg.links {
        let mut any = false;
        for link in &net.links {
            if glob_match(pat, &link.name) {
                for p in link.ends {
                    selected[p as usize] = true;
                }
                any = true;
            }
        }
        if !any {
            return Err(ConfigError(format!(
                "{origin}: `capture.links` pattern '{pat}' matches no link; links are named \
                 by their `name` key or \"a-b\" after their ends (e.g. \"host0-router0\")"
            )));
        }
    }
    Ok((0..net.ports.len() as PortId)
        .filter(|&p| selected[p as usize])
        .collect())
}

/// Checks `[capture]` values that do not depend on the network.
pub fn check_config(cfg: &CaptureConfig, origin: &str) -> Result<(), ConfigError> {
    if cfg.snaplen == 0 || cfg.snaplen > MAX_SNAPLEN {
        return Err(ConfigError(format!(
            "{origin}: `capture.snaplen` is {}; give the bytes of each frame to keep, from 1 to {MAX_SNAPLEN} (65535 keeps whole frames)",
            cfg.snaplen
        )));
    }
    Ok(())
}

/// Builds the capture files `[capture]` asks for: with format "pcap" one
/// file per selected port, with "pcapng" one file per node holding all its
/// selected ports as interfaces.
pub fn plan(
    net: &Network,
    rank_hosts: &[NodeId],
    cfg: &CaptureConfig,
    origin: &str,
) -> Result<CapturePlan, ConfigError> {
    check_config(cfg, origin)?;
    let ports = select_ports(net, cfg, origin)?;
    let mut files: Vec<CaptureFile> = Vec::new();
    let mut of_port = vec![None; net.ports.len()];
    match cfg.format {
        CaptureFormat::Pcap => {
            for p in ports {
                let node = net.node_of(p);
                let file_name = if node.ports.len() == 1 {
                    format!("{}.pcap", node.name)
                } else {
                    format!(
                        "{}.pcap",
                        net.ports[p as usize].name.replace(['/', '#'], "-")
                    )
                };
                of_port[p as usize] = Some((files.len() as u32, 0));
                files.push(CaptureFile::pcap(file_name, interface(net, p), cfg.snaplen));
            }
        }
        CaptureFormat::Pcapng => {
            let names = host_names(net, rank_hosts);
            let mut by_node: Vec<(NodeId, Vec<PortId>)> = Vec::new();
            let mut slot_of_node: crate::base::fasthash::FastMap<NodeId, usize> =
                Default::default();
            for p in ports {
                let n = net.ports[p as usize].node;
                let slot = *slot_of_node.entry(n).or_insert_with(|| {
                    by_node.push((n, Vec::new()));
                    by_node.len() - 1
                });
                by_node[slot].1.push(p);
            }
            for (n, ps) in by_node {
                let fi = files.len() as u32;
                for (i, &p) in ps.iter().enumerate() {
                    of_port[p as usize] = Some((fi, i as u32));
                }
                let ifaces = ps.iter().map(|&p| interface(net, p)).collect();
                let file_name = format!("{}.pcapng", net.nodes[n as usize].name);
                files.push(CaptureFile::pcapng(file_name, ifaces, &names, cfg.snaplen));
            }
        }
    }
    Ok(CapturePlan { files, of_port })
}

/// The interface record of port `p`: its name, a description naming the
/// port, its peer and the link with its parameters, and the link rate.
pub fn interface(net: &Network, p: PortId) -> CaptureInterface {
    let port = &net.ports[p as usize];
    let peer = &net.ports[port.peer as usize];
    let link = &net.links[port.link as usize];
    let kind = match net.nodes[port.node as usize].kind {
        NodeKind::Host => "host NIC",
        NodeKind::Switch(_) => "switch port",
        NodeKind::Router => "router interface",
    };
    let rate = match link.params.rate_bps {
        0 => "unlimited rate".to_string(),
        r => crate::base::units::format_rate(r),
    };
    CaptureInterface {
        port: p,
        name: port.name.clone(),
        description: format!(
            "{kind} {} to peer {} on link {} ({rate}, {} delay, MTU {})",
            port.name,
            peer.name,
            link.name,
            format_delay(link.params.delay_ns),
            link.params.mtu
        ),
        speed_bps: link.params.rate_bps,
        link_type: match net.fabric {
            crate::config::FabricKind::Ethernet => ng::LINKTYPE_ETHERNET,
            crate::config::FabricKind::Lossless => super::infiniband::LINKTYPE_ERF,
        },
    }
}

fn format_delay(ns: u64) -> String {
    for (div, unit) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns >= div && ns.is_multiple_of(div) {
            return format!("{} {unit}", ns / div);
        }
    }
    format!("{ns} ns")
}

/// The names of every host's address: the display name first ("rankN" for
/// a host with one rank, "rankN+rankM" for several, the node name for
/// none), then each rank's name and the node name.
pub fn host_names(net: &Network, rank_hosts: &[NodeId]) -> Vec<HostNames> {
    // The ranks of each host, found in one pass over the ranks.
    let mut ranks_of: crate::base::fasthash::FastMap<NodeId, Vec<usize>> = Default::default();
    for (r, &h) in rank_hosts.iter().enumerate() {
        ranks_of.entry(h).or_default().push(r);
    }
    net.hosts
        .iter()
        .filter_map(|&h| {
            let node = &net.nodes[h as usize];
            let ranks: Vec<String> = ranks_of
                .get(&h)
                .map(|rs| rs.iter().map(|r| format!("rank{r}")).collect())
                .unwrap_or_default();
            let mut names = Vec::with_capacity(ranks.len() + 2);
            if ranks.len() > 1 {
                names.push(ranks.join("+"));
            }
            names.extend(ranks);
            names.push(node.name.clone());
            Some(HostNames {
                ip: node.ip?,
                names,
            })
        })
        .collect()
}

/// A hosts file (the /etc/hosts format Wireshark reads) for `names`: one
/// line per host, its address, the display name, then the other names as
/// aliases.
pub fn hosts_file(names: &[HostNames]) -> String {
    let mut s = String::from(
        "# mpinetsim: host addresses and the ranks placed on them, for Wireshark's name resolution\n",
    );
    for h in names {
        s.push_str(&format!("{}\t{}\n", h.ip, h.names.join(" ")));
    }
    s
}

fn write_all_vectored(out: &mut impl Write, mut slices: &mut [IoSlice<'_>]) -> std::io::Result<()> {
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WriteZero,
                    "capture sink refused bytes",
                ))
            }
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
/// Serialises a packet as an Ethernet II frame (without FCS) into `out`.
pub fn encode_frame(pkt: &Packet, out: &mut Vec<u8>) {
    let mut tcp = TcpHeader::new(pkt.src_port, pkt.dst_port, pkt.seq, pkt.window);
    tcp.syn = pkt.flags.syn;
    tcp.ack = pkt.flags.ack;
    tcp.psh = pkt.flags.psh;
    tcp.ece = pkt.flags.ece;
    tcp.cwr = pkt.flags.cwr;
    tcp.acknowledgment_number = if pkt.flags.ack { pkt.ack } else { 0 };
    use TcpOptionElement::Noop as Nop;
    let ts = pkt.ts.map(|t| TcpOptionElement::Timestamp(t.val, t.ecr));
    if pkt.flags.syn {
        // Linux's layouts: MSS, [SACK_PERM | NOP NOP], TS, NOP, WS with
        // timestamps; MSS, NOP, NOP, SACK_PERM, NOP, WS or MSS, NOP, WS
        // without.
        let mss = TcpOptionElement::MaximumSegmentSize(pkt.mss.unwrap_or(1460));
        let ws = TcpOptionElement::WindowScale(pkt.wscale.unwrap_or(0));
        let sack_perm = TcpOptionElement::SelectiveAcknowledgementPermitted;
        let done = match (ts, pkt.sack_permitted) {
            (Some(ts), true) => tcp.set_options(&[mss, sack_perm, ts, Nop, ws]),
            (Some(ts), false) => tcp.set_options(&[mss, Nop, Nop, ts, Nop, ws]),
            (None, true) => tcp.set_options(&[mss, Nop, Nop, sack_perm, Nop, ws]),
            (None, false) => tcp.set_options(&[mss, Nop, ws]),
        };
        done.expect("at most 20 bytes of SYN options fit");
    } else {
        // NOP, NOP, TS (12 bytes) first, as Linux sends them, then NOP,
        // NOP, SACK: at most 12 + 4 + 3·8 = 40 bytes.
        let mut options = [Nop, Nop, Nop, Nop, Nop, Nop];
        let mut n = 0;
        if let Some(ts) = ts {
            options[2] = ts;
            n = 3;
        }
        if !pkt.sack.is_empty() {
            // Blocks in the sender's sequence space: the ACK number is
            // the wire form of `ack_off`, every block lies at or above it.
            let wire = |off: u64| pkt.ack.wrapping_add(off.wrapping_sub(pkt.ack_off) as u32);
            let blocks = pkt.sack.as_slice();
            let mut rest = [None; 3];
            for (r, &(s, e)) in rest.iter_mut().zip(&blocks[1..]) {
                *r = Some((wire(s), wire(e)));
            }
            options[n + 2] = TcpOptionElement::SelectiveAcknowledgement(
                (wire(blocks[0].0), wire(blocks[0].1)),
                rest,
            );
            n += 3;
        }
        if n > 0 {
            tcp.set_options(&options[..n])
                .expect("at most 40 bytes of options fit");
        }
    }
    let tcp_len = tcp.header_len() + pkt.payload.len();
    let mut ip = Ipv4Header::new(
        tcp_len as u16,
        pkt.ttl,
        IpNumber::TCP,
        pkt.src_ip.octets(),
        pkt.dst_ip.octets(),
    )
    .expect("payload fits an IPv4 packet");
    ip.identification = pkt.ip_id;
    ip.dont_fragment = true;
    ip.ecn = etherparse::Ipv4Ecn::try_new(pkt.ecn.bits()).expect("two bits");
    ip.header_checksum = ip.calc_header_checksum();
    tcp.checksum = tcp
        .calc_checksum_ipv4(&ip, &pkt.payload)
        .expect("payload fits an IPv4 packet");
    let eth = Ethernet2Header {
        source: pkt.src_mac.0,
        destination: pkt.dst_mac.0,
        ether_type: EtherType::IPV4,
    };
    out.reserve(14 + 20 + tcp.header_len() + pkt.payload.len());
    eth.write(out).expect("vec write");
    ip.write(out).expect("vec write");
    tcp.write(out).expect("vec write");
    out.extend_from_slice(&pkt.payload);
}

/// Length of the whole records at the start of `appended`: bytes a capture
/// file received after a record boundary, of which a failed write (a full
/// disk) may have kept only a part. Cutting the file to this length leaves
/// it readable, ending at its last whole packet.
///
/// Classic pcap records are a 16-byte header whose bytes 8..12 give the
/// captured length; pcapng blocks carry their total length at bytes 4..8.
pub fn whole_records_len(format: CaptureFormat, appended: &[u8]) -> usize {
    let mut at = 0usize;
    loop {
        let rest = &appended[at..];
        let len = match format {
            CaptureFormat::Pcap => {
                if rest.len() < 16 {
                    return at;
                }
                16 + u32::from_le_bytes(rest[8..12].try_into().expect("4 bytes")) as usize
            }
            CaptureFormat::Pcapng => {
                if rest.len() < 12 {
                    return at;
                }
                u32::from_le_bytes(rest[4..8].try_into().expect("4 bytes")) as usize
            }
        };
        if len == 0 || rest.len() < len {
            return at;
        }
        at += len;
    }
}

#[cfg(test)]
mod whole_records_tests {
    use super::*;

    /// A pcap record of `n` captured bytes.
    fn pcap_record(n: u32) -> Vec<u8> {
        let mut r = vec![0u8; 8];
        r.extend_from_slice(&n.to_le_bytes());
        r.extend_from_slice(&n.to_le_bytes());
        r.resize(16 + n as usize, 0xAB);
        r
    }

    #[test]
    fn pcap_cut_inside_the_third_record_keeps_two() {
        let mut bytes = pcap_record(60);
        bytes.extend(pcap_record(1514));
        let two = bytes.len();
        bytes.extend(pcap_record(100));
        assert_eq!(two, 76 + 1530);
        for kept in [two, two + 1, two + 15, two + 16, two + 115] {
            assert_eq!(whole_records_len(CaptureFormat::Pcap, &bytes[..kept]), two);
        }
        assert_eq!(whole_records_len(CaptureFormat::Pcap, &bytes), two + 116);
        assert_eq!(whole_records_len(CaptureFormat::Pcap, &bytes[..75]), 0);
    }

    #[test]
    fn pcapng_blocks_by_their_total_length() {
        let mut c = CaptureFile::pcapng(
            "n.pcapng".into(),
            vec![CaptureInterface {
                port: 0,
                name: "p0".into(),
                description: "port 0".into(),
                speed_bps: 1_000_000_000,
                link_type: 1,
            }],
            &[],
            65535,
        );
        c.enable_event_comments();
        let header = c.take_bytes();
        c.record_comment(Nanos(5), "first");
        c.record_comment(Nanos(6), "second");
        let blocks = c.take_bytes();
        assert_eq!(
            whole_records_len(CaptureFormat::Pcapng, &header),
            header.len()
        );
        assert_eq!(
            whole_records_len(CaptureFormat::Pcapng, &blocks),
            blocks.len()
        );
        assert_eq!(
            whole_records_len(CaptureFormat::Pcapng, &blocks[..blocks.len() - 1]),
            blocks.len() / 2
        );
    }
}
