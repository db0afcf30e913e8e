//! The mpinetsim gateway as a library: the commands (`run`, `simulate`,
//! `replay`, `compare`, `calibrate`, `topo`, `gateway`), the real-time
//! loop — a sans-IO [`loop_core`] that makes every decision, inside the
//! epoll/timerfd shell of [`realtime`] — and what they share. The
//! `mpinetsim` binary (src/main.rs) is a thin command line over it.

/// `println!` that ignores a closed standard output (`mpinetsim topo | head`)
/// instead of panicking: the results already printed are what the reader
/// wanted, and the job's files are still written.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

pub mod adaptive;
pub mod calibrate;
pub mod capture_files;
pub mod cli;
pub mod clock;
pub mod compare;
pub mod cores;
pub mod engine_replay;
pub mod error;
pub mod exit_code;
pub mod fd_limit;
pub mod fidelity;
pub mod gateway_cpu;
pub mod injection_lateness;
pub mod lateness;
pub mod launcher;
pub mod listen;
pub mod logging;
pub mod loop_core;
pub mod memory;
pub mod mpi_linkage;
pub mod mpiexec_args;
pub mod network_model;
pub mod output_file;
pub mod overrides;
pub mod plot;
pub mod private_dir;
pub mod progress;
pub mod rank_link;
pub mod rank_output;
pub mod rank_watchdog;
pub mod realtime;
pub mod replay;
pub mod replay_timeline;
pub mod report;
pub mod run;
pub mod setup_progress;
pub mod show_net;
pub mod simulate;
pub mod spawn;
pub mod stall;
pub mod storage_node;
pub mod stream;
pub mod timeline;
pub mod topo;
pub mod trace_file;
pub mod trusted_folder;
pub mod vector_files;
pub mod version;
pub mod wakeup;
