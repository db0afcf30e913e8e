//! Hybrid networks (processors of cores): the network topology is generated
//! as usual, but every host slot becomes a processor — its cores (the
//! hosts ranks run on, `cpuP.coreC`) connected by the processor topology
//! with the processor's own link rate and delay — attached to the network
//! through the processor's first switch or router. Messages between cores
//! of one processor never leave it: the attachment is the only way out, so
//! no path through the network can be shorter.

use super::{generate, kind_name, Builder};
use crate::config::{RoutingPolicy, TopologyConfig, TopologyKind};

/// Builds the network `net` whose host slots are processors `p`.
pub fn build(net: &TopologyConfig, p: &TopologyConfig, b: &mut Builder) -> Result<(), String> {
    if p.kind == TopologyKind::Custom {
        return Err("`topology.processor.kind` is custom; a processor must be a generated shape (star, ring, mesh, …)".into());
    }
    if p.processor.is_some() {
        return Err("`topology.processor.processor` nests processors; a hybrid network has one processor level".into());
    }
    if !p.links.is_empty() {
        return Err("`topology.processor.link` overrides links inside processors; list them in `[[topology.link]]` with full names such as 'cpu0.router0'".into());
    }
    let shortest = |r| {
        matches!(
            r,
            RoutingPolicy::Shortest | RoutingPolicy::Ecmp | RoutingPolicy::Spray
        )
    };
    if !shortest(net.routing) || p.routing != RoutingPolicy::Shortest {
        return Err(format!(
            "`topology.routing` must be \"shortest\", \"ecmp\" or \"spray\" in a hybrid network, and the processor's \"shortest\" (a {} of {} processors is routed on the exact shortest paths)",
            kind_name(net.kind),
            kind_name(p.kind)
        ));
    }
    super::check_keys(p, "topology.processor.")?;
    b.set_processor(Box::new(p.clone()));
    generate(net, b).map(|_| ())
}

/// Generates one processor into `b`; returns the name of its attachment.
pub(super) fn processor(p: &TopologyConfig, b: &mut Builder) -> Result<String, String> {
    let (idx, outer) = b.enter_processor(p);
    let built = generate(p, b);
    let attach = b.leave_processor(outer);
    built.map_err(|e| e.replace("`topology.", "`topology.processor."))?;
    attach.ok_or_else(|| format!("processor {idx} has no switch or router to attach it to the network; use a processor topology with one"))
}
