//! What the core does with the frames a connection sent: Hello (see
//! [`super::hello`]), clock probes, messages into the network model (at
//! their stamp, or late by the difference), the analytic model's
//! collectives, Finalize, Abort, Waiting; and the end of a connection.

use super::hello::Hello;
use super::{Action, ConnId, ConnState, GatewayCore, JobOutcome};
use crate::clock::WallClock;
use mpinetsim_protocol::Frame;
use netsim::Nanos;

impl<C: WallClock> GatewayCore<C> {
    /// Handles every complete frame connection `idx` has buffered, then its
    /// end when the shell saw end of stream (`eof`). Err ends the job.
    pub fn on_input(&mut self, idx: ConnId, eof: bool) -> Result<(), JobOutcome> {
        // Until the connection has no complete frame, or was refused.
        while let Some(c) = self.conns[idx].as_mut() {
            if let Some(len) = c.announces_oversized_hello() {
                self.refuse(
                    idx,
                    format!("its first frame announces {len} bytes, more than any Hello"),
                    "it sent a malformed frame (not a Hello)".into(),
                )?;
                break;
            }
            let frame = match c.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) if c.state == ConnState::AwaitHello => {
                    self.refuse(
                        idx,
                        format!("it sent bytes that are not a Hello ({e})"),
                        format!("it sent a malformed frame ({e})"),
                    )?;
                    break;
                }
                Err(e) => {
                    return Err(JobOutcome::ProtocolError {
                        rank: c.rank,
                        pid: c.peer_pid,
                        message: format!("it sent a malformed frame ({e})"),
                    })
                }
            };
            if !matches!(frame, Frame::ClockProbe { .. } | Frame::ClockOffset { .. }) {
                if !matches!(frame, Frame::Waiting { .. }) {
                    c.waiting = None;
                }
                self.progress();
            }
            self.handle_frame(idx, frame)?;
        }
        let Some(c) = self.conns[idx].as_mut() else {
            return Ok(());
        };
        if c.state == ConnState::Active && c.pending_out() > 0 {
            self.actions.push(Action::Flush(idx)); // a clock reply goes out at once
        }
        if eof {
            let was = c.state;
            c.state = ConnState::Closed;
            match (was, c.rank) {
                (ConnState::Finalized, _) => self.actions.push(Action::Unwatch(idx)),
                (_, Some(r)) => {
                    self.actions.push(Action::Unwatch(idx));
                    let now = self.clock.now_ns();
                    self.lost.push((r, now));
                }
                (ConnState::AwaitHello, None) => {
                    // A probe or a stray client.
                    self.actions.push(Action::Close(idx));
                    self.conns[idx] = None;
                }
                (_, None) => self.actions.push(Action::Unwatch(idx)),
            }
        }
        Ok(())
    }

    fn handle_frame(&mut self, idx: ConnId, frame: Frame) -> Result<(), JobOutcome> {
        let c = self.conns[idx].as_mut().expect("a connection with a frame");
        match (c.state, frame) {
            (
                ConnState::AwaitHello,
                Frame::Hello {
                    version,
                    rank,
                    size,
                    pid,
                    job,
                    secret,
                },
            ) => self.on_hello(
                idx,
                Hello {
                    version,
                    rank,
                    size,
                    pid,
                    job,
                    secret,
                },
            ),
            (ConnState::Active | ConnState::Finalized, Frame::ClockProbe { t1_ns }) => {
                c.clock_probes += 1;
                let t2_ns = c.last_read_ns;
                c.queue(&Frame::ClockReply {
                    t1_ns,
                    t2_ns,
                    t3_ns: self.clock.now_ns(),
                });
                Ok(())
            }
            (
                ConnState::Active | ConnState::Finalized,
                Frame::ClockOffset {
                    offset_ns,
                    uncertainty_ns,
                },
            ) => {
                c.set_clock(offset_ns, uncertainty_ns);
                Ok(())
            }
            (ConnState::Active, Frame::Send { dst, srt_ns, bytes }) => {
                self.on_send(idx, dst, srt_ns, bytes)
            }
            (ConnState::Active, Frame::CollectiveData { dst, srt_ns, bytes }) => {
                let src = c.rank.expect("an active connection has a rank");
                // Untimed: it arrives as soon as the gateway has it (not at
                // its stamp, which IPC has already passed: that is no
                // network lateness).
                let now_srt = self.time.srt(self.clock.now_ns());
                let at = Nanos(srt_ns.max(now_srt)).max(self.sim.now());
                let Some(model) = self.sim.collectives() else {
                    return Err(self.protocol_error(
                        idx,
                        "it sent collective data, which only the analytic model takes".into(),
                    ));
                };
                self.messages_in += 1;
                if let Err(e) = model.inject_untimed(src, dst, bytes.into(), at) {
                    return Err(self.protocol_error(
                        idx,
                        format!("it sent a message the network cannot carry ({e})"),
                    ));
                }
                Ok(())
            }
            (
                ConnState::Active,
                Frame::Collective {
                    context,
                    leader,
                    seq,
                    op,
                    members,
                    is_root,
                    sent_bytes,
                    received_bytes,
                    srt_ns,
                },
            ) => {
                let rank = c.rank.expect("an active connection has a rank");
                let Some(op) = netsim::analytic::CollectiveOp::from_code(op) else {
                    return Err(self.protocol_error(
                        idx,
                        format!("it reported an unknown collective (code {op})"),
                    ));
                };
                let entry = netsim::analytic::CollectiveEntry {
                    key: netsim::analytic::CollectiveKey {
                        context,
                        leader,
                        seq,
                    },
                    op,
                    members,
                    is_root,
                    sent_bytes,
                    received_bytes,
                };
                let Some(model) = self.sim.collectives() else {
                    return Err(self.protocol_error(
                        idx,
                        "it reported a collective, which only the analytic model takes".into(),
                    ));
                };
                if let Err(e) = model.enter_collective(rank, entry, Nanos(srt_ns)) {
                    return Err(self.protocol_error(idx, e));
                }
                Ok(())
            }
            (ConnState::Active, Frame::ComputeLate { late_ns }) => {
                // The full distribution comes with Finalize; this is for
                // the factor controller only.
                if let Some(a) = self.adaptive.as_mut() {
                    a.observe(late_ns);
                }
                Ok(())
            }
            (ConnState::Active, Frame::Spawn { srt_ns, request }) => {
                let rank = c.rank.expect("an active connection has a rank");
                match mpinetsim_protocol::spawn::SpawnRequest::decode(&request) {
                    Ok(request) => {
                        self.spawn_requests.push(super::SpawnAsk {
                            rank,
                            srt_ns,
                            request,
                        });
                        Ok(())
                    }
                    Err(e) => {
                        Err(self.protocol_error(idx, format!("it sent a bad spawn request ({e})")))
                    }
                }
            }
            (ConnState::Active, Frame::Finalize(counters)) => {
                self.lateness.record_computations(&counters);
                c.counters = Some(counters);
                c.state = ConnState::Finalized;
                c.queue(&Frame::FinalizeAck);
                Ok(())
            }
            (ConnState::Active, Frame::Abort { code, text }) => {
                // The rank waits for this before it exits, so the reason is
                // here before the launcher can see the process end.
                c.queue(&Frame::AbortAck);
                let rank = c.rank.unwrap_or(u32::MAX);
                self.actions.push(Action::Flush(idx));
                Err(JobOutcome::Aborted { rank, code, text })
            }
            (
                ConnState::Active,
                Frame::Waiting {
                    call,
                    any_source,
                    peers,
                    more_peers,
                    wakeups,
                },
            ) => {
                // Stale when a delivery crossed it on the way.
                if wakeups >= c.wakeups {
                    c.waiting = Some(crate::stall::RankWaiting {
                        call,
                        any_source,
                        peers,
                        more_peers,
                    });
                }
                Ok(())
            }
            (ConnState::AwaitHello, frame) => self.refuse(
                idx,
                format!("its first frame was {}, not Hello", frame.name()),
                format!("it sent a {} frame before its Hello", frame.name()),
            ),
            (state, frame) => {
                let what = frame.name();
                Err(self.protocol_error(
                    idx,
                    format!("it sent a {what} frame out of order (connection state {state:?})"),
                ))
            }
        }
    }

    /// A rank's message for `dst` enters the network at its stamp, or at
    /// the model's current time if events after the stamp already ran.
    fn on_send(
        &mut self,
        idx: ConnId,
        dst: u32,
        srt_ns: u64,
        bytes: Vec<u8>,
    ) -> Result<(), JobOutcome> {
        let n = self.rank_conn.len() as u32;
        let conn = self.conns[idx].as_ref().expect("a connection with a frame");
        let src = conn.rank.expect("an active connection has a rank");
        let uncertainty_ns = conn.clock_uncertainty_ns;
        let to_storage = self.storage.as_ref().is_some_and(|s| s.endpoint() == dst);
        if dst >= n && !to_storage {
            return Err(self.protocol_error(
                idx,
                format!(
                    "it sent a message to rank {dst}, but the job has ranks 0 to {}",
                    n - 1
                ),
            ));
        }
        self.messages_in += 1;
        let at = Nanos(srt_ns).max(self.sim.now());
        // The simulator may already have run past the send time: the
        // message enters late by the difference. And the stamp itself is
        // only as good as the rank's clock offset: it may be late by up to
        // the offset's uncertainty (wall ns, so divided by the factor to be
        // scaled time).
        let uncertain_srt_ns = (uncertainty_ns as f64 / self.time.factor_at(srt_ns)).ceil() as u64;
        let late = at.0 - srt_ns + uncertain_srt_ns;
        if late > 0 {
            self.lateness.record(late, netsim::EventClass::Inject, at.0);
        }
        // What entered late for certain: the clamp, without the clock's
        // uncertainty (which maxBehind counts as possible lateness).
        self.injection_lateness.record(at.0 - srt_ns);
        if let Err(e) = self.sim.inject(src, dst, bytes.into(), at) {
            return Err(self.protocol_error(
                idx,
                format!("it sent a message the network cannot carry ({e})"),
            ));
        }
        Ok(())
    }
}
