//! Routing on the generated shapes against closed forms and against an
//! independent breadth-first search: twisted torus and dragonfly routes
//! are exact shortest paths, a directed ring averages n/2 hops, a binary
//! tree's ring pattern averages 4 − 4/n hops, every hypercube node handles
//! N·2^(N−1) all-to-all messages, e-cube and dimension-order paths fix
//! one coordinate at a time, coordinate routing picks the same ports as
//! the tables, hybrid traffic between cores of one processor stays inside
//! it, and a packet's TTL drops by one per router.

use netsim::analysis::{analyse, Pattern};
use netsim::base::rng::SimRng;
use netsim::topology::routing::Routing;
use netsim::topology::NodeKind;
use netsim::{Network, NetworkConfig};
use std::collections::VecDeque;

fn network(toml: &str) -> Network {
    let cfg = NetworkConfig::from_toml_str(toml, "t").unwrap();
    Network::from_config(&cfg, "t").unwrap_or_else(|e| panic!("{e}"))
}

fn config_error(toml: &str) -> String {
    let cfg = NetworkConfig::from_toml_str(toml, "t.toml").unwrap();
    Network::from_config(&cfg, "t.toml").unwrap_err().0
}

/// Links between host `src` and every node, through non-host nodes only:
/// a plain BFS written here, independent of the routing module.
fn bfs_links(net: &Network, src: u32) -> Vec<Option<u32>> {
    let mut dist = vec![None; net.nodes.len()];
    dist[src as usize] = Some(0);
    let mut q = VecDeque::from([src]);
    while let Some(u) = q.pop_front() {
        if u != src && net.nodes[u as usize].kind == NodeKind::Host {
            continue;
        }
        for &p in &net.nodes[u as usize].ports {
            let v = net.ports[net.ports[p as usize].peer as usize].node;
            if dist[v as usize].is_none() {
                dist[v as usize] = Some(dist[u as usize].unwrap() + 1);
                q.push_back(v);
            }
        }
    }
    dist
}

/// Routed links equal BFS links for `pairs` random host pairs (all pairs
/// when `pairs` is 0).
fn assert_routes_are_shortest(net: &Network, rt: &Routing, pairs: usize, what: &str) {
    let h = net.hosts.len();
    let mut rng = SimRng::new(7);
    let check = |s: usize, d: usize| {
        let bfs = bfs_links(net, net.hosts[s])[net.hosts[d] as usize];
        let routed = rt.links(net, net.hosts[s], net.hosts[d]);
        assert_eq!(routed, bfs, "{what}: host{s} -> host{d}");
    };
    if pairs == 0 {
        for s in 0..h {
            for d in 0..h {
                if s != d {
                    check(s, d);
                }
            }
        }
    } else {
        for _ in 0..pairs {
            let s = rng.below(h as u64) as usize;
            let d = (s + 1 + rng.below(h as u64 - 1) as usize) % h;
            check(s, d);
        }
    }
}

/// Coordinate routing and table routing choose the same port at every node.
fn assert_structured_equals_tables(net: &Network, what: &str) {
    let structured = Routing::new(net);
    assert!(structured.is_structured(), "{what} has a layout");
    let tables = Routing::with_tables(net);
    for &d in &net.hosts {
        for at in 0..net.nodes.len() as u32 {
            if net.nodes[at as usize].kind == NodeKind::Router {
                assert_eq!(
                    structured.next_port(net, at, d),
                    tables.next_port(net, at, d),
                    "{what}: at {} toward {}",
                    net.nodes[at as usize].name,
                    net.nodes[d as usize].name
                );
            }
        }
    }
}

