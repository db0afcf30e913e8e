//! A second local user, for tests of what another user of a shared machine
//! can do to a job. Created with `useradd` when the tests run as root (as
//! they do in CI); elsewhere the tests that need one are skipped, and in
//! CI a missing prerequisite fails them (see `skip_because`).

use super::skip_because;
use std::process::Command;

/// The user's name.
pub const NAME: &str = "mpinetsim-other";

/// Another local user: no home, no login shell, no supplementary groups.
pub struct OtherUser {
    /// Its user id.
    pub uid: u32,
    /// Its primary group.
    pub gid: u32,
}

fn id(flag: &str) -> Option<u32> {
    let o = Command::new("id").args([flag, NAME]).output().ok()?;
    String::from_utf8_lossy(&o.stdout).trim().parse().ok()
}

/// The other user, created when missing; None (after saying why) when
/// this process cannot create or become it.
pub fn other_user() -> Option<OtherUser> {
    if !nix::unistd::geteuid().is_root() {
        skip_because(
            "tests playing another local user need root to create one (run the tests as root)",
        );
        return None;
    }
    if id("-u").is_none() {
        // Another test process may create it at the same moment: its
        // "already exists" is fine, the id below decides.
        let _ = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(NAME)
            .output();
    }
    match (id("-u"), id("-g")) {
        (Some(uid), Some(gid)) if Command::new("setpriv").arg("--version").output().is_ok() => {
            Some(OtherUser { uid, gid })
        }
        _ => {
            skip_because(&format!(
                "cannot create the local user {NAME} or run commands as it (needs useradd and setpriv: apt-get install passwd util-linux)"
            ));
            None
        }
    }
}

impl OtherUser {
    /// `program` run as this user, with no supplementary groups.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("setpriv");
        c.arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .args(["--clear-groups", "--"])
            .arg(program);
        c
    }
}
