//! The shared-memory transport between a rank's shim and the gateway on
//! the same host. Each rank has one channel: a sealed memfd holding two
//! single-producer, single-consumer byte rings (rank → gateway and
//! gateway → rank) and two eventfd doorbells, one per end. The rank
//! creates it and passes the descriptors over its Unix socket
//! ([`offer`]) before its Hello; from then on every frame goes through
//! the rings, and the socket only tells either side that the other
//! process is gone.
//!
//! A writer rings the reader's doorbell only when the reader counted
//! itself as sleeping, so a busy exchange costs no system call; waiters
//! spin adaptively ([`spin`]) before they sleep. Bytes larger than a
//! ring go through in pieces as the reader frees room.

pub mod channel;
pub mod doorbell;
pub mod horizon;
pub mod layout;
mod mapping;
pub mod offer;
pub mod ring;
pub mod spin;

pub use channel::{Channel, HorizonHandle, Offer, Waiter, DEFAULT_CAPACITY_BYTES};
pub use mapping::SharedMapping;
