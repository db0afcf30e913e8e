//! Command-line interface definitions.
//!
//! The doc comments here are the `--help` text users read, written as
//! plain text (`tcp:[::]:PORT`, `[rank]`), not as rustdoc links.
#![allow(rustdoc::broken_intra_doc_links)]

use crate::error::Error;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// A value clap refused for an option with listed values (a `ValueEnum`),
/// as the one sentence mpinetsim prints for every usage error, e.g.
/// "--workload chaos: unknown workload; give `pingpong`, `alltoall`,
/// `ring` or `random`". `None` for every other kind of clap error.
pub fn invalid_value_sentence(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidValue {
        return None;
    }
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg)?;
    let value = text(ContextKind::InvalidValue)?;
    let Some(ContextValue::Strings(valid)) = e.get(ContextKind::ValidValue) else {
        return None;
    };
    // "--workload <WORKLOAD>": the option and what its value is; "<SHELL>"
    // for a positional argument.
    let what = |name: &str| {
        name.trim_matches(['<', '>'])
            .replace('_', " ")
            .to_lowercase()
    };
    let (given, what) = match arg.split_once(' ') {
        Some((option, name)) => (format!("{option} {value}"), what(name)),
        None if arg.starts_with('<') => (value.clone(), what(&arg)),
        None => (format!("{arg} {value}"), "value".to_string()),
    };
    let quoted: Vec<String> = valid.iter().map(|v| format!("`{v}`")).collect();
    let choices = match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => return None,
    };
    Some(format!("{given}: unknown {what}; give {choices}"))
}

/// The network models `--model` chooses between (listed in `--help`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelArg {
    /// The packet-level simulator (switches, routers, links, TCP).
    Packet,
    /// The Dimemas-style analytic model (latency + size ÷ bandwidth with
    /// link and bus contention).
    Analytic,
}

impl ModelArg {
    /// The name as network files spell it (`model = "packet"`).
    pub fn name(self) -> &'static str {
        match self {
            ModelArg::Packet => "packet",
            ModelArg::Analytic => "analytic",
        }
    }
}

/// How a rank's computation between MPI calls is measured.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeClockArg {
    /// CPU time of the rank's process, all its threads.
    Cpu,
    /// Wall time between MPI calls.
    Wall,
}

/// How local ranks exchange frames with the gateway.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportArg {
    /// The Unix socket.
    Socket,
    /// Shared-memory rings (set up over the Unix socket).
    Shm,
}

impl TransportArg {
    /// The protocol's transport.
    pub fn kind(self) -> mpinetsim_protocol::transport::TransportKind {
        use mpinetsim_protocol::transport::TransportKind;
        match self {
            TransportArg::Socket => TransportKind::Socket,
            TransportArg::Shm => TransportKind::Shm,
        }
    }
}

/// The transport option of `run`, `calibrate` and `compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct TransportArgs {
    /// How the ranks exchange frames with the gateway: `shm`
    /// (shared-memory rings, set up over the Unix socket) or `socket`
    /// (the Unix socket itself). The environment variable
    /// MPINETSIM_TRANSPORT gives the default.
    #[arg(long, value_enum, env = "MPINETSIM_TRANSPORT", default_value_t = TransportArg::Shm)]
    pub transport: TransportArg,
    /// Give the gateway's loop CPU N to itself: the ranks run on the other
    /// CPUs this process may use. Helps when the machine has a core to
    /// spare for it; on 2 cores it halves the ranks' share (see the user
    /// guide, "Transport").
    #[arg(long, value_name = "N")]
    pub gateway_cpu: Option<usize>,
    /// Run the gateway's loop under SCHED_FIFO (priority 1, through
    /// `chrt`), so it preempts the ranks when an event falls due; without
    /// the permission, mpinetsim says so and runs without it. Use it with
    /// --gateway-cpu: a real-time loop that spins shares no core well.
    #[arg(long)]
    pub gateway_fifo: bool,
    /// Longest wall time an event waits, past its deadline, for a rank on
    /// shared memory that may still send a message stamped before it
    /// (its published horizon), e.g. `200us`; `0` never waits, so such a
    /// message enters late, as with the socket transport (see the user
    /// guide, "Transport"). MPINETSIM_HOLD_CAP gives the default.
    #[arg(
        long,
        value_name = "DURATION",
        env = "MPINETSIM_HOLD_CAP",
        default_value = "2ms"
    )]
    pub hold_cap: String,
}

