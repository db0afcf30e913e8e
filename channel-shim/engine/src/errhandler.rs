//! Error handlers (MPI 3.1 §8.3): the predefined ones, the ones the
//! program creates (`MPI_Comm_create_errhandler`), and which one each
//! communicator has.
//!
//! As in MPICH, a communicator's handler is either set (by
//! `MPI_Comm_set_errhandler`, or inherited from its parent when it was
//! created) or unset. An unset handler reads as `MPI_ERRORS_ARE_FATAL`,
//! but errors on such a communicator go to `MPI_COMM_WORLD`'s handler, as
//! do errors on handles that name no communicator.
//!
//! A created handler is reference counted: the program's handle, every
//! communicator it is set on and every handle `MPI_Comm_get_errhandler`
//! returned each hold one, so freeing the program's handle while a
//! communicator uses it leaves the handler working.

use crate::comm::CommId;
use crate::error::{MpiError, MpiResult};
use crate::object::Object;
use crate::opaque::Opaque;
use std::collections::HashMap;

/// An error handler, numbered by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrhandlerId(pub u32);

impl ErrhandlerId {
    /// `MPI_ERRORS_ARE_FATAL`.
    pub const FATAL: ErrhandlerId = ErrhandlerId(0);
    /// `MPI_ERRORS_RETURN`.
    pub const RETURN: ErrhandlerId = ErrhandlerId(1);
    /// `MPI_ERRORS_ABORT` (MPI 4.0).
    pub const ABORT: ErrhandlerId = ErrhandlerId(2);
    /// First number of a created handler.
    const FIRST_USER: u32 = 3;

    /// Whether it is one of the predefined handlers.
    pub fn is_predefined(self) -> bool {
        self.0 < Self::FIRST_USER
    }
}

/// What to do with an error.
#[derive(Clone, Debug)]
pub enum ErrorAction {
    /// End the job (`MPI_ERRORS_ARE_FATAL`, `MPI_ERRORS_ABORT`).
    Abort,
    /// Return the error code.
    Return,
    /// Call the program's function (the C layer's [`Opaque`]), then return
    /// the error code.
    Call(Opaque),
}

#[derive(Debug)]
struct Created {
    fns: Opaque,
    refs: u32,
}

/// The error handlers of one process.
#[derive(Debug)]
pub struct Errhandlers {
    created: HashMap<ErrhandlerId, Created>,
    next: u32,
    set: HashMap<Object, ErrhandlerId>,
}

impl Default for Errhandlers {
    fn default() -> Self {
        Errhandlers {
            created: HashMap::new(),
            next: ErrhandlerId::FIRST_USER,
            set: HashMap::new(),
        }
    }
}

impl Errhandlers {
    /// The predefined handlers only, none set.
    pub fn new() -> Errhandlers {
        Errhandlers::default()
    }

    /// `MPI_Comm_create_errhandler`: a handler calling the program's function.
    pub fn create(&mut self, fns: Opaque) -> ErrhandlerId {
        let id = ErrhandlerId(self.next);
        self.next += 1;
        self.created.insert(id, Created { fns, refs: 1 });
        id
    }

    /// Whether `id` names a handler (predefined or alive).
    pub fn exists(&self, id: ErrhandlerId) -> bool {
        id.is_predefined() || self.created.contains_key(&id)
    }

    pub(crate) fn add_ref(&mut self, id: ErrhandlerId) {
        if let Some(c) = self.created.get_mut(&id) {
            c.refs += 1;
        }
    }

    pub(crate) fn release(&mut self, id: ErrhandlerId) {
        if let Some(c) = self.created.get_mut(&id) {
            c.refs -= 1;
            if c.refs == 0 {
                self.created.remove(&id);
            }
        }
    }

    /// `MPI_Errhandler_free`: drops one reference (freeing a predefined
    /// handler does nothing, as in MPICH).
    pub fn free(&mut self, id: ErrhandlerId) -> MpiResult<()> {
        if !self.exists(id) {
            return Err(MpiError::Arg);
        }
        self.release(id);
        Ok(())
    }

