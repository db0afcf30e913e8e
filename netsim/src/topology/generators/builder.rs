//! [`Builder`]: collects the nodes and links a generator produces, naming
//! them and giving every link the parameters of the part of the network
//! (network or processor) being generated.

use crate::config::{
    DurationNs, HostConfig, LinkConfig, RateBps, RouterConfig, SwitchConfig, SwitchMode,
    TopologyConfig,
};

/// Naming and link parameters of the part being generated: the network, or
/// one processor of a hybrid network.
#[derive(Debug, Default)]
pub(super) struct Scope {
    prefix: String,
    host_word: &'static str,
    hosts: u32,
    switches: u32,
    routers: u32,
    rate: Option<RateBps>,
    delay: Option<DurationNs>,
    /// The first switch or router made here: a processor's attachment.
    first_node: Option<String>,
}

/// Collects the nodes and links a generator produces, with fixed names.
#[derive(Debug, Default)]
pub struct Builder {
    hosts: Vec<HostConfig>,
    switches: Vec<SwitchConfig>,
    routers: Vec<RouterConfig>,
    links: Vec<LinkConfig>,
    scope: Scope,
    /// Hybrid networks: every host slot becomes one of these processors.
    processor: Option<Box<TopologyConfig>>,
    processors: u32,
}

impl Builder {
    /// A builder whose links get `rate` and `delay` (None: `[link_defaults]`).
    pub fn new(rate: Option<RateBps>, delay: Option<DurationNs>) -> Builder {
        Builder {
            scope: Scope {
                host_word: "host",
                rate,
                delay,
                ..Scope::default()
            },
            ..Builder::default()
        }
    }

    /// Adds the next host slot and returns its name: a host (`host<i>`), or
    /// in a hybrid network a whole processor, whose attachment node's name
    /// is returned.
    pub fn host(&mut self) -> Result<String, String> {
        if let Some(p) = self.processor.take() {
            let attach = super::hybrid::processor(&p, self);
            self.processor = Some(p);
            return attach;
        }
        let name = format!(
            "{}{}{}",
            self.scope.prefix, self.scope.host_word, self.scope.hosts
        );
        self.scope.hosts += 1;
        self.hosts.push(HostConfig {
            name: name.clone(),
            ip: None,
            cpu_speed: None,
            cpu_threshold: None,
            poll_cost: None,
        });
        Ok(name)
    }

    /// Adds the next static switch (`switch<i>`) and returns its name.
    pub fn switch(&mut self) -> String {
        let name = format!("{}switch{}", self.scope.prefix, self.scope.switches);
        self.scope.switches += 1;
        self.switches.push(SwitchConfig {
            name: name.clone(),
            mode: SwitchMode::Static,
        });
        self.scope.first_node.get_or_insert_with(|| name.clone());
        name
    }

    /// Adds `n` routers `router<first>`… and returns their names in order.
    pub fn routers(&mut self, n: u32) -> Vec<String> {
        (0..n)
            .map(|_| {
                let name = format!("router{}", self.scope.routers);
                self.named_router(&name)
            })
            .collect()
    }

    /// Adds a router with a role name (e.g. `core3`) and returns its full name.
    pub fn named_router(&mut self, name: &str) -> String {
        let name = format!("{}{name}", self.scope.prefix);
        self.scope.routers += 1;
        self.routers.push(RouterConfig { name: name.clone() });
        self.scope.first_node.get_or_insert_with(|| name.clone());
        name
    }

    /// Adds a link between two nodes with the current part's parameters.
    pub fn link(&mut self, a: &str, b: &str) {
        self.links.push(LinkConfig {
            a: a.to_string(),
            b: b.to_string(),
            name: None,
            rate: self.scope.rate,
            delay: self.scope.delay,
            mtu: None,
            queue_packets: None,
            queue_bytes: None,
            loss: None,
            queue: None,
            red_min_th: None,
            red_max_th: None,
            red_max_p: None,
            red_weight: None,
            ecn_threshold: None,
            red_ecn: None,
        });
    }

    /// One host slot on each of `routers`, slot *i* on router *i*; the host
    /// links come first so they are each router's first port.
    pub fn host_per_router(&mut self, routers: &[String]) -> Result<(), String> {
        for r in routers {
            let h = self.host()?;
            self.link(&h, r);
        }
        Ok(())
    }

    /// Generates processors for the host slots from now on.
    pub(super) fn set_processor(&mut self, p: Box<TopologyConfig>) {
        self.processor = Some(p);
    }

    /// Starts processor number `self.processors`: names get its prefix and
    /// links its parameters until [`Builder::leave_processor`].
    pub(super) fn enter_processor(&mut self, p: &TopologyConfig) -> (u32, Scope) {
        let idx = self.processors;
        self.processors += 1;
        let inner = Scope {
            prefix: format!("cpu{idx}."),
            host_word: "core",
            rate: p.rate,
            delay: p.delay,
            ..Scope::default()
        };
        (idx, std::mem::replace(&mut self.scope, inner))
    }

    /// Returns to the network scope, giving the processor's attachment node.
    pub(super) fn leave_processor(&mut self, outer: Scope) -> Option<String> {
        std::mem::replace(&mut self.scope, outer).first_node
    }

    /// Applies `[[topology.link]]` overrides to the generated links they name.
    pub(super) fn apply_overrides(
        &mut self,
        overrides: &[LinkConfig],
        kind: &str,
    ) -> Result<(), String> {
        for (i, o) in overrides.iter().enumerate() {
            let l = self
                .links
                .iter_mut()
                .find(|l| (l.a == o.a && l.b == o.b) || (l.a == o.b && l.b == o.a))
                .ok_or_else(|| {
                    format!(
                        "`topology.link[{i}]` names '{}' and '{}', which the {kind} does not link directly; name two neighbouring nodes",
                        o.a, o.b
                    )
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
            l.queue = s.queue.or(l.queue);
            l.red_min_th = s.red_min_th.or(l.red_min_th);
            l.red_max_th = s.red_max_th.or(l.red_max_th);
            l.red_max_p = s.red_max_p.or(l.red_max_p);
            l.red_weight = s.red_weight.or(l.red_weight);
            l.ecn_threshold = s.ecn_threshold.or(l.ecn_threshold);
            l.red_ecn = s.red_ecn.or(l.red_ecn);
        }
        Ok(())
    }

    /// Everything generated: hosts, switches, routers, links.
    pub(super) fn finish(
        self,
    ) -> (
        Vec<HostConfig>,
        Vec<SwitchConfig>,
        Vec<RouterConfig>,
        Vec<LinkConfig>,
    ) {
        (self.hosts, self.switches, self.routers, self.links)
    }
}
