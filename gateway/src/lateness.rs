//! How late each simulation event ran compared with its wall deadline, in
//! scaled real time: the distribution and maximum (maxBehind), and which
//! kind of event was the latest.

use hdrhistogram::Histogram;
use netsim::EventClass;
use serde::Serialize;

/// Collects lateness samples.
pub struct LatenessRecorder {
    hist: Histogram<u64>,
    by_class: Vec<(EventClass, Histogram<u64>)>,
    max_ns: u64,
    max_kind: Option<EventClass>,
    max_at_ns: u64,
    events: u64,
}

/// Summary for the report.
#[derive(Clone, Debug, Serialize)]
pub struct LatenessSummary {
    /// Events measured.
    pub events: u64,
    /// Median lateness, ns (SRT).
    pub p50_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// maxBehind, ns.
    pub max_ns: u64,
    /// Kind of the latest event.
    pub max_kind: Option<EventClass>,
    /// Virtual time of the latest event, ns.
    pub max_at_ns: u64,
    /// The same per kind of event.
    pub by_kind: Vec<KindLateness>,
}

/// Lateness of one kind of event.
#[derive(Clone, Debug, Serialize)]
pub struct KindLateness {
    /// Event kind.
    pub kind: EventClass,
    /// Events of this kind.
    pub events: u64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// Maximum, ns.
    pub max_ns: u64,
}

impl Default for LatenessRecorder {
    fn default() -> Self {
        LatenessRecorder {
            hist: new_histogram(),
            by_class: Vec::new(),
            max_ns: 0,
            max_kind: None,
            max_at_ns: 0,
            events: 0,
        }
    }
}

fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

impl LatenessRecorder {
    /// Records that an event of `kind` at virtual time `at_ns` ran `late_ns` late.
    pub fn record(&mut self, late_ns: u64, kind: EventClass, at_ns: u64) {
        self.events += 1;
        self.hist.saturating_record(late_ns.max(1));
        match self.by_class.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, h)) => h.saturating_record(late_ns.max(1)),
            None => {
                let mut h = new_histogram();
                h.saturating_record(late_ns.max(1));
                self.by_class.push((kind, h));
            }
        }
        if late_ns >= self.max_ns {
            self.max_ns = late_ns;
            self.max_kind = Some(kind);
            self.max_at_ns = at_ns;
        }
    }

    /// The summary so far.
    pub fn summary(&self) -> LatenessSummary {
        let q = |p: f64| {
            if self.events == 0 {
                0
            } else {
                self.hist.value_at_quantile(p)
            }
        };
        LatenessSummary {
            events: self.events,
            p50_ns: q(0.5),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: self.max_ns,
            max_kind: self.max_kind,
            max_at_ns: self.max_at_ns,
            by_kind: self
                .by_class
                .iter()
                .map(|(k, h)| KindLateness {
                    kind: *k,
                    events: h.len(),
                    p50_ns: h.value_at_quantile(0.5),
                    p99_ns: h.value_at_quantile(0.99),
                    max_ns: h.max(),
                })
                .collect(),
        }
    }
}
