//! Datatypes: the predefined ones and derived ones built from them, their
//! sizes and bounds, their typemaps, and packing between user memory and
//! the contiguous *packed* layout every message carries.
//!
//! The packed layout (also `MPI_Pack`'s external layout here) is the
//! concatenation of the data bytes of every element in typemap order, in
//! the host's byte order, without padding.
//!
//! User memory is passed as a byte slice plus its `base`: the offset, in
//! bytes, of the slice's first byte relative to the buffer address the MPI
//! program passed. [`Datatypes::span`] tells the C layer which region to
//! expose for a (datatype, count).

mod builtin;
mod derived;
mod pack;

pub use builtin::{BuiltinType, OpClass, Scalar, Shape};
pub use derived::MAX_TYPEMAP_RUNS;
pub use pack::Span;
pub(crate) use pack::{pack_range, unpack_range};

use crate::error::{MpiError, MpiResult};
use std::sync::Arc;

/// A datatype: predefined or derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatatypeId {
    /// A predefined datatype.
    Builtin(BuiltinType),
    /// A derived datatype, numbered by the engine.
    Derived(u32),
}

impl From<BuiltinType> for DatatypeId {
    fn from(b: BuiltinType) -> Self {
        DatatypeId::Builtin(b)
    }
}

/// `count` consecutive elements of one predefined type, the first at byte
/// displacement `disp` from the start of the datatype, each the type's
/// extent after the previous: one entry of a typemap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeRun {
    /// Byte displacement of the first element.
    pub disp: i64,
    /// Element type.
    pub ty: BuiltinType,
    /// Number of consecutive elements.
    pub count: u64,
}

impl TypeRun {
    /// Byte after the last element (wide: a run built from a program's
    /// counts may end beyond `MPI_Aint` before the constructor refuses it).
    fn end(&self) -> i128 {
        i128::from(self.disp) + i128::from(self.count) * i128::from(self.ty.extent())
    }
}

/// Everything the engine knows about one datatype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeInfo {
    /// The typemap, in order, with adjacent runs merged.
    pub runs: Vec<TypeRun>,
    /// Bytes of data.
    pub size: u64,
    /// Lower bound.
    pub lb: i64,
    /// Upper bound (`extent = ub - lb`).
    pub ub: i64,
    /// Lowest byte holding data.
    pub true_lb: i64,
    /// Byte after the highest byte holding data.
    pub true_ub: i64,
    /// Largest alignment of its elements (for struct padding).
    pub align: u64,
    /// Whether lb/ub were set explicitly (resized), which disables struct padding.
    pub explicit_bounds: bool,
    /// Whether `MPI_Type_commit` was called (always true for predefined).
    pub committed: bool,
}

impl TypeInfo {
    fn of_builtin(b: BuiltinType) -> TypeInfo {
        let ext = b.extent() as i64;
        let last = b.segments()[1];
        let true_ub = if last.1 > 0 {
            (last.0 + last.1) as i64
        } else {
            b.size() as i64
        };
        TypeInfo {
            runs: vec![TypeRun {
                disp: 0,
                ty: b,
                count: 1,
            }],
            size: b.size(),
            lb: 0,
            ub: ext,
            true_lb: 0,
            true_ub,
            align: b.align(),
            explicit_bounds: false,
            committed: true,
        }
    }

    /// `ub - lb`.
    pub fn extent(&self) -> i64 {
        self.ub - self.lb
    }

    /// Basic elements of one instance (pairs count 2).
    pub fn basic_elements(&self) -> u64 {
        self.runs
            .iter()
            .map(|r| r.count * r.ty.basic_elements())
            .sum()
    }

    /// Whether `count` instances are one contiguous block of data starting
    /// at displacement 0.
    pub fn is_contiguous(&self) -> bool {
        self.runs.len() <= 1
            && self.runs.iter().all(|r| r.disp == 0 && r.ty.is_dense())
            && self.lb == 0
            && self.extent() == self.size as i64
    }
}

/// A derived datatype in the table: its description, whether the program
/// freed its handle, and how many requests still name it.
#[derive(Debug)]
struct Slot {
    info: Arc<TypeInfo>,
    freed: bool,
    uses: u32,
}

