//! `mpinetsim run`: start the gateway, launch the ranks, wait, report.

use crate::adaptive::AdaptivePolicy;
use crate::capture_files::CaptureFiles;
use crate::cli::RunArgs;
use crate::clock::monotonic_ns;
use crate::error::Error;
use crate::exit_code;
use crate::launcher::{self, LaunchSpec, RankOutput};
use crate::loop_core::ConnState;
use crate::loop_core::{CoreSettings, JobOutcome};
use crate::mpi_linkage::{self, MpiLinkage};
use crate::network_model::{analytic_stats, packet_mut};
use crate::realtime::{Gateway, GatewaySettings};
use crate::report::{JobReport, MpiCounters, Outcome, RankReport};
use crate::stall::StallPolicy;
use mpinetsim_protocol::{GatewayAddress, HostCpu, JobSecret, MAX_TIME_FACTOR};
use netsim::base::text::short_number;
use netsim::NetworkConfig;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs the command; returns the process exit code. Errors before launch are
/// one sentence.
pub fn run(a: &RunArgs) -> Result<i32, Error> {
    let (time_factor, adaptive) = parse_factor(&a.factor)?;
    if let Some(path) = &a.report {
        crate::output_file::check_writable(path, "--report")?;
    }
    let mut cfg = crate::overrides::load_net(&a.net, Some(a.ranks), &a.sets)?;
    add_fault_specs(&mut cfg, &a.faults)?;
    apply_model(&mut cfg, a.model.map(crate::cli::ModelArg::name))?;
    if a.show_net {
        return show_net(&cfg, &a.net, Some(a.ranks));
    }
    let spec = JobSpec {
        compute_clock: a.compute.clock()?,
        transport: a.transport.transport.kind(),
        placement: a.transport.placement(),
        hold_cap_ns: a.transport.hold_cap_ns()?,
        announce_cores: true,
        progress: crate::progress::Show::Job,
        universe: a.universe,
        ranks: a.ranks,
        origin: a.net.display().to_string(),
        cfg,
        time_factor,
        adaptive,
        capture: a.capture.clone(),
        eager_limit: &a.eager_limit,
        command: &a.command,
        output: if a.prefix {
            RankOutput::Prefix
        } else {
            RankOutput::Inherit
        },
        stdin_to_rank0: true,
        vectors: a.vectors.clone(),
        timeline: a.timeline.clone(),
        record: a.record.clone(),
        external: None,
        stall: StallPolicy::parse(
            &a.stall.stall_timeout,
            a.stall.on_stall.map(crate::cli::OnStallArg::name),
            true,
        )?,
    };
    let job = run_job(&spec)?;
    Ok(conclude(job, a.report.as_deref()))
}