impl TransportArgs {
    /// `--hold-cap` in wall ns.
    pub fn hold_cap_ns(&self) -> Result<u64, String> {
        netsim::base::units::parse_duration_ns(&self.hold_cap)
            .map_err(|e| format!("--hold-cap: {e}"))
    }

    /// Where the gateway's loop runs.
    pub fn placement(&self) -> crate::gateway_cpu::GatewayPlacement {
        crate::gateway_cpu::GatewayPlacement {
            cpu: self.gateway_cpu,
            fifo: self.gateway_fifo,
        }
    }
}

/// What a stalled job does.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnStallArg {
    /// End the job with the report (exit code 1).
    Stop,
    /// Say so and keep waiting.
    Wait,
}

impl OnStallArg {
    /// The value as typed.
    pub fn name(self) -> &'static str {
        match self {
            OnStallArg::Stop => "stop",
            OnStallArg::Wait => "wait",
        }
    }
}

/// The host pairs `topo` analyses.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopoPatternArg {
    /// `--pairs` random host pairs (`--seed`).
    Random,
    /// Every host and the next one.
    Ring,
    /// Every ordered pair of hosts.
    #[value(alias = "all-to-all")]
    Alltoall,
}

impl TopoPatternArg {
    /// The pattern's name.
    pub fn name(self) -> &'static str {
        match self {
            TopoPatternArg::Random => "random",
            TopoPatternArg::Ring => "ring",
            TopoPatternArg::Alltoall => "alltoall",
        }
    }
}

/// The synthetic workloads of `simulate`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadArg {
    /// Rank 0 and rank 1 send a message back and forth.
    Pingpong,
    /// Every rank sends to every other rank, round after round.
    Alltoall,
    /// Every rank sends to its right neighbour, shift after shift.
    Ring,
    /// Every rank sends to ranks drawn at random (`--seed`).
    Random,
}

impl WorkloadArg {
    /// The pattern's name, as netsim's workload parser takes it.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadArg::Pingpong => "pingpong",
            WorkloadArg::Alltoall => "alltoall",
            WorkloadArg::Ring => "ring",
            WorkloadArg::Random => "random",
        }
    }
}

/// Run unmodified MPI programs, or synthetic workloads, on a simulated
/// packet network.
#[derive(Parser, Debug)]
#[command(name = "mpinetsim", version, long_version = crate::version::LONG_VERSION.as_str(), about)]
pub struct Cli {
    /// More diagnostic lines on stderr (-v debug, -vv trace); `RUST_LOG`
    /// overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Fewer diagnostic lines (-q hides progress, -qq warnings too).
    #[arg(short, long, action = clap::ArgAction::Count, global = true, conflicts_with = "verbose")]
    pub quiet: u8,
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
    /// Re-time a trace recorded by `run --record` on a network, in pure
    /// virtual time (no processes, no time factor).
    Replay(ReplayArgs),
    /// Describe a network without simulating: sizes, diameter, hop counts
    /// and zero-load latencies of a traffic pattern, per-node load, DOT.
    Topo(TopoArgs),
    /// Run the gateway alone and wait for ranks started by another launcher
    /// (Debian's hydra `mpiexec`, Slurm's `srun`).
    Gateway(GatewayArgs),
    /// Run a program at increasing time factors and find the smallest one
    /// whose results have converged.
    Calibrate(CalibrateArgs),
    /// Run a program on several networks (or what-if variants) and compare
    /// its emulated runtime.
    Compare(CompareArgs),
    /// Print a completion script for SHELL on stdout, e.g.
    /// `mpinetsim completions bash > ~/.local/share/bash-completion/completions/mpinetsim`.
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print mpinetsim's man page (roff) on stdout, e.g.
    /// `mpinetsim man > ~/.local/share/man/man1/mpinetsim.1`.
    Man,
    /// Internal: kills the ranks' process groups when `mpinetsim run` ends
    /// or dies (see the rank_watchdog module).
    #[command(name = "rank-watchdog", hide = true)]
    RankWatchdog {
        /// The job's private folder, removed if mpinetsim dies.
        private_dir: PathBuf,
    },
}

