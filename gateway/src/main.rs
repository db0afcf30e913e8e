//! `mpinetsim`: run MPI programs and synthetic workloads on simulated
//! networks. The command line over the `gateway` library.

use clap::{CommandFactory, Parser};
use gateway::{
    calibrate, cli, compare, exit_code, fd_limit, mpiexec_args, rank_watchdog, replay, run,
    simulate, topo,
};

fn main() {
    // `-np N` as mpiexec users type it (see mpiexec_args).
    let args = cli::Cli::parse_from(mpiexec_args::rewrite(
        std::env::args_os().collect(),
        &cli::Cli::command(),
    ));
    // A job holds a descriptor per rank: allow as many as the system lets us.
    fd_limit::raise_to_hard();
    let result = match args.command {
        cli::Command::Simulate(a) => simulate::run(&a),
        cli::Command::Run(a) => run::run(&a),
        cli::Command::Replay(a) => replay::run(&a),
        cli::Command::Topo(a) => topo::run(&a).map(|()| exit_code::SUCCESS),
        cli::Command::Gateway(a) => run::gateway(&a),
        cli::Command::Calibrate(a) => calibrate::run(&a),
        cli::Command::Compare(a) => compare::run(&a),
        cli::Command::RankWatchdog { private_dir } => Ok(rank_watchdog::serve(&private_dir)),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("mpinetsim: {e}");
            std::process::exit(exit_code::USAGE);
        }
    }
}
