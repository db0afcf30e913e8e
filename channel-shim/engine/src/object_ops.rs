//! The MPI calls on the state objects carry besides communication:
//! attributes, names, error handlers and error codes of communicators and
//! datatypes (the tables are in [`crate::attr`], [`crate::names`],
//! [`crate::errhandler`] and [`crate::error_codes`]; this module checks the
//! objects and ties their lifetimes to the communicators' and datatypes').

use crate::attr::{AttrCall, Keyval, PredefinedAttr};
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::errhandler::{ErrhandlerId, ErrorAction};
use crate::error::{MpiError, MpiResult};
use crate::error_codes::ErrorCodes;
use crate::info::CommHints;
use crate::object::{Object, ObjectKind};
use crate::opaque::Opaque;
use crate::rma::WinId;
use crate::transport::Transport;
use crate::Engine;

/// `MPI_PROC_NULL` of MPICH (the value of `MPI_HOST`).
const PROC_NULL: i32 = -1;
/// `MPI_ANY_SOURCE` of MPICH (the value of `MPI_IO`).
const ANY_SOURCE: i32 = -2;

impl<T: Transport> Engine<T> {
    /// Checks that `object` names a communicator or datatype the program holds.
    pub fn check_object(&self, object: Object) -> MpiResult<()> {
        match object {
            Object::Comm(c) => self.comm(c).map(|_| ()),
            Object::Datatype(d) => self.types.live(d).map(|_| ()),
            Object::Win(w) => self.win_info(w).map(|_| ()),
        }
    }

    // ---- attributes ----

    /// `MPI_Comm_create_keyval`, `MPI_Type_create_keyval`, `MPI_Keyval_create`.
    pub fn create_keyval(&mut self, kind: ObjectKind, fns: Opaque) -> Keyval {
        self.attrs.create_keyval(kind, fns)
    }

    /// `MPI_Comm_free_keyval` and friends.
    pub fn free_keyval(&mut self, kind: ObjectKind, k: Keyval) -> MpiResult<()> {
        self.attrs.free_keyval(kind, k)
    }

    /// The kind of objects a live keyval applies to.
    pub fn keyval_kind(&self, k: Keyval) -> Option<ObjectKind> {
        self.attrs.keyval_kind(k)
    }

    /// The value of a predefined attribute.
    pub fn predefined_attr(&self, a: PredefinedAttr) -> i32 {
        match a {
            PredefinedAttr::TagUb => self.cfg.tag_ub,
            PredefinedAttr::Host => PROC_NULL,
            PredefinedAttr::Io => ANY_SOURCE,
            PredefinedAttr::WtimeIsGlobal => 1,
            PredefinedAttr::UniverseSize => self.t.universe_size() as i32,
            PredefinedAttr::LastUsedCode => self.error_codes.last_used(),
            PredefinedAttr::AppNum => self.t.appnum(),
        }
    }

    /// `MPI_Comm_get_attr` and friends.
    pub fn attr_get(&self, object: Object, k: Keyval) -> MpiResult<Option<usize>> {
        self.check_object(object)?;
        self.attrs.get(object, k)
    }

    /// The delete callback to make before `MPI_Comm_set_attr` replaces a value.
    pub fn attr_before_set(&self, object: Object, k: Keyval) -> MpiResult<Option<AttrCall>> {
        self.check_object(object)?;
        self.attrs.before_set(object, k)
    }

    /// Stores an attribute value (after [`attr_before_set`](Self::attr_before_set)'s
    /// callback succeeded, or for a copy callback's result).
    pub fn attr_store(&mut self, object: Object, k: Keyval, value: usize) -> MpiResult<()> {
        self.check_object(object)?;
        self.attrs.store(object, k, value)
    }

    /// The delete callback `MPI_Comm_delete_attr` makes (None: not set).
    pub fn attr_before_delete(&self, object: Object, k: Keyval) -> MpiResult<Option<AttrCall>> {
        self.check_object(object)?;
        self.attrs.before_delete(object, k)
    }