/// The time factor options of `run` and `gateway`.
#[derive(clap::Args, Debug, Clone)]
pub struct FactorArgs {
    /// Time factor: wall time = factor × emulated time (≥ 1), or `auto` to
    /// raise and lower it during the run as the simulator needs.
    #[arg(long, default_value = "1")]
    pub time_factor: String,
    /// With `--time-factor auto`: the largest factor to use.
    #[arg(long, default_value_t = 256.0)]
    pub auto_max: f64,
    /// With `--time-factor auto`: event lateness (scaled time) above which
    /// the factor is doubled.
    #[arg(long, default_value = "100us")]
    pub auto_raise_above: String,
}

/// How ranks measure their computation (`run`, `gateway`, `calibrate`,
/// `compare`).
#[derive(clap::Args, Debug, Clone)]
pub struct ComputeArgs {
    /// Measure the computation between MPI calls as the CPU time of the
    /// rank's process (`cpu`, all its threads: independent of machine load
    /// and of more ranks than cores) or as wall time (`wall`: a rank
    /// waiting for a core computes longer).
    #[arg(long, value_enum, default_value_t = ComputeClockArg::Cpu)]
    pub compute_clock: ComputeClockArg,
}

impl ComputeArgs {
    /// The clock (a `Result` for the callers that once parsed a string).
    pub fn clock(&self) -> Result<mpinetsim_protocol::ComputeClock, Error> {
        Ok(match self.compute_clock {
            ComputeClockArg::Cpu => mpinetsim_protocol::ComputeClock::Cpu,
            ComputeClockArg::Wall => mpinetsim_protocol::ComputeClock::Wall,
        })
    }
}

/// What to do when a job stops making progress (`run` and `gateway`).
#[derive(clap::Args, Debug, Clone)]
pub struct StallArgs {
    /// Report the job as stuck once every connected rank has waited in MPI
    /// this long (wall time) with nothing in flight in the network; `0`
    /// never does.
    #[arg(long, default_value = "10s")]
    pub stall_timeout: String,
    /// Then `stop` the job with the report (the default of `run`) or
    /// `wait` on after saying so (the default of `gateway`, whose ranks a
    /// launcher may still be starting).
    #[arg(long, value_enum)]
    pub on_stall: Option<OnStallArg>,
}

/// Arguments of `mpinetsim gateway`.
#[derive(clap::Args, Debug, Clone)]
pub struct GatewayArgs {
    /// Number of ranks to wait for (also `-np N`, as mpiexec takes it).
    #[arg(short = 'n', long = "np", visible_alias = "ranks")]
    pub ranks: u32,
    /// Network description.
    #[arg(long)]
    pub net: PathBuf,
    /// Sets KEY to VALUE in the network file (repeatable), e.g.
    /// 'link."host0-switch0".rate=100Mbps' or 'link_defaults.delay=500ns'.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Print the network as it will run (after --set, --fault, --model
    /// and the generators: nodes, links, rank placement, faults) and exit
    /// without running anything.
    #[arg(long)]
    pub show_net: bool,
    /// Network model: `packet` (the packet-level simulator) or `analytic`
    /// (the Dimemas-style model); overrides the file's `model` key.
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// Time factor, fixed or adaptive.
    #[command(flatten)]
    pub factor: FactorArgs,
    /// How computation is measured.
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// A job that stops making progress.
    #[command(flatten)]
    pub stall: StallArgs,
    /// Where ranks connect (repeatable): unix:PATH for ranks on this host,
    /// tcp:ADDR:PORT for ranks anywhere (port 0 picks a free port; IPv6 as
    /// tcp:[::]:PORT). Default: a Unix socket in a private folder.
    #[arg(long, value_name = "ADDRESS")]
    pub listen: Vec<String>,
    /// Folder for the shim libraries to put on the ranks' LD_LIBRARY_PATH
    /// (default: `lib` beside the first Unix socket, or in a private folder).
    #[arg(long)]
    pub lib_dir: Option<PathBuf>,
    /// A connection that has not sent a Hello with the job's secret after
    /// this long is dropped.
    #[arg(long, default_value = "5s")]
    pub handshake_timeout: String,
    /// Write pcaps of the configured capture points into this folder.
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Write the job report as JSON to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Messages above this size use the rendezvous protocol.
    #[arg(long, default_value = "64KiB")]
    pub eager_limit: String,
}

