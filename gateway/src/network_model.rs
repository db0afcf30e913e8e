//! The network model a job runs on: the packet-level simulator or the
//! analytic (Dimemas-style) model. Both take messages at a virtual time
//! and deliver them at a computed one through the same calls, so the loop
//! in [`crate::realtime`] drives either; only the analytic model times
//! collectives as one operation, and only the packet model has captures,
//! time series and faults.

use netsim::analytic::Release;
use netsim::faults::NetworkFailure;
use netsim::model::stats::SimStats;
use netsim::{
    AnalyticSim, Delivery, EventClass, InjectError, ModelKind, Nanos, NetworkConfig, Simulator,
};

/// "1048576 nodes, 1572864 links, 2 ranks": what a setup built.
pub fn size_summary(net: &netsim::Network, ranks: usize) -> String {
    format!(
        "{} nodes, {} links, {ranks} ranks",
        net.nodes.len(),
        net.links.len()
    )
}

/// One of the two models.
pub enum NetworkModel {
    /// The packet-level simulator.
    Packet(Box<Simulator>),
    /// The analytic model.
    Analytic(Box<AnalyticSim>),
}

impl NetworkModel {
    /// Builds the model `cfg.model` names for `ranks` ranks. Captures,
    /// time series and faults exist only in the packet model: asking for
    /// them with the analytic one is an error saying so.
    pub fn from_config(
        cfg: &NetworkConfig,
        origin: &str,
        ranks: u32,
        capture: bool,
        vectors: bool,
    ) -> Result<NetworkModel, String> {
        let progress = crate::setup_progress::SetupProgress::start(&format!(
            "building the network from {origin} for {ranks} ranks"
        ));
        let model = Self::build(cfg, origin, ranks, capture, vectors)?;
        progress.finish(&match &model {
            NetworkModel::Packet(s) => size_summary(s.network(), ranks as usize),
            NetworkModel::Analytic(_) => format!("analytic model, {ranks} ranks"),
        });
        Ok(model)
    }

