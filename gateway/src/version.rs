//! What `mpinetsim --version` says: the release, the git commit it was
//! built from, the version of the protocol between the shim and the
//! gateway (a shim and a gateway must speak the same one), and the MPICH
//! ABI the shim stands in for (programs built with that MPICH's `mpicc`
//! load it).

use std::sync::LazyLock;

/// The MPICH release whose `mpi.h` and libraries the shim reproduces
/// (Debian's; `channel-shim/src/abi/constants.rs` is checked against its
/// header).
pub const MPICH_VERSION: &str = "4.0.2";

/// The sonames the shim is installed under (`libmpi.so.12`), naming the
/// ABI.
pub const MPICH_SONAME: &str = crate::launcher::SHIM_NAMES[1];

/// The git commit of this build (`unknown` outside a git checkout;
/// `-modified` when tracked files differed from it).
pub const GIT_COMMIT: &str = env!("MPINETSIM_GIT_COMMIT");

/// The text of `--version`.
pub static LONG_VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (git {GIT_COMMIT})\nprotocol version {}\nMPICH ABI: {MPICH_SONAME} (MPICH {MPICH_VERSION}, MPI 4.0)",
        env!("CARGO_PKG_VERSION"),
        mpinetsim_protocol::VERSION,
    )
});
