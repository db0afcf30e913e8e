//! Capture selection (`[capture] points`, `links`, `snaplen`, `format`) and
//! the bytes of the files: pcapng interface and name resolution blocks, a
//! router's ingress and egress copies of each packet, pcap and pcapng
//! holding the same frames.

use bytes::Bytes;
use netsim::{Nanos, NetworkConfig, Simulator};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::blocks::name_resolution::Record;
use pcap_file::pcapng::{Block, PcapNgReader};
use std::collections::HashMap;

/// host0 --100 Mbps, 0.5 ms-- router0 --1 Gbps, 1 ms ("core")-- switch0 --1 Gbps-- host1
const CHAIN: &str = r#"
[[host]]
name = "host0"
[[host]]
name = "host1"
[[router]]
name = "router0"
[[switch]]
name = "switch0"
[[link]]
a = "host0"
b = "router0"
rate = "100Mbps"
delay = "500us"
[[link]]
a = "router0"
b = "switch0"
name = "core"
delay = "1ms"
[[link]]
a = "host1"
b = "switch0"
"#;

fn sim_with(capture: &str, ranks: usize) -> Simulator {
    let text = format!("{CHAIN}\n[capture]\n{capture}\n");
    let cfg = NetworkConfig::from_toml_str(&text, "chain.toml").unwrap();
    Simulator::from_config(&cfg, "chain.toml", ranks, true).unwrap()
}

fn config_error(capture: &str) -> String {
    let text = format!("{CHAIN}\n[capture]\n{capture}\n");
    let cfg = NetworkConfig::from_toml_str(&text, "chain.toml").unwrap();
    match Simulator::from_config(&cfg, "chain.toml", 2, true) {
        Ok(_) => panic!("{capture} was accepted"),
        Err(e) => e.0,
    }
}

/// Rank 0 sends `bytes` to rank 1, which answers with the same amount.
fn exchange(sim: &mut Simulator, bytes: usize) {
    sim.inject(0, 1, Bytes::from(vec![7u8; bytes]), Nanos::ZERO)
        .unwrap();
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1);
    let t = sim.now();
    sim.inject(1, 0, Bytes::from(vec![8u8; bytes]), t).unwrap();
    while sim.step().is_some() {}
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 2);
}

/// All captured files by name.
fn files(sim: &mut Simulator) -> HashMap<String, Vec<u8>> {
    sim.captures_mut()
        .iter_mut()
        .map(|c| (c.file_name.clone(), c.take_bytes()))
        .collect()
}

struct Iface {
    name: String,
    description: String,
    speed: Option<u64>,
    tsresol: Option<u8>,
    snaplen: u32,
}

struct Frame {
    iface: u32,
    ns: u128,
    inbound: bool,
    orig_len: u32,
    data: Vec<u8>,
}

struct PcapNg {
    ifaces: Vec<Iface>,
    names: Vec<(std::net::Ipv4Addr, Vec<String>)>,
    frames: Vec<Frame>,
}

