//! `mpinetsim simulate`: a synthetic workload in pure virtual time.

use crate::capture_files::CaptureFiles;
use crate::cli::SimulateArgs;
use crate::error::Error;
use crate::report::{Outcome, SCHEMA_VERSION};
use crate::setup_progress::SetupProgress;
use netsim::model::stats::SimStats;
use netsim::workload::WorkloadOutcome;
use netsim::workload::{self, Pattern, Workload};
use netsim::Simulator;
use schemars::JsonSchema;
use serde::Serialize;
use std::time::Instant;

/// What `simulate --report` writes.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SimulateReport {
    /// [`crate::report::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The network's name (or its file).
    pub network: String,
    /// The workload as asked for.
    pub workload: WorkloadSpec,
    /// `completed`, or `network_failed` when a partition outlasted its
    /// timeout.
    pub outcome: Outcome,
    /// What the workload measured (null when the network stopped it).
    pub result: Option<WorkloadOutcome>,
    /// Why and when the network stopped the run (null when it completed).
    pub failure: Option<NetworkFailure>,
    /// Wall time of the simulation, s (null when it did not complete).
    pub wall_s: Option<f64>,
    /// Simulator events per second of wall time (null when it did not
    /// complete).
    pub events_per_s: Option<f64>,
    /// The network's counters.
    pub stats: SimStats,
}

/// The synthetic workload of a `simulate` run.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkloadSpec {
    /// Communication pattern (`--workload`).
    pub pattern: String,
    /// Bytes per message.
    pub size: u64,
    /// Iterations.
    pub iters: u64,
    /// Ranks.
    pub ranks: u64,
    /// Seed of the random patterns.
    pub seed: u64,
}

/// The network failure that ended a simulation.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct NetworkFailure {
    /// Virtual time of the failure, ns.
    pub at_ns: u64,
    /// What failed.
    pub message: String,
}

/// Refuses a workload whose messages cannot fit in this machine's
/// available memory (it would abort in the allocator or be killed).
fn check_memory(w: &Workload, ranks: usize, size_text: &str, pattern: &str) -> Result<(), Error> {
    let need = workload::peak_message_bytes(w, ranks);
    let Some(available) = crate::memory::available_bytes() else {
        return Ok(()); // no /proc: the allocator's answer will have to do
    };
    if need > u128::from(available) {
        let gib = |b: u128| b as f64 / f64::from(1u32 << 30);
        return Err(Error::Usage(format!(
            "--size {size_text}: the {pattern} workload on {ranks} ranks holds up to {:.1} GiB of message data at once (the message and a copy per message being received), more than the {:.1} GiB of memory available; give a smaller --size or fewer ranks",
            gib(need),
            gib(u128::from(available))
        )));
    }
    Ok(())
}

