//! Faults through the `mpinetsim` command: `--fault` on `simulate` and
//! `run`, the network events in reports and pcapng captures, one-sentence
//! errors and the partition timeout.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// Two hosts on a switch, 1 Gbps, 0.5 ms per link, every segment ACKed at
/// once (the closed forms of netsim/tests/faults.rs).
const TWO_HOSTS: &str = "name = 'two'\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n\
    [tcp]\ndelayed_ack='0'\n\
    [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
    [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n";

/// Four hosts on a switch.
const STAR4: &str = "[link_defaults]\nrate='1Gbps'\ndelay='500us'\n\
    [[host]]\nname='host0'\n[[host]]\nname='host1'\n[[host]]\nname='host2'\n[[host]]\nname='host3'\n\
    [[switch]]\nname='switch0'\n\
    [[link]]\na='host0'\nb='switch0'\n[[link]]\na='host1'\nb='switch0'\n\
    [[link]]\na='host2'\nb='switch0'\n[[link]]\na='host3'\nb='switch0'\n";

const MS: u64 = 1_000_000;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn simulate(args: &[&str]) -> Output {
    Command::new(bin())
        .arg("simulate")
        .args(args)
        .output()
        .expect("run mpinetsim")
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn events(list: &Value) -> Vec<(u64, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["at_ns"].as_u64().unwrap(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ev(at: u64, kind: &str) -> (u64, String) {
    (at, kind.to_string())
}

#[test]
fn simulate_with_a_link_down_delays_the_pingpong_by_one_rto_and_reports_the_events() {
    let dir = tempfile::tempdir().unwrap();
    let net = write(dir.path(), "two.toml", TWO_HOSTS);
    let (base, faulty) = (dir.path().join("base.json"), dir.path().join("fault.json"));
    let common = ["--net", &net, "--iters", "100", "--verify"];
    let o = simulate(&[&common[..], &["--report", base.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = simulate(
        &[
            &common[..],
            &[
                "--report",
                faulty.to_str().unwrap(),
                "--fault",
                "link h0-s down at 10ms for 50ms",
            ],
        ]
        .concat(),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("network events:   5"), "{out}");
    assert!(out.contains("10.000 ms link-down h0-s: scheduled"), "{out}");
    let (b, f) = (json(&base), json(&faulty));
    assert_eq!(b["result"]["messages"], 200);
    assert_eq!(f["result"]["messages"], 200);
    assert_eq!(f["result"]["corrupted"], 0);
    // The one message on (or toward) the failed link is retransmitted one
    // RTO (200 ms) after it was sent instead of waiting one ACK (672 ns)
    // behind the previous message's ACK; every other message is unchanged.
    let delay =
        f["result"]["runtime_ns"].as_u64().unwrap() - b["result"]["runtime_ns"].as_u64().unwrap();
    assert_eq!(delay, 200 * MS - 672);
    assert_eq!(
        events(&f["stats"]["network_events"]),
        vec![
            ev(10 * MS, "link-down"),
            ev(10 * MS, "partitioned"),
            ev(60 * MS, "link-up"),
            ev(60 * MS, "partition-healed"),
            ev(110 * MS, "routes-recomputed"),
        ]
    );
    assert!(events(&b["stats"]["network_events"]).is_empty());
    let lost: u64 = f["stats"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["drops_down"].as_u64().unwrap())
        .sum();
    let unroutable: u64 = f["stats"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["drops_unroutable"].as_u64().unwrap())
        .sum();
    // A data segment and an ACK: lost on the failed link, or sent toward it.
    assert_eq!(lost + unroutable, 2);
}

#[test]
fn bad_faults_are_one_sentence_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let net = write(dir.path(), "two.toml", TWO_HOSTS);
    for (spec, want) in [
        (
            "link h0-h1 down at 1ms",
            "--fault 'link h0-h1 down at 1ms' names link 'h0-h1', which matches no link",
        ),
        (
            "link h0-s sideways at 1ms",
            "--fault 'link h0-s sideways at 1ms': unknown word 'sideways'",
        ),
        ("link h0-s down", "--fault 'link h0-s down' has no `at`"),
        (
            "node s rate 1Mbps at 1ms",
            "--fault 'node s rate 1Mbps at 1ms' degrades a node",
        ),
    ] {
        let o = simulate(&["--net", &net, "--fault", spec]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{spec}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("mpinetsim: {want}")), "{err}");
        assert!(out.is_empty());
    }
    let bad = write(
        dir.path(),
        "bad.toml",
        &format!("{TWO_HOSTS}[[fault]]\nlink='h0-s'\nat='1ms'\nfor='later'\n"),
    );
    let o = simulate(&["--net", &bad]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("fault[0].for") && err.contains("later"),
        "{err}"
    );
}

#[test]
fn a_partition_that_outlasts_its_timeout_ends_simulate_naming_the_groups() {
    let dir = tempfile::tempdir().unwrap();
    let net = write(
        dir.path(),
        "star.toml",
        &format!("{STAR4}[faults]\npartition_timeout='1s'\n"),
    );
    let rep = dir.path().join("r.json");
    let o = simulate(&[
        "--net",
        &net,
        "--workload",
        "ring",
        "--iters",
        "1000",
        "--fault",
        "link host2-switch0 down at 10ms",
        "--report",
        rep.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    // The same exit code as `run` for a partition (3).
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("mpinetsim: the network is partitioned since 10.000 ms: [host0 (rank 0), host1 (rank 1), host3 (rank 3)] and [host2 (rank 2)] cannot reach each other, and messages from rank "),
        "{err}"
    );
    assert!(out.contains("partition-timeout"), "{out}");
    let r = json(&rep);
    assert_eq!(r["outcome"], "network_failed");
    // The waiting message was sent before or soon after the split: the run
    // ends one timeout after the later of the two.
    let at = r["failure"]["at_ns"].as_u64().unwrap();
    assert!((1_010 * MS..1_015 * MS).contains(&at), "{at}");
    let ev = events(&r["stats"]["network_events"]);
    assert_eq!(ev.first(), Some(&(10 * MS, "link-down".to_string())));
    assert_eq!(ev.last(), Some(&(at, "partition-timeout".to_string())));
}

#[test]
fn pcapng_captures_carry_the_network_events_as_comments_tshark_reads() {
    if skip_without_tshark() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    let rep = dir.path().join("r.json");
    let o = simulate(&[
        "--net",
        &config("faults-example.toml"),
        "--iters",
        "200",
        "--verify",
        "--capture",
        caps.to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = assert_captures_valid(&caps);
    assert_eq!(files.len(), 2, "{files:?}");
    let r = json(&rep);
    let logged: Vec<String> = r["stats"]["network_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{:.9}\t{}",
                e["at_ns"].as_u64().unwrap() as f64 / 1e9,
                e["kind"].as_str().unwrap()
            )
        })
        .collect();
    assert!(logged.len() >= 4, "{logged:?}");
    for (file, _) in files {
        let o = Command::new("tshark")
            .arg("-r")
            .arg(caps.join(&file))
            .args([
                "-Y",
                "frame.comment",
                "-T",
                "fields",
                "-e",
                "frame.time_epoch",
                "-e",
                "frame.interface_name",
                "-e",
                "frame.comment",
            ])
            .output()
            .unwrap();
        let shown: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f[1], "mpinetsim-events", "{l}");
                // "20.000 ms link-down router0-router1: scheduled" → kind
                format!(
                    "{}\t{}",
                    f[0],
                    f[2].split(' ').nth(2).unwrap().trim_end_matches(':')
                )
            })
            .collect();
        assert_eq!(shown, logged, "{file}");
    }
}

fn pingpong_net(dir: &Path, extra: &str) -> String {
    write(dir, "two.toml", &format!("{TWO_HOSTS}{extra}"))
}

#[test]
fn run_pingpong_with_a_link_down_recovers_and_reports_the_events() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let net = pingpong_net(dir.path(), "");
    let rep = dir.path().join("r.json");
    // 300 round trips of ~2 ms: the link fails in the middle of them.
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &net,
            "--report",
            rep.to_str().unwrap(),
            "--fault",
            "link h0-s down at 300ms for 50ms",
        ],
        &prog,
        &["300", "32"],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("rank 0 errors=0") && out.contains("rank 1 errors=0"),
        "{out}"
    );
    // One message waits an RTO (200 ms) instead of ~1 ms: the average
    // one-way time of 600 messages grows by about 1/3 ms over 1.00176 ms.
    let one_way: f64 = out
        .split("one_way_us=")
        .nth(1)
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(one_way > 1_250.0 && one_way < 2_000.0, "{one_way}");
    assert!(err.contains("mpinetsim: network events: 5"), "{err}");
    assert!(
        err.contains("300.000 ms link-down h0-s: scheduled"),
        "{err}"
    );
    let r = json(&rep);
    assert_eq!(r["outcome"], "completed");
    let ev = events(&r["network_stats"]["network_events"]);
    assert_eq!(ev[0], (300 * MS, "link-down".to_string()));
    assert!(ev.contains(&(350 * MS, "link-up".to_string())), "{ev:?}");
    let timeouts: u64 = r["network_stats"]["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["timeouts"].as_u64().unwrap())
        .sum();
    assert!(timeouts >= 1, "{timeouts}");
}

#[test]
fn run_stops_the_ranks_when_a_partition_outlasts_its_timeout() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let net = pingpong_net(dir.path(), "[faults]\npartition_timeout='300ms'\n");
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &net,
            "--fault",
            "link h1-s down at 100ms",
        ],
        &prog,
        &["100000", "32"],
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}\n{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("mpinetsim: the network is partitioned"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.starts_with("mpinetsim: the network is partitioned since 100.000 ms: [h0 (rank 0)] and [h1 (rank 1)] cannot reach each other")
            && line.ends_with("; the ranks were stopped"),
        "{line}"
    );
}

