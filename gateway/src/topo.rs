//! `mpinetsim topo`: what a network looks like to traffic, without
//! simulating it — counts, diameter, mean hops and zero-load latency of a
//! pattern, per-node load for all-to-all, and a Graphviz drawing.

use crate::cli::{TopoArgs, TopoPatternArg};
use netsim::analysis::{self, Analysis, Pattern};
use netsim::topology::routing::Routing;
use netsim::Network;
use std::time::Instant;

/// Above this many nodes the per-node table is summarised unless asked for.
const TABLE_NODES: usize = 64;

/// Runs the command; the error is one sentence for the user.
pub fn run(a: &TopoArgs) -> Result<(), crate::error::Error> {
    let pattern = match a.pattern {
        TopoPatternArg::Random => Pattern::Random {
            pairs: a.pairs,
            seed: a.seed,
        },
        TopoPatternArg::Ring => Pattern::Ring,
        TopoPatternArg::Alltoall => Pattern::AllToAll,
    };
    let size = netsim::base::units::parse_bytes(&a.size).map_err(|e| format!("--size: {e}"))?;
    let origin = a.net.display().to_string();
    let started = Instant::now();
    for (path, option) in [(&a.dot, "--dot"), (&a.json, "--json")] {
        if let Some(p) = path {
            crate::output_file::check_writable(p, option)?;
        }
    }
    let cfg = crate::overrides::load_net(&a.net, a.ranks, &a.sets)?;
    if a.show_net {
        return crate::run::show_net(&cfg, &a.net, a.ranks).map(|_| ());
    }
    let net = Network::from_config(&cfg, &origin).map_err(|e| e.to_string())?;
    let built = started.elapsed();
    if let Some(path) = &a.dot {
        crate::output_file::write_whole(path, analysis::dot(&net).as_bytes(), "--dot")?;
    }
    if pattern == Pattern::AllToAll && net.hosts.len() > 4096 {
        return Err(format!(
            "--pattern alltoall on {} hosts would trace {} paths; use --pattern random with --pairs for networks over 4096 hosts",
            net.hosts.len(),
            net.hosts.len() as u64 * (net.hosts.len() as u64 - 1)
        ).into());
    }
    let routing = Routing::new(&net);
    let result = analysis::analyse(&net, &routing, pattern, size);
    let analysed = started.elapsed() - built;
    print_report(&origin, a.pattern.name(), &result, &routing, a.all_nodes);
    out!(
        "time: build {:.3} s, routing and analysis {:.3} s",
        built.as_secs_f64(),
        analysed.as_secs_f64()
    );
    if let Some(path) = &a.json {
        crate::run::write_json(path, &result, "--json")?;
    }
    Ok(())
}

fn print_report(origin: &str, pattern: &str, r: &Analysis, routing: &Routing, all: bool) {
    out!("network: {origin}");
    out!(
        "nodes: {} hosts, {} switches, {} routers; {} links; routing: {}",
        r.hosts,
        r.switches,
        r.routers,
        r.links,
        if routing.is_structured() {
            "from coordinates"
        } else {
            "shortest-path tables"
        }
    );
    match r.diameter_hops {
        Some(d) => out!("diameter: {d} hops"),
        None => out!(
            "diameter: not computed (no closed form and more than {} hosts)",
            analysis::DIAMETER_BFS_HOSTS
        ),
    }
    out!(
        "pattern {pattern}: {} pairs, mean {:.4} hops (max {}), mean {:.4} links, zero-load latency of a {} B message {:.3} us{}",
        r.pairs,
        r.mean_hops,
        r.max_hops,
        r.mean_links,
        r.message_bytes,
        r.mean_latency_ns / 1000.0,
        if r.unreachable_pairs > 0 {
            format!(", {} pairs unreachable", r.unreachable_pairs)
        } else {
            String::new()
        }
    );
    if r.handled.is_empty() {
        return;
    }
    out!("messages received or forwarded per switch/router:");
    if all || r.handled.len() <= TABLE_NODES {
        for (name, count) in &r.handled {
            out!("  {name:<24} {count}");
        }
    } else {
        let counts: Vec<u64> = r.handled.iter().map(|(_, c)| *c).collect();
        let min = counts.iter().min().copied().unwrap_or(0);
        let max = counts.iter().max().copied().unwrap_or(0);
        let mean = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
        out!(
            "  {} nodes: min {min}, mean {mean:.1}, max {max} (--all-nodes lists every node)",
            counts.len()
        );
        let mut busiest: Vec<&(String, u64)> = r.handled.iter().collect();
        busiest.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        for (name, count) in busiest.into_iter().take(10) {
            out!("  {name:<24} {count}");
        }
    }
}
