//! The exit codes of `mpinetsim`, one per way a command can end, so a
//! script or a batch system can tell them apart (docs/user-guide.md,
//! "Exit codes").

/// Everything went as asked (a job: every rank finished with status 0).
pub const SUCCESS: i32 = 0;

/// The job failed: a rank crashed or left before MPI_Finalize, broke the
/// protocol, or the job stalled. A rank's MPI_Abort passes its own code
/// through instead (1 for code 0), and a job whose ranks all finished
/// exits with its worst rank's status.
pub const JOB_FAILED: i32 = 1;

/// Bad command line, network file or program, found before anything ran
/// (clap uses 2 for usage errors too).
pub const USAGE: i32 = 2;

/// The simulated network could not carry the run on: a partition outlasted
/// `faults.partition_timeout` (`run` and `simulate` alike).
pub const NETWORK_FAILED: i32 = 3;

/// mpinetsim itself could not go on or finish: before the job, the system
/// refused it a resource it needs (its private folder, random bytes, an
/// epoll instance, a timer; [`crate::error::Error::Internal`]); during or
/// after it, its event loop failed, or a capture, time-series, timeline or
/// report file could not be written (a full disk).
pub const INTERNAL: i32 = 4;

/// Interrupted by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
pub const INTERRUPTED: i32 = 130;
