//! Topology generators: helpers that expand a `[topology]` table into the
//! explicit hosts, switches, routers and links of a [`NetworkConfig`], which
//! [`crate::topology::Network::from_config`] then turns into the graph the
//! simulator runs. The model (`Network`) knows nothing of these shapes; a
//! generator also returns a [`Shape`] so that routing can compute paths of
//! the regular ones from coordinates instead of tables.
//!
//! Names are fixed: hosts `host0`, `host1`, …; routers `router0`, … (the
//! fat-tree and the dragonfly name theirs by role); the star's switch
//! `switch0`. Host *i* is the *i*-th host (its default IP is 10.0.0.(i+1)),
//! so rank placement works as with listed hosts. In a hybrid network the
//! hosts are cores named `cpuP.coreC`, inside processor P's own nodes
//! `cpuP.router…` / `cpuP.switch0`.

mod builder;
mod dragonfly;
mod fattree;
mod hybrid;
mod hypercube;
mod mesh;
mod ring;
mod star;
mod torus;
mod tree;
mod twisted;

pub use crate::topology::shape::{Layout, Shape};
pub use builder::Builder;
pub(crate) use dragonfly::global_router as dragonfly_global_router;

use crate::config::{ConfigError, NetworkConfig, RoutingPolicy, TopologyConfig, TopologyKind};

/// Most nodes a generated network may have (host addresses and node
/// numbers leave room for far more; this bounds memory).
pub const MAX_NODES: u64 = 1 << 20;

/// The name users write for a kind.
pub fn kind_name(k: TopologyKind) -> &'static str {
    match k {
        TopologyKind::Star => "star",
        TopologyKind::Ring => "ring",
        TopologyKind::Mesh => "mesh",
        TopologyKind::Torus => "torus",
        TopologyKind::TwistedTorus => "twisted-torus",
        TopologyKind::Hypercube => "hypercube",
        TopologyKind::Tree => "tree",
        TopologyKind::FatTree => "fat-tree",
        TopologyKind::Dragonfly => "dragonfly",
        TopologyKind::Custom => "custom",
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

/// The keys each kind accepts besides `kind`, `routing`, `rate`, `delay`,
/// `processor` and `link`.
fn allowed_keys(kind: TopologyKind) -> &'static [&'static str] {
    match kind {
        TopologyKind::Star => &["hosts"],
        TopologyKind::Ring => &["hosts", "directed"],
        TopologyKind::Mesh => &["dims"],
        TopologyKind::Torus => &["dims", "wrap"],
        TopologyKind::TwistedTorus => &["dims", "wrap", "twist_degree", "jump"],
        TopologyKind::Hypercube => &["order"],
        TopologyKind::Tree => &["arity", "levels", "hosts_per_leaf"],
        TopologyKind::FatTree => &["k"],
        TopologyKind::Dragonfly => &[
            "groups",
            "routers_per_group",
            "hosts_per_router",
            "global_links_per_router",
            "flowlet_gap",
        ],
        TopologyKind::Custom => &[],
    }
}

