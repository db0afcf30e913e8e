//! Starting the ranks: the shim's library folder, each rank's environment,
//! output forwarding, and watching and stopping the processes.

use mpinetsim_protocol::{JobSecret, ENV_JOB, ENV_RANK, ENV_SECRET, ENV_SIZE, ENV_SOCKET};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Environment variable naming the shim library to use instead of the one
/// built next to the `mpinetsim` binary.
pub const ENV_SHIM_LIB: &str = "MPINETSIM_SHIM_LIB";

/// File names Debian's MPICH C programs ask the loader for.
pub const SHIM_NAMES: [&str; 2] = ["libmpich.so.12", "libmpi.so.12"];

/// The shim's Fortran bindings, looked for next to the shim library.
pub const FORTRAN_LIB: &str = "libchannel_shim_fortran.so";

/// File names Debian's MPICH Fortran programs ask the loader for.
pub const FORTRAN_NAMES: [&str; 2] = ["libmpichfort.so.12", "libmpifort.so.12"];

/// Finds the channel shim library: `$MPINETSIM_SHIM_LIB`, or
/// `libchannel_shim.so` beside the running `mpinetsim`.
pub fn locate_shim() -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var(ENV_SHIM_LIB) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "{ENV_SHIM_LIB} names {}, which is not a file; point it at libchannel_shim.so",
                p.display()
            ))
        };
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the mpinetsim binary's folder: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for cand in [
        dir.join("libchannel_shim.so"),
        dir.join("../libchannel_shim.so"),
    ] {
        if cand.is_file() {
            return Ok(cand);
        }
    }
    Err(format!(
        "the channel shim library libchannel_shim.so was not found next to {}; build it with `cargo build --release` (whole workspace) or set {ENV_SHIM_LIB}",
        exe.display()
    ))
}

/// Puts the shim into `dir` under the names MPICH programs load, and the
/// Fortran bindings ([`FORTRAN_LIB`]) under [`FORTRAN_NAMES`] when they
/// exist next to the shim (without them C programs still run). `dir` is
/// created (0700) when missing and must be a folder only this user can
/// write ([`crate::trusted_folder`]); `role` names it in that sentence.
/// Returns the folder's canonical path.
pub fn install_shim(shim: &Path, dir: &Path, role: &str) -> Result<PathBuf, String> {
    crate::trusted_folder::create_private_dir_all(dir)?;
    let dir = crate::trusted_folder::check_trusted(dir, role)?;
    let mut links: Vec<(&Path, &str)> = SHIM_NAMES.iter().map(|n| (shim, *n)).collect();
    let fortran = shim.parent().unwrap_or(Path::new(".")).join(FORTRAN_LIB);
    if fortran.is_file() {
        links.extend(FORTRAN_NAMES.iter().map(|n| (fortran.as_path(), *n)));
    }
    // Every name is checked before any link is made.
    for (_, name) in &links {
        let link = dir.join(name);
        match std::fs::symlink_metadata(&link) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Ok(m) if m.file_type().is_symlink() && is_shim_link(&link) => {}
            Ok(_) => {
                return Err(format!(
                    "{} already holds {name}, which mpinetsim did not put there; it never replaces your files: give an empty --lib-dir folder",
                    dir.display()
                ))
            }
            Err(e) => return Err(format!("cannot check {}: {e}", link.display())),
        }
    }
    for (lib, name) in links {
        link_as(lib, &dir, name)?;
    }
    Ok(dir)
}

/// Symlinks `dir/name` to `lib`, replacing mpinetsim's own link in one
/// step: a rank starting meanwhile finds the old link or the new one,
/// never none.
fn link_as(lib: &Path, dir: &Path, name: &str) -> Result<(), String> {
    let target = lib
        .canonicalize()
        .map_err(|e| format!("cannot resolve {}: {e}", lib.display()))?;
    let link = dir.join(name);
    let fresh = dir.join(format!(".{name}.{}.mpinetsim-tmp", std::process::id()));
    let _ = std::fs::remove_file(&fresh);
    std::os::unix::fs::symlink(&target, &fresh)
        .and_then(|()| std::fs::rename(&fresh, &link))
        .map_err(|e| {
            let _ = std::fs::remove_file(&fresh);
            format!("cannot create {}: {e}", link.display())
        })
}

/// True for a symbolic link to a file named like the shim's libraries
/// (`libchannel_shim.so`, `libchannel_shim_fortran.so`): one mpinetsim made.
fn is_shim_link(link: &Path) -> bool {
    std::fs::read_link(link).is_ok_and(|t| {
        t.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("libchannel_shim") && n.ends_with(".so"))
    })
}

