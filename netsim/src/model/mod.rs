//! What a driver and a network model say to each other, whichever model it
//! is: a message delivered ([`Delivery`]), why one could not be injected
//! ([`InjectError`]), which kind of event ran ([`EventClass`]), the run's
//! counters ([`stats`]) and the [`NetworkModel`] trait the packet simulator
//! and the analytic model both implement.

pub mod stats;
pub mod storage;

use crate::base::time::Nanos;
use crate::tcp::MessageId;
use bytes::Bytes;

/// A message that reached its destination rank.
#[derive(Clone, Debug)]
pub struct Delivery {
    /// The id `inject` returned.
    pub id: MessageId,
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// The message bytes, reassembled from the segments that carried them.
    pub bytes: Bytes,
    /// Virtual time it was injected.
    pub injected_at: Nanos,
    /// Virtual time its last byte arrived in order.
    pub delivered_at: Nanos,
}

/// Why a message could not be injected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InjectError {
    /// A rank number outside 0..ranks.
    #[error("rank {rank} does not exist; the job has {ranks} ranks")]
    NoSuchRank {
        /// The rank given.
        rank: u32,
        /// Ranks in the job.
        ranks: u32,
    },
    /// No route joins the two ranks' hosts.
    #[error(
        "no route from rank {src}'s host to rank {dst}'s host; connect them in the network file"
    )]
    Unreachable {
        /// Source rank.
        src: u32,
        /// Destination rank.
        dst: u32,
    },
    /// Empty messages carry nothing on TCP and could never be delivered.
    #[error("a message must hold at least one byte")]
    Empty,
}

/// What kind of event ran: the gateway reports which kind ran latest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventClass {
    /// A message entered its connection.
    Inject,
    /// A frame finished serialising onto a link.
    TransmitDone,
    /// A frame arrived at a port.
    Arrival,
    /// A TCP timer (retransmission or delayed ACK).
    TcpTimer,
    /// A message between ranks of one host arrived.
    LocalDelivery,
    /// A check for messages that waited too long at a network partition.
    Fault,
    /// A collective of the analytic model ended (its members are released).
    Collective,
}

impl EventClass {
    /// The kind's name as reports, JSON and the terminal spell it
    /// (`transmit-done`), so a user can look up what the summary printed.
    pub fn name(self) -> &'static str {
        match self {
            EventClass::Inject => "inject",
            EventClass::TransmitDone => "transmit-done",
            EventClass::Arrival => "arrival",
            EventClass::TcpTimer => "tcp-timer",
            EventClass::LocalDelivery => "local-delivery",
            EventClass::Fault => "fault",
            EventClass::Collective => "collective",
        }
    }
}
