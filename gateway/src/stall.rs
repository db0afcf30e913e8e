//! A job that makes no progress. Every rank that is connected and has not
//! finished waits in an MPI call (its shim said so with a Waiting frame,
//! naming the call and the peers its unfinished operations wait for),
//! nothing is in flight in the network, and this has lasted a quiet period
//! (`--stall-timeout`, 10 s of wall time by default): nothing can change
//! any more, unless a rank that has not connected yet still comes. The
//! gateway then says who waits for whom and, with `--on-stall stop` (the
//! default of `run`), ends the job; with `wait` (the default of
//! `gateway`, whose ranks a launcher may still be starting) it keeps
//! waiting and says so again after the next progress and stall.

use crate::error::Error;

/// Default quiet period, ns.
pub const DEFAULT_QUIET_NS: u64 = 10_000_000_000;

/// How a job treats a stall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StallPolicy {
    /// Quiet period after which a stall is reported, ns (`None`: never).
    pub quiet_ns: Option<u64>,
    /// End the job then (else keep waiting).
    pub stop: bool,
}

impl StallPolicy {
    /// `--stall-timeout` and `--on-stall` as given; `stop_by_default` is
    /// the command's default for `--on-stall`.
    pub fn parse(
        timeout: &str,
        on_stall: Option<&str>,
        stop_by_default: bool,
    ) -> Result<StallPolicy, Error> {
        let quiet = netsim::base::units::parse_duration_ns(timeout)
            .map_err(|e| format!("--stall-timeout: {e}"))?;
        let stop = match on_stall {
            None => stop_by_default,
            Some("stop") => true,
            Some("wait") => false,
            Some(other) => {
                return Err(Error::Usage(format!(
                    "--on-stall {other}: give `stop` (end the job with the report) or `wait` (report and keep waiting)"
                )))
            }
        };
        Ok(StallPolicy {
            quiet_ns: (quiet > 0).then_some(quiet),
            stop,
        })
    }
}

impl Default for StallPolicy {
    fn default() -> Self {
        StallPolicy {
            quiet_ns: Some(DEFAULT_QUIET_NS),
            stop: true,
        }
    }
}

/// What a rank's shim last said it waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankWaiting {
    /// The MPI function it is in.
    pub call: String,
    /// A receive from any source is pending.
    pub any_source: bool,
    /// World ranks its operations wait for.
    pub peers: Vec<u32>,
    /// More peers than listed.
    pub more_peers: bool,
}

/// Where one rank is, as far as the gateway knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankState<'a> {
    /// Connected and waiting in MPI.
    Waiting(&'a RankWaiting),
    /// Past MPI_Finalize.
    Finished,
    /// Not connected; `Some(pid)` when this gateway launched its process
    /// (which is running: one that ended ends the job).
    NotConnected(Option<u32>),
}

/// One clause per rank, e.g. "waits in MPI_Recv for rank 1".
fn clause(s: &RankState) -> String {
    match s {
        RankState::Waiting(w) => {
            let call = if w.call.is_empty() { "MPI" } else { &w.call };
            let mut peers: Vec<String> = w.peers.iter().map(u32::to_string).collect();
            if w.more_peers {
                peers.push("more".into());
            }
            let whom = match (w.any_source, peers.len()) {
                (true, _) => " for any rank".to_string(),
                (false, 0) => String::new(),
                (false, 1) if !w.more_peers => format!(" for rank {}", peers[0]),
                (false, _) => format!(" for ranks {}", peers.join(", ")),
            };
            format!("wait{{s}} in {call}{whom}")
        }
        RankState::Finished => "{has} finished (MPI_Finalize)".into(),
        RankState::NotConnected(Some(pid)) => {
            format!("{{has}} not called MPI_Init (process {pid} is running)")
        }
        RankState::NotConnected(None) => "{has} not connected".into(),
    }
}

/// "rank 3" / "ranks 0-2, 5" for sorted ranks.
fn rank_list(ranks: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let mut j = i;
        while j + 1 < ranks.len() && ranks[j + 1] == ranks[j] + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => ranks[i].to_string(),
            1 => format!("{}, {}", ranks[i], ranks[j]),
            _ => format!("{}-{}", ranks[i], ranks[j]),
        });
        i = j + 1;
    }
    let noun = if ranks.len() == 1 { "rank" } else { "ranks" };
    format!("{noun} {}", parts.join(", "))
}

