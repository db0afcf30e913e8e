//! Generated topologies: host-to-host hop counts of the exact shortest-path
//! routes equal the closed forms of each shape, and a packet crossing a mesh
//! loses one TTL per router.

use netsim::topology::routing::Routing;
use netsim::{Network, NetworkConfig};

fn generate(toml: &str) -> (Network, Routing) {
    let cfg = NetworkConfig::from_toml_str(toml, "t").unwrap();
    let net = Network::from_config(&cfg, "t").unwrap();
    let rt = Routing::new(&net);
    (net, rt)
}

/// Links on the route from host `i` to host `j` (host indices).
fn hops(net: &Network, rt: &Routing, i: usize, j: usize) -> u32 {
    rt.links(net, net.hosts[i], net.hosts[j])
        .unwrap_or_else(|| panic!("no route from host{i} to host{j}"))
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
        net.links
            .iter()
            .filter(|l| l.params.delay_ns == 1_000)
            .count(),
        2
    );
    let e =
        config_error("[topology]\nkind='star'\nhosts=3\n[[topology.link]]\na='host0'\nb='host1'\n");
    assert!(e.contains("`topology.link[0]`"), "{e}");
}

/// Coordinates of grid index `i` (last dimension fastest).
fn coords(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut c = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        c[k] = i % dims[k];
        i /= dims[k];
    }
    c
}

fn check_grid(dims: &[usize], wrap: &[bool]) {
    let list = |v: &[String]| v.join(", ");
    let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
    let w: Vec<String> = wrap.iter().map(|x| x.to_string()).collect();
    let toml = if wrap.iter().any(|&x| x) {
        format!(
            "[topology]\nkind='torus'\ndims=[{}]\nwrap=[{}]\n",
            list(&d),
            list(&w)
        )
    } else {
        format!("[topology]\nkind='mesh'\ndims=[{}]\n", list(&d))
    };
    let (net, rt) = generate(&toml);
    let n: usize = dims.iter().product();
    assert_eq!(net.hosts.len(), n);
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            let (a, b) = (coords(i, dims), coords(j, dims));
            let dist: usize = (0..dims.len())
                .map(|k| {
                    let delta = a[k].abs_diff(b[k]);
                    if wrap[k] {
                        delta.min(dims[k] - delta)
                    } else {
                        delta
                    }
                })
                .sum();
            assert_eq!(
                hops(&net, &rt, i, j) as usize,
                dist + 2,
                "{toml}: host{i} {a:?} -> host{j} {b:?}"
            );
        }
    }
}

#[test]
fn mesh_hops_are_manhattan_distance_plus_two() {
    check_grid(&[3, 4], &[false, false]);
    check_grid(&[2, 3, 2], &[false, false, false]);
}

#[test]
fn torus_hops_take_the_shorter_way_round_each_wrapped_dimension() {
    check_grid(&[4, 4], &[true, true]);
    check_grid(&[5, 3], &[true, false]);
    check_grid(&[3, 2, 4], &[true, true, true]);
    let e = config_error("[topology]\nkind='torus'\ndims=[4,4]\nwrap=[true]\n");
    assert!(e.contains("`topology.wrap`"), "{e}");
    let e = config_error("[topology]\nkind='mesh'\ndims=[4,0]\n");
    assert!(e.contains("`topology.dims[1]`"), "{e}");
}

#[test]
fn a_packet_across_a_3x3_mesh_loses_one_ttl_per_router() {
    let toml = "[topology]\nkind='mesh'\ndims=[3,3]\n[capture]\npoints=['host8']\n";
    let cfg = NetworkConfig::from_toml_str(toml, "mesh").unwrap();
    let mut sim = netsim::Simulator::from_config(&cfg, "mesh", 9, true).unwrap();
    let net = sim.network();
    // host0 at (0,0) to host8 at (2,2): 4 router-to-router links, 5 routers.
    let routers = sim.routes().routers_on_path(net, 0, 8).unwrap();
    assert_eq!(routers, 5);
    sim.inject(
        0,
        8,
        bytes::Bytes::from(vec![1u8; 100]),
        netsim::Nanos::ZERO,
    )
    .unwrap();
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(sim.captures_mut().len(), 1);
    let pcap = sim.captures_mut()[0].take_bytes();
    // Skip the 24-byte file header; each record has a 16-byte header whose
    // bytes 8..12 are the captured length.
    let mut at = 24;
    let mut ttl = None;
    while at + 16 <= pcap.len() {
        let len = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let frame = &pcap[at + 16..at + 16 + len];
        at += 16 + len;
        let ihl = (frame[14] & 0x0f) as usize * 4;
        let total = u16::from_be_bytes([frame[16], frame[17]]) as usize;
        let tcp_header = (frame[14 + ihl + 12] >> 4) as usize * 4;
        if total > ihl + tcp_header {
            ttl = Some(frame[14 + 8]);
            break;
        }
    }
    assert_eq!(ttl, Some(64 - routers as u8));
}

