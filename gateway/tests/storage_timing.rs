//! MPI-IO through a storage node of the simulated network
//! (configs/reference-storage.toml: the reference network and a fifth
//! host, storage0, with the `[[storage]]` node, all on the 1 Gbps switch).
//!
//! tests/mpi/io_write_timing.c on 4 ranks writes 64 MiB per rank with
//! `MPI_File_write_at_all`, each rank its own contiguous block, so the
//! two-phase exchange keeps every block at its rank and each rank sends
//! its 64 MiB to the storage node: 64 requests of one 1 MiB piece and a
//! [`HEADER_LEN`]-byte header each, on the rank's TCP connection to the
//! node. All four streams cross the switch's port to storage0, so the
//! write takes at least the time that one 1 Gbps link needs to serialise
//! them:
//!
//! ```text
//! stream   = 64 × (1 MiB + HEADER_LEN)              bytes per rank
//! frames   = ⌈stream ÷ MSS⌉                          per rank, MSS = 1460
//! bound    = 4 × frames × wire(MSS) × 8 ÷ 1 Gbps     wire(MSS) = 1538 B
//! ```
//!
//! (wire = Ethernet, IPv4 and TCP headers, FCS, preamble and gap around
//! the segment). The program's write time (`MPI_Wtime` from a barrier
//! before to a barrier after) must be at least that and within 10 % of it:
//! the rest is the collective's own messages, one round trip per request
//! window, the node's service of the last piece (100 µs + 1 MiB at
//! 1 GB/s) and TCP's recovery from the switch queue's drops.
//!
//! The capture of the storage link (tshark) carries the write: at least
//! 4 × stream TCP payload bytes toward storage0. The report counts 64 MiB
//! written and read per rank.

mod common;
use common::*;
use mpinetsim_protocol::storage::HEADER_LEN;
use netsim::base::time::serialization_time;
use netsim::wire::packet::data_frame_wire_len;
use std::process::Command;

const RANKS: u64 = 4;
const MIB_PER_RANK: u64 = 64;
const RATE_BPS: u64 = 1_000_000_000;
const MSS: u64 = 1460;

/// The storage link's serialisation bound of the write, s.
fn serialisation_bound_s() -> f64 {
    let piece = mpinetsim_protocol::MAX_MESSAGE_PIECE;
    let stream = MIB_PER_RANK * (1 << 20) / piece * (piece + HEADER_LEN as u64);
    let frames = stream.div_ceil(MSS);
    let frame_ns = serialization_time(data_frame_wire_len(MSS), RATE_BPS).0;
    (RANKS * frames * frame_ns) as f64 / 1e9
}