/// The retransmission timeout of [`slow_rto_net`], s: long beside the
/// ranks' scheduling noise, so an outage's cost stands out clearly.
const RTO_S: f64 = 1.0;

/// TWO_HOSTS with a 1 s minimum RTO.
fn slow_rto_net(dir: &Path) -> String {
    write(
        dir,
        "two-slow-rto.toml",
        &TWO_HOSTS.replace("[tcp]\n", "[tcp]\nrto_min='1s'\n"),
    )
}

/// Emulated runtime of `pingpong 150 32` on the healthy TWO_HOSTS network.
fn healthy_pingpong_runtime_s(prog: &Path, net: &str, dir: &Path) -> f64 {
    let rep = dir.join("healthy.json");
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            net,
            "--time-factor",
            "4",
            "--report",
            rep.to_str().unwrap(),
        ],
        prog,
        &["150", "32"],
    );
    assert!(o.status.success(), "{:?}", text(&o));
    json(&rep)["emulated_runtime_s"].as_f64().unwrap()
}

#[test]
fn compare_puts_a_link_outage_beside_the_healthy_network() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let net = slow_rto_net(dir.path());
    let out_json = dir.path().join("compare.json");
    let o = Command::new(bin())
        .args(["compare", "-n", "2", "--time-factor", "4", "--net", &net])
        .args(["--fault", "link h0-s down at 150ms for 50ms"])
        .args(["--report", out_json.to_str().unwrap()])
        .args([
            "--rank-output",
            dir.path().join("ranks.txt").to_str().unwrap(),
        ])
        .arg("--")
        .arg(&prog)
        .args(["150", "32"])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let rows = json(&out_json)["rows"].clone();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[1]["network"].as_str().unwrap(),
        format!("{net} with fault 'link h0-s down at 150ms for 50ms'")
    );
    let healthy = rows[0]["runtime_s"].as_f64().unwrap();
    let faulty = rows[1]["runtime_s"].as_f64().unwrap();
    // Exactly one message crosses the dead link and waits one RTO (the
    // 1 s minimum) for its retransmission: the run is 1 s longer. (The
    // tolerance covers the ranks' own scheduling delays, which count as
    // emulated time divided by the factor: tens of ms on a loaded machine.)
    let delay = faulty - healthy;
    assert!(
        (delay - RTO_S).abs() < 0.04,
        "outage cost {delay} s, want {RTO_S} s"
    );
}

