//! Topology generators: helpers that expand a `[topology]` table into the
//! explicit hosts, switches, routers and links of a [`NetworkConfig`], which
//! [`crate::topology::Network::from_config`] then turns into the graph the
//! simulator runs. The model (`Network`) knows nothing of these shapes.
//!
//! Names are fixed: hosts `host0`, `host1`, …; routers `router0`, …; the
//! star's switch `switch0`. Host *i* is the *i*-th host (its default IP is
//! 10.0.0.(i+1)), so rank placement works as with listed hosts.

mod hypercube;
mod mesh;
mod ring;
mod star;
mod torus;
mod tree;

use crate::config::{
    ConfigError, HostConfig, LinkConfig, NetworkConfig, RouterConfig, SwitchConfig, SwitchMode,
    TopologyConfig, TopologyKind,
};

/// Most nodes a generated network may have: MAC addresses number nodes in 16 bits.
pub const MAX_NODES: u64 = 1 << 16;

/// Collects the nodes and links a generator produces, with fixed names.
#[derive(Debug, Default)]
pub struct Builder {
    hosts: Vec<HostConfig>,
    switches: Vec<SwitchConfig>,
    routers: Vec<RouterConfig>,
    links: Vec<LinkConfig>,
}

impl Builder {
    /// Adds the next host (`host<i>`) and returns its name.
    pub fn host(&mut self) -> String {
        let name = format!("host{}", self.hosts.len());
        self.hosts.push(HostConfig {
            name: name.clone(),
            ip: None,
        });
        name
    }

    /// Adds the next static switch (`switch<i>`) and returns its name.
    pub fn switch(&mut self) -> String {
        let name = format!("switch{}", self.switches.len());
        self.switches.push(SwitchConfig {
            name: name.clone(),
            mode: SwitchMode::Static,
        });
        name
    }

    /// Adds `n` routers `router<first>`… and returns their names in order.
    pub fn routers(&mut self, n: u32) -> Vec<String> {
        (0..n)
            .map(|_| {
                let name = format!("router{}", self.routers.len());
                self.routers.push(RouterConfig { name: name.clone() });
                name
            })
            .collect()
    }

    /// Adds a link with `[link_defaults]` parameters between two nodes.
    pub fn link(&mut self, a: &str, b: &str) {
        self.links.push(LinkConfig {
            a: a.to_string(),
            b: b.to_string(),
            name: None,
            rate: None,
            delay: None,
            mtu: None,
            queue_packets: None,
            queue_bytes: None,
            loss: None,
        });
    }

    /// One host on each of `routers`, host *i* on router *i*; the host links
    /// come first so they are each router's first port.
    pub fn host_per_router(&mut self, routers: &[String]) {
        for r in routers {
            let h = self.host();
            self.link(&h, r);
        }
    }
}

fn kind_name(k: TopologyKind) -> &'static str {
    match k {
        TopologyKind::Star => "star",
        TopologyKind::Mesh => "mesh",
        TopologyKind::Torus => "torus",
        TopologyKind::Hypercube => "hypercube",
        TopologyKind::Tree => "tree",
        TopologyKind::Ring => "ring",
    }
}

/// Reads a required key, or says which key the shape needs.
fn need<T: Clone>(v: &Option<T>, key: &str, t: &TopologyConfig, what: &str) -> Result<T, String> {
    v.clone().ok_or_else(|| {
        format!(
            "`topology.{key}` is missing; a {} needs it ({what})",
            kind_name(t.kind)
        )
    })
}

