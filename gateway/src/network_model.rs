//! The network model a job runs on, whichever the configuration names:
//! netsim builds it ([`netsim::models::from_config`]) as a
//! `Box<dyn NetworkModel>`, which the loop in [`crate::realtime`] drives
//! without knowing which model it is. What only the packet simulator has
//! (captures, time series, path latencies) and what only the analytic
//! model reports (its own counters) are reached by asking for that type.

use crate::error::Error;
use netsim::analytic::{AnalyticSim, AnalyticStats};
use netsim::models::ModelOptions;
use netsim::{NetworkConfig, NetworkModel, Simulator};

/// The model a job runs on.
pub type Model = Box<dyn NetworkModel>;

/// Builds the model `cfg.model` names for `ranks` ranks, showing progress
/// while a large network is built.
pub fn from_config(
    cfg: &NetworkConfig,
    origin: &str,
    ranks: u32,
    capture: bool,
    vectors: bool,
) -> Result<Model, Error> {
    let progress = crate::setup_progress::SetupProgress::start(&format!(
        "building the network from {origin} for {ranks} ranks"
    ));
    let model = netsim::models::from_config(cfg, origin, ranks, ModelOptions { capture, vectors })
        .map_err(|e| e.to_string())?;
    progress.finish(&model.summary());
    Ok(model)
}

/// The packet simulator, when that is the model.
pub fn packet(model: &dyn NetworkModel) -> Option<&Simulator> {
    model.as_any().downcast_ref()
}

/// The packet simulator, mutably, when that is the model.
pub fn packet_mut(model: &mut dyn NetworkModel) -> Option<&mut Simulator> {
    model.as_any_mut().downcast_mut()
}

/// The analytic model's own counters, when that is the model.
pub fn analytic_stats(model: &dyn NetworkModel) -> Option<AnalyticStats> {
    let m: &AnalyticSim = model.as_any().downcast_ref()?;
    Some(m.analytic_stats().clone())
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
