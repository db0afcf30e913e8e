//! One-sided communication (MPI RMA), active target: windows, the
//! operations, and fence and post/start/complete/wait synchronisation.
//!
//! Every operation is messages through the transport (see
//! [`crate::envelope`]): the origin sends a request naming the target
//! location (displacement, the target datatype's layout, count, and the
//! piece of the packed stream it covers; requests above the engine's
//! chunk size go in pieces), the target applies it to its window memory
//! the next time its engine reads messages (inside any MPI call) and
//! answers with an ack or a reply carrying the old contents. An origin's
//! synchronisation call waits until every operation it issued on the
//! window was answered, so after `MPI_Win_fence`'s barrier (or an
//! `MPI_Win_complete` message, which travels behind the operations'
//! answers) every operation on a target is applied.
//!
//! A window's messages travel on the context id of the window's hidden
//! communicator (a duplicate of the one it was created on), which every
//! member knows by the same number. Messages for a window a rank has not
//! finished creating yet wait until it has.

pub mod memory;
pub mod origin;
pub mod passive;
pub mod service;
pub mod shared;
mod target;
#[cfg(test)]
mod tests;
pub mod wire;

use crate::comm::CommId;
use crate::envelope::{CallCode, Envelope, Kind};
use crate::error::{MpiError, MpiResult};
use crate::group::GroupId;
use crate::message_data::{MessageData, UserBuffer};
use crate::transport::Transport;
use crate::Engine;
use std::collections::HashMap;

/// A window, numbered by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WinId(pub u32);

/// How a window's memory came to be (`MPI_WIN_CREATE_FLAVOR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `MPI_Win_create`: memory the program owns.
    Create,
    /// `MPI_Win_allocate`: memory the C layer allocated for the window.
    Allocate,
    /// `MPI_Win_create_dynamic`: regions the program attaches, addressed
    /// by absolute address.
    Dynamic,
    /// `MPI_Win_allocate_shared`: this member's segment of memory the
    /// members on one host share (see [`shared`]).
    Shared,
}

/// What the program asked for a window (`MPI_Win_get_attr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinInfo {
    /// `MPI_WIN_BASE`: the address of the window's first byte.
    pub base: usize,
    /// `MPI_WIN_SIZE`, bytes.
    pub size: u64,
    /// `MPI_WIN_DISP_UNIT`, bytes.
    pub disp_unit: u32,
    /// `MPI_WIN_CREATE_FLAVOR`.
    pub flavor: Flavor,
}

/// One window of this process.
pub(crate) struct Window {
    info: WinInfo,
    /// The hidden duplicate of the communicator it was created on.
    comm: CommId,
    /// The window's memory, as the C layer handed it over.
    memory: memory::WinMemory,
    /// Operations this process issued on the window and whose answer has
    /// not arrived, per target world rank.
    outstanding: HashMap<u32, u32>,
    /// The first error a target reported for one of them.
    error: Option<MpiError>,
    /// `MPI_Win_post` messages arrived (and not yet used by a start), per
    /// world rank.
    posts: HashMap<u32, u32>,
    /// `MPI_Win_complete` messages arrived (not yet used by a wait).
    completes: HashMap<u32, u32>,
    /// The targets of the access epoch `MPI_Win_start` opened (world ranks).
    access: Option<Vec<u32>>,
    /// The origins of the exposure epoch `MPI_Win_post` opened.
    exposure: Option<Vec<u32>>,
    /// Passive target: the locks this process holds on other windows
    /// (target world rank → taken with `MPI_MODE_NOCHECK`).
    locked: HashMap<u32, bool>,
    /// `MPI_Win_lock_all` holds, and whether it asked for the locks.
    locked_all: bool,
    locked_all_checked: bool,
    /// Lock grants arrived and not yet taken, per target world rank.
    grants: HashMap<u32, u32>,
    /// The locks on this window, held and waiting.
    locks: passive::LockQueue,
    /// `MPI_Win_allocate_shared`: the members' segments, and the address
    /// at which this process mapped them.
    shared: Option<(shared::SharedLayout, usize)>,
    /// Its hints (`MPI_Win_set_info`, `MPI_Win_get_info`).
    hints: crate::info::WinHints,
}

