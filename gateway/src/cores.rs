//! The cores this machine offers the ranks, and the smallest time factor
//! that keeps up when every rank computes at once.
//!
//! The emulated machine has a core for every rank, of the speed its
//! host's `cpu_speed` gives (a rank's threads add their CPU times up). A
//! rank owes factor × c ÷ speed of
//! wall time for c of CPU time; with n single-threaded ranks computing at
//! once on k cores each gets k ÷ n of a core, so c of CPU takes c × n ÷ k
//! of wall time, and keeping up needs factor ≥ speed × n ÷ k.

use mpinetsim_protocol::ComputeClock;

/// Cores this process may run on (its CPU affinity and cgroup quota), at
/// least 1.
pub fn available() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The smallest whole factor that keeps up with `ranks` single-threaded
/// ranks (the fastest of `speeds`) computing at once on `cores` cores.
pub fn factor_to_keep_up(ranks: u32, cores: usize, speeds: &[f64]) -> u64 {
    let fastest = match speeds.iter().copied().fold(0.0_f64, f64::max) {
        s if s > 0.0 => s,
        _ => 1.0,
    };
    let need = fastest * f64::from(ranks) / cores.max(1) as f64;
    // 1e-9 absorbs rounding in the division (8 ranks on 2 cores → 4).
    ((need - 1e-9).ceil() as u64).max(1)
}

/// The line `run` prints at start.
pub fn start_summary(ranks: u32, clock: ComputeClock, speeds: &[f64]) -> String {
    let cores = available();
    let factor = factor_to_keep_up(ranks, cores, speeds);
    let speeds_note = if speeds.iter().any(|&s| s != 1.0) {
        let (lo, hi) = speeds
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        format!(", CPU speeds {lo}–{hi}")
    } else {
        String::new()
    };
    let ranks = plural(ranks as u64, "rank");
    let cores = plural(cores as u64, "core");
    match clock {
        ComputeClock::Cpu => format!(
            "mpinetsim: {ranks} on {cores} (computation measured as CPU time{speeds_note}); if every rank computes at once, time factor {factor} or more keeps up\n"
        ),
        ComputeClock::Wall => format!(
            "mpinetsim: {ranks} on {cores} (computation measured as wall time{speeds_note}: a rank waiting for a core computes longer unless the time factor is {factor} or more and the machine is otherwise idle)\n"
        ),
    }
}

/// The warning for a run whose ranks' computations ran up to `late_ns`
/// late (scaled time), when that is far above the network's smallest
/// latency `smallest_ns` (as maxBehind's own warning judges): they waited
/// for a CPU. Names the factor that keeps up when all compute at once, or
/// the machine's other load when the run already used it.
pub fn late_computation_warning(
    late_ns: u64,
    smallest_ns: u64,
    factor: f64,
    ranks: u32,
    speeds: &[f64],
) -> Option<String> {
    if smallest_ns == 0 || late_ns <= crate::fidelity::FAR_ABOVE * smallest_ns {
        return None;
    }
    let cores = available();
    let needed = factor_to_keep_up(ranks, cores, speeds);
    let late = format!("{:.3} ms", late_ns as f64 / 1e6);
    Some(if factor < needed as f64 {
        format!(
            "the ranks' computations ran up to {late} late: {ranks} ranks share {cores} cores, so when they compute at once each waits for a CPU; use --time-factor {needed} or more (the factor `run` announced at start)"
        )
    } else {
        format!(
            "the ranks' computations ran up to {late} late although time factor {factor} keeps {ranks} ranks on {cores} cores busy: other work on this machine took their CPUs; rerun on a quieter machine or at a larger factor"
        )
    })
}

/// `n` and the noun, plural unless `n` is 1 ("1 rank", "8 ranks").
fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_over_cores_rounded_up() {
        assert_eq!(factor_to_keep_up(8, 2, &[1.0; 8]), 4);
        assert_eq!(factor_to_keep_up(3, 2, &[1.0; 3]), 2);
        assert_eq!(factor_to_keep_up(1, 2, &[1.0]), 1);
        // A host twice as fast owes half the time: twice the factor.
        assert_eq!(factor_to_keep_up(4, 2, &[2.0, 1.0, 1.0, 1.0]), 4);
        // Hosts half as fast owe twice the time: half the factor.
        assert_eq!(factor_to_keep_up(4, 2, &[0.5; 4]), 1);
        assert_eq!(factor_to_keep_up(8, 2, &[0.5; 8]), 2);
    }

    #[test]
    fn late_computations_are_warned_far_above_the_smallest_latency() {
        let speeds = [1.0; 64];
        // 10 times the latency or less, or no latency: no warning.
        assert_eq!(
            late_computation_warning(10_000, 1_000, 1.0, 64, &speeds),
            None
        );
        assert_eq!(late_computation_warning(10_000, 0, 1.0, 64, &speeds), None);
        // 64 ranks need a factor of 64 ÷ cores (≥ 2 on any machine with
        // fewer than 64 cores) to keep up; factor 1 does not.
        let w = late_computation_warning(5_000_000, 1_000, 1.0, 64, &speeds).unwrap();
        assert!(
            w.starts_with("the ranks' computations ran up to 5.000 ms late"),
            "{w}"
        );
        let needed = factor_to_keep_up(64, available(), &speeds);
        if needed > 1 {
            assert!(
                w.contains(&format!("use --time-factor {needed} or more")),
                "{w}"
            );
        }
        // At that factor the lateness came from elsewhere.
        let w = late_computation_warning(5_000_000, 1_000, needed as f64, 64, &speeds).unwrap();
        assert!(w.contains("other work on this machine"), "{w}");
    }
}
