//! The packet simulator as a [`NetworkModel`]: every call goes to the
//! simulator's own method of the same name.

use super::Simulator;
use crate::base::time::Nanos;
use crate::config::analytic::ModelKind;
use crate::faults::NetworkFailure;
use crate::model::stats::SimStats;
use crate::model::{Delivery, EventClass, InjectError, NetworkModel};
use bytes::Bytes;
use std::any::Any;

impl NetworkModel for Simulator {
    fn kind(&self) -> ModelKind {
        ModelKind::Packet
    }

    fn now(&self) -> Nanos {
        Simulator::now(self)
    }

    fn next_event_time(&self) -> Option<Nanos> {
        Simulator::next_event_time(self)
    }

    fn step_classified(&mut self) -> Option<(Nanos, EventClass)> {
        Simulator::step_classified(self)
    }

    fn advance_to(&mut self, t: Nanos) {
        Simulator::advance_to(self, t)
    }

    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError> {
        Simulator::inject(self, src, dst, bytes, at)
    }

    fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        Simulator::take_deliveries(self, out)
    }

    fn messages_in_flight(&self) -> u64 {
        Simulator::messages_in_flight(self)
    }

    fn stats(&self) -> SimStats {
        Simulator::stats(self)
    }

    fn rank_nodes(&self) -> Vec<u32> {
        Simulator::rank_nodes(self)
    }

    fn rank_host_names(&self) -> Vec<String> {
        (self.rank_hosts().iter())
            .map(|&h| self.network().nodes[h as usize].name.clone())
            .collect()
    }

    fn add_rank(&mut self, host: Option<&str>) -> Result<u32, String> {
        Simulator::add_rank(self, host)
    }

    fn summary(&self) -> String {
        let net = self.network();
        format!(
            "{} nodes, {} links, {} ranks",
            net.nodes.len(),
            net.links.len(),
            self.rank_hosts().len()
        )
    }

    fn failure(&self) -> Option<&NetworkFailure> {
        Simulator::failure(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
