//! The rank's socket to the gateway, Unix or TCP, behind one type: blocking
//! reads and writes (writes never raise SIGPIPE in the program), a
//! non-blocking peek for what has arrived, and the protocol's TCP options.

use mpinetsim_protocol::{tcp_tuning, GatewayAddress};
use nix::sys::socket::{recv, send, MsgFlags};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

/// A connected socket to the gateway.
pub enum GatewayStream {
    /// `unix:PATH`.
    Unix(std::os::unix::net::UnixStream),
    /// `tcp:HOST:PORT`.
    Tcp(std::net::TcpStream),
}

impl GatewayStream {
    /// Connects to `addr`; a TCP address is tried on each address its host
    /// resolves to, within the protocol's connect timeout. The error is the
    /// system's reason.
    pub fn connect(addr: &GatewayAddress) -> io::Result<GatewayStream> {
        match addr {
            GatewayAddress::Unix(path) => {
                std::os::unix::net::UnixStream::connect(path).map(GatewayStream::Unix)
            }
            GatewayAddress::Tcp { host, port } => {
                use std::net::ToSocketAddrs;
                let timeout = Duration::from_millis(tcp_tuning::CONNECT_TIMEOUT_MS);
                let mut last = io::Error::new(io::ErrorKind::NotFound, "the host has no address");
                for sa in GatewayAddress::host_port(host, *port).to_socket_addrs()? {
                    let s = socket2::Socket::new(
                        socket2::Domain::for_address(sa),
                        socket2::Type::STREAM,
                        Some(socket2::Protocol::TCP),
                    )?;
                    // Buffer sizes must be set before the handshake to
                    // take part in window scaling.
                    tune(&s)?;
                    match s.connect_timeout(&sa.into(), timeout) {
                        Ok(()) => return Ok(GatewayStream::Tcp(s.into())),
                        Err(e) => last = e,
                    }
                }
                Err(last)
            }
        }
    }

    /// The descriptor (to wait on it with poll).
    pub fn raw_fd(&self) -> RawFd {
        match self {
            GatewayStream::Unix(s) => s.as_raw_fd(),
            GatewayStream::Tcp(s) => s.as_raw_fd(),
        }
    }

    /// A second descriptor of the same socket, for a thread that waits on
    /// it while another owns this one.
    pub fn try_clone_fd(&self) -> io::Result<std::os::fd::OwnedFd> {
        match self {
            GatewayStream::Unix(s) => s.try_clone().map(Into::into),
            GatewayStream::Tcp(s) => s.try_clone().map(Into::into),
        }
    }

    /// Bounds blocking reads (during the handshake) or lifts the bound.
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            GatewayStream::Unix(s) => s.set_read_timeout(t),
            GatewayStream::Tcp(s) => s.set_read_timeout(t),
        }
    }

    /// Reads what has arrived without waiting: Ok(None) when nothing has.
    pub fn read_nonblocking(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            match recv(self.raw_fd(), buf, MsgFlags::MSG_DONTWAIT) {
                Ok(n) => return Ok(Some(n)),
                Err(nix::errno::Errno::EAGAIN) => return Ok(None),
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// TCP_NODELAY, keepalive, user timeout and buffer sizes of the protocol.
fn tune(s: &socket2::Socket) -> io::Result<()> {
    use tcp_tuning::*;
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

impl Read for GatewayStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            GatewayStream::Unix(s) => s.read(buf),
            GatewayStream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for GatewayStream {
    /// send(2) with MSG_NOSIGNAL: a gateway that went away is an EPIPE
    /// error the shim reports, not a SIGPIPE that kills the program
    /// silently.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match send(self.raw_fd(), buf, MsgFlags::MSG_NOSIGNAL) {
                Ok(n) => return Ok(n),
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
