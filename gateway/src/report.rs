//! The reports mpinetsim writes as JSON, and the run report's summary on
//! stderr.
//!
//! The JSON is a contract with the scripts that read it: every report is a
//! typed struct here (none is built by hand), each carries
//! [`SCHEMA_VERSION`], and [`Report`] is the one type whose JSON Schema
//! (`schema()`) ships as docs/report.schema.json; a test regenerates it and
//! fails when the file differs. A value the run could not know is `null`,
//! never a made-up 0.

use crate::lateness::LatenessSummary;
use mpinetsim_protocol::RankCounters;
use netsim::model::stats::SimStats;
use schemars::JsonSchema;
use serde::Serialize;

/// The layout version of every report. Raise it when a field is removed,
/// renamed or changes meaning (adding a field keeps it).
pub const SCHEMA_VERSION: u32 = 1;

/// Any report mpinetsim writes, tagged by the command that wrote it
/// (`"report": "run"`, ...). Only this type is serialised to a report file,
/// so the schema of the file is the schema of this type.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "report", rename_all = "snake_case")]
pub enum Report {
    /// `mpinetsim run --report` and `mpinetsim gateway --report`.
    Run(Box<JobReport>),
    /// `mpinetsim simulate --report`.
    Simulate(Box<crate::simulate::SimulateReport>),
    /// `mpinetsim replay --report`.
    Replay(Box<crate::replay::ReplayReport>),
    /// `mpinetsim compare --report`.
    Compare(Box<crate::compare::CompareReport>),
    /// `calibration.json` of `mpinetsim calibrate`.
    Calibrate(Box<crate::calibrate::Calibration>),
}

/// The JSON Schema of [`Report`], as docs/report.schema.json holds it
/// (pretty-printed, with a final newline).
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Report);
    serde_json::to_string_pretty(&schema).expect("the schema serialises") + "\n"
}

/// How a run, simulation or replay ended. The exit code follows from it
/// (docs/user-guide.md, "Exit codes"); the sentence saying why is the
/// run report's `reason` (a simulation's `failure`, a replay's
/// `result.network_failure`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every rank (or the whole workload) finished.
    Completed,
    /// A rank crashed or left before MPI_Finalize, or never got through
    /// MPI_Init.
    RankFailed,
    /// A rank called MPI_Abort or the shim ended the job for it.
    Aborted,
    /// A process broke the gateway protocol.
    ProtocolError,
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// The job stopped making progress (`--on-stall`).
    Stalled,
    /// A partition outlasted its timeout.
    NetworkFailed,
    /// A capture file could not be written.
    CaptureFailed,
    /// The gateway's event loop failed.
    GatewayFailed,
}

/// One rank's line in the report.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RankReport {
    /// Rank.
    pub rank: u32,
    /// Process id (null when no process or connection told it).
    pub pid: Option<u32>,
    /// How the process ended.
    pub ended: String,
    /// Exit code (128 + signal for signals).
    pub exit_code: i32,
    /// MPI counters from MPI_Finalize (absent if it never got there).
    pub mpi: Option<MpiCounters>,
    /// How it connected: "unix", or the TCP peer address ("tcp:IP:PORT").
    pub connection: Option<String>,
    /// Gateway clock − rank clock as the rank last measured it, ns (≈ 0 on
    /// the gateway's host; absent if it never reported one).
    pub offset_ns: Option<i64>,
    /// Uncertainty of that offset (half the best probe's round trip), ns.
    pub uncertainty_ns: Option<u64>,
    /// Largest uncertainty the rank reported during the run, ns.
    pub max_uncertainty_ns: Option<u64>,
    /// Clock probes the gateway answered for the rank (8 at MPI_Init, then
    /// 4 per second of wall time in which the rank called MPI).
    pub clock_probes: u64,
    /// The host the rank runs on (null with the analytic model, which has
    /// no hosts).
    pub host: Option<String>,
    /// Its host's CPU speed (the computation measured is divided by it).
    pub cpu_speed: f64,
}

