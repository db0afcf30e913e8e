//! One TCP connection carrying an ordered rank pair's message stream.

use super::congestion::{Congestion, CongestionControl};
use super::ecn::{EcnReceiver, EcnSender};
use super::sack::{self, NextRule, SackBlocks, SackReceiver, Scoreboard};
use super::timestamps::TimestampEnd;
use super::{MessageRecord, RttEstimator, Segment, TcpAction, TimerKind};
use crate::base::time::Nanos;
use crate::wire::packet::{Ecn, TcpFlags, TCP_TIMESTAMPS_OPTION};
use bytes::{Bytes, BytesMut};
use std::collections::{BTreeMap, VecDeque};

/// Parameters shared by all connections of a simulation.
#[derive(Clone, Debug)]
pub struct TcpParams {
    /// Maximum segment size in bytes.
    pub mss: u32,
    /// Nagle's algorithm on.
    pub nagle: bool,
    /// Delayed-ACK timeout; zero = ACK every segment at once.
    pub delayed_ack: Nanos,
    /// ACK at once after this many unacknowledged segments.
    pub delayed_ack_segments: u32,
    /// RTO floor.
    pub rto_min: Nanos,
    /// RTO before the first sample.
    pub rto_initial: Nanos,
    /// RTO ceiling.
    pub rto_max: Nanos,
    /// Initial window in segments.
    pub initial_cwnd: u32,
    /// Receive buffer in bytes.
    pub receive_window: u64,
    /// Offer selective acknowledgements (RFC 2018) on the handshake and,
    /// when both ends agree, recover from losses with them (RFC 6675)
    /// instead of NewReno's one hole per round trip.
    pub sack: bool,
    /// The senders' congestion control.
    pub congestion: super::congestion::CongestionAlgorithm,
    /// Offer timestamps (RFC 7323) on the handshake and, when both ends
    /// agree, carry them on every segment (12 bytes of option, so 12
    /// bytes less data a segment) and measure the round trip from every
    /// ACK's echo.
    pub timestamps: bool,
    /// Offer ECN (RFC 3168) on the handshake and, when both ends agree,
    /// send new data ECT(0), echo CE marks with ECE and reduce the window
    /// for them once a round trip.
    pub ecn: bool,
}

/// Counters of one connection.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConnectionStats {
    /// Data segments sent for the first time.
    pub data_segments: u64,
    /// Data bytes sent for the first time.
    pub data_bytes: u64,
    /// Segments re-sent (timeout, fast retransmit, partial ACK).
    pub retransmissions: u64,
    /// Fast retransmits triggered by three duplicate ACKs.
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Pure ACK segments sent by the receiver.
    pub acks_sent: u64,
    /// Messages delivered.
    pub messages_delivered: u64,
    /// Round-trip samples fed to the RTO estimator (the handshake's, then
    /// one a round trip from a timed segment, or one an ACK of new data
    /// from its timestamp echo with `timestamps`).
    pub rtt_samples: u64,
    /// Smallest round-trip sample, ns (0 without samples).
    pub rtt_min_ns: u64,
    /// Largest round-trip sample, ns (0 without samples).
    pub rtt_max_ns: u64,
    /// Data segments the receiver got marked Congestion Experienced.
    pub ce_received: u64,
    /// Window reductions for ECN-Echo (at most one a window of data).
    pub ecn_reductions: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SenderState {
    Closed,
    SynSent,
    Established,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReceiverState {
    Listen,
    SynReceived,
    Established,
}

/// Lazily scheduled timer: at most one pending event, re-armed on firing.
#[derive(Clone, Copy, Debug, Default)]
struct LazyTimer {
    deadline: Option<Nanos>,
    event_at: Option<Nanos>,
}

impl LazyTimer {
    fn arm(&mut self, at: Nanos, kind: TimerKind, out: &mut Vec<TcpAction>) {
        self.deadline = Some(at);
        if self.event_at.is_none_or(|e| e > at) {
            self.event_at = Some(at);
            out.push(TcpAction::ScheduleTimer(kind, at));
        }
    }
    fn cancel(&mut self) {
        self.deadline = None;
    }
    /// Returns true when the timer really expired at `now`.
    fn fire(&mut self, now: Nanos, kind: TimerKind, out: &mut Vec<TcpAction>) -> bool {
        if self.event_at == Some(now) {
            self.event_at = None;
        }
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                true
            }
            Some(d) => {
                if self.event_at.is_none() {
                    self.event_at = Some(d);
                    out.push(TcpAction::ScheduleTimer(kind, d));
                }
                false
            }
            None => false,
        }
    }
}

