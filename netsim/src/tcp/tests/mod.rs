//! Segment-level tests of one connection, driven by hand: each test hands
//! the connection segments, timer firings and messages at chosen virtual
//! times and asserts the exact actions it answers with (segments with
//! their wire numbers, windows and flags; timers with their deadlines;
//! deliveries). The two halves of the connection talk only through the
//! segments the test carries, so a test decides which are lost, delayed,
//! duplicated or reordered.
//!
//! Sequence numbers: the sender's ISS is 1000 (data byte `k` of the
//! stream has wire sequence 1001 + k), the receiver's 5000.

use super::{MessageRecord, Segment, TcpAction, TcpConnection, TcpParams, TimerKind};
use crate::base::addr::MacAddr;
use crate::base::time::Nanos;
use crate::wire::packet::Packet;
use bytes::Bytes;
use std::net::Ipv4Addr;

mod delayed_ack;
mod ecn;
mod handshake;
mod nagle;
mod recovery;
mod reorder;
mod sack;
mod timeout;
mod window;

const ISS: u32 = 1000;
const R_ISS: u32 = 5000;
const MS: u64 = 1_000_000;

/// Virtual time `ms` milliseconds.
fn ms(ms: u64) -> Nanos {
    Nanos(ms * MS)
}

/// MSS 1000 B, no delayed ACKs, no Nagle, RTO 1 s before the first sample
/// and at least 200 ms after, initial window 10 segments, 64 KiB - 1 of
/// receive buffer (window scale 0).
fn params() -> TcpParams {
    TcpParams {
        mss: 1000,
        nagle: false,
        delayed_ack: Nanos::ZERO,
        delayed_ack_segments: 2,
        rto_min: ms(200),
        rto_initial: ms(1000),
        rto_max: ms(60_000),
        initial_cwnd: 10,
        receive_window: 65_535,
        sack: false,
        congestion: Default::default(),
        timestamps: false,
        ecn: false,
    }
}

/// A connection under test and the messages handed to it so far.
struct Conn {
    c: TcpConnection,
    next_id: u64,
    /// Every byte handed over, in stream order.
    stream: Vec<u8>,
}

impl Conn {
    fn new(p: TcpParams) -> Conn {
        Conn {
            c: TcpConnection::new(p, ISS, R_ISS),
            next_id: 0,
            stream: Vec::new(),
        }
    }

    /// The application hands over a message of `len` bytes (byte `k` of
    /// the stream is `k mod 251`).
    fn send(&mut self, now: Nanos, len: usize) -> Vec<TcpAction> {
        let start = self.stream.len();
        let bytes: Bytes = (0..len).map(|k| ((start + k) % 251) as u8).collect();
        self.stream.extend_from_slice(&bytes);
        let record = MessageRecord {
            id: self.next_id,
            src: 0,
            dst: 1,
            injected_at: now,
            end_off: 0,
        };
        self.next_id += 1;
        let mut out = Vec::new();
        self.c.app_send(now, record, bytes, &mut out);
        out
    }

    /// `seg` (sent by the sender half) arrives at the receiver half.
    fn at_receiver(&mut self, now: Nanos, seg: &Segment) -> Vec<TcpAction> {
        assert!(
            !seg.reverse,
            "a receiver → sender segment given to the receiver"
        );
        let mut out = Vec::new();
        self.c.on_receiver_segment(now, &packet(seg), &mut out);
        out
    }

    /// `seg` (sent by the receiver half) arrives back at the sender half.
    fn at_sender(&mut self, now: Nanos, seg: &Segment) -> Vec<TcpAction> {
        assert!(
            seg.reverse,
            "a sender → receiver segment given to the sender"
        );
        let mut out = Vec::new();
        self.c.on_sender_segment(now, &packet(seg), &mut out);
        out
    }

    /// The sender emits what its windows allow with `room` NIC slots.
    fn poll(&mut self, now: Nanos, room: usize) -> (bool, Vec<TcpAction>) {
        let mut out = Vec::new();
        let blocked = self.c.poll_transmit(now, room, &mut out);
        (blocked, out)
    }

    /// Polls with room for everything.
    fn transmit(&mut self, now: Nanos) -> Vec<TcpAction> {
        self.poll(now, usize::MAX).1
    }

    /// A timer event fires.
    fn fire(&mut self, now: Nanos, kind: TimerKind) -> Vec<TcpAction> {
        let mut out = Vec::new();
        self.c.on_timer(now, kind, &mut out);
        out
    }

    /// Opens the connection with a first message of `len` bytes: SYN at
    /// 0 ms, SYN-ACK at the receiver at 1 ms, back at the sender at 2 ms
    /// (the first RTT sample: 2 ms, so the RTO is the 200 ms floor), the
    /// handshake ACK at the receiver at 3 ms. Returns the data segments
    /// the sender emits at 2 ms.
    fn open(&mut self, len: usize) -> Vec<Segment> {
        let syn = sent(&self.send(ms(0), len)).remove(0);
        let syn_ack = sent(&self.at_receiver(ms(1), &syn)).remove(0);
        let ack = sent(&self.at_sender(ms(2), &syn_ack)).remove(0);
        assert!(self.at_receiver(ms(3), &ack).is_empty());
        sent(&self.transmit(ms(2)))
    }
}