/// A rank's MPI counters (from the shim), times in seconds of SRT.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MpiCounters {
    /// MPI calls.
    pub calls: u64,
    /// Messages sent.
    pub messages_sent: u64,
    /// Payload bytes sent.
    pub bytes_sent: u64,
    /// Messages received.
    pub messages_received: u64,
    /// Messages that found a posted receive.
    pub expected: u64,
    /// Messages that arrived before their receive.
    pub unexpected: u64,
    /// Queue entries examined without matching.
    pub unsuccessful_matches: u64,
    /// Time computing between MPI calls on the emulated machine (the
    /// measured computation ÷ the host's CPU speed).
    pub compute_s: f64,
    /// CPU time the rank's process consumed between MPI calls.
    pub compute_cpu_s: f64,
    /// Wall time between MPI calls (before the time-factor sleeps).
    pub compute_wall_s: f64,
    /// Largest lateness of one computation (scaled time).
    pub compute_late_max_s: f64,
    /// Time blocked inside MPI.
    pub blocked_s: f64,
    /// Wall time slept for the time factor.
    pub slept_wall_s: f64,
    /// One-sided operations issued (put, get, accumulates, fetch-and-op,
    /// compare-and-swap).
    pub rma_operations: u64,
    /// Bytes of target memory they covered.
    pub rma_bytes: u64,
    /// Computations not counted, being shorter than the host's
    /// `cpu_threshold`.
    pub below_threshold: u64,
    /// What they measured together on this machine (before `cpu_speed`).
    pub below_threshold_s: f64,
    /// Tests and probes that completed or found nothing, each costing the
    /// host's `poll_cost` of emulated time.
    pub polls: u64,
}

impl From<&RankCounters> for MpiCounters {
    fn from(c: &RankCounters) -> MpiCounters {
        MpiCounters {
            calls: c.calls,
            messages_sent: c.messages_sent,
            bytes_sent: c.bytes_sent,
            messages_received: c.messages_received,
            expected: c.expected,
            unexpected: c.unexpected,
            unsuccessful_matches: c.unsuccessful_matches,
            compute_s: c.compute_ns as f64 / 1e9,
            compute_cpu_s: c.compute_cpu_ns as f64 / 1e9,
            compute_wall_s: c.compute_wall_ns as f64 / 1e9,
            compute_late_max_s: c.compute_late_max_ns as f64 / 1e9,
            blocked_s: c.blocked_ns as f64 / 1e9,
            slept_wall_s: c.slept_ns as f64 / 1e9,
            rma_operations: c.rma_operations,
            rma_bytes: c.rma_bytes,
            below_threshold: c.below_threshold,
            below_threshold_s: c.below_threshold_ns as f64 / 1e9,
            polls: c.polls,
        }
    }
}

