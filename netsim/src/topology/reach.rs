//! Which hosts can reach which. Routing follows shortest paths through
//! switches and routers, and hosts never forward, so two hosts can exchange
//! messages exactly when a chain of links through switches and routers
//! joins them, or a link joins them directly. A job checks its ranks' hosts
//! once, before anything starts, so a network in pieces is a clear error
//! instead of a failure in the middle of a run.

use crate::topology::{Network, NodeId, NodeKind};

/// Components of the graph of switches and routers (union-find).
struct Components {
    parent: Vec<u32>,
}

impl Components {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b) as usize] = a.min(b);
        }
    }
}

/// Where a host attaches: the components of the switches and routers it
/// links to, and the hosts it links to directly.
#[derive(Debug, PartialEq, Eq)]
struct Attachment {
    components: Vec<u32>,
    hosts: Vec<NodeId>,
}

/// The first two entries of `hosts` (positions, the earlier first) whose
/// hosts cannot reach each other, if any. Entries naming the same host
/// reach each other (inside the host).
pub fn unreachable_pair(net: &Network, hosts: &[NodeId]) -> Option<(usize, usize)> {
    let is_host = |n: NodeId| net.nodes[n as usize].kind == NodeKind::Host;
    let mut comps = Components {
        parent: (0..net.nodes.len() as u32).collect(),
    };
    for l in &net.links {
        let [a, b] = l.ends.map(|p| net.ports[p as usize].node);
        if !is_host(a) && !is_host(b) {
            comps.union(a, b);
        }
    }
    // Distinct hosts, each with the first position naming it.
    let mut distinct: Vec<(NodeId, usize)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, &h) in hosts.iter().enumerate() {
        if seen.insert(h) {
            distinct.push((h, i));
        }
    }
    let attachments: Vec<Attachment> = distinct
        .iter()
        .map(|&(h, _)| {
            let mut a = Attachment {
                components: Vec::new(),
                hosts: Vec::new(),
            };
            for &p in &net.nodes[h as usize].ports {
                let peer = net.ports[net.ports[p as usize].peer as usize].node;
                if is_host(peer) {
                    a.hosts.push(peer);
                } else {
                    a.components.push(comps.find(peer));
                }
            }
            a.components.sort_unstable();
            a.components.dedup();
            a
        })
        .collect();
    let simple = attachments
        .iter()
        .all(|a| a.components.len() == 1 && a.hosts.is_empty());
    if simple {
        // The usual network: every host on one switch or router.
        let first = attachments.first()?.components[0];
        let j = attachments.iter().position(|a| a.components[0] != first)?;
        return Some((distinct[0].1, distinct[j].1));
    }
    for i in 0..distinct.len() {
        for j in i + 1..distinct.len() {
            let (a, b) = (&attachments[i], &attachments[j]);
            let shared = a.components.iter().any(|c| b.components.contains(c));
            if !shared && !a.hosts.contains(&distinct[j].0) {
                return Some((distinct[i].1, distinct[j].1));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetworkConfig;

    fn net(toml: &str) -> Network {
        let cfg = NetworkConfig::from_toml_str(toml, "t.toml").unwrap();
        Network::from_config(&cfg, "t.toml").unwrap()
    }

    fn host(n: &Network, name: &str) -> NodeId {
        n.hosts
            .iter()
            .copied()
            .find(|&h| n.nodes[h as usize].name == name)
            .unwrap()
    }

    #[test]
    fn two_islands_are_found_and_one_network_is_whole() {
        let n = net(r#"
            [[host]]
            name = "a"
            [[host]]
            name = "b"
            [[host]]
            name = "c"
            [[switch]]
            name = "s1"
            [[switch]]
            name = "s2"
            [[link]]
            a = "a"
            b = "s1"
            [[link]]
            a = "b"
            b = "s1"
            [[link]]
            a = "c"
            b = "s2"
        "#);
        let (a, b, c) = (host(&n, "a"), host(&n, "b"), host(&n, "c"));
        assert_eq!(unreachable_pair(&n, &[a, b, a, b]), None);
        assert_eq!(unreachable_pair(&n, &[a, a, b, c]), Some((0, 3)));
        assert_eq!(unreachable_pair(&n, &[c, c]), None);
    }

    #[test]
    fn hosts_do_not_forward_but_a_direct_link_joins_two_hosts() {
        // a - s1 - m - s2 - b: m is a host with two NICs; it reaches both
        // sides, but a and b cannot reach each other through it.
        let n = net(r#"
            [[host]]
            name = "a"
            [[host]]
            name = "m"
            [[host]]
            name = "b"
            [[host]]
            name = "d"
            [[switch]]
            name = "s1"
            [[switch]]
            name = "s2"
            [[link]]
            a = "a"
            b = "s1"
            [[link]]
            a = "m"
            b = "s1"
            [[link]]
            a = "m"
            b = "s2"
            [[link]]
            a = "b"
            b = "s2"
            [[link]]
            a = "b"
            b = "d"
        "#);
        let [a, m, b, d] = ["a", "m", "b", "d"].map(|x| host(&n, x));
        assert_eq!(unreachable_pair(&n, &[a, m]), None);
        assert_eq!(unreachable_pair(&n, &[m, b]), None);
        assert_eq!(unreachable_pair(&n, &[b, d]), None);
        assert_eq!(unreachable_pair(&n, &[m, a, b]), Some((1, 2)));
        assert_eq!(unreachable_pair(&n, &[m, d]), Some((0, 1)));
    }
}