/// Rejects keys that do not apply to the kind, naming the ones that do.
fn check_keys(t: &TopologyConfig, at: &str) -> Result<(), String> {
    let kind = kind_name(t.kind);
    let allowed = allowed_keys(t.kind);
    for (key, set) in [
        ("hosts", t.hosts.is_some()),
        ("directed", t.directed.is_some()),
        ("dims", t.dims.is_some()),
        ("wrap", t.wrap.is_some()),
        ("twist_degree", t.twist_degree.is_some()),
        ("jump", t.jump.is_some()),
        ("order", t.order.is_some()),
        ("arity", t.arity.is_some()),
        ("levels", t.levels.is_some()),
        ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
        ("k", t.k.is_some()),
        ("groups", t.groups.is_some()),
        ("routers_per_group", t.routers_per_group.is_some()),
        ("hosts_per_router", t.hosts_per_router.is_some()),
        (
            "global_links_per_router",
            t.global_links_per_router.is_some(),
        ),
        ("flowlet_gap", t.flowlet_gap.is_some()),
    ] {
        if set && !allowed.contains(&key) {
            let takes = if allowed.is_empty() {
                "no shape keys".to_string()
            } else {
                allowed
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(format!(
                "`{at}{key}` does not apply to a {kind}; remove it (a {kind} takes {takes})"
            ));
        }
    }
    let policy_ok = match t.routing {
        RoutingPolicy::Shortest => true,
        RoutingPolicy::DimensionOrder => {
            matches!(t.kind, TopologyKind::Mesh | TopologyKind::Torus)
                || (t.kind == TopologyKind::Ring && t.directed != Some(true))
        }
        RoutingPolicy::ECube => t.kind == TopologyKind::Hypercube,
        RoutingPolicy::Ecmp | RoutingPolicy::Spray => true,
        RoutingPolicy::Valiant | RoutingPolicy::Ugal => t.kind == TopologyKind::Dragonfly,
        RoutingPolicy::DModK => t.kind == TopologyKind::FatTree,
    };
    if !policy_ok {
        let name = t.routing.name();
        return Err(format!(
            "`{at}routing = \"{name}\"` does not apply to a {kind}; use \"shortest\", \"ecmp\" or \"spray\" (dimension-order is for meshes, tori and rings, e-cube for hypercubes, dmodk for fat-trees, valiant and ugal for dragonflies)"
        ));
    }
    Ok(())
}

/// Runs the generator of `t.kind` into `b`, returning the layout routing can
/// use (none for shapes routed by tables).
pub(crate) fn generate(t: &TopologyConfig, b: &mut Builder) -> Result<Option<Layout>, String> {
    Ok(match t.kind {
        TopologyKind::Star => {
            let n = need(&t.hosts, "hosts", t, "the number of hosts")?;
            star::build(n, b)?;
            None
        }
        TopologyKind::Ring => {
            let n = need(&t.hosts, "hosts", t, "the number of hosts")?;
            Some(ring::build(n, t.directed.unwrap_or(false), b)?)
        }
        TopologyKind::Mesh => {
            let dims = need(&t.dims, "dims", t, "routers along each dimension")?;
            Some(mesh::build(&dims, b)?)
        }
        TopologyKind::Torus => {
            let dims = need(&t.dims, "dims", t, "routers along each dimension")?;
            Some(torus::build(&dims, t.wrap.as_deref(), b)?)
        }
        TopologyKind::TwistedTorus => {
            let dims = need(&t.dims, "dims", t, "routers along each dimension")?;
            twisted::build(
                &dims,
                t.wrap.as_deref(),
                t.twist_degree.unwrap_or(1),
                t.jump.as_deref(),
                b,
            )?;
            None
        }
        TopologyKind::Hypercube => {
            let order = need(&t.order, "order", t, "its dimension N, for 2^N routers")?;
            Some(hypercube::build(order, b)?)
        }
        TopologyKind::Tree => {
            let arity = need(&t.arity, "arity", t, "children per router")?;
            let levels = need(&t.levels, "levels", t, "levels of routers")?;
            Some(tree::build(
                arity,
                levels,
                t.hosts_per_leaf.unwrap_or(arity),
                b,
            )?)
        }
        TopologyKind::FatTree => {
            let k = need(&t.k, "k", t, "the switch radix, an even number")?;
            Some(fattree::build(k, b)?)
        }
        TopologyKind::Dragonfly => {
            let g = need(&t.groups, "groups", t, "the number of groups")?;
            let a = need(
                &t.routers_per_group,
                "routers_per_group",
                t,
                "routers in a group",
            )?;
            let p = need(
                &t.hosts_per_router,
                "hosts_per_router",
                t,
                "hosts on a router",
            )?;
            let h = need(
                &t.global_links_per_router,
                "global_links_per_router",
                t,
                "links from a router to other groups",
            )?;
            Some(dragonfly::build(g, a, p, h, b)?)
        }
        TopologyKind::Custom => unreachable!("custom is handled by expand"),
    })
}

/// Expands `cfg.topology` into explicit nodes and links: a copy of `cfg`
/// with `[[host]]`, `[[switch]]`, `[[router]]` and `[[link]]` filled in and
/// no `[topology]`, plus the regular shape routing may use. `origin` starts
/// every error.
pub fn expand(
    cfg: &NetworkConfig,
    origin: &str,
) -> Result<(NetworkConfig, Option<Shape>), ConfigError> {
    let t = cfg
        .topology
        .as_ref()
        .expect("expand is only called with a [topology]");
    let e = |msg: String| ConfigError(format!("{origin}: {msg}"));
    if t.kind == TopologyKind::Custom {
        check_keys(t, "topology.").map_err(e)?;
        if t.processor.is_some() || !t.links.is_empty() || t.rate.is_some() || t.delay.is_some() {
            return Err(e("a custom topology takes its nodes and links from [[host]], [[switch]], [[router]] and [[link]]; remove `topology.processor`, `topology.link`, `topology.rate` and `topology.delay`".into()));
        }
        let mut out = cfg.clone();
        out.topology = None;
        return Ok((out, None));
    }
    for (n, table) in [
        (cfg.hosts.len(), "[[host]]"),
        (cfg.switches.len(), "[[switch]]"),
        (cfg.routers.len(), "[[router]]"),
        (cfg.links.len(), "[[link]]"),
    ] {
        if n > 0 {
            return Err(e(format!(
                "the file has both `[topology]` and {table} entries; describe the network one way, generated or listed (or use kind = \"custom\")"
            )));
        }
    }
    check_keys(t, "topology.").map_err(e)?;
    let mut b = Builder::new(t.rate, t.delay);
    let layout = match &t.processor {
        None => generate(t, &mut b).map_err(e)?,
        Some(p) => {
            hybrid::build(t, p, &mut b).map_err(e)?;
            None
        }
    };
    let kind = kind_name(t.kind);
    b.apply_overrides(&t.links, kind).map_err(e)?;
    let (hosts, switches, routers, links) = b.finish();
    let shape = layout.map(|layout| Shape {
        layout,
        first_router: (hosts.len() + switches.len()) as u32,
    });
    let mut out = cfg.clone();
    out.topology = None;
    out.hosts = hosts;
    out.switches = switches;
    out.routers = routers;
    out.links = links;
    Ok((out, shape))
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
