//! The Wireshark dissector (docs/wireshark/mpinetsim.lua) decodes the shim's
//! envelopes in captures of a known program, message for message, including
//! rendezvous messages spread over many TCP segments.

mod common;
use common::*;
use std::process::Command;

fn tshark_available() -> bool {
    let ok = Command::new("tshark")
        .arg("-v")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: tshark is not installed (apt-get install tshark)");
    }
    ok
}

/// (kind, src, dst, tag, message length) of every decoded envelope, in order.
fn decoded(pcap: &std::path::Path) -> Vec<(u32, u32, u32, i32, u64)> {
    let script = root().join("docs/wireshark/mpinetsim.lua");
    let o = Command::new("tshark")
        .arg("-X")
        .arg(format!("lua_script:{}", script.display()))
        .arg("-r")
        .arg(pcap)
        .args([
            "-Y",
            "mpinetsim",
            "-T",
            "fields",
            "-E",
            "occurrence=a",
            "-E",
            "aggregator=,",
        ])
        .args([
            "-e",
            "mpinetsim.kind",
            "-e",
            "mpinetsim.src",
            "-e",
            "mpinetsim.dst",
        ])
        .args(["-e", "mpinetsim.tag", "-e", "mpinetsim.msg_len"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut out = Vec::new();
    for line in String::from_utf8(o.stdout).unwrap().lines() {
        // One frame may carry several envelopes: each field lists them all.
        let cols: Vec<Vec<&str>> = line.split('\t').map(|c| c.split(',').collect()).collect();
        let field = |f: usize, i: usize| cols[f][i];
        out.extend((0..cols[0].len()).map(|i| {
            (
                field(0, i).parse().unwrap(),
                field(1, i).parse().unwrap(),
                field(2, i).parse().unwrap(),
                field(3, i).parse().unwrap(),
                field(4, i).parse().unwrap(),
            )
        }));
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
        assert_eq!(
            decoded(&caps.join("host1.pcap")),
            expected,
            "{bytes}-byte messages"
        );
    }
}