/// An operation this process issued, waiting for its answers.
pub(crate) struct OriginOp {
    win: WinId,
    /// Target world rank.
    dst: u32,
    /// The request of `MPI_Rput` and friends, completed with the operation.
    request: Option<crate::request::RequestId>,
    /// Messages of the operation not yet answered.
    pieces_left: u32,
    /// Where the old contents go (get, get-accumulate, compare-and-swap).
    result: Option<MessageData>,
}

/// The one-sided state of one process.
#[derive(Default)]
pub(crate) struct RmaState {
    windows: HashMap<WinId, Window>,
    by_context: HashMap<u32, WinId>,
    next: u32,
    ops: HashMap<u32, OriginOp>,
    /// Messages for windows not created here yet, by context id.
    early: HashMap<u32, Vec<(Envelope, Vec<u8>)>>,
}

impl<T: Transport> Engine<T> {
    fn window(&self, win: WinId) -> MpiResult<&Window> {
        self.rma.windows.get(&win).ok_or(MpiError::Win)
    }

    fn window_mut(&mut self, win: WinId) -> MpiResult<&mut Window> {
        self.rma.windows.get_mut(&win).ok_or(MpiError::Win)
    }

    /// `MPI_Win_create` / `MPI_Win_allocate` (collective over `comm`):
    /// `memory` is the window's bytes, starting at address `base`.
    pub fn win_create(
        &mut self,
        memory: Box<dyn UserBuffer>,
        base: usize,
        disp_unit: u32,
        flavor: Flavor,
        comm: CommId,
    ) -> MpiResult<WinId> {
        self.note_call();
        self.new_window(
            memory::WinMemory::Fixed(memory),
            base,
            disp_unit,
            flavor,
            comm,
        )
    }

    /// `MPI_Win_create_dynamic` (collective over `comm`): no memory until
    /// the program attaches some; displacements are addresses.
    pub fn win_create_dynamic(&mut self, comm: CommId) -> MpiResult<WinId> {
        self.note_call();
        self.new_window(
            memory::WinMemory::Dynamic(Vec::new()),
            0,
            1,
            Flavor::Dynamic,
            comm,
        )
    }

    /// `MPI_Win_attach`: `memory` (at address `start`) becomes part of the
    /// dynamic window.
    pub fn win_attach(
        &mut self,
        win: WinId,
        start: usize,
        memory: Box<dyn UserBuffer>,
    ) -> MpiResult<()> {
        self.note_call();
        self.window_mut(win)?.memory.attach(start, memory)
    }

    /// `MPI_Win_detach` of the region attached at address `start`.
    pub fn win_detach(&mut self, win: WinId, start: usize) -> MpiResult<()> {
        self.note_call();
        self.window_mut(win)?.memory.detach(start)
    }

    fn new_window(
        &mut self,
        memory: memory::WinMemory,
        base: usize,
        disp_unit: u32,
        flavor: Flavor,
        comm: CommId,
    ) -> MpiResult<WinId> {
        if self.comm(comm)?.is_inter() {
            return Err(MpiError::Comm);
        }
        if disp_unit == 0 {
            return Err(MpiError::Disp);
        }
        let hidden = self.dup_hidden(comm, CallCode::Win_create)?;
        let context = self.comm(hidden)?.context;
        let id = WinId(self.rma.next);
        self.rma.next += 1;
        let size = match &memory {
            memory::WinMemory::Fixed(m) => m.bytes().len() as u64,
            memory::WinMemory::Dynamic(_) => 0,
        };
        self.rma.windows.insert(
            id,
            Window {
                info: WinInfo {
                    base,
                    size,
                    disp_unit,
                    flavor,
                },
                comm: hidden,
                memory,
                outstanding: HashMap::new(),
                error: None,
                posts: HashMap::new(),
                completes: HashMap::new(),
                access: None,
                exposure: None,
                locked: HashMap::new(),
                locked_all: false,
                locked_all_checked: false,
                grants: HashMap::new(),
                locks: Default::default(),
                shared: None,
                hints: Default::default(),
            },
        );
        self.rma.by_context.insert(context, id);
        for (env, payload) in self.rma.early.remove(&context).unwrap_or_default() {
            self.on_rma(env, &payload);
        }
        Ok(id)
    }

