//! Ranks added during a run (`MPI_Comm_spawn`): placed on the host named,
//! else on the first host with the fewest ranks; reached exactly like a
//! rank the run began with on that host.

use bytes::Bytes;
use netsim::{Nanos, NetworkConfig, Simulator};

const PROP_NS: u64 = 500_000;

/// Three hosts on one switch, 1 Gbps, 0.5 ms per link, every segment
/// ACKed at once; `ranks` ranks in block placement.
fn three_hosts(ranks: usize) -> Simulator {
    let toml = "seed = 3\n[link_defaults]\nrate='1Gbps'\ndelay='500us'\n[tcp]\ndelayed_ack='0'\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[host]]\nname='h2'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n[[link]]\na='h2'\nb='s'\n";
    let cfg = NetworkConfig::from_toml_str(toml, "three").unwrap();
    Simulator::from_config(&cfg, "three", ranks, false).unwrap()
}

fn host_names(sim: &Simulator) -> Vec<String> {
    sim.rank_hosts()
        .iter()
        .map(|&h| sim.network().nodes[h as usize].name.clone())
        .collect()
}

#[test]
fn added_ranks_go_to_the_named_host_else_to_the_least_loaded() {
    let mut sim = three_hosts(2);
    assert_eq!(sim.add_rank(Some("h0")), Ok(2));
    // Loads h0 2, h1 1, h2 0: h2, then h1 and h2 tie with h1 first.
    assert_eq!(sim.add_rank(None), Ok(3));
    assert_eq!(sim.add_rank(None), Ok(4));
    assert_eq!(sim.add_rank(None), Ok(5));
    assert_eq!(host_names(&sim), ["h0", "h1", "h0", "h2", "h1", "h2"]);
    let e = sim.add_rank(Some("s")).unwrap_err();
    assert!(e.contains("'s', which is not a host"), "{e}");
    let e = sim.add_rank(Some("nowhere")).unwrap_err();
    assert!(e.contains("'nowhere'"), "{e}");
    assert_eq!(sim.rank_hosts().len(), 6, "a refusal adds nothing");
    // Ranks on one host share a node (MPI_COMM_TYPE_SHARED).
    assert_eq!(sim.rank_nodes(), vec![0, 1, 0, 2, 1, 2]);
}

#[test]
fn a_message_to_an_added_rank_takes_exactly_as_long_as_to_a_rank_placed_there_at_start() {
    let send = |sim: &mut Simulator, dst: u32| {
        sim.inject(0, dst, Bytes::from(vec![1u8; 3000]), Nanos(0))
            .unwrap();
        while sim.step().is_some() {}
        let mut out = Vec::new();
        sim.take_deliveries(&mut out);
        assert_eq!(out.len(), 1);
        (out[0].src, out[0].dst, out[0].delivered_at)
    };
    // Three ranks from the start: rank 2 on h2.
    let mut placed = three_hosts(3);
    let reference = send(&mut placed, 2);
    // One rank, and one added on h2: the same two hosts, the same path.
    let mut grown = three_hosts(1);
    assert_eq!(grown.add_rank(Some("h2")), Ok(1));
    let (src, dst, at) = send(&mut grown, 1);
    assert_eq!((src, dst), (0, 1));
    assert_eq!(at, reference.2, "added rank vs placed rank");
    // Two hops of 0.5 ms each way at least: handshake and data.
    assert!(at.0 > 4 * PROP_NS, "{at:?}");
}
