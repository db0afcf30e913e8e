//! A rank's socket as the event loop sees it: the protocol's Unix-or-TCP
//! stream ([`UnixOrTcp`], shared with the shim) over mio's non-blocking
//! sockets, registered with epoll alike, so nothing else in the gateway
//! cares which one a rank used.

use mio::event::Source;
use mio::{Interest, Registry, Token};
use mpinetsim_protocol::stream::UnixOrTcp;
use std::io::{self, Read, Write};

/// An accepted connection from a rank (or from anything that connected).
pub struct RankStream(pub UnixOrTcp<mio::net::UnixStream, mio::net::TcpStream>);

impl RankStream {
    /// Who is at the other end, for log lines: `a local process (pid
    /// 123)` or `tcp:10.0.0.2:40112`.
    pub fn peer(&self) -> String {
        match &self.0 {
            UnixOrTcp::Unix(_) => match self.peer_pid() {
                Some(pid) => format!("a local process (pid {pid})"),
                None => "a local process".into(),
            },
            UnixOrTcp::Tcp(s) => match s.peer_addr() {
                Ok(a) => format!("tcp:{a}"),
                Err(_) => "a TCP peer".into(),
            },
        }
    }

    /// Process id of a Unix peer, from the socket's credentials.
    pub fn peer_pid(&self) -> Option<u32> {
        use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
        match &self.0 {
            UnixOrTcp::Unix(s) => getsockopt(s, PeerCredentials).ok().map(|c| c.pid() as u32),
            UnixOrTcp::Tcp(_) => None,
        }
    }

    /// True for a TCP connection.
    pub fn is_tcp(&self) -> bool {
        self.0.is_tcp()
    }
}

impl Read for RankStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for RankStream {
    /// Writes with MSG_NOSIGNAL: a peer that went away is an EPIPE error,
    /// never a SIGPIPE for the gateway.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Source for RankStream {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match &mut self.0 {
            UnixOrTcp::Unix(s) => s.register(r, t, i),
            UnixOrTcp::Tcp(s) => s.register(r, t, i),
        }
    }
    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match &mut self.0 {
            UnixOrTcp::Unix(s) => s.reregister(r, t, i),
            UnixOrTcp::Tcp(s) => s.reregister(r, t, i),
        }
    }
    fn deregister(&mut self, r: &Registry) -> io::Result<()> {
        match &mut self.0 {
            UnixOrTcp::Unix(s) => s.deregister(r),
            UnixOrTcp::Tcp(s) => s.deregister(r),
        }
    }
}
