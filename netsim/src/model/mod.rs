//! What a driver and a network model say to each other, whichever model it
//! is: a message delivered ([`Delivery`]), why one could not be injected
//! ([`InjectError`]), which kind of event ran ([`EventClass`]), the run's
//! counters ([`stats`]) and the [`NetworkModel`] trait the packet simulator
//! and the analytic model both implement.

pub mod collective;
pub mod stats;
pub mod storage;

use crate::base::time::Nanos;
use crate::config::analytic::ModelKind;
use crate::faults::NetworkFailure;
use crate::tcp::MessageId;
use bytes::Bytes;
use collective::{CollectiveEntry, Release};
use stats::SimStats;
use std::any::Any;

/// A network model a driver runs: messages enter at a virtual time, the
/// driver runs events in time order, and messages leave as [`Delivery`]s.
/// The packet simulator and the analytic model implement it, so a driver
/// (the gateway's loop, a workload) holds a `Box<dyn NetworkModel>` and
/// needs no change for a third model. What only one model has (captures,
/// time series, its own counters) is reached through [`NetworkModel::as_any`].
///
/// A driver that runs the network step by step, as a real-time loop does
/// when each event's deadline comes, works with either model:
///
/// ```
/// use netsim::models::{from_config, ModelOptions};
/// use netsim::{Nanos, NetworkConfig, NetworkModel};
/// /// Runs every event up to `t` and returns the messages delivered.
/// fn run_until(m: &mut dyn NetworkModel, t: Nanos) -> usize {
///     while m.next_event_time().is_some_and(|next| next <= t) {
///         m.step();
///     }
///     m.advance_to(t);
///     let mut out = Vec::new();
///     m.take_deliveries(&mut out);
///     out.len()
/// }
/// let cfg = NetworkConfig::from_toml_str(
///     "[link_defaults]\ndelay = '500us'\n[[host]]\nname = 'a'\n\
///      [[host]]\nname = 'b'\n[[link]]\na = 'a'\nb = 'b'\n",
///     "example",
/// )?;
/// let mut m = from_config(&cfg, "example", 2, ModelOptions::default())?;
/// m.inject(0, 1, vec![7u8; 100].into(), Nanos::ZERO)?;
/// // Nothing can arrive before one propagation delay.
/// assert_eq!(run_until(m.as_mut(), Nanos(499_999)), 0);
/// assert_eq!(m.now(), Nanos(499_999));
/// // SYN, SYN-ACK, data: three crossings of the link, within 10 ms.
/// assert_eq!(run_until(m.as_mut(), Nanos(10_000_000)), 1);
/// assert_eq!(m.messages_in_flight(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait NetworkModel {
    /// Which model this is (the config's `model` key).
    fn kind(&self) -> ModelKind;

    /// Current virtual time.
    fn now(&self) -> Nanos;

    /// Time of the next pending event, if any.
    fn next_event_time(&self) -> Option<Nanos>;

    /// Runs the next event; its time and kind.
    fn step_classified(&mut self) -> Option<(Nanos, EventClass)>;

    /// Runs the next event; its time.
    fn step(&mut self) -> Option<Nanos> {
        self.step_classified().map(|x| x.0)
    }

    /// Runs every event up to and including `t`; the clock ends at `t`.
    fn advance_to(&mut self, t: Nanos);

    /// Sends `bytes` from rank `src` to rank `dst` at virtual time `at`
    /// (not before [`NetworkModel::now`]); the message's id.
    fn inject(&mut self, src: u32, dst: u32, bytes: Bytes, at: Nanos) -> Result<u64, InjectError>;

    /// Moves the messages delivered so far into `out`.
    fn take_deliveries(&mut self, out: &mut Vec<Delivery>);

    /// Messages injected and not yet delivered.
    fn messages_in_flight(&self) -> u64;

    /// The run's counters.
    fn stats(&self) -> SimStats;

    /// The node each rank runs on (ranks of one node share memory).
    fn rank_nodes(&self) -> Vec<u32>;

    /// The name of the host each rank runs on (empty where the model's
    /// nodes are not named hosts).
    fn rank_host_names(&self) -> Vec<String>;

    /// Adds a rank started during the run (`MPI_Comm_spawn`): on the host
    /// named `host`, else on the host with the fewest ranks (the first in
    /// the network's order among equals). Returns its number, which
    /// follows every rank so far. One sentence when it cannot be added.
    fn add_rank(&mut self, host: Option<&str>) -> Result<u32, String> {
        let _ = host;
        Err(format!(
            "the {} model cannot add ranks during a run; use the packet model (`model = \"packet\"`) for programs that call MPI_Comm_spawn",
            self.kind().name()
        ))
    }

    /// What was built, in a few words ("1048576 nodes, 1572864 links, 2
    /// ranks").
    fn summary(&self) -> String;

    /// Why the network cannot carry the job on (a model with faults).
    fn failure(&self) -> Option<&NetworkFailure> {
        None
    }

    /// The model's collective timing, when it times collectives as one
    /// operation (the packet simulator carries their messages instead).
    fn collectives(&mut self) -> Option<&mut dyn CollectiveTiming> {
        None
    }

    /// Whether [`NetworkModel::collectives`] is `Some`.
    fn times_collectives(&self) -> bool {
        false
    }

    /// The model as its concrete type, for what only it has.
    fn as_any(&self) -> &dyn Any;

    /// The model as its concrete type, mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Collectives timed as one modelled operation (the analytic model):
/// members enter, and are released together when the operation ends.
pub trait CollectiveTiming {
    /// Carries `bytes` from `src` to `dst` without network timing (the data
    /// of a collective, whose time the collective model accounts for).
    fn inject_untimed(
        &mut self,
        src: u32,
        dst: u32,
        bytes: Bytes,
        at: Nanos,
    ) -> Result<u64, InjectError>;

    /// Rank `rank` entered a collective at `at`; an error sentence when the
    /// members disagree on it.
    fn enter_collective(
        &mut self,
        rank: u32,
        entry: CollectiveEntry,
        at: Nanos,
    ) -> Result<(), String>;

    /// Moves the members released so far into `out`.
    fn take_releases(&mut self, out: &mut Vec<Release>);
}

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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// A credit of the lossless fabric came back to its port.
    CreditReturn,
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
            EventClass::CreditReturn => "credit-return",
        }
    }
}