/// The table of datatypes of one process.
///
/// MPI's reference-counting rule: `MPI_Type_free` only drops the program's
/// handle; pending operations finish with the type. An operation in
/// progress holds its type's description (entries are shared); a request
/// that names the type by its number (a persistent request, which packs
/// or unpacks with it at every start) holds a use of it
/// ([`add_use`](Self::add_use) / [`release_use`](Self::release_use)), so
/// the type stays in the table and its number is not given to a new type
/// before the last use ends.
#[derive(Debug)]
pub struct Datatypes {
    builtins: Vec<Arc<TypeInfo>>,
    derived: Vec<Option<Slot>>,
}

impl Default for Datatypes {
    fn default() -> Self {
        Self::new()
    }
}

impl Datatypes {
    /// The predefined datatypes and no derived ones.
    pub fn new() -> Datatypes {
        Datatypes {
            builtins: BuiltinType::ALL
                .iter()
                .map(|&b| Arc::new(TypeInfo::of_builtin(b)))
                .collect(),
            derived: Vec::new(),
        }
    }

    /// Everything about `dt`, committed or not.
    pub fn info(&self, dt: DatatypeId) -> MpiResult<&TypeInfo> {
        self.shared(dt).map(|t| &**t)
    }

    fn shared(&self, dt: DatatypeId) -> MpiResult<&Arc<TypeInfo>> {
        match dt {
            DatatypeId::Builtin(b) => Ok(&self.builtins[b as usize]),
            DatatypeId::Derived(i) => self
                .derived
                .get(i as usize)
                .and_then(|t| t.as_ref())
                .map(|s| &s.info)
                .ok_or(MpiError::Datatype),
        }
    }

    /// Whether `dt` names a type the program may still use: predefined, or
    /// derived and not freed.
    pub fn is_live(&self, dt: DatatypeId) -> bool {
        match dt {
            DatatypeId::Builtin(_) => true,
            DatatypeId::Derived(i) => self
                .derived
                .get(i as usize)
                .is_some_and(|s| s.as_ref().is_some_and(|s| !s.freed)),
        }
    }

    /// Like [`info`](Self::info), but a type the program freed is
    /// `MPI_ERR_TYPE` (for the calls that take a datatype argument).
    pub fn live(&self, dt: DatatypeId) -> MpiResult<&TypeInfo> {
        if self.is_live(dt) {
            self.info(dt)
        } else {
            Err(MpiError::Datatype)
        }
    }

    fn slot_mut(&mut self, dt: DatatypeId) -> Option<&mut Slot> {
        match dt {
            DatatypeId::Builtin(_) => None,
            DatatypeId::Derived(i) => self.derived.get_mut(i as usize).and_then(|s| s.as_mut()),
        }
    }

    /// A request starts naming `dt` (nothing for predefined types).
    pub fn add_use(&mut self, dt: DatatypeId) {
        if let Some(s) = self.slot_mut(dt) {
            s.uses += 1;
        }
    }

    /// A request stops naming `dt`; a freed type nobody names goes.
    pub fn release_use(&mut self, dt: DatatypeId) {
        if let Some(s) = self.slot_mut(dt) {
            s.uses = s.uses.saturating_sub(1);
            if s.freed && s.uses == 0 {
                self.drop_slot(dt);
            }
        }
    }

    fn drop_slot(&mut self, dt: DatatypeId) {
        if let DatatypeId::Derived(i) = dt {
            if let Some(s) = self.derived.get_mut(i as usize) {
                *s = None;
            }
        }
    }

    /// Number of derived types in the table (freed ones still in use count).
    pub fn derived_count(&self) -> usize {
        self.derived.iter().flatten().count()
    }

    /// A committed type's description, kept alive for an operation that
    /// reads or writes program memory after its call returned.
    pub(crate) fn committed_shared(&self, dt: DatatypeId) -> MpiResult<Arc<TypeInfo>> {
        self.committed(dt)?;
        self.shared(dt).cloned()
    }

    /// Like [`info`](Self::info) but requires a committed type (for communication).
    pub fn committed(&self, dt: DatatypeId) -> MpiResult<&TypeInfo> {
        let t = self.info(dt)?;
        if t.committed {
            Ok(t)
        } else {
            Err(MpiError::Datatype)
        }
    }

