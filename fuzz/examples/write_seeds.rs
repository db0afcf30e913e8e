//! Writes the binary seeds of the wire targets (`fuzz/seeds/protocol_frames`
//! and `fuzz/seeds/envelope`) with the real encoders, so the seeds follow
//! the protocol when it changes: `cargo run -p mpinetsim-fuzz --example
//! write_seeds`. The text seeds are written by hand.

use mpinetsim_protocol::{Frame, JobSecret, RankCounters};
use shim_engine::envelope::{CallCode, Envelope, Kind};
use std::path::Path;

fn frames() -> Vec<(&'static str, Frame)> {
    let hello = Frame::Hello {
        version: 4,
        rank: 1,
        size: 4,
        pid: 4242,
        job: 7,
        secret: JobSecret(0x0123_4567_89ab_cdef_0011_2233_4455_6677),
    };
    let welcome = Frame::Welcome {
        version: mpinetsim_protocol::VERSION,
        factor: 8.0,
        epoch_ns: 1_000_000,
        eager_limit: 65536,
        adaptive: true,
        analytic: false,
        node: 0,
        compute_clock: mpinetsim_protocol::ComputeClock::Cpu,
        cpu_speed: 1.0,
        cpu_threshold_ns: 0,
        poll_ns: 0,
    };
    let counters = RankCounters {
        calls: 12,
        messages_sent: 3,
        bytes_sent: 300,
        finalize_srt_ns: 9_000,
        compute_cpu_ns: 4_000,
        compute_lateness: {
            let mut h = mpinetsim_protocol::LatenessHistogram::default();
            h.record(0);
            h.record(2_500);
            h
        },
        ..RankCounters::default()
    };
    vec![
        ("hello", hello),
        ("welcome", welcome),
        ("clock_probe", Frame::ClockProbe { t1_ns: 5 }),
        (
            "clock_reply",
            Frame::ClockReply {
                t1_ns: 5,
                t2_ns: 9,
                t3_ns: 11,
            },
        ),
        (
            "clock_offset",
            Frame::ClockOffset {
                offset_ns: -1200,
                uncertainty_ns: 300,
            },
        ),
        (
            "factor",
            Frame::Factor {
                at_srt_ns: 2_000_000,
                factor: 16.0,
            },
        ),
        (
            "send",
            Frame::Send {
                dst: 2,
                srt_ns: 77,
                bytes: envelope(Kind::Eager, b"payload"),
            },
        ),
        (
            "deliver",
            Frame::Deliver {
                src: 0,
                vtime_ns: 1_002_700,
                bytes: b"abc".to_vec(),
            },
        ),
        ("finalize", Frame::Finalize(counters)),
        ("finalize_ack", Frame::FinalizeAck),
        ("compute_late", Frame::ComputeLate { late_ns: 250_000 }),
        (
            "abort",
            Frame::Abort {
                code: 7,
                text: "MPI_Abort(MPI_COMM_WORLD, 7)".into(),
            },
        ),
        (
            "collective_data",
            Frame::CollectiveData {
                dst: 1,
                srt_ns: 5,
                bytes: vec![1, 2, 3],
            },
        ),
        (
            "collective",
            Frame::Collective {
                context: 0,
                leader: 0,
                seq: 3,
                op: 2,
                members: 4,
                is_root: true,
                sent_bytes: 1024,
                received_bytes: 4096,
                srt_ns: 123_456,
            },
        ),
        (
            "collective_done",
            Frame::CollectiveDone {
                context: 5,
                leader: 0,
                seq: 3,
                vtime_ns: 99,
            },
        ),
    ]
}

fn envelope(kind: Kind, payload: &[u8]) -> Vec<u8> {
    Envelope {
        kind,
        flags: 0,
        call: CallCode::Send,
        src: 0,
        dst: 1,
        tag: 7,
        context: 0,
        seq: 1,
        sender_op: 3,
        receiver_op: 0,
        msg_len: payload.len() as u64,
        payload_len: payload.len() as u64,
    }
    .encode(payload)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).expect("seed folder");
    std::fs::write(dir.join(name), bytes).expect("seed written");
}

fn main() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let mut stream = Vec::new();
    for (name, frame) in frames() {
        write(&seeds.join("protocol_frames"), name, &frame.to_bytes());
        frame.encode(&mut stream);
    }
    write(&seeds.join("protocol_frames"), "all_in_one_stream", &stream);
    for (name, kind) in [
        ("eager", Kind::Eager),
        ("rts", Kind::Rts),
        ("cts", Kind::Cts),
        ("data", Kind::Data),
        ("sync_ack", Kind::SyncAck),
    ] {
        let payload: &[u8] = if matches!(kind, Kind::Eager | Kind::Data) {
            b"0123456789"
        } else {
            b""
        };
        write(&seeds.join("envelope"), name, &envelope(kind, payload));
    }
}
