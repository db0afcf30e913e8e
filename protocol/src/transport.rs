//! Which transport a rank on the gateway's host uses: the Unix socket, or
//! shared-memory rings set up over it (the `mpinetsim-shm` crate). Ranks
//! reaching the gateway over TCP always use the socket.

/// Environment variable: `shm` or `socket`; set by `mpinetsim run` from
/// `--transport` for its ranks, read by the shim and, as the default of
/// `--transport`, by `mpinetsim` itself.
pub const ENV_TRANSPORT: &str = "MPINETSIM_TRANSPORT";

/// A rank's transport to the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// Frames over the Unix (or TCP) socket.
    Socket,
    /// Frames through shared-memory rings; the Unix socket only carries
    /// the rings' descriptors and tells either side the other is gone.
    Shm,
}

impl TransportKind {
    /// The transport used when none is chosen: shared memory, whose
    /// round trip through shim and gateway is several times shorter
    /// (docs/performance.md, "Shared memory against the socket").
    pub const DEFAULT: TransportKind = TransportKind::Shm;

    /// Its name on the command line and in [`ENV_TRANSPORT`].
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Socket => "socket",
            TransportKind::Shm => "shm",
        }
    }

    /// Parses a name; the error is one sentence.
    pub fn parse(s: &str) -> Result<TransportKind, String> {
        match s {
            "socket" => Ok(TransportKind::Socket),
            "shm" => Ok(TransportKind::Shm),
            other => Err(format!(
                "{ENV_TRANSPORT}={other:?} is neither `shm` nor `socket`"
            )),
        }
    }

    /// The transport [`ENV_TRANSPORT`] names, or the default when it is
    /// unset or empty.
    pub fn from_env() -> Result<TransportKind, String> {
        match std::env::var(ENV_TRANSPORT) {
            Ok(v) if !v.is_empty() => TransportKind::parse(&v),
            _ => Ok(TransportKind::DEFAULT),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_others_are_refused_with_a_sentence() {
        for k in [TransportKind::Socket, TransportKind::Shm] {
            assert_eq!(TransportKind::parse(k.name()), Ok(k));
        }
        assert!(TransportKind::parse("rdma")
            .unwrap_err()
            .contains("neither"));
    }
}
