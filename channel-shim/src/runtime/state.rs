//! Process-wide state of the shim: whether MPI is initialised or finalised,
//! the gateway connection, the job's clock parameters and the pacer.

use super::connection::{GatewayTransport, Identity};
use super::pacer::Pacer;
use mpinetsim_protocol::{
    GatewayAddress, JobSecret, RankCounters, ENV_GATEWAY, ENV_JOB, ENV_RANK, ENV_SECRET,
    ENV_SECRET_FILE, ENV_SIZE, ENV_SOCKET, ENV_TIMELINE_DIR,
};
use shim_engine::{Engine, EngineConfig};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Who this process is in the job.
#[derive(Clone, Copy, Debug)]
pub struct JobInfo {
    /// World rank.
    pub rank: u32,
    /// World size.
    pub size: u32,
}

static INITIALIZED: AtomicBool = AtomicBool::new(false);
static FINALIZED: AtomicBool = AtomicBool::new(false);
/// The MPI engine of this process, which owns the gateway connection.
static ENGINE: Mutex<Option<Engine<GatewayTransport>>> = Mutex::new(None);
static PACER: Mutex<Option<Pacer>> = Mutex::new(None);
static SOCKET_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The gateway socket's descriptor (-1 when not connected).
pub fn gateway_fd() -> i32 {
    SOCKET_FD.load(Ordering::SeqCst)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn env_u64(name: &str) -> Result<u64, String> {
    let v = std::env::var(name).map_err(|_| {
        format!("{name} is not set: this program uses mpinetsim's MPI library but was not started by `mpinetsim run`; start it as `mpinetsim run -n N --net FILE -- program`")
    })?;
    v.parse().map_err(|_| format!("{name}={v} is not a number"))
}

/// The first of `names` that is set, as a number: mpinetsim's own variable,
/// then the launchers' (hydra's PMI, Slurm, Open MPI).
fn launcher_u64(names: &[&str], what: &str) -> Result<u64, String> {
    for name in names {
        if let Ok(v) = std::env::var(name) {
            return v
                .trim()
                .parse()
                .map_err(|_| format!("{name}={v} is not a number (the {what})"));
        }
    }
    Err(format!(
        "none of {} is set, so this process does not know its {what}: start it with `mpinetsim run`, or with mpiexec/srun against `mpinetsim gateway`",
        names.join(", ")
    ))
}

/// Where the gateway listens: MPINETSIM_SOCKET (a Unix socket path, set
/// by `mpinetsim run`) or MPINETSIM_GATEWAY=unix:PATH or tcp:HOST:PORT (set
/// by the user for another launcher).
fn gateway_address() -> Result<GatewayAddress, String> {
    if let Ok(s) = std::env::var(ENV_SOCKET) {
        return Ok(GatewayAddress::Unix(s));
    }
    match std::env::var(ENV_GATEWAY) {
        Ok(g) => GatewayAddress::parse(&g).map_err(|e| {
            format!("{ENV_GATEWAY}: {e}; give the address `mpinetsim gateway` printed")
        }),
        Err(_) => Err(format!("{ENV_SOCKET} is not set: this program uses mpinetsim's MPI library but was not started by `mpinetsim run`; start it as `mpinetsim run -n N --net FILE -- program`, or set {ENV_GATEWAY} to the address `mpinetsim gateway` prints")),
    }
}

/// The job secret: `MPINETSIM_SECRET`, else the contents of the file
/// `MPINETSIM_SECRET_FILE` names (what `mpinetsim gateway` prints).
fn job_secret() -> Result<JobSecret, String> {
    if let Ok(v) = std::env::var(ENV_SECRET) {
        return JobSecret::from_hex(v.trim()).ok_or_else(|| {
            format!("{ENV_SECRET} is not 32 hex digits; set it to the contents of the secret file `mpinetsim gateway` printed")
        });
    }
    let Some(path) = std::env::var_os(ENV_SECRET_FILE) else {
        return Err(format!(
            "neither {ENV_SECRET_FILE} nor {ENV_SECRET} is set: pass the secret file `mpinetsim gateway` printed along with {ENV_GATEWAY} and {ENV_JOB}"
        ));
    };
    let path = std::path::Path::new(&path);
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "cannot read the job's secret file {} ({ENV_SECRET_FILE}): {e}; on another host, copy the file to the same path",
            path.display()
        )
    })?;
    JobSecret::from_hex(text.trim()).ok_or_else(|| {
        format!(
            "the secret file {} ({ENV_SECRET_FILE}) does not hold 32 hex digits; give the file `mpinetsim gateway` printed",
            path.display()
        )
    })
}

