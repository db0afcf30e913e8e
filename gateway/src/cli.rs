//! Command-line interface definitions.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Run unmodified MPI programs, or synthetic workloads, on a simulated
/// packet network.
#[derive(Parser, Debug)]
#[command(name = "mpinetsim", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a synthetic workload in pure virtual time (no MPI processes).
    Simulate(SimulateArgs),
}

/// Arguments of `mpinetsim simulate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Network description (TOML), e.g. configs/reference.toml.
    #[arg(long)]
    pub net: PathBuf,
    /// pingpong, alltoall, ring or random.
    #[arg(long, default_value = "pingpong")]
    pub workload: String,
    /// Bytes per message (accepts units: 32, 64KiB, 16MiB).
    #[arg(long, default_value = "32")]
    pub size: String,
    /// Round trips (pingpong), rounds (alltoall), shifts (ring) or messages per rank (random).
    #[arg(long, default_value_t = 1000)]
    pub iters: u64,
    /// Number of ranks; default: one per host.
    #[arg(short = 'n', long)]
    pub ranks: Option<usize>,
    /// Seed of the random workload.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write pcaps of the configured capture points into this folder.
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Write the statistics as JSON to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Check every delivered message against what was sent.
    #[arg(long)]
    pub verify: bool,
}
