//! Runs a synthetic workload on a generated network in pure virtual time:
//! an all-to-all of 64 KiB messages among the 16 hosts of a 4 × 4 torus,
//! then prints the simulated runtime and the busiest links.
//!
//! Run: `cargo run --release -p netsim --example torus_alltoall`

use netsim::workload::{self, Pattern, Workload};
use netsim::{NetworkConfig, Simulator};

const NETWORK: &str = r#"
[topology]
kind = "torus"
dims = [4, 4]
[link_defaults]
rate = "10Gbps"
delay = "1us"
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = NetworkConfig::from_toml_str(NETWORK, "in code")?;
    let mut sim = Simulator::from_config(&cfg, "in code", 16, false)?;
    let w = Workload {
        pattern: Pattern::AllToAll,
        size: 64 << 10,
        iters: 1,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut sim, &w)?;
    println!(
        "{} messages, {} B in {:.3} ms of virtual time ({} events)",
        out.messages,
        out.bytes,
        out.runtime_ns as f64 / 1e6,
        sim.stats().events
    );
    let stats = sim.stats();
    let mut links: Vec<_> = stats.links.iter().collect();
    links.sort_by_key(|l| std::cmp::Reverse(l.bytes));
    for l in links.iter().take(5) {
        println!(
            "{:<16} {:>6} frames {:>9} B  busy {:.3} ms  peak queue {} frames",
            l.from_port,
            l.packets,
            l.bytes,
            l.busy_ns as f64 / 1e6,
            l.peak_queue_packets
        );
    }
    Ok(())
}