/// The job size the launcher's environment gives (also before MPI_Init).
pub fn job_size_from_env() -> Option<u32> {
    launcher_u64(&SIZE_VARIABLES, "job size")
        .ok()
        .map(|n| n as u32)
}

/// Where launchers put the job size: mpinetsim's own variable, then
/// hydra's PMI, Slurm's and Open MPI's.
const SIZE_VARIABLES: [&str; 4] = [ENV_SIZE, "PMI_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"];

/// MPI_Init: connects to the gateway named by the job's environment,
/// unless a session already did.
pub fn init() -> Result<JobInfo, String> {
    if INITIALIZED.load(Ordering::SeqCst) {
        return Err("MPI_Init was called twice; call it once per process".into());
    }
    let info = connect()?;
    INITIALIZED.store(true, Ordering::SeqCst);
    Ok(info)
}

/// MPI_Session_init: connects to the gateway unless MPI_Init or another
/// session already did. Once the connection was closed (MPI_Finalize with
/// no session open), the process cannot rejoin the simulated network.
pub fn start_session() -> Result<JobInfo, String> {
    if DISCONNECTED.load(Ordering::SeqCst) {
        return Err("MPI_Session_init was called after MPI_Finalize had ended this process's MPI with no session open; mpinetsim cannot rejoin the simulated network, so open the session before MPI_Finalize".into());
    }
    let info = connect()?;
    // A program that only uses sessions leaves the network at exit.
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: registers a plain extern "C" function without arguments.
        unsafe { libc::atexit(disconnect_at_exit) };
    });
    Ok(info)
}

/// Called when the process exits: leaves the simulated network (sends
/// Finalize) if MPI is not in use any more — neither the world model
/// (never initialised, or finalised) nor a session. A process that exits
/// with MPI still in use is reported as such by the gateway.
extern "C" fn disconnect_at_exit() {
    let world_done = !is_initialized() || is_finalized();
    let sessions = lock(&ENGINE).as_ref().map(|e| e.sessions_open());
    if world_done && sessions == Some(0) {
        disconnect();
    }
}

/// MPI_Session_finalize has closed a session: once the world model is
/// finalised too, the process leaves the network now (if it never called
/// MPI_Init it may still do so, so that waits for the process's exit).
pub fn session_finished() {
    let sessions = lock(&ENGINE).as_ref().map(|e| e.sessions_open());
    if is_finalized() && sessions == Some(0) {
        disconnect();
    }
}

/// This process's identity in the job while connected.
static JOINED: Mutex<Option<JobInfo>> = Mutex::new(None);
/// The rank's emulated time when it had joined the job (MPI_Init or its
/// first session returns), ns; reported at MPI_Finalize.
static JOINED_AT_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// Set once the connection was closed.
static DISCONNECTED: AtomicBool = AtomicBool::new(false);

