//! The MPI tool information interface (`MPI_T_*`, MPI 3.1 chapter 14):
//! nesting of `MPI_T_init_thread`/`MPI_T_finalize`, the variable and
//! category queries, control-variable handles, performance-variable
//! sessions and handles with their start/stop/read/write/reset semantics,
//! and MPI 3.1's error classes. The tool interface lives beside the engine
//! (it may be used before `MPI_Init` and after `MPI_Finalize`); values come
//! from [`Readings`] the C layer takes from the engine.

pub mod catalogue;
pub mod qmpi;
pub mod readings;
mod sessions;
pub mod text;

pub use catalogue::{
    Catalogue, CategoryInfo, CvarInfo, EnumInfo, PvarClass, PvarInfo, Scope, ValueType, Verbosity,
};
pub use readings::{Readings, Settings};
pub use sessions::HandleSel;

use sessions::Sessions;
use std::collections::BTreeMap;

/// MPI 3.1's `MPI_T_ERR_*` classes the interface returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolError {
    /// `MPI_T_ERR_NOT_INITIALIZED`: no `MPI_T_init_thread` is in force.
    NotInitialized,
    /// `MPI_T_ERR_INVALID_INDEX`: no variable, category or enum item of that index.
    InvalidIndex,
    /// `MPI_T_ERR_INVALID_HANDLE`: not a live handle (of this session).
    InvalidHandle,
    /// `MPI_T_ERR_INVALID_SESSION`: not a live session.
    InvalidSession,
    /// `MPI_T_ERR_CVAR_SET_NEVER`: the control variable can never be set.
    CvarSetNever,
    /// `MPI_T_ERR_PVAR_NO_STARTSTOP`: a continuous variable.
    PvarNoStartStop,
    /// `MPI_T_ERR_PVAR_NO_WRITE`: a read-only variable.
    PvarNoWrite,
    /// `MPI_T_ERR_PVAR_NO_ATOMIC`: cannot be read and reset atomically.
    PvarNoAtomic,
    /// `MPI_T_ERR_INVALID_NAME`: no variable or category of that name.
    InvalidName,
    /// `MPI_T_ERR_INVALID`: a bad argument (a null pointer, a negative length).
    Invalid,
}

/// Result of a tool-interface call.
pub type ToolResult<T> = Result<T, ToolError>;

/// The tool interface of one process.
#[derive(Debug)]
pub struct ToolInterface {
    catalogue: Catalogue,
    /// `MPI_T_init_thread` calls not yet matched by `MPI_T_finalize`.
    nesting: u32,
    /// The latest values taken from the engine (kept after `MPI_Finalize`).
    readings: Readings,
    cvar_handles: BTreeMap<u64, usize>,
    sessions: Sessions,
    next_cvar_handle: u64,
}

impl ToolInterface {
    /// Not initialized, offering `catalogue`.
    pub fn new(catalogue: Catalogue) -> ToolInterface {
        ToolInterface {
            catalogue,
            nesting: 0,
            readings: Readings::default(),
            cvar_handles: BTreeMap::new(),
            sessions: Sessions::default(),
            next_cvar_handle: 1,
        }
    }

    /// The variables offered.
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// `MPI_T_init_thread`: one more level of nesting; returns the thread
    /// level provided (every level: the interface is behind one lock).
    pub fn init(&mut self, required: i32) -> i32 {
        self.nesting += 1;
        required.clamp(0, 3)
    }

    /// `MPI_T_finalize`: one level less; the last one frees every handle and session.
    pub fn finalize(&mut self) -> ToolResult<()> {
        self.check()?;
        self.nesting -= 1;
        if self.nesting == 0 {
            self.cvar_handles.clear();
            self.sessions = Sessions::default();
        }
        Ok(())
    }

    /// Whether `MPI_T_init_thread` is in force.
    pub fn is_initialized(&self) -> bool {
        self.nesting > 0
    }