/// Runs the command; returns its exit code (a partition that outlasts
/// its timeout is [`crate::exit_code::NETWORK_FAILED`]). The error is one
/// sentence for the user.
pub fn run(a: &SimulateArgs) -> Result<i32, crate::error::Error> {
    let pattern: Pattern = a.workload.name().parse()?;
    let size =
        netsim::base::units::parse_bytes(&a.size).map_err(|e| format!("--size: {e}"))? as usize;
    let origin = a.net.display().to_string();
    let mut cfg = crate::overrides::load_net(&a.net, a.ranks.map(|r| r as u32), &a.sets)?;
    crate::run::add_fault_specs(&mut cfg, &a.faults)?;
    if a.show_net {
        return crate::run::show_net(&cfg, &a.net, a.ranks.map(|r| r as u32));
    }
    if cfg.model == netsim::ModelKind::Analytic {
        return Err(format!(
            "{origin}: `model = \"analytic\"`: simulate runs synthetic workloads on the packet model only; remove the key or use `mpinetsim run --model analytic` with an MPI program"
        ).into());
    }
    let progress = SetupProgress::start(&format!("building the network from {origin}"));
    let net = netsim::Network::from_config(&cfg, &origin).map_err(|e| e.to_string())?;
    let ranks = a.ranks.unwrap_or(net.hosts.len());
    progress.stage(&format!("preparing the simulator for {ranks} ranks"));
    let mut sim = Simulator::from_network(net, &cfg, &origin, ranks, a.capture.is_some())
        .map_err(|e| e.to_string())?;
    progress.finish(&netsim::NetworkModel::summary(&sim));
    if let Some(path) = &a.report {
        crate::output_file::check_writable(path, "--report")?;
    }
    let mut files = match &a.capture {
        Some(dir) => Some(CaptureFiles::create(dir, &mut sim)?),
        None => None,
    };
    let w = Workload {
        pattern,
        size,
        iters: a.iters,
        seed: a.seed,
        verify: a.verify,
    };
    check_memory(&w, ranks, &a.size, a.workload.name())?;
    let started = Instant::now();
    // The workload speaks in sentences; a capture file that could not be
    // written is kept here with its kind (internal).
    let mut flush_error = None;
    let result = workload::run_with(
        &mut sim,
        &w,
        workload::FLUSH_EVERY_EVENTS,
        |sim| match files.as_mut() {
            Some(f) => f.flush(sim).map_err(|e| {
                let sentence = e.to_string();
                flush_error.get_or_insert(e);
                sentence
            }),
            None => Ok(()),
        },
    );
    let stats = sim.stats();
    let spec = WorkloadSpec {
        pattern: a.workload.name().to_string(),
        size: size as u64,
        iters: a.iters,
        ranks: ranks as u64,
        seed: a.seed,
    };
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            let Some(failure) = sim.failure().cloned() else {
                return Err(flush_error.unwrap_or_else(|| e.into()));
            };
            // The network stopped the run: keep what it recorded.
            if let Some(f) = files.as_mut() {
                f.flush(&mut sim)?;
            }
            print!("{}", network_events_text(&stats));
            if let Some(path) = &a.report {
                let report = SimulateReport {
                    schema_version: SCHEMA_VERSION,
                    network: cfg.name.clone().unwrap_or(origin.clone()),
                    workload: spec,
                    outcome: Outcome::NetworkFailed,
                    result: None,
                    failure: Some(NetworkFailure {
                        at_ns: failure.at.0,
                        message: failure.message,
                    }),
                    wall_s: None,
                    events_per_s: None,
                    stats,
                };
                let report = crate::report::Report::Simulate(Box::new(report));
                crate::run::write_json(path, &report, "--report")?;
            }
            eprintln!("mpinetsim: {e}");
            return Ok(crate::exit_code::NETWORK_FAILED);
        }
    };
    let wall = started.elapsed().as_secs_f64();
    let eps = stats.events as f64 / wall.max(1e-9);
    out!(
        "network:          {}",
        cfg.name.as_deref().unwrap_or(&origin)
    );
    out!(
        "workload:         {} ({} B x {} on {} ranks)",
        a.workload.name(),
        size,
        a.iters,
        ranks
    );
    out!(
        "simulated time:   {:.9} s (last delivery)",
        outcome.runtime_ns as f64 / 1e9
    );
    out!(
        "messages:         {} ({} B)",
        outcome.messages,
        outcome.bytes
    );
    out!("events:           {}", stats.events);
    out!("wall time:        {wall:.3} s");
    out!("events per s:     {eps:.0}");
    let retrans: u64 = stats
        .connections
        .iter()
        .map(|c| c.stats.retransmissions)
        .sum();
    let drops: u64 = stats
        .links
        .iter()
        .map(|l| l.drops_queue + l.drops_early + l.drops_loss + l.drops_down)
        .sum::<u64>()
        + stats.nodes.iter().map(|n| n.drops_unroutable).sum::<u64>();
    out!("retransmissions:  {retrans}   drops: {drops}");
    print!("{}", network_events_text(&stats));
    if a.verify {
        out!("corrupted:        {}", outcome.corrupted);
    }
    if let Some(f) = &files {
        for p in f.paths() {
            out!("capture:          {}", p.display());
        }
    }
    if let Some(path) = &a.report {
        let report = crate::report::Report::Simulate(Box::new(SimulateReport {
            schema_version: SCHEMA_VERSION,
            network: cfg.name.clone().unwrap_or(origin.clone()),
            workload: spec,
            outcome: Outcome::Completed,
            result: Some(outcome.clone()),
            failure: None,
            wall_s: Some(wall),
            events_per_s: Some(eps),
            stats,
        }));
        crate::run::write_json(path, &report, "--report")?;
        out!("report:           {}", path.display());
    }
    if a.verify && outcome.corrupted > 0 {
        eprintln!(
            "mpinetsim: {} messages arrived with different content than sent",
            outcome.corrupted
        );
        return Ok(crate::exit_code::INTERNAL);
    }
    Ok(crate::exit_code::SUCCESS)
}

/// The network events for stdout: a count and up to 20 lines.
fn network_events_text(stats: &netsim::model::stats::SimStats) -> String {
    let e = &stats.network_events;
    if e.is_empty() {
        return String::new();
    }
    let unrecorded = stats.network_events_unrecorded;
    let mut s = format!("network events:   {}\n", e.len() as u64 + unrecorded);
    for ev in e.iter().take(crate::report::EVENTS_SHOWN) {
        s.push_str(&format!("  {}\n", ev.line()));
    }
    if e.len() > crate::report::EVENTS_SHOWN {
        s.push_str(&format!(
            "  … {} more in the --report JSON (stats.network_events)\n",
            e.len() - crate::report::EVENTS_SHOWN
        ));
    }
    if unrecorded > 0 {
        s.push_str(&format!(
            "  … and {unrecorded} more counted but not recorded (only the first {} are kept)\n",
            netsim::faults::MAX_RECORDED_NETWORK_EVENTS
        ));
    }
    s
}
