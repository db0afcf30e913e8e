//! `--gateway-cpu N` and `--gateway-fifo`: a core of its own for the
//! gateway's loop, and the real-time scheduler for it.
//!
//! Every delivery waits for the gateway's loop to wake up, and every
//! message for a rank's: on a machine with as many busy threads as cores
//! the wake-ups queue behind each other (issue 24 measured 5–30 µs of wall
//! time per wake-up). With `--gateway-cpu N` the ranks are launched on
//! every allowed CPU but N (they inherit the affinity the launching thread
//! has at that moment) and the loop's thread is then pinned to N alone;
//! `--gateway-fifo` asks for `SCHED_FIFO` (priority 1) for the loop's
//! thread, through util-linux's `chrt` (so mpinetsim needs no `unsafe`
//! system call of its own), and says so and goes on without it when the
//! system refuses (no CAP_SYS_NICE, no RLIMIT_RTPRIO, or no `chrt`).

use crate::error::Error;
use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// Where the gateway's loop runs, as the options asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GatewayPlacement {
    /// The CPU the loop's thread gets to itself (None: the scheduler's
    /// choice, shared with the ranks).
    pub cpu: Option<usize>,
    /// Run the loop's thread under SCHED_FIFO.
    pub fifo: bool,
}

/// The CPUs this thread may run on.
fn allowed_cpus() -> Result<Vec<usize>, Error> {
    let set = sched_getaffinity(Pid::from_raw(0))
        .map_err(|e| Error::Internal(format!("cannot read this thread's CPU affinity: {e}")))?;
    Ok((0..CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect())
}

/// Restricts this thread to `cpus`.
fn set_cpus(cpus: &[usize]) -> Result<(), Error> {
    let mut set = CpuSet::new();
    for &c in cpus {
        set.set(c)
            .map_err(|e| Error::Internal(format!("CPU {c} does not fit a CPU set: {e}")))?;
    }
    sched_setaffinity(Pid::from_raw(0), &set)
        .map_err(|e| Error::Internal(format!("cannot set this thread's CPU affinity: {e}")))
}

/// The CPUs the ranks get when the gateway takes `cpu` out of `allowed`,
/// or why it cannot.
fn ranks_cpus(allowed: &[usize], cpu: usize) -> Result<Vec<usize>, String> {
    if !allowed.contains(&cpu) {
        return Err(format!(
            "--gateway-cpu {cpu}: this process may run on CPUs {}; give one of them",
            list(allowed)
        ));
    }
    let rest: Vec<usize> = allowed.iter().copied().filter(|&c| c != cpu).collect();
    if rest.is_empty() {
        return Err(format!(
            "--gateway-cpu {cpu}: it is the only CPU this process may run on, and the ranks need one; leave the option out"
        ));
    }
    Ok(rest)
}

/// `0, 1, 3`.
fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl GatewayPlacement {
    /// Before the ranks are launched: leaves the gateway's CPU out of the
    /// launching thread's affinity, which the ranks inherit. The guard
    /// puts the thread back as it was when dropped (calibrate and compare
    /// run job after job on it).
    pub fn keep_ranks_off(&self) -> Result<Placed, Error> {
        let mut placed = Placed {
            placement: *self,
            allowed: None,
            fifo: false,
        };
        if let Some(cpu) = self.cpu {
            let allowed = allowed_cpus()?;
            let rest = ranks_cpus(&allowed, cpu).map_err(Error::Usage)?;
            set_cpus(&rest)?;
            placed.allowed = Some(allowed);
        }
        Ok(placed)
    }
}

/// This thread placed for a job (see [`GatewayPlacement::keep_ranks_off`]);
/// restores its CPUs and scheduler when dropped.
#[derive(Debug)]
pub struct Placed {
    placement: GatewayPlacement,
    /// The CPUs the thread had before.
    allowed: Option<Vec<usize>>,
    /// SCHED_FIFO was granted.
    fifo: bool,
}

/// Sets this thread's scheduling policy with `chrt` (`--fifo` or
/// `--other`); the error is what chrt said.
fn chrt(policy: &str, priority: &str) -> Result<(), String> {
    let tid = nix::unistd::gettid().to_string();
    match std::process::Command::new("chrt")
        .args([policy, "--pid", priority, &tid])
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Err(format!("cannot run chrt (util-linux): {e}")),
    }
}

impl Placed {
    /// After the ranks are launched: pins this thread (the loop's) to its
    /// CPU, and asks for SCHED_FIFO. Returns a line to print when the
    /// system refused SCHED_FIFO.
    pub fn take_cpu(&mut self) -> Result<Option<String>, Error> {
        if let Some(cpu) = self.placement.cpu {
            set_cpus(&[cpu])?;
        }
        if !self.placement.fifo {
            return Ok(None);
        }
        match chrt("--fifo", "1") {
            Ok(()) => {
                self.fifo = true;
                Ok(None)
            }
            Err(why) => Ok(Some(format!(
                "mpinetsim: --gateway-fifo: the system refused SCHED_FIFO ({why}); the gateway runs under the normal scheduler"
            ))),
        }
    }
}

impl Drop for Placed {
    fn drop(&mut self) {
        if self.fifo {
            let _ = chrt("--other", "0");
        }
        if let Some(allowed) = &self.allowed {
            let _ = set_cpus(allowed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranks_get_every_allowed_cpu_but_the_gateways() {
        assert_eq!(ranks_cpus(&[0, 1, 2, 3], 1), Ok(vec![0, 2, 3]));
        assert_eq!(ranks_cpus(&[2, 5], 5), Ok(vec![2]));
        let e = ranks_cpus(&[0, 1], 4).unwrap_err();
        assert_eq!(
            e,
            "--gateway-cpu 4: this process may run on CPUs 0, 1; give one of them"
        );
        let e = ranks_cpus(&[3], 3).unwrap_err();
        assert!(e.contains("the only CPU"), "{e}");
    }

    /// The thread's CPUs while the ranks launch, while the loop runs, and
    /// after the job (on a machine with at least two CPUs).
    #[test]
    fn the_loop_takes_its_cpu_and_gives_it_back() {
        let before = allowed_cpus().unwrap();
        if before.len() < 2 {
            return;
        }
        let cpu = before[before.len() - 1];
        let p = GatewayPlacement {
            cpu: Some(cpu),
            fifo: false,
        };
        let mut placed = p.keep_ranks_off().unwrap();
        assert_eq!(allowed_cpus().unwrap(), before[..before.len() - 1]);
        assert_eq!(placed.take_cpu().unwrap(), None);
        assert_eq!(allowed_cpus().unwrap(), vec![cpu]);
        drop(placed);
        assert_eq!(allowed_cpus().unwrap(), before);
    }

    #[test]
    fn without_options_nothing_changes() {
        let before = allowed_cpus().unwrap();
        let mut placed = GatewayPlacement::default().keep_ranks_off().unwrap();
        assert_eq!(placed.take_cpu().unwrap(), None);
        drop(placed);
        assert_eq!(allowed_cpus().unwrap(), before);
    }
}