    /// Takes the engine's current values (the C layer calls this before
    /// every call that reads or changes a value, and at `MPI_Finalize`).
    /// Started high-water marks take the queues' peaks since the previous
    /// readings.
    pub fn observe(&mut self, readings: Readings) {
        self.readings = readings;
        let pvars = &self.catalogue.pvars;
        for h in self.sessions.all_mut() {
            let info = &pvars[h.pvar];
            if h.is_started() && info.class == PvarClass::HighWatermark {
                h.raise(info.source.peak(&readings));
            }
        }
    }

    fn check(&self) -> ToolResult<()> {
        if self.nesting == 0 {
            Err(ToolError::NotInitialized)
        } else {
            Ok(())
        }
    }

    fn at<T>(list: &[T], index: i32) -> ToolResult<&T> {
        usize::try_from(index)
            .ok()
            .and_then(|i| list.get(i))
            .ok_or(ToolError::InvalidIndex)
    }

    fn index_of<T>(list: &[T], name: impl Fn(&T) -> bool) -> ToolResult<usize> {
        list.iter().position(name).ok_or(ToolError::InvalidName)
    }

    // ---- control variables ----

    /// `MPI_T_cvar_get_num`.
    pub fn cvar_num(&self) -> ToolResult<usize> {
        self.check()?;
        Ok(self.catalogue.cvars.len())
    }

    /// `MPI_T_cvar_get_info`.
    pub fn cvar(&self, index: i32) -> ToolResult<&CvarInfo> {
        self.check()?;
        Self::at(&self.catalogue.cvars, index)
    }

    /// `MPI_T_cvar_get_index`.
    pub fn cvar_index(&self, name: &str) -> ToolResult<usize> {
        self.check()?;
        Self::index_of(&self.catalogue.cvars, |v| v.name == name)
    }

    /// `MPI_T_cvar_handle_alloc` (every variable is bound to no object and
    /// holds one value): the handle and the value count.
    pub fn cvar_handle_alloc(&mut self, index: i32) -> ToolResult<(u64, usize)> {
        self.check()?;
        Self::at(&self.catalogue.cvars, index)?;
        let h = self.next_cvar_handle;
        self.next_cvar_handle += 1;
        self.cvar_handles.insert(h, index as usize);
        Ok((h, 1))
    }

    /// `MPI_T_cvar_handle_free`.
    pub fn cvar_handle_free(&mut self, handle: u64) -> ToolResult<()> {
        self.check()?;
        self.cvar_handles
            .remove(&handle)
            .map(|_| ())
            .ok_or(ToolError::InvalidHandle)
    }

    fn cvar_of(&self, handle: u64) -> ToolResult<&CvarInfo> {
        self.check()?;
        let i = self
            .cvar_handles
            .get(&handle)
            .ok_or(ToolError::InvalidHandle)?;
        Ok(&self.catalogue.cvars[*i])
    }

    /// `MPI_T_cvar_read`: the value (to store as the variable's C type).
    pub fn cvar_read(&self, handle: u64) -> ToolResult<(ValueType, i64)> {
        let v = self.cvar_of(handle)?;
        Ok((v.datatype, v.source.read(&self.readings)))
    }

    /// `MPI_T_cvar_write`: every variable here mirrors a setting and is
    /// constant or read-only.
    pub fn cvar_write(&mut self, handle: u64) -> ToolResult<()> {
        let v = self.cvar_of(handle)?;
        match v.scope {
            Scope::Constant | Scope::Readonly => Err(ToolError::CvarSetNever),
        }
    }

    // ---- enumerations ----

    /// `MPI_T_enum_get_info`: the enumeration of handle `index`.
    pub fn enumeration(&self, index: usize) -> ToolResult<&EnumInfo> {
        self.check()?;
        self.catalogue
            .enums
            .get(index)
            .ok_or(ToolError::InvalidHandle)
    }

    /// `MPI_T_enum_get_item`: (value, name) of item `item`.
    pub fn enum_item(&self, index: usize, item: i32) -> ToolResult<(i32, &'static str)> {
        let e = self.enumeration(index)?;
        Self::at(&e.items, item).copied()
    }

    // ---- performance variables ----

