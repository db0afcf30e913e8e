//! Scale of topology construction and routing: a 65,536-host torus and a
//! 65,536-host fat-tree are built and 1,000,000 random host pairs routed
//! (every hop traced, zero-load latency computed) by coordinate routing.
//! The reference measured in the same run is shortest-path table routing
//! on the same network (one breadth-first search per new destination),
//! timed on fewer pairs; the report gives per-pair cost ratios and the
//! process's peak memory.
//!
//! `cargo bench -p netsim --bench topology_scale` (release). Optional
//! argument: the number of pairs (default 1,000,000).

use netsim::analysis::{analyse, Pattern};
use netsim::topology::routing::Routing;
use netsim::{Network, NetworkConfig};
use std::time::Instant;

/// Peak resident memory of this process so far, in MiB (Linux).
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let pairs: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let table_pairs = 200;
    println!("pairs routed by coordinates: {pairs}; by tables (reference): {table_pairs}");
    for (name, toml) in [
        (
            "torus 256x256",
            "[topology]\nkind='torus'\ndims=[256,256]\n",
        ),
        ("fat-tree k=64", "[topology]\nkind='fat-tree'\nk=64\n"),
    ] {
        let t0 = Instant::now();
        let cfg = NetworkConfig::from_toml_str(toml, name).unwrap();
        let net = Network::from_config(&cfg, name).unwrap();
        let build = t0.elapsed().as_secs_f64();
        let rss_built = peak_rss_mib();
        let structured = Routing::new(&net);
        let t1 = Instant::now();
        let a = analyse(&net, &structured, Pattern::Random { pairs, seed: 1 }, 1024);
        let coords = t1.elapsed().as_secs_f64();
        let rss_routed = peak_rss_mib();
        let tables = Routing::with_tables(&net);
        let t2 = Instant::now();
        let b = analyse(
            &net,
            &tables,
            Pattern::Random {
                pairs: table_pairs,
                seed: 1,
            },
            1024,
        );
        let table = t2.elapsed().as_secs_f64();
        let per_coord = coords / pairs as f64;
        let per_table = table / table_pairs as f64;
        println!(
            "{name}: {} hosts, {} nodes, {} links; build {build:.2} s (peak {rss_built:.0} MiB); \
             {pairs} pairs by coordinates {coords:.2} s = {:.2} us/pair, mean {:.2} hops (peak {rss_routed:.0} MiB); \
             tables {:.0} us/pair, mean {:.2} hops; tables/coordinates = {:.0}x",
            net.hosts.len(),
            net.nodes.len(),
            net.links.len(),
            per_coord * 1e6,
            a.mean_hops,
            per_table * 1e6,
            b.mean_hops,
            per_table / per_coord
        );
    }
    println!("peak memory of the whole run: {:.0} MiB", peak_rss_mib());
}
