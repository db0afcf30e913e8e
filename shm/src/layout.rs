//! The shared file of one rank's channel: a header page (magic, version,
//! ring capacity, closed flags, the rank's horizon, the two rings' control
//! blocks), then the
//! data area of the ring from the rank to the gateway, then that of the
//! ring from the gateway to the rank. The rank creates it as a sealed
//! memfd (it cannot grow or shrink, so a mapping of it never faults);
//! the gateway checks all of that before mapping it.

use crate::mapping::SharedMapping;
use crate::ring::{Ring, CONTROL_BYTES};
use nix::fcntl::{fcntl, FcntlArg, SealFlag};
use nix::sys::memfd::{memfd_create, MemFdCreateFlag};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering;

/// "MNSIMSHM" as a little-endian u64: the first word of the file.
const MAGIC: u64 = u64::from_le_bytes(*b"MNSIMSHM");
/// The layout's version (the first word after the magic).
pub const LAYOUT_VERSION: u32 = 2;
/// Bytes of the header page.
pub const HEADER_BYTES: usize = 4096;
const VERSION_AT: usize = 8;
const CAPACITY_AT: usize = 12;
const CLOSED_AT: usize = 16;
/// The rank's horizon word and its count of deliveries read (see
/// [`crate::horizon`]), on a cache line of their own; the gateway's
/// holding flag on the next.
const HORIZON_AT: usize = 64;
const READS_AT: usize = 72;
const HOLDING_AT: usize = 128;
const FIRST_CONTROL_AT: usize = 256;

/// Smallest ring capacity a file may announce, bytes.
pub const MIN_CAPACITY_BYTES: usize = 4096;
/// Largest ring capacity a file may announce, bytes.
pub const MAX_CAPACITY_BYTES: usize = 64 << 20;

/// Which way a ring carries bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the rank's shim to the gateway.
    ToGateway,
    /// From the gateway to the rank's shim.
    ToRank,
}

/// One end of a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The rank's shim (created the file).
    Rank,
    /// The gateway.
    Gateway,
}

impl Side {
    /// The ring this side writes.
    pub fn sends_on(self) -> Direction {
        match self {
            Side::Rank => Direction::ToGateway,
            Side::Gateway => Direction::ToRank,
        }
    }

    /// The ring this side reads.
    pub fn receives_on(self) -> Direction {
        match self {
            Side::Rank => Direction::ToRank,
            Side::Gateway => Direction::ToGateway,
        }
    }

    fn closed_bit(self) -> u32 {
        match self {
            Side::Rank => 1,
            Side::Gateway => 2,
        }
    }

    /// The other end.
    pub fn peer(self) -> Side {
        match self {
            Side::Rank => Side::Gateway,
            Side::Gateway => Side::Rank,
        }
    }
}

/// The file's length for rings of `capacity_bytes`.
pub fn file_bytes(capacity_bytes: usize) -> usize {
    HEADER_BYTES + 2 * capacity_bytes
}

/// Where ring `d` lives for rings of `capacity_bytes`.
pub fn ring(d: Direction, capacity_bytes: usize) -> Ring {
    let i = match d {
        Direction::ToGateway => 0,
        Direction::ToRank => 1,
    };
    Ring {
        control: FIRST_CONTROL_AT + i * CONTROL_BYTES.next_multiple_of(64),
        data: HEADER_BYTES + i * capacity_bytes,
        capacity_bytes,
    }
}

/// A memfd of `len_bytes` (zeroed), close-on-exec, sealed against
/// growing and shrinking.
pub fn create_memfd(len_bytes: usize) -> std::io::Result<OwnedFd> {
    let fd = memfd_create(
        c"mpinetsim-shm",
        MemFdCreateFlag::MFD_CLOEXEC | MemFdCreateFlag::MFD_ALLOW_SEALING,
    )?;
    nix::unistd::ftruncate(&fd, len_bytes as i64)?;
    fcntl(
        std::os::fd::AsRawFd::as_raw_fd(&fd),
        FcntlArg::F_ADD_SEALS(
            SealFlag::F_SEAL_SHRINK | SealFlag::F_SEAL_GROW | SealFlag::F_SEAL_SEAL,
        ),
    )?;
    Ok(fd)
}

