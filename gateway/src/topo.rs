//! `mpinetsim topo`: what a network looks like to traffic, without
//! simulating it — counts, diameter, mean hops and zero-load latency of a
//! pattern, per-node load for all-to-all, the pattern's per-link load under
//! each routing choice side by side, and a Graphviz drawing.

use crate::cli::{TopoArgs, TopoPatternArg};
use netsim::analysis::link_load::{self, LoadSummary, RoutingLoad};
use netsim::analysis::{self, Analysis, Pattern};
use netsim::config::RoutingPolicy;
use netsim::topology::routing::Routing;
use netsim::Network;
use std::time::Instant;

/// What `topo --json` writes: the analysis under the network's own
/// routing, and the pattern's per-link load under each routing choice.
#[derive(Debug, serde::Serialize)]
struct TopoReport {
    #[serde(flatten)]
    analysis: Analysis,
    /// One entry per routing choice, the network's own first.
    link_load: Vec<RoutingLoad>,
}

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
    let loads = routing_loads(&net, &routing, pattern);
    let analysed = started.elapsed() - built;
    print_report(&origin, a.pattern.name(), &result, &routing, a.all_nodes);
    print_loads(&loads);
    out!(
        "time: build {:.3} s, routing and analysis {:.3} s",
        built.as_secs_f64(),
        analysed.as_secs_f64()
    );
    if let Some(path) = &a.json {
        let report = TopoReport {
            analysis: result,
            link_load: loads,
        };
        crate::run::write_json(path, &report, "--json")?;
    }
    Ok(())
}

/// The pattern's per-link load under the network's routing, then under
/// static shortest paths and ECMP (and Valiant on a dragonfly, D-mod-k and
/// packet spraying — its expected shares — on a fat-tree) where the
/// network uses none of them. UGAL adapts to queues while the job runs;
/// on an idle network its source routers choose the minimal paths, which
/// is what it shows.
fn routing_loads(net: &Network, own: &Routing, pattern: Pattern) -> Vec<RoutingLoad> {
    let own_name = match net.routing {
        RoutingPolicy::Ugal => "ugal (idle network: minimal)",
        other => other.name(),
    };
    let mut loads = vec![link_load::routing_load(net, own, pattern, own_name)];
    let dragonfly = own.detours(net).is_some()
        || matches!(
            net.shape.as_ref().map(|s| &s.layout),
            Some(netsim::topology::generators::Layout::Dragonfly { .. })
        );
    let mut others = vec![RoutingPolicy::Shortest, RoutingPolicy::Ecmp];
    if dragonfly {
        others.push(RoutingPolicy::Valiant);
    }
    if matches!(
        net.shape.as_ref().map(|s| &s.layout),
        Some(netsim::topology::generators::Layout::FatTree { .. })
    ) {
        others.extend([RoutingPolicy::DModK, RoutingPolicy::Spray]);
    }
    for other in others {
        if other != net.routing {
            let mut alt = net.clone();
            alt.routing = other;
            let routing = Routing::new(&alt);
            loads.push(link_load::routing_load(
                &alt,
                &routing,
                pattern,
                other.name(),
            ));
        }
    }
    loads
}

/// Which summary of a [`RoutingLoad`] a table shows.
type SummaryOf = fn(&RoutingLoad) -> Option<&LoadSummary>;

/// The per-link load table: one row per routing choice, for the links
/// between switches and routers and, on a fat-tree, its core links.
fn print_loads(loads: &[RoutingLoad]) {
    let Some(first) = loads.first() else {
        return;
    };
    let tables: [(&str, SummaryOf); 2] = [
        ("links between switches and routers", |l| {
            l.network_links.as_ref()
        }),
        ("core links (fat-tree)", |l| l.core_links.as_ref()),
    ];
    for (what, of) in tables {
        if of(first).is_none() {
            continue;
        }
        out!("flows per link direction, {what}:");
        out!(
            "  {:<26} {:>10} {:>8} {:>10} {:>8} {:>9}",
            "routing",
            "directions",
            "min",
            "mean",
            "max",
            "max/mean"
        );
        for (i, l) in loads.iter().enumerate() {
            let Some(s) = of(l) else { continue };
            let name = if i == 0 {
                format!("{} (the network's)", l.routing)
            } else {
                l.routing.clone()
            };
            let ratio = s
                .max_over_mean
                .map_or("-".to_string(), |r| format!("{r:.3}"));
            out!(
                "  {name:<26} {:>10} {:>8} {:>10.2} {:>8} {ratio:>9}",
                s.directions,
                flows(s.min),
                s.mean,
                flows(s.max)
            );
        }
    }
}

/// A count of flows as a whole number, or with two decimals when it is an
/// expected share (packet spraying).
fn flows(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{n:.2}")
    }
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