    /// `MPI_Comm_set_errhandler`.
    pub fn set(&mut self, object: Object, id: ErrhandlerId) -> MpiResult<()> {
        if !self.exists(id) {
            return Err(MpiError::Arg);
        }
        self.add_ref(id);
        if let Some(old) = self.set.insert(object, id) {
            self.release(old);
        }
        Ok(())
    }

    /// `MPI_Comm_get_errhandler`: the handler set, or `MPI_ERRORS_ARE_FATAL`
    /// when unset. A created handler gains a reference the program must free.
    pub fn get(&mut self, object: Object) -> ErrhandlerId {
        let id = self
            .set
            .get(&object)
            .copied()
            .unwrap_or(ErrhandlerId::FATAL);
        self.add_ref(id);
        id
    }

    /// Gives a new object `child` the handler of `parent` (set or unset).
    pub fn inherit(&mut self, parent: Object, child: Object) {
        match self.set.get(&parent).copied() {
            Some(id) => {
                let _ = self.set(child, id);
            }
            None => self.forget(child),
        }
    }

    /// Drops the handler of a freed object.
    pub fn forget(&mut self, object: Object) {
        if let Some(old) = self.set.remove(&object) {
            self.release(old);
        }
    }

    /// Whether a handler was set on `object` (or inherited).
    pub fn is_set(&self, object: Object) -> bool {
        self.set.contains_key(&object)
    }

    /// The handler that handles an error on `object` (`None`: a handle
    /// that names no object), and what it does.
    pub fn handling(&self, object: Option<Object>) -> (ErrhandlerId, ErrorAction) {
        let id = object
            .and_then(|o| self.set.get(&o))
            .or_else(|| self.set.get(&Object::Comm(CommId::WORLD)))
            .copied()
            .unwrap_or(ErrhandlerId::FATAL);
        (id, self.action(id))
    }

    /// What handler `id` does.
    pub fn action(&self, id: ErrhandlerId) -> ErrorAction {
        match id {
            ErrhandlerId::RETURN => ErrorAction::Return,
            _ => match self.created.get(&id) {
                Some(c) => ErrorAction::Call(c.fns.clone()),
                None => ErrorAction::Abort,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLD: Object = Object::Comm(CommId::WORLD);
    const C: Object = Object::Comm(CommId(5));
    const D: Object = Object::Comm(CommId(6));

    fn is_return(a: ErrorAction) -> bool {
        matches!(a, ErrorAction::Return)
    }

    #[test]
    fn unset_handlers_read_fatal_and_defer_to_world() {
        let mut h = Errhandlers::new();
        assert_eq!(h.get(C), ErrhandlerId::FATAL);
        assert!(matches!(h.handling(Some(C)).1, ErrorAction::Abort));
        h.set(WORLD, ErrhandlerId::RETURN).unwrap();
        assert_eq!(h.get(C), ErrhandlerId::FATAL);
        assert!(is_return(h.handling(Some(C)).1));
        assert!(is_return(h.handling(None).1));
        h.set(C, ErrhandlerId::FATAL).unwrap();
        assert!(matches!(h.handling(Some(C)).1, ErrorAction::Abort));
        h.inherit(C, D);
        assert_eq!(h.get(D), ErrhandlerId::FATAL);
        h.forget(C);
        assert!(is_return(h.handling(Some(C)).1));
    }

    #[test]
    fn a_created_handler_lives_while_a_communicator_uses_it() {
        let mut h = Errhandlers::new();
        let e = h.create(Opaque::new(9u8));
        assert!(!e.is_predefined());
        h.set(C, e).unwrap();
        h.free(e).unwrap();
        assert!(h.exists(e));
        match h.handling(Some(C)) {
            (id, ErrorAction::Call(f)) => assert_eq!((id, f.get::<u8>()), (e, Some(&9))),
            other => panic!("{other:?}"),
        }
        // The handle MPI_Comm_get_errhandler returns is one more reference.
        assert_eq!(h.get(C), e);
        h.forget(C);
        assert!(h.exists(e));
        h.free(e).unwrap();
        assert!(!h.exists(e));
        assert_eq!(h.free(e), Err(MpiError::Arg));
        assert_eq!(h.set(C, e), Err(MpiError::Arg));
        // Predefined handlers are never freed.
        h.free(ErrhandlerId::RETURN).unwrap();
        assert!(h.exists(ErrhandlerId::RETURN));
    }
}