/// Resolves the program as a shell would: a path if it has a slash, else a
/// search of PATH. The error is one sentence.
pub fn resolve_program(program: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &Path| {
        p.is_file()
            && p.metadata()
                .map(|m| m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return if is_exec(&p) {
            Ok(p)
        } else if p.exists() {
            Err(format!(
                "the program {program} is not executable; check the path after --"
            ))
        } else {
            Err(format!(
                "the program {program} was not found; check the path after --"
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| is_exec(p))
        .ok_or_else(|| {
            format!("the program {program} was not found on PATH; give its path after --")
        })
}

/// A launched rank.
pub struct RankProcess {
    /// Its rank.
    pub rank: u32,
    /// The process.
    pub child: Child,
    /// Exit status once known.
    pub status: Option<ExitStatus>,
    forwarders: Vec<std::thread::JoinHandle<()>>,
}

/// Everything a rank needs to find the gateway.
pub struct LaunchSpec<'a> {
    /// Program path.
    pub program: &'a Path,
    /// Its arguments.
    pub args: &'a [String],
    /// Folder with libmpich.so.12.
    pub lib_dir: &'a Path,
    /// Gateway socket.
    pub socket: &'a Path,
    /// Ranks.
    pub size: u32,
    /// Job id.
    pub job_id: u64,
    /// Job secret.
    pub secret: JobSecret,
    /// Where the ranks' stdout and stderr go.
    pub output: &'a RankOutput,
    /// Folder for the ranks' timeline spans, when recording a timeline.
    pub timeline_dir: Option<&'a Path>,
}

/// Where the ranks' output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RankOutput {
    /// Straight to mpinetsim's own stdout and stderr.
    Inherit,
    /// To mpinetsim's stdout/stderr with "[rank] " before every line.
    Prefix,
    /// Appended to this file (repeated runs, e.g. calibration).
    File(std::path::PathBuf),
}

/// Starts all ranks.
pub fn launch(spec: &LaunchSpec) -> Result<Vec<RankProcess>, String> {
    let mut ld = spec.lib_dir.as_os_str().to_owned();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        if !old.is_empty() {
            ld.push(":");
            ld.push(old);
        }
    }
    let mut procs = Vec::new();
    for rank in 0..spec.size {
        let mut cmd = Command::new(spec.program);
        cmd.args(spec.args)
            .env("LD_LIBRARY_PATH", &ld)
            .env(ENV_SOCKET, spec.socket)
            .env(ENV_RANK, rank.to_string())
            .env(ENV_SIZE, spec.size.to_string())
            .env(ENV_JOB, spec.job_id.to_string())
            .env(ENV_SECRET, spec.secret.to_hex())
            .stdin(Stdio::null());
        if let Some(dir) = spec.timeline_dir {
            cmd.env(mpinetsim_protocol::ENV_TIMELINE_DIR, dir);
        }
        match spec.output {
            RankOutput::Inherit => {}
            RankOutput::Prefix => {
                cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            }
            RankOutput::File(path) => {
                let open = || {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                        .map_err(|e| {
                            format!("cannot write the ranks' output to {}: {e}", path.display())
                        })
                };
                cmd.stdout(open()?).stderr(open()?);
            }
        }
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                let mut procs = procs;
                stop_all(&mut procs);
                return Err(format!(
                    "cannot start rank {rank} ({}): {e}",
                    spec.program.display()
                ));
            }
        };
        let mut forwarders = Vec::new();
        let mut spawned = Ok(());
        if spec.output == &RankOutput::Prefix {
            let streams = [
                child.stdout.take().map(|s| forward(s, rank, false)),
                child.stderr.take().map(|s| forward(s, rank, true)),
            ];
            for f in streams.into_iter().flatten() {
                match f {
                    Ok(h) => forwarders.push(h),
                    Err(e) => spawned = Err(e),
                }
            }
        }
        procs.push(RankProcess {
            rank,
            child,
            status: None,
            forwarders,
        });
        if let Err(e) = spawned {
            stop_all(&mut procs);
            join_forwarders(&mut procs);
            return Err(format!(
                "cannot start a thread to forward rank {rank}'s output for --prefix ({e}); the ranks started were stopped; raise the process or memory limits (ulimit -u, ulimit -v) or run without --prefix"
            ));
        }
    }
    Ok(procs)
}

