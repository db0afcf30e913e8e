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
fn link_loads_of_each_routing_choice_side_by_side() {
    // A k = 4 fat-tree's all-to-all: 16·15 = 240 flows; the 16·12 between
    // pods cross two of the 2·4·4 = 32 core link directions: mean 12.
    let report = scratch("fat.json");
    let run = |sets: &[&str]| {
        let mut args = vec![
            "--net".to_string(),
            config("fat-tree-4.toml"),
            "--pattern".into(),
            "alltoall".into(),
            "--json".into(),
            report.to_str().unwrap().into(),
        ];
        for s in sets {
            args.extend(["--set".to_string(), s.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = topo(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            json(&report),
        )
    };
    let (text, v) = run(&[]);
    assert!(text.contains("core links (fat-tree)"), "{text}");
    assert!(text.contains("  shortest (the network's)"), "{text}");
    let loads = v["link_load"].as_array().unwrap();
    assert_eq!(loads.len(), 4);
    let names: Vec<_> = loads.iter().map(|l| l["routing"].as_str()).collect();
    assert_eq!(
        names,
        [Some("shortest"), Some("ecmp"), Some("dmodk"), Some("spray")]
    );
    for l in loads {
        assert_eq!(l["flows"], 240);
        assert_eq!(l["core_links"]["directions"], 32);
        assert_eq!(l["core_links"]["mean"], 12.0);
    }
    // D-mod-k: (k²/4)(k − 1) = 12 flows on every core link direction.
    assert_eq!(loads[2]["core_links"]["min"], 12.0);
    assert_eq!(loads[2]["core_links"]["max"], 12.0);
    // Spraying splits every flow evenly at each fork: a flow between pods
    // puts 1/4 of its packets on each of the 4 cores' links, so each core
    // link direction expects the same 12 flows' worth.
    assert_eq!(loads[3]["core_links"]["min"], 12.0);
    assert_eq!(loads[3]["core_links"]["max"], 12.0);
    assert!(text.contains("\n  spray "), "{text}");
    // The network's own routing comes first; the same seed, the same loads.
    let (_, ecmp) = run(&["topology.routing=ecmp"]);
    assert_eq!(ecmp["link_load"][0], loads[1]);
    assert_eq!(ecmp["link_load"][1], loads[0]);
    let (_, other_seed) = run(&["topology.routing=ecmp", "seed=2"]);
    assert_eq!(other_seed["link_load"][1], loads[0]);
    assert_eq!(other_seed["link_load"][0]["core_links"]["mean"], 12.0);

    // E-cube on a 4-cube: every one of the 64 router link directions
    // carries 2^(N-1) = 8 of the all-to-all's flows, perfectly even.
    let net = scratch("cube-load.toml");
    std::fs::write(
        &net,
        "[topology]\nkind='hypercube'\norder=4\nrouting='e-cube'\n",
    )
    .unwrap();
    let cube = scratch("cube.json");
    let o = topo(&[
        "--net",
        net.to_str().unwrap(),
        "--pattern",
        "alltoall",
        "--json",
        cube.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&cube);
    let own = &v["link_load"][0];
    assert_eq!(own["routing"], "e-cube");
    assert_eq!(own["network_links"]["directions"], 64);
    assert_eq!(
        (
            own["network_links"]["min"].as_f64(),
            own["network_links"]["max"].as_f64()
        ),
        (Some(8.0), Some(8.0))
    );
    assert_eq!(own["core_links"], serde_json::Value::Null);
    assert_eq!(v["link_load"].as_array().unwrap().len(), 3);
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