/// Both halves of one connection: data flows sender → receiver only. The
/// sender's congestion control is [`Congestion`], used only through the
/// [`CongestionControl`] trait.
#[derive(Debug)]
pub struct TcpConnection {
    params: TcpParams,
    // ---- sender ----
    s_state: SenderState,
    iss: u32,
    mss: u64,
    stream: VecDeque<Bytes>,
    stream_front_off: u64,
    stream_end_off: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    peer_window: u64,
    peer_wscale: u8,
    cc: Congestion,
    rtt: RttEstimator,
    rtt_probe: Option<(u64, Nanos)>,
    syn_sent_at: Option<Nanos>,
    syn_retransmitted: bool,
    dupacks: u32,
    rto_timer: LazyTimer,
    /// Both ends agreed on SACK.
    sack_ok: bool,
    scoreboard: Scoreboard,
    /// The sender's timestamps (RFC 7323).
    s_ts: TimestampEnd,
    /// The sender's ECN (RFC 3168).
    s_ecn: EcnSender,
    // ---- receiver ----
    r_state: ReceiverState,
    r_iss: u32,
    rcv_nxt: u64,
    ooo: BTreeMap<u64, Bytes>,
    ooo_bytes: u64,
    own_wscale: u8,
    unacked_segments: u32,
    delack_timer: LazyTimer,
    last_ack_sent: Option<(u64, u16)>,
    /// The sender offered SACK and this end accepted.
    r_sack_ok: bool,
    sack_rx: SackReceiver,
    /// The receiver's timestamps (RFC 7323).
    r_ts: TimestampEnd,
    /// The receiver's ECN (RFC 3168).
    r_ecn: EcnReceiver,
    records: VecDeque<MessageRecord>,
    assembly: BytesMut,
    assembled_off: u64,
    /// Counters.
    pub stats: ConnectionStats,
}

fn wscale_for(window: u64) -> u8 {
    let mut s = 0u8;
    while (window >> s) > 65_535 && s < 14 {
        s += 1;
    }
    s
}

impl TcpConnection {
    /// A closed connection; `iss`/`r_iss` are the two initial sequence
    /// numbers.
    pub fn new(params: TcpParams, iss: u32, r_iss: u32) -> TcpConnection {
        let mss = params.mss as u64;
        let cc = Congestion::new(params.congestion, mss, params.initial_cwnd);
        let own_wscale = wscale_for(params.receive_window);
        TcpConnection {
            cc,
            rtt: RttEstimator::new(params.rto_initial, params.rto_min, params.rto_max),
            s_state: SenderState::Closed,
            iss,
            mss,
            stream: VecDeque::new(),
            stream_front_off: 0,
            stream_end_off: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            peer_window: 65_535,
            peer_wscale: 0,
            rtt_probe: None,
            syn_sent_at: None,
            syn_retransmitted: false,
            dupacks: 0,
            rto_timer: LazyTimer::default(),
            sack_ok: false,
            scoreboard: Scoreboard::default(),
            s_ts: TimestampEnd::new(iss),
            s_ecn: EcnSender::default(),
            r_state: ReceiverState::Listen,
            r_iss,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            ooo_bytes: 0,
            own_wscale,
            unacked_segments: 0,
            delack_timer: LazyTimer::default(),
            last_ack_sent: None,
            r_sack_ok: false,
            sack_rx: SackReceiver::default(),
            r_ts: TimestampEnd::new(r_iss),
            r_ecn: EcnReceiver::default(),
            records: VecDeque::new(),
            assembly: BytesMut::new(),
            assembled_off: 0,
            stats: ConnectionStats::default(),
            params,
        }
    }

