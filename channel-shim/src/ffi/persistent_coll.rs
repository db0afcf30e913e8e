//! MPI 4.0's persistent collectives in C: each `MPI_<coll>_init` stores a
//! starter — the call's nonblocking form with the program's arguments —
//! with an inactive persistent request in the engine; `MPI_Start` runs it
//! (without the engine's lock, as any MPI call) and binds the nonblocking
//! collective it began to the persistent request (see
//! `shim_engine::persistent_coll`). On the wire each start is the
//! nonblocking collective's traffic (`MPI_Ibcast`'s call code for
//! `MPI_Bcast_init`), as MPICH builds persistent collectives on its
//! nonblocking schedules.

use crate::abi::*;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::{comm_from, request_from, request_to};
use crate::ffi::info::pairs_of;
use crate::ffi::write_out;
use shim_engine::opaque::Opaque;
use shim_engine::{MpiError, RequestId};
use std::os::raw::c_int;

/// Starts the nonblocking form of the collective with the arguments of
/// its init call, writing the new request's handle (returns the MPI
/// error code, having called the error handler as that call does).
type StartFn = dyn Fn(*mut c_int) -> c_int;

/// A persistent collective's starter, kept by the engine.
struct Starter(Box<StartFn>);

// SAFETY: the starter holds the raw pointers the program passed to the
// init call; MPI requires them to stay valid while the persistent request
// exists, and it is only called by MPI_Start/MPI_Startall on behalf of the
// program, on whichever thread the program calls them from (the engine's
// lock orders those calls as any other MPI call).
unsafe impl Send for Starter {}
// SAFETY: as above; calling it does not touch shared state outside MPI
// calls.
unsafe impl Sync for Starter {}

/// The init call `func` on `comm`: checks the communicator and info and
/// hands the program an inactive persistent request that starts with
/// `start`. Argument errors of the collective itself are reported by each
/// `MPI_Start`.
///
/// # Safety
/// `request` must be valid for writing an `int`.
pub unsafe fn init(
    func: &str,
    comm: c_int,
    info: c_int,
    request: *mut c_int,
    start: impl Fn(*mut c_int) -> c_int + 'static,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        pairs_of(info)?;
        let starter = Opaque::new(Starter(Box::new(start)));
        let id = engine(func, |e| e.persistent_collective(c, starter))?;
        crate::ffi::call_record::persistent_collective(c, request_to(id));
        write_out(request, request_to(id));
        Ok(())
    })();
    finish(comm, func, r)
}

/// What starting a request as a persistent collective did.
pub enum Started {
    /// It is not a persistent collective.
    NotCollective,
    /// Its collective started.
    Started,
    /// Starting it failed with this code (the error handler ran).
    Failed(c_int),
}

/// Starts request `id` if it is a persistent collective.
pub fn start(func: &str, id: RequestId) -> Result<Started, MpiError> {
    let Some(starter) = engine(func, |e| e.collective_starter(id))? else {
        return Ok(Started::NotCollective);
    };
    let s = starter.get::<Starter>().ok_or(MpiError::Request)?;
    crate::ffi::call_record::collective_start(request_to(id));
    let mut inner: c_int = MPI_REQUEST_NULL;
    let rc = (s.0)(&mut inner);
    if rc != MPI_SUCCESS {
        engine(func, |e| {
            e.persistent_start_failed();
            Ok(())
        })?;
        return Ok(Started::Failed(rc));
    }
    let inner = request_from(inner)?.ok_or(MpiError::Request)?;
    engine(func, |e| e.bind_persistent_collective(id, inner))?;
    Ok(Started::Started)
}

/// Defines `MPI_<coll>_init` from the function implementing the
/// collective's blocking and nonblocking forms (`$body(func, form, args…,
/// request)`):
///
/// ```ignore
/// persistent_coll! { fn MPI_Barrier_init(comm: c_int) = barrier on comm; }
/// ```
#[macro_export]
macro_rules! persistent_coll {
    // `fn MPI_Xxx_init / c (...)`: also `MPI_Xxx_init_c` (see `large_count`).
    (fn $init:ident / c ( $($arg:ident : $ty:ty),* ) = $body:ident on $comm:ident;) => {
        $crate::persistent_coll! { fn $init($($arg: $ty),*) = $body on $comm; }
        $crate::large_count_module! { $init {
            $crate::persistent_coll! { fn [<$init _c>]($($arg: $ty),*) = $body on $comm; }
        } }
    };
    (fn $init:ident ( $($arg:ident : $ty:ty),* ) = $body:ident on $comm:ident;) => {
        mpi_fn! { fn $init($($arg: $ty,)* info: c_int, request: *mut c_int) {
            $crate::ffi::persistent_coll::init(stringify!($init), $comm, info, request, move |req| {
                // SAFETY: the program keeps the init call's arguments
                // valid while the persistent request exists.
                unsafe { $body(stringify!($init), Form::Nonblocking, $($arg,)* req) }
            })
        } }
    };
}
