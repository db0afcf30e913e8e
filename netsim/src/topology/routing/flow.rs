//! Per-flow hashing for equal-cost multi-path routing (`routing = "ecmp"`).
//!
//! A flow is one direction of one TCP connection, named by its 5-tuple:
//! source and destination IPv4 address, protocol (always TCP, 6), source
//! and destination port. Its hash is a fixed function of the 5-tuple and
//! the network's `seed` ([`FlowKey::hash`]); at every node with several
//! equally short next hops, the flow takes candidate number
//! [`pick`]`(hash, node, count)`. The node is mixed in so that the choices
//! of successive tiers are independent (a hash taken modulo the same count
//! at the edge and at the aggregation tier of a fat-tree would otherwise
//! send every flow an edge router gave to aggregation router i to core i
//! of that router: "hash polarisation"). The same inputs always give the
//! same path, so a flow's packets never take different paths and never
//! reorder; another seed gives another assignment.
//!
//! Both functions are written down exactly (no `std` hasher, whose keys
//! are random per process), so a test or another tool can recompute any
//! flow's path:
//!
//! ```text
//! mix(x)   = splitmix64's finaliser: x += 0x9e3779b97f4a7c15;
//!            x = (x ^ x>>30)·0xbf58476d1ce4e5b9; x = (x ^ x>>27)·0x94d049bb133111eb;
//!            x ^ x>>31                       (wrapping arithmetic on u64)
//! hash     = mix(mix(mix(seed) ^ (src_ip<<32 | dst_ip)) ^ (6<<32 | src_port<<16 | dst_port))
//! pick     = mix(hash ^ node) mod count
//! ```

use crate::topology::NodeId;
use std::net::Ipv4Addr;

/// The protocol number of TCP, the one protocol a flow carries.
const TCP: u64 = 6;

/// The 5-tuple of one direction of a TCP connection (the protocol is
/// always TCP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// IPv4 source address.
    pub src_ip: Ipv4Addr,
    /// IPv4 destination address.
    pub dst_ip: Ipv4Addr,
    /// TCP source port.
    pub src_port: u16,
    /// TCP destination port.
    pub dst_port: u16,
}

impl FlowKey {
    /// The same connection's other direction (its ACKs, or the reply).
    pub fn reversed(self) -> FlowKey {
        FlowKey {
            src_ip: self.dst_ip,
            dst_ip: self.src_ip,
            src_port: self.dst_port,
            dst_port: self.src_port,
        }
    }

    /// The flow's hash under `seed` (see the module comment for the
    /// formula).
    pub fn hash(&self, seed: u64) -> u64 {
        let addresses = u64::from(u32::from(self.src_ip)) << 32 | u64::from(u32::from(self.dst_ip));
        let rest = TCP << 32 | u64::from(self.src_port) << 16 | u64::from(self.dst_port);
        mix(mix(mix(seed) ^ addresses) ^ rest)
    }
}

/// Which of `count` equally short next hops (`count` ≥ 1) node `node`
/// gives the flow whose hash is `flow_hash`.
pub fn pick(flow_hash: u64, node: NodeId, count: usize) -> usize {
    (mix(flow_hash ^ u64::from(node)) % count as u64) as usize
}

/// splitmix64's finaliser: a fixed bijection of u64 that spreads every
/// input bit over all output bits.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(src_port: u16) -> FlowKey {
        FlowKey {
            src_ip: Ipv4Addr::new(10, 0, 0, 1),
            dst_ip: Ipv4Addr::new(10, 0, 0, 2),
            src_port,
            dst_port: 35_001,
        }
    }

    #[test]
    fn the_hash_depends_on_every_field_and_the_seed() {
        let k = key(50_000);
        let base = k.hash(1);
        assert_eq!(base, k.hash(1));
        assert_ne!(base, k.hash(2));
        assert_ne!(base, key(50_001).hash(1));
        assert_ne!(base, k.reversed().hash(1));
        let other_dst = FlowKey {
            dst_ip: Ipv4Addr::new(10, 0, 0, 3),
            ..k
        };
        assert_ne!(base, other_dst.hash(1));
        assert_eq!(k.reversed().reversed(), k);
    }

    #[test]
    fn mix_is_splitmix64s_finaliser() {
        // splitmix64 seeded with 0 yields 0xe220a8397b1dcdaf first: the
        // finaliser of 0 + the golden-ratio increment.
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn picks_spread_flows_and_differ_between_nodes() {
        let mut seen = [0u32; 4];
        let mut same = 0;
        for p in 0..4000 {
            let h = key(p).hash(7);
            seen[pick(h, 3, 4)] += 1;
            same += u32::from(pick(h, 3, 4) == pick(h, 4, 4));
        }
        // 1000 expected each, standard deviation about 27.
        assert!(seen.iter().all(|&c| (880..1120).contains(&c)), "{seen:?}");
        // Independent nodes agree a quarter of the time, not always.
        assert!((880..1120).contains(&same), "{same}");
    }
}
