//! `MPI_Comm_spawn` on the gateway's side: the spawning root's request
//! becomes new ranks of the network model (on the host the info key
//! `host` names, else on the host with the fewest ranks), new processes
//! started like the job's own (watched, reaped, their output forwarded,
//! stopped with the job), and the answer to the root.
//!
//! The new processes learn their `MPI_COMM_WORLD` (the consecutive ranks
//! of one request) and the root that spawned them from their environment
//! ([`mpinetsim_protocol::spawn`]); the parent/child intercommunicator is
//! then built between the shims, as `MPI_Intercomm_create` builds one.

use crate::launcher::{LaunchSpec, RankStart, Ranks};
use crate::loop_core::{GatewayCore, JobOutcome, SpawnAsk};
use crate::network_model::packet;
use mpinetsim_protocol::spawn::{SpawnCommand, ENV_APPNUM, ENV_PARENT, ENV_WORLD};
use mpinetsim_protocol::HostCpu;
use netsim::NetworkConfig;
use std::path::{Path, PathBuf};

/// Why a job refuses every spawn, if it does (a recorded trace cannot
/// replay processes that join mid-run).
pub struct SpawnPolicy<'a> {
    /// The job's network, for the new ranks' CPUs.
    pub cfg: &'a NetworkConfig,
    /// Set when no spawn can be served; the sentence the root gets.
    pub refused: Option<String>,
}

/// Serves every spawn the ranks asked for since the last turn. Err ends the
/// job (a process that could not be started after its rank was added).
pub fn serve<C: crate::clock::WallClock>(
    core: &mut GatewayCore<C>,
    ranks: &mut Ranks,
    spec: &LaunchSpec,
    policy: &SpawnPolicy,
) -> Result<(), JobOutcome> {
    for ask in core.take_spawn_requests() {
        let answer = match &policy.refused {
            Some(why) => Err(why.clone()),
            None => start(core, ranks, spec, policy.cfg, &ask)?,
        };
        if let Err(e) = &answer {
            tracing::debug!("rank {}'s MPI_Comm_spawn refused: {e}", ask.rank);
        }
        core.answer_spawn(ask.rank, answer);
    }
    Ok(())
}

/// Answers every spawn with a refusal: the ranks of a standalone gateway
/// are started by another launcher.
pub fn refuse_all<C: crate::clock::WallClock>(core: &mut GatewayCore<C>) -> Result<(), JobOutcome> {
    for ask in core.take_spawn_requests() {
        core.answer_spawn(
            ask.rank,
            Err("the ranks of this job were started by another launcher, so mpinetsim cannot start more; run the program with `mpinetsim run` to spawn".into()),
        );
    }
    Ok(())
}

/// Starts the processes of one request; the first new rank and how many,
/// or why none was started.
fn start<C: crate::clock::WallClock>(
    core: &mut GatewayCore<C>,
    ranks: &mut Ranks,
    spec: &LaunchSpec,
    cfg: &NetworkConfig,
    ask: &SpawnAsk,
) -> Result<Result<(u32, u32), String>, JobOutcome> {
    // Everything that can be refused is checked before any rank is added.
    let mut programs = Vec::new();
    for c in &ask.request.commands {
        match resolve(c).and_then(|p| check_host(core, c).map(|()| p)) {
            Ok(p) => programs.push(p),
            Err(e) => return Ok(Err(e)),
        }
    }
    let total = ask.request.processes() as u32;
    let first = core.rank_count();
    let world = format!("{first}:{total}");
    for (appnum, (c, program)) in ask.request.commands.iter().zip(&programs).enumerate() {
        for _ in 0..c.count {
            let rank = match core.sim.add_rank(c.host.as_deref()) {
                Ok(r) => r,
                // Only the first can fail (the model, the rank limit):
                // the hosts were checked.
                Err(e) if core.rank_count() == first => return Ok(Err(e)),
                Err(e) => return Err(JobOutcome::GatewayFailed(e)),
            };
            let host = core.sim.rank_host_names()[rank as usize].clone();
            core.add_rank(
                rank,
                HostCpu::new(cfg.cpu_speed(&host), cfg.cpu_threshold_ns(&host))
                    .with_poll_ns(cfg.poll_cost_ns(&host)),
            );
            let start = RankStart {
                rank,
                program,
                args: &c.args,
                env: vec![
                    (ENV_WORLD, world.clone()),
                    (ENV_PARENT, ask.rank.to_string()),
                    (ENV_APPNUM, appnum.to_string()),
                ],
                dir: c.wdir.as_deref().map(Path::new),
            };
            match ranks.start(spec, &start) {
                Ok(pid) => {
                    core.own_pids.resize(rank as usize, 0);
                    core.own_pids.push(pid);
                }
                Err(e) => {
                    return Err(JobOutcome::RankFailed {
                        rank,
                        reason: format!("(spawned by rank {}) could not start: {e}", ask.rank),
                    })
                }
            }
        }
    }
    tracing::info!(
        "rank {} spawned ranks {first} to {}",
        ask.rank,
        first + total - 1
    );
    Ok(Ok((first, total)))
}

