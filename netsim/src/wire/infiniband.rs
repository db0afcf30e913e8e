//! InfiniBand packets of the lossless fabric, as captures record them.
//!
//! Wireshark's `infiniband` dissector reads InfiniBand packets inside
//! Endace ERF records (pcap link type 197, `LINKTYPE_ERF`, ERF record type
//! 21 "InfiniBand"); the bare link type 247 is not one this machine's
//! tshark opens. So each captured packet is preceded by a 16-byte ERF
//! header ([`erf_header`]: the packet's time, its type and lengths), which
//! is the capture's framing, not part of the packet on the wire.
//!
//! A packet is a Local Route Header (8 bytes: virtual lane 0, link
//! version 0, service level 0, next header "IBA local", destination LID,
//! packet length in 4-byte words, source LID), a Base Transport Header
//! (12 bytes: the reliable-connection SEND opcode, pad count, partition
//! key 0xffff, destination queue pair, packet sequence number), the
//! payload padded to a multiple of 4 bytes, the invariant CRC (4 bytes)
//! and the variant CRC (2 bytes). A host's LID is its host index + 1 (LID
//! 0 is reserved); the destination queue pair is the receiving rank's
//! connection from the sender (see [`queue_pair`]).

/// pcap's link type for Endace ERF records.
pub const LINKTYPE_ERF: u16 = 197;

/// ERF record type of an InfiniBand packet.
const ERF_TYPE_INFINIBAND: u8 = 21;

/// Bytes of an ERF record header.
pub const ERF_HEADER_LEN: usize = 16;

/// The ERF record header for a packet of `packet_len` bytes captured at
/// `at_ns`: the timestamp (little-endian, seconds in the high 32 bits and
/// the binary fraction of a second in the low, rounded up so it reads back
/// as the same ns), record type 21, no flags, the record length, no loss
/// counter, and the packet's length on the wire (big-endian).
pub fn erf_header(at_ns: u64, packet_len: usize) -> [u8; ERF_HEADER_LEN] {
    let (s, ns) = (at_ns / 1_000_000_000, at_ns % 1_000_000_000);
    let frac = (ns << 32).div_ceil(1_000_000_000);
    let mut h = [0u8; ERF_HEADER_LEN];
    h[0..8].copy_from_slice(&((s << 32) | frac).to_le_bytes());
    h[8] = ERF_TYPE_INFINIBAND;
    h[10..12].copy_from_slice(&((ERF_HEADER_LEN + packet_len) as u16).to_be_bytes());
    h[14..16].copy_from_slice(&(packet_len as u16).to_be_bytes());
    h
}

/// Bytes around the payload: LRH 8, BTH 12, ICRC 4, VCRC 2.
pub const IB_OVERHEAD: u64 = 26;

/// The reliable-connection SEND opcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IbOpcode {
    /// RC SEND First (0x00).
    SendFirst,
    /// RC SEND Middle (0x01).
    SendMiddle,
    /// RC SEND Last (0x02).
    SendLast,
    /// RC SEND Only (0x04).
    SendOnly,
}

impl IbOpcode {
    /// The BTH opcode byte.
    pub fn code(self) -> u8 {
        match self {
            IbOpcode::SendFirst => 0x00,
            IbOpcode::SendMiddle => 0x01,
            IbOpcode::SendLast => 0x02,
            IbOpcode::SendOnly => 0x04,
        }
    }
}

/// The transport fields of one InfiniBand packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IbHeader {
    /// Which part of its message the packet carries.
    pub opcode: IbOpcode,
    /// Packet sequence number (24 bits).
    pub psn: u32,
    /// Destination queue pair (24 bits).
    pub dest_qp: u32,
    /// Source local identifier.
    pub slid: u16,
    /// Destination local identifier.
    pub dlid: u16,
}

/// The queue pair number of the connection from rank `src` at rank `dst`:
/// distinct for every sender, above the reserved QPs 0 and 1.
pub fn queue_pair(src: u32) -> u32 {
    (src + 2) & 0x00ff_ffff
}

/// The LID of host index `host` (0 is reserved).
pub fn lid(host: u32) -> u16 {
    (host + 1) as u16
}

/// Payload padding to a multiple of 4 bytes.
pub fn pad_len(payload: usize) -> usize {
    (4 - payload % 4) % 4
}

/// Bytes of a packet carrying `payload` bytes, CRCs included.
pub fn frame_len(payload: usize) -> u64 {
    IB_OVERHEAD + (payload + pad_len(payload)) as u64
}