    /// `MPI_Win_set_info`, and the info a window was created with.
    pub fn win_set_hints(&mut self, win: WinId, pairs: &crate::info::Pairs) -> MpiResult<()> {
        let w = self.window_mut(win)?;
        w.hints = w.hints.clone().updated(pairs);
        Ok(())
    }

    /// `MPI_Win_get_info`: the window's hints.
    pub fn win_hints(&self, win: WinId) -> MpiResult<crate::info::Pairs> {
        Ok(self.window(win)?.hints.pairs())
    }

    /// What `MPI_Win_get_attr` reports of a window.
    pub fn win_info(&self, win: WinId) -> MpiResult<WinInfo> {
        Ok(self.window(win)?.info)
    }

    /// `MPI_Win_get_group`: a new group of the window's members.
    pub fn win_group(&mut self, win: WinId) -> MpiResult<GroupId> {
        let c = self.window(win)?.comm;
        self.comm_group(c)
    }

    /// `MPI_Win_free` (collective): waits for this process's operations,
    /// then for every member (so nobody still targets the window), and
    /// gives the window's memory back to the C layer.
    pub fn win_free(&mut self, win: WinId) -> MpiResult<memory::WinMemory> {
        self.note_call();
        let w = self.window(win)?;
        if w.access.is_some() || w.exposure.is_some() || !w.locked.is_empty() || w.locked_all {
            return Err(MpiError::RmaSync);
        }
        let comm = w.comm;
        let settled = self.settle(win);
        self.hidden_barrier(comm, CallCode::Win_free)?;
        settled?;
        let w = self.rma.windows.remove(&win).ok_or(MpiError::Win)?;
        self.rma.by_context.retain(|_, id| *id != win);
        self.forget_object(crate::object::Object::Win(win));
        self.comm_free(comm)?;
        Ok(w.memory)
    }

    /// Progresses until every operation this process issued on `win` is
    /// answered; the first error a target reported, if any.
    fn settle(&mut self, win: WinId) -> MpiResult<()> {
        self.settle_to(win, None)
    }

