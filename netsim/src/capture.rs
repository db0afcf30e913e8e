//! Capture points: pcap files (nanosecond timestamps = virtual time) of the
//! frames crossing a port, with real Ethernet II / IPv4 / TCP headers and
//! valid checksums. Bytes accumulate in memory; the caller drains them to
//! storage with [`CapturePoint::take_bytes`], so the simulator stays free of I/O.

use crate::packet::Packet;
use crate::time::Nanos;
use etherparse::{Ethernet2Header, EtherType, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement};
use pcap_file::pcap::{PcapHeader, PcapPacket};
use pcap_file::{DataLink, TsResolution};
use std::borrow::Cow;
use std::time::Duration;

/// One capture point: a port whose traffic in both directions is recorded.
pub struct CapturePoint {
    /// Port name ("host0/switch0").
    pub port_name: String,
    /// Suggested file name ("host0.pcap" or "switch0-host1.pcap").
    pub file_name: String,
    buffer: Vec<u8>,
    snaplen: u32,
    scratch: Vec<u8>,
    /// Frames recorded.
    pub frames: u64,
}

impl CapturePoint {
    /// A capture point writing a pcap header with the given snaplen.
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
        let mut buffer = Vec::new();
        header.write_to(&mut buffer).expect("writing to memory cannot fail");
        CapturePoint { port_name, file_name, buffer, snaplen, scratch: Vec::with_capacity(2048), frames: 0 }
    }

    /// Records `pkt` as seen on this port at virtual time `at`.
    pub fn record(&mut self, at: Nanos, pkt: &Packet) {
        self.scratch.clear();
        encode_frame(pkt, &mut self.scratch);
        let orig_len = self.scratch.len() as u32;
        let keep = (self.snaplen as usize).min(self.scratch.len());
        let packet = PcapPacket {
            timestamp: Duration::from_nanos(at.0),
            orig_len,
            data: Cow::Borrowed(&self.scratch[..keep]),
        };
        packet
            .write_to::<_, byteorder_slice::LittleEndian>(&mut self.buffer, TsResolution::NanoSecond, self.snaplen)
            .expect("writing to memory cannot fail");
        self.frames += 1;
    }

    /// Hands over the bytes written since the last call (the first call
    /// includes the file header).
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buffer)
    }
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
    let mut ip = Ipv4Header::new(tcp_len as u16, pkt.ttl, IpNumber::TCP, pkt.src_ip.octets(), pkt.dst_ip.octets())
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
