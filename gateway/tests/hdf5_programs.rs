//! Parallel HDF5 through the shim's MPI-IO: tests/mpi/hdf5_hyperslab.c,
//! built with Debian's MPICH HDF5 (`h5pcc`, package libhdf5-mpich-dev),
//! writes its hyperslabs of three datasets collectively and reads another
//! rank's back, natively (Debian's `mpiexec`) and through `mpinetsim run`
//! on the ideal network, on 2, 4 and 8 ranks; both runs check every value
//! and the two files' `h5dump` (package hdf5-tools) must be identical.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh private folder for one run's file.
fn run_dir(name: &str, ranks: u32) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hdf5-{name}-{ranks}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `h5dump` of `dir/file.h5`, run inside `dir` so that the file name it
/// prints is the same for both runs.
fn h5dump(dir: &Path) -> String {
    let o = Command::new("h5dump")
        .arg("file.h5")
        .current_dir(dir)
        .output()
        .expect("run h5dump");
    let (out, err) = text(&o);
    assert!(o.status.success(), "h5dump in {}: {err}", dir.display());
    out
}

#[test]
fn parallel_hdf5_hyperslabs_match_native_mpich_and_h5dump_is_identical() {
    if skip_without_mpicc()
        || skip_without_mpiexec()
        || skip_without("h5pcc", "-showconfig", "libhdf5-mpich-dev")
        || skip_without("h5dump", "--version", "hdf5-tools")
    {
        return;
    }
    let prog = build_c("hdf5_hyperslab", "h5pcc");
    for ranks in [2, 4, 8] {
        same_file_as_native(&prog, ranks);
    }
}

/// Runs the program on `ranks` ranks natively and through mpinetsim and
/// compares their output and their files' h5dump.
fn same_file_as_native(prog: &Path, ranks: u32) {
    let n = ranks.to_string();
    let native_dir = run_dir("native", ranks);
    let native = Command::new("mpiexec")
        .args(["-n", &n])
        .arg(prog)
        .arg("file.h5")
        .current_dir(&native_dir)
        .env("UCX_LOG_LEVEL", "error")
        .output()
        .expect("run mpiexec");
    let (nat_out, nat_err) = text(&native);
    assert!(
        native.status.success(),
        "natively on {ranks} ranks: {}\n{nat_out}\n{nat_err}",
        native.status
    );

    let sim_dir = run_dir("mpinetsim", ranks);
    ensure_shim();
    let o = Command::new(bin())
        .args(["run", "-n", &n, "--net", &config("ideal.toml")])
        .args(["--time-factor", "1", "--"])
        .arg(prog)
        .arg("file.h5")
        .current_dir(&sim_dir)
        .output()
        .expect("run mpinetsim");
    let (sim_out, sim_err) = text(&o);
    assert!(
        o.status.success(),
        "through mpinetsim on {ranks} ranks: {}\n{sim_out}\n{sim_err}",
        o.status
    );

    // 9 checks per rank while writing (create, 3 dataset creations and
    // collective writes, the attribute, close) and 9 while reading back
    // (open, 3 collective reads and their values, the attribute, close).
    let summary = format!("hdf5_hyperslab: {} checks passed", 18 * ranks);
    assert!(
        nat_out.contains(&summary),
        "natively:\n{nat_out}\n{nat_err}"
    );
    assert_eq!(
        sorted_lines(&sim_out),
        sorted_lines(&nat_out),
        "mpinetsim (left) and native MPICH (right) print differently\n{sim_err}"
    );

    let (native_dump, sim_dump) = (h5dump(&native_dir), h5dump(&sim_dir));
    assert!(native_dump.contains("DATASET \"columns\""), "{native_dump}");
    assert!(
        native_dump == sim_dump,
        "on {ranks} ranks, h5dump of the file written through mpinetsim differs from the native one:\n--- native\n{native_dump}\n--- mpinetsim\n{sim_dump}"
    );
    let _ = std::fs::remove_dir_all(native_dir);
    let _ = std::fs::remove_dir_all(sim_dir);
}