    /// `MPI_T_pvar_get_num`.
    pub fn pvar_num(&self) -> ToolResult<usize> {
        self.check()?;
        Ok(self.catalogue.pvars.len())
    }

    /// `MPI_T_pvar_get_info`.
    pub fn pvar(&self, index: i32) -> ToolResult<&PvarInfo> {
        self.check()?;
        Self::at(&self.catalogue.pvars, index)
    }

    /// `MPI_T_pvar_get_index`: name and class must both match.
    pub fn pvar_index(&self, name: &str, class: Option<PvarClass>) -> ToolResult<usize> {
        self.check()?;
        Self::index_of(&self.catalogue.pvars, |p| {
            p.name == name && Some(p.class) == class
        })
    }

    /// `MPI_T_pvar_session_create`.
    pub fn session_create(&mut self) -> ToolResult<u64> {
        self.check()?;
        Ok(self.sessions.create())
    }

    /// `MPI_T_pvar_session_free`: frees its handles too.
    pub fn session_free(&mut self, session: u64) -> ToolResult<()> {
        self.check()?;
        self.sessions.free(session)
    }

    /// `MPI_T_pvar_handle_alloc`: the handle and the value count (1).
    pub fn pvar_handle_alloc(&mut self, session: u64, index: i32) -> ToolResult<(u64, usize)> {
        self.check()?;
        let info = Self::at(&self.catalogue.pvars, index)?;
        let now = info.source.read(&self.readings);
        let h = self
            .sessions
            .alloc(session, index as usize, (info.class, info.continuous), now)?;
        Ok((h, 1))
    }

    /// `MPI_T_pvar_handle_free`.
    pub fn pvar_handle_free(&mut self, session: u64, handle: u64) -> ToolResult<()> {
        self.check()?;
        self.sessions.free_handle(session, handle)
    }

    /// `MPI_T_pvar_start`: `All` starts every non-continuous handle of the session.
    pub fn pvar_start(&mut self, session: u64, which: HandleSel) -> ToolResult<()> {
        self.each(
            session,
            which,
            |info| !info.continuous,
            ToolError::PvarNoStartStop,
            |h, info, now| h.start(info.class, now),
        )
    }

    /// `MPI_T_pvar_stop`: `All` stops every non-continuous handle of the session.
    pub fn pvar_stop(&mut self, session: u64, which: HandleSel) -> ToolResult<()> {
        self.each(
            session,
            which,
            |info| !info.continuous,
            ToolError::PvarNoStartStop,
            |h, info, now| h.stop(info.class, now),
        )
    }

    /// `MPI_T_pvar_reset`: `All` resets every writable handle of the session.
    pub fn pvar_reset(&mut self, session: u64, which: HandleSel) -> ToolResult<()> {
        self.each(
            session,
            which,
            |info| !info.readonly,
            ToolError::PvarNoWrite,
            |h, info, now| h.reset(info.class, now),
        )
    }

    /// `MPI_T_pvar_read`: the handle's value.
    pub fn pvar_read(&mut self, session: u64, handle: u64) -> ToolResult<(ValueType, u64)> {
        self.check()?;
        let (info, now) = self.handle_info(session, handle)?;
        let h = self.sessions.handle(session, handle)?;
        Ok((info.datatype, h.value(info.class, now)))
    }

    /// `MPI_T_pvar_write`: sets a writable handle's value.
    pub fn pvar_write(&mut self, session: u64, handle: u64, value: u64) -> ToolResult<()> {
        self.check()?;
        let (info, now) = self.handle_info(session, handle)?;
        if info.readonly {
            return Err(ToolError::PvarNoWrite);
        }
        self.sessions.handle_mut(session, handle)?.set(value, now);
        Ok(())
    }

    /// `MPI_T_pvar_readreset`: the value, then reset, in one step.
    pub fn pvar_readreset(&mut self, session: u64, handle: u64) -> ToolResult<(ValueType, u64)> {
        self.check()?;
        let (info, now) = self.handle_info(session, handle)?;
        if info.readonly {
            return Err(ToolError::PvarNoWrite);
        }
        if !info.atomic {
            return Err(ToolError::PvarNoAtomic);
        }
        let h = self.sessions.handle_mut(session, handle)?;
        let v = h.value(info.class, now);
        h.reset(info.class, now);
        Ok((info.datatype, v))
    }

