use crate::datatype::{BuiltinType as B, DatatypeId};
use crate::envelope::HEADER_LEN;
use crate::mem_transport::run_world_with;
use crate::request::{Dest, SendMode};
use crate::{CommId, EngineConfig, MpiError, Source, Tag, UserBuffer};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const W: CommId = CommId::WORLD;
const BYTE: DatatypeId = DatatypeId::Builtin(B::Byte);

/// Pieces of 1000 bytes, 3 unacknowledged at most, eager up to 100 bytes.
fn small_pieces() -> EngineConfig {
    EngineConfig {
        eager_limit: Some(100),
        rendezvous_chunk: 1000,
        rendezvous_window: 3,
        ..EngineConfig::default()
    }
}

fn pattern(n: usize, salt: u8) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 1000) as u8 ^ salt).collect()
}

/// Where a [`Reported`] buffer leaves its contents.
pub(crate) type Report = Arc<Mutex<Option<Vec<u8>>>>;

/// Program memory for a receive whose contents the test reads once the
/// engine lets go of it (when the receive completes).
pub(crate) struct Reported {
    buf: Vec<u8>,
    out: Report,
}

impl Reported {
    pub(crate) fn new(len: usize, fill: u8) -> (Box<Reported>, Report) {
        let out = Arc::new(Mutex::new(None));
        let r = Reported {
            buf: vec![fill; len],
            out: out.clone(),
        };
        (Box::new(r), out)
    }
}

impl UserBuffer for Reported {
    fn bytes(&self) -> &[u8] {
        &self.buf
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }
}

impl Drop for Reported {
    fn drop(&mut self) {
        *self.out.lock().unwrap() = Some(std::mem::take(&mut self.buf));
    }
}

#[test]
fn a_message_of_many_pieces_arrives_whole_with_one_ack_per_piece_beyond_the_window() {
    let n = 10_500; // 11 pieces: 10 of 1000 bytes and one of 500
    let out = run_world_with(2, 0, small_pieces(), |e| {
        if e.rank() == 0 {
            let data = Box::new(pattern(n, 1));
            let r = e
                .isend_from(SendMode::Standard, data, n, BYTE, Dest::Rank(1), 5, W)
                .unwrap();
            let c = e.wait(r).unwrap();
            assert_eq!(c.status.error, None);
        } else {
            let (mem, got) = Reported::new(n, 0);
            let st = e
                .recv_into(mem, n, BYTE, Source::Rank(0), Tag::Value(5), W)
                .unwrap();
            assert_eq!((st.count_bytes, st.error), (n as u64, None));
            assert_eq!(got.lock().unwrap().take().unwrap(), pattern(n, 1));
        }
        e.counters()
    });
    let (pieces, window) = (11u64, 3u64);
    // Sender: RTS + the pieces, each with its envelope.
    assert_eq!(out[0].messages_sent, 1 + pieces);
    assert_eq!(
        out[0].bytes_sent,
        HEADER_LEN as u64 * (1 + pieces) + n as u64
    );
    // Receiver: CTS + an ack for each piece the sender waits for.
    assert_eq!(out[1].messages_sent, 1 + (pieces - window));
    assert_eq!(out[1].bytes_sent, HEADER_LEN as u64 * (1 + pieces - window));
    assert_eq!(out[0].bad_messages + out[1].bad_messages, 0);
}

#[test]
fn the_sender_stops_at_the_window_until_the_receiver_acknowledges() {
    let n = 10_000;
    run_world_with(2, 0, small_pieces(), |e| {
        if e.rank() == 0 {
            let data = Box::new(pattern(n, 2));
            let r = e
                .isend_from(SendMode::Standard, data, n, BYTE, Dest::Rank(1), 1, W)
                .unwrap();
            // Rank 1 answers the RTS and then computes for a while without
            // calling MPI: the CTS arrives, then nothing more.
            let until = Instant::now() + Duration::from_millis(300);
            while Instant::now() < until {
                assert!(e.test(r).unwrap().is_none());
            }
            assert_eq!(e.counters().messages_received, 1, "only the CTS");
            assert_eq!(e.counters().messages_sent, 1 + 3, "the RTS and one window");
            e.wait(r).unwrap();
            assert_eq!(e.counters().messages_sent, 1 + 10);
        } else {
            let (mem, got) = Reported::new(n, 0);
            let r = e
                .irecv_into(mem, n, BYTE, Source::Rank(0), Tag::Value(1), W)
                .unwrap();
            while e.counters().messages_sent == 0 {
                assert!(e.test(r).unwrap().is_none()); // until the CTS went out
            }
            std::thread::sleep(Duration::from_millis(600));
            let c = e.wait(r).unwrap();
            assert_eq!(c.data, None, "stored in program memory");
            assert_eq!(got.lock().unwrap().take().unwrap(), pattern(n, 2));
        }
    });
}