fn parse_pcapng(bytes: &[u8]) -> PcapNg {
    let mut r = PcapNgReader::new(bytes).expect("a section header block");
    let mut out = PcapNg {
        ifaces: Vec::new(),
        names: Vec::new(),
        frames: Vec::new(),
    };
    while let Some(b) = r.next_block() {
        match b.expect("a valid block") {
            Block::InterfaceDescription(idb) => {
                let mut i = Iface {
                    name: String::new(),
                    description: String::new(),
                    speed: None,
                    tsresol: None,
                    snaplen: idb.snaplen,
                };
                for o in idb.options {
                    match o {
                        InterfaceDescriptionOption::IfName(n) => i.name = n.into(),
                        InterfaceDescriptionOption::IfDescription(d) => i.description = d.into(),
                        InterfaceDescriptionOption::IfSpeed(s) => i.speed = Some(s),
                        InterfaceDescriptionOption::IfTsResol(t) => i.tsresol = Some(t),
                        _ => {}
                    }
                }
                out.ifaces.push(i);
            }
            Block::NameResolution(nrb) => {
                for rec in nrb.records {
                    if let Record::Ipv4(v4) = rec {
                        let ip: [u8; 4] = v4.ip_addr[..].try_into().unwrap();
                        out.names
                            .push((ip.into(), v4.names.iter().map(|n| n.to_string()).collect()));
                    }
                }
            }
            Block::EnhancedPacket(epb) => {
                let flags = epb
                    .options
                    .iter()
                    .find_map(|o| match o {
                        EnhancedPacketOption::Flags(f) => Some(*f),
                        _ => None,
                    })
                    .expect("every packet says its direction");
                assert!(
                    flags & 3 == 1 || flags & 3 == 2,
                    "direction bits {flags:#x}"
                );
                out.frames.push(Frame {
                    iface: epb.interface_id,
                    ns: epb.timestamp.as_nanos(),
                    inbound: flags & 3 == 1,
                    orig_len: epb.original_len,
                    data: epb.data.to_vec(),
                });
            }
            Block::SectionHeader(_) => {}
            other => panic!("unexpected block {other:?}"),
        }
    }
    out
}

/// (timestamp ns, original length, data) of every record of a classic pcap
/// (read by hand: pcap-file 2.0's reader rejects an original length above
/// the snaplen, which is what truncation means).
fn parse_pcap(bytes: &[u8]) -> Vec<(u128, u32, Vec<u8>)> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(
        u32_at(0),
        0xa1b2_3c4d,
        "nanosecond pcap magic, little-endian"
    );
    assert_eq!(u32_at(20), 1, "Ethernet");
    let snaplen = u32_at(16) as usize;
    let mut v = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let (sec, ns, incl, orig) = (u32_at(at), u32_at(at + 4), u32_at(at + 8), u32_at(at + 12));
        assert!(ns < 1_000_000_000 && incl <= orig && incl as usize <= snaplen);
        let data = bytes[at + 16..at + 16 + incl as usize].to_vec();
        v.push((sec as u128 * 1_000_000_000 + ns as u128, orig, data));
        at += 16 + incl as usize;
    }
    assert_eq!(at, bytes.len(), "no partial record");
    v
}

/// (source IP, IP id, TTL) of an Ethernet/IPv4 frame.
fn ip_fields(frame: &[u8]) -> ([u8; 4], u16, u8) {
    let ip = &frame[14..];
    (
        ip[12..16].try_into().unwrap(),
        u16::from_be_bytes([ip[4], ip[5]]),
        ip[8],
    )
}

