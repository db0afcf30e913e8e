//! Network descriptions: the TOML network file, the thesis's one-line
//! string and `--fault` specifications. A description that parses is built
//! into a simulator (packet or analytic, as it asks) and carries two
//! messages, so every parameter the parser lets through must also be one
//! the simulator survives.

use crate::assert_one_sentence;
use bytes::Bytes;
use netsim::{AnalyticSim, Delivery, InjectError, Nanos, NetworkConfig, Simulator};
use std::collections::HashSet;

/// Ranks of a job on a fuzzed network file or fault.
const RANKS: usize = 2;
/// Most ranks a fuzzed network string asks for (its first byte picks 1..=64).
const MAX_STRING_RANKS: u32 = 64;
/// Events a fuzzed simulation may run: enough for both messages on any
/// sane network, few enough that a hostile one (a 1 ns fault period, total
/// loss) ends the run quickly instead of hanging the fuzzer.
const MAX_EVENTS: u64 = 20_000;
/// Virtual time a fuzzed simulation may reach: the reference network's
/// first retransmission timeout and one back-off (200 + 400 ms) and some.
/// Faults between two events are applied inside one step, so a run with
/// random faults every microsecond on every link (the shortest mean period
/// a fault may have) is bounded by time, not by events, and its cost is
/// proportional to this: at 2 s it took 35 s under cargo-fuzz's
/// instrumentation, beyond the fuzz run's 30 s timeout.
const HORIZON: Nanos = Nanos(700_000_000);
/// The network `fault_spec` injects its fault into.
const REFERENCE: &str = include_str!("../../configs/reference.toml");

/// `mpinetsim --net FILE`: parses the bytes as a network file; a file
/// that parses must build and carry messages; one that does not must be
/// refused with one sentence naming the file.
pub fn network_toml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match NetworkConfig::from_toml_str(text, "fuzz.toml") {
        Ok(cfg) => exercise(&cfg, RANKS),
        Err(e) => {
            let e = e.to_string();
            assert_one_sentence("network file", &e);
            assert!(e.starts_with("fuzz.toml"), "error without origin: {e}");
        }
    }
}

/// `--net 'xsim:…'`: the first byte picks the job's rank count, the rest
/// is the string after `xsim:`.
pub fn network_string(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let ranks = u32::from(first) % MAX_STRING_RANKS + 1;
    match netsim::config::xsim::parse(text, Some(ranks)) {
        Ok(cfg) => exercise(&cfg, ranks as usize),
        Err(e) => assert_one_sentence("network string", &e.to_string()),
    }
}

/// `--fault SPEC`: a spec that parses is added to the reference network
/// and the job runs under it.
pub fn fault_spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match netsim::faults::parse_spec(text) {
        Ok(fault) => {
            let mut cfg =
                NetworkConfig::from_toml_str(REFERENCE, "reference.toml").expect("bundled");
            cfg.fault_entries.push(fault);
            exercise(&cfg, RANKS);
        }
        Err(e) => assert_one_sentence("--fault", &e),
    }
}

/// The two network models, as far as the harness drives them.
trait Model {
    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError>;
    fn next_event_time(&self) -> Option<Nanos>;
    fn step(&mut self) -> Option<Nanos>;
    fn take_deliveries(&mut self, out: &mut Vec<Delivery>);
}

impl Model for Simulator {
    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError> {
        Simulator::inject(self, src, dst, bytes, at)
    }
    fn next_event_time(&self) -> Option<Nanos> {
        Simulator::next_event_time(self)
    }
    fn step(&mut self) -> Option<Nanos> {
        Simulator::step(self)
    }
    fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        Simulator::take_deliveries(self, out)
    }
}

impl Model for AnalyticSim {
    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError> {
        AnalyticSim::inject(self, src, dst, bytes, at)
    }
    fn next_event_time(&self) -> Option<Nanos> {
        AnalyticSim::next_event_time(self)
    }
    fn step(&mut self) -> Option<Nanos> {
        AnalyticSim::step(self)
    }
    fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        AnalyticSim::take_deliveries(self, out)
    }
}

/// Builds the model `cfg` asks for with `ranks` ranks (captures on, so the
/// frame writers run too) and sends a multi-segment message from rank 0 to
/// the last rank and a small one back.
fn exercise(cfg: &NetworkConfig, ranks: usize) {
    match cfg.model {
        netsim::ModelKind::Packet => match Simulator::from_config(cfg, "fuzz", ranks, true) {
            Ok(mut sim) => carry_messages(&mut sim, ranks),
            Err(e) => assert_one_sentence("building the network", &e.to_string()),
        },
        netsim::ModelKind::Analytic => match AnalyticSim::from_config(cfg, "fuzz", ranks) {
            Ok(mut sim) => carry_messages(&mut sim, ranks),
            Err(e) => assert_one_sentence("building the analytic model", &e.to_string()),
        },
    }
}

/// Runs two messages to completion (or `MAX_EVENTS`), checking that the
/// clock never runs backwards and that every delivery is one of the
/// messages sent, once, byte for byte, no earlier than it was sent.
fn carry_messages(sim: &mut impl Model, ranks: usize) {
    let last = ranks.saturating_sub(1) as u32;
    let big: Bytes = (0..5000u32).map(|i| (i * 7 + 3) as u8).collect();
    let small = Bytes::from_static(b"the answer");
    let mut sent = Vec::new();
    for (src, dst, bytes, at) in [(0, last, big, 0), (last, 0, small, 1_000)] {
        match sim.inject(src, dst, bytes.clone(), Nanos(at)) {
            Ok(id) => sent.push((id, src, dst, bytes, Nanos(at))),
            Err(e) => assert_one_sentence("inject", &e.to_string()),
        }
    }
    let (mut now, mut seen, mut batch) = (Nanos(0), HashSet::new(), Vec::new());
    for _ in 0..MAX_EVENTS {
        // Stop before an event past the horizon: its step would apply
        // every fault up to it (a retransmission backing off for minutes
        // of virtual time under random faults).
        if sim.next_event_time().is_none_or(|t| t > HORIZON) {
            break;
        }
        let Some(t) = sim.step() else { break };
        assert!(t >= now, "the clock ran backwards from {now:?} to {t:?}");
        now = t;
        if now > HORIZON {
            break;
        }
        sim.take_deliveries(&mut batch);
        for d in batch.drain(..) {
            let (_, src, dst, bytes, at) = sent
                .iter()
                .find(|m| m.0 == d.id)
                .unwrap_or_else(|| panic!("delivery of a message never sent: {d:?}"));
            assert!(seen.insert(d.id), "message {} delivered twice", d.id);
            assert_eq!((d.src, d.dst), (*src, *dst), "message {} misrouted", d.id);
            assert_eq!(&d.bytes, bytes, "message {} corrupted", d.id);
            assert!(
                d.delivered_at >= *at,
                "message {} arrived before it was sent",
                d.id
            );
        }
    }
}
