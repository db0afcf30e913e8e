//! The Wireshark dissector (docs/wireshark/mpinetsim.lua) decodes the shim's
//! envelopes in captures of known programs, message for message, including
//! messages spread over many TCP segments; captures resolve host addresses
//! to rank names (pcapng name resolution block, or the `hosts` file).

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn tshark_available() -> bool {
    let ok = Command::new("tshark")
        .arg("-v")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok || !common::skip_because("tshark is not installed (apt-get install tshark)")
}

fn dissector() -> String {
    format!(
        "lua_script:{}",
        root().join("docs/wireshark/mpinetsim.lua").display()
    )
}

/// `tshark -r file args… -T fields -e f…`: one row per frame, each field
/// split into its occurrences (several envelopes can end in one frame).
fn tshark_fields(file: &Path, args: &[&str], fields: &[&str]) -> Vec<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(file).args(args).args([
        "-T",
        "fields",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=;",
    ]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "tshark on {}: {err}", file.display());
    assert!(
        !err.to_lowercase().contains("error") && !err.contains("Lua"),
        "tshark on {}: {err}",
        file.display()
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            l.split('\t')
                .map(|c| c.split(';').map(String::from).collect())
                .collect()
        })
        .collect()
}

/// One decoded envelope.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Msg {
    kind: u32,
    src: u32,
    dst: u32,
    tag: i32,
    context: u32,
    comm: String,
    seq: u32,
    call: u32,
    msg_len: u64,
    payload_len: u64,
}

const MSG_FIELDS: [&str; 10] = [
    "mpinetsim.kind",
    "mpinetsim.src",
    "mpinetsim.dst",
    "mpinetsim.tag",
    "mpinetsim.context",
    "mpinetsim.comm",
    "mpinetsim.seq",
    "mpinetsim.call",
    "mpinetsim.msg_len",
    "mpinetsim.payload_len",
];

/// Every envelope the dissector decodes in `file` from frames matching
/// `filter`, in order, with the TCP reassembled length of its frame (empty
/// when the message fit one segment).
fn decoded(file: &Path, filter: &str, extra: &[&str]) -> Vec<(Msg, String)> {
    let lua = dissector();
    let mut args = vec!["-X", &lua, "-Y", filter];
    args.extend_from_slice(extra);
    let mut fields = MSG_FIELDS.to_vec();
    fields.push("tcp.reassembled.length");
    let mut out = Vec::new();
    for row in tshark_fields(file, &args, &fields) {
        let n = row[0].len();
        for i in 0..n {
            let f = |k: usize| row[k][i].clone();
            let m = Msg {
                kind: f(0).parse().unwrap(),
                src: f(1).parse().unwrap(),
                dst: f(2).parse().unwrap(),
                tag: f(3).parse().unwrap(),
                context: f(4).parse().unwrap(),
                comm: f(5),
                seq: f(6).parse().unwrap(),
                call: f(7).parse().unwrap(),
                msg_len: f(8).parse().unwrap(),
                payload_len: f(9).parse().unwrap(),
            };
            // The reassembled length belongs to the frame's last message.
            let reassembled = if i + 1 == n {
                row[10][0].clone()
            } else {
                String::new()
            };
            out.push((m, reassembled));
        }
    }
    out
}

#[test]
fn every_message_of_a_pingpong_is_decoded() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    for (bytes, rendezvous) in [(32u64, false), (70_000, true)] {
        let dir = tempfile::tempdir().unwrap();
        let caps = dir.path().join("caps");
        let o = run(
            &[
                "-n",
                "2",
                "--net",
                &config("reference.toml"),
                "--capture",
                caps.to_str().unwrap(),
            ],
            &prog,
            &["3", &bytes.to_string()],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // tests/mpi/pingpong.c: iteration i sends 0→1 then 1→0, both with tag i.
        let mut expected = Vec::new();
        for i in 0..3 {
            for (a, b) in [(0, 1), (1, 0)] {
                if rendezvous {
                    // Request to send, clear to send (from the receiver), data.
                    expected.push((2, a, b, i, bytes));
                    expected.push((3, b, a, i, bytes));
                    expected.push((4, a, b, i, bytes));
                } else {
                    expected.push((1, a, b, i, bytes));
                }
            }
        }
        let got: Vec<(u32, u32, u32, i32, u64)> =
            decoded(&caps.join("host1.pcap"), "mpinetsim", &[])
                .into_iter()
                .map(|(m, _)| (m.kind, m.src, m.dst, m.tag, m.msg_len))
                .collect();
        assert_eq!(got, expected, "{bytes}-byte messages");
    }
}

