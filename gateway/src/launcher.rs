//! Starting the ranks: the shim's library folder, each rank's environment,
//! input and output, and watching and stopping the processes and whatever
//! they start.

use crate::error::Error;
use crate::rank_output::{rank_pipe, OutputForwarder, PipeReader, Target};
use crate::rank_watchdog::{kill_groups, Watchdog};
use mpinetsim_protocol::{
    JobSecret, ENV_JOB, ENV_LAUNCHER_PID, ENV_RANK, ENV_SECRET, ENV_SIZE, ENV_SOCKET,
};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
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
pub fn locate_shim() -> Result<PathBuf, Error> {
    if let Ok(p) = std::env::var(ENV_SHIM_LIB) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::Usage(format!(
                "{ENV_SHIM_LIB} names {}, which is not a file; point it at libchannel_shim.so",
                p.display()
            )))
        };
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::internal(format!("cannot find the mpinetsim binary's folder: {e}")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for cand in [
        dir.join("libchannel_shim.so"),
        dir.join("../libchannel_shim.so"),
    ] {
        if cand.is_file() {
            return Ok(cand);
        }
    }
    Err(Error::Usage(format!(
        "the channel shim library libchannel_shim.so was not found next to {}; build it with `cargo build --release` (whole workspace) or set {ENV_SHIM_LIB}",
        exe.display()
    )))
}

/// Puts the shim into `dir` under the names MPICH programs load, and the
/// Fortran bindings ([`FORTRAN_LIB`]) under [`FORTRAN_NAMES`] when they
/// exist next to the shim (without them C programs still run). `dir` is
/// created (0700) when missing and must be a folder only this user can
/// write ([`crate::trusted_folder`]); `role` names it in that sentence.
/// Returns the folder's canonical path.
pub fn install_shim(shim: &Path, dir: &Path, role: &str) -> Result<PathBuf, Error> {
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
                return Err(Error::Usage(format!(
                    "{} already holds {name}, which mpinetsim did not put there; it never replaces your files: give an empty --lib-dir folder",
                    dir.display()
                )))
            }
            Err(e) => return Err(Error::Usage(format!("cannot check {}: {e}", link.display()))),
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
fn link_as(lib: &Path, dir: &Path, name: &str) -> Result<(), Error> {
    let target = lib.canonicalize().map_err(|e| {
        format!(
            "cannot resolve the shim library {}: {e}; rebuild the workspace or set {ENV_SHIM_LIB}",
            lib.display()
        )
    })?;
    let link = dir.join(name);
    let fresh = dir.join(format!(".{name}.{}.mpinetsim-tmp", std::process::id()));
    let _ = std::fs::remove_file(&fresh);
    std::os::unix::fs::symlink(&target, &fresh)
        .and_then(|()| std::fs::rename(&fresh, &link))
        .map_err(|e| {
            let _ = std::fs::remove_file(&fresh);
            Error::Usage(format!(
                "cannot create {}: {e}; check that the library folder is writable",
                link.display()
            ))
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
pub fn resolve_program(program: &str) -> Result<PathBuf, Error> {
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
            Err(Error::Usage(format!(
                "the program {program} is not executable; check the path after --"
            )))
        } else {
            Err(Error::Usage(format!(
                "the program {program} was not found; check the path after --"
            )))
        };
    }
    // A bare name is looked up on PATH as a shell would (the which crate:
    // the first executable file of that name).
    which::which(program).map_err(|_| {
        Error::Usage(format!(
            "the program {program} was not found on PATH; give its path after --"
        ))
    })
}

/// A launched rank.
pub struct RankProcess {
    /// Its rank.
    pub rank: u32,
    /// The process, leader of a process group of its own (same id).
    pub child: Child,
    /// Exit status once known. The process stays unreaped (a zombie)
    /// until the job ends, so its process group id cannot be reused by an
    /// unrelated process before the group is signalled.
    pub status: Option<ExitStatus>,
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
    /// Give mpinetsim's standard input to rank 0, as mpiexec does (the
    /// other ranks, and every rank when false, read an empty input).
    pub stdin_to_rank0: bool,
    /// Folder for the ranks' timeline spans, when recording a timeline.
    pub timeline_dir: Option<&'a Path>,
    /// Folder for the ranks' event streams, when recording a trace.
    pub record_dir: Option<&'a Path>,
    /// The job's private folder (removed by the watchdog should mpinetsim
    /// die).
    pub private_dir: &'a Path,
    /// The storage node's endpoint, told to the ranks (`[[storage]]`).
    pub storage_endpoint: Option<u32>,
    /// How the ranks reach the gateway.
    pub transport: mpinetsim_protocol::transport::TransportKind,
    /// `MPI_UNIVERSE_SIZE`, told to every rank.
    pub universe: u32,
}

/// Where the ranks' output goes, always line by line and whole (see
/// [`crate::rank_output`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RankOutput {
    /// To mpinetsim's own stdout and stderr.
    Inherit,
    /// To mpinetsim's stdout/stderr with `[rank] ` before every line.
    Prefix,
    /// Appended to this file, stdout and stderr alike (repeated runs,
    /// e.g. calibration).
    File(std::path::PathBuf),
}