    /// Removes an attribute whose delete callback succeeded.
    pub fn attr_remove(&mut self, object: Object, k: Keyval) {
        self.attrs.remove(object, k)
    }

    /// The copy callbacks duplicating `object` makes, in order.
    pub fn attr_copies(&self, object: Object) -> MpiResult<Vec<AttrCall>> {
        self.check_object(object)?;
        Ok(self.attrs.copies(object))
    }

    /// The delete callbacks freeing `object` makes, in order.
    pub fn attr_deletions(&self, object: Object) -> MpiResult<Vec<AttrCall>> {
        self.check_object(object)?;
        Ok(self.attrs.deletions(object))
    }

    /// The delete callbacks `MPI_Finalize` makes first, as MPICH makes them:
    /// `MPI_COMM_SELF`'s attributes last set first, then `MPI_COMM_WORLD`'s,
    /// then those of predefined datatypes. (Derived datatypes and other
    /// communicators the program did not free keep theirs.)
    pub fn finalize_deletions(&self) -> Vec<AttrCall> {
        let mut calls = self.attrs.deletions(Object::Comm(CommId::SELF));
        calls.extend(self.attrs.deletions(Object::Comm(CommId::WORLD)));
        let mut types: Vec<Object> = self
            .attrs
            .objects(ObjectKind::Datatype)
            .into_iter()
            .filter(|o| matches!(o, Object::Datatype(DatatypeId::Builtin(_))))
            .collect();
        types.sort_by_key(|o| match o {
            Object::Datatype(DatatypeId::Builtin(b)) => *b as usize,
            _ => 0,
        });
        for t in types {
            calls.extend(self.attrs.deletions(t));
        }
        calls
    }

    // ---- names ----

    /// `MPI_Comm_set_name`, `MPI_Type_set_name`.
    pub fn set_name(&mut self, object: Object, name: &str) -> MpiResult<()> {
        self.check_object(object)?;
        self.names.set(object, name);
        Ok(())
    }

    /// `MPI_Comm_get_name`, `MPI_Type_get_name`.
    pub fn name(&self, object: Object) -> MpiResult<String> {
        self.check_object(object)?;
        Ok(self.names.get(object))
    }

    // ---- error handlers ----

    /// `MPI_Comm_create_errhandler`: a handler calling the program's function.
    pub fn errhandler_create(&mut self, fns: Opaque) -> ErrhandlerId {
        self.errhandlers.create(fns)
    }

    /// `MPI_Errhandler_free`.
    pub fn errhandler_free(&mut self, id: ErrhandlerId) -> MpiResult<()> {
        self.errhandlers.free(id)
    }

    /// `MPI_Comm_set_errhandler`.
    pub fn comm_set_errhandler(&mut self, comm: CommId, id: ErrhandlerId) -> MpiResult<()> {
        self.comm(comm)?;
        self.errhandlers.set(Object::Comm(comm), id)
    }

    /// `MPI_Comm_get_errhandler` (a created handler gains a reference).
    pub fn comm_get_errhandler(&mut self, comm: CommId) -> MpiResult<ErrhandlerId> {
        self.comm(comm)?;
        Ok(self.errhandlers.get(Object::Comm(comm)))
    }

    /// The handler of an error on communicator `comm` (`None`, or a handle
    /// that names no live communicator, go to `MPI_COMM_WORLD`'s handler).
    pub fn error_handling(&self, comm: Option<CommId>) -> (ErrhandlerId, ErrorAction) {
        let live = comm.filter(|&c| self.comm(c).is_ok());
        self.errhandlers.handling(live.map(Object::Comm))
    }

    /// `MPI_Win_set_errhandler`.
    pub fn win_set_errhandler(&mut self, win: WinId, id: ErrhandlerId) -> MpiResult<()> {
        self.win_info(win)?;
        self.errhandlers.set(Object::Win(win), id)
    }

