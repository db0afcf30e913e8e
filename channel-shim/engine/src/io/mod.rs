//! MPI-IO (MPI 3.1 chapter 13): files opened collectively by the ranks of a
//! communicator, read and written through file views on the ranks' own
//! file system.
//!
//! - [`view`]: a file view's byte layout, mapping a stream of etypes to
//!   file byte ranges;
//! - [`amode`]: access-mode rules and the errors a failed system call
//!   becomes;
//! - [`datarep`]: data representations, the predefined ones and those the
//!   program registers;
//! - [`open`]: open, close, delete, size, views, pointers, hints;
//! - [`access`]: independent reads and writes (`pread`/`pwrite` of the
//!   view's segments);
//! - [`two_phase`]: the collective reads and writes: the ranks' pieces go
//!   through the network to aggregator ranks, which access the file in
//!   large contiguous requests (ROMIO's two-phase collective buffering);
//! - [`storage`]: the accesses' requests to a storage node of the
//!   simulated network, when the network file has one;
//! - [`shared`]: the shared file pointer (kept at rank 0 of the file's
//!   communicator and moved with one-sided messages) and the ordered
//!   collective forms.
//!
//! Every file gets a private duplicate of its communicator, so its
//! collective traffic never matches the program's messages.

pub mod access;
pub mod amode;
pub mod datarep;
pub mod open;
pub mod shared;
pub mod storage;
pub mod two_phase;
pub mod view;

use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::errhandler::ErrhandlerId;
use crate::error::{MpiError, MpiResult};
use crate::rma::WinId;
pub use datarep::{DataRep, Datareps};
use std::fs::File;
use view::ViewLayout;

/// A file handle: index in the process's file table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(pub u32);

/// A file view as the program set it.
#[derive(Clone, Debug)]
pub struct View {
    /// The displacement in bytes.
    pub disp: i64,
    /// The elementary type.
    pub etype: DatatypeId,
    /// The file type.
    pub filetype: DatatypeId,
    /// The data representation.
    pub datarep: DataRep,
    /// The flattened layout.
    pub layout: ViewLayout,
}

/// One open file of this process.
#[derive(Debug)]
pub struct OpenFile {
    /// The open file.
    pub file: File,
    /// The name the program opened it by.
    pub path: String,
    /// The private duplicate of the communicator it was opened on.
    pub comm: CommId,
    /// The access mode.
    pub amode: i32,
    /// The current view.
    pub view: View,
    /// The individual file pointer, in etypes of the view.
    pub pointer: u64,
    /// Whether atomic mode is on.
    pub atomic: bool,
    /// The hints (`MPI_File_get_info` returns them).
    pub hints: Vec<(String, String)>,
    /// The error handler.
    pub errhandler: ErrhandlerId,
    /// The window holding the shared file pointer at rank 0.
    pub shared_win: WinId,
}

/// What a [`LockFn`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// Take a shared lock of the whole file (a read in atomic mode).
    Shared,
    /// Take an exclusive lock of the whole file (a write in atomic mode).
    Exclusive,
    /// Release the lock.
    Unlock,
}

/// Locks or unlocks a whole file for atomic mode; the C layer provides it
/// (`flock`), the engine having no system calls of its own beyond `std`.
pub type LockFn = fn(&File, Lock) -> std::io::Result<()>;

/// The files of one process, and the handler of `MPI_FILE_NULL`.
#[derive(Debug)]
pub struct Files {
    slots: Vec<Option<OpenFile>>,
    /// How atomic mode locks a file (none: accesses are not locked).
    pub locker: Option<LockFn>,
    /// The error handler of `MPI_FILE_NULL` (`MPI_ERRORS_RETURN` at start):
    /// new files get it, and errors of calls without a file use it.
    pub null_errhandler: ErrhandlerId,
    /// The storage node the file system sits behind (none: accesses cost
    /// only their local time).
    pub storage: Option<storage::StorageClient>,
    /// The data representations the program registered.
    pub datareps: Datareps,
}

impl Default for Files {
    fn default() -> Self {
        Files {
            slots: Vec::new(),
            locker: None,
            null_errhandler: ErrhandlerId::RETURN,
            storage: None,
            datareps: Datareps::default(),
        }
    }
}

impl Files {
    /// The lock function when `f` is in atomic mode.
    pub fn atomic_lock(&self, f: &OpenFile) -> Option<LockFn> {
        self.locker.filter(|_| f.atomic)
    }

    /// Adds an open file and returns its handle.
    pub fn insert(&mut self, f: OpenFile) -> FileId {
        match self.slots.iter().position(Option::is_none) {
            Some(i) => {
                self.slots[i] = Some(f);
                FileId(i as u32)
            }
            None => {
                self.slots.push(Some(f));
                FileId(self.slots.len() as u32 - 1)
            }
        }
    }

    /// The open file `id` (`MPI_ERR_FILE` if it is not open).
    pub fn get(&self, id: FileId) -> MpiResult<&OpenFile> {
        self.slots
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .ok_or(MpiError::Code(amode::ERR_FILE))
    }

    /// The open file `id`, to change.
    pub fn get_mut(&mut self, id: FileId) -> MpiResult<&mut OpenFile> {
        self.slots
            .get_mut(id.0 as usize)
            .and_then(Option::as_mut)
            .ok_or(MpiError::Code(amode::ERR_FILE))
    }

    /// Removes file `id` from the table.
    pub fn remove(&mut self, id: FileId) -> MpiResult<OpenFile> {
        self.slots
            .get_mut(id.0 as usize)
            .and_then(Option::take)
            .ok_or(MpiError::Code(amode::ERR_FILE))
    }
}

#[cfg(test)]
mod tests;
