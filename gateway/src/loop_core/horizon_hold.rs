//! Holding events back for ranks that may still send into their past.
//!
//! The gateway injects a message at its stamp, but a message that arrives
//! after events later than its stamp already ran enters late, at the time
//! of the latest of them. On a microsecond network at small time factors
//! that was most replies of a ping-pong: the woken rank's answer took a
//! few µs of wall time to come back, while the acknowledgements it raced
//! with ran on the wall clock. A rank on shared memory publishes its
//! *horizon* (see [`mpinetsim_shm::horizon`]): the earliest time it may
//! still stamp a message. An event later than the least horizon of the
//! ranks waits, at most until `hold_cap` of wall time after its deadline:
//! a rank that computes or waits for a CPU that long has its messages
//! enter late, as without horizons. A held event is not late while the
//! rank it waits for keeps it back; once released, its lateness counts
//! from the release.
//!
//! After the cap the rank's horizon is not dropped: it is taken to advance
//! with the wall clock from when the hold began (wall time ÷ factor), as
//! far as a rank computing on its schedule would have come, until the rank
//! next waits inside MPI. Events beyond that still wait. Without this a
//! gateway already behind the wall clock ran everything pending at once
//! after an expiry — in a ping-pong, a TCP timer tens of milliseconds
//! ahead — and the rank's next message entered that late (runs of a
//! 21 ms ping-pong on hpc-fat-tree at factors 2–64 took 43–207 ms). Now a
//! message enters at most as late as the wall time its rank kept the
//! others waiting, over the factor.

use super::{ConnId, GatewayCore};
use crate::clock::WallClock;

/// The wall time an event may wait for the ranks' horizons by default,
/// ns: longer than a woken rank's way back to the gateway on an idle
/// machine (5–50 µs here), short enough that a computing rank delays
/// the others' deliveries little.
pub const DEFAULT_HOLD_CAP_NS: u64 = 2_000_000;

/// Where a rank's horizon is taken to be after a hold for it reached the
/// cap: its horizon then, advancing with the wall clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    /// The rank's horizon when the hold ended at the cap, ns.
    pub horizon_ns: u64,
    /// Wall time the hold began, ns.
    pub since_ns: u64,
}

impl Pace {
    /// The horizon at wall time `now_ns` under time factor `factor`.
    pub fn horizon_at(&self, now_ns: u64, factor: f64) -> u64 {
        self.horizon_ns + (now_ns.saturating_sub(self.since_ns) as f64 / factor) as u64
    }

    /// The wall time at which the horizon reaches `event_ns`.
    pub fn reaches(&self, event_ns: u64, factor: f64) -> u64 {
        self.since_ns + (event_ns.saturating_sub(self.horizon_ns) as f64 * factor).ceil() as u64
    }
}

/// Events waiting for one rank's horizon to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    /// The event's time, ns.
    pub event_ns: u64,
    /// The horizon it waits for, ns.
    pub horizon_ns: u64,
    /// The connection of the rank with the least horizon.
    pub holder: ConnId,
    /// Wall time the hold began, ns.
    pub since_ns: u64,
    /// Wall time the hold was last found still needed, ns.
    pub checked_ns: u64,
    /// Wall time the hold ends whatever the horizons say, ns.
    pub until_ns: u64,
}

/// How often and how long events waited for horizons.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct HoldStats {
    /// Times events waited for a rank's horizon.
    pub holds: u64,
    /// Of those, the waits that reached the cap (the rank's horizon then
    /// advances with the wall clock; its messages may enter late).
    pub cap_expiries: u64,
    /// Wall time events waited in all, ns.
    pub held_wall_ns: u64,
    /// Longest wait, wall ns.
    pub max_held_wall_ns: u64,
}

impl<C: WallClock> GatewayCore<C> {
    /// Records the horizon rank connection `id` published on its channel
    /// and the deliveries it has read.
    pub fn set_horizon(&mut self, id: ConnId, h: mpinetsim_shm::horizon::Horizon, reads: u64) {
        if let Some(c) = self.conns.get_mut(id).and_then(Option::as_mut) {
            c.set_horizon(h, reads);
        }
    }

    /// The time factor holds pace a rank's horizon with after the cap.
    fn pace_factor(&self) -> f64 {
        self.time.factor_at(self.sim.now().0)
    }

