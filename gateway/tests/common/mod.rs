//! Helpers for end-to-end tests: build MPI programs from tests/mpi with
//! Debian's mpicc or mpif90, make sure the shim library is built, run
//! `mpinetsim`, compare a self-checking program's output with native MPICH.
//!
//! The transport between ranks and gateway follows `MPINETSIM_TRANSPORT`
//! in the tests' environment (`mpinetsim` reads it as the default of
//! `--transport`): .ci/run runs the MPI-program tests once with each.

#![allow(dead_code)]

pub mod other_user;
pub mod prerequisites;
pub mod standalone;

pub use prerequisites::skip_because;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The transport `mpinetsim run` uses in these tests: `MPINETSIM_TRANSPORT`
/// if set, else the default (`socket`).
pub fn transport() -> String {
    match std::env::var(mpinetsim_protocol::transport::ENV_TRANSPORT) {
        Ok(v) if !v.is_empty() => v,
        _ => mpinetsim_protocol::transport::TransportKind::DEFAULT
            .name()
            .to_string(),
    }
}

/// The `mpinetsim` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mpinetsim")
}

/// A network file from configs/.
pub fn config(name: &str) -> String {
    root().join("configs").join(name).display().to_string()
}

/// True (after saying so) when `tool probe` does not run: the package to
/// install is named. In CI the test fails instead ([`skip_because`]).
pub fn skip_without(tool: &str, probe: &str, package: &str) -> bool {
    let ok = Command::new(tool)
        .arg(probe)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    !ok && skip_because(&format!("{tool} not found (apt-get install {package})"))
}

/// True (after saying so) when Debian's mpicc is missing.
pub fn skip_without_mpicc() -> bool {
    skip_without("mpicc", "-show", "mpich libmpich-dev")
}

/// True (after saying so) when Debian's mpiexec is missing.
pub fn skip_without_mpiexec() -> bool {
    skip_without("mpiexec", "--version", "mpich")
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
    build(name, "c", compiler)
}

