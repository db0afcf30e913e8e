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
    /// Run an unmodified MPI program on the simulated network in scaled real time.
    Run(RunArgs),
    /// Describe a network without simulating: sizes, diameter, hop counts
    /// and zero-load latencies of a traffic pattern, per-node load, DOT.
    Topo(TopoArgs),
}

/// Arguments of `mpinetsim topo`.
#[derive(clap::Args, Debug, Clone)]
pub struct TopoArgs {
    /// Network description: a TOML file, or `xsim:` and a thesis-style string.
    #[arg(long)]
    pub net: PathBuf,
    /// Host pairs to analyse: random, ring or alltoall.
    #[arg(long, default_value = "random")]
    pub pattern: String,
    /// Number of random pairs.
    #[arg(long, default_value_t = 10_000)]
    pub pairs: u64,
    /// Seed of the random pairs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Message size for the zero-load latency (accepts units: 64, 1KiB).
    #[arg(long, default_value = "1KiB")]
    pub size: String,
    /// Ranks, for `xsim:` strings without `vp=`.
    #[arg(short = 'n', long)]
    pub ranks: Option<u32>,
    /// Write the network as Graphviz DOT to this file.
    #[arg(long)]
    pub dot: Option<PathBuf>,
    /// Write the analysis as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Print every node's handled-message count (all-to-all), not just a summary.
    #[arg(long)]
    pub all_nodes: bool,
}

/// Arguments of `mpinetsim run`.
#[derive(clap::Args, Debug, Clone)]
#[command(trailing_var_arg = true)]
pub struct RunArgs {
    /// Number of ranks.
    #[arg(short = 'n', long = "np")]
    pub ranks: u32,
    /// Network description (TOML), e.g. configs/reference.toml.
    #[arg(long)]
    pub net: PathBuf,
    /// Time factor: wall time = factor × emulated time (≥ 1).
    #[arg(long, default_value_t = 1.0)]
    pub time_factor: f64,
    /// Write pcaps of the configured capture points into this folder.
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Write the job report as JSON to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Messages above this size use the rendezvous protocol.
    #[arg(long, default_value = "64KiB")]
    pub eager_limit: String,
    /// Prefix every line the ranks print with "[rank] ".
    #[arg(long)]
    pub prefix: bool,
    /// The program and its arguments (after --).
    #[arg(required = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
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
