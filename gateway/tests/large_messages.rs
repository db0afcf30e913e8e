//! MPI messages larger than one frame: the shim streams them in 1 MiB
//! pieces (rendezvous with a window of 8 unacknowledged pieces), so any
//! size MPI allows arrives whole while the gateway holds a few pieces, and
//! the simulated network carries exactly the message, its envelopes and
//! the acknowledgements the protocol defines.

mod common;
use common::*;
use shim_engine::envelope::HEADER_LEN;

const MIB: u64 = 1 << 20;
/// Pieces the sender may have unacknowledged (the engine's default).
const WINDOW: u64 = shim_engine::engine::RENDEZVOUS_WINDOW as u64;

/// Runs big_message on 2 ranks; returns stdout and the report.
fn big_message(net: &str, factor: &str, args: &[&str]) -> (String, serde_json::Value) {
    let prog = build_c("big_message", "mpicc");
    let (o, report) = run_with_report("2", net, factor, &prog, args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "big_message {args:?}: {out}\n{err}");
    assert!(out.contains("errors=0"), "{out}");
    (out, report)
}

#[test]
fn a_message_of_300_mib_arrives_whole_while_the_gateway_holds_a_few_pieces() {
    if skip_without_mpicc() {
        return;
    }
    // Above the old 256 MiB frame limit; the ideal network (no rate, no
    // delay) keeps the test short.
    let (out, r) = big_message("ideal.toml", "1", &["300", "contig", "nonblocking"]);
    assert!(out.contains("rank 1 received 314572800 bytes"), "{out}");
    // The gateway held a window of pieces in the simulator and in each
    // connection's buffers, not the message: 300 MiB through a gateway
    // that needed 807 MiB for a 200 MiB message before streaming.
    let peak = r["gateway_peak_rss_bytes"].as_u64().unwrap();
    assert!(
        peak < 64 * MIB,
        "gateway peak memory {} MiB for a 300 MiB message",
        peak / MIB
    );
}

#[test]
fn noncontiguous_memory_streams_from_and_into_program_buffers() {
    if skip_without_mpicc() {
        return;
    }
    // Every other 4 KiB block of the buffers; pieces of 1 MiB start and
    // end at block boundaries of the packed stream, not of memory.
    for api in ["blocking", "nonblocking"] {
        let (out, _) = big_message("ideal.toml", "1", &["40", "vector", api]);
        assert!(out.contains("rank 1 received 41943040 bytes"), "{out}");
    }
}

#[test]
fn the_network_carries_the_message_its_envelopes_and_the_piece_acks() {
    if skip_without_mpicc() {
        return;
    }
    // 10 pieces, 8 unacknowledged at most: 2 acks.
    let pieces = 10u64;
    let (_, r) = big_message("reference.toml", "4", &["10"]);
    let h = HEADER_LEN as u64;
    // Rank 0: a barrier message, the RTS and the pieces, each with its
    // envelope. Rank 1: a barrier message, the CTS, the acks and the
    // one-byte reply.
    let from0 = (2 + pieces, pieces * MIB + h * (2 + pieces));
    let acks = pieces - WINDOW;
    let from1 = (3 + acks, h * (3 + acks) + 1);
    let ranks = r["rank_reports"].as_array().unwrap();
    for (rank, (messages, bytes)) in [from0, from1].into_iter().enumerate() {
        let mpi = &ranks[rank]["mpi"];
        assert_eq!(mpi["messages_sent"].as_u64(), Some(messages), "rank {rank}");
        assert_eq!(mpi["bytes_sent"].as_u64(), Some(bytes), "rank {rank}");
        let conn = r["network_stats"]["connections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["src_rank"].as_u64() == Some(rank as u64))
            .unwrap();
        assert_eq!(conn["data_bytes"].as_u64(), Some(bytes), "rank {rank}");
        assert_eq!(conn["messages_delivered"].as_u64(), Some(messages));
        assert_eq!(conn["retransmissions"].as_u64(), Some(0));
    }
}
