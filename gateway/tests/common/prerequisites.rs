//! What a test needs from the machine (mpicc, tshark, root, network
//! namespaces). Outside CI a missing prerequisite skips the test with a
//! line saying so; in CI (`CI` set) or with `MPINETSIM_REQUIRE_ALL=1` it
//! fails the test, so a test can never pass by not running. Shared by the
//! gateway's and the channel shim's integration tests.

#![allow(dead_code)]

/// True when every test must run: `CI` is set (to anything but empty,
/// `0` or `false`) or `MPINETSIM_REQUIRE_ALL=1`.
pub fn all_required() -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .map(|v| !matches!(v.trim(), "" | "0" | "false"))
            .unwrap_or(false)
    };
    set("CI") || set("MPINETSIM_REQUIRE_ALL")
}

/// A test cannot run because of `why` (what is missing and how to get
/// it): fails the test when [`all_required`], else prints `SKIPPED: why`
/// and returns true, for `if skip_because(..) { return; }`.
pub fn skip_because(why: &str) -> bool {
    assert!(
        !all_required(),
        "a prerequisite of this test is missing: {why} (CI or MPINETSIM_REQUIRE_ALL=1 requires every test to run)"
    );
    eprintln!("SKIPPED: {why}");
    true
}