/// `mpinetsim gateway`: the job's gateway without a launcher; returns the
/// exit code.
pub fn gateway(a: &crate::cli::GatewayArgs) -> Result<i32, Error> {
    let (time_factor, adaptive) = parse_factor(&a.factor)?;
    if let Some(path) = &a.report {
        crate::output_file::check_writable(path, "--report")?;
    }
    let listen = a
        .listen
        .iter()
        .map(|l| GatewayAddress::parse(l).map_err(|e| format!("--listen {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let handshake_timeout_ns = netsim::base::units::parse_duration_ns(&a.handshake_timeout)
        .map_err(|e| format!("--handshake-timeout: {e}"))?;
    let mut cfg = crate::overrides::load_net(&a.net, Some(a.ranks), &a.sets)?;
    apply_model(&mut cfg, a.model.map(crate::cli::ModelArg::name))?;
    if a.show_net {
        return show_net(&cfg, &a.net, Some(a.ranks));
    }
    let label = vec![format!(
        "(ranks started by a launcher on {})",
        if a.listen.is_empty() {
            "a private Unix socket".to_string()
        } else {
            a.listen.join(", ")
        }
    )];
    let spec = JobSpec {
        compute_clock: a.compute.clock()?,
        // The external launcher's ranks choose (MPINETSIM_TRANSPORT).
        transport: mpinetsim_protocol::transport::TransportKind::DEFAULT,
        placement: Default::default(),
        hold_cap_ns: crate::loop_core::horizon_hold::DEFAULT_HOLD_CAP_NS,
        announce_cores: false,
        progress: crate::progress::Show::Never,
        universe: None,
        ranks: a.ranks,
        origin: a.net.display().to_string(),
        cfg,
        time_factor,
        adaptive,
        capture: a.capture.clone(),
        eager_limit: &a.eager_limit,
        command: &label,
        output: RankOutput::Inherit,
        stdin_to_rank0: false,
        vectors: None,
        timeline: None,
        record: None,
        external: Some(External {
            listen,
            lib_dir: a.lib_dir.clone(),
            handshake_timeout_ns,
        }),
        stall: StallPolicy::parse(
            &a.stall.stall_timeout,
            a.stall.on_stall.map(crate::cli::OnStallArg::name),
            false,
        )?,
    };
    let job = run_job(&spec)?;
    Ok(conclude(job, a.report.as_deref()))
}

/// Tells how a job ended, in this order: the report's summary, why the job
/// stopped (a full disk under the captures, say), what could not be
/// finished, then the report's fate. Returns the exit code: the job's, or
/// [`exit_code::INTERNAL`] when its files could not all be written.
fn conclude(job: JobResult, report_path: Option<&std::path::Path>) -> i32 {
    eprint!("{}", job.report.summary());
    if let Some(reason) = &job.report.reason {
        eprintln!("mpinetsim: {reason}");
    }
    let mut code = job.exit_code;
    if let Some(e) = &job.finish_error {
        eprintln!("mpinetsim: {e}");
        code = code.max(exit_code::INTERNAL);
    }
    if let Some(path) = report_path {
        match write_json(
            path,
            &crate::report::Report::Run(Box::new(job.report)),
            "--report",
        ) {
            Ok(()) => eprintln!("mpinetsim: report written to {}", path.display()),
            Err(e) => {
                eprintln!("mpinetsim: {e}");
                code = code.max(exit_code::INTERNAL);
            }
        }
    }
    code
}

/// The factor to start with, and the adaptive policy for `auto`.
pub fn parse_factor(f: &crate::cli::FactorArgs) -> Result<(f64, Option<AdaptivePolicy>), Error> {
    let (text, auto_max, auto_raise_above) =
        (f.time_factor.as_str(), f.auto_max, &f.auto_raise_above);
    if text == "auto" {
        if !(1.0..=MAX_TIME_FACTOR).contains(&auto_max) {
            return Err(Error::Usage(format!(
                "--auto-max {}: give a factor between 1 and {MAX_TIME_FACTOR}",
                short_number(auto_max)
            )));
        }
        let raise = netsim::base::units::parse_duration_ns(auto_raise_above)
            .map_err(|e| format!("--auto-raise-above: {e}"))?;
        let policy = AdaptivePolicy {
            max: auto_max,
            raise_above_ns: raise,
            ..AdaptivePolicy::default()
        };
        return Ok((policy.min.max(1.0), Some(policy)));
    }
    let f: f64 = text.parse().map_err(|_| {
        format!("--time-factor {text} is not a number; give a factor between 1 and {MAX_TIME_FACTOR} (e.g. 4) or `auto`")
    })?;
    check_factor(f)?;
    Ok((f, None))
}

/// Tells the user how to start ranks against a standalone gateway: the
/// environment for the first address, the other addresses after it (a
/// closed stdout is not an error: the gateway keeps serving). The secret
/// is named by its file, never printed: a launcher's command line is
/// readable by every local user.
fn print_launch_environment(
    addresses: &[GatewayAddress],
    lib_dir: &std::path::Path,
    job: u64,
    secret_file: &std::path::Path,
    ranks: u32,
    storage_endpoint: Option<u32>,
) {
    use mpinetsim_protocol::{ENV_GATEWAY, ENV_JOB, ENV_SECRET, ENV_SECRET_FILE};
    use std::io::Write;
    let lib = lib_dir.display();
    let first = &addresses[0];
    let secret = secret_file.display();
    let mut text = format!(
        "mpinetsim gateway: waiting for {ranks} ranks. Start them with this environment:\n  \
         LD_LIBRARY_PATH={lib}\n  {ENV_GATEWAY}={first}\n  {ENV_JOB}={job}\n  {ENV_SECRET_FILE}={secret}\n"
    );
    for other in &addresses[1..] {
        text.push_str(&format!("  (or {ENV_GATEWAY}={other})\n"));
    }
    if let Some(e) = storage_endpoint {
        let var = mpinetsim_protocol::storage::ENV_STORAGE_ENDPOINT;
        text.push_str(&format!(
            "  {var}={e}\n(the network's storage node: set it for every rank as well, e.g. -genv {var} {e})\n"
        ));
    }
    text.push_str(&format!(
        "e.g. mpiexec -n {ranks} -genv LD_LIBRARY_PATH {lib} -genv {ENV_GATEWAY} {first} -genv {ENV_JOB} {job} -genv {ENV_SECRET_FILE} {secret} ./program\n\
         The secret file (mode 0600) is the job's password: ranks on other hosts need it at the same path, or {ENV_SECRET} set to its contents in the environment of the shell that starts the launcher (never on a command line, which every local user can read).\n"
    ));
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// A failure inside the job's private folder: mpinetsim's own (internal),
/// whatever the function that met it would say of a folder the user gave.
fn private_folder(e: Error) -> Error {
    Error::internal(e.to_string())
}

/// The job secret in a private file (0600) for ranks started by another
/// launcher; removed when the job ends.
struct SecretFile {
    path: PathBuf,
}

impl SecretFile {
    /// Writes `dir/job-<job>.secret`, which must not exist yet.
    fn create(dir: &std::path::Path, job: u64, secret: JobSecret) -> Result<SecretFile, Error> {
        use std::io::Write;
        let path = dir.join(format!("job-{job}.secret"));
        crate::output_file::create_new_private(&path)
            .and_then(|mut f| f.write_all(format!("{}\n", secret.to_hex()).as_bytes()))
            .map_err(|e| {
                format!(
                    "cannot write the job's secret file {}: {e}; check the library folder",
                    path.display()
                )
            })?;
        Ok(SecretFile { path })
    }
}

impl Drop for SecretFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Applies `--model packet|analytic` over the file's `model` key.
pub fn apply_model(cfg: &mut NetworkConfig, model: Option<&str>) -> Result<(), Error> {
    if let Some(m) = model {
        cfg.model = netsim::ModelKind::parse(m)?;
    }
    Ok(())
}

/// `--show-net`: prints the resolved network on stdout; exit code 0.
pub fn show_net(
    cfg: &NetworkConfig,
    net: &std::path::Path,
    ranks: Option<u32>,
) -> Result<i32, Error> {
    let text = crate::show_net::text(cfg, &net.display().to_string(), ranks)?;
    print!("{text}");
    Ok(exit_code::SUCCESS)
}

/// Adds `--fault` specs to the network's faults (checked against the
/// network when the simulator is built).
pub fn add_fault_specs(cfg: &mut NetworkConfig, specs: &[String]) -> Result<(), Error> {
    for spec in specs {
        cfg.fault_entries.push(netsim::faults::parse_spec(spec)?);
    }
    Ok(())
}

/// `--eager-limit`: at most one piece of a streamed message
/// ([`mpinetsim_protocol::MAX_MESSAGE_PIECE`]).
pub fn parse_eager_limit(text: &str) -> Result<u64, Error> {
    use mpinetsim_protocol::MAX_MESSAGE_PIECE;
    let limit =
        netsim::base::units::parse_bytes(text).map_err(|e| format!("--eager-limit: {e}"))?;
    if limit > MAX_MESSAGE_PIECE {
        return Err(Error::Usage(format!(
            "--eager-limit {text} is above {} KiB, the largest message sent in one piece; give at most {}KiB (larger messages always use the rendezvous protocol, in pieces of that size)",
            MAX_MESSAGE_PIECE >> 10,
            MAX_MESSAGE_PIECE >> 10
        )));
    }
    Ok(limit)
}

/// Checks a fixed time factor: at least 1 (the emulated machine cannot
/// run faster than the real one), at most [`MAX_TIME_FACTOR`] (the job's
/// clock's range).
pub fn check_factor(f: f64) -> Result<(), Error> {
    if (1.0..=MAX_TIME_FACTOR).contains(&f) {
        return Ok(());
    }
    let why = if f.is_nan() {
        "is not a number".to_string()
    } else if f > MAX_TIME_FACTOR {
        format!(
            "is above {MAX_TIME_FACTOR}, the largest factor the job's nanosecond clock can represent (at {MAX_TIME_FACTOR} one emulated millisecond already takes 17 minutes of wall time)"
        )
    } else {
        "is below 1 (wall time = factor × emulated time, and the real processes cannot run faster than they do)".to_string()
    };
    Err(Error::Usage(format!(
        "--time-factor {} {why}; give a factor between 1 and {MAX_TIME_FACTOR} (e.g. 4)",
        short_number(f)
    )))
}

/// Writes `value` as pretty JSON, whole or not at all (see
/// [`crate::output_file::write_whole`]), or says which option's path failed.
pub fn write_json(
    path: &std::path::Path,
    value: &impl serde::Serialize,
    option: &str,
) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value).expect("reports serialise");
    crate::output_file::write_whole(path, (text + "\n").as_bytes(), option).map_err(Error::from)
}

/// `MPI_UNIVERSE_SIZE`: `--universe`, else the network's hosts (each can
/// take a spawned process), at least the job's ranks.
fn universe_size(
    given: Option<u32>,
    ranks: u32,
    sim: &dyn netsim::NetworkModel,
) -> Result<u32, Error> {
    if let Some(u) = given {
        if u < ranks {
            return Err(Error::Usage(format!(
                "--universe {u} is smaller than the job's {ranks} ranks; give at least {ranks} (MPI_UNIVERSE_SIZE counts the job's own processes)"
            )));
        }
        return Ok(u);
    }
    let hosts = crate::network_model::packet(sim).map_or(0, |p| p.network().hosts.len());
    Ok(ranks.max(u32::try_from(hosts).unwrap_or(u32::MAX)))
}

/// Sampling period of `--vectors`, in virtual ns.
pub const VECTOR_INTERVAL_NS: u64 = 100_000;

/// One job to run: what `mpinetsim run` does, reusable by `calibrate` and
/// `compare`.
pub struct JobSpec<'a> {
    /// Ranks.
    pub ranks: u32,
    /// Where the network came from (for messages).
    pub origin: String,
    /// The network.
    pub cfg: NetworkConfig,
    /// Time factor (≥ 1); the starting one when adaptive.
    pub time_factor: f64,
    /// Change the factor during the run.
    pub adaptive: Option<AdaptivePolicy>,
    /// Capture folder.
    pub capture: Option<PathBuf>,
    /// Eager limit as the user wrote it.
    pub eager_limit: &'a str,
    /// Program and arguments.
    pub command: &'a [String],
    /// Where rank output goes.
    pub output: RankOutput,
    /// Rank 0 reads mpinetsim's standard input (`run`; not the repeated
    /// runs of `calibrate` and `compare`).
    pub stdin_to_rank0: bool,
    /// Folder for time-series CSV files.
    pub vectors: Option<PathBuf>,
    /// File for the Chrome trace-event timeline.
    pub timeline: Option<PathBuf>,
    /// File for the record/replay trace.
    pub record: Option<PathBuf>,
    /// Ranks are started by someone else (hydra's mpiexec, srun) and
    /// connect to this socket; `command` is then only a label.
    pub external: Option<External>,
    /// What a job that makes no progress gets.
    pub stall: StallPolicy,
    /// How ranks measure their computation.
    pub compute_clock: mpinetsim_protocol::ComputeClock,
    /// How the ranks `run` starts reach the gateway (ranks another
    /// launcher starts follow their own MPINETSIM_TRANSPORT).
    pub transport: mpinetsim_protocol::transport::TransportKind,
    /// Where the gateway's loop runs (`--gateway-cpu`, `--gateway-fifo`).
    pub placement: crate::gateway_cpu::GatewayPlacement,
    /// How long an event may wait for the ranks' horizons (`--hold-cap`),
    /// wall ns.
    pub hold_cap_ns: u64,
    /// `MPI_UNIVERSE_SIZE` (`--universe`); None: the network's hosts, or
    /// the job's ranks if there are more.
    pub universe: Option<u32>,
    /// Print the cores this machine has for the ranks, and the factor
    /// that keeps up when they all compute at once.
    pub announce_cores: bool,
    /// Whether a progress line is drawn on a terminal, and with which row.
    pub progress: crate::progress::Show,
}

/// A gateway waiting for ranks a launcher starts.
#[derive(Clone, Debug)]
pub struct External {
    /// Addresses to listen on (none: a Unix socket in the job's private folder).
    pub listen: Vec<GatewayAddress>,
    /// Folder to put the shim libraries in (for the launcher's
    /// LD_LIBRARY_PATH); default `lib` beside the first Unix socket given,
    /// else in the private folder.
    pub lib_dir: Option<PathBuf>,
    /// How long a connection may take to complete its Hello, ns.
    pub handshake_timeout_ns: u64,
}

/// What a job produced.
pub struct JobResult {
    /// The report (also for failed jobs).
    pub report: JobReport,
    /// The job's exit code.
    pub exit_code: i32,
    /// A failure to finish writing captures or vectors.
    pub finish_error: Option<Error>,
}

/// Runs one job to the end. Errors before launch are one sentence; a job
/// that starts always gives a report.
pub fn run_job(a: &JobSpec) -> Result<JobResult, Error> {
    check_factor(a.time_factor)?;
    if a.ranks == 0 {
        return Err("-n 0: a job needs at least one rank; give -n 1 or more".into());
    }
    let eager_limit = parse_eager_limit(a.eager_limit)?;
    let (program, args) = match (a.command.split_first(), &a.external) {
        (Some((p, rest)), None) => (Some(p), rest),
        (_, Some(_)) => (None, &[][..]),
        (None, None) => return Err("no program given; write it after --, e.g. `mpinetsim run -n 4 --net configs/reference.toml -- ./a.out`".into()),
    };
    let origin = a.origin.clone();
    let cfg = &a.cfg;
    let mut sim = crate::network_model::from_config(
        cfg,
        &origin,
        a.ranks,
        a.capture.is_some(),
        a.vectors.is_some(),
    )?;
    let storage = crate::storage_node::StorageNode::attach(cfg, &origin, sim.as_mut(), a.ranks)?;
    let universe = universe_size(a.universe, a.ranks, sim.as_ref())?;
    let storage_endpoint = storage.as_ref().map(|s| s.endpoint());
    let program_path = program.map(|p| launcher::resolve_program(p)).transpose()?;
    let linkage = program_path.as_deref().map(mpi_linkage::mpi_linkage);
    if let (Some(MpiLinkage::OpenMpi(library)), Some(path)) = (&linkage, &program_path) {
        return Err(format!(
            "the program {} is built against Open MPI (it needs {library}), but mpinetsim stands in for MPICH: rebuild it with Debian's mpicc or mpif90 (MPICH), e.g. `mpicc.mpich -o prog prog.c`",
            path.display()
        ).into());
    }
    if let Some(path) = &a.timeline {
        crate::output_file::check_writable(path, "--timeline")?;
    }
    if let Some(path) = &a.record {
        crate::output_file::check_writable(path, "--record")?;
        if !cfg.storage.is_empty() {
            return Err("--record: the network has a [[storage]] node, whose answers a replay cannot reproduce yet; record on the network without it".into());
        }
        if sim.times_collectives() {
            return Err("--record needs the packet model (the analytic model times whole collectives, which a trace cannot replay message by message); drop `--model analytic` or the network file's `model = \"analytic\"`".into());
        }
    }
    let shim = launcher::locate_shim()?;
    tracing::debug!(
        "network {origin}: {} model, {} ranks, time factor {}; shim {}",
        cfg.model.name(),
        a.ranks,
        short_number(a.time_factor),
        shim.display()
    );
    let rank_hosts = sim.rank_host_names();
    let rank_cpu_speeds: Vec<f64> = rank_hosts.iter().map(|h| cfg.cpu_speed(h)).collect();
    let captures = match (&a.capture, packet_mut(sim.as_mut())) {
        (Some(dir), Some(packet)) => Some(CaptureFiles::create(dir, packet)?),
        _ => None,
    };
    let job_id = (std::process::id() as u64) << 20 | (monotonic_ns() & 0xfffff);
    let secret = JobSecret::generate().map_err(Error::Internal)?;
    // The socket and the libraries live in a folder only this user can
    // enter; it is removed when the job ends.
    let private = crate::private_dir::PrivateDir::create("mpinetsim")?;
    let job_dir = private.path().to_path_buf();
    let socket = job_dir.join("gateway.sock");
    let own_socket = GatewayAddress::Unix(socket.display().to_string());
    let (listen, lib_dir, handshake_timeout_ns) = match &a.external {
        Some(e) => {
            let listen = if e.listen.is_empty() {
                vec![own_socket]
            } else {
                e.listen.clone()
            };
            let lib = e.lib_dir.clone().unwrap_or_else(|| job_dir.join("lib"));
            (listen, lib, e.handshake_timeout_ns)
        }
        None => (
            vec![own_socket],
            job_dir.join("lib"),
            crate::loop_core::DEFAULT_HANDSHAKE_TIMEOUT_NS,
        ),
    };
    let lib_role = match a.external.as_ref().and_then(|e| e.lib_dir.as_ref()) {
        Some(_) => "the --lib-dir folder",
        None => "the library folder",
    };
    // A --lib-dir folder is the user's; the default one is inside the
    // private folder, so a failure there is mpinetsim's own.
    let own_lib_dir = a
        .external
        .as_ref()
        .and_then(|e| e.lib_dir.as_ref())
        .is_none();
    let in_lib_dir = |e: Error| if own_lib_dir { private_folder(e) } else { e };
    let lib_dir = launcher::install_shim(&shim, &lib_dir, lib_role).map_err(in_lib_dir)?;
    tracing::debug!(
        "job {job_id:x}: listening on {}; libraries in {}",
        listen
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        lib_dir.display()
    );
    // A standalone gateway's ranks read the secret from a private file,
    // so it never appears on a launcher's command line.
    let secret_file = match &a.external {
        Some(_) => Some(SecretFile::create(&lib_dir, job_id, secret).map_err(in_lib_dir)?),
        None => None,
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&interrupted))
            .map_err(|e| Error::internal(format!("cannot handle signals: {e}")))?;
    }
    let settings = GatewaySettings {
        core: CoreSettings {
            ranks: a.ranks,
            factor: a.time_factor,
            eager_limit,
            job_id,
            secret,
            handshake_timeout_ns,
            lookahead: crate::loop_core::Lookahead::for_network(
                crate::fidelity::smallest_latency(sim.as_ref()).map(|l| l.ns),
            ),
            output_limit_bytes: crate::loop_core::OUTPUT_LIMIT_BYTES,
            adaptive: a.adaptive.clone(),
            stall: a.stall.clone(),
            compute_clock: a.compute_clock,
            rank_cpus: rank_hosts
                .iter()
                .map(|h| {
                    HostCpu::new(cfg.cpu_speed(h), cfg.cpu_threshold_ns(h))
                        .with_poll_ns(cfg.poll_cost_ns(h))
                })
                .collect(),
            hold_cap_ns: a.hold_cap_ns,
        },
        listen,
    };
    let started = Instant::now();
    let epoch = monotonic_ns();
    let vectors = match (&a.vectors, packet_mut(sim.as_mut())) {
        (Some(dir), Some(packet)) => {
            packet.enable_vectors(netsim::Nanos(VECTOR_INTERVAL_NS));
            Some(crate::vector_files::VectorFiles::create(dir, packet)?)
        }
        _ => None,
    };
    let timeline_dir = job_dir.join("timeline");
    if a.timeline.is_some() {
        crate::trusted_folder::create_private_dir_all(&timeline_dir).map_err(private_folder)?;
    }
    let record_dir = job_dir.join("record");
    if a.record.is_some() {
        crate::trusted_folder::create_private_dir_all(&record_dir).map_err(private_folder)?;
    }
    let mut gw = Gateway::new(settings, sim, captures, epoch, interrupted)?;
    // A rank on shared memory adds its two doorbells (eventfds); the
    // mapping's memfd is closed once mapped.
    let shm = a.transport == mpinetsim_protocol::transport::TransportKind::Shm;
    let (per_rank, what) = match (&a.external, shm) {
        (None, true) => (
            5,
            "a socket, two shared-memory doorbells and two output pipes per rank",
        ),
        (None, false) => (3, "a socket and two output pipes per rank"),
        (Some(_), _) => (3, "a socket and two shared-memory doorbells per rank"),
    };
    crate::fd_limit::check(a.ranks, per_rank, what)?;
    // The ranks' CPUs (all but the gateway's under --gateway-cpu; the
    // summary below counts them); the thread is put back as it was when
    // `placed` drops, at the end.
    let mut placed = a.placement.keep_ranks_off()?;
    // Said once the job is sure to start (a refusal stays one sentence).
    if a.announce_cores {
        eprint!(
            "{}",
            crate::cores::start_summary(a.ranks, a.compute_clock, &rank_cpu_speeds)
        );
    }
    gw.vectors = vectors;
    gw.core.storage = storage;
    if a.timeline.is_some() {
        gw.core.arrows = Some(Vec::new());
    }
    let launch_spec = program_path.as_deref().map(|program| LaunchSpec {
        program,
        args,
        lib_dir: &lib_dir,
        socket: &socket,
        size: a.ranks,
        job_id,
        secret,
        output: &a.output,
        stdin_to_rank0: a.stdin_to_rank0,
        timeline_dir: a.timeline.as_ref().map(|_| timeline_dir.as_path()),
        record_dir: a.record.as_ref().map(|_| record_dir.as_path()),
        private_dir: &job_dir,
        storage_endpoint,
        transport: a.transport,
        universe,
    });
    let spawn_policy = crate::spawn::SpawnPolicy {
        cfg,
        refused: a.record.as_ref().map(|_| {
            "--record cannot replay processes that join during the run, so MPI_Comm_spawn is refused while recording; record a run without spawning".to_string()
        }),
    };
    let mut ranks = match &launch_spec {
        Some(spec) => launcher::launch(spec)?,
        None => {
            print_launch_environment(
                &gw.advertised_addresses(),
                &lib_dir,
                job_id,
                secret_file.as_ref().map_or(&job_dir, |f| &f.path),
                a.ranks,
                storage_endpoint,
            );
            launcher::Ranks::none()
        }
    };
    if let Some(refused) = placed.take_cpu()? {
        eprintln!("{refused}");
    }
    gw.core.own_pids = ranks.procs.iter().map(|p| p.child.id()).collect();

    let mut progress = a.progress.line();
    let outcome = gw.run(|g| {
        if let Some(p) = progress.as_mut() {
            p.tick(|| (g.sim.now().0, g.lateness.max_ns()));
        }
        if let Some(f) = g.sim.failure() {
            return Some(JobOutcome::NetworkFailed(f.message.clone()));
        }
        for (rank, status) in ranks.reap() {
            let conn = g.rank_connections().find(|(r, _)| *r == rank);
            let finalized = conn.is_some_and(|(_, c)| c.counters.is_some());
            if !finalized {
                let pid = ranks.procs[rank as usize].child.id();
                let ended = launcher::describe(&status);
                let reason = match (conn, &linkage, &program_path) {
                    (Some(_), _, _) => format!("(pid {pid}) {ended} before MPI_Finalize"),
                    (None, Some(l), Some(p)) => format!(
                        "(pid {pid}) {ended} before completing MPI_Init{}",
                        mpi_linkage::hint(l, p)
                    ),
                    (None, _, _) => format!("(pid {pid}) {ended} before completing MPI_Init"),
                };
                return Some(JobOutcome::RankFailed { rank, reason });
            }
        }
        if g.has_spawn_requests() {
            let served = match &launch_spec {
                Some(spec) => crate::spawn::serve(g, &mut ranks, spec, &spawn_policy),
                None => crate::spawn::refuse_all(g),
            };
            if let Err(o) = served {
                return Some(o);
            }
        }
        None
    });

    // Clear the progress line, then stop or collect the processes.
    drop(progress);
    if outcome == JobOutcome::Completed {
        ranks.wait_for_exit(Duration::from_secs(5));
    }
    ranks.stop();
    let flush_result = gw.flush_captures();
    let wall = started.elapsed().as_secs_f64();

    let (outcome_kind, reason_text, mut exit_code) = match &outcome {
        JobOutcome::Completed => (Outcome::Completed, String::new(), exit_code::SUCCESS),
        JobOutcome::RankFailed { rank, reason } => (
            Outcome::RankFailed,
            format!("rank {rank} {reason}; the other ranks were stopped"),
            exit_code::JOB_FAILED,
        ),
        JobOutcome::Aborted { rank, code, text } => {
            (
                Outcome::Aborted,
                if text.is_empty() {
                    format!("rank {rank} called MPI_Abort with code {code}; the other ranks were stopped")
                } else {
                    format!("rank {rank} ended the job: {text}")
                },
                if *code == 0 {
                    exit_code::JOB_FAILED
                } else {
                    *code
                },
            )
        }
        JobOutcome::ProtocolError { rank, pid, message } => {
            let rank = rank.or_else(|| {
                let pid = (*pid)?;
                ranks
                    .procs
                    .iter()
                    .find(|p| p.child.id() == pid)
                    .map(|p| p.rank)
            });
            let text = match rank {
                Some(r) => format!("rank {r} broke the gateway protocol: {message}; the job was stopped"),
                None => format!(
                    "a process that is not one of the ranks broke the gateway protocol: {message}; the job was stopped"
                ),
            };
            (Outcome::ProtocolError, text, exit_code::JOB_FAILED)
        }
        JobOutcome::Interrupted => (
            Outcome::Interrupted,
            "interrupted; the ranks were stopped".to_string(),
            exit_code::INTERRUPTED,
        ),
        JobOutcome::Stalled(message) => (
            Outcome::Stalled,
            format!(
                "{message}; the ranks were stopped (--on-stall wait keeps a stalled job waiting)"
            ),
            exit_code::JOB_FAILED,
        ),
        JobOutcome::NetworkFailed(message) => (
            Outcome::NetworkFailed,
            format!("{message}; the ranks were stopped"),
            exit_code::NETWORK_FAILED,
        ),
        JobOutcome::CaptureFailed(message) => (
            Outcome::CaptureFailed,
            format!("{message}; the ranks were stopped"),
            exit_code::INTERNAL,
        ),
        JobOutcome::GatewayFailed(message) => (
            Outcome::GatewayFailed,
            format!("{message}; the ranks were stopped"),
            exit_code::INTERNAL,
        ),
    };
    let reason = (outcome_kind != Outcome::Completed).then_some(reason_text);
    let mut rank_reports = Vec::new();
    let mut last_init = 0u64;
    let mut any_init = false;
    let mut last_finalize = 0u64;
    // Ranks spawned during the run follow the job's own.
    let rank_hosts = gw.core.sim.rank_host_names();
    let all_ranks = gw.core.rank_count();
    for rank in 0..all_ranks {
        let p = ranks.procs.iter().find(|p| p.rank == rank);
        let conn = gw
            .core
            .rank_connections()
            .find(|(r, _)| *r == rank)
            .map(|(_, c)| c);
        let counters = conn.and_then(|c| c.counters.as_ref());
        if let Some(c) = conn.filter(|_| rank < a.ranks) {
            if c.state != ConnState::AwaitHello {
                // When its MPI_Init returned, as it reported at
                // MPI_Finalize; else when it connected.
                let joined = counters
                    .map(|k| k.init_srt_ns)
                    .filter(|&t| t > 0)
                    .unwrap_or(c.hello_srt_ns);
                last_init = last_init.max(joined);
                any_init = true;
            }
        }
        if let Some(c) = counters {
            last_finalize = last_finalize.max(c.finalize_srt_ns);
        }
        let (ended, code) = match p.and_then(|p| p.status.as_ref()) {
            Some(st) => {
                use std::os::unix::process::ExitStatusExt;
                (
                    launcher::describe(st),
                    st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
                )
            }
            // Started by a launcher: what the connection saw.
            None if p.is_none() => match (conn, counters) {
                (_, Some(_)) => ("finalized".into(), 0),
                (Some(_), None) => ("left without MPI_Finalize".into(), 1),
                (None, None) => ("never connected".into(), 1),
            },
            None => ("unknown".into(), 1),
        };
        if outcome == JobOutcome::Completed {
            exit_code = exit_code.max(code);
        }
        rank_reports.push(RankReport {
            rank,
            pid: p
                .map(|p| p.child.id())
                .or(conn.map(|c| c.pid).filter(|&pid| pid != 0)),
            ended,
            exit_code: code,
            mpi: counters.map(MpiCounters::from),
            connection: conn.map(|c| if c.tcp { c.peer.clone() } else { "unix".into() }),
            offset_ns: conn.and_then(|c| c.clock_offset_ns),
            uncertainty_ns: conn.and_then(|c| c.clock_offset_ns.map(|_| c.clock_uncertainty_ns)),
            max_uncertainty_ns: conn
                .and_then(|c| c.clock_offset_ns.map(|_| c.max_clock_uncertainty_ns)),
            clock_probes: conn.map_or(0, |c| c.clock_probes),
            host: rank_hosts
                .get(rank as usize)
                .filter(|h| !h.is_empty())
                .cloned(),
            cpu_speed: rank_hosts
                .get(rank as usize)
                .map_or(1.0, |h| cfg.cpu_speed(h)),
        });
    }
    let stats = gw.core.sim.stats();
    let end_wall = monotonic_ns();
    let max_factor = gw
        .core
        .time
        .clock
        .pieces()
        .iter()
        .map(|p| p.factor)
        .fold(1.0, f64::max);
    let adaptive = a.adaptive.as_ref().map(|_| {
        let scaled = gw.core.time.srt(end_wall) as f64 / 1e9;
        let wall_s = end_wall.saturating_sub(epoch) as f64 / 1e9;
        crate::report::AdaptiveSummary {
            max_factor,
            scaled_time_s: scaled,
            wall_s,
            wall_at_max_factor_s: scaled * max_factor,
            wall_saved_s: scaled * max_factor - wall_s,
        }
    });
    let max_behind = gw.core.lateness.summary();
    let smallest = match max_behind.max_ns {
        0 => None,
        _ => crate::fidelity::smallest_latency(gw.core.sim.as_ref()),
    };
    let late_injections = gw.core.injection_lateness.summary();
    let run_lateness = crate::fidelity::RunLateness {
        max_behind_ns: max_behind.max_ns,
        late_injections: late_injections.late,
        injections: late_injections.injections,
        max_late_injection_ns: late_injections.max_ns,
        polls: (rank_reports.iter())
            .filter_map(|r| r.mpi.as_ref())
            .map(|m| m.polls)
            .sum(),
    };
    let compute_late_ns = (max_behind.by_kind.iter())
        .find(|k| k.kind == crate::lateness::LatenessKind::Compute)
        .map_or(0, |k| k.max_ns);
    let warnings: Vec<String> = smallest
        .iter()
        .flat_map(|s| {
            [
                crate::fidelity::warning(&run_lateness, max_factor, s),
                crate::cores::late_computation_warning(
                    compute_late_ns,
                    s.ns,
                    max_factor,
                    a.ranks,
                    &rank_cpu_speeds,
                ),
            ]
        })
        .flatten()
        .collect();
    let report = JobReport {
        schema_version: crate::report::SCHEMA_VERSION,
        command: a.command.to_vec(),
        network: cfg.name.clone().unwrap_or(origin),
        model: gw.core.sim.kind(),
        analytic: analytic_stats(gw.core.sim.as_ref()),
        ranks: a.ranks,
        time_factor: a.time_factor,
        compute_clock: a.compute_clock.name().to_string(),
        cores: crate::cores::available(),
        outcome: outcome_kind,
        reason,
        exit_code,
        wall_s: wall,
        emulated_runtime_s: (any_init && last_finalize >= last_init)
            .then(|| (last_finalize - last_init) as f64 / 1e9),
        max_behind,
        late_injections,
        rank_reports,
        messages_in: gw.core.messages_in,
        messages_out: gw.core.messages_out,
        packets: stats.links.iter().map(|l| l.packets).sum(),
        network_stats: stats,
        captures: gw
            .captures()
            .map(|c| c.paths().iter().map(|p| p.display().to_string()).collect())
            .unwrap_or_default(),
        factor_changes: gw.core.factor_changes.clone(),
        adaptive,
        gateway_peak_rss_bytes: crate::memory::peak_rss_bytes(),
        loop_wakeups: gw.wakeups.summary(),
        horizon_holds: gw.core.holds,
        refused_connections: gw.core.refused,
        storage: gw.core.storage.as_ref().map(|s| s.report()),
        warnings,
    };
    let mut finish_error = flush_result.err();
    if let Some(path) = &a.timeline {
        let written = crate::timeline::write(
            path,
            &timeline_dir,
            all_ranks,
            &gw.core.time.clock,
            gw.core.arrows.as_deref().unwrap_or_default(),
            &report.network_stats.network_events,
        );
        if let Err(e) = written {
            finish_error.get_or_insert(e);
        }
    }
    if let Some(path) = &a.record {
        if let Err(e) = crate::trace_file::merge(path, &record_dir, a.ranks) {
            finish_error.get_or_insert(e);
        }
    }
    drop(gw); // closes and removes the sockets
    drop(secret_file);
    drop(private);
    Ok(JobResult {
        report,
        exit_code,
        finish_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eager_limit_is_at_most_one_piece() {
        assert_eq!(parse_eager_limit("64KiB"), Ok(65536));
        assert_eq!(parse_eager_limit("1MiB"), Ok(1 << 20));
        let e = parse_eager_limit("4MiB").unwrap_err().to_string();
        assert!(e.starts_with("--eager-limit 4MiB is above 1024 KiB"), "{e}");
    }

    #[test]
    fn factors_are_bounded_by_the_clock_and_said_readably() {
        assert!(check_factor(1.0).is_ok() && check_factor(MAX_TIME_FACTOR).is_ok());
        for f in [1e13, 1e19, f64::INFINITY, f64::NAN, 0.5, 1e300] {
            let e = check_factor(f).unwrap_err().to_string();
            assert!(e.contains("give a factor between 1 and 1000000"), "{e}");
            assert!(e.len() < 300, "{e}");
        }
        assert!(check_factor(1e300)
            .unwrap_err()
            .to_string()
            .starts_with("--time-factor 1e300 is above 1000000"));
    }
}
