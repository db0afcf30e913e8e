//! Release benchmark of the packet simulator: wall time and events per
//! second for the two workloads of the MPI-NeTSim reference network, with
//! captures off and with every port captured, as pcap and as pcapng (drained with vectored
//! writes to /dev/null every 65536 events: the cost of building and handing
//! over the frames, not of a disk).
//!
//! Run: `cargo bench -p netsim --bench netsim_bench` (add `-- --quick` for
//! one repetition). Prints one line per case and the capture-on/off ratios.

use netsim::config::CaptureFormat;
use netsim::workload::{self, Pattern, Workload};
use netsim::{NetworkConfig, Simulator};
use std::time::Instant;

struct Case {
    name: &'static str,
    pattern: Pattern,
    size: usize,
    iters: u64,
}

fn run(cfg: &NetworkConfig, case: &Case, capture: Option<CaptureFormat>) -> (f64, u64, u64) {
    let mut all = cfg.clone();
    // Every host NIC and every switch port.
    all.capture.points = vec!["*".to_string()];
    all.capture.format = capture.unwrap_or_default();
    let mut sim = Simulator::from_config(&all, "reference.toml", 4, capture.is_some()).unwrap();
    let w = Workload {
        pattern: case.pattern,
        size: case.size,
        iters: case.iters,
        seed: 1,
        verify: false,
    };
    let mut captured = 0u64;
    let mut sink = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let t = Instant::now();
    let out = workload::run_with(&mut sim, &w, workload::FLUSH_EVERY_EVENTS, |sim| {
        for cp in sim.captures_mut() {
            captured += cp.pending_len() as u64;
            cp.drain_to(&mut sink).unwrap();
        }
        Ok(())
    })
    .unwrap();
    (t.elapsed().as_secs_f64(), out.events, captured)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 1 } else { 5 };
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/reference.toml");
    let cfg =
        netsim::loader::from_file(std::path::Path::new(path), std::fs::read_to_string).unwrap();
    let cases = [
        Case {
            name: "pingpong 10000 x 32 B",
            pattern: Pattern::PingPong,
            size: 32,
            iters: 10_000,
        },
        Case {
            name: "alltoall 4 hosts x 16 MiB",
            pattern: Pattern::AllToAll,
            size: 16 << 20,
            iters: 1,
        },
    ];
    println!(
        "{:<28} {:>9} {:>12} {:>10} {:>14} {:>12}",
        "case", "captures", "events", "wall_s", "events_per_s", "pcap_MiB"
    );
    // `-- pingpong` or `-- alltoall` runs one case only.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for case in cases
        .iter()
        .filter(|c| only.is_empty() || only.iter().any(|o| c.name.starts_with(o.as_str())))
    {
        let mut best = [f64::MAX; 3];
        let modes = [None, Some(CaptureFormat::Pcap), Some(CaptureFormat::Pcapng)];
        for (i, capture) in modes.into_iter().enumerate() {
            for _ in 0..reps {
                let (wall, events, bytes) = run(&cfg, case, capture);
                if wall < best[i] {
                    best[i] = wall;
                    println!(
                        "{:<28} {:>9} {:>12} {:>10.4} {:>14.0} {:>12.1}",
                        case.name,
                        match capture {
                            None => "off",
                            Some(CaptureFormat::Pcap) => "pcap",
                            Some(CaptureFormat::Pcapng) => "pcapng",
                        },
                        events,
                        wall,
                        events as f64 / wall,
                        bytes as f64 / (1 << 20) as f64
                    );
                }
            }
        }
        println!(
            "{:<28} capture-on / capture-off wall time (best of {reps}): pcap {:.2}x, pcapng {:.2}x",
            case.name,
            best[1] / best[0],
            best[2] / best[0]
        );
    }
}
