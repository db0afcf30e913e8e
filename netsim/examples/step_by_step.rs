//! Drives netsim by hand: builds a two-host network from TOML written in
//! code, injects one message, runs the events one at a time printing each,
//! and reads the delivery and the counters.
//!
//! Run: `cargo run --release -p netsim --example step_by_step`

use netsim::{Nanos, NetworkConfig, NetworkModel, Simulator};

const NETWORK: &str = r#"
name = "two hosts"
[link_defaults]
rate = "1Gbps"
delay = "500us"
[[host]]
name = "a"
[[host]]
name = "b"
[[switch]]
name = "s"
[[link]]
a = "a"
b = "s"
[[link]]
a = "s"
b = "b"
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = NetworkConfig::from_toml_str(NETWORK, "in code")?;
    // One rank per host, no captures.
    let mut sim = Simulator::from_config(&cfg, "in code", 2, false)?;
    println!("built: {}", NetworkModel::summary(&sim));
    sim.inject(0, 1, vec![7u8; 3000].into(), Nanos::ZERO)?;
    while let Some((t, class)) = sim.step_classified() {
        println!("{:>12} ns  {}", t.0, class.name());
    }
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    for d in &out {
        println!(
            "rank {} → rank {}: {} B injected at {} ns, delivered at {} ns",
            d.src,
            d.dst,
            d.bytes.len(),
            d.injected_at.0,
            d.delivered_at.0
        );
    }
    let stats = sim.stats();
    println!(
        "{} events, {} messages delivered, {} ns simulated",
        stats.events, stats.messages_delivered, stats.simulated_ns
    );
    for c in &stats.connections {
        println!(
            "connection {} → {}: {} data segments, {} retransmissions, {} ACKs",
            c.src_rank,
            c.dst_rank,
            c.stats.data_segments,
            c.stats.retransmissions,
            c.stats.acks_sent
        );
    }
    Ok(())
}