/// Arguments of `mpinetsim calibrate`.
#[derive(clap::Args, Debug, Clone)]
#[command(trailing_var_arg = true)]
pub struct CalibrateArgs {
    /// Number of ranks (also `-np N`, as mpiexec takes it).
    #[arg(short = 'n', long = "np", visible_alias = "ranks")]
    pub ranks: u32,
    /// Network description.
    #[arg(long)]
    pub net: PathBuf,
    /// Sets KEY to VALUE in the network file (repeatable), e.g.
    /// 'link."host0-switch0".rate=100Mbps' or 'link_defaults.delay=500ns'.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Print the network as it will run (after --set, --fault, --model
    /// and the generators: nodes, links, rank placement, faults) and exit
    /// without running anything.
    #[arg(long)]
    pub show_net: bool,
    /// Network model: `packet` (the packet-level simulator) or `analytic`
    /// (the Dimemas-style model); overrides the file's `model` key.
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// Time factors to try, in increasing order (e.g. 1,2,4,8).
    #[arg(long, value_delimiter = ',', conflicts_with = "max")]
    pub factors: Option<Vec<f64>>,
    /// Try 1, 2, 4, … up to this factor.
    #[arg(long, default_value_t = 32.0)]
    pub max: f64,
    /// Runs per factor (their spread widens the tolerance). Three by
    /// default: the median of three ignores one run disturbed by the
    /// machine (a descheduled gateway), which a median of two cannot.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Relative change under which a result counts as unchanged.
    #[arg(long, default_value_t = 0.05)]
    pub tolerance: f64,
    /// Changes of the messages' lateness entering the network (p99)
    /// below this count as none (default: the tolerance times the
    /// network's smallest one-way latency; 1 us × tolerance when the
    /// model has no such latency).
    #[arg(long, value_name = "DURATION")]
    pub late_floor: Option<String>,
    /// Folder for calibration.csv/.json/.svg/.png and the ranks' output.
    #[arg(long, default_value = "mpinetsim-calibration")]
    pub out: PathBuf,
    /// Messages above this size use the rendezvous protocol.
    #[arg(long, default_value = "64KiB")]
    pub eager_limit: String,
    /// How computation is measured.
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// How local ranks reach the gateway.
    #[command(flatten)]
    pub transport: TransportArgs,
    /// Inject a fault into every run (repeatable), as `run --fault`:
    /// 'link NAME down at 10ms for 50ms', 'link PATTERN mtbf 10s mttr 1s'.
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// The program and its arguments (after --).
    #[arg(required = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Arguments of `mpinetsim compare`.
#[derive(clap::Args, Debug, Clone)]
#[command(trailing_var_arg = true)]
pub struct CompareArgs {
    /// Number of ranks (also `-np N`, as mpiexec takes it); with
    /// `--replay`, the trace's.
    #[arg(
        short = 'n',
        long = "np",
        visible_alias = "ranks",
        required_unless_present = "replay"
    )]
    pub ranks: Option<u32>,
    /// Replay this trace (`run --record`) on every network in virtual
    /// time instead of running a program: no processes, no time factor.
    #[arg(long, value_name = "TRACE", conflicts_with = "command")]
    pub replay: Option<PathBuf>,
    /// Time factor of every run.
    #[arg(long, default_value_t = 4.0)]
    pub time_factor: f64,
    /// A network to run on (repeat the option; the first is the baseline).
    #[arg(long = "net", required = true)]
    pub nets: Vec<PathBuf>,
    /// Adds a what-if variant of the first network with KEY set to VALUE
    /// (repeatable, all applied together), e.g. 'link."host0-switch0".rate=100Mbps'.
    #[arg(long = "set")]
    pub sets: Vec<String>,
    /// Run every network under this model (repeat the option to put
    /// models side by side: `--model packet --model analytic`); default:
    /// each file's own `model` key.
    #[arg(long = "model", value_enum)]
    pub models: Vec<ModelArg>,
    /// Runs per network (the median runtime is compared).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Write the comparison as JSON to this file.
    // `--json`, its old name, is a hidden alias so old scripts keep working.
    #[arg(long, alias = "json")]
    pub report: Option<PathBuf>,
    /// Append the ranks' output to this file instead of the terminal.
    #[arg(long)]
    pub rank_output: Option<PathBuf>,
    /// Messages above this size use the rendezvous protocol.
    #[arg(long, default_value = "64KiB")]
    pub eager_limit: String,
    /// How computation is measured.
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// How local ranks reach the gateway.
    #[command(flatten)]
    pub transport: TransportArgs,
    /// Adds a what-if variant of the first network with this fault
    /// (repeatable; applied together with any --set), as `run --fault`:
    /// 'link NAME down at 10ms for 50ms', 'node NAME down at 1s'.
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// The program and its arguments (after --).
    #[arg(required_unless_present = "replay", allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Arguments of `mpinetsim topo`.
