//! The gateway's listening sockets: `unix:PATH` (owner-only, mode 0600, in
//! a folder only this user can write) and `tcp:ADDR:PORT` (port 0 picks a
//! free one), each accepting connections as a [`RankStream`].

use crate::error::Error;
use crate::stream::RankStream;
use mio::event::Source;
use mio::{Interest, Registry, Token};
use mpinetsim_protocol::stream::{tune_tcp, UnixOrTcp};
use mpinetsim_protocol::GatewayAddress;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// One listening socket.
pub struct Listener {
    kind: Kind,
    /// The address as bound (a TCP port 0 replaced by the chosen port).
    pub address: GatewayAddress,
}

enum Kind {
    Unix(mio::net::UnixListener, BoundSocket),
    Tcp(mio::net::TcpListener),
}

/// The socket file this gateway created: removed at the end only while it
/// is still that file (same device and inode).
struct BoundSocket {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl Listener {
    /// Binds `addr`. A Unix socket's folder is created (0700) when missing
    /// and must be one only this user can write (see
    /// [`crate::trusted_folder`]); a socket an earlier gateway left there is
    /// replaced, any other file is refused; the socket is made readable and
    /// writable by its owner only.
    pub fn bind(addr: &GatewayAddress) -> Result<Listener, Error> {
        match addr {
            GatewayAddress::Unix(path) => {
                let given = Path::new(path);
                let name = given.file_name().ok_or_else(|| {
                    format!("--listen {addr}: the path names no socket file; give unix:FOLDER/NAME.sock")
                })?;
                let folder = match given.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                crate::trusted_folder::create_private_dir_all(folder)?;
                let folder = crate::trusted_folder::check_trusted(folder, "the socket folder")?;
                let path = folder.join(name);
                remove_stale_socket(&path, addr)?;
                let l = mio::net::UnixListener::bind(&path)
                    .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
                crate::private_dir::set_mode(&path, 0o600)?;
                let m = std::fs::symlink_metadata(&path)
                    .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
                Ok(Listener {
                    kind: Kind::Unix(
                        l,
                        BoundSocket {
                            path,
                            dev: m.dev(),
                            ino: m.ino(),
                        },
                    ),
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
            Kind::Unix(l, _) => l.accept().map(|(s, _)| RankStream(UnixOrTcp::Unix(s))),
            Kind::Tcp(l) => {
                let (s, peer) = l.accept()?;
                use std::os::fd::AsFd;
                if let Err(e) = tune_tcp(socket2::SockRef::from(&s.as_fd())) {
                    tracing::warn!("TCP options on the connection from {peer}: {e}");
                }
                Ok(RankStream(UnixOrTcp::Tcp(s)))
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

/// Makes room for a new socket at `path`: nothing there is fine; a socket
/// nobody listens on any more (an earlier gateway that was killed) is
/// removed; a live socket or any other kind of file is refused.
fn remove_stale_socket(path: &Path, addr: &GatewayAddress) -> Result<(), Error> {
    let m = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::Usage(format!("cannot listen on {addr}: {e}"))),
    };
    if !m.file_type().is_socket() {
        let kind = if m.is_dir() {
            "a folder"
        } else if m.file_type().is_symlink() {
            "a symbolic link"
        } else if m.is_file() {
            "a regular file"
        } else {
            "a special file"
        };
        return Err(Error::Usage(format!(
            "--listen {addr}: {} is {kind}, not a socket an earlier gateway left behind; mpinetsim removes only those, so choose another socket path",
            path.display()
        )));
    }
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(_) => Err(Error::Usage(format!(
            "--listen {addr}: a gateway is already listening on {}; stop it or choose another socket path",
            path.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => std::fs::remove_file(path)
            .map_err(|e| {
                Error::Usage(format!(
                    "--listen {addr}: cannot remove the stale socket {}: {e}",
                    path.display()
                ))
            }),
        Err(e) => Err(Error::Usage(format!(
            "--listen {addr}: cannot tell whether a gateway still listens on {} ({e}); remove it yourself or choose another socket path",
            path.display()
        ))),
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Kind::Unix(_, s) = &self.kind {
            let still_ours = std::fs::symlink_metadata(&s.path)
                .is_ok_and(|m| m.dev() == s.dev && m.ino() == s.ino);
            if still_ours {
                let _ = std::fs::remove_file(&s.path);
            }
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
        // A socket left behind by a killed gateway is replaced.
        let stale = std::os::unix::net::UnixListener::bind(&path).unwrap();
        drop(stale);
        let l = Listener::bind(&GatewayAddress::Unix(path.display().to_string())).unwrap();
        drop(l);
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

    #[test]
    fn a_file_or_a_live_socket_at_the_path_is_never_removed() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("gw.sock");
        let addr = GatewayAddress::Unix(path.display().to_string());
        std::fs::write(&path, b"precious").unwrap();
        let e = Listener::bind(&addr).err().unwrap();
        assert_eq!(e.exit_code(), crate::exit_code::USAGE, "{e}");
        let e = e.to_string();
        assert!(
            e.contains("is a regular file, not a socket an earlier gateway left behind"),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"precious");
        std::fs::remove_file(&path).unwrap();
        let live = Listener::bind(&addr).unwrap();
        let e = Listener::bind(&addr).err().unwrap().to_string();
        assert!(e.contains("a gateway is already listening on"), "{e}");
        // The refused second gateway did not remove the first one's socket.
        assert!(path.exists());
        // A file put in place of the socket is not removed at the end.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"someone else's").unwrap();
        drop(live);
        assert_eq!(std::fs::read(&path).unwrap(), b"someone else's");
    }
}
