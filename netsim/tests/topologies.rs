//! Generated topologies: host-to-host hop counts of the exact shortest-path
//! routes equal the closed forms of each shape, and a packet crossing a mesh
//! loses one TTL per router.

use netsim::routing::RouteTable;
use netsim::{Network, NetworkConfig};

fn generate(toml: &str) -> (Network, RouteTable) {
    let cfg = NetworkConfig::from_toml_str(toml, "t").unwrap();
    let net = Network::from_config(&cfg, "t").unwrap();
    let rt = RouteTable::compute(&net);
    (net, rt)
}

/// Links on the route from host `i` to host `j` (host indices).
fn hops(net: &Network, rt: &RouteTable, i: usize, j: usize) -> u32 {
    rt.route(net.hosts[i], net.hosts[j])
        .unwrap_or_else(|| panic!("no route from host{i} to host{j}"))
        .hops
}

fn config_error(toml: &str) -> String {
    let cfg = NetworkConfig::from_toml_str(toml, "t.toml").unwrap();
    Network::from_config(&cfg, "t.toml").unwrap_err().0
}

#[test]
fn star_is_two_links_between_every_pair() {
    let (net, rt) = generate("[topology]\nkind='star'\nhosts=6\n");
    assert_eq!(net.hosts.len(), 6);
    assert_eq!(net.nodes.len(), 7);
    assert_eq!(net.links.len(), 6);
    for i in 0..6 {
        for j in 0..6 {
            if i != j {
                assert_eq!(hops(&net, &rt, i, j), 2, "host{i} -> host{j}");
            }
        }
    }
}

#[test]
fn generated_and_listed_nodes_do_not_mix_and_stray_keys_are_named() {
    let e = config_error("[topology]\nkind='star'\nhosts=2\n[[host]]\nname='x'\n");
    assert!(e.contains("[[host]]"), "{e}");
    let e = config_error("[topology]\nkind='star'\nhosts=2\norder=3\n");
    assert!(e.contains("`topology.order`"), "{e}");
    let e = config_error("[topology]\nkind='star'\n");
    assert!(e.contains("`topology.hosts` is missing"), "{e}");
    let e = config_error("[topology]\nkind='star'\nhosts=0\n");
    assert!(e.contains("`topology.hosts` is 0"), "{e}");
}

#[test]
fn link_overrides_apply_to_the_named_generated_link() {
    let (net, _) = generate(
        "[link_defaults]\ndelay='1us'\n[topology]\nkind='star'\nhosts=3\n\
         [[topology.link]]\na='switch0'\nb='host1'\ndelay='2ms'\nname='slow'\n",
    );
    let slow: Vec<_> = net.links.iter().filter(|l| l.name == "slow").collect();
    assert_eq!(slow.len(), 1);
    assert_eq!(slow[0].params.delay_ns, 2_000_000);
    assert_eq!(
        net.links.iter().filter(|l| l.params.delay_ns == 1_000).count(),
        2
    );
    let e = config_error(
        "[topology]\nkind='star'\nhosts=3\n[[topology.link]]\na='host0'\nb='host1'\n",
    );
    assert!(e.contains("`topology.link[0]`"), "{e}");
}
