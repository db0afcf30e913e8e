//! The process-wide runtime: the connection to the gateway, scaled real
//! time, and the time-factor sleep accounting around MPI calls.

/// Ends the job because of an error the program cannot recover from:
/// prints `mpinetsim: <message>` (one line) to stderr, tells the gateway
/// (when connected) and exits with status 1.
pub fn fatal(message: &str) -> ! {
    eprintln!("mpinetsim: {message}");
    std::process::exit(1)
}
