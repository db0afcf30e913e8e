//! The rank's socket to the gateway: the protocol's Unix-or-TCP stream
//! ([`UnixOrTcp`], shared with the gateway: writes never raise SIGPIPE in
//! the program, the protocol's TCP options) over blocking sockets, with how
//! the shim connects, waits and peeks.

use mpinetsim_protocol::stream::{tune_tcp, UnixOrTcp};
use mpinetsim_protocol::{tcp_tuning, GatewayAddress};
use nix::sys::socket::{recv, MsgFlags};
use std::io::{self, Read, Write};
use std::os::fd::RawFd;
use std::time::Duration;

/// A connected socket to the gateway.
pub struct GatewayStream(UnixOrTcp<std::os::unix::net::UnixStream, std::net::TcpStream>);

impl GatewayStream {
    /// Connects to `addr`; a TCP address is tried on each address its host
    /// resolves to, within the protocol's connect timeout. The error is the
    /// system's reason.
    pub fn connect(addr: &GatewayAddress) -> io::Result<GatewayStream> {
        match addr {
            GatewayAddress::Unix(path) => std::os::unix::net::UnixStream::connect(path)
                .map(|s| GatewayStream(UnixOrTcp::Unix(s))),
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
                    tune_tcp(socket2::SockRef::from(&s))?;
                    match s.connect_timeout(&sa.into(), timeout) {
                        Ok(()) => return Ok(GatewayStream(UnixOrTcp::Tcp(s.into()))),
                        Err(e) => last = e,
                    }
                }
                Err(last)
            }
        }
    }

    /// The descriptor (to wait on it with poll).
    pub fn raw_fd(&self) -> RawFd {
        self.0.raw_fd()
    }

    /// A second descriptor of the same socket, for a thread that waits on
    /// it while another owns this one.
    pub fn try_clone_fd(&self) -> io::Result<std::os::fd::OwnedFd> {
        match &self.0 {
            UnixOrTcp::Unix(s) => s.try_clone().map(Into::into),
            UnixOrTcp::Tcp(s) => s.try_clone().map(Into::into),
        }
    }

    /// Bounds blocking reads (during the handshake) or lifts the bound.
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match &self.0 {
            UnixOrTcp::Unix(s) => s.set_read_timeout(t),
            UnixOrTcp::Tcp(s) => s.set_read_timeout(t),
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

impl Read for GatewayStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for GatewayStream {
    /// send(2) with MSG_NOSIGNAL: a gateway that went away is an EPIPE
    /// error the shim reports, not a SIGPIPE that kills the program
    /// silently.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
