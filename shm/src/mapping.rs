//! A shared mapping of a memfd, and the descriptors that came with it: the
//! one place of the crate with `unsafe`.
//!
//! Why it is needed: mapping a file (`mmap`) and reading and writing the
//! memory another process writes at the same time have no safe interface
//! in Rust (nix's and memmap2's `mmap` are `unsafe fn`s, and a word of
//! shared memory becomes an atomic only through a pointer cast). This
//! module wraps both behind a safe API whose every access is bounds- and
//! alignment-checked, so the rest of the crate is safe code.
//!
//! Descriptors passed with SCM_RIGHTS arrive as raw numbers; owning one
//! (`OwnedFd::from_raw_fd`) is `unsafe` because the compiler cannot know
//! nobody else owns it — here the kernel just installed it for us.
//!
//! The peer process may write any bytes at any time. Words the two sides
//! synchronise on are only ever read and written as atomics; the data area
//! is only copied with raw pointer copies (never through a Rust reference
//! to shared memory), so a misbehaving peer can garble bytes — which the
//! ring's index checks and the protocol's frame decoding reject — but
//! cannot make this process read or write outside the mapping.

use nix::sys::mman::{mmap, munmap, MapFlags, ProtFlags};
use std::num::NonZeroUsize;
use std::os::fd::AsFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// A read-write `MAP_SHARED` mapping of a whole file, unmapped on drop.
#[derive(Debug)]
pub struct SharedMapping {
    base: NonNull<u8>,
    len_bytes: usize,
}

// SAFETY: the mapping is plain memory owned by this value; every access
// goes through atomics or raw copies that tolerate concurrent writers (the
// peer process writes it concurrently anyway), so sharing the value between
// threads adds nothing the design does not already handle.
#[allow(unsafe_code)]
unsafe impl Send for SharedMapping {}
// SAFETY: as above: `&SharedMapping` only offers atomics and raw copies.
#[allow(unsafe_code)]
unsafe impl Sync for SharedMapping {}

impl SharedMapping {
    /// Maps `len_bytes` of `fd` from offset 0, shared and read-write. The
    /// caller has checked that the file is at least that long and cannot
    /// shrink (a sealed memfd), since touching a page past a file's end
    /// raises SIGBUS.
    pub fn map(fd: impl AsFd, len_bytes: usize) -> std::io::Result<SharedMapping> {
        let len = NonZeroUsize::new(len_bytes)
            .ok_or_else(|| std::io::Error::other("an empty shared mapping"))?;
        // SAFETY: a fresh mapping chosen by the kernel (no address hint),
        // so it aliases no Rust object; its length is the file's checked
        // length; it lives until `drop` unmaps it.
        #[allow(unsafe_code)]
        let p = unsafe {
            mmap(
                None,
                len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
                fd,
                0,
            )
        }?;
        Ok(SharedMapping {
            base: p.cast(),
            len_bytes,
        })
    }

    /// The mapping's length, bytes.
    pub fn len_bytes(&self) -> usize {
        self.len_bytes
    }

    fn check(&self, offset: usize, len: usize, align: usize) {
        assert!(
            offset.is_multiple_of(align)
                && offset.checked_add(len).is_some_and(|e| e <= self.len_bytes),
            "shared mapping access out of bounds or misaligned (offset {offset}, {len} bytes)"
        );
    }

    /// The 64-bit word at `offset` (8-aligned, inside the mapping) as an
    /// atomic. Panics on a bad offset: offsets are the crate's own
    /// constants, never the peer's values.
    pub fn atomic_u64(&self, offset: usize) -> &AtomicU64 {
        self.check(offset, 8, 8);
        // SAFETY: in bounds and aligned (checked; the mapping is page
        // aligned); AtomicU64 has the layout of u64 and interior
        // mutability, so concurrent atomic access from this and the peer
        // process is defined; the reference lives no longer than `self`.
        #[allow(unsafe_code)]
        unsafe {
            &*(self.base.as_ptr().add(offset) as *const AtomicU64)
        }
    }

    /// The 32-bit word at `offset` (4-aligned, inside the mapping) as an
    /// atomic. Panics on a bad offset, as [`SharedMapping::atomic_u64`].
    pub fn atomic_u32(&self, offset: usize) -> &AtomicU32 {
        self.check(offset, 4, 4);
        // SAFETY: as in `atomic_u64`, for a 4-byte word.
        #[allow(unsafe_code)]
        unsafe {
            &*(self.base.as_ptr().add(offset) as *const AtomicU32)
        }
    }

    /// Copies `src` into the mapping at `offset`. Panics when the range
    /// leaves the mapping (callers mask ring positions into their area).
    pub fn copy_in(&self, offset: usize, src: &[u8]) {
        self.check(offset, src.len(), 1);
        // SAFETY: the destination range is inside the mapping (checked);
        // `src` is ordinary memory of this process, which a shared mapping
        // never overlaps. The bytes may be read concurrently by the peer:
        // a raw copy creates no Rust reference to them.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), self.base.as_ptr().add(offset), src.len());
        }
    }

    /// Copies bytes of the mapping at `offset` into `dst`. Panics when the
    /// range leaves the mapping.
    pub fn copy_out(&self, offset: usize, dst: &mut [u8]) {
        self.check(offset, dst.len(), 1);
        // SAFETY: the source range is inside the mapping (checked); `dst`
        // is ordinary memory that no mapping overlaps. A peer writing the
        // same bytes concurrently can only garble what is copied.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.base.as_ptr().add(offset),
                dst.as_mut_ptr(),
                dst.len(),
            );
        }
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: the mapping `map` made, of that length; the references
        // handed out borrow `self`, so none outlives it.
        #[allow(unsafe_code)]
        unsafe {
            let _ = munmap(self.base.cast(), self.len_bytes);
        }
    }
}

/// Owns a descriptor the kernel installed in this process for a received
/// SCM_RIGHTS message (see `offer::recv_with_fds`).
pub fn adopt_received_fd(fd: std::os::fd::RawFd) -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    // SAFETY: the kernel created this descriptor in this process while
    // delivering the message, and nothing else in the process knows its
    // number: it is open and owned by no other object.
    #[allow(unsafe_code)]
    unsafe {
        std::os::fd::OwnedFd::from_raw_fd(fd)
    }
}
