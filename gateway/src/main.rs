//! `mpinetsim`: run MPI programs and synthetic workloads on simulated networks.

/// `println!` that ignores a closed standard output (`mpinetsim topo | head`)
/// instead of panicking: the results already printed are what the reader
/// wanted, and the job's files are still written.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod adaptive;
mod calibrate;
mod capture_files;
mod cli;
mod clock;
mod compare;
mod conn;
mod cores;
mod fd_limit;
mod fidelity;
mod lateness;
mod launcher;
mod listen;
mod memory;
mod mpi_linkage;
mod mpiexec_args;
mod network_model;
mod output_file;
mod overrides;
mod plot;
mod private_dir;
mod rank_output;
mod rank_watchdog;
mod realtime;
mod replay;
mod report;
mod run;
mod setup_progress;
mod simulate;
mod stall;
mod storage_node;
mod stream;
mod timeline;
mod topo;
mod trace_file;
mod trusted_folder;
mod vector_files;

use clap::{CommandFactory, Parser};

fn main() {
    // `-np N` as mpiexec users type it (see mpiexec_args).
    let args = cli::Cli::parse_from(mpiexec_args::rewrite(
        std::env::args_os().collect(),
        &cli::Cli::command(),
    ));
    // A job holds a descriptor per rank: allow as many as the system lets us.
    fd_limit::raise_to_hard();
    let result = match args.command {
        cli::Command::Simulate(a) => simulate::run(&a).map(|()| 0),
        cli::Command::Run(a) => run::run(&a),
        cli::Command::Replay(a) => replay::run(&a).map(|()| 0),
        cli::Command::Topo(a) => topo::run(&a).map(|()| 0),
        cli::Command::Gateway(a) => run::gateway(&a),
        cli::Command::Calibrate(a) => calibrate::run(&a),
        cli::Command::Compare(a) => compare::run(&a),
        cli::Command::RankWatchdog { private_dir } => Ok(rank_watchdog::serve(&private_dir)),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("mpinetsim: {e}");
            std::process::exit(2);
        }
    }
}