#[test]
fn router_pcapng_has_one_interface_per_port_and_each_packet_twice_with_ttl_one_apart() {
    let mut sim = sim_with("points = ['router0']\nformat = 'pcapng'", 2);
    exchange(&mut sim, 20_000);
    let mut f = files(&mut sim);
    assert_eq!(f.len(), 1, "one file per node: {:?}", f.keys());
    let ng = parse_pcapng(&f.remove("router0.pcapng").unwrap());

    // Interfaces: the port names, a description naming port, peer and
    // link, the link rate in bit/s, nanosecond resolution.
    let names: Vec<&str> = ng.ifaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["router0/host0", "router0/switch0"]);
    for (i, peer, link, rate) in [
        (0, "host0/router0", "host0-router0", 100_000_000),
        (1, "switch0/router0", "core", 1_000_000_000),
    ] {
        let d = &ng.ifaces[i].description;
        assert!(d.contains(&ng.ifaces[i].name), "{d}");
        assert!(d.contains(&format!("peer {peer}")), "{d}");
        assert!(d.contains(&format!("link {link}")), "{d}");
        assert_eq!(ng.ifaces[i].speed, Some(rate));
        assert_eq!(ng.ifaces[i].tsresol, Some(9));
        assert_eq!(ng.ifaces[i].snaplen, 65_535);
    }

    // Names: each host's rank, shown by Wireshark (the record's last name).
    assert_eq!(
        ng.names,
        [
            ([10, 0, 0, 1].into(), vec!["host0".into(), "rank0".into()]),
            ([10, 0, 0, 2].into(), vec!["host1".into(), "rank1".into()]),
        ]
    );

    // Every IP packet appears exactly twice: inbound on one interface with
    // TTL t, then outbound on the other with TTL t - 1.
    assert!(ng.frames.windows(2).all(|w| w[0].ns <= w[1].ns));
    let mut seen: HashMap<([u8; 4], u16), Vec<&Frame>> = HashMap::new();
    for fr in &ng.frames {
        let (src, id, _) = ip_fields(&fr.data);
        seen.entry((src, id)).or_default().push(fr);
    }
    // 20,000 B each way at MSS 1460: at least 14 data segments per direction.
    assert!(seen.len() >= 28, "{} packets", seen.len());
    for ((src, id), v) in &seen {
        assert_eq!(v.len(), 2, "packet {src:?}/{id} seen {} times", v.len());
        let (a, b) = (v[0], v[1]);
        assert!(a.inbound && !b.inbound, "in first, then out");
        assert_ne!(a.iface, b.iface);
        // From host0 it enters on router0/host0 (0); from host1 on router0/switch0 (1).
        assert_eq!(a.iface, if *src == [10, 0, 0, 1] { 0 } else { 1 });
        let (ttl_in, ttl_out) = (ip_fields(&a.data).2, ip_fields(&b.data).2);
        assert_eq!((ttl_in, ttl_out), (64, 63));
        assert!(b.ns >= a.ns);
        // Same IP packet and TCP segment; only TTL, IP checksum and MACs differ.
        assert_eq!(a.data[14 + 20..], b.data[14 + 20..]);
    }
}

#[test]
fn pcap_and_pcapng_of_a_port_hold_the_same_frames() {
    let mut pcap = sim_with("points = ['router0/switch0']", 2);
    let mut ng = sim_with("points = ['router0/switch0']\nformat = 'pcapng'", 2);
    exchange(&mut pcap, 5_000);
    exchange(&mut ng, 5_000);
    let a = parse_pcap(&files(&mut pcap)["router0-switch0.pcap"]);
    let b = parse_pcapng(&files(&mut ng)["router0.pcapng"]);
    assert_eq!(b.ifaces.len(), 1);
    assert!(!a.is_empty());
    let b: Vec<(u128, u32, Vec<u8>)> = b
        .frames
        .into_iter()
        .map(|f| (f.ns, f.orig_len, f.data))
        .collect();
    assert_eq!(a, b);
}

#[test]
fn a_link_pattern_captures_both_ends_of_the_link() {
    for (format, expect) in [
        ("pcap", ["router0-switch0.pcap", "switch0-router0.pcap"]),
        ("pcapng", ["router0.pcapng", "switch0.pcapng"]),
    ] {
        let mut sim = sim_with(&format!("links = ['co*']\nformat = '{format}'"), 2);
        exchange(&mut sim, 3_000);
        let f = files(&mut sim);
        let mut keys: Vec<&str> = f.keys().map(|k| k.as_str()).collect();
        keys.sort();
        assert_eq!(keys, expect);
        let count = |name: &str| match format {
            "pcap" => parse_pcap(&f[name]).len(),
            _ => {
                let ng = parse_pcapng(&f[name]);
                assert_eq!(ng.ifaces.len(), 1);
                ng.frames.len()
            }
        };
        // Lossless: every frame one end sends, the other end receives.
        assert_eq!(count(expect[0]), count(expect[1]));
        assert!(count(expect[0]) > 0);
    }
}

