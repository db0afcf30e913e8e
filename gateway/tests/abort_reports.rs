//! A rank that ends the job (a fatal error, MPI_Abort) waits for
//! the gateway to acknowledge its reason before it exits, so the reason is
//! always what the job's last line says — even when every rank does it at
//! once (it used to say, now and then, only that a rank "exited with
//! status 1 before MPI_Finalize").

mod common;
use common::*;

#[test]
fn many_ranks_meeting_a_fatal_error_at_once_always_report_it() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("stall", "mpicc");
    for round in 0..25 {
        let o = run(
            &[
                "-n",
                "16",
                "--net",
                &config("reference.toml"),
                "--time-factor",
                "4",
            ],
            &prog,
            &["fatal"],
        );
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "round {round}: {out}\n{err}");
        let last = err.lines().last().unwrap_or("");
        assert!(
            last.starts_with("mpinetsim: rank ")
                && last.ends_with(
                    " ended the job: MPI_Comm_spawn failed on MPI_COMM_SELF: Error in spawn call (error code 42)"
                ),
            "round {round}: {err}"
        );
    }
}
