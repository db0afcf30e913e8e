//! Frames on links: a frame's header fields and wire sizes ([`packet`]),
//! one link direction's [`transmitter`] — a queue discipline ([`queue`])
//! in front of a [`serialiser`] — what watches frames crossing ports
//! ([`observer`]), and the pcap/pcapng bytes of captured frames
//! ([`capture`], one such observer); the lossless fabric's InfiniBand
//! packets ([`infiniband`]) and its link-level flow control ([`credits`]).

pub mod capture;
pub mod credits;
pub mod infiniband;
pub mod observer;
pub mod packet;
pub mod queue;
pub mod serialiser;
pub mod transmitter;