#[derive(clap::Args, Debug, Clone)]
pub struct TopoArgs {
    /// Network description: a TOML file, or `xsim:` and a thesis-style string.
    #[arg(long)]
    pub net: PathBuf,
    /// Sets KEY to VALUE in the network file (repeatable), e.g.
    /// 'link."host0-switch0".rate=100Mbps' or 'link_defaults.delay=500ns'.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Print the network as it will run (after --set, --fault, --model
    /// and the generators: nodes, links, rank placement, faults) and exit
    /// without running anything.
    #[arg(long)]
    pub show_net: bool,
    /// Host pairs to analyse.
    #[arg(long, value_enum, default_value_t = TopoPatternArg::Random)]
    pub pattern: TopoPatternArg,
    /// Number of random pairs.
    #[arg(long, default_value_t = 10_000)]
    pub pairs: u64,
    /// Seed of the random pairs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Message size for the zero-load latency (accepts units: 64, 1KiB).
    #[arg(long, default_value = "1KiB")]
    pub size: String,
    /// Ranks, for `xsim:` strings without `vp=` (also `-np N`).
    #[arg(short = 'n', long = "np", visible_alias = "ranks")]
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
    /// Number of ranks (also `-np N`, as mpiexec takes it).
    #[arg(short = 'n', long = "np", visible_alias = "ranks")]
    pub ranks: u32,
    /// MPI_UNIVERSE_SIZE, the processes the job may hold with those
    /// MPI_Comm_spawn starts (as mpiexec's -usize); default: the network's
    /// hosts, at least -n.
    #[arg(long, value_name = "N")]
    pub universe: Option<u32>,
    /// Network description (TOML), e.g. configs/reference.toml.
    #[arg(long)]
    pub net: PathBuf,
    /// Sets KEY to VALUE in the network file (repeatable), e.g.
    /// 'link."host0-switch0".rate=100Mbps' or 'link_defaults.delay=500ns'.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Print the network as it will run (after --set, --fault, --model
    /// and the generators: nodes, links, rank placement, faults) and exit
    /// without running anything.
    #[arg(long)]
    pub show_net: bool,
    /// Network model: `packet` (the packet-level simulator) or `analytic`
    /// (the Dimemas-style model); overrides the file's `model` key.
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// Time factor, fixed or adaptive.
    #[command(flatten)]
    pub factor: FactorArgs,
    /// How computation is measured.
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// How local ranks reach the gateway.
    #[command(flatten)]
    pub transport: TransportArgs,
    /// A job that stops making progress.
    #[command(flatten)]
    pub stall: StallArgs,
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
    /// Write time series (link queues and utilisation, TCP congestion
    /// windows and RTT estimates) as CSV files into this folder.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Write each rank's MPI calls, compute spans, time-factor sleeps and
    /// the messages between ranks as Chrome trace-event JSON (Perfetto).
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// Record every rank's computations and messages into this trace
    /// file, for `mpinetsim replay` on other networks in virtual time.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Inject a fault (repeatable): 'link NAME down at 10ms for 50ms',
    /// 'node NAME down at 1s', 'link NAME rate 100Mbps at 1s for 2s',
    /// 'link PATTERN mtbf 10s mttr 1s' (see docs/user-guide.md, Faults).
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// The program and its arguments (after --).
    #[arg(required = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Arguments of `mpinetsim replay`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// The trace `mpinetsim run --record FILE` wrote.
    pub trace: PathBuf,
    /// Network description (TOML) to replay it on.
    #[arg(long)]
    pub net: PathBuf,
    /// Sets KEY to VALUE in the network file (repeatable), e.g.
    /// 'link."host0-switch0".rate=100Mbps' or 'host.cpu_speed=0.5'.
    #[arg(long = "set")]
    pub sets: Vec<String>,
    /// Print the network as it will run (after --set, --fault, --model
    /// and the generators: nodes, links, rank placement, faults) and exit
    /// without running anything.
    #[arg(long)]
    pub show_net: bool,
    /// Inject a fault (repeatable), as for `run`.
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// Write pcaps of the configured capture points into this folder
    /// (packet model).
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Write the outcome and the network statistics as JSON to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Network model: `packet` (the packet-level simulator) or `analytic`
    /// (the Dimemas-style model, each message latency + size ÷ bandwidth
    /// plus its waits); overrides the file's `model` key.
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// Write the replay's computations, waits and messages as Chrome
    /// trace-event JSON (Perfetto, chrome://tracing), as `run --timeline`.
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// Write the replay as a Paraver trace (FILE.prv, and its state names
    /// in FILE.pcf), the format Dimemas writes its predictions in.
    #[arg(long)]
    pub paraver: Option<PathBuf>,
    /// `engine`: make the program's recorded MPI calls again on the MPI
    /// engine, which decides matching, rendezvous and collective steps
    /// anew on this network (falls back to `messages`, saying why, when
    /// the trace cannot be); `messages`: re-time the recorded messages in
    /// their recorded order.
    #[arg(long, value_enum, default_value_t = crate::replay::Through::Engine)]
    pub through: crate::replay::Through,
}

