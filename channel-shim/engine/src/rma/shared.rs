//! `MPI_Win_allocate_shared`: the members of a window on one simulated
//! host share real memory, as the ranks of one node do on a cluster. The
//! C layer makes one shared mapping and every member maps it; here the
//! members agree on how their segments lie in it, the first member hands
//! the mapping's name to the others, and all agree that everyone mapped it
//! — each step a collective on the window's communicator, so it costs the
//! messages it would cost on the simulated network.

use super::{Flavor, WinId};
use crate::collectives::gather::allgather_bytes;
use crate::collectives::task::{CollOutput, Task, TaskOut};
use crate::comm::CommId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;

/// One member's segment of a shared window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedSegment {
    /// Byte offset of its first byte in the mapping.
    pub offset: u64,
    /// Its size in bytes (`MPI_Win_shared_query`'s size).
    pub size: u64,
    /// Its displacement unit in bytes.
    pub disp_unit: u32,
}

/// Where every member's segment lies in the one mapping they share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedLayout {
    /// The segments by rank in the window's communicator.
    pub segments: Vec<SharedSegment>,
    /// Bytes the mapping needs (at least 1, so it has an address).
    pub len: u64,
    /// This process's rank in the communicator.
    pub me: usize,
}

/// Where segments start when the program allows non-contiguous ones
/// (`alloc_shared_noncontig`): on page boundaries, so each member's
/// segment can sit in memory close to its own core on a real node.
pub const NONCONTIG_ALIGN: u64 = 4096;

/// Longest name of a mapping the first member can hand to the others.
pub const MAX_NAME: usize = 255;

impl SharedLayout {
    /// Lays out `requests` (size, displacement unit per member): one after
    /// the other by rank, as MPI's default contiguous allocation has it, or
    /// each on a page boundary when `noncontig`.
    pub fn new(requests: &[(u64, u32)], me: usize, noncontig: bool) -> MpiResult<SharedLayout> {
        let mut segments = Vec::with_capacity(requests.len());
        let mut end = 0u64;
        for &(size, disp_unit) in requests {
            let offset = if noncontig {
                end.checked_next_multiple_of(NONCONTIG_ALIGN)
                    .ok_or(MpiError::NoMem)?
            } else {
                end
            };
            end = offset.checked_add(size).ok_or(MpiError::NoMem)?;
            segments.push(SharedSegment {
                offset,
                size,
                disp_unit,
            });
        }
        if isize::try_from(end).is_err() {
            return Err(MpiError::NoMem);
        }
        Ok(SharedLayout {
            segments,
            len: end.max(1),
            me,
        })
    }

    /// This process's own segment.
    pub fn mine(&self) -> SharedSegment {
        self.segments[self.me]
    }

    /// `MPI_Win_shared_query`: member `rank`'s segment; for
    /// `MPI_PROC_NULL` (`None`) the segment of the lowest rank whose size
    /// is not zero, or rank 0's if all are empty.
    pub fn query(&self, rank: Option<usize>) -> MpiResult<SharedSegment> {
        match rank {
            Some(r) => self.segments.get(r).copied().ok_or(MpiError::Rank),
            None => Ok(self
                .segments
                .iter()
                .find(|s| s.size > 0)
                .copied()
                .unwrap_or(self.segments[0])),
        }
    }
}

/// Where `s` lies in this process's mapping at `map_base`; a segment of
/// no bytes has none (a null pointer, as MPICH gives).
pub fn segment_address(map_base: usize, s: SharedSegment) -> usize {
    if s.size == 0 {
        0
    } else {
        map_base + s.offset as usize
    }
}