#[test]
fn calibrate_applies_the_fault_to_every_run() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("pingpong", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let net = slow_rto_net(dir.path());
    let out = dir.path().join("cal");
    let o = Command::new(bin())
        .args([
            "calibrate",
            "-n",
            "2",
            "--factors",
            "2,3,4",
            "--repeat",
            "1",
            "--net",
            &net,
        ])
        .args(["--fault", "link h0-s down at 150ms for 50ms"])
        .args(["--out", out.to_str().unwrap()])
        .arg("--")
        .arg(&prog)
        .args(["150", "32"])
        .output()
        .unwrap();
    let (stdout, err) = text(&o);
    // 0 when a factor converged, 1 when none did (noise on a loaded
    // machine): either way every run completed and was recorded.
    assert!(matches!(o.status.code(), Some(0 | 1)), "{stdout}\n{err}");
    let cal = json(&out.join("calibration.json"));
    assert_eq!(cal["faults"][0], "link h0-s down at 150ms for 50ms");
    let runs = cal["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    // Each run pays the outage: one RTO (200 ms) over the healthy runtime.
    let healthy = healthy_pingpong_runtime_s(&prog, &net, dir.path());
    for r in runs {
        let delay = r["emulated_runtime_s"].as_f64().unwrap() - healthy;
        assert!(
            (delay - RTO_S).abs() < 0.04,
            "outage cost {delay} s, want {RTO_S} s: {r}"
        );
    }
}

#[test]
fn compare_and_calibrate_check_faults_before_the_first_run() {
    let dir = tempfile::tempdir().unwrap();
    let net = slow_rto_net(dir.path());
    for sub in ["compare", "calibrate"] {
        let o = Command::new(bin())
            .args([
                sub,
                "-n",
                "2",
                "--net",
                &net,
                "--fault",
                "link nowhere down at 1ms",
            ])
            .args(["--", "/bin/true"])
            .output()
            .unwrap();
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{sub}: {err}");
        assert_eq!(err.lines().count(), 1, "{sub}: {err}");
        assert!(err.contains("matches no link"), "{sub}: {err}");
    }
}
