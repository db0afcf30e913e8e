//! Helpers shared by the channel shim's integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

#[path = "../../../gateway/tests/common/prerequisites.rs"]
mod prerequisites;
pub use prerequisites::skip_because;

/// True when `program` is found on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// `libchannel_shim.so` in the profile folder this test binary was built
/// into (`<target>/<profile>/deps/<test>` -> `<target>/<profile>/`).
pub fn shim_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let profile = if deps.ends_with("deps") {
        deps.parent().unwrap()
    } else {
        deps
    };
    let lib = profile.join("libchannel_shim.so");
    assert!(
        lib.is_file(),
        "{} not found; build the workspace first (cargo build --workspace)",
        lib.display()
    );
    lib
}
