//! The analytic model driven like the gateway drives it: injections,
//! events, deliveries and collective releases at hand-computed times.

use super::*;

/// 4 ranks on 2 nodes of 2; network 10 µs and 8 Gbps (1 byte/ns); local
/// 1 µs and 80 Gbps (10 bytes/ns); one link per node, `buses` buses.
fn machine(buses: u32) -> MachineParams {
    MachineParams {
        latency_ns: 10_000,
        bandwidth_bps: 8_000_000_000,
        local_latency_ns: 1_000,
        local_bandwidth_bps: 80_000_000_000,
        links_per_node: 1,
        buses,
        node_of_rank: vec![0, 0, 1, 1],
    }
}

fn run(sim: &mut AnalyticSim) -> Vec<(u32, u32, u64)> {
    while sim.step().is_some() {}
    let mut d = Vec::new();
    sim.take_deliveries(&mut d);
    d.iter().map(|d| (d.src, d.dst, d.delivered_at.0)).collect()
}

fn bytes(n: usize) -> Bytes {
    Bytes::from(vec![7u8; n])
}

#[test]
fn a_message_arrives_after_latency_plus_size_over_bandwidth() {
    let mut sim = AnalyticSim::new(machine(0), BTreeMap::new());
    sim.inject(0, 2, bytes(1000), Nanos(5_000)).unwrap();
    sim.inject(0, 1, bytes(1000), Nanos(5_000)).unwrap();
    let d = run(&mut sim);
    // Intra-node: 5 000 + 1 000 + 100; inter-node: 5 000 + 10 000 + 1 000.
    assert_eq!(d, [(0, 1, 6_100), (0, 2, 16_000)]);
    let s = sim.stats();
    assert_eq!((s.messages_injected, s.messages_delivered), (2, 2));
}

#[test]
fn a_single_bus_makes_messages_of_different_nodes_wait() {
    // Ranks 0 and 2 send 1000 bytes to each other at t = 0 over one bus:
    // the first arrives at 11 µs, the second waits for the bus until 11 µs
    // and arrives at 12 µs.
    let mut sim = AnalyticSim::new(machine(1), BTreeMap::new());
    sim.inject(0, 2, bytes(1000), Nanos(0)).unwrap();
    sim.inject(2, 0, bytes(1000), Nanos(0)).unwrap();
    assert_eq!(run(&mut sim), [(0, 2, 11_000), (2, 0, 12_000)]);
    let a = sim.analytic_stats();
    assert_eq!(
        (a.contention_wait_ns, a.max_contention_wait_ns),
        (1_000, 1_000)
    );
}

#[test]
fn messages_of_one_pair_never_overtake() {
    // Two links and buses would let a small message overtake a big one;
    // the model keeps MPI's order: the small one arrives with the big one.
    let mut m = machine(0);
    m.links_per_node = 2;
    let mut sim = AnalyticSim::new(m, BTreeMap::new());
    sim.inject(0, 2, bytes(5000), Nanos(0)).unwrap();
    sim.inject(0, 2, bytes(10), Nanos(1)).unwrap();
    let d = run(&mut sim);
    assert_eq!(d, [(0, 2, 15_000), (0, 2, 15_000)]);
}

#[test]
fn untimed_messages_arrive_when_sent() {
    let mut sim = AnalyticSim::new(machine(0), BTreeMap::new());
    sim.inject_untimed(3, 0, bytes(1 << 20), Nanos(42)).unwrap();
    assert_eq!(run(&mut sim), [(3, 0, 42)]);
    assert_eq!(sim.analytic_stats().untimed_messages, 1);
}

fn entry(seq: u32, op: CollectiveOp, is_root: bool, sent: u64, received: u64) -> CollectiveEntry {
    CollectiveEntry {
        key: CollectiveKey {
            context: 1,
            leader: 0,
            seq,
        },
        op,
        members: 4,
        is_root,
        sent_bytes: sent,
        received_bytes: received,
    }
}

#[test]
fn a_collective_starts_with_its_last_member_and_releases_all() {
    // Bcast (fan-in 0, fan-out LOG MAX) of 1000 bytes from rank 1 on 4
    // ranks over 2 nodes, unlimited buses: ⌈log2 4⌉ = 2 steps of
    // 10 000 + 1 000 ns after the last entry at 30 µs → 52 µs.
    let mut sim = AnalyticSim::new(machine(0), BTreeMap::new());
    for (rank, at) in [(0u32, 10_000u64), (1, 20_000), (2, 30_000), (3, 0)] {
        let e = entry(0, CollectiveOp::Bcast, rank == 1, 1000, 1000);
        sim.enter_collective(rank, e, Nanos(at)).unwrap();
    }
    while sim.step().is_some() {}
    let mut r = Vec::new();
    sim.take_releases(&mut r);
    let mut got: Vec<(u32, u64)> = r.iter().map(|r| (r.rank, r.at.0)).collect();
    got.sort();
    assert_eq!(got, [(0, 52_000), (1, 52_000), (2, 52_000), (3, 52_000)]);
    assert_eq!(sim.analytic_stats().collectives, 1);
}

