//! The ranks as processes, compared with Debian's hydra `mpiexec` where it
//! sets the standard: rank 0 reads mpinetsim's standard input; every line
//! a rank prints arrives whole (many ranks printing many lines, with and
//! without `--prefix`); Fortran output is unbuffered, so a stopped job
//! keeps it; ranks and the processes they fork never outlive the job, even
//! when mpinetsim is killed with SIGKILL; a program built against Open MPI
//! or not linked to MPI gets a sentence saying what to do.

mod common;

use common::*;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `mpinetsim run -n RANKS --net reference.toml EXTRA -- PROGRAM ARGS`
/// with `input` on its standard input.
fn run_with_input(
    ranks: &str,
    extra: &[&str],
    prog: &Path,
    args: &[&str],
    input: &[u8],
) -> std::process::Output {
    ensure_shim();
    let mut child = Command::new(bin())
        .args(["run", "-n", ranks, "--net", &config("reference.toml")])
        .args(extra)
        .arg("--")
        .arg(prog)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    o
}

#[test]
fn rank_0_reads_the_standard_input_as_under_mpiexec() {
    if skip_without_mpicc() || skip_without_mpiexec() {
        return;
    }
    let prog = build_c("stdin_sum", "mpicc");
    let input: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    let mut native = Command::new("mpiexec")
        .args(["-n", "3"])
        .arg(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    native
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let native = native.wait_with_output().unwrap();
    let ours = run_with_input("3", &[], &prog, &[], input.as_bytes());
    let (out, err) = text(&ours);
    assert!(ours.status.success(), "{err}");
    let want: Vec<String> = (0..3)
        .map(|r| format!("stdin_sum: rank {r}: 1000 lines, sum 500500"))
        .collect();
    assert_eq!(sorted_lines(&String::from_utf8_lossy(&native.stdout)), want);
    assert_eq!(sorted_lines(&out), want, "{err}");
}

/// Checks that `out` holds exactly `ranks` × `lines` whole lines of
/// many_lines (after `[rank] ` when `prefixed`); returns the number of
/// broken lines (0 when all is well) and the first of them.
fn broken_lines(out: &str, ranks: u32, lines: u64, prefixed: bool) -> (usize, Option<String>) {
    let mut seen = vec![0u64; ranks as usize];
    let mut broken = Vec::new();
    for l in out.lines() {
        let parsed = (|| {
            let (prefix_rank, rest) = if prefixed {
                let (p, r) = l.strip_prefix('[')?.split_once("] ")?;
                (Some(p.parse::<u32>().ok()?), r)
            } else {
                (None, l)
            };
            let f: Vec<&str> = rest.split(' ').collect();
            if f.len() != 10 || f[0] != "many_lines:" || f[1] != "rank" || f[3] != "line" {
                return None;
            }
            let rank: u32 = f[2].parse().ok()?;
            let i: u64 = f[4].parse().ok()?;
            let n: u64 = f[6].parse().ok()?;
            let pad_ok =
                f[7].len() as u64 == n && f[7].bytes().all(|b| b == b'a' + (rank % 26) as u8);
            let check = f[9].parse::<u64>().ok()? == (rank as u64 + i + n) % 10;
            (pad_ok && check && f[8] == "end" && prefix_rank.is_none_or(|p| p == rank))
                .then_some(rank)
        })();
        match parsed {
            Some(r) if (r as usize) < seen.len() => seen[r as usize] += 1,
            _ => broken.push(l.to_string()),
        }
    }
    let missing = seen.iter().filter(|&&n| n != lines).count();
    (broken.len() + missing, broken.into_iter().next())
}

#[test]
fn every_line_of_many_ranks_arrives_whole() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("many_lines", "mpicc");
    let (ranks, lines) = (8u32, 25_000u64);
    for prefixed in [false, true] {
        let extra: &[&str] = if prefixed { &["--prefix"] } else { &[] };
        let o = run_with_input(&ranks.to_string(), extra, &prog, &[&lines.to_string()], b"");
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let (broken, first) = broken_lines(&out, ranks, lines, prefixed);
        eprintln!(
            "--prefix {prefixed}: {} lines, {broken} broken",
            out.lines().count()
        );
        assert_eq!(
            broken, 0,
            "--prefix {prefixed}: first broken line {first:?}"
        );
    }
}

#[test]
fn fortran_output_survives_a_stopped_job() {
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    let prog = build("fortran_stopped", "f90", "mpif90");
    // Into a file, where gfortran buffers its output unless told not to.
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.txt");
    ensure_shim();
    let o = Command::new(bin())
        .args(["run", "-n", "2", "--net", &config("reference.toml"), "--"])
        .arg(&prog)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("rank 1 (pid "), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out_path).unwrap(),
        "fortran_stopped: rank 0 printed this before the job was stopped\n",
        "{err}"
    );
    // The ranks run with gfortran's unbuffered output, as under hydra.
    let o = Command::new(bin())
        .args(["run", "-n", "1", "--net", &config("reference.toml"), "--"])
        .args(["sh", "-c", "echo \"$GFORTRAN_UNBUFFERED_PRECONNECTED\""])
        .env_remove("GFORTRAN_UNBUFFERED_PRECONNECTED")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "y\n");
}