#[test]
fn twisted_torus_routes_are_exact_shortest_paths() {
    for (dims, jump, degree, wrap) in [
        ("[4, 4]", "[2, 1]", 1, "[true, true]"),
        ("[4, 4]", "[2, 2]", 1, "[true, true]"),
        ("[3, 3, 2]", "[1, 1, 1]", 1, "[true, true, true]"),
        ("[3, 3, 2]", "[1, 1, 1]", 2, "[true, true, true]"),
        ("[5, 4, 3]", "[2, 3, 1]", 1, "[true, false, true]"),
        ("[16, 16]", "[8, 8]", 1, "[true, true]"),
    ] {
        let net = network(&format!(
            "[topology]\nkind='twisted-torus'\ndims={dims}\njump={jump}\ntwist_degree={degree}\nwrap={wrap}\n"
        ));
        let rt = Routing::new(&net);
        let what = format!("twisted torus {dims} jump {jump} degree {degree}");
        let pairs = if net.hosts.len() > 64 { 2000 } else { 0 };
        assert_routes_are_shortest(&net, &rt, pairs, &what);
    }
    // The wrap of dimension 0 in a 4×4 with jump [2, 1] shifts dimension 1
    // by 2: router (3, 1) = 13 is linked to router (0, 3) = 3.
    let net = network("[topology]\nkind='twisted-torus'\ndims=[4,4]\njump=[2,1]\n");
    let r13 = net.node_by_name("router13").unwrap();
    let r3 = net.node_by_name("router3").unwrap();
    assert!(net.nodes[r13 as usize]
        .ports
        .iter()
        .any(|&p| net.peer_node(p) == r3));
    // Twist degree 0 is an ordinary torus: same link count as kind = torus.
    let plain = network("[topology]\nkind='torus'\ndims=[4,4]\n");
    let zero = network("[topology]\nkind='twisted-torus'\ndims=[4,4]\ntwist_degree=0\n");
    assert_eq!(plain.links.len(), zero.links.len());
    let e = config_error("[topology]\nkind='twisted-torus'\ndims=[4,4]\njump=[1,2,3]\n");
    assert!(e.contains("`topology.jump` has 3 values"), "{e}");
}

#[test]
fn dragonfly_routes_are_exact_shortest_paths() {
    for (g, a, p, h) in [(5, 2, 1, 2), (9, 4, 2, 2), (7, 3, 1, 3), (3, 4, 2, 1)] {
        let net = network(&format!(
            "[topology]\nkind='dragonfly'\ngroups={g}\nrouters_per_group={a}\nhosts_per_router={p}\nglobal_links_per_router={h}\n"
        ));
        assert_eq!(net.hosts.len() as u32, g * a * p);
        // a(a−1)/2 local links per group, one global link per group pair.
        assert_eq!(
            net.links.len() as u32,
            g * a * p + g * a * (a - 1) / 2 + g * (g - 1) / 2
        );
        let what = format!("dragonfly g={g} a={a} p={p} h={h}");
        let rt = Routing::new(&net);
        assert_routes_are_shortest(&net, &rt, 0, &what);
        assert_structured_equals_tables(&net, &what);
    }
    let e = config_error(
        "[topology]\nkind='dragonfly'\ngroups=10\nrouters_per_group=2\nhosts_per_router=1\nglobal_links_per_router=2\n",
    );
    assert!(e.contains("needs 9 global links per group"), "{e}");
}

#[test]
fn directed_ring_averages_half_the_ring() {
    for n in [3usize, 4, 7, 16] {
        let net = network(&format!(
            "[topology]\nkind='ring'\nhosts={n}\ndirected=true\n"
        ));
        let rt = Routing::new(&net);
        let a = analyse(&net, &rt, Pattern::AllToAll, 64);
        // From i, the others are 1, 2, …, n−1 hops ahead: mean n/2.
        assert_eq!(a.pairs as usize, n * (n - 1));
        assert!(
            (a.mean_hops - n as f64 / 2.0).abs() < 1e-12,
            "ring {n}: {}",
            a.mean_hops
        );
        assert_eq!(a.max_hops as usize, n - 1);
        assert_eq!(a.diameter_hops, Some(n as u32 - 1));
        // Always the +1 neighbour: from host1 to host0 goes all the way round.
        assert_eq!(
            rt.links(&net, net.hosts[1], net.hosts[0]),
            Some(n as u32 + 1)
        );
    }
}

#[test]
fn binary_tree_ring_pattern_tends_to_four_hops() {
    // Hosts at the leaves of a binary tree with L levels of routers
    // (n = 2^L hosts, two on each leaf router). Host i to i+1 climbs to a
    // lowest common ancestor t(i)+1 levels up, t(i) = trailing one bits of
    // i; the wrap pair climbs L. Σ_{i<n−1}(t(i)+1) = 2n−2−L, so the links
    // total 2(2n−2) and the mean is 4 − 4/n.
    let mut previous = 0.0;
    for levels in 1..=10u32 {
        let net = network(&format!(
            "[topology]\nkind='tree'\narity=2\nlevels={levels}\n"
        ));
        let n = 1usize << levels;
        assert_eq!(net.hosts.len(), n);
        let rt = Routing::new(&net);
        let a = analyse(&net, &rt, Pattern::Ring, 64);
        let exact = 4.0 - 4.0 / n as f64;
        assert!(
            (a.mean_hops - exact).abs() < 1e-12,
            "L={levels}: {} vs {exact}",
            a.mean_hops
        );
        assert!(a.mean_hops >= previous);
        previous = a.mean_hops;
        assert_eq!(a.diameter_hops, Some(2 * levels));
        if levels <= 6 {
            assert_routes_are_shortest(&net, &rt, 0, &format!("tree L={levels}"));
            assert_structured_equals_tables(&net, &format!("tree L={levels}"));
        }
    }
}

