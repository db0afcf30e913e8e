//! Performance-variable sessions and handles: a handle accumulates its
//! variable's counts while started, so separate sessions (separate tools)
//! measure independently (MPI 3.1 section 14.3.7).

use super::catalogue::PvarClass;
use super::{ToolError, ToolResult};
use std::collections::BTreeMap;

/// One handle, or `MPI_T_PVAR_ALL_HANDLES` of the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleSel {
    /// The handle with this id.
    One(u64),
    /// Every handle of the session.
    All,
}

/// A handle's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PvarHandle {
    /// Index of its variable.
    pub pvar: usize,
    started: bool,
    /// Counted while started before the current start.
    accumulated: u64,
    /// The variable's source value when the handle last (re)started.
    base: u64,
}

impl PvarHandle {
    /// The value a read returns: a level reads the current value; a
    /// counter what it counted while started (its starting value is 0).
    pub fn value(&self, class: PvarClass, now: u64) -> u64 {
        match class {
            PvarClass::Level => now,
            PvarClass::HighWatermark => self.accumulated,
            PvarClass::Counter => {
                let running = if self.started {
                    now.wrapping_sub(self.base)
                } else {
                    0
                };
                self.accumulated.wrapping_add(running)
            }
        }
    }

    pub fn start(&mut self, class: PvarClass, now: u64) {
        if !self.started {
            self.started = true;
            self.base = now;
            if class == PvarClass::HighWatermark {
                self.raise(now);
            }
        }
    }

    /// Stops: a counter keeps what it counted, a high-water mark its mark.
    pub fn stop(&mut self, class: PvarClass, now: u64) {
        if self.started && class == PvarClass::Counter {
            self.accumulated = self.accumulated.wrapping_add(now.wrapping_sub(self.base));
        }
        self.started = false;
    }

    /// Sets the value (write); a started handle counts on from it.
    pub fn set(&mut self, value: u64, now: u64) {
        self.accumulated = value;
        self.base = now;
    }

    /// Back to the starting value: 0 for a counter, the current level for
    /// a high-water mark.
    pub fn reset(&mut self, class: PvarClass, now: u64) {
        let start = if class == PvarClass::HighWatermark {
            now
        } else {
            0
        };
        self.set(start, now);
    }

    /// A started high-water mark saw `peak`.
    pub fn raise(&mut self, peak: u64) {
        self.accumulated = self.accumulated.max(peak);
    }

    pub fn is_started(&self) -> bool {
        self.started
    }
}

/// The live sessions and their handles.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    sessions: BTreeMap<u64, BTreeMap<u64, PvarHandle>>,
    next_id: u64,
}

impl Sessions {
    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub fn create(&mut self) -> u64 {
        let id = self.fresh_id();
        self.sessions.insert(id, BTreeMap::new());
        id
    }

    pub fn free(&mut self, session: u64) -> ToolResult<()> {
        self.sessions
            .remove(&session)
            .map(|_| ())
            .ok_or(ToolError::InvalidSession)
    }

    fn session_mut(&mut self, session: u64) -> ToolResult<&mut BTreeMap<u64, PvarHandle>> {
        self.sessions
            .get_mut(&session)
            .ok_or(ToolError::InvalidSession)
    }

    /// A new handle at its starting value; a continuous variable's starts at once.
    pub fn alloc(
        &mut self,
        session: u64,
        pvar: usize,
        (class, continuous): (PvarClass, bool),
        now: u64,
    ) -> ToolResult<u64> {
        self.session_mut(session)?;
        let id = self.fresh_id();
        let mut h = PvarHandle {
            pvar,
            started: continuous,
            accumulated: 0,
            base: now,
        };
        h.reset(class, now);
        self.session_mut(session)?.insert(id, h);
        Ok(id)
    }

    pub fn free_handle(&mut self, session: u64, handle: u64) -> ToolResult<()> {
        self.session_mut(session)?
            .remove(&handle)
            .map(|_| ())
            .ok_or(ToolError::InvalidHandle)
    }

    pub fn handle(&self, session: u64, handle: u64) -> ToolResult<&PvarHandle> {
        self.sessions
            .get(&session)
            .ok_or(ToolError::InvalidSession)?
            .get(&handle)
            .ok_or(ToolError::InvalidHandle)
    }

    pub fn handle_mut(&mut self, session: u64, handle: u64) -> ToolResult<&mut PvarHandle> {
        self.session_mut(session)?
            .get_mut(&handle)
            .ok_or(ToolError::InvalidHandle)
    }

    /// Every handle of every session.
    pub fn all_mut(&mut self) -> impl Iterator<Item = &mut PvarHandle> {
        self.sessions.values_mut().flat_map(|s| s.values_mut())
    }

    pub fn handles_of(&self, session: u64) -> ToolResult<Vec<u64>> {
        Ok(self
            .sessions
            .get(&session)
            .ok_or(ToolError::InvalidSession)?
            .keys()
            .copied()
            .collect())
    }
}