/// The ranks of a job and what forwards their output and watches them.
pub struct Ranks {
    /// The processes, in rank order.
    pub procs: Vec<RankProcess>,
    output: Option<OutputForwarder>,
    watchdog: Option<Watchdog>,
    stopped: bool,
    /// How to start more (`MPI_Comm_spawn`); None for a standalone
    /// gateway's ranks.
    starter: Option<Starter>,
}

/// What every rank's start shares: the loader path, where output goes,
/// this process's id.
struct Starter {
    ld: std::ffi::OsString,
    out: Target,
    err: Target,
    launcher_pid: String,
}

/// One process to start: which program, as which rank, with what else.
pub struct RankStart<'a> {
    /// Its rank.
    pub rank: u32,
    /// Program path.
    pub program: &'a Path,
    /// Its arguments.
    pub args: &'a [String],
    /// Environment variables beyond every rank's.
    pub env: Vec<(&'static str, String)>,
    /// Working directory (None: mpinetsim's).
    pub dir: Option<&'a Path>,
}

/// Starts all ranks, each leading a process group of its own, with their
/// output forwarded line by line and a watchdog that kills them should
/// mpinetsim die. On failure the ranks already started are stopped.
pub fn launch(spec: &LaunchSpec) -> Result<Ranks, Error> {
    let mut ld = spec.lib_dir.as_os_str().to_owned();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        if !old.is_empty() {
            ld.push(":");
            ld.push(old);
        }
    }
    let file = match spec.output {
        RankOutput::File(path) => Some(Target::File(Arc::new(Mutex::new(open_output_file(path)?)))),
        _ => None,
    };
    let (out, err) = match &file {
        Some(f) => (f.clone(), f.clone()),
        None => (Target::Stdout, Target::Stderr),
    };
    let mut ranks = Ranks {
        procs: Vec::new(),
        output: Some(OutputForwarder::start()?),
        watchdog: Some(Watchdog::start(spec.private_dir)?),
        stopped: false,
        starter: Some(Starter {
            ld,
            out,
            err,
            launcher_pid: std::process::id().to_string(),
        }),
    };
    for rank in 0..spec.size {
        let start = RankStart {
            rank,
            program: spec.program,
            args: spec.args,
            env: Vec::new(),
            dir: None,
        };
        if let Err(e) = ranks.start(spec, &start) {
            ranks.stop();
            return Err(e);
        }
    }
    Ok(ranks)
}

impl Ranks {
    /// Starts one more rank (the job's own, or one `MPI_Comm_spawn` asked
    /// for), watched and with its output forwarded like the others; its
    /// process id.
    pub fn start(&mut self, spec: &LaunchSpec, start: &RankStart) -> Result<u32, Error> {
        let Some(starter) = &self.starter else {
            return Err(Error::Usage(
                "the ranks of this job are started by another launcher, so mpinetsim cannot start more (MPI_Comm_spawn); run the program with `mpinetsim run`".into(),
            ));
        };
        let (child, out_pipe, err_pipe) =
            start_rank(spec, start, &starter.ld, &starter.launcher_pid)?;
        let rank = start.rank;
        if let Some(w) = self.watchdog.as_mut() {
            w.watch(child.id());
        }
        let prefix = match spec.output {
            RankOutput::Prefix => format!("[{rank}] ").into_bytes(),
            _ => Vec::new(),
        };
        if let Some(o) = &self.output {
            o.add(out_pipe, prefix.clone(), starter.out.clone());
            o.add(err_pipe, prefix, starter.err.clone());
        }
        let pid = child.id();
        self.procs.push(RankProcess {
            rank,
            child,
            status: None,
        });
        Ok(pid)
    }
}

