//! Frames on links: a frame's header fields and wire sizes ([`packet`]),
//! one link direction's queue and serialiser ([`transmitter`]), and the
//! pcap/pcapng bytes of captured frames ([`capture`]).

pub mod capture;
pub mod packet;
pub mod transmitter;
