//! Independent reads and writes: the memory buffer packed (or unpacked)
//! through its datatype, the packed stream laid over the view's file
//! segments, one `pwrite`/`pread` per segment.

use super::amode::{self, ERR_UNSUPPORTED_OPERATION};
use super::view::FileSegment;
use super::{DataRep, FileId};
use crate::datatype::DatatypeId;
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;
use mpinetsim_protocol::storage::StorageOp;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Which file pointer an access uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// An explicit offset, in etypes of the view.
    At(i64),
    /// The individual file pointer (which moves past the data).
    Individual,
    /// An offset (etypes) the shared file pointer gave: allowed on
    /// sequential files.
    Shared(u64),
}

/// Writes `data` over `segments` (in order).
pub(crate) fn write_segments(file: &File, segments: &[FileSegment], data: &[u8]) -> MpiResult<()> {
    let mut used = 0usize;
    for s in segments {
        let piece = &data[used..used + s.len as usize];
        file.write_all_at(piece, s.offset)
            .map_err(|e| amode::io_error(&e))?;
        used += s.len as usize;
    }
    Ok(())
}

/// Reads `segments` (in order) into `out`; stops at the end of the file.
/// Returns the bytes read.
pub(crate) fn read_segments(
    file: &File,
    segments: &[FileSegment],
    out: &mut [u8],
) -> MpiResult<usize> {
    let mut used = 0usize;
    for s in segments {
        let want = s.len as usize;
        let mut got = 0usize;
        while got < want {
            let n = file
                .read_at(&mut out[used + got..used + want], s.offset + got as u64)
                .map_err(|e| amode::io_error(&e))?;
            if n == 0 {
                return Ok(used + got);
            }
            got += n;
        }
        used += want;
    }
    Ok(used)
}

/// Runs `access` under a lock of the whole file in atomic mode (exclusive
/// for a write, shared for a read, taken with `locker`, which the C layer
/// installs: `flock`, which every rank's own open file takes part in), so
/// a noncontiguous access is seen whole or not at all by the other ranks'
/// accesses.
pub(crate) fn atomically<R>(
    file: &File,
    atomic: Option<super::LockFn>,
    write: bool,
    access: impl FnOnce() -> MpiResult<R>,
) -> MpiResult<R> {
    let Some(lock) = atomic else {
        return access();
    };
    let kind = if write {
        super::Lock::Exclusive
    } else {
        super::Lock::Shared
    };
    lock(file, kind).map_err(|e| amode::io_error(&e))?;
    let r = access();
    lock(file, super::Lock::Unlock).map_err(|e| amode::io_error(&e))?;
    r
}

impl<T: Transport> Engine<T> {
    /// The file bytes of `count` instances of `dt` in `region` (exactly
    /// `span(dt, count)`), in the view's representation.
    pub(crate) fn io_pack(
        &self,
        rep: DataRep,
        dt: DatatypeId,
        count: usize,
        region: &[u8],
    ) -> MpiResult<Vec<u8>> {
        self.types.committed(dt)?;
        match rep {
            DataRep::External32 => self.types.pack_external(dt, count, region),
            _ => self.types.pack(dt, count, region),
        }
    }

    /// Unpacks file bytes `data` into `region` (exactly `span(dt, count)`).
    pub(crate) fn io_unpack(
        &self,
        rep: DataRep,
        dt: DatatypeId,
        count: usize,
        data: &[u8],
        region: &mut [u8],
    ) -> MpiResult<()> {
        match rep {
            DataRep::External32 => {
                // Only whole elements convert; a short read converts what it has.
                let esize = self.types.external32_size(dt, 1)? as usize;
                let whole = data.len().checked_div(esize).unwrap_or(0);
                self.types
                    .unpack_external(dt, whole, &data[..whole * esize], region)?;
            }
            _ => {
                self.types.unpack(dt, count, data, region)?;
            }
        }
        Ok(())
    }