    /// The variable behind a handle of `session` and its current source value.
    fn handle_info(&self, session: u64, handle: u64) -> ToolResult<(PvarInfo, u64)> {
        let h = self.sessions.handle(session, handle)?;
        let info = self.catalogue.pvars[h.pvar].clone();
        let now = info.source.read(&self.readings);
        Ok((info, now))
    }

    /// Applies `op` to one handle (failing with `refusal` if `allowed` says
    /// no) or to every allowed handle of the session.
    fn each(
        &mut self,
        session: u64,
        which: HandleSel,
        allowed: impl Fn(&PvarInfo) -> bool,
        refusal: ToolError,
        op: impl Fn(&mut sessions::PvarHandle, &PvarInfo, u64),
    ) -> ToolResult<()> {
        self.check()?;
        let ids = match which {
            HandleSel::One(h) => {
                let (info, _) = self.handle_info(session, h)?;
                if !allowed(&info) {
                    return Err(refusal);
                }
                vec![h]
            }
            HandleSel::All => self.sessions.handles_of(session)?,
        };
        for id in ids {
            let (info, now) = self.handle_info(session, id)?;
            if allowed(&info) {
                op(self.sessions.handle_mut(session, id)?, &info, now);
            }
        }
        Ok(())
    }

    // ---- categories ----

    /// `MPI_T_category_get_num`.
    pub fn category_num(&self) -> ToolResult<usize> {
        self.check()?;
        Ok(self.catalogue.categories.len())
    }

    /// `MPI_T_category_get_info` and the member lists.
    pub fn category(&self, index: i32) -> ToolResult<&CategoryInfo> {
        self.check()?;
        Self::at(&self.catalogue.categories, index)
    }

    /// `MPI_T_category_get_index`.
    pub fn category_index(&self, name: &str) -> ToolResult<usize> {
        self.check()?;
        Self::index_of(&self.catalogue.categories, |c| c.name == name)
    }

    /// `MPI_T_category_get_events` / `_num_events`: no category has events.
    pub fn category_events(&self, index: i32) -> ToolResult<Vec<usize>> {
        self.category(index).map(|_| Vec::new())
    }

    // ---- events and their sources (MPI 4.0): none are offered ----

    /// `MPI_T_event_get_num`: 0 (the shim raises no events).
    pub fn event_num(&self) -> ToolResult<usize> {
        self.check()?;
        Ok(0)
    }

    /// `MPI_T_event_get_info` and `MPI_T_event_handle_alloc`: no event has an index.
    pub fn event(&self, _index: i32) -> ToolResult<()> {
        self.check()?;
        Err(ToolError::InvalidIndex)
    }

    /// `MPI_T_event_get_index`: no event has a name.
    pub fn event_index(&self, _name: &str) -> ToolResult<usize> {
        self.check()?;
        Err(ToolError::InvalidName)
    }

    /// Every call on an event registration or instance: none can exist
    /// (no event can be registered for, so no callback ever runs).
    pub fn event_object(&self) -> ToolResult<()> {
        self.check()?;
        Err(ToolError::InvalidHandle)
    }

    /// `MPI_T_source_get_num`: 0 (events have no sources to time them).
    pub fn source_num(&self) -> ToolResult<usize> {
        self.check()?;
        Ok(0)
    }

    /// `MPI_T_source_get_info` and `_get_timestamp`: no source has an index.
    pub fn source(&self, _index: i32) -> ToolResult<()> {
        self.check()?;
        Err(ToolError::InvalidIndex)
    }

    /// `MPI_T_category_changed`: the categories never change while the
    /// process runs, so the update number stays 0.
    pub fn category_changed(&self) -> ToolResult<i32> {
        self.check()?;
        Ok(0)
    }
}

impl Default for ToolInterface {
    fn default() -> Self {
        ToolInterface::new(Catalogue::standard())
    }
}

#[cfg(test)]
mod tests;