/// Serialises the packet into `out`.
pub fn encode(h: &IbHeader, payload: &[u8], out: &mut Vec<u8>) {
    let pad = pad_len(payload.len());
    let start = out.len();
    // Packet length: LRH to ICRC inclusive, in 4-byte words.
    let words = ((8 + 12 + payload.len() + pad + 4) / 4) as u16;
    // LRH: VL 0 | LVer 0; SL 0 | reserved | LNH 2 (IBA local: BTH next).
    out.extend_from_slice(&[0x00, 0x02]);
    out.extend_from_slice(&h.dlid.to_be_bytes());
    out.extend_from_slice(&(words & 0x07ff).to_be_bytes());
    out.extend_from_slice(&h.slid.to_be_bytes());
    // BTH: opcode; SE 0 | MigReq 1 | PadCnt | TVer 0; P_Key.
    out.push(h.opcode.code());
    out.push(0x40 | ((pad as u8) << 4));
    out.extend_from_slice(&0xffffu16.to_be_bytes());
    // Reserved byte, destination QP; AckReq 0 | reserved, PSN.
    out.push(0);
    out.extend_from_slice(&h.dest_qp.to_be_bytes()[1..]);
    out.push(0);
    out.extend_from_slice(&(h.psn & 0x00ff_ffff).to_be_bytes()[1..]);
    out.extend_from_slice(payload);
    out.resize(out.len() + pad, 0);
    let icrc = invariant_crc(&out[start..]);
    out.extend_from_slice(&icrc.to_le_bytes());
    let vcrc = variant_crc(&out[start..]);
    out.extend_from_slice(&vcrc.to_be_bytes());
}

/// The ICRC: CRC-32 (the Ethernet polynomial, reflected, initial and final
/// XOR all ones) over the packet from the LRH to the payload's end, with
/// the fields a switch may change (the LRH's VL, the BTH's reserved byte
/// at offset 4 of the BTH... as the specification lists them) set to ones,
/// preceded by 8 bytes of ones standing in for a global route header.
fn invariant_crc(packet: &[u8]) -> u32 {
    let mut masked = packet.to_vec();
    masked[0] |= 0xf0; // VL
    masked[8 + 4] = 0xff; // BTH reserved byte (resv8a)
    let mut crc = crc32_update(0xffff_ffff, &[0xff; 8]);
    crc = crc32_update(crc, &masked);
    !crc
}

fn crc32_update(mut crc: u32, data: &[u8]) -> u32 {
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// The VCRC: CRC-16 with polynomial x¹⁶ + x¹² + x³ + x + 1 (0x100b),
/// initial value all ones, over the whole packet up to it.
fn variant_crc(packet: &[u8]) -> u16 {
    let mut crc: u16 = 0xffff;
    for &b in packet {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x100b
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_its_headers_padded_payload_and_crcs() {
        let h = IbHeader {
            opcode: IbOpcode::SendOnly,
            psn: 0x0123_4567,
            dest_qp: 5,
            slid: 1,
            dlid: 2,
        };
        let mut out = Vec::new();
        encode(&h, b"hello", &mut out);
        assert_eq!(out.len() as u64, frame_len(5));
        assert_eq!(frame_len(5), 26 + 8);
        // Packet length in words: 8 + 12 + 8 + 4 = 32 bytes.
        assert_eq!(u16::from_be_bytes([out[4], out[5]]), 8);
        assert_eq!(out[8], 0x04);
        assert_eq!(out[9] >> 4 & 3, 3, "3 bytes of padding");
        // The PSN keeps its low 24 bits.
        assert_eq!(&out[17..20], &[0x23, 0x45, 0x67]);
        assert_eq!(&out[20..25], b"hello");
    }

    #[test]
    fn the_erf_time_reads_back_as_the_same_nanosecond() {
        for ns in [0u64, 1, 330, 999_999_999, 5_000_000_123] {
            let h = erf_header(ns, 100);
            let t = u64::from_le_bytes(h[0..8].try_into().unwrap());
            let back = (t >> 32) * 1_000_000_000 + (((t & 0xffff_ffff) * 1_000_000_000) >> 32);
            assert_eq!(back, ns);
            assert_eq!(u16::from_be_bytes([h[10], h[11]]), 116);
        }
    }

    #[test]
    fn the_crc32_is_the_ethernet_one() {
        // The standard check value of CRC-32: "123456789" → 0xcbf43926.
        assert_eq!(!crc32_update(0xffff_ffff, b"123456789"), 0xcbf4_3926);
    }
}
