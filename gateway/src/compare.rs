//! `mpinetsim compare`: the same program on several networks (MPI-NeTSim's
//! Figure 8): each network's emulated runtime (median of the repeats) and
//! its slow-down against the first. With `--model` given more than once,
//! every network runs under each model, side by side.

use crate::cli::CompareArgs;
use crate::error::Error;
use crate::launcher::RankOutput;
use crate::run::{run_job, write_json, JobSpec};
use netsim::NetworkConfig;
use schemars::JsonSchema;
use serde::Serialize;

/// What `compare --report` writes: one row per network and model.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompareReport {
    /// [`crate::report::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Per network and model, in the order they ran.
    pub rows: Vec<CompareRow>,
}

/// One network's result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompareRow {
    /// The network (file, or the first file with the --set changes).
    pub network: String,
    /// The network model of the runs.
    pub model: netsim::ModelKind,
    /// Emulated runtime of every run, s.
    pub runtimes_s: Vec<f64>,
    /// Their median, s.
    pub runtime_s: f64,
    /// (runtime / first runtime − 1) × 100.
    pub slowdown_percent: f64,
    /// Largest maxBehind of the runs, µs.
    pub max_behind_us: f64,
    /// Wall time of every run, s.
    pub walls_s: Vec<f64>,
    /// Their median, s.
    pub wall_s: f64,
}