/// The frame a segment travels in (addresses do not matter here).
fn packet(seg: &Segment) -> Packet {
    Packet {
        src_mac: MacAddr::default(),
        dst_mac: MacAddr::default(),
        src_ip: Ipv4Addr::new(10, 0, 0, 1),
        dst_ip: Ipv4Addr::new(10, 0, 0, 2),
        dst_host: 0,
        ttl: 64,
        ecn: if seg.ect {
            crate::wire::packet::Ecn::Ect0
        } else {
            crate::wire::packet::Ecn::NotEct
        },
        ip_id: 0,
        conn: 0,
        reverse: seg.reverse,
        src_port: 1,
        dst_port: 2,
        seq: seg.seq,
        ack: seg.ack,
        seq_off: seg.seq_off,
        ack_off: seg.ack_off,
        flags: seg.flags,
        window: seg.window,
        wscale: seg.wscale,
        mss: seg.mss,
        sack_permitted: seg.sack_permitted,
        sack: seg.sack,
        ts: seg.ts,
        payload: seg.payload.clone(),
        encoded: None,
        detour: None,
        hop_draw: None,
        ib: None,
        credit_of: None,
    }
}

/// The segments among `actions`.
fn sent(actions: &[TcpAction]) -> Vec<Segment> {
    actions
        .iter()
        .filter_map(|a| match a {
            TcpAction::Send(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// One line per action, as the assertions spell them:
/// `→ PA seq=1001 ack=5001 len=1000 win=65535 (re)` for a segment (→
/// sender to receiver, ← back; flags S, A, P, E for ECE, C for CWR;
/// options — `sackok`, and `sack=3001-4001,…` with wire numbers — then
/// `ect` for ECT(0) and a retransmission mark when present), `rto @200ms` / `delack @40ms` for a
/// timer, `deliver #0 2500B` for a message.
fn show(actions: &[TcpAction]) -> Vec<String> {
    actions.iter().map(show_one).collect()
}

fn show_one(a: &TcpAction) -> String {
    match a {
        TcpAction::Send(s) => {
            let mut flags = String::new();
            if s.flags.psh {
                flags.push('P');
            }
            if s.flags.syn {
                flags.push('S');
            }
            if s.flags.ack {
                flags.push('A');
            }
            if s.flags.ece {
                flags.push('E');
            }
            if s.flags.cwr {
                flags.push('C');
            }
            let mut line = format!(
                "{} {flags} seq={} ack={} len={} win={}",
                if s.reverse { "←" } else { "→" },
                s.seq,
                s.ack,
                s.payload.len(),
                s.window
            );
            if let Some(m) = s.mss {
                line += &format!(" mss={m}");
            }
            if let Some(w) = s.wscale {
                line += &format!(" ws={w}");
            }
            if s.sack_permitted {
                line += " sackok";
            }
            if !s.sack.is_empty() {
                // Wire numbers, as a capture shows them.
                let wire = |off: u64| s.ack.wrapping_add((off - s.ack_off) as u32);
                let blocks: Vec<String> = (s.sack.as_slice().iter())
                    .map(|&(a, b)| format!("{}-{}", wire(a), wire(b)))
                    .collect();
                line += &format!(" sack={}", blocks.join(","));
            }
            if s.ect {
                line += " ect";
            }
            if s.retransmission {
                line += " (re)";
            }
            line
        }
        TcpAction::ScheduleTimer(kind, at) => {
            let name = match kind {
                TimerKind::Retransmit => "rto",
                TimerKind::DelayedAck => "delack",
            };
            if at.0 % MS == 0 {
                format!("{name} @{}ms", at.0 / MS)
            } else {
                format!("{name} @{}us", at.0 / 1000)
            }
        }
        TcpAction::Deliver(rec, bytes) => format!("deliver #{} {}B", rec.id, bytes.len()),
    }
}

/// A receiver → sender ACK of stream offset `off` with window field `win`.
fn ack_of(off: u64, win: u16) -> Segment {
    Segment {
        reverse: true,
        flags: crate::wire::packet::TcpFlags {
            syn: false,
            ack: true,
            psh: false,
            ece: false,
            cwr: false,
        },
        seq: R_ISS + 1,
        ack: ISS + 1 + off as u32,
        seq_off: 0,
        ack_off: off,
        window: win,
        wscale: None,
        mss: None,
        sack_permitted: false,
        sack: Default::default(),
        ts: None,
        payload: Bytes::new(),
        retransmission: false,
        ect: false,
    }
}
