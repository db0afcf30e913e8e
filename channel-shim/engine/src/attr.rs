//! Attribute caching (MPI 3.1 §6.7): keyvals and the attribute values set
//! on communicators and datatypes.
//!
//! The copy and delete callbacks of a keyval are C functions the engine
//! keeps as an [`Opaque`] and never calls: each operation that needs them
//! returns the [`AttrCall`]s to make, in order, and the C layer makes them
//! without the engine's lock (a callback may call MPI), then tells the
//! engine the outcome. The rules kept here:
//!
//! - a keyval lives while the program holds it or any attribute uses it:
//!   `free_keyval` only drops the program's reference (freeing it again, or
//!   freeing a keyval that is gone, does nothing, as in MPICH);
//! - replacing or deleting an attribute first calls the delete callback on
//!   the old value; if that fails, the attribute stays;
//! - duplicating an object calls each copy callback in the order the
//!   attributes were set; freeing one (and `MPI_Finalize` for
//!   `MPI_COMM_SELF`) calls the delete callbacks in the reverse order
//!   (MPI 2.2: LIFO), stopping at the first failure.

use crate::error::{MpiError, MpiResult};
use crate::object::{Object, ObjectKind};
use crate::opaque::Opaque;
use std::collections::HashMap;

/// The predefined attributes of `MPI_COMM_WORLD` (MPI 3.1 §8.1.2 and
/// `MPI_LASTUSEDCODE`, `MPI_APPNUM`): read-only `int`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredefinedAttr {
    /// `MPI_TAG_UB`: the largest tag.
    TagUb,
    /// `MPI_HOST`: no host process (`MPI_PROC_NULL`).
    Host,
    /// `MPI_IO`: every rank may do I/O (`MPI_ANY_SOURCE`).
    Io,
    /// `MPI_WTIME_IS_GLOBAL`: yes, `MPI_Wtime` is the job's scaled clock.
    WtimeIsGlobal,
    /// `MPI_UNIVERSE_SIZE`: the processes the job may hold.
    UniverseSize,
    /// `MPI_LASTUSEDCODE`: the last error class added.
    LastUsedCode,
    /// `MPI_APPNUM`: the command's index in the spawn that started the
    /// process (0 otherwise).
    AppNum,
}

/// A keyval, numbered by the engine (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Keyval(pub u32);

#[derive(Debug)]
struct KeyvalEntry {
    kind: ObjectKind,
    fns: Opaque,
    /// The program has freed its handle.
    freed: bool,
    /// Attributes currently set with it.
    uses: u32,
}

/// One attribute value (a `void *` in C, an address-sized integer in Fortran).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Attr {
    keyval: Keyval,
    value: usize,
}

/// A callback the C layer must make: the copy or delete callback of
/// `keyval` (in `fns`) for `value` set on `object`.
#[derive(Clone, Debug)]
pub struct AttrCall {
    /// The object the attribute is set on.
    pub object: Object,
    /// Its keyval.
    pub keyval: Keyval,
    /// The keyval's callbacks, as the C layer registered them.
    pub fns: Opaque,
    /// The attribute's value.
    pub value: usize,
}

/// The keyvals and attributes of one process.
#[derive(Debug, Default)]
pub struct Attributes {
    keyvals: HashMap<Keyval, KeyvalEntry>,
    next: u32,
    /// Attributes per object, in the order they were first set.
    values: HashMap<Object, Vec<Attr>>,
}

impl Attributes {
    /// No keyvals.
    pub fn new() -> Attributes {
        Attributes::default()
    }

    /// `MPI_Comm_create_keyval` and friends: a keyval for objects of `kind`
    /// with the program's callbacks.
    pub fn create_keyval(&mut self, kind: ObjectKind, fns: Opaque) -> Keyval {
        let k = Keyval(self.next);
        self.next += 1;
        self.keyvals.insert(
            k,
            KeyvalEntry {
                kind,
                fns,
                freed: false,
                uses: 0,
            },
        );
        k
    }

    /// The kind of objects a live keyval applies to.
    pub fn keyval_kind(&self, k: Keyval) -> Option<ObjectKind> {
        self.keyvals.get(&k).map(|e| e.kind)
    }

    /// `MPI_Comm_free_keyval` and friends: drops the program's reference.
    /// A keyval of another kind is `MPI_ERR_KEYVAL`; one already freed, or
    /// gone, is left alone.
    pub fn free_keyval(&mut self, kind: ObjectKind, k: Keyval) -> MpiResult<()> {
        let Some(e) = self.keyvals.get_mut(&k) else {
            return Ok(());
        };
        if e.kind != kind {
            return Err(MpiError::Keyval);
        }
        e.freed = true;
        self.release_if_unused(k);
        Ok(())
    }