#[test]
fn every_hypercube_node_handles_n_times_two_to_the_n_minus_one_messages() {
    for order in 1..=6u32 {
        let expected = order as u64 * (1u64 << (order - 1));
        for routing in ["shortest", "e-cube"] {
            let net = network(&format!(
                "[topology]\nkind='hypercube'\norder={order}\nrouting='{routing}'\n"
            ));
            let rt = Routing::new(&net);
            let a = analyse(&net, &rt, Pattern::AllToAll, 64);
            assert_eq!(a.handled.len(), 1 << order);
            assert_eq!(a.diameter_hops, Some(order));
            let total: u64 = a.handled.iter().map(|(_, c)| c).sum();
            assert_eq!(total, expected << order, "order {order} {routing}");
            if routing == "e-cube" {
                // E-cube treats every node alike: each handles exactly its share.
                for (name, count) in &a.handled {
                    assert_eq!(*count, expected, "order {order} {routing}: {name}");
                }
            }
        }
    }
    // E-cube fixes the lowest differing bit first: 0b0000 → 0b1011 visits
    // routers 1, 3, 11.
    let net = network("[topology]\nkind='hypercube'\norder=4\nrouting='e-cube'\n");
    let rt = Routing::new(&net);
    let path = rt.path(&net, net.hosts[0], net.hosts[11]).unwrap();
    let routers: Vec<&str> = path
        .iter()
        .map(|&p| net.nodes[net.peer_node(p) as usize].name.as_str())
        .filter(|n| n.starts_with("router"))
        .collect();
    assert_eq!(routers, ["router0", "router1", "router3", "router11"]);
    for i in 0..16usize {
        for j in 0..16usize {
            if i != j {
                assert_eq!(
                    rt.links(&net, net.hosts[i], net.hosts[j]),
                    Some((i ^ j).count_ones() + 2)
                );
            }
        }
    }
}

#[test]
fn dimension_order_corrects_the_first_dimension_first() {
    // 4×4 torus, router (0,0) → (2,3): dimension 0 first (0→1→2, +1 on the
    // tie at distance 2), then dimension 1 the short way round (0→3).
    let net = network("[topology]\nkind='torus'\ndims=[4,4]\nrouting='dimension-order'\n");
    let rt = Routing::new(&net);
    let path = rt.path(&net, net.hosts[0], net.hosts[11]).unwrap();
    let routers: Vec<&str> = path
        .iter()
        .map(|&p| net.nodes[net.peer_node(p) as usize].name.as_str())
        .filter(|n| n.starts_with("router"))
        .collect();
    assert_eq!(routers, ["router0", "router4", "router8", "router11"]);
    for (toml, what) in [
        (
            "[topology]\nkind='mesh'\ndims=[3,4,2]\nrouting='dimension-order'\n",
            "mesh",
        ),
        (
            "[topology]\nkind='torus'\ndims=[5,4]\nrouting='dimension-order'\n",
            "torus",
        ),
        (
            "[topology]\nkind='ring'\nhosts=9\nrouting='dimension-order'\n",
            "ring",
        ),
    ] {
        let net = network(toml);
        assert_routes_are_shortest(&net, &Routing::new(&net), 0, what);
    }
    let e = config_error("[topology]\nkind='hypercube'\norder=3\nrouting='dimension-order'\n");
    assert!(e.contains("does not apply to a hypercube"), "{e}");
}

