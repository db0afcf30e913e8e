//! Opening, closing and deleting files; their size, views, pointers,
//! hints, atomicity and error handlers.
//!
//! Collective calls keep the ranks in agreement: rank 0 of the
//! communicator creates the file (so `MPI_MODE_EXCL` has one winner), the
//! others open it after rank 0 said it exists, and every rank ends with
//! the same error class (the largest any rank met).

use super::amode::{self, ERR_NOT_SAME, ERR_UNSUPPORTED_OPERATION};
use super::view::ViewLayout;
use super::{DataRep, FileId, OpenFile, View};
use crate::comm::CommId;
use crate::datatype::{BuiltinType, DatatypeId, FileSizes};
use crate::errhandler::ErrhandlerId;
use crate::error::{MpiError, MpiResult};
use crate::op::{BuiltinOp, OpId};
use crate::rma::Flavor;
use crate::transport::Transport;
use crate::Engine;
use std::fs::OpenOptions;

pub(crate) const INT: DatatypeId = DatatypeId::Builtin(BuiltinType::Int);
pub(crate) const I64: DatatypeId = DatatypeId::Builtin(BuiltinType::Int64);
pub(crate) const BYTE: DatatypeId = DatatypeId::Builtin(BuiltinType::Byte);

/// `MPI_DISPLACEMENT_CURRENT`.
pub const DISPLACEMENT_CURRENT: i64 = -54278278;

/// Where `MPI_File_seek` counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whence {
    /// `MPI_SEEK_SET`: from the start of the view.
    Set,
    /// `MPI_SEEK_CUR`: from the current position.
    Cur,
    /// `MPI_SEEK_END`: from the end of the file.
    End,
}

/// The error code of an engine error, for agreeing across ranks.
fn code_of(e: MpiError) -> i32 {
    match e {
        MpiError::Code(c) => c,
        MpiError::Arg => 12,
        MpiError::Info => 28,
        MpiError::Datatype => 3,
        MpiError::Comm => 5,
        MpiError::Count => 2,
        _ => 15,
    }
}

fn error_of(code: i32) -> MpiError {
    match code {
        12 => MpiError::Arg,
        28 => MpiError::Info,
        3 => MpiError::Datatype,
        5 => MpiError::Comm,
        2 => MpiError::Count,
        15 => MpiError::Other,
        c => MpiError::Code(c),
    }
}

impl<T: Transport> Engine<T> {
    /// The largest error code any rank of `comm` met (0: none): every rank
    /// returns the same result from a collective file call.
    pub(crate) fn io_agree(&mut self, comm: CommId, r: MpiResult<()>) -> MpiResult<()> {
        let mine = r.err().map(code_of).unwrap_or(0);
        let all = self.allreduce(
            crate::collectives::CollInput::Buf(&mine.to_ne_bytes()),
            1,
            INT,
            OpId::Builtin(BuiltinOp::Max),
            comm,
        )?;
        match i32::from_ne_bytes(all[..4].try_into().expect("one int")) {
            0 => Ok(()),
            c => Err(r.err().unwrap_or(error_of(c))),
        }
    }

    /// Rank 0's `value` on every rank of `comm`.
    pub(crate) fn io_bcast_i64(&mut self, comm: CommId, value: i64) -> MpiResult<i64> {
        let b = self.bcast(&value.to_ne_bytes(), 1, I64, 0, comm)?;
        Ok(i64::from_ne_bytes(b[..8].try_into().expect("one int64")))
    }

