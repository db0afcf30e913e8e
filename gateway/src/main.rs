//! `mpinetsim`: run MPI programs and synthetic workloads on simulated networks.

mod capture_files;
mod cli;
mod simulate;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    let result = match args.command {
        cli::Command::Simulate(a) => simulate::run(&a),
    };
    if let Err(e) = result {
        eprintln!("mpinetsim: {e}");
        std::process::exit(2);
    }
}
