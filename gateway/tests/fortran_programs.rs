//! Fortran programs of tests/mpi (`include 'mpif.h'`), built with Debian's
//! `mpif90`, give the same checked output natively (Debian's `mpiexec`,
//! MPICH) and through `mpinetsim run` on the reference network, which loads
//! the shim's Fortran bindings (libchannel_shim_fortran.so) as
//! libmpichfort.so.12.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RANKS: &str = "4";

/// True (after saying so) when `tool --version` does not run.
fn missing(tool: &str, package: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: {tool} not found (apt-get install {package})");
    }
    !ok
}

/// Compiles tests/mpi/<name>.f90 with mpif90 into the test temp folder.
fn build_fortran(name: &str) -> PathBuf {
    let src = root().join("tests/mpi").join(format!("{name}.f90"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-mpif90"));
    let o = Command::new("mpif90")
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .expect("run mpif90");
    assert!(
        o.status.success(),
        "mpif90 {name}.f90 failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn fortran_basic_matches_native_mpich() {
    if missing("mpif90", "mpich libmpich-dev gfortran") || missing("mpiexec", "mpich") {
        return;
    }
    let dir = Path::new(bin()).parent().unwrap();
    assert!(
        dir.join("libchannel_shim_fortran.so").is_file(),
        "libchannel_shim_fortran.so is missing in {}: build the workspace first (cargo build --workspace)",
        dir.display()
    );
    let prog = build_fortran("fortran_basic");
    let native = Command::new("mpiexec")
        .args(["-n", RANKS])
        .arg(&prog)
        .output()
        .expect("run mpiexec");
    let (nat_out, nat_err) = text(&native);
    assert!(
        native.status.success() && nat_out.contains("checks passed"),
        "fortran_basic natively failed:\n{nat_out}\n{nat_err}"
    );
    let o = run(
        &["-n", RANKS, "--net", &config("reference.toml")],
        &prog,
        &[],
    );
    let (sim_out, sim_err) = text(&o);
    assert!(
        o.status.success(),
        "fortran_basic through mpinetsim failed ({}):\n{sim_out}\n{sim_err}",
        o.status
    );
    assert_eq!(
        sorted_lines(&sim_out),
        sorted_lines(&nat_out),
        "fortran_basic: mpinetsim (left) and native MPICH (right) differ\n{sim_err}"
    );
    let last = sim_out
        .lines()
        .find(|l| l.starts_with("fortran_basic: ") && l.ends_with(" checks passed"))
        .unwrap_or_else(|| panic!("fortran_basic printed no summary:\n{sim_out}"));
    eprintln!("{last}");
}

#[test]
fn an_unsupported_fortran_routine_ends_the_job_with_the_c_line() {
    if missing("mpif90", "gfortran") {
        return;
    }
    let prog = build_fortran("fortran_unsupported");
    let o = run(&["-n", "2", "--net", &config("reference.toml")], &prog, &[]);
    let (_, err) = text(&o);
    assert!(o.status.code().is_some_and(|c| c != 0), "{err}");
    assert!(
        !err.contains("undefined symbol") && !err.contains("panicked"),
        "{err}"
    );
    let lines = error_lines(&o);
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].ends_with("ended the job: MPI_Win_fence is not supported"),
        "{}",
        lines[0]
    );
}
