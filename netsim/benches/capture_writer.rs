//! Issue 22 item 10: our pcapng writer against pcap-file 2's `PcapNgWriter`
//! on what capture writes — Enhanced Packet Blocks with an `epb_flags`
//! option, full-size data frames and minimum-size ACKs alternating —
//! through a 64 KiB buffer into /dev/null, as a capture file is written.
//! Both produce the same blocks (checked byte for byte in memory before
//! timing); the figure is each one's best of 5 alternating rounds, and the
//! ratio. Run in release:
//!
//! ```sh
//! cargo bench -p netsim --bench capture_writer
//! CAPTURE_BENCH_FILE=/tmp/x.pcapng cargo bench -p netsim --bench capture_writer
//! ```

use bytes::Bytes;
use netsim::base::addr::MacAddr;
use netsim::wire::capture::{CaptureFile, CaptureInterface, Direction};
use netsim::wire::packet::{Packet, TcpFlags};
use netsim::Nanos;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::PcapNgWriter;
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

const FRAMES: usize = 200_000;

fn packet(payload: usize, i: usize) -> Packet {
    Packet {
        src_mac: MacAddr([2, 0x4e, 0, 0, 0, 1]),
        dst_mac: MacAddr([2, 0x4e, 0, 0, 0, 2]),
        src_ip: Ipv4Addr::new(10, 0, 0, 1),
        dst_ip: Ipv4Addr::new(10, 0, 0, 2),
        dst_host: 1,
        ecn: Default::default(),
        ttl: 64,
        ip_id: i as u16,
        conn: 0,
        reverse: false,
        src_port: 40000,
        dst_port: 5000,
        seq: (i * 1448) as u32,
        ack: 1,
        seq_off: (i * 1448) as u64,
        ack_off: 1,
        flags: TcpFlags {
            ack: true,
            ..TcpFlags::default()
        },
        window: 1024,
        wscale: None,
        mss: None,
        sack_permitted: false,
        sack: Default::default(),
        ts: None,
        payload: Bytes::from(vec![(i % 251) as u8; payload]),
        encoded: None,
        detour: None,
        hop_draw: None,
        ib: None,
        credit_of: None,
    }
}

fn interface() -> CaptureInterface {
    CaptureInterface {
        port: 0,
        name: "host0/switch0".into(),
        description: "bench".into(),
        speed_bps: 1_000_000_000,
        link_type: 1,
    }
}

/// The frames, encoded once (as the simulator encodes each packet once).
fn frames() -> Vec<Packet> {
    let mut file = CaptureFile::pcapng("warm.pcapng".into(), vec![interface()], &[], 65535);
    (0..FRAMES)
        .map(|i| {
            let mut p = packet(if i % 2 == 0 { 1448 } else { 0 }, i);
            file.record(0, Direction::Outbound, Nanos(i as u64), &mut p);
            p
        })
        .collect()
}

/// Ours, as capture uses it: record every frame, drain to `out` with
/// vectored writes every MiB.
fn ours<W: Write>(packets: &mut [Packet], mut out: W) -> W {
    let mut file = CaptureFile::pcapng("a.pcapng".into(), vec![interface()], &[], 65535);
    for (i, p) in packets.iter_mut().enumerate() {
        file.record(0, Direction::Outbound, Nanos(i as u64 * 1000), p);
        if file.pending_len() > 1 << 20 {
            file.drain_to(&mut out).unwrap();
        }
    }
    file.drain_to(&mut out).unwrap();
    out
}

/// pcap-file's writer on `out`: the same Enhanced Packet Blocks; the
/// writer and the length of what it wrote before them.
fn theirs<W: Write>(packets: &[Packet], out: W) -> (W, usize) {
    let mut w = PcapNgWriter::new(Counting(out, 0)).unwrap();
    let start = w.get_ref().1;
    w.write_pcapng_block(
        pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock {
            linktype: pcap_file::DataLink::ETHERNET,
            snaplen: 65535,
            options: vec![],
        },
    )
    .unwrap();
    let blocks_from = w.get_ref().1;
    debug_assert!(blocks_from > start);
    for (i, p) in packets.iter().enumerate() {
        let frame = p.encoded.as_ref().unwrap();
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(i as u64 * 1000),
            original_len: frame.len() as u32,
            data: Cow::Borrowed(frame),
            options: vec![EnhancedPacketOption::Flags(2)],
        })
        .unwrap();
    }
    let Counting(out, _) = w.into_inner();
    (out, blocks_from)
}

/// A writer that counts the bytes through it.
struct Counting<W>(W, usize);

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The file the writers write (`CAPTURE_BENCH_FILE`, default /dev/null,
/// which leaves out the kernel's copy into the page cache) behind a
/// 64 KiB buffer, as a capture file is written.
fn sink() -> BufWriter<File> {
    let path = std::env::var("CAPTURE_BENCH_FILE").unwrap_or_else(|_| "/dev/null".into());
    BufWriter::with_capacity(1 << 16, File::create(path).unwrap())
}

/// Times `f` once: how long it took and the bytes it wrote.
fn timed(f: impl FnOnce() -> usize) -> (Duration, usize) {
    let t = Instant::now();
    let bytes = std::hint::black_box(f());
    (t.elapsed(), bytes)
}

fn main() {
    let mut packets = frames();
    let header = CaptureFile::pcapng("h.pcapng".into(), vec![interface()], &[], 65535)
        .take_bytes()
        .len();
    // Same blocks, byte for byte (in memory).
    let a = ours(&mut packets, Vec::new()).split_off(header);
    let (mut b, from) = theirs(&packets, Vec::new());
    let b = b.split_off(from);
    assert_eq!(
        a.len(),
        b.len(),
        "the two writers' packet blocks differ in length"
    );
    assert!(a == b, "the two writers' packet blocks differ");
    let n = a.len();
    // Timed into /dev/null through a 64 KiB buffer, in alternating rounds
    // so that a load that comes and goes touches both.
    let (mut t_ours, mut t_theirs) = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        t_ours = t_ours.min(timed(|| ours(&mut packets, sink()).buffer().len()).0);
        t_theirs = t_theirs.min(timed(|| theirs(&packets, sink()).1).0);
    }
    let rate = |t: Duration| n as f64 / t.as_secs_f64() / 1e6;
    println!(
        "{FRAMES} frames ({} MB of packet blocks), best of 5:\n  ours      {:8.2} ms  {:7.0} MB/s\n  pcap-file {:8.2} ms  {:7.0} MB/s\n  pcap-file / ours: {:.2}x the time",
        n / 1_000_000,
        t_ours.as_secs_f64() * 1e3,
        rate(t_ours),
        t_theirs.as_secs_f64() * 1e3,
        rate(t_theirs),
        t_theirs.as_secs_f64() / t_ours.as_secs_f64()
    );
}