/// Expands `cfg.topology` into explicit nodes and links: a copy of `cfg`
/// with `[[host]]`, `[[switch]]`, `[[router]]` and `[[link]]` filled in and
/// no `[topology]`. `origin` starts every error.
pub fn expand(cfg: &NetworkConfig, origin: &str) -> Result<NetworkConfig, ConfigError> {
    let t = cfg
        .topology
        .as_ref()
        .expect("expand is only called with a [topology]");
    let e = |msg: String| ConfigError(format!("{origin}: {msg}"));
    for (n, table) in [
        (cfg.hosts.len(), "[[host]]"),
        (cfg.switches.len(), "[[switch]]"),
        (cfg.routers.len(), "[[router]]"),
        (cfg.links.len(), "[[link]]"),
    ] {
        if n > 0 {
            return Err(e(format!(
                "the file has both `[topology]` and {table} entries; describe the network one way, generated or listed"
            )));
        }
    }
    let kind = kind_name(t.kind);
    let allowed: &[&str] = match t.kind {
        TopologyKind::Star | TopologyKind::Ring => &["hosts"],
        TopologyKind::Mesh => &["dims"],
        TopologyKind::Torus => &["dims", "wrap"],
        TopologyKind::Hypercube => &["order"],
        TopologyKind::Tree => &["arity", "levels", "hosts_per_leaf"],
    };
    for (key, set) in [
        ("hosts", t.hosts.is_some()),
        ("dims", t.dims.is_some()),
        ("wrap", t.wrap.is_some()),
        ("order", t.order.is_some()),
        ("arity", t.arity.is_some()),
        ("levels", t.levels.is_some()),
        ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
    ] {
        if set && !allowed.contains(&key) {
            return Err(e(format!(
                "`topology.{key}` does not apply to a {kind}; remove it (a {kind} takes {})",
                allowed
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let mut b = Builder::default();
    match t.kind {
        TopologyKind::Star => {
            let n = need(&t.hosts, "hosts", t, "the number of hosts").map_err(e)?;
            star::build(n, &mut b).map_err(e)?
        }
        TopologyKind::Mesh => {
            let dims = need(&t.dims, "dims", t, "routers along each dimension").map_err(e)?;
            mesh::build(&dims, &mut b).map_err(e)?
        }
        TopologyKind::Torus => {
            let dims = need(&t.dims, "dims", t, "routers along each dimension").map_err(e)?;
            torus::build(&dims, t.wrap.as_deref(), &mut b).map_err(e)?
        }
        TopologyKind::Hypercube => {
            let order =
                need(&t.order, "order", t, "its dimension N, for 2^N routers").map_err(e)?;
            hypercube::build(order, &mut b).map_err(e)?
        }
        TopologyKind::Tree => {
            let arity = need(&t.arity, "arity", t, "children per router").map_err(e)?;
            let levels = need(&t.levels, "levels", t, "levels of routers").map_err(e)?;
            tree::build(arity, levels, t.hosts_per_leaf.unwrap_or(1), &mut b).map_err(e)?
        }
        TopologyKind::Ring => {
            let n = need(&t.hosts, "hosts", t, "the number of hosts").map_err(e)?;
            ring::build(n, &mut b).map_err(e)?
        }
    }
    for (i, o) in t.links.iter().enumerate() {
        let l = b
            .links
            .iter_mut()
            .find(|l| (l.a == o.a && l.b == o.b) || (l.a == o.b && l.b == o.a))
            .ok_or_else(|| {
                e(format!(
                    "`topology.link[{i}]` names '{}' and '{}', which the {kind} does not link directly; name two neighbouring nodes",
                    o.a, o.b
                ))
            })?;
        if o.name.is_some() {
            l.name.clone_from(&o.name);
        }
        let s = o.settings();
        l.rate = s.rate.or(l.rate);
        l.delay = s.delay.or(l.delay);
        l.mtu = s.mtu.or(l.mtu);
        l.queue_packets = s.queue_packets.or(l.queue_packets);
        l.queue_bytes = s.queue_bytes.or(l.queue_bytes);
        l.loss = s.loss.or(l.loss);
    }
    let mut out = cfg.clone();
    out.topology = None;
    out.hosts = b.hosts;
    out.switches = b.switches;
    out.routers = b.routers;
    out.links = b.links;
    Ok(out)
}

/// Checks that a network of `nodes` nodes fits (one-sentence error otherwise).
fn check_size(nodes: Option<u64>, key: &str) -> Result<(), String> {
    match nodes {
        Some(n) if n <= MAX_NODES => Ok(()),
        _ => Err(format!(
            "`topology.{key}` would generate {} nodes, more than the {MAX_NODES} a network can have; choose a smaller network",
            nodes.map_or("too many".to_string(), |n| n.to_string())
        )),
    }
}