#[allow(clippy::too_many_arguments)]
fn msg(
    kind: u32,
    src: u32,
    dst: u32,
    tag: i32,
    context: u32,
    seq: u32,
    call: u32,
    msg_len: u64,
    payload_len: u64,
) -> Msg {
    let comm = match context {
        0 => "WORLD".to_string(),
        c => format!("ctx {c}"),
    };
    Msg {
        kind,
        src,
        dst,
        tag,
        context,
        comm,
        seq,
        call,
        msg_len,
        payload_len,
    }
}

/// Runs tests/mpi/wire_messages.c on 4 ranks of the reference network with
/// `[capture] format` set; returns the capture folder (inside `dir`).
fn run_wire_messages(dir: &Path, format: &str) -> std::path::PathBuf {
    let prog = build_c("wire_messages", "mpicc");
    let net = config_with_format(dir, "reference.toml", format);
    let caps = dir.join("caps");
    let o = run(
        &[
            "-n",
            "4",
            "--net",
            &net,
            "--capture",
            caps.to_str().unwrap(),
        ],
        &prog,
        &[],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(out.matches(" ok\n").count(), 4, "{out}");
    caps
}

#[test]
fn a_known_program_is_decoded_message_for_message_across_segments() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let caps = run_wire_messages(dir.path(), "pcap");
    // What tests/mpi/wire_messages.c sends, per (source, destination) in
    // order: kind (1 eager, 2 RTS, 3 CTS, 4 data, 5 ack), ranks, tag,
    // context (0 WORLD; the dup gets 4, the split 8: each communicator a
    // block of four context ids), sequence per
    // (src, dst, context) with CTS/data/ack repeating their message's,
    // call (1 MPI_Send, 2 MPI_Isend, 3 MPI_Ssend), message and payload length.
    let mut expected: BTreeMap<(u32, u32), Vec<Msg>> = BTreeMap::new();
    expected.insert(
        (0, 1),
        vec![
            msg(1, 0, 1, 7, 0, 0, 1, 32, 32),
            msg(2, 0, 1, 8, 0, 1, 1, 100_000, 0),
            msg(4, 0, 1, 8, 0, 1, 1, 100_000, 100_000),
            msg(5, 0, 1, 9, 0, 0, 3, 0, 0),
        ],
    );
    expected.insert(
        (1, 0),
        vec![
            msg(3, 1, 0, 8, 0, 1, 1, 100_000, 0),
            msg(1, 1, 0, 9, 0, 0, 3, 16, 16),
        ],
    );
    expected.insert(
        (2, 0),
        vec![
            msg(1, 2, 0, 3, 4, 0, 2, 40_000, 40_000),
            msg(1, 2, 0, 4, 8, 0, 1, 2_000, 2_000),
        ],
    );
    expected.insert((3, 2), vec![msg(1, 3, 2, 5, 0, 0, 1, 0, 0)]);

    let mut got: BTreeMap<(u32, u32), Vec<Msg>> = BTreeMap::new();
    let mut reassembled: BTreeMap<(u32, u32, i32), String> = BTreeMap::new();
    let mut collective = 0;
    for host in 0..4u32 {
        // Each message once: in its sender's capture, as sent.
        let filter = format!("mpinetsim && ip.src == 10.0.0.{}", host + 1);
        for (m, r) in decoded(&caps.join(format!("host{host}.pcap")), &filter, &[]) {
            assert_eq!(m.src, host, "{m:?} in host{host}'s outgoing frames");
            if m.context % 2 == 1 {
                // Context agreement of MPI_Comm_dup / MPI_Comm_split (and
                // the split's colours): WORLD's collective context; the tag
                // is the call's number on WORLD (0, 1) above its call code.
                assert_eq!((m.context, m.comm.as_str()), (1, "WORLD (collective)"));
                assert!(m.call == 64 || m.call == 65, "{m:?}");
                assert_eq!(m.tag, ((m.call as i32 - 64) << 8) | m.call as i32, "{m:?}");
                collective += 1;
                continue;
            }
            reassembled.insert((m.src, m.kind, m.tag), r);
            got.entry((m.src, m.dst)).or_default().push(m);
        }
    }
    assert_eq!(got, expected);
    assert!(collective > 0, "the communicator creations show up");
    // The multi-segment messages were reassembled whole: header + payload.
    assert_eq!(reassembled[&(0, 4, 8)], "100056", "100 KB rendezvous data");
    assert_eq!(reassembled[&(2, 1, 3)], "40056", "40 KB eager");
    assert_eq!(reassembled[&(0, 1, 7)], "", "32 B fits one segment");

    // The receiver's capture decodes the same messages (its incoming frames).
    let at0: Vec<Msg> = decoded(
        &caps.join("host0.pcap"),
        "mpinetsim && ip.dst == 10.0.0.1",
        &[],
    )
    .into_iter()
    .map(|(m, _)| m)
    .filter(|m| m.context % 2 == 0)
    .collect();
    let mut to0: Vec<Msg> = expected
        .values()
        .flatten()
        .filter(|m| m.dst == 0)
        .cloned()
        .collect();
    let mut at0_sorted = at0.clone();
    at0_sorted.sort();
    to0.sort();
    assert_eq!(at0_sorted, to0);

    // The Info column.
    let lua = dissector();
    let info = tshark_fields(
        &caps.join("host1.pcap"),
        &["-X", &lua, "-Y", "mpinetsim.tag == 7 || mpinetsim.tag == 9"],
        &["_ws.col.Info"],
    );
    let info: Vec<String> = info.into_iter().map(|r| r[0].join(";")).collect();
    assert_eq!(
        info,
        [
            "MPI eager 0→1 tag=7 comm=WORLD 32 B (MPI_Send)",
            "MPI eager 1→0 tag=9 comm=WORLD 16 B (MPI_Ssend)",
            "MPI ack 0→1 tag=9 comm=WORLD 0 B (MPI_Ssend)",
        ]
    );
}

