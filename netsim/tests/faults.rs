//! Faults against numbers from a written-down model: TCP's retransmission
//! timeout (RFC 6298 with `tcp.rto_min` = 200 ms and doubling backoff),
//! serialisation + propagation per hop, breadth-first distances on the graph
//! that remains, exponential failure and repair times.

use bytes::Bytes;
use netsim::base::time::serialization_time;
use netsim::faults::{NetworkEvent, NetworkEventKind as K};
use netsim::topology::{Network, NodeId, NodeKind};
use netsim::wire::packet::{
    data_frame_wire_len, ETHERNET_GAP, ETHERNET_MIN_FRAME, TCP_SYN_OPTIONS,
};
use netsim::workload::{self, Pattern, Workload};
use netsim::{Delivery, Nanos, NetworkConfig, Simulator};
use std::collections::VecDeque;

const GBPS: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;
/// `tcp.rto_min`: every RTO here is floored to it (RTTs are a few ms).
const RTO_MIN: u64 = 200 * MS;

fn sim(toml: &str, ranks: usize) -> Simulator {
    let cfg = NetworkConfig::from_toml_str(toml, "test").unwrap();
    Simulator::from_config(&cfg, "test", ranks, false).unwrap()
}

/// Two hosts on a switch, 1 Gbps, 0.5 ms per link, every segment ACKed at once.
fn two_hosts(extra: &str) -> String {
    format!(
        "seed = 3\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n[tcp]\ndelayed_ack='0'\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n{extra}"
    )
}

/// One-way time of a 32-byte message over the two 0.5 ms hops.
const D: u64 = 2 * (880 + 500_000);
/// Serialisation of a pure ACK at 1 Gbps.
const A: u64 = (ETHERNET_MIN_FRAME + ETHERNET_GAP) * 8;

/// Rank 0 and 1 exchange `2 × iters` messages, message i carrying the
/// byte i: every delivery is checked against what was sent.
fn pingpong(sim: &mut Simulator, iters: usize) -> Vec<Delivery> {
    let msg = |i: usize| Bytes::from(vec![i as u8; 32]);
    sim.inject(0, 1, msg(0), Nanos::ZERO).unwrap();
    let mut out: Vec<Delivery> = Vec::new();
    let mut batch = Vec::new();
    while sim.step().is_some() {
        sim.take_deliveries(&mut batch);
        for d in batch.drain(..) {
            let i = out.len();
            assert_eq!(d.bytes, msg(i), "message {i} arrived changed");
            let (src, dst) = (d.dst, d.src);
            out.push(d);
            if i + 1 < 2 * iters {
                sim.inject(src, dst, msg(i + 1), sim.now()).unwrap();
            }
        }
    }
    out
}

fn kinds(log: &[NetworkEvent]) -> Vec<(u64, K)> {
    log.iter().map(|e| (e.at_ns, e.kind)).collect()
}

/// When the first retransmission of a segment first sent at `sent` that
/// leaves at or after `t` goes out: RTOs of 200 ms doubling each time.
fn first_retransmission_from(sent: u64, t: u64) -> u64 {
    let (mut at, mut rto) = (sent + RTO_MIN, RTO_MIN);
    while at < t {
        rto *= 2;
        at += rto;
    }
    at
}

/// `got` is `base` with message `k` (sent at `s_k`) retransmitted at
/// `retransmit_at`: it arrives one way later, every other message takes
/// as long as in `base`, and the run ends later by the wait.
fn assert_only_message_delayed(
    base: &[Delivery],
    got: &[Delivery],
    k: usize,
    retransmit_at: u64,
    case: &str,
) {
    let s_k = base[k].injected_at.0;
    assert_eq!(got[k].injected_at.0, s_k, "{case}");
    assert_eq!(got[k].delivered_at.0, retransmit_at + D, "{case}");
    for i in (0..got.len()).filter(|&i| i != k) {
        assert_eq!(
            got[i].delivered_at - got[i].injected_at,
            base[i].delivered_at - base[i].injected_at,
            "{case}: message {i}"
        );
    }
    let delay = retransmit_at - s_k - A;
    assert_eq!(
        got.last().unwrap().delivered_at.0,
        base.last().unwrap().delivered_at.0 + delay,
        "{case}"
    );
}

