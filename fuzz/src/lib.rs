//! Fuzz harnesses for every input mpinetsim reads from someone else: the
//! network file (TOML), the xSim thesis's one-line network string, `--fault`
//! specifications, the framed wire protocol between shim and gateway, the
//! MPI envelope a rank receives from its peers, the shim's datatype
//! engine (whose constructors take the program's counts, strides and
//! displacements), and the record/replay trace file.
//!
//! Each harness takes arbitrary bytes, drives one entry point, and panics
//! only when an invariant breaks: a panic inside the code under test, an
//! error that is not one sentence, a round trip that changes a value, a
//! simulation whose clock runs backwards or that corrupts a message.
//! `cargo fuzz run --features libfuzzer TARGET` runs one under libFuzzer
//! (`fuzz/run.sh` runs them all for a bounded time, as CI does); the
//! regression test (`tests/regressions.rs`) replays the seeds and every
//! input that once failed, so a fixed crash stays fixed.

mod datatypes;
mod network;
mod trace;
mod wire;

pub use datatypes::datatypes;
pub use network::{fault_spec, network_string, network_toml};
pub use trace::trace;
pub use wire::{envelope, protocol_frames};

/// A harness: takes the fuzzer's bytes, panics when an invariant breaks.
pub type Harness = fn(&[u8]);

/// Every target: its name (the `fuzz_targets/` file and the folder of its
/// seeds and regressions) and its harness.
pub const TARGETS: &[(&str, Harness)] = &[
    ("network_toml", network_toml),
    ("network_string", network_string),
    ("fault_spec", fault_spec),
    ("protocol_frames", protocol_frames),
    ("envelope", envelope),
    ("datatypes", datatypes),
    ("trace", trace),
];

/// Asserts that a user-facing error is one sentence on one line, as the
/// project promises for bad input.
fn assert_one_sentence(what: &str, msg: &str) {
    assert!(!msg.trim().is_empty(), "{what}: empty error message");
    assert!(
        !msg.contains('\n'),
        "{what}: error message spans several lines: {msg:?}"
    );
}