    /// True once the sender has completed the handshake.
    pub fn is_established(&self) -> bool {
        self.s_state == SenderState::Established
    }

    /// Bytes queued but not yet acknowledged.
    pub fn unacked_bytes(&self) -> u64 {
        self.stream_end_off - self.snd_una
    }

    /// When the oldest message not yet delivered to the receiver was handed
    /// over, if there is one.
    pub fn oldest_undelivered(&self) -> Option<Nanos> {
        self.records.front().map(|r| r.injected_at)
    }

    /// The application hands over a message. Opens the connection on first use.
    pub fn app_send(
        &mut self,
        now: Nanos,
        mut record: MessageRecord,
        bytes: Bytes,
        out: &mut Vec<TcpAction>,
    ) {
        self.stream_end_off += bytes.len() as u64;
        record.end_off = self.stream_end_off;
        self.records.push_back(record);
        if !bytes.is_empty() {
            self.stream.push_back(bytes);
        }
        if self.s_state == SenderState::Closed {
            self.s_state = SenderState::SynSent;
            self.syn_sent_at = Some(now);
            out.push(TcpAction::Send(self.syn(now)));
            self.rto_timer
                .arm(now + self.rtt.rto(), TimerKind::Retransmit, out);
        }
    }

    fn syn(&self, now: Nanos) -> Segment {
        Segment {
            reverse: false,
            flags: TcpFlags {
                syn: true,
                ack: false,
                psh: false,
                ece: self.params.ecn,
                cwr: self.params.ecn,
            },
            seq: self.iss,
            ack: 0,
            seq_off: 0,
            ack_off: 0,
            window: self.params.receive_window.min(65_535) as u16,
            wscale: Some(self.own_wscale),
            mss: Some(self.params.mss as u16),
            sack_permitted: self.params.sack,
            sack: SackBlocks::default(),
            ts: (self.params.timestamps).then(|| self.s_ts.syn_option(now)),
            payload: Bytes::new(),
            retransmission: false,
            ect: false,
        }
    }

    fn syn_ack(&self, now: Nanos) -> Segment {
        Segment {
            reverse: true,
            flags: TcpFlags {
                syn: true,
                ack: true,
                psh: false,
                ece: self.r_ecn.agreed,
                cwr: false,
            },
            seq: self.r_iss,
            ack: self.iss.wrapping_add(1),
            seq_off: 0,
            ack_off: 0,
            window: self.params.receive_window.min(65_535) as u16,
            wscale: Some(self.own_wscale),
            mss: Some(self.params.mss as u16),
            sack_permitted: self.r_sack_ok,
            sack: SackBlocks::default(),
            ts: self.r_ts.option(now),
            payload: Bytes::new(),
            retransmission: false,
            ect: false,
        }
    }

    /// The advertised window. The application consumes in-order data at
    /// once and out-of-order data is held within the window, so the window
    /// stays the full buffer; a constant window also keeps duplicate ACKs
    /// recognisable as such (RFC 5681 requires an unchanged window).
    fn receiver_window(&self) -> u64 {
        self.params.receive_window
    }

    fn pure_ack(&mut self, now: Nanos) -> Segment {
        let window = (self.receiver_window() >> self.own_wscale).min(65_535) as u16;
        self.last_ack_sent = Some((self.rcv_nxt, window));
        self.unacked_segments = 0;
        self.delack_timer.cancel();
        self.stats.acks_sent += 1;
        let sack = if self.r_sack_ok {
            self.sack_rx.blocks(sack::max_blocks(self.r_ts.agreed))
        } else {
            SackBlocks::default()
        };
        Segment {
            reverse: true,
            flags: TcpFlags {
                syn: false,
                ack: true,
                psh: false,
                ece: self.r_ecn.ece(),
                cwr: false,
            },
            seq: self.r_iss.wrapping_add(1),
            ack: self.iss.wrapping_add(1).wrapping_add(self.rcv_nxt as u32),
            seq_off: 0,
            ack_off: self.rcv_nxt,
            window,
            wscale: None,
            mss: None,
            sack_permitted: false,
            sack,
            ts: self.r_ts.option(now),
            payload: Bytes::new(),
            retransmission: false,
            ect: false,
        }
    }