#[test]
fn a_link_down_under_a_pingpong_delays_exactly_the_message_in_flight_by_the_backed_off_rto() {
    let base = pingpong(&mut sim(&two_hosts(""), 2), 60);
    assert_eq!(base.len(), 120);
    // Steady state: each message waits behind the ACK of the one before.
    assert!(base[2..]
        .iter()
        .all(|d| (d.delivered_at - d.injected_at).0 == A + D));
    // The first ping sent after 10 ms; it leaves h0 at s_k + A and is
    // propagating on h0-s (with the ACK of the last pong) 100 us later.
    let k = (0..base.len())
        .step_by(2)
        .find(|&i| base[i].injected_at.0 >= 10 * MS)
        .unwrap();
    let s_k = base[k].injected_at.0;
    let t_down = s_k + 100_000;
    // (outage, convergence delay): retransmissions leave at s_k + 200 ms ×
    // (2^j − 1); the first one at or after the repair plus the convergence
    // delay gets through (before that h0, or the switch, has no route).
    for (outage, conv) in [(50, 100), (50, 0), (500, 0), (500, 100)] {
        let (outage, conv) = (outage * MS, conv * MS);
        let extra = format!(
            "[faults]\nconvergence_delay={conv}\n[[fault]]\nlink='h0-s'\nat={t_down}\nfor={outage}\n"
        );
        let mut s = sim(&two_hosts(&extra), 2);
        let got = pingpong(&mut s, 60);
        assert_eq!(got.len(), 120);
        let retransmit_at = first_retransmission_from(s_k, t_down + outage + conv);
        let case = format!("outage {outage} ns, convergence {conv} ns");
        assert_only_message_delayed(&base, &got, k, retransmit_at, &case);
        // Lost on the wire: the ping and the ACK of the pong before it.
        let st = s.stats();
        let down: Vec<(String, u64)> = st
            .links
            .iter()
            .filter(|l| l.drops_down > 0)
            .map(|l| (l.from_port.clone(), l.drops_down))
            .collect();
        assert_eq!(down, vec![("h0/s".to_string(), 2)], "{case}");
        let t_up = t_down + outage;
        let mut want = vec![(t_down, K::LinkDown), (t_down, K::Partitioned)];
        if conv < outage {
            want.push((t_down + conv, K::RoutesRecomputed));
        }
        want.extend([(t_up, K::LinkUp), (t_up, K::PartitionHealed)]);
        // Tables are computed for the graph as it is when they converge: a
        // link back before then leaves one recomputation (to the full graph).
        want.push((
            if conv < outage { t_up } else { t_down } + conv,
            K::RoutesRecomputed,
        ));
        want.sort_by_key(|&(t, _)| t);
        assert_eq!(kinds(s.network_events()), want, "{case}");
        let ev = &s.network_events()[1];
        assert!(
            ev.detail.contains("[h0 (rank 0)] and [h1 (rank 1)]"),
            "{}",
            ev.detail
        );
    }
}

#[test]
fn total_loss_for_a_while_under_a_pingpong_delays_the_message_by_the_backed_off_rto() {
    let base = pingpong(&mut sim(&two_hosts(""), 2), 60);
    let k = (0..base.len())
        .step_by(2)
        .find(|&i| base[i].injected_at.0 >= 10 * MS)
        .unwrap();
    let s_k = base[k].injected_at.0;
    // From the moment ping k is sent, every frame that finishes leaving
    // either end of h0-s is lost (the ping, and the ACK of the pong before
    // it, ahead of it on h0's NIC); the link stays up, so routing never
    // changes and no partition is declared. The first retransmission that
    // leaves after the loss ends gets through. (A loss probability must be
    // below 1; at 1 − 1e-9 the chance that one of the window's few frames
    // survives is below 1e-8, and the seeded run is the same every time.)
    for loss_ms in [50, 500] {
        let window = loss_ms * MS;
        let extra = format!("[[fault]]\nlink='h0-s'\nloss=0.999999999\nat={s_k}\nfor={window}\n");
        let mut s = sim(&two_hosts(&extra), 2);
        let got = pingpong(&mut s, 60);
        assert_eq!(
            got.len(),
            120,
            "every message arrives, intact (checked by pingpong)"
        );
        let retransmit_at = first_retransmission_from(s_k, s_k + window);
        let case = format!("{loss_ms} ms of total loss");
        assert_only_message_delayed(&base, &got, k, retransmit_at, &case);
        let st = s.stats();
        let lost_at_h0: u64 = st
            .links
            .iter()
            .filter(|l| l.from_port == "h0/s")
            .map(|l| l.drops_loss)
            .sum();
        // The ping, the ACK ahead of it, and each retransmission of the
        // ping that left inside the window.
        let retransmissions_lost = (retransmit_at - s_k).div_ceil(RTO_MIN).ilog2() as u64;
        assert_eq!(lost_at_h0, 2 + retransmissions_lost, "{case}");
        assert!(st.links.iter().all(|l| l.drops_down == 0), "{case}");
        assert_eq!(
            kinds(s.network_events()),
            vec![(s_k, K::LinkDegraded), (s_k + window, K::LinkRestored)],
            "{case}"
        );
    }
}

