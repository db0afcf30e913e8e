//! The rank's connection to the gateway: the protocol's Unix-or-TCP stream
//! ([`UnixOrTcp`], shared with the gateway: writes never raise SIGPIPE in
//! the program, the protocol's TCP options) over blocking sockets, or —
//! for a rank on the gateway's host that chose `shm` — shared-memory
//! rings ([`Channel`]) whose descriptors went over the Unix socket first.
//! Either way it reads and writes the same frames, with how the shim
//! connects, waits and peeks.

use mpinetsim_protocol::stream::{tune_tcp, UnixOrTcp};
use mpinetsim_protocol::transport::TransportKind;
use mpinetsim_protocol::{tcp_tuning, GatewayAddress};
use mpinetsim_shm::{Channel, Waiter};
use nix::sys::socket::{recv, MsgFlags};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// How often a rank that only peeks (MPI_Test loops) on shared memory
/// looks at the socket for a gateway that died.
const HANGUP_CHECK_EVERY: Duration = Duration::from_millis(10);

/// Longest single sleep of a blocking write waiting for room.
const WRITE_WAIT: Duration = Duration::from_millis(100);

/// A connection to the gateway.
pub struct GatewayStream {
    socket: UnixOrTcp<std::os::unix::net::UnixStream, std::net::TcpStream>,
    /// The rings, when the frames go through shared memory.
    shm: Option<Channel>,
    /// Bound of a blocking read (None: wait as long as it takes).
    read_timeout: Option<Duration>,
    /// When an empty non-blocking read last looked at the socket.
    hangup_checked: Instant,
}

/// What another thread sleeps on until the gateway has sent something.
pub enum GatewayWaiter {
    /// A second descriptor of the socket.
    Socket(OwnedFd),
    /// The rings' waiter and a second descriptor of the socket (its end
    /// says the gateway is gone).
    Shm(Waiter, OwnedFd),
}

impl GatewayWaiter {
    /// Sleeps until something arrived, the gateway is gone, or `timeout`
    /// passed.
    pub fn wait(&self, timeout: Duration) {
        use nix::poll::{ppoll, PollFd, PollFlags};
        use nix::sys::time::TimeSpec;
        match self {
            GatewayWaiter::Socket(fd) => {
                let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
                let _ = ppoll(&mut fds, Some(TimeSpec::from_duration(timeout)), None);
            }
            GatewayWaiter::Shm(w, fd) => {
                w.wait(fd.as_fd(), timeout);
            }
        }
    }
}

impl GatewayStream {
    /// Where the rank publishes its horizon (shared memory only).
    pub fn horizon_handle(&self) -> Option<mpinetsim_shm::HorizonHandle> {
        self.shm.as_ref().map(Channel::horizon_handle)
    }

