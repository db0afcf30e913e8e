//! `mpinetsim`: run MPI programs and synthetic workloads on simulated
//! networks. The command line over the `gateway` library.

use clap::{CommandFactory, Parser};
use gateway::{
    calibrate, cli, compare, exit_code, fd_limit, mpiexec_args, rank_watchdog, replay, run,
    simulate, topo,
};

fn main() {
    // `-np N` as mpiexec users type it (see mpiexec_args).
    let parsed = cli::Cli::try_parse_from(mpiexec_args::rewrite(
        std::env::args_os().collect(),
        &cli::Cli::command(),
    ));
    let args = match parsed {
        Ok(args) => args,
        // A value outside an option's list: one sentence, as every other
        // usage error (clap's own error would span several lines).
        Err(e) => match cli::invalid_value_sentence(&e) {
            Some(sentence) => {
                eprintln!("mpinetsim: {sentence}");
                std::process::exit(exit_code::USAGE);
            }
            None => e.exit(),
        },
    };
    gateway::logging::init(args.verbose, args.quiet);
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
        cli::Command::Completions { shell } => {
            let mut cmd = cli::Cli::command();
            clap_complete::generate(shell, &mut cmd, "mpinetsim", &mut std::io::stdout());
            Ok(exit_code::SUCCESS)
        }
        cli::Command::Man => clap_mangen::Man::new(cli::Cli::command())
            .render(&mut std::io::stdout())
            .map(|()| exit_code::SUCCESS)
            .map_err(|e| {
                gateway::error::Error::internal(format!("cannot write the man page: {e}"))
            }),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("mpinetsim: {e}");
            std::process::exit(e.exit_code());
        }
    }
}
