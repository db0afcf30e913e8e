//! Passive-target synchronisation: `MPI_Win_lock`/`unlock`, `lock_all`,
//! the flushes and `MPI_Win_sync`, and the target's lock queue.
//!
//! A lock is a request to the target (an RMA lock message saying shared or
//! exclusive) answered by a grant once the target's queue lets it in, in
//! arrival order; an unlock first waits for the answers of the origin's
//! operations on that target, then tells the target, which grants the
//! next waiting locks. The target serves its queue whenever its engine
//! reads messages (inside any MPI call). `MPI_MODE_NOCHECK` skips the
//! messages: the program asserts no conflicting lock exists.

use super::{origin::rma_envelope, WinId};
use crate::envelope::{CallCode, Envelope, Kind};
use crate::error::{MpiError, MpiResult};
use crate::transport::Transport;
use crate::Engine;
use std::collections::{HashMap, VecDeque};

/// `MPI_MODE_NOCHECK` of MPICH.
pub const MODE_NOCHECK: i32 = 1024;

/// The locks a target holds on its window and the ones waiting.
#[derive(Debug, Default)]
pub(crate) struct LockQueue {
    /// The world rank holding the exclusive lock.
    exclusive: Option<u32>,
    /// Shared locks held, per world rank.
    shared: HashMap<u32, u32>,
    /// Requests not granted yet: (origin, exclusive), oldest first.
    waiting: VecDeque<(u32, bool)>,
}

impl LockQueue {
    fn grantable(&self, exclusive: bool) -> bool {
        self.exclusive.is_none() && (!exclusive || self.shared.values().all(|&n| n == 0))
    }

    fn hold(&mut self, origin: u32, exclusive: bool) {
        if exclusive {
            self.exclusive = Some(origin);
        } else {
            *self.shared.entry(origin).or_insert(0) += 1;
        }
    }

    /// A request arrives: true if granted now (else it waits its turn).
    pub(crate) fn request(&mut self, origin: u32, exclusive: bool) -> bool {
        if self.waiting.is_empty() && self.grantable(exclusive) {
            self.hold(origin, exclusive);
            true
        } else {
            self.waiting.push_back((origin, exclusive));
            false
        }
    }

    /// `origin` lets go of a lock; the origins granted now, in order.
    pub(crate) fn release(&mut self, origin: u32) -> Vec<u32> {
        if self.exclusive == Some(origin) {
            self.exclusive = None;
        } else if let Some(n) = self.shared.get_mut(&origin) {
            *n = n.saturating_sub(1);
        }
        let mut granted = Vec::new();
        while let Some(&(o, ex)) = self.waiting.front() {
            if !self.grantable(ex) {
                break;
            }
            self.waiting.pop_front();
            self.hold(o, ex);
            granted.push(o);
        }
        granted
    }
}

impl<T: Transport> Engine<T> {
    fn send_lock_message(
        &mut self,
        win: WinId,
        kind: Kind,
        call: CallCode,
        dst: u32,
        tag: i32,
    ) -> MpiResult<()> {
        let context = self.comm(self.window(win)?.comm)?.context;
        let mut env = rma_envelope(kind, call, self.rank(), dst, context, 0);
        env.tag = tag;
        self.tsend(dst, &env, &[]);
        Ok(())
    }