/// Starts one rank; its process and the forwarder's ends of its stdout
/// and stderr pipes.
fn start_rank(
    spec: &LaunchSpec,
    start: &RankStart,
    ld: &std::ffi::OsStr,
    launcher_pid: &str,
) -> Result<(Child, PipeReader, PipeReader), Error> {
    use std::os::unix::process::CommandExt;
    let rank = start.rank;
    let (out_w, out_r) = rank_pipe()?;
    let (err_w, err_r) = rank_pipe()?;
    let mut cmd = Command::new(start.program);
    cmd.args(start.args)
        .env("LD_LIBRARY_PATH", ld)
        .env(ENV_SOCKET, spec.socket)
        .env(ENV_RANK, rank.to_string())
        .env(ENV_SIZE, spec.size.to_string())
        .env(ENV_JOB, spec.job_id.to_string())
        .env(ENV_SECRET, spec.secret.to_hex())
        .env(ENV_LAUNCHER_PID, launcher_pid)
        .env(
            mpinetsim_protocol::transport::ENV_TRANSPORT,
            spec.transport.name(),
        )
        .env(
            mpinetsim_protocol::spawn::ENV_UNIVERSE,
            spec.universe.to_string(),
        )
        .envs(start.env.iter().map(|(k, v)| (k, v)))
        .stdin(if rank == 0 && spec.stdin_to_rank0 {
            rank0_stdin()?
        } else {
            Stdio::null()
        })
        .stdout(Stdio::from(out_w))
        .stderr(Stdio::from(err_w))
        .process_group(0);
    if let Some(dir) = start.dir {
        cmd.current_dir(dir);
    }
    // Fortran output reaches the terminal at once, also when the job is
    // stopped, as under Debian's hydra (unless the user chose otherwise).
    if std::env::var_os(GFORTRAN_UNBUFFERED).is_none() {
        cmd.env(GFORTRAN_UNBUFFERED, "y");
    }
    if let Some(dir) = spec.timeline_dir {
        cmd.env(mpinetsim_protocol::ENV_TIMELINE_DIR, dir);
    }
    if let Some(dir) = spec.record_dir {
        cmd.env(mpinetsim_protocol::trace::ENV_RECORD_DIR, dir);
    }
    if let Some(e) = spec.storage_endpoint {
        cmd.env(
            mpinetsim_protocol::storage::ENV_STORAGE_ENDPOINT,
            e.to_string(),
        );
    }
    let child = cmd.spawn().map_err(|e| {
        let sentence = format!(
            "cannot start rank {rank} ({}): {e}",
            start.program.display()
        );
        spawn_error(&e, sentence)
    })?;
    // `cmd` holds the pipes' writing ends until it is dropped here: then
    // only the rank has them, and its exit ends the streams.
    drop(cmd);
    Ok((child, out_r, err_r))
}

/// gfortran's switch for unbuffered standard output and error.
const GFORTRAN_UNBUFFERED: &str = "GFORTRAN_UNBUFFERED_PRECONNECTED";

/// Rank 0's standard input: mpinetsim's own. A file or a pipe is passed
/// on as it is; a terminal is copied through a pipe by a thread (the rank
/// is in a process group of its own, which may not read the terminal),
/// and only while mpinetsim runs in the foreground (else its reads would
/// stop it); otherwise rank 0 reads an empty input.
fn rank0_stdin() -> Result<Stdio, Error> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Ok(Stdio::inherit());
    }
    let foreground =
        nix::unistd::tcgetpgrp(std::io::stdin()).is_ok_and(|g| g == nix::unistd::getpgrp());
    if !foreground {
        return Ok(Stdio::null());
    }
    let (read_end, write_end) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| Error::internal(format!("cannot create a pipe for rank 0's input: {e}")))?;
    std::thread::Builder::new()
        .name("rank0-stdin".into())
        .spawn(move || {
            let mut to_rank = std::fs::File::from(write_end);
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_rank);
        })
        .map_err(|e| {
            Error::internal(format!(
                "cannot start the thread that passes input to rank 0: {e}"
            ))
        })?;
    Ok(Stdio::from(read_end))
}

