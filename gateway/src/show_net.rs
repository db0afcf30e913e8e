//! `--show-net`: the network a command would run on, after `--set`,
//! `--fault`, `--model` and the generators have had their say, printed as
//! text instead of running anything. It answers "what did my override
//! actually change?" without reading the simulator's source.

use crate::error::Error;
use netsim::topology::graph::{NodeKind, DEFAULT_LINK};
use netsim::{Network, NetworkConfig};
use std::fmt::Write as _;

/// A rate as written in network files: the largest unit that divides it.
fn rate(bps: u64) -> String {
    if bps == 0 {
        return "unlimited".into();
    }
    for (unit, div) in [
        ("Tbps", 1_000_000_000_000),
        ("Gbps", 1_000_000_000),
        ("Mbps", 1_000_000),
        ("kbps", 1_000),
    ] {
        if bps.is_multiple_of(div) {
            return format!("{}{unit}", bps / div);
        }
    }
    format!("{bps}bps")
}

fn kind(k: &NodeKind) -> &'static str {
    match k {
        NodeKind::Host => "host",
        NodeKind::Switch(_) => "switch",
        NodeKind::Router => "router",
    }
}

/// The resolved network as text: its model, every node (hosts with their
/// address and CPU speed), every link with its parameters, the ranks'
/// hosts when `ranks` is known, and the faults.
pub fn text(cfg: &NetworkConfig, origin: &str, ranks: Option<u32>) -> Result<String, Error> {
    let net = Network::from_config(cfg, origin).map_err(|e| e.to_string())?;
    let mut s = String::new();
    let count = |k: &str| net.nodes.iter().filter(|n| kind(&n.kind) == k).count();
    let _ = writeln!(
        s,
        "network {} ({origin}): {} model, {} hosts, {} switches, {} routers, {} links, routing {}, seed {}",
        cfg.name.as_deref().unwrap_or("(unnamed)"),
        cfg.model.name(),
        count("host"),
        count("switch"),
        count("router"),
        net.links.len(),
        format!("{:?}", net.routing).to_lowercase(),
        cfg.seed
    );
    for n in &net.nodes {
        let _ = match (&n.kind, n.ip) {
            (NodeKind::Host, Some(ip)) => writeln!(
                s,
                "node {} host {ip} cpu_speed {}",
                n.name,
                netsim::base::text::short_number(cfg.cpu_speed(&n.name))
            ),
            (k, _) => writeln!(s, "node {} {}", n.name, kind(k)),
        };
    }
    for l in &net.links {
        let end = |i: usize| &net.nodes[net.ports[l.ends[i] as usize].node as usize].name;
        let p = &l.params;
        let queue_bytes = if p.queue_bytes == DEFAULT_LINK.queue_bytes {
            String::new()
        } else {
            format!(" {} B", p.queue_bytes)
        };
        // Drop-tail lines read as before; RED and ECN marking name their
        // parameters.
        let red = match p.queue {
            netsim::config::QueueKind::DropTail => String::new(),
            netsim::config::QueueKind::Red => format!(
                " red (min_th {}, max_th {}, max_p {}, weight {}{})",
                p.red.min_th,
                p.red.max_th,
                p.red.max_p,
                p.red.weight,
                if p.red.ecn { ", ecn" } else { "" }
            ),
            netsim::config::QueueKind::EcnThreshold => {
                format!(" ecn-threshold (mark from {} waiting)", p.ecn_threshold)
            }
        };
        let _ = writeln!(
            s,
            "link {} {} <-> {}: rate {}, delay {}, mtu {}, queue {} packets{queue_bytes}{red}, loss {}",
            l.name,
            end(0),
            end(1),
            rate(p.rate_bps),
            netsim::Nanos(p.delay_ns),
            p.mtu,
            p.queue_packets,
            p.loss
        );
    }
    if let Some(n) = ranks {
        let hosts = net
            .place_ranks(cfg, n as usize, origin)
            .map_err(|e| e.to_string())?;
        let names: Vec<String> = hosts
            .iter()
            .enumerate()
            .map(|(r, &h)| format!("{r}:{}", net.nodes[h as usize].name))
            .collect();
        let _ = writeln!(s, "ranks {}", names.join(" "));
    }
    for f in &cfg.fault_entries {
        let _ = writeln!(s, "fault {}", fault_line(f));
    }
    Ok(s)
}