    /// A segment arrived at the receiving host (SYN, data, handshake ACK).
    pub fn on_receiver_segment(
        &mut self,
        now: Nanos,
        seg: &crate::wire::packet::Packet,
        out: &mut Vec<TcpAction>,
    ) {
        if seg.flags.syn {
            if self.r_state != ReceiverState::Established {
                self.r_state = ReceiverState::SynReceived;
                self.peer_wscale = seg.wscale.unwrap_or(0);
                self.r_sack_ok = self.params.sack && seg.sack_permitted;
                (self.r_ts).on_handshake(self.params.timestamps, seg.ts);
                (self.r_ecn).on_syn(self.params.ecn, seg.flags.ece, seg.flags.cwr);
                out.push(TcpAction::Send(self.syn_ack(now)));
            }
            return;
        }
        if self.r_state == ReceiverState::Listen {
            return; // no connection yet: ignore
        }
        self.r_state = ReceiverState::Established;
        // RFC 7323 §4.3: SEG.SEQ ≤ Last.ACK.sent (the SYN-ACK acknowledged
        // offset 0 before any ACK).
        let last_ack_sent = self.last_ack_sent.map_or(0, |(a, _)| a);
        (self.r_ts).on_segment(seg.ts, seg.seq_off <= last_ack_sent);
        let len = seg.payload.len() as u64;
        if len == 0 {
            return; // the handshake's final ACK
        }
        let ce = seg.ecn == Ecn::Ce;
        self.stats.ce_received += u64::from(ce);
        let echo_started = self.r_ecn.on_data(seg.flags.cwr, ce);
        let start = seg.seq_off;
        let end = start + len;
        if end <= self.rcv_nxt {
            // Entirely old: a retransmission we already have. ACK at once.
            let a = self.pure_ack(now);
            out.push(TcpAction::Send(a));
            return;
        }
        if start > self.rcv_nxt {
            // Out of order: keep it if it fits the window, and dup-ACK.
            if end <= self.rcv_nxt + self.params.receive_window {
                if !self.ooo.contains_key(&start) {
                    self.ooo_bytes += len;
                    self.ooo.insert(start, seg.payload.clone());
                }
                if self.r_sack_ok {
                    self.sack_rx.on_out_of_order(start, end);
                }
            }
            let a = self.pure_ack(now);
            out.push(TcpAction::Send(a));
            return;
        }
        let filled_hole = !self.ooo.is_empty();
        let skip = (self.rcv_nxt - start) as usize;
        let fresh = seg.payload.slice(skip..);
        self.accept_in_order(fresh, out);
        while let Some((&s, _)) = self.ooo.first_key_value() {
            if s > self.rcv_nxt {
                break;
            }
            let (s, data) = self.ooo.pop_first().unwrap();
            self.ooo_bytes -= data.len() as u64;
            let e = s + data.len() as u64;
            if e > self.rcv_nxt {
                let skip = (self.rcv_nxt - s) as usize;
                self.accept_in_order(data.slice(skip..), out);
            }
        }
        if self.r_sack_ok && filled_hole {
            self.sack_rx.on_in_order(self.rcv_nxt);
        }
        self.unacked_segments += 1;
        let immediate = filled_hole
            || echo_started
            || self.params.delayed_ack == Nanos::ZERO
            || self.unacked_segments >= self.params.delayed_ack_segments.max(1);
        if immediate {
            let a = self.pure_ack(now);
            out.push(TcpAction::Send(a));
        } else {
            self.delack_timer
                .arm(now + self.params.delayed_ack, TimerKind::DelayedAck, out);
        }
    }

    fn accept_in_order(&mut self, mut data: Bytes, out: &mut Vec<TcpAction>) {
        self.rcv_nxt += data.len() as u64;
        while !data.is_empty() {
            let Some(rec) = self.records.front() else {
                return;
            };
            let need = (rec.end_off - self.assembled_off) as usize;
            let take = need.min(data.len());
            let part = data.split_to(take);
            self.assembled_off += take as u64;
            let whole = if self.assembly.is_empty() && take == need {
                Some(part)
            } else {
                if self.assembly.is_empty() {
                    self.assembly.reserve(need); // the whole message, once
                }
                self.assembly.extend_from_slice(&part);
                (take == need).then(|| std::mem::take(&mut self.assembly).freeze())
            };
            if let Some(msg) = whole {
                let rec = self.records.pop_front().unwrap();
                self.stats.messages_delivered += 1;
                out.push(TcpAction::Deliver(rec, msg));
            }
        }
        // Zero-length messages complete as soon as the stream reaches them.
        self.deliver_empty(out);
    }

