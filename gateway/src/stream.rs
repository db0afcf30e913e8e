//! A rank's socket as the event loop sees it: a Unix or a TCP stream, read,
//! written and registered with epoll alike, so nothing else in the gateway
//! cares which one a rank used.

use mio::event::Source;
use mio::{Interest, Registry, Token};
use std::io::{self, Read, Write};

/// An accepted connection from a rank (or from anything that connected).
pub enum RankStream {
    /// A rank on this host.
    Unix(mio::net::UnixStream),
    /// A rank on any host.
    Tcp(mio::net::TcpStream),
}

impl RankStream {
    /// Who is at the other end, for log lines: `unix peer pid 123` or
    /// `tcp:10.0.0.2:40112`.
    pub fn peer(&self) -> String {
        match self {
            RankStream::Unix(_) => match self.peer_pid() {
                Some(pid) => format!("a local process (pid {pid})"),
                None => "a local process".into(),
            },
            RankStream::Tcp(s) => match s.peer_addr() {
                Ok(a) => format!("tcp:{a}"),
                Err(_) => "a TCP peer".into(),
            },
        }
    }

    /// Process id of a Unix peer, from the socket's credentials.
    pub fn peer_pid(&self) -> Option<u32> {
        use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
        match self {
            RankStream::Unix(s) => getsockopt(s, PeerCredentials).ok().map(|c| c.pid() as u32),
            RankStream::Tcp(_) => None,
        }
    }

    /// True for a TCP connection.
    pub fn is_tcp(&self) -> bool {
        matches!(self, RankStream::Tcp(_))
    }
}

impl Read for RankStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            RankStream::Unix(s) => s.read(buf),
            RankStream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for RankStream {
    /// Writes with MSG_NOSIGNAL semantics on both kinds: a peer that went
    /// away is an EPIPE error, never a SIGPIPE for the gateway.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        use nix::sys::socket::{send, MsgFlags};
        use std::os::fd::AsRawFd;
        let fd = match self {
            RankStream::Unix(s) => s.as_raw_fd(),
            RankStream::Tcp(s) => s.as_raw_fd(),
        };
        send(fd, buf, MsgFlags::MSG_NOSIGNAL | MsgFlags::MSG_DONTWAIT).map_err(io::Error::from)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Source for RankStream {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match self {
            RankStream::Unix(s) => s.register(r, t, i),
            RankStream::Tcp(s) => s.register(r, t, i),
        }
    }
    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match self {
            RankStream::Unix(s) => s.reregister(r, t, i),
            RankStream::Tcp(s) => s.reregister(r, t, i),
        }
    }
    fn deregister(&mut self, r: &Registry) -> io::Result<()> {
        match self {
            RankStream::Unix(s) => s.deregister(r),
            RankStream::Tcp(s) => s.deregister(r),
        }
    }
}

/// Applies the protocol's TCP options ([`mpinetsim_protocol::tcp_tuning`])
/// to a connected socket: no Nagle delay for small frames, keepalive and a
/// user timeout so a vanished peer is noticed, large buffers. Failures are
/// reported; the connection works without them.
pub fn tune_tcp(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<()> {
    use mpinetsim_protocol::tcp_tuning::*;
    use std::time::Duration;
    let s = socket2::SockRef::from(&fd);
    s.set_nodelay(true)?;
    let ka = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(KEEPALIVE_IDLE_S))
        .with_interval(Duration::from_secs(KEEPALIVE_INTERVAL_S))
        .with_retries(KEEPALIVE_PROBES);
    s.set_tcp_keepalive(&ka)?;
    s.set_tcp_user_timeout(Some(Duration::from_millis(USER_TIMEOUT_MS)))?;
    s.set_send_buffer_size(BUFFER_BYTES)?;
    s.set_recv_buffer_size(BUFFER_BYTES)?;
    Ok(())
}
