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

use super::{ConnId, GatewayCore};
use crate::clock::WallClock;

/// The wall time an event may wait for the ranks' horizons by default,
/// ns: longer than a woken rank's way back to the gateway on an idle
/// machine (5–50 µs here), short enough that a computing rank delays
/// the others' deliveries little.
pub const DEFAULT_HOLD_CAP_NS: u64 = 2_000_000;

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
    /// Of those, the waits that ended at the cap (the rank's messages
    /// may then enter late).
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

    /// The least horizon of the ranks and whose it is (None: no rank
    /// promised anything or holding is off). A rank whose hold reached the
    /// cap is left out until it waits inside MPI again.
    pub(super) fn ranks_horizon(&self) -> Option<(u64, ConnId)> {
        if self.settings.hold_cap_ns == 0 {
            return None;
        }
        self.conns
            .iter()
            .enumerate()
            .filter_map(|(id, c)| Some((c.as_ref()?.holding_horizon_ns()?, id)))
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
        let theirs = self.conns[id].as_ref().and_then(|c| c.holding_horizon_ns());
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
    /// holds nothing more until it next waits inside MPI.
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
        match self.hold.as_mut() {
            Some(hold) if hold.holder == holder => {
                if now_ns >= hold.until_ns {
                    self.holds.cap_expiries += 1;
                    if let Some(c) = self.conns[holder].as_mut() {
                        c.hold_expired = true;
                    }
                    return false;
                }
                hold.checked_ns = now_ns;
                hold.event_ns = event_ns;
                hold.horizon_ns = h;
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
                    until_ns: deadline_ns.max(now_ns) + self.settings.hold_cap_ns,
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