/// Starts a thread copying `stream` to mpinetsim's stdout or stderr with
/// "[rank] " before every line; an error when no thread can be started.
fn forward(
    stream: impl std::io::Read + Send + 'static,
    rank: u32,
    to_stderr: bool,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("rank {rank} output"))
        .spawn(move || {
            let reader = BufReader::new(stream);
            for line in reader.split(b'\n').map_while(Result::ok) {
                let mut out: Box<dyn Write> = if to_stderr {
                    Box::new(std::io::stderr())
                } else {
                    Box::new(std::io::stdout())
                };
                let _ = out.write_all(format!("[{rank}] ").as_bytes());
                let _ = out.write_all(&line);
                let _ = out.write_all(b"\n");
                let _ = out.flush();
            }
        })
}

/// Describes how a process ended, in words.
pub fn describe(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        let name = nix::sys::signal::Signal::try_from(sig)
            .map(|s| s.as_str().to_string())
            .unwrap_or(format!("signal {sig}"));
        format!("was killed by {name}")
    } else {
        format!("exited with status {}", status.code().unwrap_or(-1))
    }
}

/// Collects exit statuses of processes that ended; returns newly ended ones.
pub fn reap(procs: &mut [RankProcess]) -> Vec<(u32, ExitStatus)> {
    let mut ended = Vec::new();
    for p in procs.iter_mut().filter(|p| p.status.is_none()) {
        if let Ok(Some(st)) = p.child.try_wait() {
            p.status = Some(st);
            ended.push((p.rank, st));
        }
    }
    ended
}

/// Stops every rank still running: SIGTERM, then SIGKILL after 1 s.
pub fn stop_all(procs: &mut [RankProcess]) {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    for p in procs.iter().filter(|p| p.status.is_none()) {
        let _ = kill(Pid::from_raw(p.child.id() as i32), Signal::SIGTERM);
    }
    let start = Instant::now();
    while procs.iter().any(|p| p.status.is_none()) && start.elapsed() < Duration::from_secs(1) {
        reap(procs);
        std::thread::sleep(Duration::from_millis(10));
    }
    for p in procs.iter_mut().filter(|p| p.status.is_none()) {
        let _ = p.child.kill();
        if let Ok(st) = p.child.wait() {
            p.status = Some(st);
        }
    }
}

/// Waits for the output forwarders to drain.
pub fn join_forwarders(procs: &mut [RankProcess]) {
    for p in procs.iter_mut() {
        for h in p.forwarders.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_shim_links_the_fortran_library_only_when_it_exists() {
        let libs = tempfile::tempdir().unwrap();
        let shim = libs.path().join("libchannel_shim.so");
        std::fs::write(&shim, b"c").unwrap();

        let job = tempfile::tempdir().unwrap();
        install_shim(&shim, job.path(), "x").unwrap();
        for name in SHIM_NAMES {
            assert_eq!(std::fs::read(job.path().join(name)).unwrap(), b"c");
        }
        for name in FORTRAN_NAMES {
            assert!(!job.path().join(name).exists(), "{name}");
        }

        std::fs::write(libs.path().join(FORTRAN_LIB), b"fortran").unwrap();
        install_shim(&shim, job.path(), "x").unwrap();
        for name in FORTRAN_NAMES {
            assert_eq!(std::fs::read(job.path().join(name)).unwrap(), b"fortran");
        }
    }

    #[test]
    fn the_users_own_libraries_are_never_replaced() {
        let libs = tempfile::tempdir().unwrap();
        let shim = libs.path().join("libchannel_shim.so");
        std::fs::write(&shim, b"c").unwrap();
        for name in SHIM_NAMES.iter().chain(&FORTRAN_NAMES) {
            let dir = tempfile::tempdir().unwrap();
            let mine = dir.path().join(name);
            std::fs::write(&mine, b"the user's own MPICH").unwrap();
            std::fs::write(libs.path().join(FORTRAN_LIB), b"fortran").unwrap();
            let e = install_shim(&shim, dir.path(), "the --lib-dir folder").unwrap_err();
            assert!(
                e.contains(&format!(
                    "already holds {name}, which mpinetsim did not put there"
                )),
                "{e}"
            );
            assert_eq!(std::fs::read(&mine).unwrap(), b"the user's own MPICH");
            // A symbolic link of the user's own is refused too.
            std::fs::remove_file(&mine).unwrap();
            std::os::unix::fs::symlink("/usr/lib/libmpich.so.12.1", &mine).unwrap();
            assert!(install_shim(&shim, dir.path(), "x").is_err());
            assert_eq!(
                std::fs::read_link(&mine).unwrap(),
                Path::new("/usr/lib/libmpich.so.12.1")
            );
        }
    }
}
