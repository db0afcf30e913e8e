//! A doorbell: an eventfd one side rings (adds one) to wake the other
//! from poll or epoll. Non-blocking both ways, so ringing never waits.

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::eventfd::{EfdFlags, EventFd};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

/// One eventfd used as a wake-up signal.
#[derive(Debug)]
pub struct Doorbell(OwnedFd);

impl Doorbell {
    /// A new doorbell (close-on-exec, non-blocking).
    pub fn new() -> std::io::Result<Doorbell> {
        let fd = EventFd::from_value_and_flags(0, EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)?;
        Ok(Doorbell(fd.into()))
    }

    /// A doorbell the peer passed: refused unless it is an eventfd; made
    /// non-blocking (a peer's blocking descriptor must not stall us).
    pub fn adopt(fd: OwnedFd) -> Result<Doorbell, String> {
        let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
            .map_err(|e| format!("cannot inspect an offered doorbell ({e})"))?;
        if link.to_string_lossy() != "anon_inode:[eventfd]" {
            return Err(format!(
                "an offered doorbell is {} instead of an eventfd",
                link.display()
            ));
        }
        let flags = fcntl(fd.as_raw_fd(), FcntlArg::F_GETFL)
            .map_err(|e| format!("cannot read an offered doorbell's flags ({e})"))?;
        let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
        fcntl(fd.as_raw_fd(), FcntlArg::F_SETFL(flags))
            .map_err(|e| format!("cannot make an offered doorbell non-blocking ({e})"))?;
        Ok(Doorbell(fd))
    }

    /// Wakes whoever waits on it (a full counter — never in practice —
    /// still leaves it readable, so the wake-up is not lost).
    pub fn ring(&self) {
        let _ = nix::unistd::write(&self.0, &1u64.to_ne_bytes());
    }

    /// Resets it to not readable (before a waiter's last look).
    pub fn drain(&self) {
        let mut b = [0u8; 8];
        let _ = nix::unistd::read(self.0.as_raw_fd(), &mut b);
    }

    /// A second descriptor of the same eventfd (to pass to the peer).
    pub fn try_clone(&self) -> std::io::Result<OwnedFd> {
        self.0.try_clone()
    }
}

impl AsFd for Doorbell {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rung_bell_is_readable_until_drained_and_only_eventfds_are_adopted() {
        let b = Doorbell::new().unwrap();
        let readable = |b: &Doorbell| {
            let mut p = [nix::poll::PollFd::new(
                b.as_fd(),
                nix::poll::PollFlags::POLLIN,
            )];
            nix::poll::poll(&mut p, nix::poll::PollTimeout::ZERO).unwrap() == 1
        };
        assert!(!readable(&b));
        b.ring();
        b.ring();
        assert!(readable(&b));
        b.drain();
        assert!(!readable(&b));
        let other = Doorbell::adopt(b.try_clone().unwrap()).unwrap();
        other.ring();
        assert!(readable(&b));
        let (r, _w) = nix::unistd::pipe().unwrap();
        assert!(Doorbell::adopt(r)
            .unwrap_err()
            .contains("instead of an eventfd"));
    }
}