    fn deliver_empty(&mut self, out: &mut Vec<TcpAction>) {
        while let Some(rec) = self.records.front() {
            if rec.end_off == self.assembled_off
                && self.assembly.is_empty()
                && rec.end_off <= self.rcv_nxt
            {
                let rec = self.records.pop_front().unwrap();
                self.stats.messages_delivered += 1;
                out.push(TcpAction::Deliver(rec, Bytes::new()));
            } else {
                break;
            }
        }
    }

    /// A segment arrived back at the sending host (SYN-ACK or ACK).
    pub fn on_sender_segment(
        &mut self,
        now: Nanos,
        seg: &crate::wire::packet::Packet,
        out: &mut Vec<TcpAction>,
    ) {
        if seg.flags.syn {
            if self.s_state == SenderState::SynSent {
                self.s_state = SenderState::Established;
                self.peer_wscale = seg.wscale.unwrap_or(0);
                self.sack_ok = self.params.sack && seg.sack_permitted;
                (self.s_ts).on_handshake(self.params.timestamps, seg.ts);
                (self.s_ecn).on_syn_ack(self.params.ecn, seg.flags.ece, seg.flags.cwr);
                self.peer_window = seg.window as u64;
                if let Some(m) = seg.mss {
                    self.mss = self.mss.min(m as u64);
                }
                if self.s_ts.agreed {
                    // The option takes 12 bytes of every segment: Linux
                    // sends that much less data (1448 bytes on 1500).
                    self.mss -= TCP_TIMESTAMPS_OPTION;
                }
                if seg.mss.is_some() || self.s_ts.agreed {
                    self.cc.set_mss(self.mss, self.params.initial_cwnd);
                }
                if let (Some(t), false) = (self.syn_sent_at, self.syn_retransmitted) {
                    self.rtt_sample(now - t);
                }
                self.rto_timer.cancel();
                out.push(TcpAction::Send(Segment {
                    reverse: false,
                    flags: TcpFlags {
                        syn: false,
                        ack: true,
                        psh: false,
                        ece: false,
                        cwr: false,
                    },
                    seq: self.iss.wrapping_add(1),
                    ack: self.r_iss.wrapping_add(1),
                    seq_off: 0,
                    ack_off: 0,
                    window: (self.params.receive_window >> self.own_wscale).min(65_535) as u16,
                    wscale: None,
                    mss: None,
                    sack_permitted: false,
                    sack: SackBlocks::default(),
                    ts: self.s_ts.option(now),
                    payload: Bytes::new(),
                    retransmission: false,
                    ect: false,
                }));
                // Zero-length messages queued before the handshake.
                self.poll_receiver_empty(out);
            }
            return;
        }
        if self.s_state != SenderState::Established {
            return;
        }
        let ack = seg.ack_off.min(self.snd_max);
        let window = (seg.window as u64) << self.peer_wscale;
        // The receiver sends no data: every ACK is at the edge.
        self.s_ts.on_segment(seg.ts, true);
        let ecn_reduce = !self.cc.in_recovery() && self.s_ecn.should_reduce(seg.flags.ece, ack);
        let newly_sacked = if self.sack_ok && !seg.sack.is_empty() {
            (self.scoreboard).update(&seg.sack, ack.max(self.snd_una), self.snd_max)
        } else {
            0
        };
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            if self.s_ts.agreed {
                // RTTM (RFC 7323 §4): every ACK of new data is a sample,
                // also of a retransmission (the echo names which copy).
                if let Some(r) = seg.ts.and_then(|ts| self.s_ts.rtt_sample(now, ts.ecr)) {
                    self.rtt_sample(r);
                }
            } else if let Some((end, sent)) = self.rtt_probe {
                if ack >= end {
                    self.rtt_sample(now - sent);
                    self.rtt_probe = None;
                }
            }
            self.rtt.reset_backoff();
            self.snd_una = ack;
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            self.release_acked();
            if self.sack_ok {
                self.scoreboard.on_cumulative_ack(ack);
            }
            if self.cc.in_recovery() {
                if ack >= self.cc.recovery_point() {
                    self.cc.on_full_ack(self.snd_max - self.snd_una);
                    self.scoreboard.end_recovery();
                } else if self.sack_ok {
                    // RFC 6675 (B): the scoreboard is updated; pipe and
                    // NextSeg run in `poll_transmit`.
                } else {
                    self.cc.on_partial_ack(acked);
                    self.retransmit_front(now, out);
                }
            } else if !ecn_reduce {
                self.cc.on_ack(acked, now, self.rtt.srtt());
            }
            self.dupacks = 0;
            if self.snd_una < self.snd_max {
                self.rto_timer
                    .arm(now + self.rtt.rto(), TimerKind::Retransmit, out);
            } else {
                self.rto_timer.cancel();
            }
        } else if ack == self.snd_una
            && self.snd_una < self.snd_max
            && seg.payload.is_empty()
            && window == self.peer_window
            && (!self.sack_ok || newly_sacked > 0)
        {
            self.dupacks += 1;
            if self.sack_ok {
                // RFC 6675 step 2: three duplicate ACKs or IsLost(HighACK
                // + 1), and not before a timeout's recovery point is
                // acknowledged.
                if !self.cc.in_recovery()
                    && self.snd_una >= self.cc.recovery_point()
                    && (self.dupacks >= 3 || self.scoreboard.is_lost(self.snd_una, self.mss))
                {
                    self.stats.fast_retransmits += 1;
                    self.cc
                        .on_sack_recovery(self.snd_max - self.snd_una, self.snd_max);
                    let len = self.retransmit_front(now, out);
                    self.scoreboard.start_recovery(self.snd_una + len);
                }
            } else if self.dupacks == 3
                && !self.cc.in_recovery()
                && self.snd_una >= self.cc.recovery_point().min(self.snd_una)
            {
                self.stats.fast_retransmits += 1;
                self.cc
                    .on_triple_dupack(self.snd_max - self.snd_una, self.snd_max);
                self.retransmit_front(now, out);
            } else if self.dupacks > 3 && self.cc.in_recovery() {
                self.cc.on_extra_dupack();
            }
        }
        if ecn_reduce && !self.cc.in_recovery() {
            // RFC 3168 §6.1.2: as for a loss, without a retransmission;
            // the next new segment carries CWR.
            self.cc.on_ecn_echo();
            self.s_ecn.reduced(self.snd_max);
            self.stats.ecn_reductions += 1;
        }
        self.peer_window = window;
    }

    /// Feeds a round-trip sample to the estimator and the counters.
    fn rtt_sample(&mut self, r: Nanos) {
        self.rtt.sample(r);
        let st = &mut self.stats;
        st.rtt_min_ns = if st.rtt_samples == 0 {
            r.0
        } else {
            st.rtt_min_ns.min(r.0)
        };
        st.rtt_max_ns = st.rtt_max_ns.max(r.0);
        st.rtt_samples += 1;
    }

    fn poll_receiver_empty(&mut self, out: &mut Vec<TcpAction>) {
        if self.r_state != ReceiverState::Listen {
            self.deliver_empty(out);
        }
    }

    fn release_acked(&mut self) {
        while let Some(front) = self.stream.front() {
            let end = self.stream_front_off + front.len() as u64;
            if end <= self.snd_una {
                self.stream_front_off = end;
                self.stream.pop_front();
            } else {
                break;
            }
        }
    }

    /// Bytes [from, from+len) of the send stream (zero-copy within a message).
    fn stream_slice(&self, from: u64, len: usize) -> Bytes {
        let mut off = self.stream_front_off;
        let mut out: Option<BytesMut> = None;
        let mut remaining = len;
        let mut pos = from;
        for chunk in &self.stream {
            let end = off + chunk.len() as u64;
            if end <= pos {
                off = end;
                continue;
            }
            let s = (pos - off) as usize;
            let take = remaining.min(chunk.len() - s);
            if out.is_none() && take == remaining {
                return chunk.slice(s..s + take);
            }
            out.get_or_insert_with(|| BytesMut::with_capacity(len))
                .extend_from_slice(&chunk[s..s + take]);
            remaining -= take;
            pos += take as u64;
            off = end;
            if remaining == 0 {
                break;
            }
        }
        out.map(|b| b.freeze()).unwrap_or_default()
    }

    fn data_segment(&mut self, now: Nanos, from: u64, len: usize, retransmission: bool) -> Segment {
        let payload = self.stream_slice(from, len);
        // New data only (RFC 3168 §6.1.5: no ECT on retransmissions).
        let ect = self.s_ecn.agreed && !retransmission;
        let cwr = ect && self.s_ecn.take_cwr();
        Segment {
            reverse: false,
            flags: TcpFlags {
                syn: false,
                ack: true,
                psh: from + len as u64 == self.stream_end_off,
                ece: false,
                cwr,
            },
            seq: self.iss.wrapping_add(1).wrapping_add(from as u32),
            ack: self.r_iss.wrapping_add(1),
            seq_off: from,
            ack_off: 0,
            window: (self.params.receive_window >> self.own_wscale).min(65_535) as u16,
            wscale: None,
            mss: None,
            sack_permitted: false,
            sack: SackBlocks::default(),
            ts: self.s_ts.option(now),
            payload,
            retransmission,
            ect,
        }
    }

    /// Re-sends the first unacknowledged segment (up to the first SACKed
    /// byte); returns its length.
    fn retransmit_front(&mut self, now: Nanos, out: &mut Vec<TcpAction>) -> u64 {
        let mut len = (self.snd_max - self.snd_una).min(self.mss);
        if let Some((s, _)) = self.scoreboard.sacked_from(self.snd_una) {
            len = len.min(s - self.snd_una);
        }
        if len == 0 {
            return 0;
        }
        let len = len as usize;
        self.stats.retransmissions += 1;
        if self.rtt_probe.is_some_and(|(end, _)| end > self.snd_una) {
            self.rtt_probe = None; // Karn: no sample across a retransmission
        }
        out.push(TcpAction::Send(self.data_segment(
            now,
            self.snd_una,
            len,
            true,
        )));
        self.rto_timer
            .arm(now + self.rtt.rto(), TimerKind::Retransmit, out);
        len as u64
    }

    /// Emits as many data segments as the windows, Nagle and `room` (free
    /// slots in the host's NIC queue) allow. Returns true when it stopped
    /// only for lack of room.
    pub fn poll_transmit(&mut self, now: Nanos, mut room: usize, out: &mut Vec<TcpAction>) -> bool {
        if self.s_state != SenderState::Established {
            return false;
        }
        if self.sack_ok && self.cc.in_recovery() {
            return self.poll_sack_recovery(now, room, out);
        }
        while self.snd_nxt < self.stream_end_off {
            let window = self.cc.cwnd().min(self.peer_window.max(self.mss));
            let flight = self.snd_nxt - self.snd_una;
            if flight >= window {
                return false;
            }
            let usable = window - flight;
            let pending = self.stream_end_off - self.snd_nxt;
            let mut len = self.mss.min(pending).min(usable);
            let mut hole_limited = false;
            if self.sack_ok && self.snd_nxt < self.snd_max {
                // Going back after a timeout: skip what the receiver holds.
                if let Some((_, e)) = self.scoreboard.sacked_at(self.snd_nxt) {
                    self.snd_nxt = e;
                    continue;
                }
                if let Some((s, _)) = self.scoreboard.sacked_from(self.snd_nxt) {
                    hole_limited = s - self.snd_nxt < len;
                    len = len.min(s - self.snd_nxt);
                }
            }
            if len < self.mss && len < pending && flight > 0 && !hole_limited {
                return false; // sender-side silly window avoidance
            }
            if self.params.nagle && len < self.mss && flight > 0 {
                return false;
            }
            if room == 0 {
                return true;
            }
            room -= 1;
            let from = self.snd_nxt;
            let retrans = from < self.snd_max;
            if retrans {
                self.stats.retransmissions += 1;
            } else {
                self.stats.data_segments += 1;
                self.stats.data_bytes += len;
                if self.rtt_probe.is_none() {
                    self.rtt_probe = Some((from + len, now));
                }
            }
            out.push(TcpAction::Send(self.data_segment(
                now,
                from,
                len as usize,
                retrans,
            )));
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            if self.rto_timer.deadline.is_none() {
                self.rto_timer
                    .arm(now + self.rtt.rto(), TimerKind::Retransmit, out);
            }
        }
        false
    }

    /// RFC 6675 step (C) during SACK recovery: while the congestion window
    /// exceeds pipe by a segment, send what NextSeg picks (lost holes,
    /// then new data, then other holes, then the rescue retransmission).
    fn poll_sack_recovery(
        &mut self,
        now: Nanos,
        mut room: usize,
        out: &mut Vec<TcpAction>,
    ) -> bool {
        loop {
            let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, self.mss);
            if self.cc.cwnd() < pipe + self.mss {
                return false;
            }
            let rwnd_end = self.snd_una + self.peer_window.max(self.mss);
            let new_end = self.stream_end_off.min(rwnd_end).max(self.snd_max);
            let Some((from, to, rule)) =
                (self.scoreboard).next_segment(self.snd_una, self.snd_max, new_end, self.mss)
            else {
                return false;
            };
            let len = to - from;
            if rule == NextRule::NewData && len < self.mss && to < self.stream_end_off {
                return false; // sender-side silly window avoidance
            }
            if room == 0 {
                return true;
            }
            room -= 1;
            let retrans = rule != NextRule::NewData;
            if retrans {
                self.stats.retransmissions += 1;
                if self.rtt_probe.is_some_and(|(end, _)| end > from) {
                    self.rtt_probe = None; // Karn
                }
            } else {
                self.stats.data_segments += 1;
                self.stats.data_bytes += len;
                if self.rtt_probe.is_none() {
                    self.rtt_probe = Some((to, now));
                }
                self.snd_max = to;
                self.snd_nxt = to;
            }
            out.push(TcpAction::Send(self.data_segment(
                now,
                from,
                len as usize,
                retrans,
            )));
            (self.scoreboard).on_sent(to, rule, self.cc.recovery_point());
            if self.rto_timer.deadline.is_none() {
                self.rto_timer
                    .arm(now + self.rtt.rto(), TimerKind::Retransmit, out);
            }
        }
    }

    /// A timer event of this connection fired at `now`.
    pub fn on_timer(&mut self, now: Nanos, kind: TimerKind, out: &mut Vec<TcpAction>) {
        match kind {
            TimerKind::DelayedAck => {
                if self.delack_timer.fire(now, kind, out) && self.unacked_segments > 0 {
                    let a = self.pure_ack(now);
                    out.push(TcpAction::Send(a));
                }
            }
            TimerKind::Retransmit => {
                if !self.rto_timer.fire(now, kind, out) {
                    return;
                }
                self.stats.timeouts += 1;
                self.rtt.back_off();
                match self.s_state {
                    SenderState::SynSent => {
                        self.syn_retransmitted = true;
                        self.stats.retransmissions += 1;
                        out.push(TcpAction::Send(self.syn(now)));
                        self.rto_timer
                            .arm(now + self.rtt.rto(), TimerKind::Retransmit, out);
                    }
                    SenderState::Established if self.snd_una < self.snd_max => {
                        self.cc
                            .on_timeout(self.snd_max - self.snd_una, self.snd_max);
                        self.dupacks = 0;
                        self.rtt_probe = None;
                        self.scoreboard.end_recovery();
                        self.snd_nxt = self.snd_una;
                        let len = self.retransmit_front(now, out);
                        self.snd_nxt = self.snd_una + len;
                    }
                    _ => {}
                }
            }
        }
    }

    /// Congestion window in bytes (for tests and reports).
    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }

    /// Smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<Nanos> {
        self.rtt.srtt()
    }
}