    fn build(
        cfg: &NetworkConfig,
        origin: &str,
        ranks: u32,
        capture: bool,
        vectors: bool,
    ) -> Result<NetworkModel, String> {
        match cfg.model {
            ModelKind::Packet => Simulator::from_config(cfg, origin, ranks as usize, capture)
                .map(|s| NetworkModel::Packet(Box::new(s)))
                .map_err(|e| e.to_string()),
            ModelKind::Analytic => {
                if capture {
                    return Err("--capture: the analytic model has no packets, so it writes no captures; drop --capture or run with --model packet".into());
                }
                if vectors {
                    return Err("--vectors: the analytic model has no links or TCP connections to sample; drop --vectors or run with --model packet".into());
                }
                if !cfg.fault_entries.is_empty() {
                    return Err(format!(
                        "{origin}: faults ([[fault]] or --fault) need the packet model; remove them or run with --model packet"
                    ));
                }
                AnalyticSim::from_config(cfg, origin, ranks as usize)
                    .map(|s| NetworkModel::Analytic(Box::new(s)))
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// Which model this is.
    pub fn kind(&self) -> ModelKind {
        match self {
            NetworkModel::Packet(_) => ModelKind::Packet,
            NetworkModel::Analytic(_) => ModelKind::Analytic,
        }
    }

    /// The node each rank runs on (ranks of one node share memory): the
    /// packet model's hosts (a hybrid network's processors), the analytic
    /// model's SMP nodes.
    pub fn rank_nodes(&self) -> Vec<u32> {
        match self {
            NetworkModel::Packet(s) => s.rank_nodes(),
            NetworkModel::Analytic(s) => s.machine().node_of_rank.clone(),
        }
    }

    /// The name of the host each of the `ranks` ranks runs on (the packet
    /// model's hosts; empty names with the analytic model, whose nodes are
    /// not named hosts).
    pub fn rank_host_names(&self, ranks: u32) -> Vec<String> {
        match self {
            NetworkModel::Packet(s) => (s.rank_hosts().iter())
                .map(|&h| s.network().nodes[h as usize].name.clone())
                .collect(),
            NetworkModel::Analytic(_) => vec![String::new(); ranks as usize],
        }
    }

    /// The packet simulator, when that is the model.
    pub fn packet(&self) -> Option<&Simulator> {
        match self {
            NetworkModel::Packet(s) => Some(s),
            NetworkModel::Analytic(_) => None,
        }
    }

    /// The packet simulator, mutably, when that is the model.
    pub fn packet_mut(&mut self) -> Option<&mut Simulator> {
        match self {
            NetworkModel::Packet(s) => Some(s),
            NetworkModel::Analytic(_) => None,
        }
    }

    /// The analytic model, when that is the model.
    pub fn analytic(&self) -> Option<&AnalyticSim> {
        match self {
            NetworkModel::Analytic(s) => Some(s),
            NetworkModel::Packet(_) => None,
        }
    }

    /// The analytic model, mutably, when that is the model.
    pub fn analytic_mut(&mut self) -> Option<&mut AnalyticSim> {
        match self {
            NetworkModel::Analytic(s) => Some(s),
            NetworkModel::Packet(_) => None,
        }
    }

    /// Current virtual time.
    pub fn now(&self) -> Nanos {
        match self {
            NetworkModel::Packet(s) => s.now(),
            NetworkModel::Analytic(s) => s.now(),
        }
    }

    /// Messages injected and not yet delivered.
    pub fn messages_in_flight(&self) -> u64 {
        match self {
            NetworkModel::Packet(s) => s.messages_in_flight(),
            NetworkModel::Analytic(s) => s.messages_in_flight(),
        }
    }

    /// Time of the next event.
    pub fn next_event_time(&self) -> Option<Nanos> {
        match self {
            NetworkModel::Packet(s) => s.next_event_time(),
            NetworkModel::Analytic(s) => s.next_event_time(),
        }
    }

    /// Runs the next event; its time and kind.
    pub fn step_classified(&mut self) -> Option<(Nanos, EventClass)> {
        match self {
            NetworkModel::Packet(s) => s.step_classified(),
            NetworkModel::Analytic(s) => s.step_classified(),
        }
    }

    /// Runs the next event.
    pub fn step(&mut self) -> Option<Nanos> {
        self.step_classified().map(|x| x.0)
    }

    /// Sends a message from rank `src` to rank `dst` at virtual time `at`.
    pub fn inject(
        &mut self,
        src: u32,
        dst: u32,
        bytes: bytes::Bytes,
        at: Nanos,
    ) -> Result<u64, InjectError> {
        match self {
            NetworkModel::Packet(s) => s.inject(src, dst, bytes, at),
            NetworkModel::Analytic(s) => s.inject(src, dst, bytes, at),
        }
    }

    /// Moves delivered messages into `out`.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        match self {
            NetworkModel::Packet(s) => s.take_deliveries(out),
            NetworkModel::Analytic(s) => s.take_deliveries(out),
        }
    }

    /// Moves members released from finished collectives into `out` (the
    /// packet model has none: its collectives are messages).
    pub fn take_releases(&mut self, out: &mut Vec<Release>) {
        if let NetworkModel::Analytic(s) = self {
            s.take_releases(out);
        }
    }

    /// Why the network cannot carry the job on (packet model with faults).
    pub fn failure(&self) -> Option<&NetworkFailure> {
        self.packet().and_then(|s| s.failure())
    }

    /// The run's counters.
    pub fn stats(&self) -> SimStats {
        match self {
            NetworkModel::Packet(s) => s.stats(),
            NetworkModel::Analytic(s) => s.stats(),
        }
    }
}

#[cfg(test)]
mod tests {
    use mpinetsim_protocol::coll_op;
    use netsim::analytic::CollectiveOp;

    #[test]
    fn shim_and_model_agree_on_collective_codes() {
        let pairs = [
            (coll_op::BARRIER, CollectiveOp::Barrier),
            (coll_op::BCAST, CollectiveOp::Bcast),
            (coll_op::REDUCE, CollectiveOp::Reduce),
            (coll_op::ALLREDUCE, CollectiveOp::Allreduce),
            (coll_op::GATHER, CollectiveOp::Gather),
            (coll_op::GATHERV, CollectiveOp::Gatherv),
            (coll_op::SCATTER, CollectiveOp::Scatter),
            (coll_op::SCATTERV, CollectiveOp::Scatterv),
            (coll_op::ALLGATHER, CollectiveOp::Allgather),
            (coll_op::ALLGATHERV, CollectiveOp::Allgatherv),
            (coll_op::ALLTOALL, CollectiveOp::Alltoall),
            (coll_op::ALLTOALLV, CollectiveOp::Alltoallv),
            (coll_op::REDUCE_SCATTER, CollectiveOp::ReduceScatter),
            (
                coll_op::REDUCE_SCATTER_BLOCK,
                CollectiveOp::ReduceScatterBlock,
            ),
            (coll_op::SCAN, CollectiveOp::Scan),
            (coll_op::EXSCAN, CollectiveOp::Exscan),
        ];
        assert_eq!(pairs.len(), CollectiveOp::ALL.len());
        for (code, op) in pairs {
            assert_eq!(CollectiveOp::from_code(code), Some(op));
        }
    }
}