/// Creates the file of a channel with rings of `capacity_bytes` (a power
/// of two within the limits) and maps it.
pub fn create(capacity_bytes: usize) -> std::io::Result<(OwnedFd, SharedMapping)> {
    if !capacity_bytes.is_power_of_two()
        || !(MIN_CAPACITY_BYTES..=MAX_CAPACITY_BYTES).contains(&capacity_bytes)
    {
        return Err(std::io::Error::other(format!(
            "a ring capacity of {capacity_bytes} bytes is not a power of two between {MIN_CAPACITY_BYTES} and {MAX_CAPACITY_BYTES}"
        )));
    }
    let len = file_bytes(capacity_bytes);
    let fd = create_memfd(len)?;
    let m = SharedMapping::map(&fd, len)?;
    m.atomic_u32(VERSION_AT)
        .store(LAYOUT_VERSION, Ordering::Relaxed);
    m.atomic_u32(CAPACITY_AT)
        .store(capacity_bytes as u32, Ordering::Relaxed);
    m.atomic_u64(0).store(MAGIC, Ordering::Release);
    Ok((fd, m))
}

/// Maps a file the peer created after checking it: a memfd sealed against
/// shrinking, with this layout's magic and version and a length that
/// matches its ring capacity. Returns the mapping and the capacity; the
/// error is one sentence.
pub fn open(fd: impl AsFd) -> Result<(SharedMapping, usize), String> {
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fd.as_fd());
    let seals = fcntl(raw, FcntlArg::F_GET_SEALS)
        .map_err(|e| format!("the offered file is not a sealable memfd ({e})"))?;
    if !SealFlag::from_bits_truncate(seals).contains(SealFlag::F_SEAL_SHRINK) {
        return Err("the offered memfd is not sealed against shrinking".into());
    }
    let len = nix::sys::stat::fstat(raw)
        .map_err(|e| format!("cannot read the offered memfd's length ({e})"))?
        .st_size;
    let len = usize::try_from(len).unwrap_or(0);
    if len < HEADER_BYTES + 2 * MIN_CAPACITY_BYTES || len > file_bytes(MAX_CAPACITY_BYTES) {
        return Err(format!(
            "the offered memfd's length ({len} bytes) fits no channel"
        ));
    }
    let m =
        SharedMapping::map(fd, len).map_err(|e| format!("cannot map the offered memfd ({e})"))?;
    if m.atomic_u64(0).load(Ordering::Acquire) != MAGIC
        || m.atomic_u32(VERSION_AT).load(Ordering::Relaxed) != LAYOUT_VERSION
    {
        return Err("the offered memfd is not a channel of this mpinetsim version".into());
    }
    let capacity = m.atomic_u32(CAPACITY_AT).load(Ordering::Relaxed) as usize;
    if !capacity.is_power_of_two() || file_bytes(capacity) != len {
        return Err(format!(
            "the offered memfd announces rings of {capacity} bytes, which do not fit its {len} bytes"
        ));
    }
    Ok((m, capacity))
}

/// The header words that carry the rank's horizon.
pub fn horizon_words(m: &SharedMapping) -> crate::horizon::HorizonWords<'_> {
    crate::horizon::HorizonWords {
        word: m.atomic_u64(HORIZON_AT),
        reads: m.atomic_u64(READS_AT),
        holding: m.atomic_u32(HOLDING_AT),
    }
}

/// Marks `side`'s end closed.
pub fn mark_closed(m: &SharedMapping, side: Side) {
    m.atomic_u32(CLOSED_AT)
        .fetch_or(side.closed_bit(), Ordering::SeqCst);
}

/// True once `side` closed its end.
pub fn is_closed(m: &SharedMapping, side: Side) -> bool {
    m.atomic_u32(CLOSED_AT).load(Ordering::SeqCst) & side.closed_bit() != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_file_opens_with_its_capacity_and_the_rings_do_not_overlap() {
        let (fd, _m) = create(8192).unwrap();
        let (m, cap) = open(&fd).unwrap();
        assert_eq!(cap, 8192);
        assert_eq!(m.len_bytes(), 4096 + 2 * 8192);
        let up = ring(Direction::ToGateway, cap);
        let down = ring(Direction::ToRank, cap);
        assert!(up.control + CONTROL_BYTES <= down.control);
        assert!(down.control + CONTROL_BYTES <= HEADER_BYTES);
        assert_eq!(up.data + cap, down.data);
        assert_eq!(down.data + cap, m.len_bytes());
    }

    #[test]
    fn files_that_are_not_sealed_channels_are_refused_with_a_sentence() {
        assert!(create(1000).is_err());
        let plain = memfd_create(c"plain", MemFdCreateFlag::MFD_CLOEXEC).unwrap();
        nix::unistd::ftruncate(&plain, 20480).unwrap();
        assert!(open(&plain).unwrap_err().contains("memfd"));
        // Sealed, right length, but no magic.
        let blank = create_memfd(file_bytes(8192)).unwrap();
        assert!(open(&blank).unwrap_err().contains("not a channel"));
    }
}
