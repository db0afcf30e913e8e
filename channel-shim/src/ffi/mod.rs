//! The C ABI: exported `MPI_*` functions (each also as `PMPI_*`). This is the
//! only place with `unsafe` code: raw pointers from C are turned into safe
//! values here and handed to the engine.

/// Defines, in a module `<$name>_c`, the items `$inner` (in which
/// `[<$name _c>]` may name the large-count variant) with the argument types
/// `CountT` = `MPI_Count` and `DisplT` = `MPI_Aint` (see `large_count`).
#[macro_export]
macro_rules! large_count_module {
    ($name:ident { $($inner:tt)* }) => {
        paste::paste! {
            #[doc = concat!("`", stringify!($name), "_c`, the large-count variant of `", stringify!($name), "`.")]
            #[allow(non_snake_case, unused_imports)]
            pub mod [<$name _c>] {
                use super::*;
                #[allow(dead_code)]
                type CountT = $crate::ffi::large_count::MpiCount;
                #[allow(dead_code)]
                type DisplT = $crate::ffi::large_count::MpiAint;
                $($inner)*
            }
        }
    };
}

/// Defines an exported MPI function returning `int` under both its `MPI_`
/// and `PMPI_` names. The body runs between [`enter`] and [`exit`], which do
/// the time-factor accounting.
///
/// ```ignore
/// mpi_fn! { fn MPI_Comm_rank(comm: c_int, rank: *mut c_int) {
///     /* body returning c_int */
/// } }
/// ```
#[macro_export]
macro_rules! mpi_fn {
    // `fn MPI_Xxx / c (...)`: also its large-count `MPI_Xxx_c`, where the
    // argument types `CountT` and `DisplT` are `MPI_Count` and `MPI_Aint`
    // (see `large_count`).
    (fn $name:ident / c ( $($arg:ident : $ty:ty),* $(,)? ) $body:block) => {
        $crate::mpi_fn! { fn $name($($arg: $ty),*) $body }
        $crate::large_count_module! { $name { $crate::mpi_fn! { fn [<$name _c>]($($arg: $ty),*) $body } } }
    };
    (fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $body:block) => {
        paste::paste! {
            #[doc = concat!("`P", stringify!($name), "`: the profiling name of [`", stringify!($name), "`](fn@", stringify!($name), ").")]
            #[no_mangle]
            #[allow(non_snake_case, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<P $name>]($($arg: $ty),*) -> ::std::os::raw::c_int {
                $crate::ffi::enter(stringify!($name));
                #[allow(clippy::redundant_closure_call)]
                let r: ::std::os::raw::c_int = (|| $body)();
                $crate::ffi::exit();
                r
            }
            #[doc = concat!("`", stringify!($name), "` of the MPI standard, for C programs built against MPICH.")]
            #[no_mangle]
            #[allow(non_snake_case, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> ::std::os::raw::c_int {
                if let Some((tool, id)) = $crate::ffi::qmpi::first_tool(stringify!($name)) {
                    // SAFETY: the tool registered it for this function's
                    // number, with the type QMPI gives that number.
                    let tool: unsafe extern "C" fn(
                        $crate::ffi::qmpi::QmpiContext,
                        ::std::os::raw::c_int,
                        $($ty),*
                    ) -> ::std::os::raw::c_int = $crate::ffi::qmpi::function_at(tool);
                    return tool($crate::ffi::qmpi::QmpiContext::new(), id, $($arg),*);
                }
                [<P $name>]($($arg),*)
            }
            #[doc = concat!("`Q", stringify!($name), "`: MPI's own implementation at the end of a QMPI tool chain.")]
            #[no_mangle]
            #[allow(non_snake_case, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<Q $name>](
                _context: $crate::ffi::qmpi::QmpiContext,
                _tool_id: ::std::os::raw::c_int,
                $($arg: $ty),*
            ) -> ::std::os::raw::c_int {
                [<P $name>]($($arg),*)
            }
        }
    };
}