#[test]
fn rank_names_resolve_from_pcapng_and_from_the_hosts_file() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let caps = run_wire_messages(dir.path(), "pcapng");
    // pcapng: one file per node, the name resolution block inside.
    let mut names: Vec<String> = std::fs::read_dir(&caps)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "host0.pcapng",
            "host1.pcapng",
            "host2.pcapng",
            "host3.pcapng",
            "hosts",
            "switch0.pcapng"
        ]
    );
    let ip_and_names = |file: &Path, extra: &[&str]| {
        let mut args = vec!["-N", "n", "-Y", "mpinetsim && mpinetsim.context == 0"];
        let lua = dissector();
        args.extend_from_slice(&["-X", &lua]);
        args.extend_from_slice(extra);
        let mut v: Vec<(String, String, String)> = tshark_fields(
            file,
            &args,
            &["mpinetsim.src", "ip.src_host", "ip.dst_host"],
        )
        .into_iter()
        .map(|r| (r[0][0].clone(), r[1][0].clone(), r[2][0].clone()))
        .collect();
        v.sort();
        v.dedup();
        v
    };
    // Each rank's host shows as the rank's name: the envelope's source rank
    // and the resolved source address agree.
    let from_ng = ip_and_names(&caps.join("switch0.pcapng"), &[]);
    assert_eq!(
        from_ng,
        [
            ("0".into(), "rank0".into(), "rank1".into()),
            ("1".into(), "rank1".into(), "rank0".into()),
            ("3".into(), "rank3".into(), "rank2".into()),
        ]
    );
    // Without name resolution the addresses stay numeric (so the names above
    // came from the file).
    let lua = dissector();
    let plain = tshark_fields(
        &caps.join("host3.pcapng"),
        &["-n", "-X", &lua, "-Y", "mpinetsim"],
        &["ip.src_host"],
    );
    assert!(plain.iter().all(|r| r[0][0].starts_with("10.0.0.")));

    // Classic pcap: the hosts file beside the captures, given to tshark -H.
    let dir2 = tempfile::tempdir().unwrap();
    let caps2 = run_wire_messages(dir2.path(), "pcap");
    let hosts = std::fs::read_to_string(caps2.join("hosts")).unwrap();
    for i in 0..4 {
        assert!(
            hosts.contains(&format!("10.0.0.{}\trank{i} host{i}\n", i + 1)),
            "{hosts}"
        );
    }
    let hosts_path = caps2.join("hosts");
    let from_hosts = ip_and_names(
        &caps2.join("host1.pcap"),
        &["-H", hosts_path.to_str().unwrap()],
    );
    assert_eq!(
        from_hosts,
        [
            ("0".into(), "rank0".into(), "rank1".into()),
            ("1".into(), "rank1".into(), "rank0".into()),
        ]
    );
}