/// Serialisation of a full 1460-byte segment's frame at 1 Gbps.
const FULL: u64 = 12_304;

/// h0 sends one message of `segments` full segments to h1 over a switch,
/// never limited by windows; returns its delivery time.
fn bulk(segments: u64, extra: &str) -> u64 {
    let toml = format!(
        "[link_defaults]\nrate='1Gbps'\ndelay='10us'\nqueue_packets=10000\n\
         [tcp]\ninitial_cwnd=4000\nreceive_window='64MiB'\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='s'\nb='h1'\n{extra}"
    );
    let mut s = sim(&toml, 2);
    s.inject(
        0,
        1,
        workload::pattern_bytes((segments * 1460) as usize),
        Nanos::ZERO,
    )
    .unwrap();
    while s.step().is_some() {}
    let mut d = Vec::new();
    s.take_deliveries(&mut d);
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].bytes,
        workload::pattern_bytes((segments * 1460) as usize)
    );
    d[0].delivered_at.0
}

#[test]
fn halving_a_links_rate_mid_transfer_stretches_the_rest_of_the_transfer_by_the_closed_form() {
    assert_eq!(serialization_time(data_frame_wire_len(1460), GBPS).0, FULL);
    let n = 800u64;
    let d = 10_000;
    let syn = serialization_time(14 + 20 + 20 + TCP_SYN_OPTIONS + 4 + ETHERNET_GAP, GBPS).0;
    // Handshake (SYN out, SYN-ACK back: 4 hops), the final ACK, then h0's
    // NIC sends the segments back to back; the switch starts segment i when
    // it arrives, t0 + i × FULL, and stays busy from then on.
    let t0 = 4 * (syn + d) + A + FULL + d;
    assert_eq!(bulk(n, ""), t0 + n * FULL + d);
    // The switch's link to h1 drops to 500 Mbps while segment 300 is on it:
    // segments 301.. take twice as long.
    let t = t0 + 300 * FULL + FULL / 2;
    let halved = format!("[[fault]]\nlink='s-h1'\nrate='500Mbps'\nat={t}\n");
    let n1 = 301;
    assert_eq!(bulk(n, &halved), t0 + n1 * FULL + (n - n1) * 2 * FULL + d);
    // Halved for 2 ms only: the segments that start within it take twice as long.
    let back = format!("[[fault]]\nlink='s-h1'\nrate='500Mbps'\nat={t}\nfor='2ms'\n");
    let slow_start = t0 + n1 * FULL;
    let n2 = (t + 2 * MS - slow_start).div_ceil(2 * FULL);
    assert_eq!(
        bulk(n, &back),
        slow_start + n2 * 2 * FULL + (n - n1 - n2) * FULL + d
    );
    // A longer delay on the last hop adds to the last segment's arrival.
    let slower = format!("[[fault]]\nlink='s-h1'\ndelay='1ms'\nat={t}\n");
    assert_eq!(bulk(n, &slower), t0 + n * FULL + MS);
}