    fn release_if_unused(&mut self, k: Keyval) {
        if self.keyvals.get(&k).is_some_and(|e| e.freed && e.uses == 0) {
            self.keyvals.remove(&k);
        }
    }

    /// A live keyval that applies to `object`.
    fn entry(&self, object: Object, k: Keyval) -> MpiResult<&KeyvalEntry> {
        match self.keyvals.get(&k) {
            Some(e) if e.kind == object.kind() => Ok(e),
            _ => Err(MpiError::Keyval),
        }
    }

    fn find(&self, object: Object, k: Keyval) -> Option<Attr> {
        self.values
            .get(&object)
            .and_then(|v| v.iter().find(|a| a.keyval == k))
            .copied()
    }

    /// `MPI_Comm_get_attr` and friends: the value, if set. A keyval that
    /// no longer exists reads as unset (as in MPICH); one of another kind
    /// is `MPI_ERR_KEYVAL`.
    pub fn get(&self, object: Object, k: Keyval) -> MpiResult<Option<usize>> {
        match self.keyvals.get(&k) {
            None => Ok(None),
            Some(_) => {
                self.entry(object, k)?;
                Ok(self.find(object, k).map(|a| a.value))
            }
        }
    }

    /// The delete callback to make before a value set with `k` replaces the
    /// current one (None when none is set). Checks the keyval.
    pub fn before_set(&self, object: Object, k: Keyval) -> MpiResult<Option<AttrCall>> {
        let e = self.entry(object, k)?;
        Ok(self.find(object, k).map(|a| AttrCall {
            object,
            keyval: k,
            fns: e.fns.clone(),
            value: a.value,
        }))
    }

    /// Sets (or replaces, keeping its place in the order) an attribute; the
    /// old value's delete callback must have run (see [`before_set`](Self::before_set)).
    pub fn store(&mut self, object: Object, k: Keyval, value: usize) -> MpiResult<()> {
        self.entry(object, k)?;
        let list = self.values.entry(object).or_default();
        match list.iter_mut().find(|a| a.keyval == k) {
            Some(a) => a.value = value,
            None => {
                list.push(Attr { keyval: k, value });
                if let Some(e) = self.keyvals.get_mut(&k) {
                    e.uses += 1;
                }
            }
        }
        Ok(())
    }

    /// The delete callback `MPI_Comm_delete_attr` must make (None when the
    /// attribute is not set, which is no error, as in MPICH). Checks the keyval.
    pub fn before_delete(&self, object: Object, k: Keyval) -> MpiResult<Option<AttrCall>> {
        self.before_set(object, k)
    }

    /// Removes an attribute whose delete callback succeeded.
    pub fn remove(&mut self, object: Object, k: Keyval) {
        let Some(list) = self.values.get_mut(&object) else {
            return;
        };
        let Some(i) = list.iter().position(|a| a.keyval == k) else {
            return;
        };
        list.remove(i);
        if list.is_empty() {
            self.values.remove(&object);
        }
        if let Some(e) = self.keyvals.get_mut(&k) {
            e.uses -= 1;
        }
        self.release_if_unused(k);
    }

    /// The copy callbacks duplicating `object` makes, in the order its
    /// attributes were set. Each that succeeds with its flag set gives the
    /// new object a value ([`store`](Self::store)).
    pub fn copies(&self, object: Object) -> Vec<AttrCall> {
        self.calls(object)
    }

    /// The delete callbacks freeing `object` makes, last set first. After
    /// each success the C layer [`remove`](Self::remove)s the attribute.
    pub fn deletions(&self, object: Object) -> Vec<AttrCall> {
        let mut v = self.calls(object);
        v.reverse();
        v
    }