    /// `MPI_Win_get_errhandler` (a created handler gains a reference); a
    /// window whose handler was never set has `MPI_ERRORS_ARE_FATAL`.
    pub fn win_get_errhandler(&mut self, win: WinId) -> MpiResult<ErrhandlerId> {
        self.win_info(win)?;
        if !self.errhandlers.is_set(Object::Win(win)) {
            return Ok(ErrhandlerId::FATAL);
        }
        Ok(self.errhandlers.get(Object::Win(win)))
    }

    /// What an error on window `win` does (`None`: no such window): its
    /// handler if set, else `MPI_ERRORS_ARE_FATAL` (MPI 3.1 §8.3).
    pub fn win_error_handling(&self, win: WinId) -> Option<ErrorAction> {
        self.win_info(win).ok()?;
        if !self.errhandlers.is_set(Object::Win(win)) {
            return Some(ErrorAction::Abort);
        }
        Some(self.errhandlers.handling(Some(Object::Win(win))).1)
    }

    /// What handler `id` does (for `MPI_Comm_call_errhandler`).
    pub fn errhandler_action(&self, id: ErrhandlerId) -> MpiResult<ErrorAction> {
        if !self.errhandlers.exists(id) {
            return Err(MpiError::Arg);
        }
        Ok(self.errhandlers.action(id))
    }

    /// A new communicator `child` takes `parent`'s error handler.
    pub(crate) fn inherit_errhandler(&mut self, parent: CommId, child: CommId) {
        self.errhandlers
            .inherit(Object::Comm(parent), Object::Comm(child));
    }

    // ---- error classes and codes ----

    /// The added error classes, codes and strings.
    pub fn error_codes(&self) -> &ErrorCodes {
        &self.error_codes
    }

    /// The added error classes, codes and strings, to add more.
    pub fn error_codes_mut(&mut self) -> &mut ErrorCodes {
        &mut self.error_codes
    }

    // ---- communicator hints ----

    /// The hints of communicator `comm` (`MPI_Comm_get_info`).
    pub fn comm_hints(&self, comm: CommId) -> MpiResult<CommHints> {
        self.comm(comm)?;
        Ok(self.comm_hints.get(&comm).copied().unwrap_or_default())
    }

    /// Replaces the hints of communicator `comm` (`MPI_Comm_set_info`, and
    /// the copy `MPI_Comm_dup` makes).
    pub fn set_comm_hints(&mut self, comm: CommId, hints: CommHints) -> MpiResult<()> {
        self.comm(comm)?;
        self.comm_hints.insert(comm, hints);
        Ok(())
    }

    // ---- lifetimes ----

    /// Forgets what the state tables hold for a freed object (its name,
    /// error handler and any attribute left; the C layer made the delete
    /// callbacks first).
    pub(crate) fn forget_object(&mut self, object: Object) {
        if let Object::Comm(c) = object {
            self.comm_hints.remove(&c);
        }
        self.names.forget(object);
        self.errhandlers.forget(object);
        for c in self.attrs.deletions(object) {
            self.attrs.remove(object, c.keyval);
        }
    }