/// Breadth-first distance in links from host `a` to host `b` through
/// routers only, avoiding `down`.
fn bfs_links(net: &Network, a: NodeId, b: NodeId, down: NodeId) -> Option<u32> {
    let mut dist = vec![u32::MAX; net.nodes.len()];
    let mut q = VecDeque::from([a]);
    dist[a as usize] = 0;
    while let Some(u) = q.pop_front() {
        if u == b {
            return Some(dist[u as usize]);
        }
        if u != a && net.nodes[u as usize].kind == NodeKind::Host {
            continue;
        }
        for &p in &net.nodes[u as usize].ports {
            let v = net.peer_node(p);
            if v != down && dist[v as usize] == u32::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                q.push_back(v);
            }
        }
    }
    None
}

#[test]
fn a_router_down_on_a_torus_reroutes_after_the_convergence_delay_on_bfs_paths() {
    let toml = "[topology]\nkind='torus'\ndims=[5,5]\nrate='1Gbps'\ndelay='10us'\n\
                [tcp]\ndelayed_ack='0'\n[faults]\nconvergence_delay='2ms'\n\
                [[fault]]\nnode='router1'\nat='5ms'\nfor='395ms'\n";
    let mut s = sim(toml, 25);
    let net = s.network().clone();
    let hop = serialization_time(data_frame_wire_len(32), GBPS).0 + 10_000;
    let dead = net.node_by_name("router1").unwrap();
    let (h0, h2) = (net.hosts[0], net.hosts[2]);
    let send = |s: &mut Simulator, at_ms: u64| -> Delivery {
        s.inject(0, 2, Bytes::from(vec![1u8; 32]), Nanos(at_ms * MS))
            .unwrap();
        let mut d = Vec::new();
        while d.is_empty() {
            assert!(s.step().is_some(), "the message was not delivered");
            s.take_deliveries(&mut d);
        }
        while s.next_event_time().is_some_and(|t| t.0 < (at_ms + 1) * MS) {
            s.step();
        }
        d.remove(0)
    };
    send(&mut s, 0); // handshake
    assert!(s.routes().is_structured());
    // Router (0,0) to (0,2): two links through router1, plus the host links.
    let before = send(&mut s, 1);
    assert_eq!((before.delivered_at - before.injected_at).0, 4 * hop);
    // Sent after router1 failed, before routing converged: router0 still
    // forwards into the dead router and the segment is lost; the
    // retransmission an RTO later takes the new path.
    let new_links = bfs_links(&net, h0, h2, dead).unwrap();
    assert_eq!(new_links, 5);
    let lost = send(&mut s, 6);
    assert_eq!(
        lost.delivered_at.0,
        6 * MS + RTO_MIN + new_links as u64 * hop
    );
    assert!(!s.routes().is_structured());
    let after = send(&mut s, 300);
    assert_eq!((after.delivered_at - after.injected_at).0, 5 * hop);
    // Every pair avoiding the dead router is routed on the BFS distance of
    // the remaining graph.
    for (i, &a) in net.hosts.iter().enumerate() {
        for (j, &b) in net.hosts.iter().enumerate() {
            if i == j || i == 1 || j == 1 {
                continue;
            }
            assert_eq!(
                s.routes().links(&net, a, b),
                bfs_links(&net, a, b, dead),
                "host{i} to host{j}"
            );
        }
        if i != 1 {
            assert_eq!(s.routes().links(&net, a, net.hosts[1]), None);
        }
    }
    // Repaired at 400 ms, converged at 402 ms: coordinate routing is back.
    let back = send(&mut s, 410);
    assert_eq!((back.delivered_at - back.injected_at).0, 4 * hop);
    assert!(s.routes().is_structured());
    assert_eq!(
        kinds(s.network_events()),
        vec![
            (5 * MS, K::NodeDown),
            (5 * MS, K::Partitioned),
            (7 * MS, K::RoutesRecomputed),
            (400 * MS, K::NodeUp),
            (400 * MS, K::PartitionHealed),
            (402 * MS, K::RoutesRecomputed),
        ]
    );
}

fn ring_of_routers(seed: u64) -> String {
    format!(
        "seed = 11\n[topology]\nkind='ring'\nhosts=6\nrate='1Gbps'\ndelay='20us'\n\
         [faults]\nseed={seed}\nconvergence_delay='1ms'\n\
         [[fault]]\nlink='router*-router*'\nmtbf='40ms'\nmttr='4ms'\n"
    )
}

