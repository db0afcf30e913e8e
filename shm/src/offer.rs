//! Passing a channel's descriptors over the Unix socket (SCM_RIGHTS): the
//! rank sends [`OFFER_MAGIC`] with its memfd and both doorbells as its
//! very first bytes; the gateway, reading a Unix connection's first bytes
//! with [`recv_with_fds`], finds either that offer or the Hello of a rank
//! using the socket.

use crate::channel::Offer;
use nix::sys::socket::{recvmsg, sendmsg, ControlMessage, ControlMessageOwned, MsgFlags};
use std::io::{IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// The bytes that carry an offer. Its first four bytes, read as a frame
/// length, exceed any frame, so a gateway that did not expect an offer
/// refuses the connection instead of misreading it.
pub const OFFER_MAGIC: [u8; 8] = *b"\xffSHMOFR1";

/// Sends `offer` on the connected Unix socket `sock`.
pub fn send_offer(sock: RawFd, offer: &Offer) -> std::io::Result<()> {
    let fds = [
        offer.memfd.as_raw_fd(),
        offer.rank_bell.as_raw_fd(),
        offer.gateway_bell.as_raw_fd(),
    ];
    let iov = [IoSlice::new(&OFFER_MAGIC)];
    let cmsg = [ControlMessage::ScmRights(&fds)];
    loop {
        match sendmsg::<()>(sock, &iov, &cmsg, MsgFlags::MSG_NOSIGNAL, None) {
            Ok(n) if n == OFFER_MAGIC.len() => return Ok(()),
            Ok(_) => return Err(std::io::Error::other("the offer was sent in part")),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Reads from the non-blocking Unix socket `sock` into `buf`, with any
/// descriptors passed alongside (close-on-exec). `Ok((0, _))` is the end
/// of the stream; `WouldBlock` when nothing waits.
pub fn recv_with_fds(sock: RawFd, buf: &mut [u8]) -> std::io::Result<(usize, Vec<OwnedFd>)> {
    let mut space = nix::cmsg_space!([RawFd; 8]);
    let mut iov = [IoSliceMut::new(buf)];
    let msg = loop {
        match recvmsg::<()>(
            sock,
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC | MsgFlags::MSG_DONTWAIT,
        ) {
            Ok(m) => break m,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    };
    let mut fds = Vec::new();
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            if let ControlMessageOwned::ScmRights(v) = c {
                fds.extend(v.into_iter().map(owned));
            }
        }
    }
    Ok((msg.bytes, fds))
}

/// Takes ownership of a descriptor the kernel handed over with a message.
fn owned(fd: RawFd) -> OwnedFd {
    crate::mapping::adopt_received_fd(fd)
}

/// The offer in a first read: `Some` when `bytes` are the offer's magic
/// and three descriptors came with them; `None` when neither bytes nor
/// descriptors look like one (a plain Hello); an error sentence for
/// anything between.
pub fn parse_offer(bytes: &[u8], fds: Vec<OwnedFd>) -> Result<Option<Offer>, String> {
    if fds.is_empty() && !bytes.starts_with(&OFFER_MAGIC[..1]) {
        return Ok(None);
    }
    if bytes != OFFER_MAGIC {
        return Err("its first bytes are neither a Hello nor a shared-memory offer".into());
    }
    let mut it = fds.into_iter();
    match (it.next(), it.next(), it.next(), it.next()) {
        (Some(memfd), Some(rank_bell), Some(gateway_bell), None) => Ok(Some(Offer {
            memfd,
            rank_bell,
            gateway_bell,
        })),
        _ => Err("its shared-memory offer does not carry exactly three descriptors".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::Channel;
    use std::os::unix::net::UnixStream;

    #[test]
    fn an_offer_crosses_the_socket_and_the_channel_it_names_works() {
        let (a, b) = UnixStream::pair().unwrap();
        let (mut rank, offer) = Channel::create(4096).unwrap();
        send_offer(a.as_raw_fd(), &offer).unwrap();
        drop(offer);
        let mut buf = [0u8; 64];
        let (n, fds) = recv_with_fds(b.as_raw_fd(), &mut buf).unwrap();
        let offer = parse_offer(&buf[..n], fds).unwrap().expect("an offer");
        let mut gw = Channel::accept(offer).unwrap();
        rank.try_write(b"hi").unwrap();
        assert_eq!(gw.try_read(&mut buf).unwrap(), 2);
        // A plain first frame is no offer.
        assert!(parse_offer(&[20, 0, 0, 0, 1], Vec::new())
            .unwrap()
            .is_none());
        assert!(parse_offer(&OFFER_MAGIC, Vec::new()).is_err());
    }
}
