//! Ranks never outlive `mpinetsim run`, even when it is killed with
//! SIGKILL and cannot stop them itself. Every rank leads a process group
//! of its own (so the children it forks can be found), and a small
//! watchdog process — `mpinetsim` itself, started with a hidden command,
//! in a process group of its own so a signal to mpinetsim's group does not
//! reach it — reads the groups' ids from a pipe. When the pipe closes,
//! because the job ended or because mpinetsim died, the watchdog kills
//! every group with SIGKILL and exits; when mpinetsim died (it did not say
//! `done` first), the watchdog also removes the job's private folder, which
//! mpinetsim can no longer remove itself. (Ranks also die with mpinetsim
//! directly: the shim asks the kernel for SIGKILL when its parent dies,
//! `PR_SET_PDEATHSIG`.) A process that leaves its group (`setsid`) is out
//! of reach.

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

/// The hidden subcommand that runs the watchdog.
pub const COMMAND: &str = "rank-watchdog";

/// The watchdog, seen from `mpinetsim run`.
pub struct Watchdog {
    child: Child,
    pipe: Option<ChildStdin>,
}

impl Watchdog {
    /// Starts the watchdog for a job whose private folder is
    /// `private_dir`; one sentence when it cannot start.
    pub fn start(private_dir: &std::path::Path) -> Result<Watchdog, crate::error::Error> {
        use std::os::unix::process::CommandExt;
        // /proc/self/exe: this very binary, even if its file was replaced
        // since it started.
        let mut child = Command::new("/proc/self/exe")
            .arg(COMMAND)
            .arg(private_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| {
                crate::error::Error::internal(format!(
                    "cannot start the watchdog that stops the ranks if mpinetsim dies: {e}"
                ))
            })?;
        let pipe = child.stdin.take();
        Ok(Watchdog { child, pipe })
    }

    /// Tells the watchdog about a rank's process group.
    pub fn watch(&mut self, pgid: u32) {
        if let Some(p) = self.pipe.as_mut() {
            let _ = writeln!(p, "{pgid}").and_then(|()| p.flush());
        }
    }

    /// Ends the watchdog: it kills what is left of the groups and exits,
    /// leaving the private folder to mpinetsim.
    pub fn finish(mut self) {
        if let Some(mut p) = self.pipe.take() {
            let _ = writeln!(p, "{DONE}").and_then(|()| p.flush());
        }
        let _ = self.child.wait();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if self.pipe.take().is_some() {
            let _ = self.child.wait();
        }
    }
}

/// The line mpinetsim sends when it ends the job itself.
const DONE: &str = "done";

/// The watchdog process: collects process group ids, one per line, until
/// its input closes; then kills each group, removes `private_dir` unless
/// mpinetsim said it was done, and returns the exit code.
pub fn serve(private_dir: &std::path::Path) -> i32 {
    let mut groups = Vec::new();
    let mut done = false;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match line.trim() {
            DONE => done = true,
            l => {
                if let Ok(pgid) = l.parse::<i32>() {
                    if pgid > 1 {
                        groups.push(pgid);
                    }
                }
            }
        }
    }
    kill_groups(&groups, nix::sys::signal::Signal::SIGKILL);
    let ours = private_dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("mpinetsim-"));
    if !done && ours {
        let _ = std::fs::remove_dir_all(private_dir);
    }
    0
}

/// Sends `signal` to every process of each group.
pub fn kill_groups(groups: &[i32], signal: nix::sys::signal::Signal) {
    for &g in groups {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(g), signal);
    }
}
