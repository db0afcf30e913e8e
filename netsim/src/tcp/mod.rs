//! The transport: one TCP connection per ordered rank pair.
//!
//! A [`TcpConnection`] holds both halves of one connection — the data
//! sender on the source host and the receiver on the destination host — and
//! is driven by method calls carrying `now`; it answers with [`TcpAction`]s
//! (segments to transmit, timers to schedule, messages to deliver). It never
//! touches the event queue or the network itself.

pub mod congestion;
mod connection;
pub mod ecn;
mod rtt;
pub mod sack;
pub mod timestamps;

pub use congestion::{CongestionControl, NewReno};
pub use connection::{ConnectionStats, TcpConnection, TcpParams};
pub use rtt::RttEstimator;
pub use sack::SackBlocks;

use crate::base::time::Nanos;
use crate::wire::packet::{TcpFlags, TcpTimestamps};
use bytes::Bytes;

/// Application message identifier, unique within a simulation.
pub type MessageId = u64;

/// An application message queued on a connection.
#[derive(Clone, Debug)]
pub struct MessageRecord {
    /// Identifier returned by `inject`.
    pub id: MessageId,
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// Virtual time the application handed it over.
    pub injected_at: Nanos,
    /// Stream offset one past its last byte.
    pub end_off: u64,
}

/// Which of a connection's timers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Retransmission timeout of the sender.
    Retransmit,
    /// Delayed-ACK timeout of the receiver.
    DelayedAck,
}

/// A segment the connection wants transmitted.
#[derive(Clone, Debug)]
pub struct Segment {
    /// False: sender → receiver (SYN, data, handshake ACK). True: receiver →
    /// sender (SYN-ACK, ACKs).
    pub reverse: bool,
    /// Flags.
    pub flags: TcpFlags,
    /// Wire sequence number.
    pub seq: u32,
    /// Wire acknowledgement number.
    pub ack: u32,
    /// Stream offset of the first payload byte.
    pub seq_off: u64,
    /// Stream offset acknowledged.
    pub ack_off: u64,
    /// Window field (scaled).
    pub window: u16,
    /// Window scale option (SYN/SYN-ACK only).
    pub wscale: Option<u8>,
    /// MSS option (SYN/SYN-ACK only).
    pub mss: Option<u16>,
    /// SACK-permitted option (SYN/SYN-ACK only).
    pub sack_permitted: bool,
    /// SACK blocks (ACKs while the receiver holds out-of-order data).
    pub sack: SackBlocks,
    /// Timestamps option (RFC 7323).
    pub ts: Option<TcpTimestamps>,
    /// Data.
    pub payload: Bytes,
    /// True for a data segment that re-sends bytes sent before.
    pub retransmission: bool,
    /// Sent ECT(0) in the IPv4 header: new data once both ends agreed on
    /// ECN (RFC 3168 §6.1.5: never retransmissions, SYNs or pure ACKs).
    pub ect: bool,
}

/// What the connection asks its driver to do.
#[derive(Clone, Debug)]
pub enum TcpAction {
    /// Transmit this segment from the appropriate host.
    Send(Segment),
    /// Schedule a timer event at this time.
    ScheduleTimer(TimerKind, Nanos),
    /// A whole message arrived in order at the receiver.
    Deliver(MessageRecord, Bytes),
}

#[cfg(test)]
mod tests;
