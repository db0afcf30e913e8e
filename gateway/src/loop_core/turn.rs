//! The decisions the loop makes once a turn, at wall time `now`: switching
//! the factor (`--time-factor auto`), and whether the job ends — a rank
//! lost before MPI_Finalize, a connection that never said Hello, a stall,
//! or every rank done.

use super::{Action, ConnState, GatewayCore, JobOutcome, LOST_RANK_GRACE_NS};
use crate::adaptive::FactorChange;
use crate::clock::WallClock;
use mpinetsim_protocol::Frame;

impl<C: WallClock> GatewayCore<C> {
    /// Lets the adaptive controller switch the factor: at an SRT instant a
    /// little ahead, on the gateway's clock and every connected rank's.
    /// True when it did (every deadline moved: the shell re-arms its timer).
    pub fn adapt(&mut self, now: u64) -> bool {
        let Some(a) = self.adaptive.as_mut() else {
            return false;
        };
        let Some(factor) = a.decide(now) else {
            return false;
        };
        let lead = a.policy().lead_wall_ns;
        let at = self.time.srt(now + lead);
        if !self.time.clock.change(at, factor) {
            return false;
        }
        self.factor_changes.push(FactorChange {
            at_srt_s: at as f64 / 1e9,
            factor,
        });
        let frame = Frame::Factor {
            at_srt_ns: at,
            factor,
        };
        for c in self.conns.iter_mut().flatten() {
            if c.rank.is_some() && matches!(c.state, ConnState::Active) {
                c.queue(&frame);
            }
        }
        true
    }

    /// Whether the job ends at wall time `now`: a rank whose connection
    /// closed before MPI_Finalize (after a grace period for the supervisor
    /// to say why), a connection without Hello in time (refused; the end
    /// of the job if it is one of its processes), a stall, or every rank
    /// finished (the remaining events then run at once).
    pub fn check(&mut self, now: u64) -> Option<JobOutcome> {
        if let Some(o) = self.check_lost(now) {
            return Some(o);
        }
        if let Err(o) = self.expire_handshakes(now) {
            return Some(o);
        }
        if let Some(o) = self.check_stall(now) {
            return Some(o);
        }
        if self.all_done() {
            self.finish_simulation();
            return Some(JobOutcome::Completed);
        }
        None
    }

    /// Ranks whose connection closed before Finalize end the job once the
    /// supervisor has had [`LOST_RANK_GRACE_NS`] to report a better reason.
    fn check_lost(&self, now: u64) -> Option<JobOutcome> {
        self.lost
            .iter()
            .find(|(_, at)| now.saturating_sub(*at) > LOST_RANK_GRACE_NS)
            .map(|&(rank, _)| JobOutcome::RankFailed {
                rank,
                reason: "closed its connection to the gateway before MPI_Finalize".into(),
            })
    }

    /// Refuses connections that have not completed the handshake in time.
    fn expire_handshakes(&mut self, now: u64) -> Result<(), JobOutcome> {
        let limit = self.settings.handshake_timeout_ns;
        for idx in 0..self.conns.len() {
            let stale = self.conns[idx].as_ref().is_some_and(|c| {
                c.state == ConnState::AwaitHello && now.saturating_sub(c.accepted_ns) > limit
            });
            if stale {
                self.refuse(
                    idx,
                    format!(
                        "no Hello with the job's secret within {:.1} s",
                        limit as f64 / 1e9
                    ),
                    "it sent no Hello".into(),
                )?;
            }
        }
        Ok(())
    }

    /// Where every rank is, if the job is stalled (see [`crate::stall`]):
    /// every connected rank that has not finished waits, nothing is in
    /// flight in the network or on its way to a rank.
    fn stalled_ranks(&self) -> Option<Vec<crate::stall::RankState<'_>>> {
        use crate::stall::RankState;
        if self.sim.messages_in_flight() > 0 || self.undelivered.iter().any(|q| !q.is_empty()) {
            return None;
        }
        let mut states = Vec::with_capacity(self.rank_conn.len());
        for (r, ci) in self.rank_conn.iter().enumerate() {
            let conn = ci.and_then(|ci| self.conns[ci].as_ref());
            states.push(match conn {
                None => RankState::NotConnected(self.own_pids.get(r).copied()),
                Some(c) if c.pending_out() > 0 => return None,
                Some(c) if c.counters.is_some() => RankState::Finished,
                Some(c) => match &c.waiting {
                    Some(w) if c.state == ConnState::Active => RankState::Waiting(w),
                    _ => return None, // computing, or gone (see check_lost)
                },
            });
        }
        Some(states)
    }

    /// Reports a stall that has lasted the quiet period: ends the job with
    /// `--on-stall stop`, else says so once and waits on.
    fn check_stall(&mut self, now: u64) -> Option<JobOutcome> {
        let quiet = self.settings.stall.quiet_ns?;
        if self.stall_reported || now.saturating_sub(self.last_progress_ns) < quiet {
            return None;
        }
        let text = crate::stall::describe(&self.stalled_ranks()?, quiet);
        if self.settings.stall.stop {
            return Some(JobOutcome::Stalled(text));
        }
        self.actions.push(Action::Say(format!(
            "{text}; the job keeps waiting (--on-stall stop would end it)"
        )));
        self.stall_reported = true;
        None
    }

    fn all_done(&self) -> bool {
        let n = self.rank_conn.len();
        let finished = (self.rank_conn.iter().flatten())
            .filter_map(|&ci| self.conns[ci].as_ref())
            .filter(|c| c.state == ConnState::Closed && c.counters.is_some())
            .count();
        finished == n
    }
}
