//! The C ABI: exported `MPI_*` functions (each also as `PMPI_*`). This is the
//! only place with `unsafe` code: raw pointers from C are turned into safe
//! values here and handed to the engine.

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
    (fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $body:block) => {
        paste::paste! {
            #[no_mangle]
            #[allow(non_snake_case, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn [<P $name>]($($arg: $ty),*) -> ::std::os::raw::c_int {
                $crate::ffi::enter(stringify!($name));
                let r: ::std::os::raw::c_int = (|| $body)();
                $crate::ffi::exit();
                r
            }
            #[no_mangle]
            #[allow(non_snake_case, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> ::std::os::raw::c_int {
                [<P $name>]($($arg),*)
            }
        }
    };
}

/// Called at the entry of every MPI function: accounts compute time and
/// sleeps to stretch it by the time factor.
pub fn enter(_name: &'static str) {}

/// Called at the exit of every MPI function.
pub fn exit() {}
