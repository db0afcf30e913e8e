//! The C programs of tests/mpi, built with Debian's `mpicc`, give the same
//! checked output natively (Debian's `mpiexec`, MPICH) and through
//! `mpinetsim run` on the reference network; and the matching
//! micro-benchmark counts exactly the unsuccessful match attempts and
//! unexpected messages its message order implies.
//!
//! The tests run one at a time (a lock): they start several processes each
//! and the matching counts need rank 0's messages to arrive within rank 1's
//! 100 ms of computation.

mod common;
use common::*;
use std::path::Path;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

const RANKS: &str = "4";

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Builds tests/mpi/<name>.c and compares its output natively and through
/// mpinetsim on 4 ranks (see [`same_output_as_native`]). Returns the
/// number of checks, or None when MPICH is missing.
fn same_output(name: &str) -> Option<u64> {
    let _g = serial();
    if skip_without_mpicc() || skip_without_mpiexec() {
        return None;
    }
    let prog = build_c(name, "mpicc");
    Some(same_output_as_native(name, &prog, RANKS))
}

/// Builds tests/mpi/<name>.c and compares its output natively and through
/// mpinetsim on 2, 4 and 8 ranks. Returns the number of checks on each,
/// or None when MPICH is missing.
fn same_output_on_2_4_8(name: &str) -> Option<[u64; 3]> {
    let _g = serial();
    if skip_without_mpicc() || skip_without_mpiexec() {
        return None;
    }
    let prog = build_c(name, "mpicc");
    Some(["2", "4", "8"].map(|n| same_output_as_native(name, &prog, n)))
}

#[test]
fn attributes_names_errors_info_and_generalized_requests_match_native_mpich() {
    if let Some(n) = same_output_on_2_4_8("mpi_state") {
        // 75 checks on every rank.
        assert_eq!(n, [75 * 2, 75 * 4, 75 * 8]);
    }
}

/// tests/mpi/topology.c: MPI_Dims_create on 7500 inputs (their digests
/// must equal MPICH's), Cartesian grids, graphs, distributed graphs and
/// every neighbourhood collective on them, on 2, 4 and 8 ranks.
#[test]
fn topologies_and_neighbourhood_collectives_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("topology") {
        // At least the dims_create checks (5 numbers of dimensions × 15
        // sizes, plus 4) and 60 grid and graph checks on every rank.
        for (ranks, n) in [2, 4, 8].iter().zip(n) {
            assert!(n >= (79 + 60) * ranks, "{n} checks on {ranks} ranks");
        }
    }
}

/// tests/mpi/datatypes_ext.c: subarrays, darrays, envelopes and contents,
/// Fortran kinds, external32 bytes, partial element counts.
#[test]
fn subarrays_darrays_envelopes_and_external32_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("datatypes_ext") {
        for (ranks, n) in [2, 4, 8].iter().zip(n) {
            assert!(n >= 300 * ranks, "{n} checks on {ranks} ranks");
        }
    }
}

/// tests/mpi/p2p_ext.c: matched probes, MPI_Isendrecv(_replace), receive
/// cancellation, statuses.
#[test]
fn matched_probes_and_isendrecv_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("p2p_ext") {
        for (ranks, n) in [2, 4, 8].iter().zip(n) {
            // Per rank: 5 matched-probe and 2 isendrecv checks per other
            // rank and message size (2), 2 token, 4 MPI_PROC_NULL and 7
            // cancel and status checks.
            assert_eq!(n, ranks * (14 * (ranks - 1) + 13), "on {ranks} ranks");
        }
    }
}

/// tests/mpi/compute_bound.c: fixed work between barriers, checked
/// against the generator's closed form (gateway/tests/compute_clock.rs
/// measures its computation).
#[test]
fn a_compute_bound_program_matches_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("compute_bound") {
        // Two checks on every rank: the closed form and agreement.
        assert_eq!(n, [2 * 2, 2 * 4, 2 * 8]);
    }
}

/// tests/mpi/user_op_queries.c: user reduction functions that query
/// their (derived) datatype inside blocking and nonblocking reductions,
/// scans and reduce-scatters.
#[test]
fn user_reduction_functions_may_query_their_datatype() {
    if let Some(n) = same_output_on_2_4_8("user_op_queries") {
        assert!(n.iter().all(|&c| c > 0), "{n:?}");
    }
}