#[test]
fn hypercube_hops_are_the_hamming_distance_plus_two() {
    let (net, rt) = generate("[topology]\nkind='hypercube'\norder=4\n");
    assert_eq!(net.hosts.len(), 16);
    // 16 host links + 16·4/2 router links.
    assert_eq!(net.links.len(), 16 + 32);
    for i in 0..16usize {
        for j in 0..16usize {
            if i != j {
                assert_eq!(
                    hops(&net, &rt, i, j),
                    (i ^ j).count_ones() + 2,
                    "host{i} -> host{j}"
                );
            }
        }
    }
    let e = config_error("[topology]\nkind='hypercube'\norder=40\n");
    assert!(e.contains("`topology.order`"), "{e}");
}

#[test]
fn ring_hops_go_the_shorter_way_and_average_to_the_closed_form() {
    for n in [3usize, 7, 8] {
        let (net, rt) = generate(&format!("[topology]\nkind='ring'\nhosts={n}\n"));
        let mut total = 0usize;
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                let d = i.abs_diff(j);
                let h = hops(&net, &rt, i, j) as usize;
                assert_eq!(h, d.min(n - d) + 2, "ring {n}: host{i} -> host{j}");
                total += h;
            }
        }
        // From any host, the ring distances to the other n−1 hosts are
        // 1, 1, 2, 2, … and sum to ⌊n²/4⌋; add the 2 host links per route.
        // Average over the n(n−1) ordered pairs = ⌊n²/4⌋/(n−1) + 2.
        assert_eq!(total, n * (n * n / 4 + 2 * (n - 1)), "ring {n}");
        let avg = total as f64 / (n * (n - 1)) as f64;
        let closed = (n * n / 4) as f64 / (n - 1) as f64 + 2.0;
        assert!((avg - closed).abs() < 1e-12, "ring {n}: {avg} vs {closed}");
    }
    let e = config_error("[topology]\nkind='ring'\nhosts=2\n");
    assert!(e.contains("`topology.hosts` is 2"), "{e}");
}

#[test]
fn tree_hops_climb_to_the_lowest_common_ancestor_and_back() {
    for (arity, levels, per_leaf) in [(2usize, 4u32, 1usize), (3, 3, 2), (4, 1, 3)] {
        let (net, rt) = generate(&format!(
            "[topology]\nkind='tree'\narity={arity}\nlevels={levels}\nhosts_per_leaf={per_leaf}\n"
        ));
        let leaves = arity.pow(levels - 1);
        let n = leaves * per_leaf;
        assert_eq!(net.hosts.len(), n);
        let routers: usize = (0..levels).map(|l| arity.pow(l)).sum();
        assert_eq!(net.nodes.len(), routers + n);
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                let (mut a, mut b) = (i / per_leaf, j / per_leaf);
                let mut up = 0;
                while a != b {
                    a /= arity;
                    b /= arity;
                    up += 1;
                }
                assert_eq!(
                    hops(&net, &rt, i, j),
                    2 * up + 2,
                    "tree {arity}/{levels}/{per_leaf}: host{i} -> host{j}"
                );
            }
        }
    }
    let e = config_error("[topology]\nkind='tree'\narity=2\n");
    assert!(e.contains("`topology.levels` is missing"), "{e}");
}

#[test]
fn bundled_topology_examples_load() {
    for (file, hosts) in [
        ("torus-4x4.toml", 16),
        ("hypercube-4.toml", 16),
        ("fat-tree-4.toml", 16),
        ("dragonfly.toml", 72),
        ("hpc-fat-tree.toml", 16),
        ("hpc-fat-tree-lossless.toml", 16),
        ("hpc-dragonfly.toml", 40),
        ("twisted-torus-4x4.toml", 16),
        ("hybrid-ring-of-meshes.toml", 16),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../configs")
            .join(file);
        let cfg = netsim::loader::from_file(&path, std::fs::read_to_string).unwrap();
        let sim = netsim::Simulator::from_config(&cfg, file, hosts, true).unwrap();
        assert_eq!(sim.network().hosts.len(), hosts, "{file}");
    }
}