    /// `MPI_File_open` (collective over `comm`).
    pub fn file_open(
        &mut self,
        comm: CommId,
        path: &str,
        mode: i32,
        hints: Vec<(String, String)>,
    ) -> MpiResult<FileId> {
        self.note_call();
        let c = self.comm_dup(comm)?;
        let me = self.comm_rank(c)?;
        let root_mode = self.io_bcast_i64(c, i64::from(mode))?;
        let mut checked = amode::check(mode);
        if checked.is_ok() && root_mode != i64::from(mode) {
            checked = Err(MpiError::Code(ERR_NOT_SAME));
        }
        if path.is_empty() {
            checked = checked.and(Err(MpiError::Code(amode::ERR_BAD_FILE)));
        }
        if let Err(e) = self.io_agree(c, checked) {
            self.comm_free(c)?;
            return Err(e);
        }
        let options = |create: bool| {
            let mut o = OpenOptions::new();
            o.read(amode::can_read(mode)).write(amode::can_write(mode));
            if create && mode & amode::EXCL != 0 {
                o.create_new(true);
            } else if create && mode & amode::CREATE != 0 {
                o.create(true);
            }
            o
        };
        let mut file = None;
        let first = if me == 0 {
            options(true)
                .open(path)
                .map(|f| file = Some(f))
                .map_err(|e| amode::io_error(&e))
        } else {
            Ok(())
        };
        // The others open once rank 0 has created it.
        let root_code = self.io_bcast_i64(c, first.err().map(code_of).unwrap_or(0).into())?;
        let opened = if root_code != 0 {
            Err(error_of(root_code as i32))
        } else if me != 0 {
            options(false)
                .open(path)
                .map(|f| file = Some(f))
                .map_err(|e| amode::io_error(&e))
        } else {
            Ok(())
        };
        if let Err(e) = self.io_agree(c, opened) {
            self.comm_free(c)?;
            return Err(e);
        }
        let file = file.expect("opened on every rank");
        let size = if mode & amode::APPEND != 0 {
            file.metadata().map_err(|e| amode::io_error(&e))?.len()
        } else {
            0
        };
        // The shared file pointer: one int64 at rank 0.
        let cell = size.to_ne_bytes().to_vec();
        let shared_win = self.win_create(Box::new(cell), 0, 8, Flavor::Create, c)?;
        let errhandler = self.files.null_errhandler;
        self.errhandlers.add_ref(errhandler);
        Ok(self.files.insert(OpenFile {
            file,
            path: path.to_string(),
            comm: c,
            amode: mode,
            view: View {
                disp: 0,
                etype: BYTE,
                filetype: BYTE,
                datarep: DataRep::Native,
                layout: ViewLayout::bytes(),
            },
            pointer: size,
            atomic: false,
            hints,
            errhandler,
            shared_win,
        }))
    }

    /// `MPI_File_close` (collective): frees the handle; with
    /// `MPI_MODE_DELETE_ON_CLOSE`, rank 0 deletes the file once every rank
    /// closed it.
    pub fn file_close(&mut self, id: FileId) -> MpiResult<()> {
        self.note_call();
        let (comm, win) = {
            let f = self.files.get(id)?;
            (f.comm, f.shared_win)
        };
        let f = self.files.remove(id)?;
        let synced = f.file.sync_data().map_err(|e| amode::io_error(&e));
        let (path, mode) = (f.path.clone(), f.amode);
        self.release_view(&f.view);
        self.errhandlers.release(f.errhandler);
        drop(f);
        // Frees the window: a barrier, so every rank has closed.
        self.win_free(win)?;
        let mut r = synced;
        if mode & amode::DELETE_ON_CLOSE != 0 && self.comm_rank(comm)? == 0 {
            r = r.and(std::fs::remove_file(&path).map_err(|e| amode::io_error(&e)));
        }
        self.comm_free(comm)?;
        r
    }

    /// `MPI_File_delete` (not collective).
    pub fn file_delete(&mut self, path: &str) -> MpiResult<()> {
        self.note_call();
        std::fs::remove_file(path).map_err(|e| amode::io_error(&e))
    }

    /// `MPI_File_set_size` (collective): rank 0 truncates or extends.
    pub fn file_set_size(&mut self, id: FileId, size: i64) -> MpiResult<()> {
        self.note_call();
        self.io_resize(id, size, false)
    }

    /// `MPI_File_preallocate` (collective): rank 0 extends a shorter file
    /// to `size` bytes (zeros); a longer file stays as it is.
    pub fn file_preallocate(&mut self, id: FileId, size: i64) -> MpiResult<()> {
        self.note_call();
        self.io_resize(id, size, true)
    }