#[test]
fn valiant_and_ugal_are_for_dragonflies_only() {
    for routing in ["valiant", "ugal"] {
        let e = config_error(&format!(
            "[topology]\nkind='fat-tree'\nk=4\nrouting='{routing}'\n"
        ));
        assert!(
            e.contains(&format!(
                "routing = \"{routing}\"` does not apply to a fat-tree"
            )) && e.contains("valiant and ugal for dragonflies"),
            "{e}"
        );
    }
    let e = config_error("[topology]\nkind='torus'\ndims=[4,4]\nrouting='dmodk'\n");
    assert!(e.contains("dmodk for fat-trees"), "{e}");
    let e = config_error("[topology]\nkind='torus'\ndims=[4,4]\nflowlet_gap='5us'\n");
    assert!(
        e.contains("`topology.flowlet_gap` does not apply to a torus"),
        "{e}"
    );
    let net = network(
        "[topology]\nkind='dragonfly'\ngroups=3\nrouters_per_group=2\nhosts_per_router=1\nglobal_links_per_router=1\nrouting='ugal'\nflowlet_gap='7us'\n",
    );
    assert_eq!(net.flowlet_gap_ns, 7_000);
}

#[test]
fn coordinate_routing_matches_the_tables() {
    for (toml, what) in [
        ("[topology]\nkind='mesh'\ndims=[3,4]\n", "mesh"),
        (
            "[topology]\nkind='torus'\ndims=[4,5,2]\nwrap=[true,true,false]\n",
            "torus",
        ),
        ("[topology]\nkind='ring'\nhosts=8\n", "ring"),
        ("[topology]\nkind='hypercube'\norder=4\n", "hypercube"),
        ("[topology]\nkind='tree'\narity=3\nlevels=3\n", "tree"),
        ("[topology]\nkind='fat-tree'\nk=4\n", "fat-tree 4"),
        ("[topology]\nkind='fat-tree'\nk=6\n", "fat-tree 6"),
    ] {
        let net = network(toml);
        assert_structured_equals_tables(&net, what);
        assert_routes_are_shortest(&net, &Routing::new(&net), 0, what);
    }
}

#[test]
fn fat_tree_hops_and_sizes_follow_the_pods() {
    for k in [2u32, 4, 6, 8] {
        let net = network(&format!("[topology]\nkind='fat-tree'\nk={k}\n"));
        let half = (k / 2) as usize;
        let hosts = (k * k * k / 4) as usize;
        assert_eq!(net.hosts.len(), hosts);
        assert_eq!(net.nodes.len(), hosts + 5 * (k * k / 4) as usize);
        // Host links, edge–aggregation links, aggregation–core links.
        assert_eq!(net.links.len(), hosts + k as usize * half * half * 2);
        let rt = Routing::new(&net);
        let per_pod = half * half;
        for s in 0..hosts {
            for d in 0..hosts {
                if s == d {
                    continue;
                }
                let links = if s / half == d / half {
                    2
                } else if s / per_pod == d / per_pod {
                    4
                } else {
                    6
                };
                assert_eq!(rt.links(&net, net.hosts[s], net.hosts[d]), Some(links));
            }
        }
        let a = analyse(&net, &rt, Pattern::AllToAll, 64);
        // With k = 2 each edge router has one host, which then stands for it.
        assert_eq!(a.diameter_hops, Some(if k == 2 { 4 } else { 6 }));
        // Every core router carries some of the all-to-all traffic.
        for (name, count) in a.handled.iter().filter(|(n, _)| n.starts_with("core")) {
            assert!(*count > 0, "k={k}: {name} idle");
        }
    }
    let e = config_error("[topology]\nkind='fat-tree'\nk=5\n");
    assert!(e.contains("`topology.k` is 5"), "{e}");
}

#[test]
fn hybrid_cores_of_one_processor_talk_inside_it() {
    let net = network(
        "[topology]\nkind='torus'\ndims=[3,3]\ndelay='1us'\n\
         [topology.processor]\nkind='mesh'\ndims=[2,2]\nrate='100Gbps'\ndelay='10ns'\n",
    );
    // 9 processors × 4 cores.
    assert_eq!(net.hosts.len(), 36);
    assert_eq!(net.nodes[net.hosts[5] as usize].name, "cpu1.core1");
    let rt = Routing::new(&net);
    assert!(!rt.is_structured());
    for s in 0..36usize {
        for d in 0..36usize {
            if s == d {
                continue;
            }
            let path = rt.path(&net, net.hosts[s], net.hosts[d]).unwrap();
            let inside = path.iter().all(|&p| {
                let link = &net.links[net.ports[p as usize].link as usize];
                link.params.delay_ns == 10
            });
            if s / 4 == d / 4 {
                // Only processor links (10 ns), never a network router.
                assert!(inside, "cpu{} core {s} -> {d} left the processor", s / 4);
                let prefix = format!("cpu{}.", s / 4);
                for &p in &path {
                    let node = &net.nodes[net.peer_node(p) as usize].name;
                    assert!(node.starts_with(&prefix), "{s}->{d} visits {node}");
                }
                // Mesh distance inside the 2×2 processor plus the two core links.
                let (a, b) = (s % 4, d % 4);
                let mesh = (a / 2).abs_diff(b / 2) + (a % 2).abs_diff(b % 2);
                assert_eq!(path.len(), mesh + 2);
            } else {
                assert!(!inside);
                assert!(path.iter().any(|&p| net.nodes[net.peer_node(p) as usize]
                    .name
                    .starts_with("router")));
            }
        }
    }
    assert_routes_are_shortest(&net, &rt, 0, "hybrid torus of meshes");
    let e = config_error(
        "[topology]\nkind='star'\nhosts=2\n[topology.processor]\nkind='mesh'\ndims=[0]\n",
    );
    assert!(e.contains("`topology.processor.dims[0]` is 0"), "{e}");
}