/// Connects to the gateway (once; later calls return the same identity).
fn connect() -> Result<JobInfo, String> {
    let mut joined = lock(&JOINED);
    if let Some(info) = *joined {
        return Ok(info);
    }
    let address = gateway_address()?;
    let rank = launcher_u64(
        &[ENV_RANK, "PMI_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"],
        "rank",
    )? as u32;
    let size = launcher_u64(&SIZE_VARIABLES, "job size")? as u32;
    let job = env_u64(ENV_JOB)?;
    let secret = job_secret()?;
    let me = Identity {
        rank,
        size,
        job,
        secret,
    };
    let kind = mpinetsim_protocol::transport::TransportKind::from_env()?;
    let dynamic = dynamic_world(rank, size)?;
    let mut t = GatewayTransport::connect(&address, kind, &me)?;
    t.set_dynamic(dynamic);
    // Sleeps must be precise: drop the default 50 µs timer slack.
    let _ = nix::sys::prctl::set_timerslack(1);
    let (compute_clock, host_cpu) = t.compute_model();
    super::clock::set_poll_cost_ns(host_cpu.poll_ns);
    let mut pacer = Pacer::new(compute_clock, host_cpu);
    if let Some(dir) = std::env::var_os(ENV_TIMELINE_DIR) {
        match super::timeline::SpanLog::create(std::path::Path::new(&dir), rank) {
            Ok(log) => pacer = pacer.with_timeline(log),
            Err(e) => eprintln!("mpinetsim: rank {rank} records no timeline: {e}"),
        }
    }
    super::trace_record::start(rank)?;
    *lock(&PACER) = Some(pacer);
    SOCKET_FD.store(t.raw_fd(), Ordering::SeqCst);
    // A piece of rendezvous data and its envelope fit in one frame.
    const _: () = assert!(
        mpinetsim_protocol::MAX_MESSAGE_PIECE as usize + shim_engine::envelope::HEADER_LEN + 64
            <= mpinetsim_protocol::MAX_FRAME_BODY
    );
    let cfg = EngineConfig {
        eager_limit: Some(t.eager_limit_bytes()),
        rendezvous_chunk: mpinetsim_protocol::MAX_MESSAGE_PIECE,
        ..EngineConfig::default()
    };
    super::trace_record::call(|| mpinetsim_protocol::trace_calls::CallRecord::Start {
        eager_limit: cfg.eager_limit.unwrap_or(0),
        rendezvous_chunk: cfg.rendezvous_chunk,
    });
    *lock(&ENGINE) = Some(Engine::new(t, cfg));
    *joined = Some(JobInfo { rank, size });
    JOINED_AT_NS.store(now_emulated_ns(), Ordering::Relaxed);
    Ok(JobInfo { rank, size })
}

/// This process's world, universe and parent from the environment `mpinetsim
/// run` gives its ranks (a spawned process's world is the ranks started
/// with it); a sentence when a variable is malformed.
fn dynamic_world(rank: u32, size: u32) -> Result<super::connection::DynamicWorld, String> {
    use mpinetsim_protocol::spawn::{parse_world, ENV_APPNUM, ENV_PARENT, ENV_UNIVERSE, ENV_WORLD};
    let number = |name: &str| -> Result<Option<u32>, String> {
        match std::env::var(name) {
            Ok(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| format!("{name}={v} is not a number")),
            Err(_) => Ok(None),
        }
    };
    let world = match std::env::var(ENV_WORLD) {
        Ok(v) => parse_world(&v)
            .filter(|&(first, count)| (first..first + count).contains(&rank))
            .ok_or_else(|| {
                format!("{ENV_WORLD}={v} is not FIRST:COUNT holding this process's rank {rank}")
            })?,
        Err(_) => (0, size),
    };
    let storage = std::env::var_os(mpinetsim_protocol::storage::ENV_STORAGE_ENDPOINT).is_some();
    Ok(super::connection::DynamicWorld {
        world,
        parent: number(ENV_PARENT)?,
        universe: number(ENV_UNIVERSE)?.unwrap_or(size).max(world.1),
        appnum: number(ENV_APPNUM)?.map_or(0, |a| a as i32),
        // Only `mpinetsim run`, which tells the universe, starts ranks
        // during the run.
        open_ended: !storage && std::env::var_os(ENV_UNIVERSE).is_some(),
    })
}

/// True between a successful MPI_Init and the end of the process.
pub fn is_initialized() -> bool {
    INITIALIZED.load(Ordering::SeqCst)
}

/// True once MPI_Finalize has completed.
pub fn is_finalized() -> bool {
    FINALIZED.load(Ordering::SeqCst)
}

/// Scaled real time now, ns (0 before MPI_Init).
pub fn now_srt_ns() -> u64 {
    super::clock::srt_now()
}

/// The rank's time on the emulated machine now, ns (0 before MPI_Init):
/// scaled real time plus the rank's offset from it (see
/// [`super::clock::emulated_offset_ns`]).
pub fn now_emulated_ns() -> u64 {
    super::clock::emulated_at(super::clock::srt_now())
}

/// Runs `f` with the MPI engine; None before MPI_Init or after MPI_Finalize.
/// `None` also on a thread that already holds the engine (from a user
/// function the engine runs), where waiting for it would never end.
pub fn with_engine<R>(f: impl FnOnce(&mut Engine<GatewayTransport>) -> R) -> Option<R> {
    if engine_held_by_this_thread() {
        return None;
    }
    let mut g = lock(&ENGINE);
    let _held = Held::new();
    g.as_mut().map(f)
}