    /// The least horizon of the ranks and whose it is (None: no rank
    /// promised anything or holding is off). A rank whose hold reached the
    /// cap counts with its horizon advancing on the wall clock until it
    /// waits inside MPI again.
    pub(super) fn ranks_horizon(&self) -> Option<(u64, ConnId)> {
        if self.settings.hold_cap_ns == 0 {
            return None;
        }
        let (now, factor) = (self.clock.now_ns(), self.pace_factor());
        self.conns
            .iter()
            .enumerate()
            .filter_map(|(id, c)| Some((c.as_ref()?.holding_horizon_ns(now, factor)?, id)))
            .min()
    }

    /// The horizon after connection `id` got a delivery: the least of
    /// `current` and that rank's.
    pub(super) fn horizon_after_delivery(
        &self,
        current: Option<(u64, ConnId)>,
        id: ConnId,
    ) -> Option<(u64, ConnId)> {
        if self.settings.hold_cap_ns == 0 {
            return None;
        }
        let (now, factor) = (self.clock.now_ns(), self.pace_factor());
        let theirs = self.conns[id]
            .as_ref()
            .and_then(|c| c.holding_horizon_ns(now, factor));
        match (current, theirs) {
            (Some(a), Some(t)) => Some(a.min((t, id))),
            (a, t) => a.or(t.map(|t| (t, id))),
        }
    }

    /// Whether the event at `event_ns` (wall deadline `deadline_ns`) must
    /// wait at wall time `now_ns` for `horizon`; records the wait. One
    /// rank holds events for at most the cap at a time, counted from the
    /// deadline or, when the loop is already behind, from when the wait
    /// began, however its horizon creeps meanwhile (a rank that polls
    /// with `MPI_Test` moves it a little at every call): a rank that
    /// stays behind that long (it computes, polls, or waits for a CPU)
    /// then holds events only beyond its horizon advancing with the wall
    /// clock ([`Pace`]), until it next waits inside MPI.
    pub(super) fn must_hold(
        &mut self,
        event_ns: u64,
        deadline_ns: u64,
        now_ns: u64,
        horizon: Option<(u64, ConnId)>,
    ) -> bool {
        let Some((h, holder)) = horizon else {
            return false;
        };
        if event_ns <= h {
            return false;
        }
        let factor = self.pace_factor();
        let mut pace = self.conns[holder].as_ref().and_then(|c| c.paced_from);
        match self.hold.as_mut() {
            Some(hold) if hold.holder == holder => {
                if pace.is_none() && now_ns >= hold.until_ns {
                    self.holds.cap_expiries += 1;
                    let p = Pace {
                        horizon_ns: h,
                        since_ns: hold.since_ns,
                    };
                    if let Some(c) = self.conns[holder].as_mut() {
                        c.paced_from = Some(p);
                    }
                    if event_ns <= p.horizon_at(now_ns, factor) {
                        return false;
                    }
                    pace = Some(p);
                }
                hold.checked_ns = now_ns;
                hold.event_ns = event_ns;
                hold.horizon_ns = h;
                if let Some(p) = pace {
                    hold.until_ns = p.reaches(event_ns, factor).max(now_ns + 1);
                }
            }
            _ => {
                self.end_hold(now_ns);
                self.holds.holds += 1;
                self.hold = Some(Hold {
                    event_ns,
                    horizon_ns: h,
                    holder,
                    since_ns: now_ns,
                    checked_ns: now_ns,
                    until_ns: match pace {
                        Some(p) => p.reaches(event_ns, factor).max(now_ns + 1),
                        None => deadline_ns.max(now_ns) + self.settings.hold_cap_ns,
                    },
                });
            }
        }
        true
    }

    /// Ends the current hold at wall time `now_ns`; returns when it was
    /// released (the last check that still needed it, or the cap).
    pub(super) fn end_hold(&mut self, now_ns: u64) -> Option<u64> {
        let hold = self.hold.take()?;
        let released = if now_ns >= hold.until_ns {
            hold.until_ns
        } else {
            hold.checked_ns
        };
        let waited = released.saturating_sub(hold.since_ns);
        self.holds.held_wall_ns += waited;
        self.holds.max_held_wall_ns = self.holds.max_held_wall_ns.max(waited);
        Some(released)
    }

    /// The hold under way: the shell asks its rank to ring when its
    /// horizon moves, and wakes at the cap at the latest.
    pub fn hold(&self) -> Option<Hold> {
        self.hold
    }
}
