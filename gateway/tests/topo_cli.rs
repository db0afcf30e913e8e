//! `mpinetsim topo` end to end: its numbers against closed forms, its JSON
//! and DOT files, the thesis string, and one-sentence errors.

mod common;

use common::{bin, config};
use std::path::PathBuf;
use std::process::{Command, Output};

fn topo(args: &[&str]) -> Output {
    Command::new(bin())
        .arg("topo")
        .args(args)
        .output()
        .expect("run mpinetsim")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mpinetsim-topo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn json(path: &PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn star_latency_and_hops_match_the_closed_form() {
    let net = scratch("star.toml");
    std::fs::write(
        &net,
        "[link_defaults]\nrate='1Gbps'\ndelay='1us'\n[topology]\nkind='star'\nhosts=5\n",
    )
    .unwrap();
    let out_json = scratch("star.json");
    let o = topo(&[
        "--net",
        net.to_str().unwrap(),
        "--pattern",
        "alltoall",
        "--size",
        "64",
        "--json",
        out_json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&out_json);
    assert_eq!(v["pairs"], 20);
    assert_eq!(v["mean_hops"], 2.0);
    assert_eq!(v["diameter_hops"], 2);
    // One 64-byte segment: 64 + 20 TCP + 20 IPv4 + 18 Ethernet + 20 gap =
    // 142 wire bytes = 1136 ns at 1 Gbit/s, plus 1 us, over two links.
    assert_eq!(v["mean_latency_ns"], 2.0 * (1136.0 + 1000.0));
    // The switch handles every one of the 20 messages.
    assert_eq!(v["handled"][0][0], "switch0");
    assert_eq!(v["handled"][0][1], 20);
}

#[test]
fn hypercube_alltoall_load_and_dot_file() {
    let net = scratch("cube.toml");
    std::fs::write(
        &net,
        "[topology]\nkind='hypercube'\norder=4\nrouting='e-cube'\n",
    )
    .unwrap();
    let dot = scratch("cube.dot");
    let o = topo(&[
        "--net",
        net.to_str().unwrap(),
        "--pattern",
        "alltoall",
        "--dot",
        dot.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("nodes: 16 hosts, 0 switches, 16 routers; 48 links"),
        "{text}"
    );
    assert!(text.contains("diameter: 4 hops"), "{text}");
    // N·2^(N−1) = 32 messages through every node.
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("  router")).collect();
    assert_eq!(rows.len(), 16, "{text}");
    assert!(rows.iter().all(|l| l.trim_end().ends_with(" 32")), "{text}");
    let dot = std::fs::read_to_string(&dot).unwrap();
    assert!(dot.starts_with("graph network {"));
    assert_eq!(dot.matches(" -- ").count(), 48);
    assert_eq!(dot.matches("[shape=box]").count(), 16);
}

#[test]
fn thesis_string_and_bundled_files_work() {
    let o = topo(&[
        "--net",
        "xsim:type=mesh,ndimensions=3*3,nlatency=100,cores=4,ptype=mesh,pdimensions=2*2,platency=0.01",
        "-n",
        "36",
        "--pattern",
        "ring",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("36 hosts"), "{text}");
    let o = topo(&["--net", &config("torus-4x4.toml"), "--pairs", "1000"]);
    assert!(o.status.success());
}

#[test]
fn bad_input_is_one_sentence() {
    for (args, needle) in [
        (
            vec!["--net", "/nonexistent.toml"],
            "cannot read network file",
        ),
        (
            vec!["--net", "xsim:type=mesh,ndimensions=3*3", "-n", "8"],
            "holds 9 nodes",
        ),
        (vec!["--net", "xsim:type=mesh"], "vp=N"),
        (
            vec!["--net", "configs-missing", "--pattern", "zigzag"],
            "unknown pattern",
        ),
    ] {
        let o = topo(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}
