//! The socket between a rank and the gateway as both ends hold it: a Unix
//! or a TCP stream behind one type, read alike and written with
//! `MSG_NOSIGNAL` (a peer that went away is an EPIPE error, never a
//! SIGPIPE in the gateway or in the MPI program), and the protocol's TCP
//! options ([`crate::tcp_tuning`]) applied to a socket. The gateway holds
//! mio's non-blocking streams in it, the shim the standard library's
//! blocking ones.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

/// A connected stream that is either a Unix or a TCP socket.
#[derive(Debug)]
pub enum UnixOrTcp<U, T> {
    /// A Unix socket (a rank on the gateway's host).
    Unix(U),
    /// A TCP socket (a rank on any host).
    Tcp(T),
}

impl<U: AsRawFd, T: AsRawFd> UnixOrTcp<U, T> {
    /// The socket's descriptor.
    pub fn raw_fd(&self) -> RawFd {
        match self {
            UnixOrTcp::Unix(s) => s.as_raw_fd(),
            UnixOrTcp::Tcp(s) => s.as_raw_fd(),
        }
    }

    /// True for a TCP connection.
    pub fn is_tcp(&self) -> bool {
        matches!(self, UnixOrTcp::Tcp(_))
    }
}

impl<U: Read, T: Read> Read for UnixOrTcp<U, T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            UnixOrTcp::Unix(s) => s.read(buf),
            UnixOrTcp::Tcp(s) => s.read(buf),
        }
    }
}

impl<U: AsRawFd, T: AsRawFd> Write for UnixOrTcp<U, T> {
    /// send(2) with MSG_NOSIGNAL on either kind, retried when a signal
    /// interrupts it; a non-blocking socket that is full is `WouldBlock`.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        use nix::sys::socket::{send, MsgFlags};
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

/// Applies the protocol's TCP options to a socket: no Nagle delay for
/// small frames, keepalive and a user timeout so a vanished peer is
/// noticed, large buffers (set before connecting, they take part in window
/// scaling).
pub fn tune_tcp(s: socket2::SockRef<'_>) -> io::Result<()> {
    use crate::tcp_tuning::*;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    type Stream = UnixOrTcp<UnixStream, std::net::TcpStream>;

    #[test]
    fn both_kinds_read_and_write_alike_and_a_gone_peer_is_an_error() {
        let (a, b) = UnixStream::pair().unwrap();
        let (mut a, mut b): (Stream, Stream) = (UnixOrTcp::Unix(a), UnixOrTcp::Unix(b));
        assert!(!a.is_tcp());
        a.write_all(b"frame").unwrap();
        let mut got = [0u8; 5];
        b.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"frame");
        drop(b);
        // No SIGPIPE (this test would die of it): EPIPE.
        let e = a.write(b"more").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);

        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        tune_tcp(socket2::SockRef::from(&c)).unwrap();
        assert!(c.nodelay().unwrap());
        let (s, _) = l.accept().unwrap();
        let (mut c, mut s): (Stream, Stream) = (UnixOrTcp::Tcp(c), UnixOrTcp::Tcp(s));
        assert!(c.is_tcp());
        c.write_all(b"hello").unwrap();
        s.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hello");
    }
}