    fn io_resize(&mut self, id: FileId, size: i64, grow_only: bool) -> MpiResult<()> {
        let f = self.files.get(id)?;
        let (comm, mode) = (f.comm, f.amode);
        let root = self.io_bcast_i64(comm, size)?;
        let checked = if size < 0 {
            Err(MpiError::Arg)
        } else if root != size {
            Err(MpiError::Code(ERR_NOT_SAME))
        } else if !amode::can_write(mode) {
            Err(MpiError::Code(amode::ERR_ACCESS))
        } else if mode & amode::SEQUENTIAL != 0 {
            Err(MpiError::Code(ERR_UNSUPPORTED_OPERATION))
        } else {
            Ok(())
        };
        // Every rank has entered (and finished what came before) when
        // rank 0 changes the size.
        self.io_agree(comm, checked)?;
        let mut r = Ok(());
        if self.comm_rank(comm)? == 0 {
            let file = &self.files.get(id)?.file;
            let len = file.metadata().map_err(|e| amode::io_error(&e))?.len();
            if !grow_only || len < size as u64 {
                r = file.set_len(size as u64).map_err(|e| amode::io_error(&e));
            }
        }
        self.io_agree(comm, r)
    }

    /// `MPI_File_get_size`: the file's current size in bytes.
    pub fn file_size(&self, id: FileId) -> MpiResult<u64> {
        let f = self.files.get(id)?;
        Ok(f.file.metadata().map_err(|e| amode::io_error(&e))?.len())
    }

    /// `MPI_File_get_amode`.
    pub fn file_amode(&self, id: FileId) -> MpiResult<i32> {
        Ok(self.files.get(id)?.amode)
    }

    /// `MPI_File_get_group`: a new group of the file's ranks.
    pub fn file_group(&mut self, id: FileId) -> MpiResult<crate::GroupId> {
        let c = self.files.get(id)?.comm;
        self.comm_group(c)
    }

    /// The file's communicator (its private duplicate).
    pub fn file_comm(&self, id: FileId) -> MpiResult<CommId> {
        Ok(self.files.get(id)?.comm)
    }

    /// The file's hints.
    pub fn file_hints(&self, id: FileId) -> MpiResult<Vec<(String, String)>> {
        Ok(self.files.get(id)?.hints.clone())
    }

    /// `MPI_File_set_info`: adds or replaces hints.
    pub fn file_set_hints(&mut self, id: FileId, hints: Vec<(String, String)>) -> MpiResult<()> {
        let f = self.files.get_mut(id)?;
        for (k, v) in hints {
            match f.hints.iter_mut().find(|h| h.0 == k) {
                Some(h) => h.1 = v,
                None => f.hints.push((k, v)),
            }
        }
        Ok(())
    }

