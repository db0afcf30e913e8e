//! RED on a whole network: an all-to-all on the reference network (four
//! hosts on one switch, 1 Gbps, 1000-frame queues) fills the switch's
//! ports' queues to about 33 frames. Drop-tail never reaches its limit
//! there, so it drops nothing; RED (min_th 5, max_th 15) drops early, far
//! below the limit, and the same seed drops the same frames.

use netsim::workload::{self, Pattern, Workload};
use netsim::{NetworkConfig, Simulator};

fn alltoall(queue: &str, seed: u64) -> (netsim::workload::WorkloadOutcome, Vec<(u64, u32)>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/reference.toml");
    let mut cfg =
        netsim::loader::from_file(std::path::Path::new(path), std::fs::read_to_string).unwrap();
    cfg.seed = seed;
    let text = format!("[link_defaults]\nqueue = '{queue}'\n");
    let extra = NetworkConfig::from_toml_str(&text, "extra").unwrap();
    cfg.link_defaults.queue = extra.link_defaults.queue;
    let mut sim = Simulator::from_config(&cfg, "reference.toml", 4, false).unwrap();
    let w = Workload {
        pattern: Pattern::AllToAll,
        size: 1 << 20,
        iters: 2,
        seed: 1,
        verify: true,
    };
    let out = workload::run(&mut sim, &w).unwrap();
    let links = sim
        .stats()
        .links
        .iter()
        .map(|l| (l.drops_queue, l.peak_queue_packets))
        .collect();
    (out, links)
}

#[test]
fn red_drops_early_where_drop_tail_drops_nothing_and_repeats_itself() {
    let (tail, tail_links) = alltoall("droptail", 1);
    assert_eq!(tail.corrupted, 0);
    assert!(tail_links.iter().all(|&(drops, _)| drops == 0));
    let busiest = tail_links.iter().map(|&(_, peak)| peak).max().unwrap();
    // Deep enough for RED's average to pass max_th (15 frames).
    assert!(busiest > 15, "peak {busiest}");

    let (red, red_links) = alltoall("red", 1);
    // Every message still arrives intact (TCP retransmits the drops).
    assert_eq!(
        (red.messages, red.bytes, red.corrupted),
        (tail.messages, tail.bytes, 0)
    );
    let drops: u64 = red_links.iter().map(|&(d, _)| d).sum();
    assert!(drops > 0);
    // The drops were early: no queue came near its 1000-frame limit.
    assert!(
        red_links.iter().all(|&(_, peak)| peak < 100),
        "{red_links:?}"
    );

    // The same seed: the same drops, the same runtime, to the nanosecond.
    let (again, again_links) = alltoall("red", 1);
    assert_eq!(
        (again.runtime_ns, again.events),
        (red.runtime_ns, red.events)
    );
    assert_eq!(again_links, red_links);
}
