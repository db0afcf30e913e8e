//! The engine replay against closed forms and against the message-level
//! replay of the same messages.

use super::program::{programs, Step};
use crate::replay::tests::{pingpong, reference};
use mpinetsim_protocol::trace::{Trace, TraceEvent};
use mpinetsim_protocol::trace_calls::{CallRecord, TypeRec};
use mpinetsim_protocol::HostCpu;
use shim_engine::envelope::HEADER_LEN;
use shim_engine::replay_codes::type_code;
use shim_engine::{BuiltinType, DatatypeId};

fn bytes(n: u64) -> (u64, TypeRec) {
    let ty = TypeRec {
        builtin: type_code(DatatypeId::Builtin(BuiltinType::Byte)),
        size: 1,
    };
    (n, ty)
}

fn call(c: CallRecord) -> TraceEvent {
    TraceEvent::Call(c)
}

/// `n` blocking round trips of `len` bytes between ranks 0 and 1, rank 1
/// computing `compute_ns` before each answer, as the calls a program made.
fn call_pingpong(n: u64, len: u64, compute_ns: u64) -> Trace {
    let (count, ty) = bytes(len);
    let start = call(CallRecord::Start {
        eager_limit: 65536,
        rendezvous_chunk: 1 << 20,
    });
    let send = |peer| {
        call(CallRecord::Send {
            mode: 0,
            comm: 0,
            peer,
            tag: 7,
            count,
            ty,
            req: None,
        })
    };
    let recv = |peer| {
        call(CallRecord::Recv {
            comm: 0,
            peer,
            tag: 7,
            count,
            ty,
            req: None,
        })
    };
    let mut r0 = vec![start.clone()];
    let mut r1 = vec![start];
    for _ in 0..n {
        r0.extend([send(1), recv(1)]);
        r1.extend([recv(0), TraceEvent::Compute { ns: compute_ns }, send(0)]);
    }
    r0.push(TraceEvent::End);
    r1.push(TraceEvent::End);
    Trace {
        ranks: vec![r0, r1],
    }
}

fn runtime(t: &Trace, cpu: HostCpu) -> u64 {
    let (mut sim, _) = reference(2);
    super::replay(
        programs(t).unwrap(),
        &mut sim,
        &[HostCpu::NATIVE, cpu],
        |_| Ok(()),
        None,
    )
    .unwrap()
    .runtime_ns
}

/// The engine sends each eager message as its envelope and payload: the
/// engine replay of the calls takes exactly as long as the message-level
/// replay of messages of that size, and half a CPU speed adds each
/// computation once more.
#[test]
fn an_eager_pingpong_through_the_engine_times_as_its_messages_do() {
    let len = 1000;
    for n in [1, 10, 50] {
        let through_engine = runtime(&call_pingpong(n, len, 0), HostCpu::NATIVE);
        let (mut sim, _) = reference(2);
        let messages = pingpong(n, (len as usize + HEADER_LEN) as u32, 0);
        let by_messages =
            crate::replay::replay(&messages, &mut sim, &[HostCpu::NATIVE; 2], |_| Ok(()), None)
                .unwrap()
                .runtime_ns;
        assert_eq!(through_engine, by_messages, "{n} round trips");
    }
    let computing = call_pingpong(20, len, 1_000_000);
    assert_eq!(
        runtime(&computing, HostCpu::new(0.5, 0)) - runtime(&computing, HostCpu::NATIVE),
        20 * 1_000_000,
        "20 computations of 1 ms at half speed"
    );
    // Rank 1's 20 computations of 1 ms are below a 1 ms + 1 ns threshold:
    // none counts, and the run takes exactly as long as without them.
    assert_eq!(
        runtime(&computing, HostCpu::new(1.0, 1_000_001)),
        runtime(&call_pingpong(20, len, 0), HostCpu::NATIVE),
        "20 computations of 1 ms under a threshold above 1 ms"
    );
    assert_eq!(
        runtime(&computing, HostCpu::new(1.0, 1_000_000)),
        runtime(&computing, HostCpu::NATIVE),
        "a computation as long as the threshold counts"
    );
}

/// A receive nothing answers ends the replay with one sentence.
#[test]
fn a_receive_nobody_answers_is_one_sentence() {
    let mut t = call_pingpong(1, 10, 0);
    // Rank 1 leaves before answering.
    t.ranks[1].retain(|e| !matches!(e, TraceEvent::Call(CallRecord::Send { .. })));
    let (mut sim, _) = reference(2);
    let e = super::replay(
        programs(&t).unwrap(),
        &mut sim,
        &[HostCpu::NATIVE; 2],
        |_| Ok(()),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("rank 0 waits for a message that no rank sends"),
        "{e}"
    );
}

/// Steps of a program keep their order, with the message events left out.
#[test]
fn a_program_is_its_computations_and_calls_in_order() {
    let p = programs(&call_pingpong(1, 4, 9)).unwrap();
    assert!(matches!(p[1][2], Step::Compute(9)));
    assert_eq!(p[1].last(), Some(&Step::End));
}