    /// `MPI_File_set_view` (collective): sets the view and puts both file
    /// pointers at its start. The etype and filetype are laid out with the
    /// representation's file sizes of their predefined types;
    /// `registered_sizes` gives those of a registered representation (the
    /// C layer asked its extent callback, see [`Self::file_view_types`]),
    /// or the callback's error, which fails the call on every rank.
    pub fn file_set_view(
        &mut self,
        id: FileId,
        disp: i64,
        etype: DatatypeId,
        filetype: DatatypeId,
        datarep: &str,
        registered_sizes: MpiResult<&FileSizes>,
    ) -> MpiResult<()> {
        self.note_call();
        let (comm, mode) = {
            let f = self.files.get(id)?;
            (f.comm, f.amode)
        };
        // MPI_DISPLACEMENT_CURRENT (sequential files only): the byte the
        // shared pointer is at, which rank 0 reads for everyone.
        let current = if disp == DISPLACEMENT_CURRENT && mode & amode::SEQUENTIAL != 0 {
            let at = if self.comm_rank(comm)? == 0 {
                let sh = self.shared_update(id, 0, BuiltinOp::Sum)?;
                self.files.get(id)?.view.layout.byte_offset(sh) as i64
            } else {
                0
            };
            Some(self.io_bcast_i64(comm, at)?)
        } else {
            None
        };
        let r = (|| {
            let rep = self.files.datareps.parse(datarep)?;
            self.types.committed(etype)?;
            self.types.committed(filetype)?;
            let sizes = self.file_sizes(rep, &[etype, filetype], registered_sizes?)?;
            let et = &self.types.in_file(etype, &sizes)?;
            let esize = et.size;
            // The etype's typemap must be a valid filetype too (ROMIO
            // refuses either with MPI_ERR_IO).
            let invalid = |_| MpiError::Code(amode::ERR_IO);
            let read_only = mode & amode::RDONLY != 0;
            if esize > 0 {
                ViewLayout::of_type(0, esize, et, read_only).map_err(invalid)?;
            }
            let ft = &self.types.in_file(filetype, &sizes)?;
            let disp = match current {
                Some(at) => at as u64,
                None => u64::try_from(disp).map_err(|_| MpiError::Arg)?,
            };
            let layout = ViewLayout::of_type(disp, esize, ft, read_only).map_err(invalid)?;
            Ok(View {
                disp: disp as i64,
                etype,
                filetype,
                datarep: rep,
                layout,
            })
        })();
        let view = match (self.io_agree(comm, r.as_ref().map(drop).map_err(|e| *e)), r) {
            (Ok(()), Ok(v)) => v,
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        self.types.add_use(etype);
        self.types.add_use(filetype);
        let f = self.files.get_mut(id)?;
        let old = std::mem::replace(&mut f.view, view);
        f.pointer = 0;
        self.release_view(&old);
        self.shared_reset(id, 0)
    }

    fn release_view(&mut self, v: &View) {
        self.types.release_use(v.etype);
        self.types.release_use(v.filetype);
    }

    /// `MPI_File_get_view`: displacement, etype, filetype (derived types
    /// as new handles the program frees) and representation.
    pub fn file_view(&mut self, id: FileId) -> MpiResult<(i64, DatatypeId, DatatypeId, String)> {
        let v = self.files.get(id)?.view.clone();
        for dt in [v.etype, v.filetype] {
            if let DatatypeId::Derived(_) = dt {
                self.types.hand_out(dt)?;
            }
        }
        let name = self.files.datareps.name(v.datarep).to_owned();
        Ok((v.disp, v.etype, v.filetype, name))
    }

    /// `MPI_Register_datarep`: the representation's number, for the C
    /// layer's table of its callbacks.
    pub fn register_datarep(&mut self, name: &str) -> MpiResult<u32> {
        match self.files.datareps.register(name)? {
            DataRep::Registered(n) => Ok(n),
            _ => Err(MpiError::Intern),
        }
    }

    /// The representation `name` names: a registered one's number, or
    /// `None` for a predefined one (`MPI_ERR_UNSUPPORTED_DATAREP` for an
    /// unknown name).
    pub fn registered_datarep(&self, name: &str) -> MpiResult<Option<u32>> {
        Ok(match self.files.datareps.parse(name)? {
            DataRep::Registered(n) => Some(n),
            _ => None,
        })
    }

    /// The registered representation of file `id`'s view, if it has one
    /// (its accesses then go through the program's conversion callbacks).
    pub fn file_registered_datarep(&self, id: FileId) -> MpiResult<Option<u32>> {
        Ok(match self.files.get(id)?.view.datarep {
            DataRep::Registered(n) => Some(n),
            _ => None,
        })
    }

    /// The predefined types in `types`' typemaps: those a registered
    /// representation's extent callback must size.
    pub fn file_view_types(&self, types: &[DatatypeId]) -> MpiResult<Vec<BuiltinType>> {
        let mut all = Vec::new();
        for &t in types {
            all.extend(self.types.predefined_types_in(t)?);
        }
        all.sort();
        all.dedup();
        Ok(all)
    }

    /// The file sizes of the predefined types in `types` in representation `rep`.
    fn file_sizes(
        &self,
        rep: DataRep,
        types: &[DatatypeId],
        registered: &FileSizes,
    ) -> MpiResult<FileSizes> {
        rep.file_sizes(&self.file_view_types(types)?, registered)
    }

    /// `MPI_File_seek`: moves the individual pointer.
    pub fn file_seek(&mut self, id: FileId, offset: i64, whence: Whence) -> MpiResult<()> {
        self.note_call();
        let end = self.file_size(id)?;
        let f = self.files.get_mut(id)?;
        if f.amode & amode::SEQUENTIAL != 0 {
            return Err(MpiError::Code(ERR_UNSUPPORTED_OPERATION));
        }
        let from = match whence {
            Whence::Set => 0,
            Whence::Cur => f.pointer as i64,
            Whence::End => f.view.layout.offset_at_byte(end) as i64,
        };
        let to = from.checked_add(offset).ok_or(MpiError::Arg)?;
        f.pointer = u64::try_from(to).map_err(|_| MpiError::Arg)?;
        Ok(())
    }

    /// `MPI_File_get_position`: the individual pointer, in etypes.
    pub fn file_position(&self, id: FileId) -> MpiResult<i64> {
        let f = self.files.get(id)?;
        if f.amode & amode::SEQUENTIAL != 0 {
            return Err(MpiError::Code(ERR_UNSUPPORTED_OPERATION));
        }
        Ok(f.pointer as i64)
    }

    /// `MPI_File_get_byte_offset`: the file byte of view offset `offset`.
    pub fn file_byte_offset(&self, id: FileId, offset: i64) -> MpiResult<i64> {
        let f = self.files.get(id)?;
        let o = u64::try_from(offset).map_err(|_| MpiError::Arg)?;
        Ok(f.view.layout.byte_offset(o) as i64)
    }

    /// `MPI_File_sync` (collective): data to the storage device, then a
    /// barrier so every rank sees every rank's synced data.
    pub fn file_sync(&mut self, id: FileId) -> MpiResult<()> {
        self.note_call();
        let f = self.files.get(id)?;
        let comm = f.comm;
        let r = f.file.sync_all().map_err(|e| amode::io_error(&e));
        self.io_agree(comm, r)
    }

    /// Installs how atomic mode locks files.
    pub fn set_file_locker(&mut self, lock: super::LockFn) {
        self.files.locker = Some(lock);
    }

    /// `MPI_File_set_atomicity` (collective; every rank must pass the same flag).
    pub fn file_set_atomicity(&mut self, id: FileId, atomic: bool) -> MpiResult<()> {
        self.note_call();
        let comm = self.files.get(id)?.comm;
        let root = self.io_bcast_i64(comm, atomic as i64)?;
        let r = if root != atomic as i64 {
            Err(MpiError::Code(ERR_NOT_SAME))
        } else {
            Ok(())
        };
        self.io_agree(comm, r)?;
        self.files.get_mut(id)?.atomic = atomic;
        Ok(())
    }

    /// `MPI_File_get_atomicity`.
    pub fn file_atomicity(&self, id: FileId) -> MpiResult<bool> {
        Ok(self.files.get(id)?.atomic)
    }

    /// `MPI_File_get_type_extent`: the extent of `dt` in the file's
    /// representation (`registered_sizes` as for [`Self::file_set_view`]).
    pub fn file_type_extent(
        &self,
        id: FileId,
        dt: DatatypeId,
        registered_sizes: &FileSizes,
    ) -> MpiResult<i64> {
        let rep = self.files.get(id)?.view.datarep;
        let sizes = self.file_sizes(rep, &[dt], registered_sizes)?;
        Ok(self.types.in_file(dt, &sizes)?.extent())
    }

    /// `MPI_File_set_errhandler`; `None` is `MPI_FILE_NULL` (the handler
    /// new files get).
    pub fn file_set_errhandler(&mut self, id: Option<FileId>, h: ErrhandlerId) -> MpiResult<()> {
        if !self.errhandlers.exists(h) {
            return Err(MpiError::Arg);
        }
        self.errhandlers.add_ref(h);
        let slot = match id {
            Some(id) => &mut self.files.get_mut(id)?.errhandler,
            None => &mut self.files.null_errhandler,
        };
        let old = std::mem::replace(slot, h);
        self.errhandlers.release(old);
        Ok(())
    }

    /// `MPI_File_get_errhandler`: the handler (a reference the program frees).
    pub fn file_get_errhandler(&mut self, id: Option<FileId>) -> MpiResult<ErrhandlerId> {
        let h = match id {
            Some(id) => self.files.get(id)?.errhandler,
            None => self.files.null_errhandler,
        };
        self.errhandlers.add_ref(h);
        Ok(h)
    }

    /// What an error on file `id` does (`None`, or a file that is not
    /// open: `MPI_FILE_NULL`'s handler).
    pub fn file_error_handling(&self, id: Option<FileId>) -> crate::ErrorAction {
        let h = id
            .and_then(|id| self.files.get(id).ok())
            .map(|f| f.errhandler)
            .unwrap_or(self.files.null_errhandler);
        self.errhandlers.action(h)
    }
}