fn median(v: &[f64]) -> f64 {
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The first network changed by every `--set` and with every `--fault`,
/// named after what was changed.
fn what_if_variant(a: &CompareArgs, ranks: u32) -> Result<(String, NetworkConfig), Error> {
    let mut cfg = crate::overrides::load_net(&a.nets[0], Some(ranks), &a.sets)?;
    crate::run::add_fault_specs(&mut cfg, &a.faults)?;
    let changes: Vec<String> = a
        .sets
        .iter()
        .cloned()
        .chain(a.faults.iter().map(|f| format!("fault '{f}'")))
        .collect();
    Ok((
        format!("{} with {}", a.nets[0].display(), changes.join(" ")),
        cfg,
    ))
}

/// Runs the command.
pub fn run(a: &CompareArgs) -> Result<i32, crate::error::Error> {
    crate::run::check_factor(a.time_factor)?;
    if a.repeat == 0 {
        return Err("--repeat 0: give at least one run per network".into());
    }
    let trace = a
        .replay
        .as_deref()
        .map(crate::trace_file::read)
        .transpose()?;
    let ranks = match (&trace, a.ranks) {
        (Some(t), Some(n)) if n as usize != t.ranks.len() => {
            return Err(format!(
                "-n {n}: the trace holds {} ranks; leave -n out with --replay",
                t.ranks.len()
            )
            .into())
        }
        (Some(t), _) => t.ranks.len() as u32,
        (None, Some(n)) => n,
        (None, None) => return Err("give the number of ranks with -n N".into()),
    };
    let mut nets: Vec<(String, NetworkConfig)> = Vec::new();
    for n in &a.nets {
        nets.push((
            n.display().to_string(),
            netsim::loader::load(n, Some(ranks), std::fs::read_to_string)
                .map_err(|e| e.to_string())?,
        ));
    }
    if !a.sets.is_empty() || !a.faults.is_empty() {
        nets.push(what_if_variant(a, ranks)?);
    }
    if !a.models.is_empty() {
        let models = a
            .models
            .iter()
            .map(|m| netsim::ModelKind::parse(m.name()))
            .collect::<Result<Vec<_>, _>>()?;
        nets = nets
            .into_iter()
            .flat_map(|(name, cfg)| {
                models.iter().map(move |m| {
                    let mut c = cfg.clone();
                    c.model = *m;
                    (name.clone(), c)
                })
            })
            .collect();
    }
    if nets.len() < 2 {
        return Err("compare needs two runs to compare: give --net twice, --set or --fault to make a what-if variant of the first, or --model twice (e.g. --model packet --model analytic)".into());
    }
    // Check every network (topology, placement, faults, model) before the
    // first run, so a mistake in the last one does not cost the others' runs.
    for (name, cfg) in &nets {
        crate::network_model::from_config(cfg, name, ranks, false, false)?;
    }
    if let Some(path) = &a.report {
        crate::output_file::check_writable(path, "--report")?;
    }
    let output = match &a.rank_output {
        Some(p) => RankOutput::File(p.clone()),
        None => RankOutput::Inherit,
    };
    let mut rows: Vec<CompareRow> = Vec::new();
    for (row, (name, cfg)) in (1..).zip(&nets) {
        let mut runtimes = Vec::new();
        let mut walls = Vec::new();
        let mut behind = 0.0f64;
        let model = cfg.model.name();
        if let Some(t) = &trace {
            // Virtual time: one replay gives the answer (it is deterministic).
            tracing::info!("compare: replaying on {name}");
            let r = crate::replay::replay_network(
                t,
                cfg,
                name,
                crate::replay::Through::Engine,
                None,
                None,
            )?;
            if let Some(f) = &r.outcome.network_failure {
                return Err(format!("the replay on {name} stopped: {f}").into());
            }
            runtimes.push(r.outcome.runtime_ns as f64 / 1e9);
            walls.push(r.wall_s);
        }
        for run in 1..=a.repeat {
            if trace.is_some() {
                break;
            }
            tracing::info!("compare: {name} ({model} model), run {run}/{}", a.repeat);
            let spec = JobSpec {
                progress: crate::progress::Show::Row(row, nets.len()),
                compute_clock: a.compute.clock()?,
                transport: a.transport.transport.kind(),
                placement: a.transport.placement(),
                hold_cap_ns: a.transport.hold_cap_ns()?,
                announce_cores: false,
                universe: None,
                ranks,
                origin: name.clone(),
                cfg: cfg.clone(),
                time_factor: a.time_factor,
                adaptive: None,
                capture: None,
                eager_limit: &a.eager_limit,
                command: &a.command,
                output: output.clone(),
                stdin_to_rank0: false,
                vectors: None,
                timeline: None,
                record: None,
                external: None,
                stall: crate::stall::StallPolicy::default(),
            };
            let job = run_job(&spec)?;
            let runtime = job.report.measured_runtime().map_err(|why| {
                format!(
                    "a comparison needs runs that complete, but the run on {name} failed with exit code {}: {why}",
                    job.exit_code
                )
            })?;
            runtimes.push(runtime);
            walls.push(job.report.wall_s);
            behind = behind.max(job.report.max_behind.max_ns as f64 / 1e3);
        }
        let median = median(&runtimes);
        let base = rows.first().map_or(median, |r| r.runtime_s);
        rows.push(CompareRow {
            network: name.clone(),
            model: cfg.model,
            wall_s: self::median(&walls),
            walls_s: walls,
            runtimes_s: runtimes,
            runtime_s: median,
            slowdown_percent: (median / base - 1.0) * 100.0,
            max_behind_us: behind,
        });
    }
    let width = rows
        .iter()
        .map(|r| r.network.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    out!(
        "{:<width$} {:>9} {:>14} {:>10} {:>14} {:>9}",
        "network",
        "model",
        "runtime_s",
        "slow-down",
        "maxBehind",
        "wall_s"
    );
    for r in &rows {
        out!(
            "{:<width$} {:>9} {:>14.6} {:>9.1}% {:>12.1}us {:>9.3}",
            r.network,
            r.model.name(),
            r.runtime_s,
            r.slowdown_percent,
            r.max_behind_us,
            r.wall_s
        );
    }
    if let Some(path) = &a.report {
        let report = crate::report::Report::Compare(Box::new(CompareReport {
            schema_version: crate::report::SCHEMA_VERSION,
            rows,
        }));
        write_json(path, &report, "--report")?;
    }
    Ok(0)
}
