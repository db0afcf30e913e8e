//! Every function of mpi-functions.txt (Debian's mpi.h) is exported as
//! MPI_x and PMPI_x, so any program built with Debian's `mpicc` loads
//! against the shim. (Since MPI_Comm_spawn, every one of them is
//! implemented; a routine that is not — today only `mpi_f08`'s
//! MPIX_Comm_revoke — ends the job with one line, which
//! gateway/tests/fortran_programs.rs checks.)

mod common;
use common::{on_path, shim_library, skip_because};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

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