    /// `MPI_Type_free` (after the C layer made the delete callbacks): the
    /// handle goes now, the type when no operation uses it any more.
    pub fn type_free(&mut self, dt: DatatypeId) -> MpiResult<()> {
        self.types.free(dt)?;
        self.forget_object(Object::Datatype(dt));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::BuiltinType;
    use crate::mem_transport::run_world;

    #[test]
    fn state_follows_communicators_and_datatypes() {
        run_world(2, 64, |e| {
            let k = e.create_keyval(ObjectKind::Comm, Opaque::new(1u8));
            let d = e.comm_dup(CommId::WORLD).unwrap();
            e.attr_store(Object::Comm(d), k, 5).unwrap();
            e.set_name(Object::Comm(d), "dup").unwrap();
            assert_eq!(e.name(Object::Comm(d)).unwrap(), "dup");
            e.comm_free(d).unwrap();
            assert_eq!(e.attr_get(Object::Comm(d), k), Err(MpiError::Comm));
            assert_eq!(e.name(Object::Comm(d)), Err(MpiError::Comm));
            // The attribute went with the communicator: the keyval is free to go.
            e.free_keyval(ObjectKind::Comm, k).unwrap();
            assert_eq!(e.keyval_kind(k), None);

            let int = DatatypeId::Builtin(BuiltinType::Int);
            let t = e.datatypes_mut().contiguous(2, int).unwrap();
            e.set_name(Object::Datatype(t), "pair").unwrap();
            e.type_free(t).unwrap();
            assert_eq!(e.name(Object::Datatype(t)), Err(MpiError::Datatype));
            assert_eq!(e.name(Object::Datatype(int)).unwrap(), "MPI_INT");
        });
    }

    #[test]
    fn new_communicators_inherit_the_error_handler() {
        run_world(3, 64, |e| {
            assert!(matches!(e.error_handling(None).1, ErrorAction::Abort));
            e.comm_set_errhandler(CommId::WORLD, ErrhandlerId::RETURN)
                .unwrap();
            let d = e.comm_dup(CommId::WORLD).unwrap();
            assert_eq!(e.comm_get_errhandler(d).unwrap(), ErrhandlerId::RETURN);
            let s = e.comm_split(CommId::WORLD, Some(0), 0).unwrap().unwrap();
            assert_eq!(e.comm_get_errhandler(s).unwrap(), ErrhandlerId::RETURN);
            e.comm_set_errhandler(d, ErrhandlerId::FATAL).unwrap();
            assert!(matches!(e.error_handling(Some(d)).1, ErrorAction::Abort));
            e.comm_free(d).unwrap();
            // A freed communicator's errors go to MPI_COMM_WORLD's handler.
            assert!(matches!(e.error_handling(Some(d)).1, ErrorAction::Return));
            assert_eq!(e.comm_get_errhandler(d), Err(MpiError::Comm));
        });
    }

    #[test]
    fn finalize_deletes_self_then_world_then_predefined_types_last_set_first() {
        run_world(1, 64, |e| {
            let k = e.create_keyval(ObjectKind::Comm, Opaque::new(0u8));
            let j = e.create_keyval(ObjectKind::Comm, Opaque::new(1u8));
            let t = e.create_keyval(ObjectKind::Datatype, Opaque::new(2u8));
            let int = Object::Datatype(DatatypeId::Builtin(BuiltinType::Int));
            let dbl = Object::Datatype(DatatypeId::Builtin(BuiltinType::Double));
            e.attr_store(dbl, t, 7).unwrap();
            e.attr_store(Object::Comm(CommId::WORLD), k, 1).unwrap();
            e.attr_store(Object::Comm(CommId::SELF), k, 2).unwrap();
            e.attr_store(Object::Comm(CommId::SELF), j, 3).unwrap();
            e.attr_store(int, t, 4).unwrap();
            let values: Vec<usize> = e.finalize_deletions().iter().map(|c| c.value).collect();
            assert_eq!(values, [3, 2, 1, 4, 7]);
        });
    }

    #[test]
    fn predefined_attributes() {
        run_world(3, 64, |e| {
            assert_eq!(e.predefined_attr(PredefinedAttr::UniverseSize), 3);
            assert_eq!(e.predefined_attr(PredefinedAttr::TagUb), i32::MAX);
            assert_eq!(e.predefined_attr(PredefinedAttr::LastUsedCode), 0x3fff_ffff);
            let c = e.error_codes_mut().add_class().unwrap();
            assert_eq!(e.predefined_attr(PredefinedAttr::LastUsedCode), c);
        });
    }
}
