//! A recorded rank's program as the engine replay walks it: its
//! computations and MPI calls in order, with wildcard receives resolved to
//! what they matched in the recording.

use mpinetsim_protocol::trace::{Trace, TraceEvent};
use mpinetsim_protocol::trace_calls::CallRecord;
use std::collections::HashMap;

/// `MPI_ANY_SOURCE` in a recorded receive.
pub const ANY_SOURCE: i32 = -2;
/// `MPI_ANY_TAG` in a recorded receive.
pub const ANY_TAG: i32 = -1;

/// One step of a rank's program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Computation between two calls, ns of recorded (unscaled) time.
    Compute(u64),
    /// An MPI call.
    Call(CallRecord),
    /// MPI_Finalize.
    End,
}

/// Why a trace cannot be replayed through the engine (it is then replayed
/// message by message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotReplayable {
    /// The trace has no call records (recorded by an older mpinetsim).
    NoCalls,
    /// A rank called a routine the engine replay does not make.
    Unsupported {
        /// The rank.
        rank: usize,
        /// The routine.
        name: String,
    },
}

impl std::fmt::Display for NotReplayable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotReplayable::NoCalls => write!(f, "the trace holds no MPI calls (it was recorded by an mpinetsim older than trace version 2)"),
            NotReplayable::Unsupported { rank, name } => write!(f, "rank {rank} called {name}, which the engine replay does not make yet"),
        }
    }
}

/// Every rank's steps, or why the trace cannot be replayed through the
/// engine.
pub fn programs(trace: &Trace) -> Result<Vec<Vec<Step>>, NotReplayable> {
    let mut out = Vec::with_capacity(trace.ranks.len());
    for (rank, events) in trace.ranks.iter().enumerate() {
        let mut steps = Vec::new();
        let mut started = false;
        for e in events {
            match e {
                TraceEvent::Compute { ns } => steps.push(Step::Compute(*ns)),
                TraceEvent::Call(CallRecord::Unsupported { name }) => {
                    return Err(NotReplayable::Unsupported {
                        rank,
                        name: name.clone(),
                    })
                }
                TraceEvent::Call(c) => {
                    started |= matches!(c, CallRecord::Start { .. });
                    steps.push(Step::Call(c.clone()));
                }
                TraceEvent::End => steps.push(Step::End),
                TraceEvent::Send { .. } | TraceEvent::Consume { .. } => {}
            }
        }
        if !started {
            return Err(NotReplayable::NoCalls);
        }
        resolve_wildcards(&mut steps);
        out.push(steps);
    }
    Ok(out)
}

/// Gives every nonblocking receive posted with `MPI_ANY_SOURCE` or
/// `MPI_ANY_TAG` the source and tag its completion reported, so that it
/// matches the same message on any network. A request handle names one
/// request from its creation to its completion (handles are reused after).
fn resolve_wildcards(steps: &mut [Step]) {
    let mut open: HashMap<u32, usize> = HashMap::new();
    for i in 0..steps.len() {
        match &steps[i] {
            Step::Call(CallRecord::Recv { req: Some(h), .. })
            | Step::Call(CallRecord::Send { req: Some(h), .. }) => {
                open.insert(*h, i);
            }
            Step::Call(CallRecord::Complete { done }) => {
                for d in done.clone() {
                    let Some(at) = open.remove(&d.req) else {
                        continue;
                    };
                    if let Step::Call(CallRecord::Recv { peer, tag, .. }) = &mut steps[at] {
                        if *peer == ANY_SOURCE && d.peer >= 0 {
                            *peer = d.peer;
                        }
                        if *tag == ANY_TAG && d.tag >= 0 {
                            *tag = d.tag;
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpinetsim_protocol::trace_calls::{Done, TypeRec};

    fn recv(peer: i32, tag: i32, req: u32) -> CallRecord {
        CallRecord::Recv {
            comm: 0,
            peer,
            tag,
            count: 1,
            ty: TypeRec::default(),
            req: Some(req),
        }
    }

    #[test]
    fn a_wildcard_receive_takes_what_it_matched_and_a_reused_handle_does_not_leak() {
        let start = TraceEvent::Call(CallRecord::Start {
            eager_limit: 1,
            rendezvous_chunk: 1,
        });
        let done = |peer, tag| {
            TraceEvent::Call(CallRecord::Complete {
                done: vec![Done { req: 7, peer, tag }],
            })
        };
        let trace = Trace {
            ranks: vec![vec![
                start,
                TraceEvent::Call(recv(ANY_SOURCE, ANY_TAG, 7)),
                TraceEvent::Compute { ns: 5 },
                done(3, 11),
                TraceEvent::Call(recv(ANY_SOURCE, 4, 7)),
                done(2, 4),
                TraceEvent::End,
            ]],
        };
        let p = programs(&trace).unwrap();
        assert_eq!(p[0][1], Step::Call(recv(3, 11, 7)));
        assert_eq!(p[0][2], Step::Compute(5));
        assert_eq!(p[0][4], Step::Call(recv(2, 4, 7)));
    }

    #[test]
    fn an_unsupported_call_or_a_version_1_trace_is_not_replayable_through_the_engine() {
        let old = Trace {
            ranks: vec![vec![TraceEvent::Compute { ns: 1 }, TraceEvent::End]],
        };
        assert_eq!(programs(&old), Err(NotReplayable::NoCalls));
        let rma = Trace {
            ranks: vec![vec![TraceEvent::Call(CallRecord::Unsupported {
                name: "MPI_Put".into(),
            })]],
        };
        let e = programs(&rma).unwrap_err();
        assert_eq!(
            e.to_string(),
            "rank 0 called MPI_Put, which the engine replay does not make yet"
        );
    }
}
