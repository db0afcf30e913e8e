//! How a rank measures its computation between MPI calls, and the
//! lateness histogram it reports for it.
//!
//! A rank's computation is measured by default as the CPU time its process
//! consumed (all threads) between MPI calls, so a rank that waits for a core
//! does not compute longer on the emulated machine. When that CPU time `c`
//! needed more than `factor × c ÷ cpu_speed` of wall time, the rank was late
//! — like a simulator event that ran after its deadline — and the lateness
//! goes into the job's maxBehind as events of kind `compute`. The rank
//! gathers these lateness values in a [`LatenessHistogram`] and sends it
//! with its counters at MPI_Finalize.

use std::collections::BTreeMap;

/// A host's emulated CPU, as the pacer and the replays apply it: how a
/// computation measured on the machine running the job becomes emulated
/// time. One rule in one place, so a run and its replay agree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostCpu {
    /// Speed relative to the machine running the job (> 0; 0.5: twice as
    /// long).
    pub speed: f64,
    /// Computations measured shorter than this are not counted, ns.
    pub threshold_ns: u64,
    /// Emulated time a test or probe that completes or finds nothing
    /// costs (`MPI_Test`, `MPI_Iprobe`, … saying "not yet"; every
    /// `MPI_Request_get_status`), ns. Inside MPI calls emulated time
    /// stands still, so without it a rank polling in a loop would stay at
    /// the time the loop began, behind the job's schedule, for as long as
    /// it polls.
    pub poll_ns: u64,
}

impl HostCpu {
    /// This machine's own speed, every computation counted.
    pub const NATIVE: HostCpu = HostCpu {
        speed: 1.0,
        threshold_ns: 0,
        poll_ns: 0,
    };

    /// A CPU of `speed` (anything but a positive finite number means 1)
    /// that does not count computations shorter than `threshold_ns`, whose
    /// polls cost nothing (see [`HostCpu::with_poll_ns`]).
    pub fn new(speed: f64, threshold_ns: u64) -> HostCpu {
        HostCpu {
            speed: if speed.is_finite() && speed > 0.0 {
                speed
            } else {
                1.0
            },
            threshold_ns,
            poll_ns: 0,
        }
    }

    /// The same CPU, on which a test or probe that completes or finds
    /// nothing costs `poll_ns` of emulated time.
    pub fn with_poll_ns(self, poll_ns: u64) -> HostCpu {
        HostCpu { poll_ns, ..self }
    }

    /// Whether a computation measured as `measured_ns` counts.
    pub fn counts(&self, measured_ns: u64) -> bool {
        measured_ns >= self.threshold_ns
    }

    /// The emulated time of a computation measured as `measured_ns`: 0
    /// below the threshold, else the measurement ÷ the speed (rounded), ns.
    pub fn emulated_ns(&self, measured_ns: u64) -> u64 {
        if self.counts(measured_ns) {
            (measured_ns as f64 / self.speed).round() as u64
        } else {
            0
        }
    }
}

/// The clock a rank measures its computation with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComputeClock {
    /// CPU time of the rank's process (every thread), from
    /// `CLOCK_PROCESS_CPUTIME_ID`: independent of machine load.
    #[default]
    Cpu,
    /// Wall time between MPI calls: a rank waiting for a core computes
    /// longer on the emulated machine.
    Wall,
}

impl ComputeClock {
    /// Reads `cpu` or `wall`.
    pub fn parse(text: &str) -> Option<ComputeClock> {
        match text {
            "cpu" => Some(ComputeClock::Cpu),
            "wall" => Some(ComputeClock::Wall),
            _ => None,
        }
    }

    /// `cpu` or `wall`.
    pub fn name(self) -> &'static str {
        match self {
            ComputeClock::Cpu => "cpu",
            ComputeClock::Wall => "wall",
        }
    }

    pub(crate) fn to_u8(self) -> u8 {
        match self {
            ComputeClock::Cpu => 0,
            ComputeClock::Wall => 1,
        }
    }

    pub(crate) fn from_u8(v: u8) -> Option<ComputeClock> {
        match v {
            0 => Some(ComputeClock::Cpu),
            1 => Some(ComputeClock::Wall),
            _ => None,
        }
    }
}

