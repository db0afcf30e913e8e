//! Fortran programs of tests/mpi, built with Debian's `mpif90`, give the
//! same checked output natively (Debian's `mpiexec`, MPICH) and through
//! `mpinetsim run` on the reference network, which loads the shim's Fortran
//! bindings (libchannel_shim_fortran.so) as libmpichfort.so.12: one program
//! with `include 'mpif.h'`, one with `use mpi` (the same checks,
//! tests/mpi/fortran_suite.inc). A routine the bindings do not support ends
//! the job with the C library's line, and every gfortran name Debian's
//! libmpichfort.so.12 exports is exported, so every mpif90 program loads.
//!
//! The tests run one at a time (a lock): each starts several processes.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The built Fortran bindings, next to the mpinetsim binary.
fn fortran_library() -> std::path::PathBuf {
    let dir = Path::new(bin()).parent().unwrap();
    let lib = dir.join("libchannel_shim_fortran.so");
    assert!(
        lib.is_file(),
        "libchannel_shim_fortran.so is missing in {}: build the workspace first (cargo build --workspace --release)",
        dir.display()
    );
    lib
}

/// Builds tests/mpi/<name>.f90 and compares its output natively and through
/// mpinetsim on `ranks` ranks. Returns the number of checks, or None when
/// gfortran or MPICH is missing.
fn fortran_same_output(name: &str, ranks: &str) -> Option<u64> {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") || skip_without_mpiexec() {
        return None;
    }
    fortran_library();
    let prog = build(name, "f90", "mpif90");
    Some(same_output_as_native(name, &prog, ranks))
}

#[test]
fn fortran_with_mpif_h_matches_native_mpich() {
    if let Some(n) = fortran_same_output("fortran_mpif", "4") {
        assert!(n >= 500, "{n} checks");
    }
}

#[test]
fn fortran_with_use_mpi_matches_native_mpich() {
    if let Some(n) = fortran_same_output("fortran_use_mpi", "3") {
        assert!(n >= 400, "{n} checks");
    }
}

#[test]
fn an_unsupported_fortran_routine_ends_the_job_with_the_c_line() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    let prog = build("fortran_unsupported", "f90", "mpif90");
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
        lines[0].ends_with("ended the job: MPI_Win_fence is not supported by mpinetsim; docs/mpi-coverage.md lists the MPI functions it implements"),
        "{}",
        lines[0]
    );
}

/// The dynamic symbols of `library`, defined ones (`--defined-only`) or
/// the ones it needs (`--undefined-only`).
fn dynamic_symbols(library: &Path, which: &str) -> BTreeSet<String> {
    let o = Command::new("nm")
        .args(["-D", which])
        .arg(library)
        .output()
        .expect("run nm (binutils)");
    assert!(o.status.success(), "nm -D {} failed", library.display());
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(String::from)
        .collect()
}

/// The dynamic symbols `library` defines that gfortran could call:
/// `mpi_x_` and `pmpi_x_` (one trailing underscore, not the `mpi_f08`
/// module's `_f08` names).
fn gfortran_names(library: &Path) -> BTreeSet<String> {
    dynamic_symbols(library, "--defined-only")
        .into_iter()
        .filter(|s| {
            (s.starts_with("mpi_") || s.starts_with("pmpi_"))
                && s.ends_with('_')
                && !s.ends_with("__")
                && !s.contains("_f08")
        })
        .collect()
}

/// Functions are bound lazily: a C function the Fortran library declares
/// but the C library lacks would only fail when called.
#[test]
fn the_c_library_defines_every_mpi_symbol_the_fortran_library_needs() {
    let fortran = fortran_library();
    let c = fortran.with_file_name("libchannel_shim.so");
    let needed: BTreeSet<String> = dynamic_symbols(&fortran, "--undefined-only")
        .into_iter()
        .filter(|s| s.starts_with("MPI") || s.starts_with("mpinetsim_"))
        .collect();
    assert!(needed.len() > 100, "{} MPI symbols needed", needed.len());
    let defined = dynamic_symbols(&c, "--defined-only");
    let missing: Vec<&String> = needed.difference(&defined).collect();
    assert!(missing.is_empty(), "libchannel_shim.so lacks {missing:?}");
}

#[test]
fn every_gfortran_name_of_debian_mpich_is_exported() {
    let debian = Path::new("/usr/lib/x86_64-linux-gnu/libmpichfort.so.12");
    if !debian.is_file()
        && skip_because(&format!(
            "{} not found (apt-get install libmpich12)",
            debian.display()
        ))
    {
        return;
    }
    let theirs = gfortran_names(debian);
    let ours = gfortran_names(&fortran_library());
    assert!(
        theirs.len() > 800,
        "{} names in Debian's library",
        theirs.len()
    );
    let missing: Vec<&String> = theirs.difference(&ours).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
}