    /// Bytes of `count` instances of `dt` in the file's representation.
    pub(crate) fn io_file_bytes(
        &self,
        rep: DataRep,
        dt: DatatypeId,
        count: usize,
    ) -> MpiResult<u64> {
        self.types.committed(dt)?;
        match rep {
            DataRep::External32 => self.types.external32_size(dt, count),
            _ => Ok(self.types.size(dt)? * count as u64),
        }
    }

    /// The view offset (etypes) an access at `pos` starts from; checks the
    /// access mode allows it.
    pub(crate) fn io_start(&self, id: FileId, pos: Position, write: bool) -> MpiResult<u64> {
        let f = self.files.get(id)?;
        let allowed = if write {
            amode::can_write(f.amode)
        } else {
            amode::can_read(f.amode)
        };
        if !allowed {
            return Err(MpiError::Code(amode::ERR_ACCESS));
        }
        if f.amode & amode::SEQUENTIAL != 0 && !matches!(pos, Position::Shared(_)) {
            return Err(MpiError::Code(ERR_UNSUPPORTED_OPERATION));
        }
        match pos {
            Position::At(o) => u64::try_from(o).map_err(|_| MpiError::Arg),
            Position::Individual => Ok(f.pointer),
            Position::Shared(o) => Ok(o),
        }
    }

    /// Moves the individual pointer past `bytes` of data from `start`.
    pub(crate) fn io_advance(
        &mut self,
        id: FileId,
        pos: Position,
        start: u64,
        bytes: u64,
    ) -> MpiResult<()> {
        let f = self.files.get_mut(id)?;
        if pos == Position::Individual {
            f.pointer = start + bytes.div_ceil(f.view.layout.etype_size);
        }
        Ok(())
    }

    /// `MPI_File_write_at` / `MPI_File_write`: writes `count` instances of
    /// `dt` from `region`; returns the memory bytes written (for the status).
    pub fn file_write(
        &mut self,
        id: FileId,
        pos: Position,
        region: &[u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let start = self.io_start(id, pos, true)?;
        let f = self.files.get(id)?;
        let data = self.io_pack(f.view.datarep, dt, count, region)?;
        let l = &f.view.layout;
        let segments = l.segments(start * l.etype_size, data.len() as u64);
        atomically(&f.file, self.files.atomic_lock(f), true, || {
            write_segments(&f.file, &segments, &data)
        })?;
        self.storage_access(StorageOp::Write, &segments, &data);
        self.io_advance(id, pos, start, data.len() as u64)?;
        Ok(self.types.size(dt)? * count as u64)
    }

    /// `MPI_File_read_at` / `MPI_File_read`: reads up to `count` instances
    /// of `dt` into `region` (fewer at the end of the file); returns the
    /// memory bytes read.
    pub fn file_read(
        &mut self,
        id: FileId,
        pos: Position,
        region: &mut [u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let start = self.io_start(id, pos, false)?;
        let f = self.files.get(id)?;
        let rep = f.view.datarep;
        let n = self.io_file_bytes(rep, dt, count)?;
        let l = &f.view.layout;
        let segments = l.segments(start * l.etype_size, n);
        let mut data = vec![0u8; n as usize];
        let got = atomically(&f.file, self.files.atomic_lock(f), false, || {
            read_segments(&f.file, &segments, &mut data)
        })?;
        data.truncate(got);
        self.storage_access(StorageOp::Read, &segments, &[]);
        self.io_unpack(rep, dt, count, &data, region)?;
        self.io_advance(id, pos, start, got as u64)?;
        self.io_memory_bytes(rep, dt, got as u64)
    }

    /// The memory bytes `file_bytes` of the file's representation hold.
    pub(crate) fn io_memory_bytes(
        &self,
        rep: DataRep,
        dt: DatatypeId,
        file_bytes: u64,
    ) -> MpiResult<u64> {
        match rep {
            DataRep::External32 => {
                let e = self.types.external32_size(dt, 1)?;
                let s = self.types.size(dt)?;
                Ok(file_bytes.checked_div(e).unwrap_or(0) * s)
            }
            _ => Ok(file_bytes),
        }
    }
}