/// One fault entry as the keys it sets.
fn fault_line(f: &netsim::config::FaultConfig) -> String {
    let mut parts = Vec::new();
    if let Some(l) = &f.link {
        parts.push(format!("link {l}"));
    }
    if let Some(n) = &f.node {
        parts.push(format!("node {n}"));
    }
    if let Some(a) = &f.action {
        parts.push(format!("{a:?}").to_lowercase());
    }
    let ns = |d: &netsim::config::DurationNs| netsim::Nanos(d.0).to_string();
    for (key, v) in [
        ("at", &f.at),
        ("for", &f.duration),
        ("delay", &f.delay),
        ("mtbf", &f.mtbf),
        ("mttr", &f.mttr),
    ] {
        if let Some(d) = v {
            parts.push(format!("{key} {}", ns(d)));
        }
    }
    if let Some(r) = &f.rate {
        parts.push(format!("rate {}", rate(r.0)));
    }
    if let Some(l) = f.loss {
        parts.push(format!("loss {l}"));
    }
    if let Some(src) = &f.source {
        parts.push(format!("(from {src})"));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_take_the_largest_unit_that_divides_them() {
        assert_eq!(rate(1_000_000_000), "1Gbps");
        assert_eq!(rate(100_000_000), "100Mbps");
        assert_eq!(rate(1_500), "1500bps");
        assert_eq!(rate(0), "unlimited");
    }

    #[test]
    fn a_red_queue_set_on_the_command_line_shows_its_parameters() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/reference.toml");
        let cfg = crate::overrides::load_net(
            &dir,
            Some(4),
            &[
                "link_defaults.queue=red".to_string(),
                "link.\"host1-switch0\".red_min_th=10".to_string(),
            ],
        )
        .unwrap();
        let t = text(&cfg, "reference.toml", Some(4)).unwrap();
        let line = |name: &str| {
            t.lines()
                .find(|l| l.starts_with(&format!("link {name} ")))
                .unwrap()
                .to_string()
        };
        assert!(
            line("host0-switch0").contains(
                "queue 1000 packets red (min_th 5, max_th 15, max_p 0.02, weight 0.002), loss 0"
            ),
            "{t}"
        );
        assert!(
            line("host1-switch0").contains("red (min_th 10, max_th 15,"),
            "{t}"
        );
    }

    #[test]
    fn a_set_override_and_a_fault_show_in_the_resolved_network() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/reference.toml");
        let mut cfg = crate::overrides::load_net(
            &dir,
            Some(4),
            &["link.\"host0-switch0\".rate=100Mbps".to_string()],
        )
        .unwrap();
        crate::run::add_fault_specs(&mut cfg, &["link host2-switch0 down at 10ms".to_string()])
            .unwrap();
        let t = text(&cfg, "reference.toml", Some(4)).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        // 4 hosts + 1 switch, 4 links, the ranks and one fault.
        assert!(
            lines[0].contains("4 hosts, 1 switches, 0 routers, 4 links"),
            "{t}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("node ")).count(),
            5,
            "{t}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("link ")).count(),
            4,
            "{t}"
        );
        let l0 = lines
            .iter()
            .find(|l| l.starts_with("link host0-switch0 "))
            .unwrap();
        assert!(l0.contains("rate 100Mbps"), "{l0}");
        let l1 = lines
            .iter()
            .find(|l| l.starts_with("link host1-switch0 "))
            .unwrap();
        assert!(!l1.contains("rate 100Mbps"), "{l1}");
        assert!(t.contains("ranks 0:host0 1:host1 2:host2 3:host3"), "{t}");
        assert!(
            t.contains("fault link host2-switch0 down at 10.000 ms"),
            "{t}"
        );
    }
}