fn ring_run(seed: u64) -> (workload::WorkloadOutcome, Vec<NetworkEvent>) {
    let mut s = sim(&ring_of_routers(seed), 6);
    let w = Workload {
        pattern: Pattern::Ring,
        size: 4000,
        iters: 3000,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut s, &w).unwrap();
    (out, s.network_events().to_vec())
}

#[test]
fn random_faults_with_the_same_seed_give_the_same_events_and_the_data_arrives() {
    let (a, ea) = ring_run(7);
    let (b, eb) = ring_run(7);
    let (c, ec) = ring_run(8);
    for o in [&a, &b, &c] {
        assert_eq!(o.messages, 6 * 3000);
        assert_eq!(o.corrupted, 0);
    }
    assert!(
        ea.iter().filter(|e| e.kind == K::LinkDown).count() > 10,
        "{ea:?}"
    );
    assert_eq!(ea, eb);
    assert_eq!((a.runtime_ns, a.events), (b.runtime_ns, b.events));
    assert_ne!(
        ea.iter().map(|e| e.at_ns).take(5).collect::<Vec<_>>(),
        ec.iter().map(|e| e.at_ns).take(5).collect::<Vec<_>>()
    );
    // Tables reflect every failure and repair at most the convergence
    // delay later (one recomputation covers the changes before it).
    for (i, e) in ea.iter().enumerate() {
        if matches!(e.kind, K::LinkDown | K::LinkUp) {
            assert!(
                ea[i..]
                    .iter()
                    .any(|r| r.kind == K::RoutesRecomputed && r.at_ns <= e.at_ns + MS),
                "{e:?}"
            );
        }
    }
}

#[test]
fn random_up_and_down_times_have_the_configured_means() {
    // One link failing with MTBF 1 s and MTTR 100 ms, watched for 2000 s
    // of virtual time (no traffic: faults apply as time advances).
    let toml = "[[host]]\nname='h0'\n[[host]]\nname='h1'\n[[link]]\na='h0'\nb='h1'\n\
                [faults]\nseed=99\n[[fault]]\nlink='h0-h1'\nmtbf='1s'\nmttr='100ms'\n";
    let mut s = sim(toml, 2);
    s.advance_to(Nanos::from_secs(2000));
    let log = s.network_events();
    let times = |k: K| -> Vec<u64> {
        log.iter()
            .filter(|e| e.kind == k)
            .map(|e| e.at_ns)
            .collect()
    };
    let (downs, ups) = (times(K::LinkDown), times(K::LinkUp));
    let n = ups.len();
    assert!(n > 1500, "{n} repairs");
    let mean_down = (0..n).map(|i| ups[i] - downs[i]).sum::<u64>() as f64 / n as f64;
    let mean_up = (1..n).map(|i| downs[i] - ups[i - 1]).sum::<u64>() as f64 / (n - 1) as f64;
    // The mean of n exponential draws has a standard deviation of mean/√n;
    // allow five of them.
    let tol = 5.0 / (n as f64).sqrt();
    assert!((mean_down / 1e8 - 1.0).abs() < tol, "mean down {mean_down}");
    assert!((mean_up / 1e9 - 1.0).abs() < tol, "mean up {mean_up}");
    assert!(downs[0] > 0);
}

fn star4(extra: &str) -> String {
    format!(
        "[link_defaults]\nrate='1Gbps'\ndelay='500us'\n\
         [[host]]\nname='host0'\n[[host]]\nname='host1'\n[[host]]\nname='host2'\n[[host]]\nname='host3'\n\
         [[switch]]\nname='switch0'\n\
         [[link]]\na='host0'\nb='switch0'\n[[link]]\na='host1'\nb='switch0'\n\
         [[link]]\na='host2'\nb='switch0'\n[[link]]\na='host3'\nb='switch0'\n{extra}"
    )
}

