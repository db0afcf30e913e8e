//! `mpinetsim run`: start the gateway, launch the ranks, wait, report.

use crate::capture_files::CaptureFiles;
use crate::cli::RunArgs;
use crate::clock::monotonic_ns;
use crate::conn::ConnState;
use crate::launcher::{self, LaunchSpec};
use crate::realtime::{Gateway, GatewaySettings, JobOutcome};
use crate::report::{JobReport, MpiCounters, RankReport};
use netsim::{NetworkConfig, Simulator};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs the command; returns the process exit code. Errors before launch are
/// one sentence.
pub fn run(a: &RunArgs) -> Result<i32, String> {
    if !(a.time_factor >= 1.0 && a.time_factor.is_finite()) {
        return Err(format!(
            "--time-factor {} is not allowed; give a number of at least 1 (e.g. 4)",
            a.time_factor
        ));
    }
    if a.ranks == 0 {
        return Err("-n 0: a job needs at least one rank".into());
    }
    let eager_limit =
        netsim::units::parse_bytes(&a.eager_limit).map_err(|e| format!("--eager-limit: {e}"))?;
    let Some((program, args)) = a.command.split_first() else {
        return Err("no program given; write it after --, e.g. `mpinetsim run -n 4 --net configs/reference.toml -- ./a.out`".into());
    };
    let origin = a.net.display().to_string();
    let cfg = NetworkConfig::from_file(&a.net).map_err(|e| e.to_string())?;
    let mut sim = Simulator::from_config(&cfg, &origin, a.ranks as usize, a.capture.is_some())
        .map_err(|e| e.to_string())?;
    let program_path = launcher::resolve_program(program)?;
    let shim = launcher::locate_shim()?;
    let captures = match &a.capture {
        Some(dir) => Some(CaptureFiles::create(dir, &mut sim)?),
        None => None,
    };
    let job_id = (std::process::id() as u64) << 20 | (monotonic_ns() & 0xfffff);
    let job_dir = std::env::temp_dir().join(format!("mpinetsim-{}-{job_id}", std::process::id()));
    let lib_dir = job_dir.join("lib");
    launcher::install_shim(&shim, &lib_dir)?;
    let socket = job_dir.join("gateway.sock");
    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&interrupted))
            .map_err(|e| format!("cannot handle signals: {e}"))?;
    }
    let settings = GatewaySettings {
        ranks: a.ranks,
        factor: a.time_factor,
        eager_limit,
        socket: socket.clone(),
        job_id,
        lookahead_ns: crate::realtime::DEFAULT_LOOKAHEAD_NS,
    };
    let started = Instant::now();
    let epoch = monotonic_ns();
    let mut gw = Gateway::new(settings, sim, captures, epoch, interrupted)?;
    let spec = LaunchSpec {
        program: &program_path,
        args,
        lib_dir: &lib_dir,
        socket: &socket,
        size: a.ranks,
        job_id,
        prefix: a.prefix,
    };
    let mut procs = launcher::launch(&spec)?;

    let outcome = gw.run(|g| {
        for (rank, status) in launcher::reap(&mut procs) {
            let finalized = g
                .rank_connections()
                .any(|(r, c)| r == rank && c.counters.is_some());
            if !finalized {
                let pid = procs[rank as usize].child.id();
                return Some(JobOutcome::RankFailed {
                    rank,
                    reason: format!(
                        "(pid {pid}) {} before MPI_Finalize",
                        launcher::describe(&status)
                    ),
                });
            }
        }
        None
    });

    // Stop or collect the processes.
    if outcome == JobOutcome::Completed {
        let deadline = Instant::now() + Duration::from_secs(5);
        while procs.iter().any(|p| p.status.is_none()) && Instant::now() < deadline {
            launcher::reap(&mut procs);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    launcher::stop_all(&mut procs);
    launcher::join_forwarders(&mut procs);
    let flush_result = gw.flush_captures();
    let wall = started.elapsed().as_secs_f64();

    let (outcome_text, mut exit_code) = match &outcome {
        JobOutcome::Completed => ("completed".to_string(), 0),
        JobOutcome::RankFailed { rank, reason } => (
            format!("rank {rank} {reason}; the other ranks were stopped"),
            1,
        ),
        JobOutcome::Aborted { rank, code, text } => {
            (
                if text.is_empty() {
                    format!("rank {rank} called MPI_Abort with code {code}; the other ranks were stopped")
                } else {
                    format!("rank {rank} ended the job: {text}")
                },
                if *code == 0 { 1 } else { *code },
            )
        }
        JobOutcome::ProtocolError { rank, pid, message } => {
            let rank = rank.or_else(|| {
                let pid = (*pid)?;
                procs.iter().find(|p| p.child.id() == pid).map(|p| p.rank)
            });
            let text = match rank {
                Some(r) => format!("rank {r} broke the gateway protocol: it {message}; the job was stopped"),
                None => format!(
                    "a process that is not one of the ranks broke the gateway protocol: it {message}; the job was stopped"
                ),
            };
            (text, 1)
        }
        JobOutcome::Interrupted => ("interrupted; the ranks were stopped".to_string(), 130),
    };
    let mut rank_reports = Vec::new();
    let mut last_init = 0u64;
    let mut any_init = false;
    let mut last_finalize = 0u64;
    for p in &procs {
        let conn = gw
            .rank_connections()
            .find(|(r, _)| *r == p.rank)
            .map(|(_, c)| c);
        let counters = conn.and_then(|c| c.counters.as_ref());
        if let Some(c) = conn {
            if c.state != ConnState::AwaitHello {
                last_init = last_init.max(c.hello_srt_ns);
                any_init = true;
            }
        }
        if let Some(c) = counters {
            last_finalize = last_finalize.max(c.finalize_srt_ns);
        }
        let (ended, code) = match &p.status {
            Some(st) => {
                use std::os::unix::process::ExitStatusExt;
                (
                    launcher::describe(st),
                    st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
                )
            }
            None => ("unknown".into(), 1),
        };
        if outcome == JobOutcome::Completed {
            exit_code = exit_code.max(code);
        }
        rank_reports.push(RankReport {
            rank: p.rank,
            pid: p.child.id(),
            ended,
            exit_code: code,
            mpi: counters.map(MpiCounters::from),
        });
    }
    let stats = gw.sim.stats();
    let report = JobReport {
        command: a.command.clone(),
        network: cfg.name.clone().unwrap_or(origin),
        ranks: a.ranks,
        time_factor: a.time_factor,
        outcome: outcome_text.clone(),
        exit_code,
        wall_s: wall,
        emulated_runtime_s: if any_init && last_finalize >= last_init {
            (last_finalize - last_init) as f64 / 1e9
        } else {
            0.0
        },
        max_behind: gw.lateness.summary(),
        rank_reports,
        messages_in: gw.messages_in,
        messages_out: gw.messages_out,
        packets: stats.links.iter().map(|l| l.packets).sum(),
        network_stats: stats,
        captures: gw
            .captures()
            .map(|c| c.paths().iter().map(|p| p.display().to_string()).collect())
            .unwrap_or_default(),
    };
    eprint!("{}", report.summary());
    if let Some(path) = &a.report {
        let text = serde_json::to_string_pretty(&report).expect("report serialises");
        std::fs::write(path, text + "\n").map_err(|e| {
            format!(
                "cannot write the report {}: {e}; choose a writable --report path",
                path.display()
            )
        })?;
        eprintln!("mpinetsim: report written to {}", path.display());
    }
    let _ = std::fs::remove_dir_all(&job_dir);
    if outcome != JobOutcome::Completed {
        eprintln!("mpinetsim: {outcome_text}");
    }
    flush_result?;
    Ok(exit_code)
}
