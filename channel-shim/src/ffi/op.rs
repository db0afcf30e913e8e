//! User-defined reduction operations: `MPI_Op_create` (and MPI 4.0's
//! `MPI_Op_create_c`, whose function takes an `MPI_Count` length),
//! `MPI_Op_free`, `MPI_Op_commutative`.
//!
//! The C function (`MPI_User_function`: `void f(void *invec, void
//! *inoutvec, int *len, MPI_Datatype *datatype)`) becomes the engine's
//! boxed closure. The engine hands it user-layout regions of `len`
//! instances and their span's base (see `shim_engine::op::UserFn`); the
//! address C expects is the region start minus that base.
//! The function runs while the engine is busy: datatype queries it makes
//! (`MPI_Type_get_extent`, `MPI_Type_size`, ...) are answered from the
//! datatype table the engine lends it for the call ([`with_lent_types`]);
//! any other MPI call ends the job with a sentence naming it (MPI forbids
//! communication there; waiting for the busy engine would hang).

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::large_count::{COut, CountT};
use crate::ffi::write_out;
use shim_engine::datatype::Datatypes;
use shim_engine::op::UserFn;
use shim_engine::{DatatypeId, MpiError};
use std::cell::Cell;
use std::os::raw::{c_int, c_void};

thread_local! {
    /// The datatype table the engine lent the user function running on
    /// this thread (null outside one).
    static LENT_TYPES: Cell<*const Datatypes> = const { Cell::new(std::ptr::null()) };
}

/// Whether this thread runs a user function that was lent a datatype table.
pub(crate) fn types_lent() -> bool {
    !LENT_TYPES.with(Cell::get).is_null()
}

/// Runs `f` on the datatype table lent to the user function this thread is
/// running, or returns `None` outside one.
pub(crate) fn with_lent_types<R>(f: impl FnOnce(&Datatypes) -> R) -> Option<R> {
    let p = LENT_TYPES.with(Cell::get);
    // SAFETY: `p` is set only by `wrap` below, from a shared reference the
    // engine holds for the whole call of the user function, and is reset
    // before that call returns; this thread is inside that call.
    (!p.is_null()).then(|| f(unsafe { &*p }))
}

/// Lends `types` to the user function while it runs (reset on return, also
/// by unwinding).
struct Lend(*const Datatypes);

impl Lend {
    fn new(types: &Datatypes) -> Lend {
        Lend(LENT_TYPES.with(|c| c.replace(types)))
    }
}

impl Drop for Lend {
    fn drop(&mut self) {
        LENT_TYPES.with(|c| c.set(self.0));
    }
}

/// `MPI_User_function` (`L` = `int`), or MPI 4.0's `MPI_User_function_c`
/// (`L` = `MPI_Count`): the length argument's type.
pub type UserFunction<L> = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut L, *mut c_int);

/// The engine closure calling the C function `f`.
fn wrap<L: COut>(f: UserFunction<L>) -> UserFn {
    Box::new(
        move |inp: &[u8],
              inout: &mut [u8],
              count: usize,
              dt: DatatypeId,
              base: i64,
              types: &Datatypes| {
            let base = base as isize;
            let a = inp.as_ptr().wrapping_offset(-base) as *mut c_void;
            let b = inout.as_mut_ptr().wrapping_offset(-base) as *mut c_void;
            let mut len = L::narrow(count as i64);
            let mut handle = datatype_to(dt);
            let _lent = Lend::new(types);
            // SAFETY: the program registered `f` as an MPI_User_function;
            // `a` and `b` address `count` instances of `dt` laid out as C
            // expects them (the regions the engine gave us, shifted to the
            // buffer address).
            unsafe { f(a, b, &mut len, &mut handle) }
        },
    )
}

mpi_fn! { fn MPI_Op_create / c (user_fn: Option<UserFunction<CountT>>, commute: c_int, op: *mut c_int) {
    let r = (|| {
        let f = user_fn.ok_or(MpiError::Arg)?;
        let id = engine("MPI_Op_create", |e| Ok(e.ops_mut().create(wrap(f), commute != 0)))?;
        write_out(op, op_to(id));
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Op_create", r)
} }

mpi_fn! { fn MPI_Op_free(op: *mut c_int) {
    let r = (|| {
        let o = op_from(*op)?;
        engine("MPI_Op_free", |e| e.op_free(o))?;
        write_out(op, MPI_OP_NULL);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Op_free", r)
} }

mpi_fn! { fn MPI_Op_commutative(op: c_int, commute: *mut c_int) {
    let r = (|| {
        let o = op_from(op)?;
        let c = engine("MPI_Op_commutative", |e| e.ops_mut().commutative(o))?;
        write_out(commute, c as c_int);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, "MPI_Op_commutative", r)
} }
