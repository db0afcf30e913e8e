//! A network model for the core's tests whose numbers are closed form:
//! every message arrives exactly `latency` after it was injected, as one
//! event of class `Arrival`.

use bytes::Bytes;
use netsim::model::stats::SimStats;
use netsim::{Delivery, EventClass, InjectError, ModelKind, Nanos, NetworkModel};
use std::any::Any;
use std::collections::BTreeMap;

/// Messages arrive `latency` after injection, in injection order at equal times.
pub struct FixedLatency {
    ranks: u32,
    latency: Nanos,
    now: Nanos,
    /// Pending arrivals by (time, message id).
    pending: BTreeMap<(Nanos, u64), Delivery>,
    delivered: Vec<Delivery>,
    next_id: u64,
}

impl FixedLatency {
    /// `ranks` ranks (plus no other endpoint), each on its own node.
    pub fn new(ranks: u32, latency: Nanos) -> FixedLatency {
        FixedLatency {
            ranks,
            latency,
            now: Nanos::ZERO,
            pending: BTreeMap::new(),
            delivered: Vec::new(),
            next_id: 0,
        }
    }
}

impl NetworkModel for FixedLatency {
    fn kind(&self) -> ModelKind {
        ModelKind::Packet
    }
    fn now(&self) -> Nanos {
        self.now
    }
    fn next_event_time(&self) -> Option<Nanos> {
        self.pending.keys().next().map(|k| k.0)
    }
    fn step_classified(&mut self) -> Option<(Nanos, EventClass)> {
        let ((t, _), d) = self.pending.pop_first()?;
        self.now = t;
        self.delivered.push(d);
        Some((t, EventClass::Arrival))
    }
    fn advance_to(&mut self, t: Nanos) {
        while self.next_event_time().is_some_and(|n| n <= t) {
            self.step_classified();
        }
        self.now = self.now.max(t);
    }
    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError> {
        if dst >= self.ranks {
            return Err(InjectError::NoSuchRank {
                rank: dst,
                ranks: self.ranks,
            });
        }
        if bytes.is_empty() {
            return Err(InjectError::Empty);
        }
        let id = self.next_id;
        self.next_id += 1;
        let arrives = Nanos(at.0 + self.latency.0);
        let d = Delivery {
            id,
            src,
            dst,
            bytes,
            injected_at: at,
            delivered_at: arrives,
        };
        self.pending.insert((arrives, id), d);
        Ok(id)
    }
    fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        out.append(&mut self.delivered);
    }
    fn messages_in_flight(&self) -> u64 {
        self.pending.len() as u64
    }
    fn stats(&self) -> SimStats {
        SimStats::default()
    }
    fn rank_nodes(&self) -> Vec<u32> {
        (0..self.ranks).collect()
    }
    fn add_rank(&mut self, _host: Option<&str>) -> Result<u32, String> {
        self.ranks += 1;
        Ok(self.ranks - 1)
    }
    fn rank_host_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn summary(&self) -> String {
        format!("{} ranks, {} ns apart", self.ranks, self.latency.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
