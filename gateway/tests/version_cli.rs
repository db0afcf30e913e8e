//! `mpinetsim --version`: the release, the git commit of the build, the
//! protocol version and the MPICH ABI the shim stands in for — the last
//! compared with Debian's MPICH as `mpichversion` reports it.

mod common;

use common::{bin, skip_without};
use std::process::Command;

#[test]
fn version_names_the_commit_the_protocol_and_the_mpich_abi() {
    let o = Command::new(bin()).arg("--version").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with(&format!("mpinetsim {} (git ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    // The commit of this checkout (the test runs in the repository).
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    if head.status.success() {
        let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
        assert!(
            lines[0].contains(&format!("(git {head}")),
            "{text} vs {head}"
        );
    }
    assert_eq!(
        lines[1],
        format!("protocol version {}", mpinetsim_protocol::VERSION)
    );
    assert!(
        lines[2].starts_with("MPICH ABI: libmpi.so.12 (MPICH "),
        "{text}"
    );
    if skip_without("mpichversion", "-v", "mpich") {
        return;
    }
    let mpich = Command::new("mpichversion").output().unwrap();
    let mpich = String::from_utf8_lossy(&mpich.stdout);
    let installed = (mpich.lines())
        .find_map(|l| l.strip_prefix("MPICH Version:"))
        .map(str::trim)
        .expect("mpichversion names its version");
    assert!(
        lines[2].contains(&format!("(MPICH {installed}, ")),
        "{text} vs the installed MPICH {installed}"
    );
}