/// tests/mpi/persistent_coll.c: MPI 4.0 persistent collectives started
/// several times with new data, together, in different orders on
/// different ranks, and on a topology.
#[test]
fn persistent_collectives_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("persistent_coll") {
        // Per rank: 3 rounds of 6 + n checks (bcast 4, allreduce 1,
        // alltoall n, reduce-scatter 1), 4 on the ring, 1 freed; rank 0
        // checks the reduction's n values in each round too.
        let per = |n: u64| n * (3 * (6 + n) + 5) + 3 * n;
        assert_eq!(n, [per(2), per(4), per(8)]);
    }
}

/// tests/mpi/partitioned.c: MPI 4.0 partitioned communication around a
/// ring — 16 send partitions against 4 receive partitions, readied with
/// MPI_Pready, MPI_Pready_range and MPI_Pready_list over 3 rounds of one
/// request pair, MPI_Parrived polled per partition, and a strided datatype.
#[test]
fn partitioned_communication_matches_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("partitioned") {
        // Per rank: 3 rounds of 4 partitions + source, tag and count, and
        // the strided pair.
        let per = |n: u64| n * (3 * (4 + 3) + 1);
        assert_eq!(n, [per(2), per(4), per(8)]);
    }
}

/// tests/mpi/sessions.c: MPI 4.0's Sessions model — a session before
/// MPI_Init (process sets and their info, communicators from groups, an
/// intercommunicator from two groups, the session's error handler), a
/// second beside the world model whose communicator still works after
/// MPI_Finalize.
#[test]
fn sessions_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("sessions") {
        // 23 checks per rank, and 1 more on each side's leader.
        assert_eq!(n, [23 * 2 + 2, 23 * 4 + 2, 23 * 8 + 2]);
    }
}

/// tests/mpi/large_count.c: MPI 4.0's large-count `_c` routines —
/// point-to-point, collectives (v-variants with MPI_Count counts and
/// MPI_Aint displacements, nonblocking, persistent), MPI_Op_create_c,
/// datatypes larger than an int can describe, envelopes and contents of
/// large-count types, MPI_Put_c/MPI_Get_c.
#[test]
fn large_count_routines_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("large_count") {
        // 20 checks per rank, one more on rank 0 (the user op's result)
        // and one on the last rank (the element count).
        assert_eq!(n, [20 * 2 + 2, 20 * 4 + 2, 20 * 8 + 2]);
    }
}

/// tests/mpi/persistent_gather.c: each start of a persistent gather
/// gathers what the send buffer holds then (through mpinetsim only:
/// MPICH 4.0.2 gathers the first start's values again).
#[test]
fn persistent_gathers_send_the_buffers_current_contents() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("persistent_gather", "mpicc");
    let o = run(&["-n", "4", "--net", &config("reference.toml")], &prog, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // 3 rounds: 4 allgather checks per rank, 4 gather checks on rank 0.
    assert!(out.contains("persistent_gather: 60 checks passed"), "{out}");
}

/// tests/mpi/rma_fence.c: active-target one-sided communication —
/// windows and their attributes, put, get, every accumulate op,
/// get-accumulate, fetch-and-op, compare-and-swap, derived datatypes on
/// both sides, a put and a get of two pieces, fences and
/// post/start/complete/wait — each operation messages through the
/// simulated network.
#[test]
fn one_sided_communication_matches_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("rma_fence") {
        // Per rank on s ranks: 13 window checks, 2s put/get, 14
        // accumulate, s + 5 fetching, 3s + 3 derived, 3 PSCW.
        for (s, n) in [2, 4, 8].iter().zip(n) {
            assert_eq!(n, s * (6 * s + 38), "on {s} ranks");
        }
    }
}

/// tests/mpi/mpi_io.c: MPI-IO in a private folder — open modes and
/// their error classes, sizes, strided, darray and subarray views written
/// collectively (two-phase, through the network) and checked int by int,
/// individual, shared and ordered file pointers, nonblocking and split
/// collective accesses, file error handlers, hints and handle conversion.
#[test]
fn mpi_io_matches_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("mpi_io") {
        // 50 checks per rank, and rank 0's MPI_File_delete.
        for (s, n) in [2, 4, 8].iter().zip(n) {
            assert_eq!(n, 50 * s + 1, "on {s} ranks");
        }
    }
}

/// tests/mpi/io_datarep.c: data representations of file views — a
/// representation registered with MPI_Register_datarep storing each int
/// as 8 big-endian bytes (views laid out with its file extents, the
/// file's bytes compared slot by slot, conversion callbacks' count and
/// position, a short read, type extents, duplicate names and a failing
/// callback), MPI_CONVERSION_FN_NULL, and external32's 4-byte MPI_LONG.
/// 21 checks per rank on 2, 4 and 8 ranks, every expected value from the
/// standard's rules. Through mpinetsim only: Debian's MPICH (ROMIO)
/// registers representations but writes native bytes through them.
#[test]
fn registered_and_external32_representations_lay_out_and_convert_file_data() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("io_datarep", "mpicc");
    passes_its_checks_on_2_4_8(&prog, "io_datarep", 21);
}

