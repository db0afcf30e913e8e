//! A window's memory: one region (`MPI_Win_create`, `MPI_Win_allocate`) or
//! the regions attached to a dynamic window (`MPI_Win_attach`), which
//! origins address by absolute address.

use crate::error::{MpiError, MpiResult};
use crate::message_data::UserBuffer;

/// The memory operations on a window apply to.
pub enum WinMemory {
    /// One region; displacements count from its start.
    Fixed(Box<dyn UserBuffer>),
    /// Attached regions by start address; displacements are addresses.
    Dynamic(Vec<(usize, Box<dyn UserBuffer>)>),
}

impl WinMemory {
    /// The bytes an operation at byte displacement `at` applies to, and
    /// the offset of their first byte from the operation's address (the
    /// `base` of the pack and unpack routines).
    pub(crate) fn region(&mut self, at: i64) -> MpiResult<(&mut [u8], i64)> {
        match self {
            WinMemory::Fixed(m) => Ok((m.bytes_mut(), at.checked_neg().ok_or(MpiError::RmaRange)?)),
            WinMemory::Dynamic(regions) => {
                let addr = u64::try_from(at).map_err(|_| MpiError::RmaRange)?;
                let (start, m) = regions
                    .iter_mut()
                    .find(|(s, m)| {
                        let s = *s as u64;
                        addr >= s && addr < s + (m.bytes().len() as u64).max(1)
                    })
                    .ok_or(MpiError::RmaRange)?;
                let base = (*start as i64).checked_sub(at).ok_or(MpiError::RmaRange)?;
                Ok((m.bytes_mut(), base))
            }
        }
    }

    /// Runs `f` on the memory an operation at byte displacement `at`
    /// touches, bytes `lo .. hi` from that address (`None`: none), with the
    /// offset of the memory's first byte from the operation's address (the
    /// `base` of the pack and unpack routines). On a dynamic window whose
    /// operation spans regions attached back to back (adjacent addresses,
    /// as one array attached in parts), `f` works on a copy of those
    /// regions, written back into each afterwards.
    pub(crate) fn with_span<R>(
        &mut self,
        at: i64,
        touched: Option<(i64, i64)>,
        f: impl FnOnce(&mut [u8], i64) -> MpiResult<R>,
    ) -> MpiResult<R> {
        let Some((lo, hi)) = touched else {
            return f(&mut [], 0);
        };
        let regions = match self {
            WinMemory::Fixed(_) => {
                let (mem, base) = self.region(at)?;
                return f(mem, base);
            }
            WinMemory::Dynamic(regions) => regions,
        };
        let first = at.checked_add(lo).ok_or(MpiError::RmaRange)?;
        let last = at.checked_add(hi).ok_or(MpiError::RmaRange)?;
        let first = u64::try_from(first).map_err(|_| MpiError::RmaRange)?;
        let last = u64::try_from(last).map_err(|_| MpiError::RmaRange)?;
        let holds = |s: usize, m: &dyn UserBuffer, a: u64| {
            a >= s as u64 && a < s as u64 + m.bytes().len() as u64
        };
        let mut chain = vec![regions
            .iter()
            .position(|(s, m)| holds(*s, m.as_ref(), first))
            .ok_or(MpiError::RmaRange)?];
        let start = regions[chain[0]].0 as u64;
        let mut end = start + regions[chain[0]].1.bytes().len() as u64;
        while end < last {
            let next = regions
                .iter()
                .position(|(s, m)| *s as u64 == end && !m.bytes().is_empty())
                .ok_or(MpiError::RmaRange)?;
            end += regions[next].1.bytes().len() as u64;
            chain.push(next);
        }
        let base = (start as i64).checked_sub(at).ok_or(MpiError::RmaRange)?;
        if let [one] = chain[..] {
            return f(regions[one].1.bytes_mut(), base);
        }
        let mut staged = Vec::with_capacity((end - start) as usize);
        for &i in &chain {
            staged.extend_from_slice(regions[i].1.bytes());
        }
        let r = f(&mut staged, base);
        let mut from = 0;
        for &i in &chain {
            let m = regions[i].1.bytes_mut();
            m.copy_from_slice(&staged[from..from + m.len()]);
            from += m.len();
        }
        r
    }

    /// `MPI_Win_attach`: a region at address `start`.
    pub(crate) fn attach(&mut self, start: usize, m: Box<dyn UserBuffer>) -> MpiResult<()> {
        match self {
            WinMemory::Dynamic(regions) => {
                let end = start + m.bytes().len();
                if regions
                    .iter()
                    .any(|(s, r)| start < s + r.bytes().len() && *s < end)
                {
                    return Err(MpiError::RmaAttach);
                }
                regions.push((start, m));
                Ok(())
            }
            WinMemory::Fixed(_) => Err(MpiError::RmaFlavor),
        }
    }

    /// `MPI_Win_detach` of the region attached at `start`.
    pub(crate) fn detach(&mut self, start: usize) -> MpiResult<()> {
        match self {
            WinMemory::Dynamic(regions) => {
                let i = regions
                    .iter()
                    .position(|(s, _)| *s == start)
                    .ok_or(MpiError::RmaAttach)?;
                regions.remove(i);
                Ok(())
            }
            WinMemory::Fixed(_) => Err(MpiError::RmaFlavor),
        }
    }
}