/// Little-endian encoding of one member's request and host.
fn request_bytes(size: u64, disp_unit: u32, node: u32) -> Vec<u8> {
    [size, u64::from(disp_unit), u64::from(node)]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

fn read_u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

impl<T: Transport> Engine<T> {
    /// Every member's contribution of `mine` (all of the same length), in
    /// rank order, through an allgather on `comm`.
    fn allgather_same(&mut self, comm: CommId, mine: Vec<u8>) -> MpiResult<Vec<u8>> {
        if self.comm(comm)?.is_inter() {
            return Err(MpiError::Comm);
        }
        let th = self.cfg.coll;
        let c = self.ctx(comm, CallCode::Win_create)?;
        let t = Task::new(c.io().clone(), async move {
            let all = allgather_bytes(&c, th, mine).await?;
            Ok(TaskOut::Out(CollOutput::Bytes(all)))
        });
        self.run_task(t).map(CollOutput::into_bytes)
    }

    /// `MPI_Win_allocate_shared`, first step (collective over `comm`): the
    /// members' sizes and displacement units laid out in one mapping.
    /// Members on different simulated hosts cannot share memory
    /// (`MPI_ERR_RMA_SHARED`, at every member).
    pub fn shared_window_layout(
        &mut self,
        comm: CommId,
        size: u64,
        disp_unit: u32,
        noncontig: bool,
    ) -> MpiResult<SharedLayout> {
        self.note_call();
        if disp_unit == 0 {
            return Err(MpiError::Disp);
        }
        let me = self.comm(comm)?.rank as usize;
        let all = self.allgather_same(comm, request_bytes(size, disp_unit, self.t.node()))?;
        let words = read_u64s(&all);
        let members: Vec<&[u64]> = words.chunks_exact(3).collect();
        if members.iter().any(|m| m[2] != members[0][2]) {
            return Err(MpiError::RmaShared);
        }
        let requests: Vec<(u64, u32)> = members.iter().map(|m| (m[0], m[1] as u32)).collect();
        SharedLayout::new(&requests, me, noncontig)
    }

    /// Second step: the name of the mapping the first member created (its
    /// `name`; the others' is ignored), at every member.
    pub fn shared_window_name(&mut self, comm: CommId, name: &[u8]) -> MpiResult<Vec<u8>> {
        if name.len() > MAX_NAME {
            return Err(MpiError::Other);
        }
        let mut mine = vec![0u8; MAX_NAME + 1];
        mine[0] = name.len() as u8;
        mine[1..=name.len()].copy_from_slice(name);
        let all = self.allgather_same(comm, mine)?;
        let first = all.get(..=MAX_NAME).ok_or(MpiError::Other)?;
        let len = usize::from(first[0]);
        Ok(first[1..=len].to_vec())
    }

    /// Third step: whether every member could map the memory (`ok` is this
    /// one's answer), so that all give up together when one could not.
    pub fn shared_window_all_mapped(&mut self, comm: CommId, ok: bool) -> MpiResult<bool> {
        let all = self.allgather_same(comm, vec![u8::from(ok)])?;
        Ok(all.iter().all(|&b| b == 1))
    }

    /// Last step: the window over this member's `segment` of `layout`
    /// (the members' memory is mapped at address `map_base` in this
    /// process), flavor shared.
    pub fn shared_window_create(
        &mut self,
        segment: Box<dyn crate::message_data::UserBuffer>,
        map_base: usize,
        layout: SharedLayout,
        comm: CommId,
    ) -> MpiResult<WinId> {
        let mine = layout.mine();
        let base = segment_address(map_base, mine);
        let w = self.win_create(segment, base, mine.disp_unit, Flavor::Shared, comm)?;
        self.window_mut(w)?.shared = Some((layout, map_base));
        Ok(w)
    }

    /// `MPI_Win_shared_query`: the address, size and displacement unit of
    /// member `rank`'s segment (`None`: `MPI_PROC_NULL`); a window not
    /// made by `MPI_Win_allocate_shared` is `MPI_ERR_RMA_FLAVOR`.
    pub fn win_shared_query(
        &mut self,
        win: WinId,
        rank: Option<usize>,
    ) -> MpiResult<(usize, SharedSegment)> {
        self.note_call();
        let (layout, map_base) = self
            .window(win)?
            .shared
            .as_ref()
            .ok_or(MpiError::RmaFlavor)?;
        let s = layout.query(rank)?;
        Ok((segment_address(*map_base, s), s))
    }

    /// The mapping a shared window lives in (address and length), for the
    /// C layer to unmap once the window is freed.
    pub fn win_shared_mapping(&self, win: WinId) -> MpiResult<Option<(usize, u64)>> {
        Ok(self
            .window(win)?
            .shared
            .as_ref()
            .map(|(l, base)| (*base, l.len)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::CommId;
    use crate::mem_transport::run_world_on_nodes;

    #[test]
    fn contiguous_segments_follow_each_other() {
        let l = SharedLayout::new(&[(40, 4), (0, 1), (13, 1), (8, 8)], 2, false).unwrap();
        let offsets: Vec<u64> = l.segments.iter().map(|s| s.offset).collect();
        assert_eq!(offsets, [0, 40, 40, 53]);
        assert_eq!(l.len, 61);
        assert_eq!(l.mine().size, 13);
        assert_eq!(l.query(None).unwrap().offset, 0);
    }

    #[test]
    fn noncontiguous_segments_start_on_pages() {
        let l = SharedLayout::new(&[(1, 1), (5000, 1), (1, 1)], 0, true).unwrap();
        let offsets: Vec<u64> = l.segments.iter().map(|s| s.offset).collect();
        assert_eq!(offsets, [0, 4096, 3 * 4096]);
        assert_eq!(l.len, 3 * 4096 + 1);
    }

    #[test]
    fn proc_null_names_the_first_nonempty_segment() {
        let l = SharedLayout::new(&[(0, 1), (0, 1), (16, 4), (8, 8)], 0, false).unwrap();
        assert_eq!(l.query(None).unwrap().disp_unit, 4);
        let empty = SharedLayout::new(&[(0, 2), (0, 1)], 1, false).unwrap();
        assert_eq!(empty.query(None).unwrap().disp_unit, 2);
        assert_eq!(empty.len, 1);
        assert_eq!(empty.query(Some(2)), Err(MpiError::Rank));
    }

    #[test]
    fn members_agree_on_layout_and_name_and_refuse_across_hosts() {
        const W: CommId = CommId::WORLD;
        // Ranks 0, 2, 3 on host 0; rank 1 on host 1.
        run_world_on_nodes(&[0, 1, 0, 0], 64, |e| {
            let me = e.rank();
            let l = e
                .shared_window_layout(W, 8 * (me as u64 + 1), 8, false)
                .err();
            assert_eq!(l, Some(MpiError::RmaShared));
            let node = e
                .comm_split_type(W, crate::comm_create::SplitType::Shared, 0)
                .unwrap()
                .unwrap();
            let l = e
                .shared_window_layout(node, 8 * (me as u64 + 1), 8, false)
                .unwrap();
            if me != 1 {
                // Host 0's members are world ranks 0, 2, 3 → sizes 8, 24, 32.
                let sizes: Vec<u64> = l.segments.iter().map(|s| s.size).collect();
                assert_eq!(sizes, [8, 24, 32]);
                assert_eq!(l.len, 64);
            }
            let name = e
                .shared_window_name(node, format!("map-of-{me}").as_bytes())
                .unwrap();
            let first = if me == 1 { 1 } else { 0 };
            assert_eq!(name, format!("map-of-{first}").into_bytes());
            assert!(!e.shared_window_all_mapped(node, me != 3).unwrap() || me == 1);
        });
    }
}
