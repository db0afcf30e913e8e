//! The shared file pointer and the accesses that use it.
//!
//! The pointer (in etypes of the view) is one 64-bit integer in a window
//! at rank 0 of the file's communicator. `MPI_File_write_shared` and
//! `MPI_File_read_shared` move it with a fetch-and-add under an exclusive
//! lock (one-sided messages to rank 0, which answers them whenever it is
//! in an MPI call, as MPICH's progress rule has it); the ordered forms are
//! collective: ranks learn their place from an exclusive prefix sum of
//! their sizes, and rank 0 moves the pointer once by the total.
//!
//! Nonblocking file accesses complete at the call (the data is in the
//! file when it returns): [`Engine::io_done_request`] is their request.

use super::access::Position;
use super::open::{Whence, I64};
use super::FileId;
use crate::collectives::{CollInput, CollOutput};
use crate::datatype::DatatypeId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::message_data::UserBuffer;
use crate::op::{BuiltinOp, OpId};
use crate::request::{Request, State};
use crate::rma::origin::{OriginBuf, TargetSpec};
use crate::status::{Completion, Status};
use crate::transport::Transport;
use crate::{Engine, RequestId};
use std::sync::{Arc, Mutex};

/// The result buffer of a fetch: hands its bytes over when the engine
/// drops it at the operation's completion.
struct Fetched {
    buf: Vec<u8>,
    out: Arc<Mutex<Option<Vec<u8>>>>,
}

impl UserBuffer for Fetched {
    fn bytes(&self) -> &[u8] {
        &self.buf
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }
}

impl Drop for Fetched {
    fn drop(&mut self) {
        let mut g = self.out.lock().unwrap_or_else(|p| p.into_inner());
        *g = Some(std::mem::take(&mut self.buf));
    }
}

impl<T: Transport> Engine<T> {
    /// Applies `op` with `value` to the shared pointer and returns its
    /// previous value.
    pub(crate) fn shared_update(
        &mut self,
        id: FileId,
        value: i64,
        op: BuiltinOp,
    ) -> MpiResult<u64> {
        let win = self.files.get(id)?.shared_win;
        let out = Arc::new(Mutex::new(None));
        let result = OriginBuf {
            mem: Box::new(Fetched {
                buf: vec![0; 8],
                out: out.clone(),
            }),
            count: 1,
            dt: I64,
        };
        let origin = OriginBuf {
            mem: Box::new(value.to_ne_bytes().to_vec()),
            count: 1,
            dt: I64,
        };
        let target = TargetSpec {
            rank: Some(0),
            disp: 0,
            count: 1,
            dt: I64,
        };
        self.win_lock(true, 0, 0, win)?;
        let r = self.get_accumulate(
            Some(origin),
            result,
            target,
            OpId::Builtin(op),
            win,
            CallCode::Fetch_and_op,
        );
        self.win_unlock(0, win)?;
        r?;
        let got = out
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or(MpiError::Intern)?;
        Ok(i64::from_ne_bytes(got[..8].try_into().expect("8 bytes")) as u64)
    }

    /// Sets the shared pointer to `value` (collective: every rank calls,
    /// rank 0 sets it between two barriers).
    pub(crate) fn shared_reset(&mut self, id: FileId, value: u64) -> MpiResult<()> {
        let comm = self.files.get(id)?.comm;
        self.barrier(comm)?;
        if self.comm_rank(comm)? == 0 {
            self.shared_update(id, value as i64, BuiltinOp::Replace)?;
        }
        self.barrier(comm)
    }

    /// Etypes of the view that `count` instances of `dt` fill.
    fn io_etypes(&self, id: FileId, dt: DatatypeId, count: usize) -> MpiResult<u64> {
        let f = self.files.get(id)?;
        let bytes = self.io_file_bytes(f.view.datarep, dt, count)?;
        Ok(bytes.div_ceil(f.view.layout.etype_size))
    }