/// tests/mpi/spawn.c: the job's ranks spawn copies of the program —
/// three on the host the info key `host` names, then one per command of
/// MPI_Comm_spawn_multiple on the hosts with the fewest ranks — and talk
/// to them (intercommunicator groups, arguments, MPI_APPNUM,
/// MPI_UNIVERSE_SIZE as --universe gave it, an allreduce and messages
/// across, MPI_Intercomm_merge, MPI_Comm_disconnect); a missing program
/// is MPI_ERR_SPAWN on every parent and the job goes on. 13 n + 40 checks
/// on n parents (the children's included). The report lists every spawned
/// rank on the host the placement rule gives: the `host` key, else the
/// first host with the fewest ranks. Through mpinetsim only (Debian's
/// MPICH over UCX cannot spawn here).
#[test]
fn spawned_children_join_the_job_and_talk_to_their_parents() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("spawn", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    for n in [1usize, 2, 3] {
        let report = dir.path().join(format!("spawn{n}.json"));
        let ranks = n.to_string();
        let report_arg = report.display().to_string();
        let args = [
            "-n",
            &ranks,
            "--universe",
            "9",
            "--net",
            &config("ideal.toml"),
            "--time-factor",
            "1",
            "--report",
            &report_arg,
        ];
        let o = run(&args, &prog, &["9"]);
        let (out, err) = text(&o);
        let expected = format!("spawn: {} checks passed", 13 * n + 40);
        assert!(
            o.status.success() && out.contains(&expected),
            "spawn on {n} ranks: {out}{err}"
        );
        // ideal.toml's four hosts, one rank each in block placement; then
        // three children on host1, then two on the hosts with fewest ranks.
        let mut load = [0usize; 4];
        let mut hosts_of_ranks: Vec<usize> = (0..n).collect();
        hosts_of_ranks.extend([1, 1, 1]);
        for &h in &hosts_of_ranks {
            load[h] += 1;
        }
        for _ in 0..2 {
            let least = (0..4).min_by_key(|&h| load[h]).unwrap();
            load[least] += 1;
            hosts_of_ranks.push(least);
        }
        let want: Vec<String> = hosts_of_ranks.iter().map(|h| format!("host{h}")).collect();
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let hosts: Vec<String> = r["rank_reports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["host"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(hosts, want, "placement on {n} parents");
        assert_eq!(r["ranks"], n, "the job's own ranks");
        assert_eq!(r["outcome"], "completed");
    }
}

/// tests/mpi/revoke.c: MPIX_Comm_revoke where no process fails — the last
/// rank revokes a duplicate of the world; every rank's barrier and a later
/// receive on it fail with MPIX_ERR_REVOKED, and MPIX_Comm_agree and
/// MPIX_Comm_shrink still work on it: 5 checks per rank on 2, 4 and 8
/// ranks. Through mpinetsim only: Debian's MPICH fails MPICH's own
/// `ft/revoke_nofail` natively ("Internal error").
#[test]
fn a_revoked_communicator_fails_every_members_operations() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("revoke", "mpicc");
    passes_its_checks_on_2_4_8(&prog, "revoke", 5);
}

/// tests/mpi/ports.c: client/server connections inside one job — the
/// even ranks accept on a port rank 0 opened, the odd ranks connect; the
/// intercommunicator's groups, a partner exchange, an allreduce across,
/// a merge and MPI_Comm_disconnect; the port published, looked up and
/// unpublished through the job's name service; then ranks 0 and 1 join
/// over a TCP socket of their own. 12 checks per rank on 2, 4 and 8 ranks, every
/// expected value computed by the program. Through mpinetsim only:
/// Debian's MPICH (ch4:ucx) answers MPI_Open_port with "not supported
/// with ucx netmod".
#[test]
fn ports_accept_connect_and_join_make_working_intercommunicators() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("ports", "mpicc");
    passes_its_checks_on_2_4_8(&prog, "ports", 12);
}

/// tests/mpi/rma_locks.c: passive target — N ranks incrementing one
/// counter with MPI_Fetch_and_op under exclusive locks, and with a get-put
/// cycle under exclusive locks, end with exactly N × 20; shared locks,
/// MPI_Win_lock_all with MPI_Rget, MPI_Win_flush, a dynamic window.
#[test]
fn passive_target_locks_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("rma_locks") {
        // Per rank on s ranks: 3 counter checks, s gets, 2 flush checks,
        // 1 dynamic-window check.
        for (s, n) in [2, 4, 8].iter().zip(n) {
            assert_eq!(n, s * (s + 6), "on {s} ranks");
        }
    }
}

