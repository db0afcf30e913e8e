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
