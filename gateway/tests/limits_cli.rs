//! Inputs at and beyond mpinetsim's limits: each is refused with one
//! sentence (exit code 2) before anything starts, never a panic trace, an
//! allocator abort or a run that does not end.

mod common;
use common::*;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `mpinetsim ARGS`, killing it if it takes longer than `limit`.
fn mpinetsim_within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("mpinetsim {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The process failed with exit code 2 and one line on stderr containing
/// every needle.
fn one_sentence(o: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} missing in: {err}");
    }
    err
}

const QUICK: Duration = Duration::from_secs(20);

#[test]
fn a_time_factor_beyond_the_clock_is_refused_with_its_bound() {
    // 1e19 used to "complete" with zero emulated time; 1e13 to hang.
    for f in ["1e19", "1e13", "1000001"] {
        let o = mpinetsim_within(
            &[
                "run",
                "-n",
                "2",
                "--net",
                &config("reference.toml"),
                "--time-factor",
                f,
                "--",
                "/bin/true",
            ],
            QUICK,
        );
        one_sentence(
            &o,
            &["--time-factor", "above 1000000", "between 1 and 1000000"],
        );
    }
    let o = mpinetsim_within(
        &[
            "gateway",
            "-n",
            "2",
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "auto",
            "--auto-max",
            "1e300",
        ],
        QUICK,
    );
    let err = one_sentence(&o, &["--auto-max 1e300", "between 1 and 1000000"]);
    assert!(err.len() < 200, "no 300-digit factor: {err}");
}

/// Two switches with two hosts each and nothing between them.
fn islands(dir: &std::path::Path) -> String {
    let mut toml = String::new();
    for h in ["a", "b", "c", "d"] {
        toml += &format!("[[host]]\nname = \"{h}\"\n");
    }
    toml += "[[switch]]\nname = \"s1\"\n[[switch]]\nname = \"s2\"\n";
    for (h, s) in [("a", "s1"), ("b", "s1"), ("c", "s2"), ("d", "s2")] {
        toml += &format!("[[link]]\na = \"{h}\"\nb = \"{s}\"\n");
    }
    let path = dir.join("islands.toml");
    std::fs::write(&path, toml).unwrap();
    path.display().to_string()
}

#[test]
fn ranks_on_unconnected_hosts_are_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let net = islands(dir.path());
    let needles = [
        "islands.toml",
        "rank 0's host a and rank 2's host c are not connected",
    ];
    // simulate used to panic ("workload ranks are valid and routable").
    let o = mpinetsim_within(
        &["simulate", "--net", &net, "-n", "4", "--iters", "1"],
        QUICK,
    );
    one_sentence(&o, &needles);
    // Ranks on one island are fine.
    let o = mpinetsim_within(
        &["simulate", "--net", &net, "-n", "2", "--iters", "1"],
        QUICK,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // run used to start the ranks and then blame one of them.
    let marker = dir.path().join("started");
    let o = mpinetsim_within(
        &[
            "run",
            "-n",
            "4",
            "--net",
            &net,
            "--",
            "/bin/touch",
            marker.to_str().unwrap(),
        ],
        QUICK,
    );
    one_sentence(&o, &needles);
    assert!(!marker.exists(), "no rank was started");
}

#[test]
fn sizes_are_exact_integers_and_a_message_must_fit_in_memory() {
    let net = config("reference.toml");
    // 2^64 used to be accepted (rounded through a float).
    let o = mpinetsim_within(
        &["simulate", "--net", &net, "--size", "18446744073709551616"],
        QUICK,
    );
    one_sentence(
        &o,
        &["--size", "out of range; at most 18446744073709551615 bytes"],
    );
    // 100 GiB used to abort in the allocator.
    let o = mpinetsim_within(
        &[
            "simulate", "--net", &net, "--size", "100GiB", "--iters", "1",
        ],
        QUICK,
    );
    one_sentence(
        &o,
        &["--size 100GiB", "more than the", "GiB of memory available"],
    );
    let o = mpinetsim_within(&["simulate", "--net", &net, "--size", "0.5"], QUICK);
    one_sentence(&o, &["not a whole number of bytes"]);
}

#[test]
fn the_zero_load_latency_of_a_huge_message_is_computed_at_once() {
    // 2^53 + 1 bytes: 6.2e12 frames, which topo used to walk one by one
    // (minutes). Two hops of 1 Gbps and 0.5 ms: the train of full frames
    // paced at 12.304 us each, the last one and the two delays.
    let o = mpinetsim_within(
        &[
            "topo",
            "--net",
            &config("reference.toml"),
            "--size",
            "9007199254740993",
        ],
        QUICK,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    use netsim::base::time::serialization_time;
    use netsim::wire::packet::data_frame_wire_len;
    let bytes: u64 = (1 << 53) + 1;
    let frames = bytes.div_ceil(1460);
    let last = bytes - (frames - 1) * 1460;
    let t = |payload: u64| serialization_time(data_frame_wire_len(payload), 1_000_000_000).0;
    // The first hop sends frames back to back; the second finishes the
    // last full frame one frame time later, then the last frame.
    let model_ns = frames * t(1460) + t(last) + 2 * 500_000;
    let key = "zero-load latency of a 9007199254740993 B message ";
    let at = out
        .find(key)
        .unwrap_or_else(|| panic!("{key} not in {out}"))
        + key.len();
    let printed_us: f64 = out[at..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let model_us = model_ns as f64 / 1e3;
    assert!(
        (printed_us - model_us).abs() <= 1e-9 * model_us,
        "topo says {printed_us} us, the model {model_us} us"
    );
}

#[test]
fn many_prefixed_ranks_need_no_thread_each() {
    if skip_without("prlimit", "--version", "util-linux") || skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    ensure_shim();
    // 400 MiB of address space: too little for 128 output threads' stacks
    // (a thread per stream once panicked here); one thread forwards every
    // rank's output, so the job runs.
    let o = Command::new("prlimit")
        .arg(format!("--as={}", 400u64 << 20))
        .arg(bin())
        .args([
            "run",
            "-n",
            "64",
            "--prefix",
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "4",
            "--",
        ])
        .arg(&prog)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let mut ranks: Vec<u32> = out
        .lines()
        .map(|l| {
            let (r, rest) = l.strip_prefix('[').unwrap().split_once("] ").unwrap();
            assert!(rest.starts_with(&format!("hello from {r} of 64")), "{l}");
            r.parse().unwrap()
        })
        .collect();
    ranks.sort();
    assert_eq!(ranks, (0..64).collect::<Vec<_>>());
}

#[test]
fn a_network_setup_longer_than_the_threshold_says_how_long_and_how_large() {
    let net = config("reference.toml");
    let setup = |after: Option<&str>| {
        let mut c = Command::new(bin());
        c.args(["simulate", "--net", &net, "--iters", "1"]);
        if let Some(a) = after {
            c.env("MPINETSIM_PROGRESS_AFTER", a);
        }
        let o = c.output().unwrap();
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // Every setup takes longer than 0 s: the end is reported with the size
    // (4 hosts and a switch, 4 links, a rank per host).
    let err = setup(Some("0"));
    assert!(
        err.lines()
            .any(|l| l.starts_with("mpinetsim: network set up in ")
                && l.ends_with(" s: 5 nodes, 4 links, 4 ranks")),
        "{err}"
    );
    // The reference network is built in milliseconds: nothing by default.
    assert!(!setup(None).contains("network set up"));
}