/// tests/mpi/rma_shared.c: shared-memory windows — segments laid out one
/// after the other, MPI_Win_shared_query, loads and stores between the
/// ranks of a node, puts and gets through the window seen by loads and
/// stores, an atomic counter, empty non-contiguous segments, and a world
/// spanning simulated hosts refused with MPI_ERR_RMA_SHARED. On the
/// reference network 8 ranks share each host in pairs (natively all one
/// node), so real memory is shared between processes.
#[test]
fn shared_memory_windows_match_native_mpich_on_2_4_8_ranks() {
    if let Some(n) = same_output_on_2_4_8("rma_shared") {
        // 13 checks per rank, whatever the nodes.
        assert_eq!(n, [13 * 2, 13 * 4, 13 * 8]);
    }
}

#[test]
fn thread_multiple_lets_other_threads_call_mpi_while_one_waits() {
    if let Some(n) = same_output("threads_multiple") {
        assert_eq!(n, 6);
    }
}

#[test]
fn collectives_match_native_mpich_on_2_4_8_and_9_ranks() {
    let _g = serial();
    if skip_without_mpicc() || skip_without_mpiexec() {
        return;
    }
    let prog = build_c("collectives", "mpicc");
    let n = ["2", "4", "8", "9"].map(|r| same_output_as_native("collectives", &prog, r));
    // Each root, each rank's block: the checks grow faster than the ranks.
    assert!(
        n[0] >= 300 && n[1] > 2 * n[0] && n[2] > 2 * n[1] && n[3] > n[2],
        "{n:?}"
    );
}

/// Every nonblocking collective, outstanding together and completed in
/// other orders, on world and a duplicate: 69 checks on every rank.
#[test]
fn nonblocking_collectives_match_native_mpich() {
    if let Some(n) = same_output_on_2_4_8("nonblocking") {
        assert_eq!(n, [69 * 2, 69 * 4, 69 * 8]);
    }
}

/// Intercommunicators: creation, queries, point-to-point, every
/// collective blocking and nonblocking, merge, dup, split and create: 47
/// checks on every rank.
#[test]
fn intercommunicators_match_native_mpich() {
    if let Some(n) = same_output_on_2_4_8("intercomm") {
        assert_eq!(n, [47 * 2, 47 * 4, 47 * 8]);
    }
}

/// MPI_Comm_idup, MPI_Comm_split_type, MPI_Comm_create_group,
/// MPI_Comm_disconnect and MPI_Comm_get_parent: 25 checks on every rank.
#[test]
fn communicator_routines_match_native_mpich() {
    if let Some(n) = same_output_on_2_4_8("comm_routines") {
        assert_eq!(n, [25 * 2, 25 * 4, 25 * 8]);
    }
}