/// The info key `host`, if given, names a host of the network.
fn check_host<C: crate::clock::WallClock>(
    core: &GatewayCore<C>,
    c: &SpawnCommand,
) -> Result<(), String> {
    let (Some(name), Some(p)) = (&c.host, packet(core.sim.as_ref())) else {
        return Ok(());
    };
    let net = p.network();
    match net.node_by_name(name) {
        Some(id) if net.hosts.contains(&id) => Ok(()),
        _ => Err(format!(
            "the info key `host` names '{name}', which is not a host of the network; name one of its [[host]]s"
        )),
    }
}

/// The program a command names: a path (relative to the info key `wdir`
/// when given), else the first executable of that name in the info key
/// `path`'s folders, the working directory, then `PATH`, as MPICH's
/// launcher looks for it.
pub fn resolve(c: &SpawnCommand) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &Path| {
        p.is_file()
            && p.metadata()
                .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    };
    let name = c.program.as_str();
    if name.is_empty() {
        return Err("the command is empty; name a program".into());
    }
    if let Some(w) = &c.wdir {
        if !Path::new(w).is_dir() {
            return Err(format!(
                "the info key `wdir` names {w}, which is not a folder; give an existing working directory"
            ));
        }
    }
    let base = c.wdir.as_deref().map(PathBuf::from);
    let absolute = |p: PathBuf| match (&base, p.is_absolute()) {
        (Some(b), false) => b.join(p),
        _ => p,
    };
    if name.contains('/') {
        let p = absolute(PathBuf::from(name));
        return if is_exec(&p) {
            Ok(std::path::absolute(&p).unwrap_or(p))
        } else {
            Err(format!(
                "the command {name} is {}; give the path of an executable program",
                if p.exists() {
                    "not executable"
                } else {
                    "not found"
                }
            ))
        };
    }
    let system_path = std::env::var_os("PATH");
    let folders = (c.path.iter().flat_map(|p| p.split(':')).map(PathBuf::from))
        .chain(base.clone().or_else(|| std::env::current_dir().ok()))
        .chain(system_path.iter().flat_map(std::env::split_paths));
    for dir in folders {
        let p = absolute(dir.join(name));
        if is_exec(&p) {
            return Ok(std::path::absolute(&p).unwrap_or(p));
        }
    }
    Err(format!(
        "the command {name} was not found (looked in the info key `path`, the working directory and PATH); give its path"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(program: &str) -> SpawnCommand {
        SpawnCommand {
            program: program.into(),
            count: 1,
            ..SpawnCommand::default()
        }
    }

    #[test]
    fn commands_are_found_by_path_in_wdir_in_the_info_path_and_on_path() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("worker");
        std::fs::write(&prog, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o700)).unwrap();
        let d = dir.path().display().to_string();

        assert_eq!(
            resolve(&command(&prog.display().to_string())),
            Ok(prog.clone())
        );
        let in_wdir = SpawnCommand {
            wdir: Some(d.clone()),
            ..command("./worker")
        };
        assert_eq!(resolve(&in_wdir), Ok(prog.clone()));
        let bare_in_wdir = SpawnCommand {
            wdir: Some(d.clone()),
            ..command("worker")
        };
        assert_eq!(resolve(&bare_in_wdir), Ok(prog.clone()));
        let on_path = SpawnCommand {
            path: Some(format!("/nonexistent:{d}")),
            ..command("worker")
        };
        assert_eq!(resolve(&on_path), Ok(prog.clone()));
        assert!(resolve(&command("sh")).unwrap().ends_with("sh"));
    }

    #[test]
    fn missing_programs_and_folders_are_one_sentence() {
        let e = resolve(&command("no-such-program-here")).unwrap_err();
        assert!(e.contains("was not found"), "{e}");
        let e = resolve(&command("./no/such")).unwrap_err();
        assert!(e.contains("not found"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("data");
        std::fs::write(&plain, "not a program").unwrap();
        let e = resolve(&command(&plain.display().to_string())).unwrap_err();
        assert!(e.contains("not executable"), "{e}");
        let bad_wdir = SpawnCommand {
            wdir: Some("/no/such/folder".into()),
            ..command("sh")
        };
        assert!(resolve(&bad_wdir).unwrap_err().contains("`wdir`"));
        assert!(resolve(&command("")).unwrap_err().contains("is empty"));
    }
}
