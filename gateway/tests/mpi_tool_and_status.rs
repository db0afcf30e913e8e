//! tests/mpi/mpi_tool.c: the MPI tool information interface (`MPI_T_*`)
//! through mpinetsim on 2, 4 and 8 ranks — every variable and category
//! listed, MPI 3.1's error classes, and performance variables equal to the
//! counts the program's own messages imply (queue lengths, unsuccessful
//! matches n(n-1)/2, message counters per session). Debian's MPICH has no
//! performance variables, so this program runs through mpinetsim only.
//!
//! tests/mpi/status_convert.c: `MPI_Status_c2f`/`f2c`/`c2f08`/`f082c`
//! give the same checked output natively and through mpinetsim.

mod common;
use common::*;

/// Runs tests/mpi/mpi_tool.c on `ranks` ranks; returns its stdout.
fn tool_program(ranks: u64) -> String {
    let prog = build_c("mpi_tool", "mpicc");
    let n = ranks.to_string();
    let o = run(
        &[
            "-n",
            &n,
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "1",
        ],
        &prog,
        &[],
    );
    let (out, err) = text(&o);
    assert!(
        o.status.success(),
        "mpi_tool on {ranks} ranks failed ({}):\n{out}\n{err}",
        o.status
    );
    out
}

#[test]
fn tool_interface_variables_count_the_programs_own_messages_on_2_4_8_ranks() {
    if skip_without_mpicc() {
        return;
    }
    for ranks in [2u64, 4, 8] {
        let out = tool_program(ranks);
        // Per rank: 193 checks of the variables (13 more on rank 0, which
        // also prints them), 25 of error classes; per pair 128 of counters.
        let want = 13 + 218 * ranks + 128 * (ranks / 2);
        assert!(
            out.lines()
                .any(|l| l == format!("mpi_tool: {want} checks passed")),
            "{ranks} ranks: expected {want} checks to pass:\n{out}"
        );
        assert!(out.contains(&format!("counters: {} checks", 128 * (ranks / 2))));
        // Rank 0 lists the 13 performance and 13 control variables.
        assert_eq!(out.lines().filter(|l| l.starts_with("pvar ")).count(), 13);
        assert_eq!(out.lines().filter(|l| l.starts_with("cvar ")).count(), 13);
        assert!(out.contains("cvar MPINETSIM_EAGER_THRESHOLD"));
    }
}

#[test]
fn status_conversions_match_native_mpich_on_2_4_8_ranks() {
    if skip_without_mpicc() || skip_without_mpiexec() {
        return;
    }
    let prog = build_c("status_convert", "mpicc");
    for ranks in [2u64, 4, 8] {
        // 17 checks on every rank.
        let n = same_output_as_native("status_convert", &prog, &ranks.to_string());
        assert_eq!(n, 17 * ranks);
    }
}