/// Everything about one `mpinetsim run`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct JobReport {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Network name.
    pub network: String,
    /// Network model.
    pub model: netsim::ModelKind,
    /// Counters of the analytic model (None with the packet model).
    pub analytic: Option<netsim::analytic::AnalyticStats>,
    /// Ranks.
    pub ranks: u32,
    /// Time factor.
    pub time_factor: f64,
    /// How the ranks measured their computation: "cpu" or "wall".
    pub compute_clock: String,
    /// Cores this machine gave the job.
    pub cores: usize,
    /// How the job ended.
    pub outcome: Outcome,
    /// What went wrong, one sentence (null when it completed).
    pub reason: Option<String>,
    /// The job's exit code.
    pub exit_code: i32,
    /// Wall time of the job, s.
    pub wall_s: f64,
    /// Emulated runtime: last MPI_Finalize − last return from MPI_Init
    /// (the job can communicate only once every rank is up; a rank that
    /// failed before MPI_Finalize counts from when it connected), in SRT
    /// seconds; null when no rank got through both.
    pub emulated_runtime_s: Option<f64>,
    /// Lateness of simulation events (maxBehind).
    pub max_behind: LatenessSummary,
    /// How late the ranks' messages entered the network, over all of
    /// them (punctual ones as 0): the lateness that moves a run's
    /// results, where maxBehind also counts events late against the wall
    /// clock that the program never sees.
    #[serde(default)]
    pub late_injections: crate::injection_lateness::InjectionLatenessSummary,
    /// How late (wall time) the loop's timer woke it for events: the
    /// floor of maxBehind times the factor.
    pub loop_wakeups: crate::wakeup::WakeupSummary,
    /// How often and how long events waited for ranks' horizons (ranks on
    /// shared memory, `--hold-cap`).
    #[serde(default)]
    pub horizon_holds: crate::loop_core::horizon_hold::HoldStats,
    /// Messages ranks sent / were delivered.
    pub messages_in: u64,
    /// Messages delivered to ranks.
    pub messages_out: u64,
    /// Frames put on links.
    pub packets: u64,
    /// Per rank.
    pub rank_reports: Vec<RankReport>,
    /// Network counters.
    pub network_stats: SimStats,
    /// Capture files written.
    pub captures: Vec<String>,
    /// Factor switches of an adaptive run (empty for a fixed factor).
    pub factor_changes: Vec<crate::adaptive::FactorChange>,
    /// For an adaptive run: what the largest factor it used would have cost
    /// had it been fixed from the start.
    pub adaptive: Option<AdaptiveSummary>,
    /// The gateway process's peak resident memory at the end of the job,
    /// bytes (`None` without /proc).
    pub gateway_peak_rss_bytes: Option<u64>,
    /// Connections dropped because they did not complete the handshake
    /// with the job's secret (wrong secret, garbage, silence).
    pub refused_connections: u64,
    /// The storage node's traffic per rank (`[[storage]]`; None without one).
    pub storage: Option<crate::storage_node::StorageReport>,
    /// Why the run's timings may not be trusted (maxBehind far above the
    /// network's smallest latency; see `fidelity`), one sentence each.
    pub warnings: Vec<String>,
}

/// The saving of an adaptive run against a fixed factor.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct AdaptiveSummary {
    /// Largest factor used (the fixed factor that would have kept up throughout).
    pub max_factor: f64,
    /// Scaled time from the epoch to the end of the job, s.
    pub scaled_time_s: f64,
    /// Wall time from the epoch to the end of the job, s.
    pub wall_s: f64,
    /// Wall time the same scaled time takes at `max_factor`, s.
    pub wall_at_max_factor_s: f64,
    /// `wall_at_max_factor_s` − `wall_s`.
    pub wall_saved_s: f64,
}

/// Most network events listed on stderr (the JSON report has them all).
pub const EVENTS_SHOWN: usize = 20;

/// The fault and routing log for stderr: a count, then one line per event
/// (at most [`EVENTS_SHOWN`]); empty without faults.
pub fn network_events_summary(events: &[netsim::faults::NetworkEvent], unrecorded: u64) -> String {
    if events.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "mpinetsim: network events: {} (faults, route changes, partitions)\n",
        events.len() as u64 + unrecorded
    );
    for e in events.iter().take(EVENTS_SHOWN) {
        s.push_str(&format!("mpinetsim:   {}\n", e.line()));
    }
    if events.len() > EVENTS_SHOWN {
        s.push_str(&format!(
            "mpinetsim:   … {} more in the JSON report (network_stats.network_events)\n",
            events.len() - EVENTS_SHOWN
        ));
    }
    if unrecorded > 0 {
        s.push_str(&format!(
            "mpinetsim:   … and {unrecorded} more counted but not recorded (only the first {} are kept)\n",
            netsim::faults::MAX_RECORDED_NETWORK_EVENTS
        ));
    }
    s
}

fn us(ns: u64) -> String {
    format!("{:.1} us", ns as f64 / 1e3)
}

/// Why a job has no emulated runtime to measure
/// ([`JobReport::measured_runtime`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoRuntime {
    /// The job ended early; the report's reason says how.
    #[error("{0}")]
    Ended(String),
    /// Every rank finished, but one with a non-zero status.
    #[error("a rank exited with a non-zero status")]
    RankFailed,
    /// No rank passed both MPI_Init and MPI_Finalize.
    #[error("no rank got through both MPI_Init and MPI_Finalize")]
    NeverInitialised,
}