thread_local! {
    /// Whether this thread holds the engine (a user function the engine
    /// calls runs on the thread that holds it).
    static HOLDS_ENGINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks this thread as holding the engine until dropped.
struct Held(bool);

impl Held {
    fn new() -> Held {
        Held(HOLDS_ENGINE.with(|h| h.replace(true)))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HOLDS_ENGINE.with(|h| h.set(self.0));
    }
}

/// Whether this thread already holds the engine: an MPI call made from a
/// function the engine runs (a user reduction function) would wait for
/// itself forever.
pub fn engine_held_by_this_thread() -> bool {
    HOLDS_ENGINE.with(std::cell::Cell::get)
}

/// Runs `f` with the MPI engine unless it is busy (held by this or another
/// thread) or absent.
pub fn try_with_engine<R>(f: impl FnOnce(&mut Engine<GatewayTransport>) -> R) -> Option<R> {
    let mut g = ENGINE.try_lock().ok()?;
    let _held = Held::new();
    g.as_mut().map(f)
}

/// What a thread sleeps on until the gateway has sent something, while
/// connected.
pub fn gateway_waiter() -> Option<super::gateway_stream::GatewayWaiter> {
    with_engine(|e| e.transport().waiter().ok()).flatten()
}

/// Runs `f` with the pacer, if MPI is initialised.
pub fn pacer<R>(f: impl FnOnce(&mut Pacer) -> R) -> Option<R> {
    lock(&PACER).as_mut().map(f)
}

/// MPI_Finalize: ends the world model; the process leaves the network
/// now unless a session is still open (then the last session's end does).
pub fn finalize() -> Result<(), String> {
    if !is_initialized() || is_finalized() {
        return Err("MPI_Finalize was called without a matching MPI_Init, or twice".into());
    }
    FINALIZED.store(true, Ordering::SeqCst);
    let sessions = lock(&ENGINE).as_ref().map_or(0, |e| e.sessions_open());
    if sessions == 0 {
        disconnect();
    }
    Ok(())
}

/// Reports the engine's and the pacer's counters and closes the
/// connection (once).
fn disconnect() {
    if DISCONNECTED.swap(true, Ordering::SeqCst) {
        return;
    }
    super::one_sided_service::stop();
    let mut counters = RankCounters::default();
    if let Some(e) = lock(&ENGINE).as_ref() {
        let c = e.counters();
        counters.messages_sent = c.messages_sent;
        counters.bytes_sent = c.bytes_sent;
        counters.messages_received = c.messages_received;
        counters.expected = c.expected;
        counters.unexpected = c.unexpected;
        counters.unsuccessful_matches = c.unsuccessful_matches;
        counters.rma_operations = c.rma_operations;
        counters.rma_bytes = c.rma_bytes;
    }
    if let Some(p) = lock(&PACER).as_ref() {
        counters.calls = p.calls;
        counters.compute_ns = p.compute_ns;
        counters.compute_cpu_ns = p.compute_cpu_ns;
        counters.compute_wall_ns = p.compute_wall_ns;
        counters.compute_late_max_ns = p.late_max_ns;
        counters.compute_late_max_at_ns = p.late_max_at_ns;
        counters.compute_lateness = p.lateness.clone();
        counters.blocked_ns = p.blocked_ns;
        counters.slept_ns = p.slept_ns;
        counters.below_threshold = p.below_threshold;
        counters.below_threshold_ns = p.below_threshold_ns;
    }
    counters.polls = super::clock::polls();
    counters.finalize_srt_ns = now_emulated_ns();
    counters.init_srt_ns = JOINED_AT_NS.load(Ordering::Relaxed);
    super::trace_record::finish();
    let engine = lock(&ENGINE).take();
    if let Some(mut e) = engine {
        e.transport_mut().finalize(counters);
    }
}

/// MPI_Abort: tells the gateway (an empty text means "MPI_Abort was
/// called") and exits with `code`; prints `fallback` when not connected.
pub fn abort_job(code: i32, fallback: &str) -> ! {
    if !notify_gateway_of_abort(code, "") {
        eprintln!("mpinetsim: {fallback}");
    }
    std::process::exit(if code == 0 { 1 } else { code & 0xff })
}

/// Sends an Abort frame if connected (never blocks on a held lock);
/// returns whether it was sent.
pub(super) fn notify_gateway_of_abort(code: i32, text: &str) -> bool {
    if let Ok(mut g) = ENGINE.try_lock() {
        if let Some(e) = g.as_mut() {
            return e.transport_mut().send_abort(code, text);
        }
    }
    false
}
