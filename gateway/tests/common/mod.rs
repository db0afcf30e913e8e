//! Helpers for end-to-end tests: build MPI programs from tests/mpi with
//! Debian's mpicc, make sure the shim library is built, run `mpinetsim`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The `mpinetsim` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mpinetsim")
}

/// A network file from configs/.
pub fn config(name: &str) -> String {
    root().join("configs").join(name).display().to_string()
}

/// True (after saying so) when Debian's mpicc is missing.
pub fn skip_without_mpicc() -> bool {
    let ok = Command::new("mpicc")
        .arg("-show")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: mpicc not found (apt-get install mpich libmpich-dev)");
    }
    !ok
}

/// Checks that libchannel_shim.so was built next to the mpinetsim binary
/// (`cargo test` builds the shim's rlib for tests, not its cdylib).
pub fn ensure_shim() {
    let dir = Path::new(bin()).parent().unwrap();
    assert!(
        dir.join("libchannel_shim.so").is_file(),
        "libchannel_shim.so is missing in {}: build the workspace first (cargo build --workspace{})",
        dir.display(),
        if dir.ends_with("release") { " --release" } else { "" }
    );
}

/// Compiles tests/mpi/<name>.c with `compiler` (mpicc or cc) into the test
/// temp folder; returns the binary path.
pub fn build_c(name: &str, compiler: &str) -> PathBuf {
    let src = root().join("tests/mpi").join(format!("{name}.c"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{compiler}"));
    let o = Command::new(compiler)
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .expect("run the C compiler");
    assert!(
        o.status.success(),
        "{compiler} {name}.c failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// Runs `mpinetsim run` with arguments, then `--` and the program.
pub fn run(args: &[&str], program: &Path, prog_args: &[&str]) -> Output {
    ensure_shim();
    Command::new(bin())
        .arg("run")
        .args(args)
        .arg("--")
        .arg(program)
        .args(prog_args)
        .output()
        .expect("run mpinetsim")
}

/// stderr lines that start with "mpinetsim:" and are not part of the report.
pub fn error_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("mpinetsim: rank ") && !l.contains("  "))
        .map(String::from)
        .collect()
}