#[test]
fn one_bus_adds_tree_steps_and_configured_models_apply() {
    // Allreduce configured as LIN in (S+R) and CTE out (MIN) with one bus:
    // in = 4 × (10 000 + 300), out = 1 × (10 000 + 100) → 51 300 ns.
    let models = BTreeMap::from([(
        CollectiveOp::Allreduce,
        CollectiveModel {
            model_in: PhaseModel::Linear,
            size_in: SizeRule::SendPlusRecv,
            model_out: PhaseModel::Constant,
            size_out: SizeRule::Min,
        },
    )]);
    let mut sim = AnalyticSim::new(machine(1), models);
    for rank in 0..4 {
        // Non-rooted: the largest sizes any member reports (200 and 100).
        let sent = if rank == 2 { 200 } else { 50 };
        let e = entry(3, CollectiveOp::Allreduce, false, sent, 100);
        sim.enter_collective(rank, e, Nanos(0)).unwrap();
    }
    // Barrier (default LOG in, no fan-out) of zero bytes with one bus:
    // P = 4 → phases of 1 and 2 messages → 3 steps of 10 µs.
    for rank in 0..4 {
        let e = entry(4, CollectiveOp::Barrier, false, 0, 0);
        sim.enter_collective(rank, e, Nanos(100_000)).unwrap();
    }
    while sim.step().is_some() {}
    let mut r = Vec::new();
    sim.take_releases(&mut r);
    let ends: Vec<u64> = r.iter().map(|r| r.at.0).collect();
    assert_eq!(
        ends,
        [51_300; 4]
            .into_iter()
            .chain([130_000; 4])
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_collective_inside_one_node_uses_local_parameters() {
    // Ranks 0 and 1 share node 0: reduce (LOG in) of 1000 bytes on 2
    // members = 1 step of 1 000 + 100 ns.
    let mut sim = AnalyticSim::new(machine(0), BTreeMap::new());
    for rank in 0..2 {
        let mut e = entry(0, CollectiveOp::Reduce, rank == 0, 1000, 1000);
        e.members = 2;
        e.key.leader = 0;
        sim.enter_collective(rank, e, Nanos(0)).unwrap();
    }
    sim.step();
    let mut r = Vec::new();
    sim.take_releases(&mut r);
    assert_eq!(r[0].at, Nanos(1_100));
}

#[test]
fn members_that_disagree_are_an_error() {
    let mut sim = AnalyticSim::new(machine(0), BTreeMap::new());
    sim.enter_collective(0, entry(0, CollectiveOp::Bcast, true, 8, 8), Nanos(0))
        .unwrap();
    let e = sim
        .enter_collective(1, entry(0, CollectiveOp::Reduce, false, 8, 8), Nanos(0))
        .unwrap_err();
    assert!(e.contains("same collective"), "{e}");
    let e = sim
        .enter_collective(0, entry(0, CollectiveOp::Bcast, true, 8, 8), Nanos(0))
        .unwrap_err();
    assert!(e.contains("twice"), "{e}");
}

#[test]
fn parameters_default_to_the_packet_network() {
    // Two hosts on a switch, 2 ranks each: latency = 2 × 500 µs, bandwidth
    // = the slowest link (100 Mbps), local = [intra_host], L = 1, B = ∞.
    let text = r#"
        model = "analytic"
        [link_defaults]
        rate = "1Gbps"
        delay = "500us"
        [intra_host]
        latency = "2us"
        rate = "40Gbps"
        [[host]]
        name = "h0"
        [[host]]
        name = "h1"
        [[switch]]
        name = "s"
        [[link]]
        a = "h0"
        b = "s"
        [[link]]
        a = "h1"
        b = "s"
        rate = "100Mbps"
    "#;
    let cfg = NetworkConfig::from_toml_str(text, "t.toml").unwrap();
    assert_eq!(cfg.model, ModelKind::Analytic);
    let m = MachineParams::from_config(&cfg, "t.toml", 4).unwrap();
    assert_eq!(
        m,
        MachineParams {
            latency_ns: 1_000_000,
            bandwidth_bps: 100_000_000,
            local_latency_ns: 2_000,
            local_bandwidth_bps: 40_000_000_000,
            links_per_node: 1,
            buses: 0,
            node_of_rank: vec![0, 0, 1, 1],
        }
    );
    // Explicit keys win.
    let text2 = format!(
        "{text}\n[analytic]\nprocessors_per_node = 3\nlatency = \"5us\"\nbandwidth = \"10Gbps\"\nlocal_latency = \"100ns\"\nlocal_bandwidth = \"0\"\nlinks_per_node = 2\nbuses = 4\n[analytic.collective.bcast]\nmodel_in = \"0\"\nsize_in = \"MAX\"\nmodel_out = \"LIN\"\nsize_out = \"2*MAX\"\n"
    );
    let cfg = NetworkConfig::from_toml_str(&text2, "t.toml").unwrap();
    let m = MachineParams::from_config(&cfg, "t.toml", 4).unwrap();
    assert_eq!(
        (
            m.latency_ns,
            m.bandwidth_bps,
            m.local_latency_ns,
            m.local_bandwidth_bps
        ),
        (5_000, 10_000_000_000, 100, 0)
    );
    assert_eq!((m.links_per_node, m.buses), (2, 4));
    assert_eq!(m.node_of_rank, [0, 0, 0, 1]);
    assert_eq!(
        cfg.analytic.collective["bcast"].size_out,
        SizeRule::TwiceMax
    );
}

#[test]
fn bad_analytic_keys_are_one_sentence_naming_the_key() {
    let e = NetworkConfig::from_toml_str("model = \"fluid\"\n", "n.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`model`") && e.contains("packet"), "{e}");
    let e = NetworkConfig::from_toml_str(
        "[analytic.collective.bcast]\nmodel_in = \"SQRT\"\nsize_in = \"MAX\"\nmodel_out = \"0\"\nsize_out = \"MAX\"\n",
        "n.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("analytic.collective.bcast.model_in"), "{e}");
    let e = NetworkConfig::from_toml_str("[analytic]\nbus = 2\n", "n.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("bus"), "{e}");
    let cfg = NetworkConfig::from_toml_str(
        "[analytic]\nprocessors_per_node = 0\n[[host]]\nname = \"h\"\n",
        "n.toml",
    )
    .unwrap();
    let e = MachineParams::from_config(&cfg, "n.toml", 2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("processors_per_node"), "{e}");
    let cfg = NetworkConfig::from_toml_str(
        "[analytic.collective.broadcast]\nmodel_in = \"0\"\nsize_in = \"MAX\"\nmodel_out = \"LOG\"\nsize_out = \"MAX\"\n[[host]]\nname = \"h\"\n",
        "n.toml",
    )
    .unwrap();
    let e = AnalyticSim::from_config(&cfg, "n.toml", 2)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("`analytic.collective.broadcast` names no collective") && e.contains("bcast"),
        "{e}"
    );
}

#[test]
fn processors_of_a_hybrid_network_are_the_nodes() {
    // 2 processors on a 2-host star (links 1 Gbps, 5 µs), each a star of
    // 2 cores (links 100 Gbps, 20 ns): 4 ranks, 2 per processor. Network:
    // the delays along the route from cpu0.core0 to cpu1.core0; local:
    // cpu0.core0 → cpu0's switch → cpu0.core1 = 2 × 20 ns at 100 Gbps.
    let text = r#"
        [link_defaults]
        rate = "1Gbps"
        delay = "5us"
        [topology]
        kind = "star"
        hosts = 2
        [topology.processor]
        kind = "star"
        hosts = 2
        rate = "100Gbps"
        delay = "20ns"
    "#;
    let cfg = NetworkConfig::from_toml_str(text, "h.toml").unwrap();
    let m = MachineParams::from_config(&cfg, "h.toml", 4).unwrap();
    assert_eq!(m.node_of_rank, [0, 0, 1, 1]);
    let net = crate::topology::Network::from_config(&cfg, "h.toml").unwrap();
    let routes = crate::topology::routing::Routing::new(&net);
    let host = |n: &str| net.node_by_name(n).unwrap();
    let delay_rate = |a: &str, b: &str| {
        let path = routes.path(&net, host(a), host(b)).unwrap();
        let links: Vec<_> = path
            .iter()
            .map(|&p| net.links[net.ports[p as usize].link as usize].params)
            .collect();
        (
            links.iter().map(|l| l.delay_ns).sum::<u64>(),
            links.iter().map(|l| l.rate_bps).min().unwrap(),
        )
    };
    assert_eq!(
        (m.latency_ns, m.bandwidth_bps),
        delay_rate("cpu0.core0", "cpu1.core0")
    );
    assert_eq!(
        (m.local_latency_ns, m.local_bandwidth_bps),
        delay_rate("cpu0.core0", "cpu0.core1")
    );
    // The network crosses the 5 µs links; the local route only 20 ns ones.
    assert!(m.latency_ns >= 10_000 && m.bandwidth_bps == 1_000_000_000);
    assert_eq!(
        (m.local_latency_ns, m.local_bandwidth_bps),
        (40, 100_000_000_000)
    );
}