#[test]
fn a_collective_write_of_64_mib_per_rank_takes_the_storage_links_serialisation_time() {
    if skip_without_mpicc() || skip_without_tshark() {
        return;
    }
    assert_eq!(data_frame_wire_len(MSS), 1538);
    let prog = build_c("io_write_timing", "mpicc");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("storage-timing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Only the storage host's NIC is captured, headers only.
    let net = dir.join("net.toml");
    let original = std::fs::read_to_string(config("reference-storage.toml")).unwrap();
    let toml = original.replace(
        "points = [\"host*\", \"switch0\"]\nsnaplen = 65535",
        "points = [\"storage0\"]\nsnaplen = 96",
    );
    assert!(toml.contains("points = [\"storage0\"]"), "{toml}");
    std::fs::write(&net, toml).unwrap();
    let caps = dir.join("caps");
    let report = dir.join("report.json");
    let file = dir.join("out.dat");
    let o = run(
        &[
            "-n",
            "4",
            "--net",
            net.to_str().unwrap(),
            "--time-factor",
            "12",
            "--capture",
            caps.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
        &prog,
        &[file.to_str().unwrap(), &MIB_PER_RANK.to_string()],
    );
    let (out, err) = text(&o);
    assert!(
        o.status.success() && out.contains("io_write_timing: ok"),
        "{out}\n{err}"
    );
    let write_s: f64 = out
        .split("write_s=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no write_s in {out}"));
    let bound = serialisation_bound_s();
    eprintln!(
        "collective write of {MIB_PER_RANK} MiB per rank: {write_s:.6} s, bound {bound:.6} s ({:+.1} %)",
        (write_s / bound - 1.0) * 100.0
    );
    assert!(
        write_s >= bound,
        "the write took {write_s} s, less than the storage link's serialisation bound {bound} s"
    );
    assert!(
        write_s <= bound * 1.10,
        "the write took {write_s} s, more than 10 % above the storage link's serialisation bound {bound} s\n{err}"
    );

    // The report: 64 MiB written and read back per rank.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let per_rank = &r["storage"]["ranks"];
    for rank in 0..RANKS as usize {
        let io = &per_rank[rank];
        assert_eq!(io["bytes_written"], MIB_PER_RANK << 20, "rank {rank}: {io}");
        assert_eq!(io["bytes_read"], MIB_PER_RANK << 20, "rank {rank}: {io}");
        assert!(io["io_time_s"].as_f64().unwrap() >= write_s * 0.5, "{io}");
    }
    assert!(err.contains("mpinetsim: storage on storage0: rank 3 wrote 67108864 B"));

    // The capture of storage0's NIC: the ranks' TCP payload toward it.
    let pcap = caps.join("storage0.pcap");
    let t = Command::new("tshark")
        .arg("-r")
        .arg(&pcap)
        .args(["-Y", "ip.dst == 10.0.0.5 && tcp.len > 0"])
        .args(["-T", "fields", "-e", "ip.src", "-e", "tcp.len"])
        .output()
        .expect("run tshark");
    assert!(t.status.success(), "tshark: {}", text(&t).1);
    let mut payload = [0u64; 4];
    for line in String::from_utf8_lossy(&t.stdout).lines() {
        let mut f = line.split('\t');
        let src = f.next().unwrap();
        let len: u64 = f.next().unwrap().parse().unwrap();
        let rank = src.rsplit('.').next().unwrap().parse::<usize>().unwrap() - 1;
        payload[rank] += len;
    }
    let stream = MIB_PER_RANK * (1 << 20) / mpinetsim_protocol::MAX_MESSAGE_PIECE
        * (mpinetsim_protocol::MAX_MESSAGE_PIECE + HEADER_LEN as u64);
    for (rank, p) in payload.iter().enumerate() {
        assert!(
            *p >= stream,
            "rank {rank}'s payload toward storage0 in the capture is {p} B, less than its write stream {stream} B"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A storage node on a switch, or with the analytic model, or with no
/// stripe target, is refused before launch with one sentence.
#[test]
fn a_storage_node_that_cannot_be_is_one_sentence() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("storage-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read_to_string(config("reference-storage.toml")).unwrap();
    let cases = [
        (
            original.replace(
                "host = \"storage0\"\nbandwidth",
                "host = \"switch0\"\nbandwidth",
            ),
            "[[storage]] sits on `switch0`, which is no host of the network",
        ),
        (
            format!("model = \"analytic\"\n{original}"),
            "a storage node ([[storage]]) needs the packet model",
        ),
        (
            original.replace("stripe_count = 1", "stripe_count = 0"),
            "`stripe_count` is 0",
        ),
        (
            original.replace("stripe_count = 1", "stripe_count = 1\nstripes = 2"),
            "stripes",
        ),
    ];
    for (i, (toml, expected)) in cases.iter().enumerate() {
        let net = dir.join(format!("net{i}.toml"));
        std::fs::write(&net, toml).unwrap();
        let o = run(
            &["-n", "2", "--net", net.to_str().unwrap()],
            std::path::Path::new("/bin/true"),
            &[],
        );
        let (_, err) = text(&o);
        assert!(!o.status.success(), "case {i} ran:\n{err}");
        assert!(err.contains(expected), "case {i}: {err}");
        assert!(!err.contains("panicked"), "case {i}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "case {i}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// "What if rank 0 wrote all the output": rank 0 writes the whole 4 MiB
/// file with `MPI_File_write_at` (independent: 4 requests of 1 MiB), then
/// both ranks read their 2 MiB back collectively (2 requests each). The
/// report counts each rank's bytes and requests, and the timeline names
/// the node's thread and draws an arrow per request and per reply.
#[test]
fn independent_writes_go_to_the_storage_node_and_show_in_report_and_timeline() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("io_write_timing", "mpicc");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("storage-rank0-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (report, timeline) = (dir.join("report.json"), dir.join("timeline.json"));
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config("reference-storage.toml"),
            "--report",
            report.to_str().unwrap(),
            "--timeline",
            timeline.to_str().unwrap(),
        ],
        &prog,
        &[dir.join("out.dat").to_str().unwrap(), "2", "rank0"],
    );
    let (out, err) = text(&o);
    assert!(
        o.status.success() && out.contains("io_write_timing: ok"),
        "{out}\n{err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let io = |rank: usize, k: &str| r["storage"]["ranks"][rank][k].as_u64().unwrap();
    let mib = 1u64 << 20;
    assert_eq!(
        [
            io(0, "bytes_written"),
            io(0, "bytes_read"),
            io(0, "requests")
        ],
        [4 * mib, 2 * mib, 6]
    );
    assert_eq!(
        [
            io(1, "bytes_written"),
            io(1, "bytes_read"),
            io(1, "requests")
        ],
        [0, 2 * mib, 2]
    );
    assert_eq!(r["storage"]["host"], "storage0");
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&timeline).unwrap()).unwrap();
    let events = t["traceEvents"]
        .as_array()
        .unwrap_or_else(|| t.as_array().unwrap());
    assert!(events.iter().any(|e| e["name"] == "thread_name"
        && e["tid"] == 2
        && e["args"]["name"] == "storage node (endpoint 2)"));
    let arrows = |key: &str| {
        events
            .iter()
            .filter(|e| e["ph"] == "s" && e["args"][key] == 2)
            .count()
    };
    assert_eq!((arrows("dst"), arrows("src")), (8, 8), "requests, replies");
    let _ = std::fs::remove_dir_all(&dir);
}
