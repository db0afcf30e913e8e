//! Capture points: pcap files (nanosecond timestamps = virtual time) of the
//! frames crossing a port, with real Ethernet II / IPv4 / TCP headers and
//! valid checksums. Bytes accumulate in memory; the caller drains them to
//! a writer of its choosing with [`CapturePoint::drain_to`], so the simulator
//! stays free of I/O.

use crate::packet::Packet;
use crate::time::Nanos;
use bytes::Bytes;
use etherparse::{EtherType, Ethernet2Header, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement};
use pcap_file::pcap::PcapHeader;
use pcap_file::{DataLink, TsResolution};
use std::io::{IoSlice, Write};

/// Frames up to this many captured bytes are copied into the point's own
/// buffer; larger ones are kept as shared slices (copying a small frame is
/// cheaper than reference counting it).
const INLINE_FRAME_MAX: usize = 256;

/// One piece of output waiting to be written, in order.
enum Pending {
    /// `inline[start..end]`: record headers and small frames, copied.
    Inline { start: usize, end: usize },
    /// A large frame shared with the packet, truncated to the snaplen.
    Shared(Bytes),
}

/// One capture point: a port whose traffic in both directions is recorded.
///
/// Records are kept as shared slices of the encoded frames (no copy) until
/// the caller drains them into a writer of its choosing.
pub struct CapturePoint {
    /// Port name ("host0/switch0").
    pub port_name: String,
    /// Suggested file name ("host0.pcap" or "switch0-host1.pcap").
    pub file_name: String,
    inline: Vec<u8>,
    pending: Vec<Pending>,
    pending_bytes: usize,
    snaplen: u32,
    /// Frames recorded.
    pub frames: u64,
}

impl CapturePoint {
    /// A capture point whose file starts with a pcap header (nanosecond
    /// timestamps, Ethernet, little-endian) carrying the given snaplen.
    pub fn new(port_name: String, file_name: String, snaplen: u32) -> CapturePoint {
        let header = PcapHeader {
            version_major: 2,
            version_minor: 4,
            ts_correction: 0,
            ts_accuracy: 0,
            snaplen,
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            endianness: pcap_file::Endianness::Little,
        };
        let mut inline = Vec::with_capacity(64 * 1024);
        header
            .write_to(&mut inline)
            .expect("writing to memory cannot fail");
        CapturePoint {
            port_name,
            file_name,
            pending: vec![Pending::Inline {
                start: 0,
                end: inline.len(),
            }],
            pending_bytes: inline.len(),
            inline,
            snaplen,
            frames: 0,
        }
    }

    /// Records `pkt` as seen on this port at virtual time `at`, encoding it
    /// once and caching the frame in the packet for later capture points.
    pub fn record(&mut self, at: Nanos, pkt: &mut Packet) {
        if pkt.encoded.is_none() {
            let mut frame = Vec::with_capacity(14 + pkt.ip_len() as usize);
            encode_frame(pkt, &mut frame);
            pkt.encoded = Some(Bytes::from(frame));
        }
        let frame = pkt.encoded.as_ref().expect("just encoded");
        let keep = (self.snaplen as usize).min(frame.len());
        // pcap record header: seconds, nanoseconds, captured length,
        // original length, each a little-endian u32.
        let mut header = [0u8; 16];
        header[0..4].copy_from_slice(&((at.0 / 1_000_000_000) as u32).to_le_bytes());
        header[4..8].copy_from_slice(&((at.0 % 1_000_000_000) as u32).to_le_bytes());
        header[8..12].copy_from_slice(&(keep as u32).to_le_bytes());
        header[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        self.pending_bytes += 16 + keep;
        let start = self.inline.len();
        self.inline.extend_from_slice(&header);
        if keep <= INLINE_FRAME_MAX {
            self.inline.extend_from_slice(&frame[..keep]);
        }
        let end = self.inline.len();
        match self.pending.last_mut() {
            Some(Pending::Inline { end: e, .. }) if *e == start => *e = end,
            _ => self.pending.push(Pending::Inline { start, end }),
        }
        if keep > INLINE_FRAME_MAX {
            self.pending.push(Pending::Shared(frame.slice(..keep)));
        }
        self.frames += 1;
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
    tcp.acknowledgment_number = if pkt.flags.ack { pkt.ack } else { 0 };
    if pkt.flags.syn {
        let mss = pkt.mss.unwrap_or(1460);
        let ws = pkt.wscale.unwrap_or(0);
        tcp.set_options(&[
            TcpOptionElement::MaximumSegmentSize(mss),
            TcpOptionElement::Noop,
            TcpOptionElement::WindowScale(ws),
        ])
        .expect("8 bytes of options fit");
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