    /// Asks each of `dsts` for a lock and waits for every grant.
    fn acquire(
        &mut self,
        win: WinId,
        dsts: &[u32],
        exclusive: bool,
        call: CallCode,
    ) -> MpiResult<()> {
        for &d in dsts {
            self.send_lock_message(win, Kind::RmaLock, call, d, exclusive as i32)?;
        }
        for &d in dsts {
            loop {
                let w = self.window_mut(win)?;
                match w.grants.get_mut(&d) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        break;
                    }
                    _ => {}
                }
                self.progress(true);
            }
        }
        Ok(())
    }

    /// `MPI_Win_lock` on group rank `rank`.
    pub fn win_lock(
        &mut self,
        exclusive: bool,
        rank: u32,
        assert: i32,
        win: WinId,
    ) -> MpiResult<()> {
        self.note_call();
        let dst = self.comm(self.window(win)?.comm)?.world_of(rank)?;
        let w = self.window(win)?;
        if w.locked.contains_key(&dst) || w.locked_all || w.access.is_some() {
            return Err(MpiError::RmaSync);
        }
        let nocheck = assert & MODE_NOCHECK != 0;
        if !nocheck {
            self.acquire(win, &[dst], exclusive, CallCode::Win_lock)?;
        }
        self.window_mut(win)?.locked.insert(dst, nocheck);
        Ok(())
    }

    /// `MPI_Win_unlock`: completes the operations on the target, then
    /// releases the lock.
    pub fn win_unlock(&mut self, rank: u32, win: WinId) -> MpiResult<()> {
        self.note_call();
        let dst = self.comm(self.window(win)?.comm)?.world_of(rank)?;
        let nocheck = self
            .window_mut(win)?
            .locked
            .remove(&dst)
            .ok_or(MpiError::RmaSync)?;
        let settled = self.settle_to(win, Some(dst));
        if !nocheck {
            self.send_lock_message(win, Kind::RmaUnlock, CallCode::Win_unlock, dst, 0)?;
        }
        settled
    }

    /// `MPI_Win_lock_all`: a shared lock on every member.
    pub fn win_lock_all(&mut self, assert: i32, win: WinId) -> MpiResult<()> {
        self.note_call();
        let w = self.window(win)?;
        if w.locked_all || !w.locked.is_empty() || w.access.is_some() {
            return Err(MpiError::RmaSync);
        }
        let members = self.comm(w.comm)?.group.ranks.clone();
        if assert & MODE_NOCHECK == 0 {
            self.acquire(win, &members, false, CallCode::Win_lock_all)?;
            self.window_mut(win)?.locked_all_checked = true;
        }
        self.window_mut(win)?.locked_all = true;
        Ok(())
    }

    /// `MPI_Win_unlock_all`.
    pub fn win_unlock_all(&mut self, win: WinId) -> MpiResult<()> {
        self.note_call();
        let w = self.window_mut(win)?;
        if !w.locked_all {
            return Err(MpiError::RmaSync);
        }
        w.locked_all = false;
        let checked = std::mem::take(&mut w.locked_all_checked);
        let members = self.comm(self.window(win)?.comm)?.group.ranks.clone();
        let settled = self.settle_to(win, None);
        if checked {
            for d in members {
                self.send_lock_message(win, Kind::RmaUnlock, CallCode::Win_unlock_all, d, 0)?;
            }
        }
        settled
    }

    /// `MPI_Win_flush` and `MPI_Win_flush_local` on group rank `rank`
    /// (`None`: `MPI_Win_flush_all`, `MPI_Win_flush_local_all`): the
    /// operations issued so far are answered, so complete at the target.
    pub fn win_flush(&mut self, rank: Option<u32>, win: WinId) -> MpiResult<()> {
        self.note_call();
        let dst = match rank {
            Some(r) => Some(self.comm(self.window(win)?.comm)?.world_of(r)?),
            None => None,
        };
        self.settle_to(win, dst)
    }

    /// `MPI_Win_sync`: the window's memory is the program's (unified
    /// model), so there is nothing to copy; a memory fence makes this
    /// process's stores to a shared window visible to the other members'
    /// loads (and theirs to ours). As in MPICH, only inside a passive
    /// target epoch (`MPI_ERR_RMA_SYNC` outside one).
    pub fn win_sync(&mut self, win: WinId) -> MpiResult<()> {
        self.note_call();
        let w = self.window(win)?;
        if !w.locked_all && w.locked.is_empty() {
            return Err(MpiError::RmaSync);
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    /// A lock, grant or unlock message for `win`.
    pub(super) fn on_lock_message(&mut self, win: WinId, env: &Envelope) {
        let Ok(w) = self.window_mut(win) else {
            return;
        };
        let granted = match env.kind {
            Kind::RmaLock => {
                if w.locks.request(env.src, env.tag != 0) {
                    vec![env.src]
                } else {
                    Vec::new()
                }
            }
            Kind::RmaUnlock => w.locks.release(env.src),
            _ => {
                *w.grants.entry(env.src).or_insert(0) += 1;
                Vec::new()
            }
        };
        for o in granted {
            let _ = self.send_lock_message(win, Kind::RmaLockGranted, CallCode::Win_lock, o, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LockQueue;

    #[test]
    fn shared_locks_share_exclusive_ones_wait_in_arrival_order() {
        let mut q = LockQueue::default();
        assert!(q.request(1, false));
        assert!(q.request(2, false));
        assert!(!q.request(3, true));
        // A shared request behind a waiting exclusive one waits too.
        assert!(!q.request(4, false));
        assert_eq!(q.release(1), Vec::<u32>::new());
        assert_eq!(q.release(2), vec![3]);
        assert_eq!(q.release(3), vec![4]);
        assert_eq!(q.release(4), Vec::<u32>::new());
        // Free again: an exclusive request is granted at once.
        assert!(q.request(2, true));
    }
}
