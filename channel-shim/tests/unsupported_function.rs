//! A program built with Debian's `mpicc` that calls a function the shim does
//! not implement loads against the shim (every function of
//! mpi-functions.txt is exported as MPI_x and PMPI_x) and ends with exactly
//! one stderr line `mpinetsim: MPI_x is not supported by mpinetsim; …` and
//! a non-zero exit.

mod common;
use common::{on_path, shim_library, skip_because};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder with `libmpich.so.12` and `libmpi.so.12` linking to the shim.
fn shim_dir(name: &str) -> PathBuf {
    let lib = shim_library();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("unsupported-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for link in ["libmpich.so.12", "libmpi.so.12"] {
        std::os::unix::fs::symlink(&lib, dir.join(link)).unwrap();
    }
    dir
}

fn output(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn listed_functions() -> Vec<String> {
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("mpi-functions.txt");
    std::fs::read_to_string(list)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn every_listed_function_is_exported_under_both_names() {
    if !(on_path("nm") && on_path("readelf"))
        && skip_because("nm/readelf not found (apt-get install binutils)")
    {
        return;
    }
    let lib = shim_library();
    let out = output(Command::new("nm").args(["-D", "--defined-only"]).arg(&lib));
    let exported: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let functions = listed_functions();
    assert!(
        functions.len() > 600,
        "mpi-functions.txt lists only {} functions",
        functions.len()
    );
    let missing: Vec<String> = functions
        .iter()
        .flat_map(|f| [f.clone(), format!("P{f}")])
        .filter(|s| !exported.contains(s))
        .collect();
    assert!(
        missing.is_empty(),
        "not exported by {}: {missing:?}",
        lib.display()
    );

    let dynamic = output(Command::new("readelf").arg("-d").arg(&lib));
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic
            .lines()
            .any(|l| l.contains("(SONAME)") && l.contains("[libmpich.so.12]")),
        "the shim's SONAME is not libmpich.so.12:\n{dynamic}"
    );
}

/// Builds `source` with mpicc, checks it needs libmpich.so.12, runs it on
/// the shim and returns its output.
fn run_on_shim(name: &str, source: &str) -> Option<Output> {
    if !on_path("mpicc") && skip_because("mpicc not found (apt-get install mpich libmpich-dev)") {
        return None;
    }
    let dir = shim_dir(name);
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, source).unwrap();
    output(Command::new("mpicc").arg("-o").arg(&exe).arg(&c));

    if on_path("readelf") {
        let dynamic = output(Command::new("readelf").arg("-d").arg(&exe));
        let dynamic = String::from_utf8_lossy(&dynamic.stdout);
        assert!(
            dynamic
                .lines()
                .any(|l| l.contains("(NEEDED)") && l.contains("[libmpich.so.12]")),
            "{name} does not need libmpich.so.12:\n{dynamic}"
        );
    }

    let mut cmd = Command::new(&exe);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("MPINETSIM") {
            cmd.env_remove(key);
        }
    }
    Some(
        cmd.env("LD_LIBRARY_PATH", &dir)
            .env_remove("LD_PRELOAD")
            .output()
            .unwrap(),
    )
}

fn assert_not_supported(out: &Output, function: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "exited successfully; stderr:\n{stderr}"
    );
    assert_eq!(
        stderr,
        format!("mpinetsim: {function} is not supported by mpinetsim; docs/mpi-coverage.md lists the MPI functions it implements\n"),
        "status {}",
        out.status
    );
    assert!(!stderr.contains("panicked"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "the program went on after the call"
    );
}

#[test]
fn calling_an_unsupported_function_ends_the_job_with_one_line() {
    let source = r#"
#include <mpi.h>
#include <stdio.h>
int main(void) {
    MPI_Comm child;
    MPI_Comm_spawn("worker", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child, MPI_ERRCODES_IGNORE);
    printf("MPI_Comm_spawn returned\n");
    return 0;
}
"#;
    let Some(out) = run_on_shim("comm_spawn", source) else {
        return;
    };
    assert_not_supported(&out, "MPI_Comm_spawn");
}

#[test]
fn unsupported_profiling_name() {
    // A PMPI_ name (every function returning something else than int is
    // implemented now).
    let source = r#"
#include <mpi.h>
#include <stdio.h>
int main(void) {
    MPI_Comm child;
    const char *cmds[1] = {"worker"};
    int procs[1] = {2};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    PMPI_Comm_spawn_multiple(1, (char **)cmds, MPI_ARGVS_NULL, procs, infos, 0, MPI_COMM_WORLD, &child,
                             MPI_ERRCODES_IGNORE);
    printf("PMPI_Comm_spawn_multiple returned\n");
    return 0;
}
"#;
    let Some(out) = run_on_shim("comm_spawn_multiple", source) else {
        return;
    };
    assert_not_supported(&out, "MPI_Comm_spawn_multiple");
}
