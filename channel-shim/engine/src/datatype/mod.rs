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
mod contents;
mod derived;
pub mod external32;
pub mod f90;
mod pack;
mod representation;
pub mod subarray;

pub use builtin::{BuiltinType, OpClass, Scalar, Shape};
pub use contents::{Combiner, Contents, LargeContents, TypeArg};
pub use derived::MAX_TYPEMAP_RUNS;
pub(crate) use pack::for_segments;
pub use pack::Span;
pub(crate) use pack::{pack_range, packed_range_bounds, unpack_range};
pub use representation::FileSizes;

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
    /// The constructor call that made it (`Named` for predefined types).
    pub contents: Contents,
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
            contents: Contents::named(),
        }
    }

    /// A committed, unnamed type with the given typemap, size and bounds
    /// (`(lb, ub)`, `(true_lb, true_ub)`): the target datatype of a
    /// one-sided operation as its origin described it.
    pub fn from_layout(
        runs: Vec<TypeRun>,
        size: u64,
        bounds: (i64, i64),
        true_bounds: (i64, i64),
    ) -> TypeInfo {
        let align = runs.iter().map(|r| r.ty.align()).max().unwrap_or(1);
        TypeInfo {
            runs,
            size,
            lb: bounds.0,
            ub: bounds.1,
            true_lb: true_bounds.0,
            true_ub: true_bounds.1,
            align,
            explicit_bounds: true,
            committed: true,
            contents: Contents::named(),
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

/// A derived datatype in the table and who holds it.
///
/// `handles` counts the handles the program holds (one from the
/// constructor, one more for each `MPI_Type_get_contents` that returned
/// it); `uses` counts the types whose contents name it and the requests
/// still naming it ([`Datatypes::add_use`]). The type stays in the table
/// until both are zero, so a type the program freed keeps working for
/// whatever still uses it, and its number is not given to a new type
/// meanwhile.
#[derive(Debug)]
struct Slot {
    info: Arc<TypeInfo>,
    handles: u32,
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
    /// The cached types of `MPI_Type_create_f90_*`, by (combiner, p, r).
    f90: std::collections::HashMap<(Combiner, i32, i32), DatatypeId>,
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
            f90: std::collections::HashMap::new(),
        }
    }

    /// Everything about `dt`, committed or not.
    pub fn info(&self, dt: DatatypeId) -> MpiResult<&TypeInfo> {
        self.shared(dt).map(|t| &**t)
    }

    fn shared(&self, dt: DatatypeId) -> MpiResult<&Arc<TypeInfo>> {
        match dt {
            DatatypeId::Builtin(b) => Ok(&self.builtins[b as usize]),
            DatatypeId::Derived(i) => self.slot(i).map(|s| &s.info).ok_or(MpiError::Datatype),
        }
    }

    fn slot(&self, i: u32) -> Option<&Slot> {
        self.derived.get(i as usize).and_then(|s| s.as_ref())
    }

    fn slot_mut(&mut self, i: u32) -> Option<&mut Slot> {
        self.derived.get_mut(i as usize).and_then(|s| s.as_mut())
    }

    /// Whether `dt` names a type the program may still use: predefined, or
    /// derived with a handle the program has not freed.
    pub fn is_live(&self, dt: DatatypeId) -> bool {
        match dt {
            DatatypeId::Builtin(_) => true,
            DatatypeId::Derived(i) => self.slot(i).is_some_and(|s| s.handles > 0),
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

    /// A request (or a type's contents) starts naming `dt` (nothing for
    /// predefined types).
    pub fn add_use(&mut self, dt: DatatypeId) {
        if let DatatypeId::Derived(i) = dt {
            if let Some(s) = self.slot_mut(i) {
                s.uses += 1;
            }
        }
    }

    /// A request stops naming `dt`; a freed type nothing names goes.
    pub fn release_use(&mut self, dt: DatatypeId) {
        if let DatatypeId::Derived(i) = dt {
            if let Some(s) = self.slot_mut(i) {
                s.uses = s.uses.saturating_sub(1);
                self.collect(i);
            }
        }
    }

    /// Drops derived type `i` if nothing holds it any more, and with it
    /// the uses its contents made of other types.
    fn collect(&mut self, i: u32) {
        let mut pending = vec![i];
        while let Some(i) = pending.pop() {
            let Some(s) = self.slot(i) else { continue };
            if s.handles > 0 || s.uses > 0 {
                continue;
            }
            let slot = self.derived[i as usize].take().expect("checked above");
            for n in slot.info.contents.derived_types() {
                if let Some(s) = self.slot_mut(n) {
                    s.uses = s.uses.saturating_sub(1);
                    pending.push(n);
                }
            }
        }
    }

    /// Gives the program one more handle to `dt` (what
    /// `MPI_Type_get_contents` returns for a derived type: the program
    /// frees it like any other).
    pub fn hand_out(&mut self, dt: DatatypeId) -> MpiResult<()> {
        if let DatatypeId::Derived(i) = dt {
            self.slot_mut(i).ok_or(MpiError::Datatype)?.handles += 1;
        }
        Ok(())
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

    /// Stores a new derived type, held by one handle; the types its
    /// contents name gain a use.
    fn add(&mut self, t: TypeInfo) -> DatatypeId {
        let named: Vec<u32> = t.contents.derived_types().collect();
        for n in named {
            if let Some(s) = self.slot_mut(n) {
                s.uses += 1;
            }
        }
        let slot = Slot {
            info: Arc::new(t),
            handles: 1,
            uses: 0,
        };
        if let Some(i) = self.derived.iter().position(|s| s.is_none()) {
            self.derived[i] = Some(slot);
            DatatypeId::Derived(i as u32)
        } else {
            self.derived.push(Some(slot));
            DatatypeId::Derived(self.derived.len() as u32 - 1)
        }
    }

    /// `MPI_Type_commit`.
    pub fn commit(&mut self, dt: DatatypeId) -> MpiResult<()> {
        match dt {
            DatatypeId::Builtin(_) => Ok(()),
            DatatypeId::Derived(i) => {
                let s = self
                    .slot_mut(i)
                    .filter(|s| s.handles > 0)
                    .ok_or(MpiError::Datatype)?;
                Arc::make_mut(&mut s.info).committed = true;
                Ok(())
            }
        }
    }

    /// `MPI_Type_free`: the program gives up one handle. Predefined types,
    /// the cached `MPI_Type_create_f90_*` types (predefined too, as MPI
    /// says) and handles already given up are `MPI_ERR_TYPE`. The type
    /// itself lives on while other types or operations use it.
    pub fn free(&mut self, dt: DatatypeId) -> MpiResult<()> {
        let DatatypeId::Derived(i) = dt else {
            return Err(MpiError::Datatype);
        };
        let s = self.slot_mut(i).ok_or(MpiError::Datatype)?;
        let f90 = matches!(
            s.info.contents.combiner,
            Combiner::F90Real | Combiner::F90Complex | Combiner::F90Integer
        );
        if s.handles == 0 || f90 {
            return Err(MpiError::Datatype);
        }
        s.handles -= 1;
        self.collect(i);
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