#[test]
fn pieces_are_packed_from_and_unpacked_into_noncontiguous_memory() {
    // Blocks of 300 bytes every 700: pieces of 1000 packed bytes start and
    // end inside blocks. The program frees its type while the send runs.
    let (count, blocks, block, stride) = (4usize, 5usize, 300usize, 700usize);
    let packed = count * blocks * block;
    run_world_with(2, 0, small_pieces(), |e| {
        let v = e
            .datatypes_mut()
            .vector(blocks as _, block as _, stride as _, BYTE)
            .unwrap();
        e.datatypes_mut().commit(v).unwrap();
        let span = e.datatypes().span(v, count).unwrap();
        let mem = pattern(span.len, 3);
        let whole = e.datatypes().pack(v, count, &mem).unwrap();
        assert_eq!(whole.len(), packed);
        if e.rank() == 0 {
            let r = e
                .isend_from(
                    SendMode::Standard,
                    Box::new(mem),
                    count,
                    v,
                    Dest::Rank(1),
                    2,
                    W,
                )
                .unwrap();
            e.datatypes_mut().free(v).unwrap();
            assert_eq!(e.wait(r).unwrap().status.error, None);
        } else {
            let (buf, got) = Reported::new(span.len, 0xEE);
            let st = e
                .recv_into(buf, count, v, Source::Rank(0), Tag::Value(2), W)
                .unwrap();
            assert_eq!(st.count_bytes, packed as u64);
            let got = got.lock().unwrap().take().unwrap();
            let mut want = vec![0xEE; span.len];
            e.datatypes().unpack(v, count, &whole, &mut want).unwrap();
            assert_eq!(got, want, "data in the blocks, gaps untouched");
        }
    });
}

#[test]
fn a_short_buffer_keeps_what_fits_and_the_transfer_runs_to_its_end() {
    let (n, cap) = (7_200, 2_500);
    let out = run_world_with(2, 0, small_pieces(), |e| {
        if e.rank() == 0 {
            let data = Box::new(pattern(n, 4));
            e.send_from(SendMode::Standard, data, n, BYTE, Dest::Rank(1), 3, W)
                .unwrap();
        } else {
            let (buf, got) = Reported::new(cap, 0);
            let st = e
                .recv_into(buf, cap, BYTE, Source::Rank(0), Tag::Value(3), W)
                .unwrap();
            assert_eq!(
                (st.count_bytes, st.error),
                (cap as u64, Some(MpiError::Truncate))
            );
            assert_eq!(got.lock().unwrap().take().unwrap(), pattern(n, 4)[..cap]);
            // The connection is in order again: the next message matches.
            let (d, _) = e.recv(1, BYTE, Source::Rank(0), Tag::Value(4), W).unwrap();
            assert_eq!(d, [9]);
        }
        if e.rank() == 0 {
            e.send(SendMode::Standard, &[9], 1, BYTE, Dest::Rank(1), 4, W)
                .unwrap();
        }
        e.counters()
    });
    assert_eq!(out[0].bad_messages + out[1].bad_messages, 0);
}

#[test]
fn packed_sends_and_receives_stream_too() {
    // The slice API (and collectives) keep packed copies; the pieces and
    // acks are the same.
    let n = 4_321;
    let out = run_world_with(2, 0, small_pieces(), |e| {
        if e.rank() == 0 {
            e.send(
                SendMode::Synchronous,
                &pattern(n, 5),
                n,
                BYTE,
                Dest::Rank(1),
                0,
                W,
            )
            .unwrap();
        } else {
            let (d, st) = e.recv(n, BYTE, Source::Rank(0), Tag::Value(0), W).unwrap();
            assert_eq!((d, st.count_bytes), (pattern(n, 5), n as u64));
        }
        e.counters()
    });
    // 5 pieces, 3 unacknowledged at most: 2 acks.
    assert_eq!(out[0].messages_sent, 1 + 5);
    assert_eq!(out[1].messages_sent, 1 + 2);
}

#[test]
fn program_memory_must_be_the_span_of_the_type_and_count() {
    run_world_with(1, 0, small_pieces(), |e| {
        let short = Box::new(vec![0u8; 10]);
        assert_eq!(
            e.irecv_into(short, 11, BYTE, Source::Rank(0), Tag::Value(0), W),
            Err(MpiError::Buffer)
        );
    });
}

#[test]
fn messages_above_one_piece_never_go_eager() {
    // An eager limit above the piece size: the message still streams.
    let cfg = EngineConfig {
        eager_limit: Some(1 << 30),
        ..small_pieces()
    };
    let n = 2_500;
    let out = run_world_with(2, 0, cfg, |e| {
        if e.rank() == 0 {
            e.send(
                SendMode::Standard,
                &pattern(n, 6),
                n,
                BYTE,
                Dest::Rank(1),
                0,
                W,
            )
            .unwrap();
            e.send(
                SendMode::Standard,
                &pattern(1000, 6),
                1000,
                BYTE,
                Dest::Rank(1),
                1,
                W,
            )
            .unwrap();
        } else {
            let (d, _) = e.recv(n, BYTE, Source::Rank(0), Tag::Value(0), W).unwrap();
            assert_eq!(d, pattern(n, 6));
            let (d, _) = e
                .recv(1000, BYTE, Source::Rank(0), Tag::Value(1), W)
                .unwrap();
            assert_eq!(d, pattern(1000, 6));
        }
        e.counters()
    });
    // RTS + 3 pieces, then one eager message of exactly one piece.
    assert_eq!(out[0].messages_sent, 1 + 3 + 1);
}