/// Arguments of `mpinetsim simulate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Network description (TOML), e.g. configs/reference.toml.
    #[arg(long)]
    pub net: PathBuf,
    /// Sets KEY to VALUE in the network file (repeatable), e.g.
    /// 'link."host0-switch0".rate=100Mbps' or 'link_defaults.delay=500ns'.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Print the network as it will run (after --set, --fault, --model
    /// and the generators: nodes, links, rank placement, faults) and exit
    /// without running anything.
    #[arg(long)]
    pub show_net: bool,
    /// The communication pattern.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Pingpong)]
    pub workload: WorkloadArg,
    /// Bytes per message (accepts units: 32, 64KiB, 16MiB).
    #[arg(long, default_value = "32")]
    pub size: String,
    /// Round trips (pingpong), rounds (alltoall), shifts (ring) or messages per rank (random).
    #[arg(long, default_value_t = 1000)]
    pub iters: u64,
    /// Number of ranks (also `-np N`); default: one per host.
    #[arg(short = 'n', long = "np", visible_alias = "ranks")]
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
    /// Inject a fault (repeatable): 'link NAME down at 10ms for 50ms',
    /// 'node NAME down at 1s', 'link NAME rate 100Mbps at 1s for 2s',
    /// 'link PATTERN mtbf 10s mttr 1s' (see docs/user-guide.md, Faults).
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn refusal(args: &[&str]) -> Option<String> {
        let e = Cli::try_parse_from(args).unwrap_err();
        invalid_value_sentence(&e)
    }

    #[test]
    fn a_value_outside_the_list_is_one_sentence_naming_the_choices() {
        assert_eq!(
            refusal(&[
                "mpinetsim",
                "simulate",
                "--net",
                "n.toml",
                "--workload",
                "chaos"
            ])
            .as_deref(),
            Some("--workload chaos: unknown workload; give `pingpong`, `alltoall`, `ring` or `random`")
        );
        assert_eq!(
            refusal(&[
                "mpinetsim",
                "run",
                "-n",
                "2",
                "--net",
                "n.toml",
                "--compute-clock",
                "gpu",
                "--",
                "a"
            ])
            .as_deref(),
            Some("--compute-clock gpu: unknown compute clock; give `cpu` or `wall`")
        );
        assert_eq!(
            refusal(&[
                "mpinetsim",
                "replay",
                "t.mnt",
                "--net",
                "n.toml",
                "--model",
                "fluid"
            ])
            .as_deref(),
            Some("--model fluid: unknown model; give `packet` or `analytic`")
        );
        let Command::Topo(t) =
            Cli::try_parse_from(["mpinetsim", "topo", "--net", "n", "--pattern", "all-to-all"])
                .unwrap()
                .command
        else {
            panic!("not topo")
        };
        assert_eq!(t.pattern, TopoPatternArg::Alltoall);
        // Other usage errors stay clap's.
        assert_eq!(refusal(&["mpinetsim", "simulate"]), None);
    }

    #[test]
    fn ranks_are_minus_n_or_np_or_ranks_in_every_command() {
        for sub in ["run", "gateway", "calibrate", "compare", "simulate", "topo"] {
            let cmd = Cli::command();
            let arg = cmd
                .find_subcommand(sub)
                .unwrap()
                .get_arguments()
                .find(|a| a.get_short() == Some('n'))
                .unwrap_or_else(|| panic!("{sub} has no -n"));
            assert_eq!(arg.get_long(), Some("np"), "{sub}");
            assert_eq!(arg.get_visible_aliases(), Some(vec!["ranks"]), "{sub}");
        }
    }

    #[test]
    fn compare_takes_json_as_a_hidden_alias_of_report() {
        let Command::Compare(c) = Cli::try_parse_from([
            "mpinetsim",
            "compare",
            "-n",
            "2",
            "--net",
            "a.toml",
            "--net",
            "b.toml",
            "--json",
            "c.json",
            "--",
            "prog",
        ])
        .unwrap()
        .command
        else {
            panic!("not compare")
        };
        assert_eq!(c.report.as_deref(), Some(std::path::Path::new("c.json")));
        let cmd = Cli::command();
        let report = cmd
            .find_subcommand("compare")
            .unwrap()
            .get_arguments()
            .find(|a| a.get_long() == Some("report"))
            .unwrap();
        assert!(
            report.get_visible_aliases().unwrap_or_default().is_empty(),
            "--json is not listed"
        );
        // … and --help does not mention it.
        let help = cmd
            .find_subcommand("compare")
            .unwrap()
            .clone()
            .render_help()
            .to_string();
        assert!(!help.contains("--json"), "{help}");
    }

    #[test]
    fn json_files_are_written_by_report_in_every_command_that_writes_one() {
        for sub in ["run", "gateway", "compare", "simulate", "replay"] {
            let cmd = Cli::command();
            assert!(
                cmd.find_subcommand(sub)
                    .unwrap()
                    .get_arguments()
                    .any(|a| a.get_long() == Some("report")),
                "{sub}"
            );
        }
    }
}