    /// Like [`settle`](Self::settle), for the operations on world rank
    /// `dst` only (`None`: all).
    fn settle_to(&mut self, win: WinId, dst: Option<u32>) -> MpiResult<()> {
        loop {
            let out = &self.window(win)?.outstanding;
            let busy = match dst {
                Some(d) => out.get(&d).is_some_and(|&n| n > 0),
                None => out.values().any(|&n| n > 0),
            };
            if !busy {
                break;
            }
            self.progress(true);
        }
        match self.window_mut(win)?.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// `MPI_Win_fence` (collective): completes this process's operations,
    /// then a barrier over the window's members, so every operation on
    /// any member's window is applied when it returns. Assertions
    /// (`MPI_MODE_NOSTORE`, `NOPUT`, `NOPRECEDE`, `NOSUCCEED`) are hints
    /// only: a fence always does both steps.
    pub fn win_fence(&mut self, win: WinId) -> MpiResult<()> {
        self.note_call();
        let w = self.window(win)?;
        if w.access.is_some() || w.exposure.is_some() {
            return Err(MpiError::RmaSync);
        }
        let comm = w.comm;
        let settled = self.settle(win);
        self.hidden_barrier(comm, CallCode::Win_fence)?;
        settled
    }

    /// The world ranks of a group's members.
    fn group_world_ranks(&self, group: GroupId) -> MpiResult<Vec<u32>> {
        Ok(self.groups.get(group)?.ranks.clone())
    }

    /// Sends a post or complete message of `win` to each of `ranks`.
    fn send_sync(
        &mut self,
        win: WinId,
        kind: Kind,
        call: CallCode,
        ranks: &[u32],
    ) -> MpiResult<()> {
        let context = self.comm(self.window(win)?.comm)?.context;
        let me = self.rank();
        for &dst in ranks {
            let env = origin::rma_envelope(kind, call, me, dst, context, 0);
            self.tsend(dst, &env, &[]);
        }
        Ok(())
    }

    /// `MPI_Win_post`: exposes the window to the members of `group`.
    pub fn win_post(&mut self, group: GroupId, win: WinId) -> MpiResult<()> {
        self.note_call();
        let ranks = self.group_world_ranks(group)?;
        let w = self.window_mut(win)?;
        if w.exposure.is_some() {
            return Err(MpiError::RmaSync);
        }
        w.exposure = Some(ranks.clone());
        self.send_sync(win, Kind::RmaPost, CallCode::Win_post, &ranks)
    }

    /// `MPI_Win_start`: opens an access epoch to the members of `group`,
    /// waiting until each has posted.
    pub fn win_start(&mut self, group: GroupId, win: WinId) -> MpiResult<()> {
        self.note_call();
        let ranks = self.group_world_ranks(group)?;
        if self.window(win)?.access.is_some() {
            return Err(MpiError::RmaSync);
        }
        while !take_all(&mut self.window_mut(win)?.posts, &ranks) {
            self.progress(true);
        }
        self.window_mut(win)?.access = Some(ranks);
        Ok(())
    }

    /// `MPI_Win_complete`: completes the access epoch's operations and
    /// tells each target.
    pub fn win_complete(&mut self, win: WinId) -> MpiResult<()> {
        self.note_call();
        let ranks = self
            .window_mut(win)?
            .access
            .take()
            .ok_or(MpiError::RmaSync)?;
        let settled = self.settle(win);
        self.send_sync(win, Kind::RmaComplete, CallCode::Win_complete, &ranks)?;
        settled
    }

    /// `MPI_Win_wait`: waits until every origin of the exposure epoch has
    /// completed, and closes it.
    pub fn win_wait(&mut self, win: WinId) -> MpiResult<()> {
        self.note_call();
        while !self.win_exposure_done(win)? {
            self.progress(true);
        }
        Ok(())
    }

    /// `MPI_Win_test`: whether the exposure epoch is over (then closed).
    pub fn win_test(&mut self, win: WinId) -> MpiResult<bool> {
        self.note_call();
        self.progress(false);
        self.win_exposure_done(win)
    }

    fn win_exposure_done(&mut self, win: WinId) -> MpiResult<bool> {
        let w = self.window_mut(win)?;
        let ranks = w.exposure.clone().ok_or(MpiError::RmaSync)?;
        if take_all(&mut w.completes, &ranks) {
            w.exposure = None;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Handles an arrived one-sided message.
    pub(crate) fn on_rma(&mut self, env: Envelope, payload: &[u8]) {
        let Some(&win) = self.rma.by_context.get(&env.context) else {
            if matches!(
                env.kind,
                Kind::RmaAck | Kind::RmaReply | Kind::RmaLockGranted
            ) {
                self.counters.bad_messages += 1;
            } else {
                let early = self.rma.early.entry(env.context).or_default();
                early.push((env, payload.to_vec()));
            }
            return;
        };
        match env.kind {
            Kind::RmaPost | Kind::RmaComplete => {
                if let Ok(w) = self.window_mut(win) {
                    let counts = if env.kind == Kind::RmaPost {
                        &mut w.posts
                    } else {
                        &mut w.completes
                    };
                    *counts.entry(env.src).or_insert(0) += 1;
                }
            }
            Kind::RmaAck | Kind::RmaReply => self.on_rma_answer(env, payload),
            Kind::RmaLock | Kind::RmaLockGranted | Kind::RmaUnlock => {
                self.on_lock_message(win, &env)
            }
            _ => self.apply_rma(win, env, payload),
        }
    }
}

/// If every rank of `ranks` has a count, takes one from each and says so.
fn take_all(counts: &mut HashMap<u32, u32>, ranks: &[u32]) -> bool {
    if !ranks.iter().all(|r| counts.get(r).is_some_and(|&n| n > 0)) {
        return false;
    }
    for r in ranks {
        if let Some(n) = counts.get_mut(r) {
            *n -= 1;
        }
    }
    true
}

impl<T: Transport> Engine<T> {
    /// A duplicate of `comm` the program never sees (a window's), made
    /// with call code `call`.
    fn dup_hidden(&mut self, comm: CommId, call: CallCode) -> MpiResult<CommId> {
        let t = self.dup_task(comm, call)?;
        let r = self.start_task(t.duplicate());
        self.wait_comm(r)?.ok_or(MpiError::Other)
    }

    /// A barrier over a window's hidden communicator, with call code `call`.
    fn hidden_barrier(&mut self, comm: CommId, call: CallCode) -> MpiResult<()> {
        let t = self.barrier_task(comm, call)?;
        self.run_task(t).map(|_| ())
    }
}