/// `MPI_COMM_TYPE_SHARED` groups the ranks by the node they run on in the
/// emulated machine: with 8 ranks, a hybrid network's processors of 4
/// cores (ranks placed one per core in order), the reference network's
/// hosts (2 ranks each, in blocks) and the analytic model's SMP nodes of 3.
#[test]
fn shared_memory_communicators_are_the_simulated_nodes() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("shared_nodes", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let smp = dir.path().join("smp3.toml");
    let reference = std::fs::read_to_string(config("reference.toml")).unwrap();
    std::fs::write(
        &smp,
        format!("{reference}\n[analytic]\nprocessors_per_node = 3\n"),
    )
    .unwrap();
    let cases: [(&str, &[&str], u32); 3] = [
        (&config("hybrid-ring-of-meshes.toml"), &[], 4),
        (&config("reference.toml"), &[], 2),
        (smp.to_str().unwrap(), &["--model", "analytic"], 3),
    ];
    for (net, extra, per_node) in cases {
        let o = run(&[&["-n", "8", "--net", net], extra].concat(), &prog, &[]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{net}: {err}");
        let want: Vec<String> = (0..8u32)
            .map(|r| {
                let first = r / per_node * per_node;
                let size = per_node.min(8 - first);
                format!(
                    "rank {r}: node of {size} ranks from world rank {first}, node rank {}",
                    r - first
                )
            })
            .collect();
        assert_eq!(out.lines().collect::<Vec<_>>(), want, "{net}");
    }
}

#[test]
fn communicators_groups_attributes_match_native_mpich() {
    if let Some(n) = same_output("comms") {
        assert!(n >= 200, "{n} checks");
    }
}

#[test]
fn datatypes_match_native_mpich() {
    if let Some(n) = same_output("datatypes") {
        assert!(n >= 200, "{n} checks");
    }
}

#[test]
fn p2p_modes_match_native_mpich() {
    if let Some(n) = same_output("p2p_modes") {
        assert!(n >= 100, "{n} checks");
    }
}

#[test]
fn errors_match_native_mpich() {
    if let Some(n) = same_output("errors") {
        // errors.c makes 459 checks on every rank.
        assert_eq!(n, 459 * 4, "{n} checks");
    }
}

/// Runs `matching n order` on 2 ranks with `--report`; returns rank 1's
/// (unsuccessful_matches, unexpected).
fn matching(prog: &Path, net: &str, factor: &str, n: u64, order: &str) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let ns = n.to_string();
    let o = run(
        &[
            "-n",
            "2",
            "--net",
            &config(net),
            "--time-factor",
            factor,
            "--report",
            rep.to_str().unwrap(),
        ],
        prog,
        &[&ns, order],
    );
    let (out, err) = text(&o);
    assert!(
        o.status.success(),
        "matching {n} {order} failed:\n{out}\n{err}"
    );
    assert_eq!(
        out.trim(),
        format!("matching n={n} order={order} errors=0"),
        "{err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let mpi = &r["rank_reports"][1]["mpi"];
    (
        mpi["unsuccessful_matches"].as_u64().unwrap(),
        mpi["unexpected"].as_u64().unwrap(),
    )
}

fn matching_counts(net: &str, factors: &[&str]) {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("matching", "mpicc");
    for factor in factors {
        for n in [1u64, 2, 10, 45, 90] {
            for (order, want) in [("in", 0), ("reverse", n * (n - 1) / 2)] {
                let got = matching(&prog, net, factor, n, order);
                assert_eq!(
                    got,
                    (want, n),
                    "{net} factor {factor}: matching {n} {order}: (unsuccessful, unexpected)"
                );
            }
        }
    }
}

#[test]
fn matching_counts_unsuccessful_attempts_on_the_reference_network() {
    matching_counts("reference.toml", &["1", "2"]);
}

#[test]
fn matching_counts_unsuccessful_attempts_on_the_slow_rank0_network() {
    matching_counts("slow-rank0.toml", &["1"]);
}

/// tests/mpi/qmpi_tools.c: QMPI tools (MPICH's tool stacking interface;
/// Debian's MPICH is built without it, so there is no native reference).
/// With `MPIR_CVAR_QMPI_TOOL_LIST=count:trace:count` three tools chain in
/// list order over MPI_Send, MPI_Recv and MPI_Allreduce and count exactly
/// the program's 5 sends, 5 receives and 1 reduction per rank (19 checks
/// per rank); without the list no tool loads and the counts are zero
/// (the same 19 checks).
#[test]
fn qmpi_tools_chain_in_list_order_and_count_every_call() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("qmpi_tools", "mpicc");
    ensure_shim();
    for (ranks, list) in [
        (2u64, Some("count:trace:count")),
        (4, Some("count:trace:count")),
        (2, None),
    ] {
        let mut cmd = std::process::Command::new(bin());
        cmd.args([
            "run",
            "-n",
            &ranks.to_string(),
            "--net",
            &config("ideal.toml"),
        ])
        .args(["--time-factor", "1", "--"])
        .arg(&prog)
        .env_remove("MPIR_CVAR_QMPI_TOOL_LIST")
        .env_remove("QMPI_TOOL_LIST");
        if let Some(list) = list {
            cmd.env("MPIR_CVAR_QMPI_TOOL_LIST", list);
        }
        let o = cmd.output().expect("run mpinetsim");
        let (out, err) = text(&o);
        let expected = format!("qmpi_tools: {} checks passed", 19 * ranks);
        assert!(
            o.status.success() && out.contains(&expected),
            "{ranks} ranks, tools {list:?}: {out}{err}"
        );
    }
}

/// tests/mpi/mpix_extensions.c: MPICH's fault-tolerance and GPU extensions
/// where no process fails (Debian's MPICH asserts in MPIX_Comm_agree, so
/// there is no native reference): 9 checks per rank on 2, 4 and 8 ranks.
#[test]
fn mpich_extensions_agree_shrink_and_answer_gpu_queries() {
    let _g = serial();
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("mpix_extensions", "mpicc");
    passes_its_checks_on_2_4_8(&prog, "mpix_extensions", 9);
}