/// Runs `prog` on `ranks` ranks of the reference network with captures;
/// returns the capture folder (inside `dir`) and the program's stdout.
fn run_captured(dir: &Path, prog: &Path, ranks: &str) -> (std::path::PathBuf, String) {
    let caps = dir.join("caps");
    let o = run(
        &[
            "-n",
            ranks,
            "--net",
            &config("reference.toml"),
            "--capture",
            caps.to_str().unwrap(),
        ],
        prog,
        &[],
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (caps, out)
}

/// Every envelope rank `r` sent, decoded from its host's capture (which
/// also holds what it received).
fn sent_by(caps: &Path, r: u32) -> Vec<Msg> {
    decoded(&caps.join(format!("host{r}.pcap")), "mpinetsim", &[])
        .into_iter()
        .map(|(m, _)| m)
        .filter(|m| m.src == r)
        .collect()
}

/// tests/mpi/neighbor_traffic.c: every edge of a topology carries exactly
/// one message of a neighbourhood collective (edges to MPI_PROC_NULL none),
/// and no other pair of ranks exchanges any.
#[test]
fn neighbourhood_collectives_send_one_message_per_edge() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let prog = build_c("neighbor_traffic", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let (caps, out) = run_captured(dir.path(), &prog, "4");
    assert_eq!(out.matches(" ok\n").count(), 4, "{out}");
    let mut got: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    for r in 0..4 {
        for m in sent_by(&caps, r) {
            if m.call >= 96 {
                assert_eq!((m.kind, m.msg_len), (1, 4), "{m:?}");
                *got.entry((m.call, m.src, m.dst)).or_default() += 1;
            }
        }
    }
    let mut want: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    for r in 0..4u32 {
        // MPI_Neighbor_alltoall (98) on a 2 x 2 grid periodic in its first
        // dimension: both neighbours in that dimension are the rank in the
        // other row; along the row, one neighbour is MPI_PROC_NULL.
        want.insert((98, r, r ^ 2), 2);
        want.insert((98, r, r ^ 1), 1);
        // MPI_Neighbor_alltoallv (99) on a ring of 4.
        want.insert((99, r, (r + 1) % 4), 1);
        want.insert((99, r, (r + 3) % 4), 1);
        // MPI_Neighbor_allgather (96) on a star around rank 0.
        if r > 0 {
            want.insert((96, 0, r), 1);
            want.insert((96, r, 0), 1);
        }
    }
    assert_eq!(got, want);
    assert_eq!(got.values().sum::<u32>(), 12 + 8 + 6);
}

/// tests/mpi/intercomm_traffic.c: intercommunicator collectives travel
/// as point-to-point messages between the groups {0, 1} and {2, 3}, as
/// MPICH's algorithms send them: a broadcast (blocking or not) goes to the
/// remote leader, which broadcasts in its group; an all-to-all sends once
/// from every rank to every remote rank; a short scatter sends every block
/// to the remote leader, which scatters them in its group.
#[test]
fn intercommunicator_collectives_cross_between_the_groups() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let prog = build_c("intercomm_traffic", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let (caps, out) = run_captured(dir.path(), &prog, "4");
    assert_eq!(out.matches(" ok\n").count(), 4, "{out}");
    // MPI_Bcast 33, MPI_Scatter 38, MPI_Alltoall 42, MPI_Ibcast 129.
    let mut got: BTreeMap<(u32, u32, u32, u64), u32> = BTreeMap::new();
    for r in 0..4 {
        for m in sent_by(&caps, r) {
            if [33, 38, 42, 129].contains(&m.call) {
                assert_eq!(m.kind, 1, "{m:?}");
                *got.entry((m.call, m.src, m.dst, m.msg_len)).or_default() += 1;
            }
        }
    }
    let mut want: BTreeMap<(u32, u32, u32, u64), u32> = BTreeMap::new();
    want.insert((33, 0, 2, 12), 1);
    want.insert((33, 2, 3, 12), 1);
    want.insert((129, 2, 0, 12), 1);
    want.insert((129, 0, 1, 12), 1);
    for a in 0..2u32 {
        for b in 2..4u32 {
            want.insert((42, a, b, 4), 1);
            want.insert((42, b, a, 4), 1);
        }
    }
    want.insert((38, 3, 0, 8), 1);
    want.insert((38, 0, 1, 4), 1);
    assert_eq!(got, want);
}

/// tests/mpi/cancel_sends.c: each MPI_Cancel of a send is one cancel
/// request to the destination and one reply; five of the six sends were
/// cancelled, and the cancelled rendezvous send never sent its data.
#[test]
fn a_cancelled_send_costs_one_request_and_one_reply_on_the_wire() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let prog = build_c("cancel_sends", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let (caps, out) = run_captured(dir.path(), &prog, "2");
    assert!(out.contains("cancelled 5 of 6\n"), "{out}");
    assert!(out.contains("cancel_sends: 9 checks passed\n"), "{out}");
    let from0 = sent_by(&caps, 0);
    let from1 = sent_by(&caps, 1);
    let requests: Vec<&Msg> = from0.iter().filter(|m| m.kind == 8).collect();
    let replies: Vec<&Msg> = from1.iter().filter(|m| m.kind == 9).collect();
    assert_eq!((requests.len(), replies.len()), (6, 6));
    // MPI_Cancel's call code, and 1 in a reply's length: cancelled.
    assert!(requests
        .iter()
        .chain(&replies)
        .all(|m| m.call == 18 && m.dst != m.src));
    assert_eq!(replies.iter().filter(|m| m.msg_len == 1).count(), 5);
    // The 400000-byte send: its request to send, then no data.
    let big = |k: u32| {
        from0
            .iter()
            .filter(|m| m.kind == k && m.msg_len == 400_000)
            .count()
    };
    assert_eq!((big(2), big(4)), (1, 0));
}

/// tests/mpi/rma_traffic.c: each one-sided operation is one request from
/// the origin and one ack or reply from the target, which the dissector
/// names with the target displacement and the accumulate op.
#[test]
fn each_one_sided_operation_is_a_request_and_an_answer_on_the_wire() {
    if skip_without_mpicc() || !tshark_available() {
        return;
    }
    let prog = build_c("rma_traffic", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let (caps, out) = run_captured(dir.path(), &prog, "2");
    assert_eq!(out.matches(" ok\n").count(), 2, "{out}");
    let rma = |r: u32| -> Vec<(u32, u32, u64, u64)> {
        sent_by(&caps, r)
            .into_iter()
            .filter(|m| m.kind >= 10)
            .map(|m| (m.kind, m.call, m.msg_len, m.payload_len))
            .collect()
    };
    // Requests: put 64 B (its data after the target description of
    // MPI_INT: 72 bytes and one run group of 33), get 64 B, accumulate
    // 16 B, fetch-and-op 4 B (call codes 21, 22, 23, 25).
    let d = 72 + 33;
    assert_eq!(
        rma(0),
        vec![
            (10, 21, 64, d + 64),
            (11, 22, 64, d),
            (12, 23, 16, d + 16),
            (13, 25, 4, d + 4)
        ]
    );
    // Answers in the order the target applied them: put ack, get reply
    // (64 B of data at offset 0), accumulate ack, fetch-and-op reply.
    assert_eq!(
        rma(1),
        vec![
            (15, 21, 0, 0),
            (16, 22, 0, 64),
            (15, 23, 0, 0),
            (16, 25, 0, 4)
        ]
    );
    let lua = dissector();
    let rows = tshark_fields(
        &caps.join("host0.pcap"),
        &[
            "-X",
            &lua,
            "-Y",
            "mpinetsim.kind >= 10 && mpinetsim.kind <= 14",
        ],
        &["mpinetsim.rma.disp", "mpinetsim.rma.op", "_ws.col.Info"],
    );
    let disps: Vec<String> = rows.iter().flat_map(|r| r[0].clone()).collect();
    let ops: Vec<String> = rows.iter().flat_map(|r| r[1].clone()).collect();
    assert_eq!(disps, ["32", "0", "4", "0"]);
    // Put and get say REPLACE and NO_OP, accumulate SUM, fetch-and-op MAX.
    assert_eq!(ops, ["12", "13", "2", "0"]);
    let info: String = rows.iter().map(|r| r[2].join(" ")).collect();
    assert!(info.contains("MPI Put 0→1 win="), "{info}");
    assert!(info.contains("MPI Accumulate SUM 0→1"), "{info}");
}

/// The dissector names every call code the shim's envelope can carry, as
/// the engine does (so new calls show up by name in Wireshark).
#[test]
fn the_dissector_names_every_call_code_as_the_engine_does() {
    use shim_engine::envelope::CallCode;
    let lua = std::fs::read_to_string(root().join("docs/wireshark/mpinetsim.lua")).unwrap();
    let table = &lua[lua.find("local calls = {").unwrap()..];
    let table = &table[..table.find("\n}\n").unwrap()];
    let mut named = BTreeMap::new();
    for entry in table.split('[').skip(1) {
        let (code, rest) = entry.split_once("] = \"").unwrap();
        let name = &rest[..rest.find('"').unwrap()];
        named.insert(code.trim().parse::<u8>().unwrap(), name.to_string());
    }
    let engine: BTreeMap<u8, String> = (0..=255u8)
        .filter_map(|b| CallCode::from_u8(b).map(|c| (b, c.name().to_string())))
        .map(|(b, n)| (b, if b == 0 { "other".to_string() } else { n }))
        .collect();
    assert_eq!(named, engine);
}