    fn add(&mut self, t: TypeInfo) -> DatatypeId {
        let t = Slot {
            info: Arc::new(t),
            freed: false,
            uses: 0,
        };
        if let Some(i) = self.derived.iter().position(|s| s.is_none()) {
            self.derived[i] = Some(t);
            DatatypeId::Derived(i as u32)
        } else {
            self.derived.push(Some(t));
            DatatypeId::Derived(self.derived.len() as u32 - 1)
        }
    }

    /// `MPI_Type_commit`.
    pub fn commit(&mut self, dt: DatatypeId) -> MpiResult<()> {
        match dt {
            DatatypeId::Builtin(_) => Ok(()),
            DatatypeId::Derived(i) => {
                let t = self
                    .derived
                    .get_mut(i as usize)
                    .and_then(|t| t.as_mut())
                    .filter(|s| !s.freed)
                    .ok_or(MpiError::Datatype)?;
                Arc::make_mut(&mut t.info).committed = true;
                Ok(())
            }
        }
    }

    /// `MPI_Type_free` (predefined types cannot be freed): the type goes
    /// now, or when the last request naming it lets go.
    pub fn free(&mut self, dt: DatatypeId) -> MpiResult<()> {
        if matches!(dt, DatatypeId::Builtin(_)) || !self.is_live(dt) {
            return Err(MpiError::Datatype);
        }
        let s = self.slot_mut(dt).ok_or(MpiError::Datatype)?;
        s.freed = true;
        if s.uses == 0 {
            self.drop_slot(dt);
        }
        Ok(())
    }

    /// `MPI_Type_size`.
    pub fn size(&self, dt: DatatypeId) -> MpiResult<u64> {
        Ok(self.info(dt)?.size)
    }

    /// `MPI_Type_get_extent`: (lb, extent).
    pub fn extent(&self, dt: DatatypeId) -> MpiResult<(i64, i64)> {
        let t = self.info(dt)?;
        Ok((t.lb, t.extent()))
    }

    /// `MPI_Type_get_true_extent`: (true lb, true extent).
    pub fn true_extent(&self, dt: DatatypeId) -> MpiResult<(i64, i64)> {
        let t = self.info(dt)?;
        Ok((t.true_lb, t.true_ub - t.true_lb))
    }

    /// The typemap of one instance.
    pub fn typemap(&self, dt: DatatypeId) -> MpiResult<&[TypeRun]> {
        Ok(&self.info(dt)?.runs)
    }

    /// `MPI_Pack_size`: bytes `count` instances pack to.
    pub fn pack_size(&self, dt: DatatypeId, count: usize) -> MpiResult<u64> {
        self.info(dt)?
            .size
            .checked_mul(count as u64)
            .ok_or(MpiError::Count)
    }

    /// `MPI_Get_count` for `bytes` received: `None` is `MPI_UNDEFINED`.
    pub fn get_count(&self, dt: DatatypeId, bytes: u64) -> MpiResult<Option<u64>> {
        let size = self.info(dt)?.size;
        Ok(if size == 0 {
            Some(0)
        } else if bytes % size == 0 {
            Some(bytes / size)
        } else {
            None
        })
    }

    /// `MPI_Get_elements` for `bytes` received: whole basic elements (a pair
    /// counts as two; a pair whose value alone arrived counts one).
    pub fn get_elements(&self, dt: DatatypeId, bytes: u64) -> MpiResult<u64> {
        let t = self.info(dt)?;
        if t.size == 0 {
            return Ok(0);
        }
        let mut elems = bytes / t.size * t.basic_elements();
        let mut rest = bytes % t.size;
        'runs: for r in &t.runs {
            let full = (rest / r.ty.size()).min(r.count);
            elems += full * r.ty.basic_elements();
            rest -= full * r.ty.size();
            if full < r.count {
                if let Shape::Pair { value, .. } = r.ty.shape() {
                    if rest >= value.size() {
                        elems += 1;
                    }
                }
                break 'runs;
            }
        }
        Ok(elems)
    }
}
