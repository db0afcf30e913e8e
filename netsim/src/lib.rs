//! # netsim — a deterministic, sans-IO packet-level network simulator
//!
//! netsim models hosts, L2 switches, L3 routers and full-duplex links with
//! rates, propagation delays, MTUs, drop-tail queues and seeded random loss,
//! and runs one TCP connection (handshake, MSS segmentation, cumulative and
//! delayed ACKs, receive window, NewReno, fast retransmit, RTO) per ordered
//! rank pair. It records per-node and per-link counters and can write pcap
//! captures with real Ethernet/IPv4/TCP headers stamped with virtual time.
//!
//! The crate reads no clock, opens no file or socket and starts no thread:
//! virtual time is an integer count of nanoseconds advanced only by
//! [`Simulator::step`] / [`Simulator::advance_to`], messages enter through
//! [`Simulator::inject`] and leave through [`Simulator::take_deliveries`],
//! and capture bytes are handed to the caller to store. The same
//! configuration and inputs give byte-identical results. The `mpinetsim`
//! gateway drives it in (scaled) real time; [`workload`] drives it in pure
//! virtual time.

pub mod addr;
pub mod analysis;
pub mod analytic;
pub mod capture;
pub mod config;
pub mod event;
pub mod fasthash;
pub mod faults;
pub mod generators;
pub mod packet;
pub mod reach;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod stats;
pub mod storage;
pub mod tcp;
pub mod text;
pub mod time;
pub mod topology;
pub mod transmitter;
pub mod units;
pub mod vectors;
pub mod workload;
pub mod xsim;

pub use analytic::{AnalyticSim, ModelKind};
pub use config::{ConfigError, NetworkConfig};
pub use sim::{Delivery, EventClass, InjectError, Simulator};
pub use time::Nanos;
pub use topology::Network;