/// `MPI_X` and `QMPI_X` for a function that returns a value rather than
/// an error code (`MPI_Wtime`, `MPI_Aint_add`, ...), around the `PMPI_X`
/// defined beside it: what `mpi_fn!` gives the others (see `qmpi`).
macro_rules! mpi_value_fn {
    ($(#[$doc:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty) => {
        paste::paste! {
            $(#[$doc])*
            #[no_mangle]
            #[allow(non_snake_case)]
            pub extern "C" fn $name($($arg: $ty),*) -> $ret {
                if let Some((tool, id)) = $crate::ffi::qmpi::first_tool(stringify!($name)) {
                    // SAFETY: the tool registered it for this function's
                    // number, with the type QMPI gives that number.
                    unsafe {
                        let tool: unsafe extern "C" fn(
                            $crate::ffi::qmpi::QmpiContext,
                            ::std::os::raw::c_int,
                            $($ty),*
                        ) -> $ret = $crate::ffi::qmpi::function_at(tool);
                        return tool($crate::ffi::qmpi::QmpiContext::new(), id, $($arg),*);
                    }
                }
                [<P $name>]($($arg),*)
            }
            #[doc = concat!("`Q", stringify!($name), "`: MPI's own implementation at the end of a QMPI tool chain.")]
            #[no_mangle]
            #[allow(non_snake_case)]
            pub extern "C" fn [<Q $name>](
                _context: $crate::ffi::qmpi::QmpiContext,
                _tool_id: ::std::os::raw::c_int,
                $($arg: $ty),*
            ) -> $ret {
                [<P $name>]($($arg),*)
            }
        }
    };
}

pub mod attr;
pub mod buffers;
pub mod call_record;
pub mod collectives;
pub mod comm;
pub mod datatype;
pub mod datatype_ext;
pub mod engine_access;
pub mod errors;
pub mod fault_tolerance;
pub mod gpu_support;
pub mod grequest;
pub mod handles;
pub mod info;
pub mod init;
pub mod io;
pub mod io_datarep;
pub mod large_count;
pub mod multiple;
pub mod nbc;
pub mod neighbor;
pub mod op;
pub mod p2p;
pub mod p2p_ext;
pub mod partitioned;
pub mod persistent_coll;
pub mod ports;
pub mod qmpi;
pub mod rma;
pub mod rma_shared;
pub mod session;
pub mod spawn;
pub mod status_convert;
pub mod symbols;
pub mod tool;
pub mod tool_events;
pub mod tool_pvar;
pub mod topo;

/// Called at the entry of every MPI function: accounts compute time and
/// sleeps to stretch it by the time factor; then, while nonblocking
/// collectives are under way, lets them progress (every MPI call does, as
/// the tests and waits do), so communication overlaps the computation
/// between calls in emulated time.
pub fn enter(name: &'static str) {
    // The computation ends here: before any of the shim's own work.
    let entry = crate::runtime::CallEntry::now();
    if crate::runtime::clock_is_adaptive() {
        // Learn of factor changes before computing how long to sleep.
        crate::runtime::try_with_engine(|e| e.transport_mut().poll());
    }
    if crate::runtime::clock_round_due(crate::runtime::monotonic_ns()) {
        // Measure the clock offset again (sends one probe; never waits).
        crate::runtime::try_with_engine(|e| e.transport_mut().start_clock_round());
    }
    if let Some(c) = crate::runtime::clock_snapshot() {
        // In an adaptive run the factor may change while the pacer sleeps:
        // it reads the gateway's switches as it goes.
        let mut refresh = || {
            crate::runtime::try_with_engine(|e| e.transport_mut().poll());
            crate::runtime::clock_snapshot()
        };
        crate::runtime::pacer(|p| p.enter_refreshing(name, &c, entry, &mut refresh));
        // The computation is paid: nothing this rank sends from now on is
        // stamped earlier (the gateway may run events up to here).
        crate::runtime::horizon::publish(mpinetsim_shm::horizon::Horizon::Active(
            crate::runtime::now_emulated_ns(),
        ));
        if crate::runtime::clock_is_adaptive() {
            // Tell the factor controller of computations that ran late.
            let late = crate::runtime::pacer(|p| p.take_recent_lateness()).unwrap_or(0);
            if late > 0 {
                crate::runtime::try_with_engine(|e| e.transport_mut().note_compute_late(late));
            }
        }
    }
    crate::runtime::try_with_engine(|e| {
        if e.has_pending_collectives() {
            e.progress(false);
        }
    });
    call_record::note_entry(name);
}

/// Called at the exit of every MPI function.
pub fn exit() {
    if let Some(c) = crate::runtime::clock_snapshot() {
        crate::runtime::pacer(|p| p.exit(&c));
    }
}

/// Writes `value` through a C out-pointer if it is not null.
///
/// # Safety
/// `ptr` must be null or valid for writing a `T`.
pub unsafe fn write_out<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        ptr.write(value);
    }
}

/// Copies `text` into a C buffer of `cap` bytes, NUL-terminated, and returns
/// the length written (without the NUL).
///
/// # Safety
/// `buf` must be valid for writing `cap` bytes.
pub unsafe fn write_c_string(buf: *mut std::os::raw::c_char, cap: usize, text: &str) -> usize {
    if buf.is_null() || cap == 0 {
        return 0;
    }
    let n = text.len().min(cap - 1);
    std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, n);
    *buf.add(n) = 0;
    n
}