#[test]
fn a_partition_that_outlasts_the_timeout_ends_the_run_naming_it() {
    let extra = "[faults]\npartition_timeout='2s'\n[[fault]]\nlink='host2-switch0'\nat='10ms'\n";
    let mut s = sim(&star4(extra), 4);
    // Before the failure: delivered.
    s.inject(2, 3, Bytes::from_static(b"before"), Nanos(MS))
        .unwrap();
    // After it: waits, from 20 ms, for the 2 s timeout.
    s.inject(0, 2, Bytes::from_static(b"after"), Nanos(20 * MS))
        .unwrap();
    let mut last = Nanos::ZERO;
    while let Some(t) = s.step() {
        last = t;
    }
    let f = s.failure().expect("the run failed");
    assert_eq!(f.at, Nanos(2_020 * MS));
    assert_eq!(last, f.at);
    assert!(
        f.message.contains(
            "[host0 (rank 0), host1 (rank 1), host3 (rank 3)] and [host2 (rank 2)] cannot reach each other"
        ) && f.message.contains("messages from rank 0 → rank 2")
            && f.message.contains("faults.partition_timeout"),
        "{}",
        f.message
    );
    assert!(!f.message.contains('\n'));
    let mut d = Vec::new();
    s.take_deliveries(&mut d);
    assert_eq!(d.len(), 1);
    assert_eq!(&d[0].bytes[..], b"before");
    assert_eq!(s.network_events().last().unwrap().kind, K::PartitionTimeout);
    assert_eq!(s.next_event_time(), None);

    // The same through a workload: the run ends with the sentence.
    let mut s = sim(&star4(extra), 4);
    let w = Workload {
        pattern: Pattern::AllToAll,
        size: 64,
        iters: 100,
        seed: 1,
        verify: true,
    };
    let e = workload::run(&mut s, &w).unwrap_err();
    assert!(e.contains("[host2 (rank 2)]"), "{e}");
}

#[test]
fn a_partition_repaired_in_time_lets_tcp_deliver_after_its_backoff() {
    let extra = "[faults]\npartition_timeout='2s'\n\
                 [[fault]]\nlink='host2-switch0'\nat='10ms'\nfor='1s'\n";
    let mut s = sim(&star4(&format!("[tcp]\ndelayed_ack='0'\n{extra}")), 4);
    s.inject(0, 2, Bytes::from_static(b"waits"), Nanos(20 * MS))
        .unwrap();
    while s.step().is_some() {}
    assert!(s.failure().is_none());
    let mut d = Vec::new();
    s.take_deliveries(&mut d);
    assert_eq!(d.len(), 1);
    assert_eq!(&d[0].bytes[..], b"waits");
    // The SYN (20 ms) and its retransmission an initial RTO (1 s) later are
    // lost: the link is repaired at 1.01 s but routes converge at 1.11 s.
    // The next, 2 s later, opens the connection at 3.02 s.
    let hop = |wire: u64| serialization_time(wire, GBPS).0 + 500_000;
    let syn_one_way = 2 * hop(14 + 20 + 20 + TCP_SYN_OPTIONS + 4 + ETHERNET_GAP);
    let opened = 20 * MS + 1000 * MS + 2000 * MS;
    assert_eq!(
        d[0].delivered_at.0,
        opened + 2 * syn_one_way + A + 2 * hop(data_frame_wire_len(5))
    );
    let k = kinds(s.network_events());
    assert!(k.contains(&(1010 * MS, K::PartitionHealed)), "{k:?}");
}

#[test]
fn pcapng_captures_carry_the_events_as_comments() {
    let toml = two_hosts(
        "[capture]\nformat='pcapng'\npoints=['h0']\n[[fault]]\nlink='h0-s'\nat='1ms'\nfor='1ms'\n",
    );
    let cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
    let mut s = Simulator::from_config(&cfg, "test", 2, true).unwrap();
    s.inject(0, 1, Bytes::from_static(b"x"), Nanos(5 * MS))
        .unwrap();
    while s.step().is_some() {}
    let bytes = s.captures_mut()[0].take_bytes();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("mpinetsim-events"));
    for e in s.network_events() {
        assert!(text.contains(&e.line()), "{}", e.line());
    }
    // Down, partitioned, up, healed, one recomputation (100 ms after the
    // failure, when the link is back).
    assert_eq!(s.network_events().len(), 5);
}