impl JobReport {
    /// The emulated runtime of a job that completed with exit code 0 (what
    /// calibrate and compare measure), or the sentence saying why there is
    /// none.
    pub fn measured_runtime(&self) -> Result<f64, NoRuntime> {
        match (&self.reason, self.emulated_runtime_s) {
            (Some(reason), _) => Err(NoRuntime::Ended(reason.clone())),
            (None, _) if self.exit_code != 0 => Err(NoRuntime::RankFailed),
            (None, Some(runtime)) => Ok(runtime),
            (None, None) => Err(NoRuntime::NeverInitialised),
        }
    }

    /// The human summary for stderr.
    pub fn summary(&self) -> String {
        let m = &self.max_behind;
        let mut s = format!(
            "mpinetsim: job report ({}) — {} ranks{} on {} ({} model), time factor {}\n\
             mpinetsim: wall {:.3} s, emulated runtime {}, {} events, {} packets, {} messages\n\
             mpinetsim: maxBehind {} (p50 {}, p99 {}), latest: {} at {:.6} s\n",
            if self.exit_code == 0 {
                "completed"
            } else {
                "failed"
            },
            self.ranks,
            match self.rank_reports.len().saturating_sub(self.ranks as usize) {
                0 => String::new(),
                spawned => format!(" (+{spawned} spawned)"),
            },
            self.network,
            self.model.name(),
            netsim::base::text::short_number(self.time_factor),
            self.wall_s,
            self.emulated_runtime_s
                .map_or_else(|| "unknown".to_string(), |r| format!("{r:.6} s")),
            m.events,
            self.packets,
            self.messages_in,
            us(m.max_ns),
            us(m.p50_ns),
            us(m.p99_ns),
            m.max_kind
                .map(|k| k.to_string())
                .unwrap_or_else(|| "-".into()),
            m.max_at_ns.unwrap_or(0) as f64 / 1e9,
        );
        if !m.by_kind.is_empty() {
            let kinds: Vec<String> = (m.by_kind.iter())
                .map(|k| {
                    format!(
                        "{} {} (p99 {}, max {})",
                        k.kind,
                        k.events,
                        us(k.p99_ns),
                        us(k.max_ns)
                    )
                })
                .collect();
            s.push_str(&format!(
                "mpinetsim: lateness by kind: {}\n",
                kinds.join("; ")
            ));
        }
        let inj = &self.late_injections;
        if inj.injections > 0 {
            s.push_str(&format!(
                "mpinetsim: {} of {} messages entered the network after their stamp (p99 {}, max {})\n",
                inj.late,
                inj.injections,
                us(inj.p99_ns),
                us(inj.max_ns)
            ));
        }
        let w = &self.loop_wakeups;
        if let (Some(p50), Some(p99), Some(max)) = (w.p50_ns, w.p99_ns, w.max_ns) {
            s.push_str(&format!(
                "mpinetsim: timer wake-ups {} late by (wall) p50 {}, p99 {}, max {}\n",
                w.wakeups,
                us(p50),
                us(p99),
                us(max)
            ));
        }
        let h = &self.horizon_holds;
        if h.holds > 0 {
            s.push_str(&format!(
                "mpinetsim: {} events waited for a rank's horizon, {} in all (longest {}), {} until the cap\n",
                h.holds,
                us(h.held_wall_ns),
                us(h.max_held_wall_ns),
                h.cap_expiries
            ));
        }
        if let Some(a) = &self.adaptive {
            let path = if self.factor_changes.len() <= 6 {
                std::iter::once(format!("{}", self.time_factor))
                    .chain(
                        self.factor_changes
                            .iter()
                            .map(|c| format!("{} at {:.3} s", c.factor, c.at_srt_s)),
                    )
                    .collect::<Vec<_>>()
                    .join(" → ")
            } else {
                format!(
                    "{} switches between {} and {} (all in the JSON report)",
                    self.factor_changes.len(),
                    self.factor_changes
                        .iter()
                        .map(|c| c.factor)
                        .fold(self.time_factor, f64::min),
                    a.max_factor
                )
            };
            s.push_str(&format!(
                "mpinetsim: adaptive factor: {path}; a fixed factor {} would have taken {:.3} s of wall time instead of {:.3} s (saved {:.3} s)\n",
                a.max_factor,
                a.wall_at_max_factor_s,
                a.wall_s,
                a.wall_saved_s
            ));
        }
        if let Some(a) = &self.analytic {
            s.push_str(&format!(
                "mpinetsim: analytic model: {} messages ({} between nodes, {} waiting for links/buses), {} collectives ({} modelled), {} collective data messages untimed\n",
                a.messages,
                a.inter_node_messages,
                us(a.contention_wait_ns),
                a.collectives,
                us(a.collective_ns),
                a.untimed_messages
            ));
        }
        if let Some(rss) = self.gateway_peak_rss_bytes {
            s.push_str(&format!(
                "mpinetsim: gateway peak memory {:.1} MiB ({:.1} KiB per rank)\n",
                rss as f64 / 1048576.0,
                rss as f64 / 1024.0 / f64::from(self.ranks.max(1))
            ));
        }
        s.push_str(&network_events_summary(
            &self.network_stats.network_events,
            self.network_stats.network_events_unrecorded,
        ));
        if self.refused_connections > 0 {
            s.push_str(&format!(
                "mpinetsim: {} connection(s) refused (no Hello with the job's secret)\n",
                self.refused_connections
            ));
        }
        for w in &self.warnings {
            s.push_str(&format!("mpinetsim: warning: {w}\n"));
        }
        s.push_str(&format!(
            "mpinetsim: computation measured as {} time; {} ranks on {} cores\n",
            self.compute_clock, self.ranks, self.cores
        ));
        s.push_str("mpinetsim: rank  ended                 sent  recv  expected  unexpected  unsucc.  compute_s      cpu_s  cpu_speed  blocked_s  clock offset ± uncertainty\n");
        for r in &self.rank_reports {
            let clock = match (r.offset_ns, r.uncertainty_ns) {
                (Some(o), Some(u)) => format!(
                    "{:+.1} us ± {:.1} us{}",
                    o as f64 / 1e3,
                    u as f64 / 1e3,
                    match &r.connection {
                        Some(c) if c != "unix" => format!(" ({c})"),
                        _ => String::new(),
                    }
                ),
                _ => "-".into(),
            };
            match &r.mpi {
                Some(c) => {
                    s.push_str(&format!(
                    "mpinetsim: {:>4}  {:<20} {:>5} {:>5} {:>9} {:>11} {:>8} {:>10.6} {:>10.6} {:>10} {:>10.6}  {clock}\n",
                    r.rank, r.ended, c.messages_sent, c.messages_received, c.expected, c.unexpected,
                    c.unsuccessful_matches, c.compute_s, c.compute_cpu_s, r.cpu_speed, c.blocked_s
                ))
                }
                None => s.push_str(&format!(
                    "mpinetsim: {:>4}  {:<20} (no MPI_Finalize)\n",
                    r.rank, r.ended
                )),
            }
        }
        let one_sided: Vec<String> = self
            .rank_reports
            .iter()
            .filter_map(|r| r.mpi.as_ref().map(|c| (r.rank, c)))
            .filter(|(_, c)| c.rma_operations > 0)
            .map(|(rank, c)| format!("rank {rank} {} ({} B)", c.rma_operations, c.rma_bytes))
            .collect();
        if !one_sided.is_empty() {
            s.push_str(&format!(
                "mpinetsim: one-sided operations issued: {}\n",
                one_sided.join(", ")
            ));
        }
        if let Some(st) = &self.storage {
            s.push_str(&st.stderr_lines());
        }
        s
    }
}
