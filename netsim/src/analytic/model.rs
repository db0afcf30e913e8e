//! The analytic model as a [`NetworkModel`] that also times collectives
//! ([`CollectiveTiming`]): every call goes to the model's own method of
//! the same name.

use super::AnalyticSim;
use crate::base::time::Nanos;
use crate::config::analytic::ModelKind;
use crate::model::collective::{CollectiveEntry, Release};
use crate::model::stats::SimStats;
use crate::model::{CollectiveTiming, Delivery, EventClass, InjectError, NetworkModel};
use bytes::Bytes;
use std::any::Any;

impl NetworkModel for AnalyticSim {
    fn kind(&self) -> ModelKind {
        ModelKind::Analytic
    }

    fn now(&self) -> Nanos {
        AnalyticSim::now(self)
    }

    fn next_event_time(&self) -> Option<Nanos> {
        AnalyticSim::next_event_time(self)
    }

    fn step_classified(&mut self) -> Option<(Nanos, EventClass)> {
        AnalyticSim::step_classified(self)
    }

    fn advance_to(&mut self, t: Nanos) {
        AnalyticSim::advance_to(self, t)
    }

    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError> {
        AnalyticSim::inject(self, src, dst, bytes, at)
    }

    fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        AnalyticSim::take_deliveries(self, out)
    }

    fn messages_in_flight(&self) -> u64 {
        AnalyticSim::messages_in_flight(self)
    }

    fn stats(&self) -> SimStats {
        AnalyticSim::stats(self)
    }

    fn rank_nodes(&self) -> Vec<u32> {
        self.machine().node_of_rank.clone()
    }

    /// The analytic model's nodes are not named hosts.
    fn rank_host_names(&self) -> Vec<String> {
        vec![String::new(); self.machine().node_of_rank.len()]
    }

    fn summary(&self) -> String {
        format!(
            "analytic model, {} ranks",
            self.machine().node_of_rank.len()
        )
    }

    fn collectives(&mut self) -> Option<&mut dyn CollectiveTiming> {
        Some(self)
    }

    fn times_collectives(&self) -> bool {
        true
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl CollectiveTiming for AnalyticSim {
    fn inject_untimed(
        &mut self,
        src: u32,
        dst: u32,
        bytes: Bytes,
        at: Nanos,
    ) -> Result<u64, InjectError> {
        AnalyticSim::inject_untimed(self, src, dst, bytes, at)
    }

    fn enter_collective(
        &mut self,
        rank: u32,
        entry: CollectiveEntry,
        at: Nanos,
    ) -> Result<(), String> {
        AnalyticSim::enter_collective(self, rank, entry, at)
    }

    fn take_releases(&mut self, out: &mut Vec<Release>) {
        AnalyticSim::take_releases(self, out)
    }
}
