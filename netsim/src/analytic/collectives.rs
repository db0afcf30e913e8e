//! Collective operations as one modelled operation (Dimemas's global
//! operation model): the members first synchronise (the operation starts
//! when the last member enters), then a fan-in phase and a fan-out phase
//! run, each costing
//!
//! ```text
//! phase = (latency + size ÷ bandwidth) × factor
//! ```
//!
//! where `factor` comes from the phase's [`PhaseModel`] (0, 1, P, or the
//! number of tree steps [`log_steps`]) and `size` from its [`SizeRule`]
//! applied to the bytes the root sends and receives.

pub use crate::config::analytic::{CollectiveModel, PhaseModel, SizeRule};
pub use crate::model::collective::CollectiveOp;

/// Steps of a logarithmic phase for `p` members and `buses` buses
/// (0 = unlimited): Σ over the ⌈log2 p⌉ tree phases i = 0, 1, … of
/// ⌈C_i ÷ B⌉, where phase i of a binomial tree has C_i = min(2^i, p − 2^i)
/// simultaneous messages.
pub fn log_steps(p: u32, buses: u32) -> u64 {
    let mut steps = 0u64;
    let mut have = 1u64; // members holding data after the phases so far
    while have < p as u64 {
        let c = have.min(p as u64 - have);
        steps += if buses == 0 {
            1
        } else {
            c.div_ceil(buses as u64)
        };
        have *= 2;
    }
    steps
}

/// The factor a phase model multiplies the per-step cost by.
pub fn phase_factor(model: PhaseModel, p: u32, buses: u32) -> u64 {
    match model {
        PhaseModel::None => 0,
        PhaseModel::Constant => 1,
        PhaseModel::Linear => p as u64,
        PhaseModel::Log => log_steps(p, buses),
    }
}

/// What the model needs to time one collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollectiveShape {
    /// Members P.
    pub members: u32,
    /// Bytes the root sends (S).
    pub root_sent_bytes: u64,
    /// Bytes the root receives (R).
    pub root_received_bytes: u64,
    /// Latency of one step, ns (local when all members share a node).
    pub latency_ns: u64,
    /// Bandwidth of one step, bits per second (0 = unlimited).
    pub bandwidth_bps: u64,
    /// Buses of the network (0 = unlimited).
    pub buses: u32,
}

/// Duration of the fan-in and fan-out phases (after the synchronisation).
pub fn collective_ns(model: &CollectiveModel, s: &CollectiveShape) -> u64 {
    let phase = |m: PhaseModel, rule: SizeRule| {
        let bytes = rule.bytes(s.root_sent_bytes, s.root_received_bytes);
        let step = s.latency_ns + super::MachineParams::transfer_ns(bytes, s.bandwidth_bps);
        step * phase_factor(m, s.members, s.buses)
    };
    phase(model.model_in, model.size_in) + phase(model.model_out, model.size_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 members, latency 1 000 ns, 8 Gbps (1 byte/ns), 3 buses; the root
    /// sends 400 and receives 100 bytes.
    fn shape() -> CollectiveShape {
        CollectiveShape {
            members: 8,
            root_sent_bytes: 400,
            root_received_bytes: 100,
            latency_ns: 1_000,
            bandwidth_bps: 8_000_000_000,
            buses: 3,
        }
    }

    fn model(model_in: PhaseModel, size_in: SizeRule, model_out: PhaseModel) -> CollectiveModel {
        CollectiveModel {
            model_in,
            size_in,
            model_out,
            size_out: SizeRule::Max,
        }
    }

    #[test]
    fn log_steps_count_bus_limited_tree_phases() {
        // P = 8: phases with 1, 2, 4 messages; 3 buses → 1 + 1 + 2 = 4.
        assert_eq!(log_steps(8, 3), 4);
        // Unlimited buses: ⌈log2 8⌉ = 3; one bus: 1 + 2 + 4 = 7 = P − 1.
        assert_eq!(log_steps(8, 0), 3);
        assert_eq!(log_steps(8, 1), 7);
        // P = 5: phases with 1, 2, min(4, 1) = 1 messages; 1 bus → 4.
        assert_eq!(log_steps(5, 1), 4);
        assert_eq!(log_steps(5, 0), 3);
        // One member: no phase.
        assert_eq!(log_steps(1, 2), 0);
        // P = 16, 5 buses: ⌈1/5⌉ + ⌈2/5⌉ + ⌈4/5⌉ + ⌈8/5⌉ = 1 + 1 + 1 + 2 = 5.
        assert_eq!(log_steps(16, 5), 5);
    }

    #[test]
    fn each_phase_model_gives_its_factor() {
        let s = shape();
        // One step with MAX = 400 bytes: 1 000 + 400 = 1 400 ns.
        let step = 1_400;
        let none = PhaseModel::None;
        assert_eq!(collective_ns(&model(none, SizeRule::Max, none), &s), 0);
        let cte = model(PhaseModel::Constant, SizeRule::Max, none);
        assert_eq!(collective_ns(&cte, &s), step);
        let lin = model(PhaseModel::Linear, SizeRule::Max, none);
        assert_eq!(collective_ns(&lin, &s), 8 * step);
        let log = model(PhaseModel::Log, SizeRule::Max, none);
        assert_eq!(collective_ns(&log, &s), 4 * step);
        // The fan-out phase uses the same factors: LOG out with MAX.
        let out = model(none, SizeRule::Max, PhaseModel::Log);
        assert_eq!(collective_ns(&out, &s), 4 * step);
        // Both phases add up: CTE in + LIN out = 1 + 8 steps.
        let both = model(PhaseModel::Constant, SizeRule::Max, PhaseModel::Linear);
        assert_eq!(collective_ns(&both, &s), 9 * step);
    }

    #[test]
    fn each_size_rule_picks_its_size() {
        let s = shape();
        let cte = |rule| collective_ns(&model(PhaseModel::Constant, rule, PhaseModel::None), &s);
        // S = 400, R = 100 bytes at 1 byte/ns after 1 000 ns of latency.
        assert_eq!(cte(SizeRule::Max), 1_000 + 400);
        assert_eq!(cte(SizeRule::Min), 1_000 + 100);
        assert_eq!(cte(SizeRule::Mean), 1_000 + 250);
        assert_eq!(cte(SizeRule::TwiceMax), 1_000 + 800);
        assert_eq!(cte(SizeRule::SendPlusRecv), 1_000 + 500);
    }

    #[test]
    fn size_out_rule_applies_to_fan_out() {
        let s = shape();
        let m = CollectiveModel {
            model_in: PhaseModel::None,
            size_in: SizeRule::Max,
            model_out: PhaseModel::Linear,
            size_out: SizeRule::Min,
        };
        // 8 × (1 000 + 100).
        assert_eq!(collective_ns(&m, &s), 8_800);
    }

    #[test]
    fn wire_codes_round_trip() {
        for op in CollectiveOp::ALL {
            assert_eq!(CollectiveOp::from_code(op as u8), Some(op));
        }
        assert_eq!(CollectiveOp::from_code(0), None);
        assert_eq!(CollectiveOp::from_code(17), None);
        for op in CollectiveOp::ALL {
            assert_eq!(CollectiveOp::from_name(op.name()), Some(op));
        }
    }
}