    /// Connects to `addr`; a TCP address is tried on each address its host
    /// resolves to, within the protocol's connect timeout. With `shm` and
    /// a Unix address the rings are created and offered to the gateway
    /// before anything else (the socket serves when they cannot be
    /// created). The error is the system's reason.
    pub fn connect(addr: &GatewayAddress, kind: TransportKind) -> io::Result<GatewayStream> {
        let socket = match addr {
            GatewayAddress::Unix(path) => {
                UnixOrTcp::Unix(std::os::unix::net::UnixStream::connect(path)?)
            }
            GatewayAddress::Tcp { host, port } => {
                use std::net::ToSocketAddrs;
                let timeout = Duration::from_millis(tcp_tuning::CONNECT_TIMEOUT_MS);
                let mut last = io::Error::new(io::ErrorKind::NotFound, "the host has no address");
                let mut connected = None;
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
                        Ok(()) => {
                            connected = Some(s);
                            break;
                        }
                        Err(e) => last = e,
                    }
                }
                UnixOrTcp::Tcp(connected.ok_or(last)?.into())
            }
        };
        let mut stream = GatewayStream {
            socket,
            shm: None,
            read_timeout: None,
            hangup_checked: Instant::now(),
        };
        if kind == TransportKind::Shm && !stream.socket.is_tcp() {
            // shm is the default: where this process cannot make the rings
            // (no memfd, no eventfd), nothing has been sent yet and the
            // socket serves, as the gateway accepts either on a connection.
            match Channel::create(mpinetsim_shm::DEFAULT_CAPACITY_BYTES) {
                Ok((channel, offer)) => {
                    mpinetsim_shm::offer::send_offer(stream.raw_fd(), &offer)?;
                    stream.shm = Some(channel);
                }
                Err(e) => eprintln!(
                    "mpinetsim: this rank cannot create its shared-memory rings ({e}); \
                     it uses the socket to the gateway (--transport socket says so up front)"
                ),
            }
        }
        Ok(stream)
    }

    /// The socket's descriptor (to wait on it with poll; with shared
    /// memory it only becomes readable when the gateway is gone).
    pub fn raw_fd(&self) -> RawFd {
        self.socket.raw_fd()
    }

    fn socket_clone(&self) -> io::Result<OwnedFd> {
        match &self.socket {
            UnixOrTcp::Unix(s) => s.try_clone().map(Into::into),
            UnixOrTcp::Tcp(s) => s.try_clone().map(Into::into),
        }
    }

    /// What a thread waits on while another owns this stream.
    pub fn waiter(&self) -> io::Result<GatewayWaiter> {
        let fd = self.socket_clone()?;
        Ok(match &self.shm {
            Some(c) => GatewayWaiter::Shm(c.waiter(), fd),
            None => GatewayWaiter::Socket(fd),
        })
    }

    /// Bounds blocking reads (during the handshake) or lifts the bound.
    pub fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        self.read_timeout = t;
        match &self.socket {
            UnixOrTcp::Unix(s) => s.set_read_timeout(t),
            UnixOrTcp::Tcp(s) => s.set_read_timeout(t),
        }
    }

    /// Reads what has arrived without waiting: Ok(None) when nothing has,
    /// Ok(Some(0)) when the gateway is gone.
    pub fn read_nonblocking(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        if let Some(c) = self.shm.as_mut() {
            match c.try_read(buf) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            // Nothing yet: a rank that polls (an MPI_Test loop) looks at
            // its ring without a system call, and two of them kept both
            // cores of this project's machines from the gateway, woken by
            // their frames, until the next scheduler tick — about 1.3 ms
            // per message (a ping-pong polled with MPI_Test on a 1 µs
            // network took 83 µs one way at factor 16 against 1.9 µs
            // through the socket, whose read is a system call). Offer the
            // core, as the socket's read does.
            std::thread::yield_now();
            if self.hangup_checked.elapsed() < HANGUP_CHECK_EVERY {
                return Ok(None);
            }
            self.hangup_checked = Instant::now();
            return hung_up(socket_fd(&self.socket)).map(|gone| gone.then_some(0));
        }
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
    /// Waits for bytes (at most the read timeout: then `WouldBlock`);
    /// `Ok(0)` when the gateway is gone.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(c) = self.shm.as_mut() else {
            return self.socket.read(buf);
        };
        let hangup = socket_fd(&self.socket);
        let deadline = self.read_timeout.map(|t| Instant::now() + t);
        loop {
            match c.try_read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            let left = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            if !c.wait_readable(hangup, left) {
                if hung_up(hangup)? {
                    // What the gateway wrote before it went is read first.
                    return c.try_read(buf).or(Ok(0));
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
            }
        }
    }
}

impl Write for GatewayStream {
    /// send(2) with MSG_NOSIGNAL, or into the ring (waiting for room when
    /// it is full): a gateway that went away is an EPIPE error the shim
    /// reports, not a SIGPIPE that kills the program silently.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(c) = self.shm.as_mut() else {
            return self.socket.write(buf);
        };
        let hangup = socket_fd(&self.socket);
        loop {
            match c.try_write(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            if !c.wait_writable(hangup, WRITE_WAIT) && hung_up(hangup)? {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The socket's descriptor, borrowed.
fn socket_fd(s: &UnixOrTcp<std::os::unix::net::UnixStream, std::net::TcpStream>) -> BorrowedFd<'_> {
    match s {
        UnixOrTcp::Unix(s) => s.as_fd(),
        UnixOrTcp::Tcp(s) => s.as_fd(),
    }
}

/// With shared memory: whether the socket says the gateway is gone (its
/// end of stream; any byte on it breaks the protocol).
fn hung_up(fd: BorrowedFd<'_>) -> io::Result<bool> {
    let mut b = [0u8; 1];
    loop {
        return match recv(fd.as_raw_fd(), &mut b, MsgFlags::MSG_DONTWAIT) {
            Ok(0) => Ok(true),
            Ok(_) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the gateway wrote on the socket of a shared-memory connection",
            )),
            Err(nix::errno::Errno::EAGAIN) => Ok(false),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => Err(e.into()),
        };
    }
}