/// A rank that could not be started: the program's fault (not found, not
/// executable, not a program: usage) or the system's (out of processes,
/// memory or descriptors: internal).
fn spawn_error(e: &std::io::Error, sentence: String) -> Error {
    use std::io::ErrorKind;
    let programs_fault = matches!(
        e.kind(),
        ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::InvalidInput
    ) || e.raw_os_error() == Some(nix::libc::ENOEXEC);
    if programs_fault {
        Error::Usage(sentence)
    } else {
        Error::Internal(sentence)
    }
}

/// Opens the ranks' output file for appending (created private).
fn open_output_file(path: &Path) -> Result<std::fs::File, Error> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| {
            Error::Usage(format!(
                "cannot write the ranks' output to {}: {e}; choose a writable path",
                path.display()
            ))
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

/// The exit status of `child` if it has ended, without reaping it.
fn peek_exit(child: &Child) -> Option<ExitStatus> {
    use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
    use std::os::unix::process::ExitStatusExt;
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    match waitid(Id::Pid(Pid::from_raw(child.id() as i32)), flags) {
        Ok(WaitStatus::Exited(_, code)) => Some(ExitStatus::from_raw((code & 0xff) << 8)),
        Ok(WaitStatus::Signaled(_, sig, core)) => Some(ExitStatus::from_raw(
            sig as i32 | if core { 0x80 } else { 0 },
        )),
        _ => None,
    }
}

/// True while some process of one of `groups` is alive (not a zombie),
/// from /proc.
fn any_alive_in(groups: &[i32]) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // pid (comm) state ppid pgrp ...; comm may hold spaces.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            return false;
        };
        let mut f = rest.split_whitespace();
        let (state, _ppid, pgrp) = (f.next(), f.next(), f.next());
        state != Some("Z")
            && pgrp
                .and_then(|g| g.parse().ok())
                .is_some_and(|g| groups.contains(&g))
    })
}

impl Ranks {
    /// No ranks (a standalone gateway's launcher starts them).
    pub fn none() -> Ranks {
        Ranks {
            procs: Vec::new(),
            output: None,
            watchdog: None,
            stopped: false,
            starter: None,
        }
    }

    /// Notes the exit of ranks that ended; returns the newly ended ones.
    pub fn reap(&mut self) -> Vec<(u32, ExitStatus)> {
        let mut ended = Vec::new();
        for p in self.procs.iter_mut().filter(|p| p.status.is_none()) {
            if let Some(st) = peek_exit(&p.child) {
                p.status = Some(st);
                ended.push((p.rank, st));
            }
        }
        ended
    }

    /// Waits up to `limit` for every rank to exit by itself.
    pub fn wait_for_exit(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.procs.iter().any(|p| p.status.is_none()) && Instant::now() < deadline {
            self.reap();
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Ends the job's processes: SIGTERM to every rank's process group
    /// (the ranks still running and whatever any rank left behind), SIGKILL
    /// to them after at most 1 s; then collects the exit statuses, forwards
    /// the last output and ends the watchdog. Only the first call acts
    /// (after it the processes are reaped and their ids may be reused).
    pub fn stop(&mut self) {
        use nix::sys::signal::Signal;
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let groups: Vec<i32> = self.procs.iter().map(|p| p.child.id() as i32).collect();
        kill_groups(&groups, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline && any_alive_in(&groups) {
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_groups(&groups, Signal::SIGKILL);
        for p in &mut self.procs {
            if let Ok(st) = p.child.wait() {
                p.status.get_or_insert(st);
            }
        }
        if let Some(o) = self.output.take() {
            o.finish(Duration::from_secs(1));
        }
        if let Some(w) = self.watchdog.take() {
            w.finish();
        }
    }
}

impl Drop for Ranks {
    /// A job that ends early (an error after launch) never leaves ranks.
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_the_program_cannot_start_is_usage_one_the_system_cannot_start_is_internal() {
        use nix::libc::{EACCES, EAGAIN, EMFILE, ENOENT, ENOEXEC, ENOMEM};
        let code =
            |errno| spawn_error(&std::io::Error::from_raw_os_error(errno), "s".into()).exit_code();
        for errno in [ENOENT, EACCES, ENOEXEC] {
            assert_eq!(code(errno), crate::exit_code::USAGE, "errno {errno}");
        }
        for errno in [EAGAIN, ENOMEM, EMFILE] {
            assert_eq!(code(errno), crate::exit_code::INTERNAL, "errno {errno}");
        }
    }

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
            let e = install_shim(&shim, dir.path(), "the --lib-dir folder")
                .unwrap_err()
                .to_string();
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
