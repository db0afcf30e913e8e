//! RED on a whole network: an all-to-all on the reference network (four
//! hosts on one switch, 1 Gbps, 1000-frame queues) fills the switch's
//! ports' queues to about 33 frames. Drop-tail never reaches its limit
//! there, so it drops nothing; RED (min_th 5, max_th 15) drops early, far
//! below the limit, and the same seed drops the same frames. Early drops
//! are counted in `drops_early`, apart from a full queue's `drops_queue`,
//! and together they are every frame the network lost.

use netsim::model::stats::SimStats;
use netsim::workload::{self, Pattern, Workload};
use netsim::{NetworkConfig, Simulator};

fn alltoall(queue: &str, seed: u64) -> (netsim::workload::WorkloadOutcome, SimStats) {
    alltoall_limited(queue, seed, 1000)
}

/// The all-to-all with every queue limited to `limit` frames.
fn alltoall_limited(
    queue: &str,
    seed: u64,
    limit: u32,
) -> (netsim::workload::WorkloadOutcome, SimStats) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/reference.toml");
    let mut cfg =
        netsim::loader::from_file(std::path::Path::new(path), std::fs::read_to_string).unwrap();
    cfg.seed = seed;
    let text = format!("[link_defaults]\nqueue = '{queue}'\n");
    let extra = NetworkConfig::from_toml_str(&text, "extra").unwrap();
    cfg.link_defaults.queue = extra.link_defaults.queue;
    cfg.link_defaults.queue_packets = Some(limit);
    let mut sim = Simulator::from_config(&cfg, "reference.toml", 4, false).unwrap();
    let w = Workload {
        pattern: Pattern::AllToAll,
        size: 1 << 20,
        iters: 2,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut sim, &w).unwrap();
    (out, sim.stats())
}

/// (drops_queue, drops_early, peak_queue_packets) of every link direction.
fn per_link(stats: &SimStats) -> Vec<(u64, u64, u32)> {
    stats
        .links
        .iter()
        .map(|l| (l.drops_queue, l.drops_early, l.peak_queue_packets))
        .collect()
}

/// Frames the network lost, counted without the drop counters: every
/// frame a node originated either ended at a node or was lost (the run
/// ends with nothing in flight).
fn lost_frames(stats: &SimStats) -> u64 {
    let sent: u64 = stats.nodes.iter().map(|n| n.packets_sent).sum();
    let received: u64 = stats.nodes.iter().map(|n| n.packets_received).sum();
    sent - received
}

#[test]
fn red_drops_early_where_drop_tail_drops_nothing_and_repeats_itself() {
    let (tail, tail_stats) = alltoall("droptail", 1);
    let tail_links = per_link(&tail_stats);
    assert_eq!(tail.corrupted, 0);
    assert!(tail_links
        .iter()
        .all(|&(full, early, _)| full == 0 && early == 0));
    assert_eq!(lost_frames(&tail_stats), 0);
    let busiest = tail_links.iter().map(|&(_, _, peak)| peak).max().unwrap();
    // Deep enough for RED's average to pass max_th (15 frames).
    assert!(busiest > 15, "peak {busiest}");

    let (red, red_stats) = alltoall("red", 1);
    let red_links = per_link(&red_stats);
    // Every message still arrives intact (TCP retransmits the drops).
    assert_eq!(
        (red.messages, red.bytes, red.corrupted),
        (tail.messages, tail.bytes, 0)
    );
    let early: u64 = red_links.iter().map(|&(_, e, _)| e).sum();
    let full: u64 = red_links.iter().map(|&(f, _, _)| f).sum();
    assert!(early > 0);
    // The drops were early: no queue came near its 1000-frame limit, so
    // none was a full queue's.
    assert_eq!(full, 0);
    assert!(
        red_links.iter().all(|&(_, _, peak)| peak < 100),
        "{red_links:?}"
    );
    // Early and full-queue drops are every frame lost, and the nodes'
    // counters agree with the links'.
    assert_eq!(early + full, lost_frames(&red_stats));
    let node_early: u64 = red_stats.nodes.iter().map(|n| n.drops_early).sum();
    assert_eq!(node_early, early);

    // The same seed: the same drops, the same runtime, to the nanosecond.
    let (again, again_stats) = alltoall("red", 1);
    assert_eq!(
        (again.runtime_ns, again.events),
        (red.runtime_ns, red.events)
    );
    assert_eq!(per_link(&again_stats), red_links);
}

#[test]
fn a_full_drop_tail_queue_counts_in_drops_queue_only() {
    // Three senders into each host's 1 Gbps port behind an 8-frame queue:
    // the switch's queues overflow, and none of it is an early drop.
    let (out, stats) = alltoall_limited("droptail", 1, 8);
    assert_eq!(out.corrupted, 0);
    let links = per_link(&stats);
    let full: u64 = links.iter().map(|&(f, _, _)| f).sum();
    let early: u64 = links.iter().map(|&(_, e, _)| e).sum();
    assert!(full > 0, "{links:?}");
    assert_eq!(early, 0);
    assert_eq!(full + early, lost_frames(&stats));
    assert!(links.iter().all(|&(_, _, peak)| peak <= 8), "{links:?}");
}
