//! How late each simulation event ran compared with its wall deadline, in
//! scaled real time: the distribution and maximum (maxBehind), and which
//! kind of event was the latest. The ranks' computations count too (kind
//! `compute`): one that needed more wall time than the factor allows for
//! its CPU time (the rank waited for a core) was late by the difference.

use hdrhistogram::Histogram;
use mpinetsim_protocol::RankCounters;
use netsim::EventClass;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// What ran late: a simulator event, or a rank's computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatenessKind {
    /// An event of the network model.
    Event(EventClass),
    /// A rank's computation between two MPI calls.
    Compute,
}

impl From<EventClass> for LatenessKind {
    fn from(c: EventClass) -> LatenessKind {
        LatenessKind::Event(c)
    }
}

impl Serialize for LatenessKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LatenessKind::Event(c) => c.serialize(s),
            LatenessKind::Compute => s.serialize_str("compute"),
        }
    }
}

/// Written as a string: the event class's name, or `compute`.
impl JsonSchema for LatenessKind {
    fn schema_name() -> Cow<'static, str> {
        "LatenessKind".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let event = generator.subschema_for::<EventClass>();
        json_schema!({
            "description": "What ran late: a simulator event class, or a rank's computation (\"compute\").",
            "anyOf": [event, { "const": "compute" }]
        })
    }
}

/// The same names as the JSON report (`transmit-done`, `compute`).
impl std::fmt::Display for LatenessKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LatenessKind::Event(c) => f.write_str(c.name()),
            LatenessKind::Compute => f.write_str("compute"),
        }
    }
}

/// Collects lateness samples.
pub struct LatenessRecorder {
    hist: Histogram<u64>,
    by_class: Vec<(LatenessKind, Histogram<u64>)>,
    max_ns: u64,
    max_kind: Option<LatenessKind>,
    max_at_ns: u64,
    events: u64,
}

/// Summary for the report.
#[derive(Clone, Debug, Serialize, JsonSchema)]
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
    pub max_kind: Option<LatenessKind>,
    /// Virtual time of the latest event, ns (null when nothing was
    /// measured).
    pub max_at_ns: Option<u64>,
    /// The same per kind of event.
    pub by_kind: Vec<KindLateness>,
}

/// Lateness of one kind of event.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct KindLateness {
    /// Event kind.
    pub kind: LatenessKind,
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
    pub fn record(&mut self, late_ns: u64, kind: impl Into<LatenessKind>, at_ns: u64) {
        let kind = kind.into();
        self.record_n(late_ns, 1, kind);
        if late_ns >= self.max_ns {
            self.max_ns = late_ns;
            self.max_kind = Some(kind);
            self.max_at_ns = at_ns;
        }
    }

    fn record_n(&mut self, late_ns: u64, n: u64, kind: LatenessKind) {
        self.events += n;
        let _ = self.hist.record_n(late_ns.clamp(1, self.hist.high()), n);
        let h = match self.by_class.iter_mut().position(|(k, _)| *k == kind) {
            Some(i) => &mut self.by_class[i].1,
            None => {
                self.by_class.push((kind, new_histogram()));
                &mut self.by_class.last_mut().expect("just pushed").1
            }
        };
        let _ = h.record_n(late_ns.clamp(1, h.high()), n);
    }

    /// Adds a rank's computations, as it reported them at MPI_Finalize:
    /// each one's lateness (≈ 3 % resolution) and the largest, exactly.
    pub fn record_computations(&mut self, c: &RankCounters) {
        for (late_ns, n) in c.compute_lateness.buckets() {
            // The bucket's middle may exceed the exact maximum it holds.
            self.record_n(late_ns.min(c.compute_late_max_ns), n, LatenessKind::Compute);
        }
        if !c.compute_lateness.is_empty() && c.compute_late_max_ns >= self.max_ns {
            self.max_ns = c.compute_late_max_ns;
            self.max_kind = Some(LatenessKind::Compute);
            self.max_at_ns = c.compute_late_max_at_ns;
        }
    }

    /// The largest lateness so far (maxBehind), ns.
    pub fn max_ns(&self) -> u64 {
        self.max_ns
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
            max_at_ns: self.max_kind.map(|_| self.max_at_ns),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The terminal summary and the JSON report name a kind alike.
    #[test]
    fn printed_names_are_the_json_names() {
        let kinds = [
            EventClass::Inject,
            EventClass::TransmitDone,
            EventClass::Arrival,
            EventClass::TcpTimer,
            EventClass::LocalDelivery,
            EventClass::Fault,
            EventClass::Collective,
            EventClass::CreditReturn,
        ]
        .map(LatenessKind::Event)
        .into_iter()
        .chain([LatenessKind::Compute]);
        for k in kinds {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{k}\""));
        }
        assert_eq!(
            LatenessKind::Event(EventClass::TransmitDone).to_string(),
            "transmit-done"
        );
    }
}