/// Most groups of ranks a description lists.
const MOST_GROUPS: usize = 12;

/// The sentence for a stall after `quiet_ns` of no progress: ranks with
/// the same clause are grouped, in order of their first rank.
pub fn describe(states: &[RankState], quiet_ns: u64) -> String {
    let quiet_s = quiet_ns as f64 / 1e9;
    if states.iter().all(|s| *s == RankState::NotConnected(None)) {
        return format!(
            "no progress for {quiet_s:.1} s: none of the {} ranks has connected; start them with the environment printed above",
            states.len()
        );
    }
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for (r, s) in states.iter().enumerate() {
        let c = clause(s);
        match groups.iter_mut().find(|(k, _)| *k == c) {
            Some((_, ranks)) => ranks.push(r as u32),
            None => groups.push((c, vec![r as u32])),
        }
    }
    let all_connected = !states
        .iter()
        .any(|s| matches!(s, RankState::NotConnected(_)));
    let mut parts: Vec<String> = groups
        .iter()
        .take(MOST_GROUPS)
        .map(|(c, ranks)| {
            let one = ranks.len() == 1;
            let verb = c
                .replace("{s}", if one { "s" } else { "" })
                .replace("{has}", if one { "has" } else { "have" });
            format!("{} {verb}", rank_list(ranks))
        })
        .collect();
    if groups.len() > MOST_GROUPS {
        let rest: usize = groups[MOST_GROUPS..].iter().map(|(_, r)| r.len()).sum();
        parts.push(format!("{rest} more ranks wait elsewhere"));
    }
    let why = if all_connected {
        "every rank waits and nothing is in flight in the network (a deadlock)"
    } else {
        "the connected ranks wait and nothing is in flight in the network"
    };
    format!(
        "no progress for {quiet_s:.1} s: {why}: {}",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waits(call: &str, any: bool, peers: &[u32]) -> RankWaiting {
        RankWaiting {
            call: call.into(),
            any_source: any,
            peers: peers.to_vec(),
            more_peers: false,
        }
    }

    #[test]
    fn a_mutual_receive_is_a_deadlock_naming_each_peer() {
        let (a, b) = (
            waits("MPI_Recv", false, &[1]),
            waits("MPI_Recv", false, &[0]),
        );
        let d = describe(
            &[RankState::Waiting(&a), RankState::Waiting(&b)],
            10_000_000_000,
        );
        assert_eq!(
            d,
            "no progress for 10.0 s: every rank waits and nothing is in flight in the network (a deadlock): rank 0 waits in MPI_Recv for rank 1; rank 1 waits in MPI_Recv for rank 0"
        );
    }

    #[test]
    fn ranks_alike_are_grouped_and_missing_ranks_named() {
        let any = waits("MPI_Barrier", false, &[3, 5]);
        let d = describe(
            &[
                RankState::Waiting(&any),
                RankState::Waiting(&any),
                RankState::Finished,
                RankState::NotConnected(Some(42)),
                RankState::NotConnected(None),
                RankState::NotConnected(None),
                RankState::NotConnected(None),
            ],
            1_500_000_000,
        );
        assert_eq!(
            d,
            "no progress for 1.5 s: the connected ranks wait and nothing is in flight in the network: ranks 0, 1 wait in MPI_Barrier for ranks 3, 5; rank 2 has finished (MPI_Finalize); rank 3 has not called MPI_Init (process 42 is running); ranks 4-6 have not connected"
        );
    }

    #[test]
    fn a_gateway_without_ranks_says_how_to_start_them() {
        let d = describe(&[RankState::NotConnected(None); 4], 10_000_000_000);
        assert_eq!(
            d,
            "no progress for 10.0 s: none of the 4 ranks has connected; start them with the environment printed above"
        );
    }

    #[test]
    fn options_parse_with_the_command_default() {
        assert_eq!(
            StallPolicy::parse("10s", None, true),
            Ok(StallPolicy::default())
        );
        let p = StallPolicy::parse("0", Some("stop"), false).unwrap();
        assert_eq!((p.quiet_ns, p.stop), (None, true));
        assert!(!StallPolicy::parse("1s", None, false).unwrap().stop);
        assert!(StallPolicy::parse("1s", Some("later"), true)
            .unwrap_err()
            .to_string()
            .starts_with("--on-stall later: give `stop`"));
    }
}