/// True when `pid` no longer runs (gone, or a zombie nobody reaped yet).
fn dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// The (rank, child) pids fork_and_spin wrote into `dir` for `ranks`
/// ranks, waiting up to 20 s for them, and the job's socket.
fn rank_pids(dir: &Path, ranks: u32) -> (Vec<i32>, std::path::PathBuf) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let files: Vec<String> = (0..ranks)
            .filter_map(|r| std::fs::read_to_string(dir.join(format!("rank-{r}"))).ok())
            .collect();
        if files.len() == ranks as usize {
            let pids = files
                .iter()
                .flat_map(|t| {
                    let first = t.lines().next().unwrap_or_default();
                    first.split_whitespace().map(|p| p.parse().unwrap())
                })
                .collect();
            let socket = files[0].lines().nth(1).unwrap_or_default();
            return (pids, socket.into());
        }
        assert!(Instant::now() < deadline, "the ranks did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn all_dead_within(pids: &[i32], limit: Duration) -> Vec<i32> {
    let deadline = Instant::now() + limit;
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|&p| !dead(p)).collect();
        if alive.is_empty() || Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ranks_and_their_children_die_with_a_killed_mpinetsim() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("fork_and_spin", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    ensure_shim();
    let mut job = Command::new(bin())
        .args(["run", "-n", "2", "--net", &config("reference.toml"), "--"])
        .arg(&prog)
        .arg(dir.path())
        .arg("spin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (pids, socket) = rank_pids(dir.path(), 2);
    let private = socket.parent().unwrap().to_path_buf();
    assert!(private.is_dir(), "{}", private.display());
    // The ranks compute outside MPI; their children sleep.
    assert!(pids.iter().all(|&p| !dead(p)));
    job.kill().unwrap(); // SIGKILL: mpinetsim cannot stop them itself
    job.wait().unwrap();
    let alive = all_dead_within(&pids, Duration::from_secs(3));
    assert!(
        alive.is_empty(),
        "still running after mpinetsim was killed: {alive:?}"
    );
    // The job's private folder did not outlive it either.
    let deadline = Instant::now() + Duration::from_secs(3);
    while private.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!private.exists(), "{} was left behind", private.display());
}

#[test]
fn children_a_rank_leaves_behind_end_with_the_job() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("fork_and_spin", "mpicc");
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        &["-n", "2", "--net", &config("reference.toml")],
        &prog,
        &[dir.path().to_str().unwrap(), "finalize"],
    );
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let (pids, _) = rank_pids(dir.path(), 2);
    let alive = all_dead_within(&pids, Duration::from_millis(500));
    assert!(alive.is_empty(), "outlived the job: {alive:?}");
}

#[test]
fn programs_of_open_mpi_or_without_mpi_get_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A library with Open MPI's name and a program that needs it (as
    // mpicc of Open MPI links it), and a plain C program.
    std::fs::write(d.join("lib.c"), "int ompi_stub(void) { return 0; }\n").unwrap();
    std::fs::write(
        d.join("prog.c"),
        "#include <stdio.h>\nint ompi_stub(void);\nint main(void) { FILE *f = fopen(\"ran\", \"w\"); if (f) fclose(f); return ompi_stub(); }\n",
    )
    .unwrap();
    std::fs::write(d.join("plain.c"), "int main(void) { return 0; }\n").unwrap();
    let cc = |args: &[&str]| {
        let o = Command::new("cc").current_dir(d).args(args).output();
        match o {
            Ok(o) if o.status.success() => true,
            Ok(o) => panic!("cc {args:?}: {}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => !skip_because(&format!("cannot run cc ({e}); apt-get install gcc")),
        }
    };
    if !(cc(&[
        "-shared",
        "-fPIC",
        "-Wl,-soname,libmpi.so.40",
        "-o",
        "libmpi.so",
        "lib.c",
    ]) && cc(&[
        "-o",
        "ompi_prog",
        "prog.c",
        "-L.",
        "-lmpi",
        "-Wl,-rpath,$ORIGIN",
    ]) && cc(&["-o", "plain", "plain.c"]))
    {
        return;
    }
    ensure_shim();
    let run_here = |program: &str| {
        Command::new(bin())
            .current_dir(d)
            .args(["run", "-n", "2", "--net", &config("reference.toml"), "--"])
            .arg(program)
            .output()
            .unwrap()
    };
    let started = Instant::now();
    let o = run_here("./ompi_prog");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        "mpinetsim: the program ./ompi_prog is built against Open MPI (it needs libmpi.so.40), but mpinetsim stands in for MPICH: rebuild it with Debian's mpicc or mpif90 (MPICH), e.g. `mpicc.mpich -o prog prog.c`"
    );
    assert!(!d.join("ran").exists(), "no rank was started");
    assert!(started.elapsed() < Duration::from_secs(5));

    let o = run_here("./plain");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let last = error_lines(&o);
    assert_eq!(last.len(), 1, "{err}");
    assert!(
        last[0].contains("exited with status 0 before completing MPI_Init; ./plain is not linked to an MPI library (none of the libraries it needs is libmpi.so.12): build it with Debian's mpicc or mpif90"),
        "{}",
        last[0]
    );
}