#[test]
fn a_packet_through_a_fat_tree_loses_one_ttl_per_router() {
    // host0 (pod 0) to the last host (pod 3): edge, aggregation, core,
    // aggregation, edge = 5 routers, so the receiver sees TTL 59.
    let toml = "[topology]\nkind='fat-tree'\nk=4\n[capture]\npoints=['host15']\n";
    let cfg = NetworkConfig::from_toml_str(toml, "ft").unwrap();
    let mut sim = netsim::Simulator::from_config(&cfg, "ft", 16, true).unwrap();
    let routers = sim.routes().routers_on_path(sim.network(), 0, 15).unwrap();
    assert_eq!(routers, 5);
    sim.inject(
        0,
        15,
        bytes::Bytes::from(vec![1u8; 3000]),
        netsim::Nanos::ZERO,
    )
    .unwrap();
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].bytes.len(), 3000);
    let pcap = sim.captures_mut()[0].take_bytes();
    let mut at = 24;
    let mut ttls = Vec::new();
    while at + 16 <= pcap.len() {
        let len = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let frame = &pcap[at + 16..at + 16 + len];
        at += 16 + len;
        // Frames arriving at host15 (source IP is host0's 10.0.0.1).
        if frame[26..30] == [10, 0, 0, 1] {
            ttls.push(frame[22]);
        }
    }
    assert!(!ttls.is_empty());
    assert!(ttls.iter().all(|&t| t == 64 - 5), "{ttls:?}");
}

#[test]
fn the_thesis_string_drives_a_simulation_with_one_rank_per_core() {
    let cfg = netsim::loader::load(
        std::path::Path::new(
            "xsim:type=torus,ndimensions=2*2,nlatency=5,cores=2,ptype=ring,platency=0.1",
        ),
        Some(8),
        std::fs::read_to_string,
    )
    .unwrap();
    // A processor ring needs 3 cores at least.
    let e = netsim::Simulator::from_config(&cfg, "s", 8, false)
        .err()
        .unwrap();
    assert!(
        e.0.contains("`topology.processor.hosts` is 2; a ring needs at least 3"),
        "{e}"
    );
    let cfg = netsim::loader::load(
        std::path::Path::new(
            "xsim:type=torus,ndimensions=2*2,nlatency=5,cores=4,ptype=star,platency=0.1",
        ),
        Some(16),
        std::fs::read_to_string,
    )
    .unwrap();
    let sim = netsim::Simulator::from_config(&cfg, "s", 16, false).unwrap();
    assert_eq!(sim.network().hosts.len(), 16);
    let e = netsim::Simulator::from_config(&cfg, "s", 12, false)
        .err()
        .unwrap();
    assert!(e.0.contains("exactly one rank per host"), "{e}");
}

#[test]
fn a_misspelt_routing_is_one_sentence_naming_spray_among_the_choices() {
    let e = NetworkConfig::from_toml_str(
        "[topology]\nkind='fat-tree'\nk=4\nrouting='spary'\n",
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    println!("{e}");
    assert!(e.contains("spary") && e.contains("spray"), "{e}");
    // Spraying applies to every shape with equal-cost paths, graphs too.
    for kind in ["kind='fat-tree'\nk=4", "kind='torus'\ndims=[4,4]", "kind='dragonfly'\ngroups=3\nrouters_per_group=2\nhosts_per_router=1\nglobal_links_per_router=1"] {
        let cfg = NetworkConfig::from_toml_str(&format!("[topology]\n{kind}\nrouting='spray'\n"), "t.toml").unwrap();
        Network::from_config(&cfg, "t.toml").unwrap();
    }
}
