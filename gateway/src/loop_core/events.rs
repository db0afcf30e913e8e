//! Running the network model in scaled real time: every event whose wall
//! deadline `epoch + v × factor` is at most the lookahead away runs (once
//! no rank may still send before it: see [`super::horizon_hold`]), its
//! lateness is recorded (maxBehind, and the adaptive controller's input),
//! and the deliveries and collective releases it produced are queued for
//! their ranks (or kept until a rank connects).

use super::{GatewayCore, EVENTS_PER_CAPTURE_FLUSH};
use crate::clock::WallClock;
use mpinetsim_protocol::Frame;

/// Why [`GatewayCore::run_due_events`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DueEvents {
    /// No event is due any more.
    Done,
    /// [`EVENTS_PER_CAPTURE_FLUSH`] events ran since the last flush: the
    /// shell writes the capture and time-series buffers to their files,
    /// then calls again.
    FlushCaptures,
}

impl<C: WallClock> GatewayCore<C> {
    /// Runs every event whose wall deadline is at most the lookahead away
    /// (reading the clock before each), recording lateness, and queues the
    /// resulting deliveries.
    pub fn run_due_events(&mut self) -> DueEvents {
        let mut deliveries = Vec::new();
        let mut releases = Vec::new();
        let mut horizon = self.ranks_horizon();
        // When a hold ended: events due meanwhile are late from then on.
        let mut released_at: Option<u64> = None;
        loop {
            let now = self.clock.now_ns();
            let Some(t) = self.sim.next_event_time() else {
                return DueEvents::Done;
            };
            let deadline = self.time.deadline(t.0);
            let lookahead = self.settings.lookahead.wall_ns(self.time.factor_at(t.0));
            if deadline > now + lookahead {
                return DueEvents::Done;
            }
            if self.must_hold(t.0, deadline, now, horizon) {
                return DueEvents::Done;
            }
            if let Some(r) = self.end_hold(now) {
                released_at = Some(r);
            }
            let (t, class) = self.sim.step_classified().expect("an event is pending");
            self.last_progress_ns = now;
            self.stall_reported = false;
            let due = released_at.map_or(deadline, |r| deadline.max(r));
            let late = (now.saturating_sub(due) as f64 / self.time.factor_at(t.0)) as u64;
            self.lateness.record(late, class, t.0);
            if let Some(a) = self.adaptive.as_mut() {
                a.observe(late);
            }
            self.sim.take_deliveries(&mut deliveries);
            for d in deliveries.drain(..) {
                self.messages_out += 1;
                if let Some(a) = self.arrows.as_mut() {
                    a.push(crate::timeline::Arrow {
                        src: d.src,
                        dst: d.dst,
                        sent_ns: d.injected_at.0,
                        arrived_ns: d.delivered_at.0,
                        bytes: d.bytes.len() as u64,
                    });
                }
                if let Some(st) = self.storage.as_mut() {
                    if st.on_delivery(&d, self.sim.as_mut()) {
                        continue;
                    }
                }
                match self.rank_conn[d.dst as usize] {
                    Some(ci) => {
                        if let Some(c) = self.conns[ci].as_mut() {
                            if matches!(
                                c.state,
                                super::ConnState::Active | super::ConnState::Finalized
                            ) {
                                c.queue_deliver(d.src, d.delivered_at.0, &d.bytes);
                            }
                        }
                        horizon = self.horizon_after_delivery(horizon, ci);
                    }
                    // Not connected yet: keep it until its Hello.
                    None => self.undelivered[d.dst as usize].push_back(Frame::Deliver {
                        src: d.src,
                        vtime_ns: d.delivered_at.0,
                        bytes: d.bytes.to_vec(),
                    }),
                }
            }
            if let Some(c) = self.sim.collectives() {
                c.take_releases(&mut releases);
            }
            for r in releases.drain(..) {
                // Every member of a collective is connected: it sent the
                // Collective frame.
                let ci = self.rank_conn[r.rank as usize];
                if let Some(c) = ci.and_then(|ci| self.conns[ci].as_mut()) {
                    let done = Frame::CollectiveDone {
                        context: r.key.context,
                        leader: r.key.leader,
                        seq: r.key.seq,
                        vtime_ns: r.at.0,
                    };
                    c.queue_collective_done(&done, r.at.0);
                }
                if let Some(ci) = ci {
                    horizon = self.horizon_after_delivery(horizon, ci);
                }
            }
            self.events_since_flush += 1;
            if self.events_since_flush >= EVENTS_PER_CAPTURE_FLUSH {
                self.events_since_flush = 0;
                return DueEvents::FlushCaptures;
            }
        }
    }

    /// When the shell's timer should wake the loop: the next event's wall
    /// deadline minus the lookahead (at least 1 ns, as an absolute timerfd
    /// time), or the end of the hold under way; None when no event is
    /// pending.
    pub fn timer_deadline(&self) -> Option<u64> {
        if let Some(h) = self.hold {
            // Until the rank's horizon moves (its doorbell), or the cap.
            return Some(h.until_ns);
        }
        self.sim.next_event_time().map(|t| {
            let lookahead = self.settings.lookahead.wall_ns(self.time.factor_at(t.0));
            self.time.deadline(t.0).saturating_sub(lookahead).max(1)
        })
    }

    /// After every rank has finished, runs the remaining events (ACKs,
    /// timers) at once: nobody waits for them any more.
    pub(super) fn finish_simulation(&mut self) {
        while self.sim.step().is_some() {}
        let mut d = Vec::new();
        self.sim.take_deliveries(&mut d);
    }
}