    fn calls(&self, object: Object) -> Vec<AttrCall> {
        self.values
            .get(&object)
            .map(|list| {
                list.iter()
                    .filter_map(|a| {
                        self.keyvals.get(&a.keyval).map(|e| AttrCall {
                            object,
                            keyval: a.keyval,
                            fns: e.fns.clone(),
                            value: a.value,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Objects of `kind` that have attributes, in no particular order (for
    /// the deletions at `MPI_Finalize`).
    pub fn objects(&self, kind: ObjectKind) -> Vec<Object> {
        self.values
            .keys()
            .filter(|o| o.kind() == kind)
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::CommId;
    use crate::datatype::{BuiltinType, DatatypeId};

    const WORLD: Object = Object::Comm(CommId::WORLD);
    const SELF: Object = Object::Comm(CommId::SELF);
    const INT: Object = Object::Datatype(DatatypeId::Builtin(BuiltinType::Int));

    fn tag(c: &AttrCall) -> u32 {
        *c.fns.get::<u32>().unwrap()
    }

    #[test]
    fn set_get_replace_and_delete_call_the_delete_callback_on_the_old_value() {
        let mut a = Attributes::new();
        let k = a.create_keyval(ObjectKind::Comm, Opaque::new(7u32));
        assert_eq!(a.get(WORLD, k), Ok(None));
        assert!(a.before_set(WORLD, k).unwrap().is_none());
        a.store(WORLD, k, 10).unwrap();
        assert_eq!(a.get(WORLD, k), Ok(Some(10)));
        assert_eq!(a.get(SELF, k), Ok(None));
        let call = a.before_set(WORLD, k).unwrap().unwrap();
        assert_eq!((call.value, call.keyval, tag(&call)), (10, k, 7));
        a.store(WORLD, k, 11).unwrap();
        assert_eq!(a.get(WORLD, k), Ok(Some(11)));
        assert_eq!(a.before_delete(WORLD, k).unwrap().unwrap().value, 11);
        a.remove(WORLD, k);
        assert_eq!(a.get(WORLD, k), Ok(None));
        // Deleting what is not set needs no callback and is no error.
        assert!(a.before_delete(WORLD, k).unwrap().is_none());
    }

    #[test]
    fn keyvals_apply_to_their_kind_only() {
        let mut a = Attributes::new();
        let t = a.create_keyval(ObjectKind::Datatype, Opaque::new(1u32));
        assert_eq!(a.store(WORLD, t, 1), Err(MpiError::Keyval));
        assert_eq!(a.get(WORLD, t), Err(MpiError::Keyval));
        assert_eq!(a.free_keyval(ObjectKind::Comm, t), Err(MpiError::Keyval));
        a.store(INT, t, 5).unwrap();
        assert_eq!(a.get(INT, t), Ok(Some(5)));
        assert_eq!(a.keyval_kind(t), Some(ObjectKind::Datatype));
    }

    #[test]
    fn a_freed_keyval_lives_while_attributes_use_it() {
        let mut a = Attributes::new();
        let k = a.create_keyval(ObjectKind::Comm, Opaque::new(3u32));
        a.store(WORLD, k, 1).unwrap();
        a.store(SELF, k, 2).unwrap();
        a.free_keyval(ObjectKind::Comm, k).unwrap();
        // Freeing again is harmless and does not drop a second reference.
        a.free_keyval(ObjectKind::Comm, k).unwrap();
        assert_eq!(a.get(SELF, k), Ok(Some(2)));
        assert_eq!(tag(&a.deletions(WORLD)[0]), 3);
        a.remove(WORLD, k);
        assert!(a.keyval_kind(k).is_some());
        a.remove(SELF, k);
        assert_eq!(a.keyval_kind(k), None);
        // Gone: reads as unset; freeing it is harmless.
        assert_eq!(a.get(SELF, k), Ok(None));
        assert_eq!(a.free_keyval(ObjectKind::Comm, k), Ok(()));
        // Numbers are never reused.
        let k2 = a.create_keyval(ObjectKind::Comm, Opaque::new(4u32));
        assert_ne!(k2, k);
    }

    #[test]
    fn copies_run_in_set_order_and_deletions_last_set_first() {
        let mut a = Attributes::new();
        let ks: Vec<Keyval> = (0..5u32)
            .map(|i| a.create_keyval(ObjectKind::Comm, Opaque::new(i)))
            .collect();
        for &i in &[3usize, 1, 4, 0, 2] {
            a.store(SELF, ks[i], 100 + i).unwrap();
        }
        // Replacing keeps the place.
        a.store(SELF, ks[1], 201).unwrap();
        let order = |v: Vec<AttrCall>| v.iter().map(|c| (tag(c), c.value)).collect::<Vec<_>>();
        assert_eq!(
            order(a.copies(SELF)),
            [(3, 103), (1, 201), (4, 104), (0, 100), (2, 102)]
        );
        assert_eq!(
            order(a.deletions(SELF)),
            [(2, 102), (0, 100), (4, 104), (1, 201), (3, 103)]
        );
        assert_eq!(a.objects(ObjectKind::Comm), vec![SELF]);
        assert!(a.objects(ObjectKind::Datatype).is_empty());
        for c in a.deletions(SELF) {
            a.remove(SELF, c.keyval);
        }
        assert!(a.objects(ObjectKind::Comm).is_empty());
    }
}