#[test]
fn a_switch_down_isolates_every_host_until_it_is_back_and_ups_nest() {
    let run = |faults: &str| {
        let mut s = sim(&star4(faults), 4);
        let w = Workload {
            pattern: Pattern::AllToAll,
            size: 64,
            iters: 50,
            seed: 1,
            verify: true,
        };
        let out = workload::run(&mut s, &w).unwrap();
        assert_eq!((out.messages, out.corrupted), (4 * 3 * 50, 0));
        (out, s.network_events().to_vec())
    };
    let (a, ea) = run("[[fault]]\nnode='switch0'\nat='10ms'\nfor='100ms'\n");
    // The same outage as a down and an explicit up.
    let (b, eb) = run(
        "[[fault]]\nnode='switch0'\nat='10ms'\n[[fault]]\nnode='switch0'\naction='up'\nat='110ms'\n",
    );
    assert_eq!((a.runtime_ns, a.events), (b.runtime_ns, b.events));
    assert_eq!(ea, eb);
    assert_eq!(
        kinds(&ea),
        vec![
            (10 * MS, K::NodeDown),
            (10 * MS, K::Partitioned),
            (110 * MS, K::NodeUp),
            (110 * MS, K::PartitionHealed),
            // Due 100 ms after the failure, when the switch is back.
            (110 * MS, K::RoutesRecomputed),
        ]
    );
    assert!(ea[1].detail.contains(
        "4 groups that cannot reach each other: [host0 (rank 0)], [host1 (rank 1)], [host2 (rank 2)] and [host3 (rank 3)]"
    ));
    // Two overlapping faults on one link: down from the first down to the
    // last up; an up of a link that is not down changes nothing.
    let (_, ec) = run("[faults]\nconvergence_delay='1ms'\n\
         [[fault]]\nlink='host1-switch0'\nat='10ms'\nfor='40ms'\n\
         [[fault]]\nlink='host1-switch0'\nat='30ms'\nfor='50ms'\n\
         [[fault]]\nlink='host2-switch0'\naction='up'\nat='5ms'\n");
    let partition: Vec<(u64, K)> = kinds(&ec)
        .into_iter()
        .filter(|(_, k)| matches!(k, K::Partitioned | K::PartitionHealed))
        .collect();
    assert_eq!(
        partition,
        vec![(10 * MS, K::Partitioned), (80 * MS, K::PartitionHealed)]
    );
    assert!(ec
        .iter()
        .any(|e| e.at_ns == 30 * MS && e.detail.contains("already down (2 faults)")));
    assert!(ec
        .iter()
        .any(|e| e.at_ns == 50 * MS && e.detail.contains("still down (1 more faults)")));
    assert!(ec.iter().all(|e| e.target != "host2-switch0"));
}

#[test]
fn network_events_past_the_record_limit_are_counted_not_kept() {
    use netsim::faults::{parse_spec, MAX_RECORDED_NETWORK_EVENTS as MAX};
    // Each rate change is one event (no route change, no partition); the
    // first MAX are recorded, the rest only counted, and the capture gets
    // one comment saying so.
    let extra = 7;
    let toml = two_hosts("[capture]\nformat='pcapng'\npoints=['h0']\n");
    let mut cfg = NetworkConfig::from_toml_str(&toml, "test").unwrap();
    for i in 0..MAX + extra {
        let rate = if i % 2 == 0 { "500Mbps" } else { "1Gbps" };
        let spec = format!("link h0-s rate {rate} at {}us", i + 1);
        cfg.fault_entries.push(parse_spec(&spec).unwrap());
    }
    let mut s = Simulator::from_config(&cfg, "test", 2, true).unwrap();
    s.inject(0, 1, Bytes::from_static(b"x"), Nanos(1_000 * MS))
        .unwrap();
    while s.step().is_some() {}
    let stats = s.stats();
    assert_eq!(stats.network_events.len(), MAX);
    assert_eq!(stats.network_events_unrecorded, extra as u64);
    assert!(stats
        .network_events
        .iter()
        .all(|e| e.kind == K::LinkDegraded));
    let text = String::from_utf8_lossy(&s.captures_mut()[0].take_bytes()).into_owned();
    assert_eq!(
        text.matches("further network events are counted").count(),
        1
    );
}