    /// `MPI_File_write_shared`.
    pub fn file_write_shared(
        &mut self,
        id: FileId,
        region: &[u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let n = self.io_etypes(id, dt, count)?;
        let at = self.shared_update(id, n as i64, BuiltinOp::Sum)?;
        self.file_write(id, Position::Shared(at), region, count, dt)
    }

    /// `MPI_File_read_shared`: reads from the shared pointer, which moves
    /// by the data asked for (as ROMIO moves it).
    pub fn file_read_shared(
        &mut self,
        id: FileId,
        region: &mut [u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let n = self.io_etypes(id, dt, count)?;
        let at = self.shared_update(id, n as i64, BuiltinOp::Sum)?;
        self.file_read(id, Position::Shared(at), region, count, dt)
    }

    /// The place of this rank's `count` × `dt` in an ordered access:
    /// the shared pointer plus the sizes of the lower ranks' accesses.
    fn ordered_start(&mut self, id: FileId, dt: DatatypeId, count: usize) -> MpiResult<u64> {
        let comm = self.files.get(id)?.comm;
        let n = self.io_etypes(id, dt, count)? as i64;
        let sum = OpId::Builtin(BuiltinOp::Sum);
        let before = self
            .exscan(CollInput::Buf(&n.to_ne_bytes()), 1, I64, sum, comm)?
            .map_or(0, |b| {
                i64::from_ne_bytes(b[..8].try_into().expect("8 bytes"))
            });
        let total = self.allreduce(CollInput::Buf(&n.to_ne_bytes()), 1, I64, sum, comm)?;
        let total = i64::from_ne_bytes(total[..8].try_into().expect("8 bytes"));
        let base = if self.comm_rank(comm)? == 0 {
            self.shared_update(id, total, BuiltinOp::Sum)? as i64
        } else {
            0
        };
        let base = self.io_bcast_i64(comm, base)?;
        Ok((base + before) as u64)
    }

    /// `MPI_File_write_ordered` (collective, in rank order).
    pub fn file_write_ordered(
        &mut self,
        id: FileId,
        region: &[u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let at = self.ordered_start(id, dt, count)?;
        self.file_write_all(id, Position::Shared(at), region, count, dt)
    }

    /// `MPI_File_read_ordered` (collective, in rank order).
    pub fn file_read_ordered(
        &mut self,
        id: FileId,
        region: &mut [u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let at = self.ordered_start(id, dt, count)?;
        self.file_read_all(id, Position::Shared(at), region, count, dt)
    }

    /// `MPI_File_seek_shared` (collective; every rank passes the same
    /// offset and origin).
    pub fn file_seek_shared(&mut self, id: FileId, offset: i64, whence: Whence) -> MpiResult<()> {
        self.note_call();
        let comm = self.files.get(id)?.comm;
        let code = match whence {
            Whence::Set => 0,
            Whence::Cur => 1,
            Whence::End => 2,
        };
        let root_offset = self.io_bcast_i64(comm, offset)?;
        let root_code = self.io_bcast_i64(comm, code)?;
        let same = if root_offset == offset && root_code == code {
            Ok(())
        } else {
            Err(MpiError::Code(super::amode::ERR_NOT_SAME))
        };
        self.io_agree(comm, same)?;
        let end = self.file_size(id)?;
        let from = match whence {
            Whence::Set => 0,
            Whence::Cur => {
                let now = if self.comm_rank(comm)? == 0 {
                    self.shared_update(id, 0, BuiltinOp::Sum)? as i64
                } else {
                    0
                };
                self.io_bcast_i64(comm, now)?
            }
            Whence::End => self.files.get(id)?.view.layout.offset_at_byte(end) as i64,
        };
        let to = from.checked_add(offset).filter(|&t| t >= 0);
        self.io_agree(comm, to.map(drop).ok_or(MpiError::Arg))?;
        self.shared_reset(id, to.unwrap_or(0) as u64)
    }

    /// `MPI_File_get_position_shared`.
    pub fn file_position_shared(&mut self, id: FileId) -> MpiResult<i64> {
        self.note_call();
        Ok(self.shared_update(id, 0, BuiltinOp::Sum)? as i64)
    }

    /// A request that is already complete, its status saying `bytes`
    /// were transferred: the request of a nonblocking file access.
    pub fn io_done_request(&mut self, bytes: u64) -> RequestId {
        let c = Completion {
            status: Status {
                count_bytes: bytes,
                ..Status::empty()
            },
            data: None,
            output: CollOutput::None,
            freed: false,
        };
        self.reqs.add(Request::new(State::Done(c)))
    }
}
