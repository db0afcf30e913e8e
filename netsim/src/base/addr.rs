//! Link-layer and network-layer addresses of simulated nodes.

use std::fmt;

/// A 48-bit Ethernet MAC address (locally administered for simulated ports).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// The MAC of the port with global id `port`: 02:4e:pp:pp:pp:pp, unique
    /// for every port of networks of any size.
    pub fn for_port(port: u32) -> MacAddr {
        let p = port.to_be_bytes();
        MacAddr([0x02, 0x4e, p[0], p[1], p[2], p[3]])
    }
    /// Broadcast address, used when a learning switch floods.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);
}

impl fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            m[0], m[1], m[2], m[3], m[4], m[5]
        )
    }
}

/// The default address of the `index`-th host: 10.0.0.1, 10.0.0.2, … carrying
/// into the higher octets past 254 hosts.
pub fn default_host_ip(index: u32) -> std::net::Ipv4Addr {
    let v = 0x0a00_0000u32 + index + 1;
    std::net::Ipv4Addr::from(v)
}