/// Compiles tests/mpi/<name>.<extension> with `compiler` (mpicc, cc,
/// mpif90) into the test temp folder, once per test process; returns the
/// binary path. Tests run in parallel threads: the compiler writes a
/// private file that is then renamed into place, so no test ever executes
/// a binary another test's linker still has open for writing (exec would
/// fail with ETXTBSY, "Text file busy").
pub fn build(name: &str, extension: &str, compiler: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let src = root().join("tests/mpi").join(format!("{name}.{extension}"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{compiler}"));
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built.contains(&out) {
        return out;
    }
    let partial = out.with_extension(format!("{}.partial", std::process::id()));
    // In the temp folder: h5pcc leaves its object file in the working
    // directory.
    let o = Command::new(compiler)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .args(["-O2", "-o"])
        .arg(&partial)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(
        o.status.success(),
        "{compiler} {name}.{extension} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::rename(&partial, &out).expect("the built program moves into place");
    built.push(out.clone());
    out
}

/// stdout and stderr of a finished process as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The lines of `s`, sorted (ranks print in any order).
pub fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

/// Runs `prog` on `ranks` ranks under Debian's `mpiexec`. A run killed
/// by a signal is run again (at most three runs): Debian's MPICH over UCX
/// occasionally crashes in its shared-memory transport on a loaded
/// machine (seen: SIGSEGV in `uct_mm_ep_am_bcopy` during `rma_fence`), and
/// the reference's own crash says nothing about mpinetsim. A run that
/// exits with a status is kept as it is.
pub fn native_reference(prog: &Path, ranks: &str) -> Output {
    let mut runs = 0;
    loop {
        runs += 1;
        let o = Command::new("mpiexec")
            .args(["-n", ranks])
            .arg(prog)
            // Debian's MPICH runs over UCX, which prints its warnings (such
            // as OpenCoarrays' unmatched tag receives at exit) on stdout.
            .env("UCX_LOG_LEVEL", "error")
            .output()
            .expect("run mpiexec");
        let crashed = String::from_utf8_lossy(&o.stdout).contains("BAD TERMINATION")
            || String::from_utf8_lossy(&o.stderr).contains("BAD TERMINATION");
        if !crashed || runs == 3 {
            return o;
        }
        eprintln!(
            "the native reference run of {} crashed; running it again",
            prog.display()
        );
    }
}

/// Runs the self-checking program `prog` on `ranks` ranks natively
/// (`mpiexec`) and through `mpinetsim run` on the reference network at
/// time factor 1, and requires both to succeed with the same (sorted)
/// output lines, among them `<name>: N checks passed`. Returns N.
pub fn same_output_as_native(name: &str, prog: &Path, ranks: &str) -> u64 {
    let native = native_reference(prog, ranks);
    let (nat_out, nat_err) = text(&native);
    let o = run(
        &[
            "-n",
            ranks,
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "1",
        ],
        prog,
        &[],
    );
    let (sim_out, sim_err) = text(&o);
    assert!(
        o.status.success(),
        "{name} through mpinetsim failed ({}):\n{sim_out}\n{sim_err}",
        o.status
    );
    assert!(
        native.status.success() && nat_out.contains("checks passed"),
        "{name} natively failed:\n{nat_out}\n{nat_err}"
    );
    assert_eq!(
        sorted_lines(&sim_out),
        sorted_lines(&nat_out),
        "{name}: mpinetsim (left) and native MPICH (right) differ\n{sim_err}"
    );
    let last = sim_out
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")) && l.ends_with(" checks passed"))
        .unwrap_or_else(|| panic!("{name} printed no summary:\n{sim_out}"));
    let n: u64 = last.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(n > 0);
    eprintln!("{last}");
    n
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

/// True (after saying so) when tshark/capinfos are missing.
pub fn skip_without_tshark() -> bool {
    let ok = ["tshark", "capinfos"].iter().all(|t| {
        Command::new(t)
            .arg("-v")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    });
    !ok && skip_because("tshark/capinfos not found (apt-get install tshark)")
}

/// Checks that every capture file in `dir` (*.pcap, *.pcapng) is complete:
/// capinfos recognises its format and reads it to the end without error,
/// and tshark dissects every frame without complaint. Returns (file name,
/// packets) per file; fails when there is none.
pub fn assert_captures_valid(dir: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no capture file in {}", dir.display());
    for f in files {
        let ng = f.extension().unwrap() == "pcapng";
        let o = Command::new("capinfos")
            .args(["-M", "-t", "-c"])
            .arg(&f)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && err.trim().is_empty(),
            "capinfos {}: {text}{err}",
            f.display()
        );
        let want = if ng { "pcapng" } else { "nsecpcap" };
        assert!(
            text.lines()
                .any(|l| l.starts_with("File type:") && l.ends_with(want)),
            "{} is not a {want}: {text}",
            f.display()
        );
        let packets: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("Number of packets:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("capinfos {}: {text}", f.display()));
        let o = Command::new("tshark").arg("-r").arg(&f).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success()
                && !err.contains("cut short")
                && !err.contains("damaged")
                && !err.contains("corrupt"),
            "tshark -r {}: {err}",
            f.display()
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).lines().count() as u64,
            packets,
            "tshark and capinfos disagree on {}",
            f.display()
        );
        out.push((
            f.file_name().unwrap().to_string_lossy().into_owned(),
            packets,
        ));
    }
    out
}

/// A copy of configs/`name` in `dir` with `[capture] format` set.
pub fn config_with_format(dir: &Path, name: &str, format: &str) -> String {
    let text = std::fs::read_to_string(config(name)).unwrap();
    assert!(text.contains("[capture]"), "{name} has a [capture] table");
    let path = dir.join(format!("{format}-{name}"));
    std::fs::write(
        &path,
        text.replace("[capture]", &format!("[capture]\nformat = \"{format}\"")),
    )
    .unwrap();
    path.display().to_string()
}

/// Runs `mpinetsim run` on `ranks` ranks of configs/`net` at `factor`
/// with a report; returns the process output and the report (the run must
/// have written one).
pub fn run_with_report(
    ranks: &str,
    net: &str,
    factor: &str,
    program: &Path,
    prog_args: &[&str],
) -> (Output, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let args = ["-n", ranks, "--net", &config(net), "--time-factor", factor];
    let report = ["--report", rep.to_str().unwrap()];
    let o = run(&[&args[..], &report[..]].concat(), program, prog_args);
    let text = std::fs::read_to_string(&rep)
        .unwrap_or_else(|e| panic!("no report ({e}): {}", String::from_utf8_lossy(&o.stderr)));
    (o, serde_json::from_str(&text).unwrap())
}

/// Runs `prog` through mpinetsim on configs/ideal.toml at factor 1 on 2, 4
/// and 8 ranks and asserts each run succeeds and prints
/// "`name`: (checks_per_rank × ranks) checks passed": the programs whose
/// reference is the standard's rules rather than Debian's MPICH.
pub fn passes_its_checks_on_2_4_8(prog: &Path, name: &str, checks_per_rank: u64) {
    passes_its_checks_on(prog, name, checks_per_rank, &[2, 4, 8]);
}

/// [`passes_its_checks_on_2_4_8`] on the rank counts `ranks`.
pub fn passes_its_checks_on(prog: &Path, name: &str, checks_per_rank: u64, ranks: &[u64]) {
    for &ranks in ranks {
        let n = ranks.to_string();
        let args = [
            "-n",
            &n,
            "--net",
            &config("ideal.toml"),
            "--time-factor",
            "1",
        ];
        let o = run(&args, prog, &[]);
        let (out, err) = text(&o);
        let expected = format!("{name}: {} checks passed", checks_per_rank * ranks);
        assert!(
            o.status.success() && out.contains(&expected),
            "{name} on {ranks} ranks: {out}{err}"
        );
    }
}
