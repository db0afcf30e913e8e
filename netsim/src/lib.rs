//! # netsim — a deterministic, sans-IO packet-level network simulator
//!
//! netsim models hosts, L2 switches, L3 routers and full-duplex links with
//! rates, propagation delays, MTUs, drop-tail or RED queues and seeded random loss,
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
//!
//! ## Example
//!
//! Two hosts joined by one 0.5 ms link; rank 0 sends rank 1 100 bytes
//! over a new connection, so the SYN, the SYN-ACK and the data each cross
//! the link once (see `examples/` for more):
//!
//! ```
//! use netsim::{Nanos, NetworkConfig, Simulator};
//! let cfg = NetworkConfig::from_toml_str(
//!     r#"
//!     [link_defaults]
//!     rate = "1Gbps"
//!     delay = "500us"
//!     [[host]]
//!     name = "a"
//!     [[host]]
//!     name = "b"
//!     [[link]]
//!     a = "a"
//!     b = "b"
//!     "#,
//!     "example",
//! )?;
//! let mut sim = Simulator::from_config(&cfg, "example", 2, false)?;
//! sim.inject(0, 1, vec![1u8; 100].into(), Nanos::ZERO)?;
//! while sim.step().is_some() {}
//! let mut out = Vec::new();
//! sim.take_deliveries(&mut out);
//! // 3 × 0.5 ms of propagation, plus 8 ns per wire byte (1 Gbps) of the
//! // SYN and SYN-ACK (86 B each with preamble and gap), the handshake's
//! // last ACK (84 B: a minimum frame), which leaves just before the data,
//! // and the data segment (178 B).
//! assert_eq!(out[0].delivered_at, Nanos(1_500_000 + 8 * (86 + 86 + 84 + 178)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Layers
//!
//! Each folder is a layer and uses only the layers listed before it
//! (`tests/module_graph.rs` fails on a cycle or an upward use):
//!
//! | layer | modules |
//! |---|---|
//! | [`base`] | time, units, ids, addresses, rng, event queue, text |
//! | [`config`] | the TOML users write (with `[analytic]` and the `xsim:` syntax) |
//! | [`topology`] | the graph, its generators, routing, reachability |
//! | [`wire`], [`tcp`], [`faults`] | frames, queues and captures; the TCP model; faults on the graph |
//! | [`model`] | the driver vocabulary, the counters and the [`NetworkModel`] trait |
//! | [`sim`], [`analytic`] | the two network models |
//! | [`models`], [`workload`], [`analysis`], [`loader`] | choosing a model by config, drivers, the command line's network argument |

pub mod analysis;
pub mod analytic;
pub mod base;
pub mod config;
pub mod faults;
pub mod loader;
pub mod model;
pub mod models;
pub mod rdma;
pub mod sim;
pub mod tcp;
pub mod topology;
pub mod wire;
pub mod workload;

pub use analytic::AnalyticSim;
pub use base::time::Nanos;
pub use config::analytic::ModelKind;
pub use config::{ConfigError, NetworkConfig};
pub use model::{Delivery, EventClass, InjectError, NetworkModel};
pub use sim::Simulator;
pub use topology::Network;
