//! File descriptors. The gateway holds one socket per rank (two eventfds
//! more for a rank on shared memory, and the two output pipes of every
//! rank it launches), so a large job needs more than
//! the usual soft limit of 1024: mpinetsim raises its soft limit to the
//! hard one at start, and refuses a job that cannot fit under it with the
//! number it needs, before anything is launched.

use crate::error::Error;
use nix::sys::resource::{getrlimit, setrlimit, Resource};

/// Descriptors kept free beyond the job's own: the ones starting a process
/// opens for a moment, a report or timeline being written, a stray
/// connection being refused.
pub const SPARE: u64 = 16;

/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the limit now
/// in force (the soft one, if it could not be raised).
pub fn raise_to_hard() -> u64 {
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return u64::MAX;
    };
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return hard;
    }
    soft
}

/// Descriptors this process has open now.
fn open_now() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64)
}

/// Checks that `ranks` more connections (`per_rank` descriptors each) fit
/// under the limit beside what is open now; the error says how many are
/// needed and how to get them.
pub fn check(ranks: u32, per_rank: u64, what: &str) -> Result<(), Error> {
    let limit = getrlimit(Resource::RLIMIT_NOFILE).map_or(u64::MAX, |(soft, _)| soft);
    let need = open_now() + u64::from(ranks) * per_rank + SPARE;
    if need <= limit {
        return Ok(());
    }
    let most = limit.saturating_sub(open_now() + SPARE) / per_rank.max(1);
    let fewer = match most {
        0 => "free descriptors".to_string(),
        1 => "run 1 rank".to_string(),
        n => format!("run at most {n} ranks"),
    };
    Err(Error::Usage(format!(
        "-n {ranks} needs {need} file descriptors ({what}) but this process may open {limit} (ulimit -n, already raised to the hard limit); raise the hard limit (ulimit -Hn, /etc/security/limits.conf) or {fewer}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_is_raised_and_a_job_beyond_it_is_refused_with_the_number() {
        let limit = raise_to_hard();
        let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
        assert_eq!((soft, limit), (hard, hard));
        assert!(check(10, 1, "one socket per rank").is_ok());
        let too_many = u32::try_from(limit).unwrap_or(u32::MAX);
        let e = check(too_many, 3, "one socket and two pipes per rank")
            .unwrap_err()
            .to_string();
        let prefix = format!("-n {too_many} needs ");
        assert!(e.starts_with(&prefix), "{e}");
        let need: u64 = e[prefix.len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(need >= u64::from(too_many) * 3 + SPARE, "{e}");
        assert!(
            e.contains("file descriptors (one socket and two pipes per rank)"),
            "{e}"
        );
    }
}