/// Values below this are counted exactly (one bucket per ns).
const EXACT_BELOW: u64 = 64;
/// Buckets per power of two above [`EXACT_BELOW`] (resolution 1/32 ≈ 3 %).
const SUB_BUCKETS: u64 = 32;
/// Number of buckets: exact ones, then 32 for each power of two 2^6 … 2^63.
pub const LATENESS_BUCKETS: usize = (EXACT_BELOW + (64 - 6) * SUB_BUCKETS) as usize;

/// Lateness values (ns) in log-linear buckets of ≈ 3 % width: small enough
/// to send at MPI_Finalize whatever the number of calls, fine enough for the
/// report's percentiles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatenessHistogram {
    counts: BTreeMap<u16, u64>,
}

fn bucket_of(v: u64) -> u16 {
    if v < EXACT_BELOW {
        return v as u16;
    }
    let e = 63 - u64::from(v.leading_zeros());
    let sub = (v >> (e - 5)) & (SUB_BUCKETS - 1);
    (EXACT_BELOW + (e - 6) * SUB_BUCKETS + sub) as u16
}

/// Lowest value of bucket `i` and its width.
fn bucket_range(i: u16) -> (u64, u64) {
    let i = u64::from(i);
    if i < EXACT_BELOW {
        return (i, 1);
    }
    let e = (i - EXACT_BELOW) / SUB_BUCKETS + 6;
    let sub = (i - EXACT_BELOW) % SUB_BUCKETS;
    ((SUB_BUCKETS + sub) << (e - 5), 1 << (e - 5))
}

impl LatenessHistogram {
    /// Counts one value, ns.
    pub fn record(&mut self, value_ns: u64) {
        *self.counts.entry(bucket_of(value_ns)).or_insert(0) += 1;
    }

    /// Values counted.
    pub fn len(&self) -> u64 {
        self.counts.values().sum()
    }

    /// True when nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Each non-empty bucket as (its middle value in ns, count), ascending.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().map(|(&i, &n)| {
            let (low, width) = bucket_range(i);
            (low + width / 2, n)
        })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.counts.len() as u16).to_le_bytes());
        for (&i, &n) in &self.counts {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    /// Rebuilds a histogram from (bucket, count) pairs; None when a bucket
    /// is out of range or repeated.
    pub(crate) fn from_pairs(pairs: impl Iterator<Item = (u16, u64)>) -> Option<Self> {
        let mut counts = BTreeMap::new();
        for (i, n) in pairs {
            if usize::from(i) >= LATENESS_BUCKETS || counts.insert(i, n).is_some() {
                return None;
            }
        }
        Some(LatenessHistogram { counts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_cpu_drops_what_is_below_its_threshold_and_divides_the_rest() {
        let cpu = HostCpu::new(0.5, 2_000);
        assert_eq!(cpu.emulated_ns(1_999), 0);
        assert_eq!(cpu.emulated_ns(2_000), 4_000);
        assert_eq!(cpu.emulated_ns(1_000_001), 2_000_002);
        assert_eq!(HostCpu::new(f64::NAN, 0).speed, 1.0);
        assert_eq!(HostCpu::new(-2.0, 0).speed, 1.0);
        assert_eq!(HostCpu::NATIVE.emulated_ns(1), 1);
        assert_eq!(HostCpu::new(4.0, 0).emulated_ns(10), 3);
    }

    #[test]
    fn buckets_hold_their_values_within_three_percent() {
        for v in [0u64, 1, 63, 64, 65, 100, 1_000, 12_345, 1 << 40, u64::MAX] {
            let i = bucket_of(v);
            assert!(usize::from(i) < LATENESS_BUCKETS, "{v}");
            let (low, width) = bucket_range(i);
            assert!(low <= v && v - low < width, "{v}: {low} + {width}");
            assert!(width == 1 || (width as f64) / (low as f64) <= 1.0 / 32.0);
        }
    }

    #[test]
    fn counts_and_middles() {
        let mut h = LatenessHistogram::default();
        for v in [5, 5, 1_000_000] {
            h.record(v);
        }
        assert_eq!(h.len(), 3);
        let b: Vec<_> = h.buckets().collect();
        assert_eq!(b[0], (5, 2));
        assert!((b[1].0 as f64 / 1e6 - 1.0).abs() < 0.02);
    }

    #[test]
    fn clock_names_round_trip() {
        for c in [ComputeClock::Cpu, ComputeClock::Wall] {
            assert_eq!(ComputeClock::parse(c.name()), Some(c));
            assert_eq!(ComputeClock::from_u8(c.to_u8()), Some(c));
        }
        assert_eq!(ComputeClock::parse("cycles"), None);
    }
}