#[test]
fn points_select_hosts_switch_ports_and_router_interfaces() {
    let names = |capture: &str| {
        let mut sim = sim_with(capture, 2);
        let mut v: Vec<String> = sim
            .captures_mut()
            .iter()
            .map(|c| c.file_name.clone())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names(""),
        ["host0.pcap", "host1.pcap"],
        "default: host NICs"
    );
    assert_eq!(names("points = ['host1']"), ["host1.pcap"]);
    assert_eq!(names("points = ['switch0/host1']"), ["switch0-host1.pcap"]);
    assert_eq!(names("points = ['router0/host0']"), ["router0-host0.pcap"]);
    assert_eq!(
        names("points = ['*/router0']"),
        ["host0.pcap", "switch0-router0.pcap"]
    );
    assert_eq!(
        names("points = ['switch0', 'host0']\nformat = 'pcapng'"),
        ["host0.pcapng", "switch0.pcapng"]
    );
    // points and links together: the union, each port once.
    assert_eq!(
        names("points = ['router0']\nlinks = ['core']\nformat = 'pcapng'"),
        ["router0.pcapng", "switch0.pcapng"]
    );
}

#[test]
fn bad_capture_settings_are_one_sentence_naming_the_key() {
    let e = config_error("points = ['hots*']");
    assert!(
        e.starts_with("chain.toml: `capture.points` pattern 'hots*'"),
        "{e}"
    );
    let e = config_error("links = ['host0-switch0']");
    assert!(
        e.contains("`capture.links` pattern 'host0-switch0' matches no link"),
        "{e}"
    );
    let e = config_error("snaplen = 0");
    assert!(e.contains("`capture.snaplen` is 0"), "{e}");
    let e = config_error("snaplen = 300000");
    assert!(e.contains("`capture.snaplen` is 300000"), "{e}");
    let text = format!("{CHAIN}\n[capture]\nformat = 'pcap-ng'\n");
    let e = NetworkConfig::from_toml_str(&text, "chain.toml")
        .unwrap_err()
        .0;
    assert!(e.contains("capture.format"), "{e}");
    for e in [
        config_error("points = ['hots*']"),
        config_error("snaplen = 0"),
    ] {
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn snaplen_truncates_frames_in_both_formats() {
    for format in ["pcap", "pcapng"] {
        let mut sim = sim_with(
            &format!("points = ['host1']\nsnaplen = 100\nformat = '{format}'"),
            2,
        );
        exchange(&mut sim, 5_000);
        let f = files(&mut sim);
        let frames: Vec<(u32, usize)> = if format == "pcap" {
            parse_pcap(&f["host1.pcap"])
                .into_iter()
                .map(|(_, o, d)| (o, d.len()))
                .collect()
        } else {
            let ng = parse_pcapng(&f["host1.pcapng"]);
            assert_eq!(ng.ifaces[0].snaplen, 100);
            ng.frames
                .into_iter()
                .map(|f| (f.orig_len, f.data.len()))
                .collect()
        };
        assert!(frames.iter().any(|&(o, _)| o > 100));
        for (orig, kept) in frames {
            assert_eq!(kept, (orig as usize).min(100), "{format}");
        }
    }
}

#[test]
fn a_host_with_several_ranks_gets_every_rank_name() {
    // Three ranks, block placement on two hosts: 0 and 1 on host0, 2 on host1.
    let sim = sim_with("format = 'pcapng'", 3);
    let names: Vec<(String, Vec<String>)> = sim
        .host_names()
        .into_iter()
        .map(|h| (h.ip.to_string(), h.names))
        .collect();
    assert_eq!(
        names,
        [
            (
                "10.0.0.1".to_string(),
                vec![
                    "rank0+rank1".into(),
                    "rank0".into(),
                    "rank1".into(),
                    "host0".into()
                ]
            ),
            ("10.0.0.2".to_string(), vec!["rank2".into(), "host1".into()]),
        ]
    );
    let hosts = netsim::wire::capture::hosts_file(&sim.host_names());
    assert!(
        hosts.contains("\n10.0.0.1\trank0+rank1 rank0 rank1 host0\n"),
        "{hosts}"
    );
    assert!(hosts.ends_with("\n10.0.0.2\trank2 host1\n"), "{hosts}");
    // In the pcapng block the display name comes last (Wireshark keeps the last).
    let mut sim = sim_with("format = 'pcapng'", 3);
    let ng = parse_pcapng(&sim.captures_mut()[0].take_bytes());
    assert_eq!(ng.names[0].1, ["host0", "rank1", "rank0", "rank0+rank1"]);
}
