//! The gateway's listening sockets: `unix:PATH` (owner-only, mode 0600) and
//! `tcp:ADDR:PORT` (port 0 picks a free one), each accepting connections as
//! a [`RankStream`].

use crate::stream::{tune_tcp, RankStream};
use mio::event::Source;
use mio::{Interest, Registry, Token};
use mpinetsim_protocol::GatewayAddress;
use std::io;

/// One listening socket.
pub struct Listener {
    kind: Kind,
    /// The address as bound (a TCP port 0 replaced by the chosen port).
    pub address: GatewayAddress,
}

enum Kind {
    Unix(mio::net::UnixListener, std::path::PathBuf),
    Tcp(mio::net::TcpListener),
}

impl Listener {
    /// Binds `addr`. A Unix socket replaces a stale file at the path and is
    /// made readable and writable by its owner only.
    pub fn bind(addr: &GatewayAddress) -> Result<Listener, String> {
        match addr {
            GatewayAddress::Unix(path) => {
                let path = std::path::PathBuf::from(path);
                let _ = std::fs::remove_file(&path);
                let l = mio::net::UnixListener::bind(&path)
                    .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
                crate::private_dir::set_mode(&path, 0o600)?;
                Ok(Listener {
                    kind: Kind::Unix(l, path),
                    address: addr.clone(),
                })
            }
            GatewayAddress::Tcp { host, port } => {
                use std::net::ToSocketAddrs;
                let target = GatewayAddress::host_port(host, *port);
                let sa = target
                    .to_socket_addrs()
                    .map_err(|e| format!("cannot listen on {addr}: {e}"))?
                    .next()
                    .ok_or_else(|| format!("cannot listen on {addr}: the host has no address"))?;
                let sock = socket2::Socket::new(
                    socket2::Domain::for_address(sa),
                    socket2::Type::STREAM,
                    Some(socket2::Protocol::TCP),
                )
                .map_err(|e| format!("cannot create a TCP socket for {addr}: {e}"))?;
                let _ = sock.set_reuse_address(true);
                sock.bind(&sa.into())
                    .and_then(|_| sock.listen(1024))
                    .and_then(|_| sock.set_nonblocking(true))
                    .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
                let std_l: std::net::TcpListener = sock.into();
                let bound = std_l
                    .local_addr()
                    .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
                Ok(Listener {
                    kind: Kind::Tcp(mio::net::TcpListener::from_std(std_l)),
                    address: GatewayAddress::Tcp {
                        host: host.clone(),
                        port: bound.port(),
                    },
                })
            }
        }
    }

    /// Takes one pending connection (TCP ones get the protocol's socket
    /// options); `WouldBlock` when none is waiting.
    pub fn accept(&self) -> io::Result<RankStream> {
        match &self.kind {
            Kind::Unix(l, _) => l.accept().map(|(s, _)| RankStream::Unix(s)),
            Kind::Tcp(l) => {
                let (s, peer) = l.accept()?;
                use std::os::fd::AsFd;
                if let Err(e) = tune_tcp(s.as_fd()) {
                    eprintln!("mpinetsim: TCP options on the connection from {peer}: {e}");
                }
                Ok(RankStream::Tcp(s))
            }
        }
    }

    /// The address ranks should use: a wildcard host (0.0.0.0, ::) is
    /// replaced by this machine's host name.
    pub fn advertised(&self) -> GatewayAddress {
        match &self.address {
            GatewayAddress::Tcp { host, port } if host == "0.0.0.0" || host == "::" => {
                let name = nix::unistd::gethostname()
                    .ok()
                    .and_then(|h| h.into_string().ok())
                    .unwrap_or_else(|| "localhost".into());
                GatewayAddress::Tcp {
                    host: name,
                    port: *port,
                }
            }
            a => a.clone(),
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Kind::Unix(_, path) = &self.kind {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Source for Listener {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match &mut self.kind {
            Kind::Unix(l, _) => l.register(r, t, i),
            Kind::Tcp(l) => l.register(r, t, i),
        }
    }
    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match &mut self.kind {
            Kind::Unix(l, _) => l.reregister(r, t, i),
            Kind::Tcp(l) => l.reregister(r, t, i),
        }
    }
    fn deregister(&mut self, r: &Registry) -> io::Result<()> {
        match &mut self.kind {
            Kind::Unix(l, _) => l.deregister(r),
            Kind::Tcp(l) => l.deregister(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_unix_socket_is_owner_only_and_port_zero_is_resolved() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("gw.sock");
        let l = Listener::bind(&GatewayAddress::Unix(path.display().to_string())).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(l);
        assert!(!path.exists());
        let t = Listener::bind(&GatewayAddress::parse("tcp:127.0.0.1:0").unwrap()).unwrap();
        match &t.address {
            GatewayAddress::Tcp { host, port } => {
                assert_eq!(host, "127.0.0.1");
                assert_ne!(*port, 0);
                std::net::TcpStream::connect(("127.0.0.1", *port)).unwrap();
            }
            a => panic!("{a}"),
        }
    }
}
