//! MPICH's GPU queries (`MPIX_GPU_query_support`, `MPIX_Query_cuda_support`
//! and its HIP and Level Zero twins): programs that can hand device
//! buffers to MPI ask before doing so. The shim reads and writes buffers
//! as host memory only, so it answers "not supported" for every GPU kind,
//! as Debian's MPICH (built without GPU support) does.

use crate::abi::*;
use crate::ffi::errors::finish;
use crate::ffi::write_out;
use shim_engine::MpiError;
use std::os::raw::c_int;

/// MPICH's `MPIX_GPU_SUPPORT_CUDA`, `_ZE` and `_HIP`.
const GPU_KINDS: [c_int; 3] = [0, 1, 2];

mpi_fn! { fn MPIX_GPU_query_support(gpu_type: c_int, is_supported: *mut c_int) {
    let r = if !GPU_KINDS.contains(&gpu_type) || is_supported.is_null() {
        Err(MpiError::Arg)
    } else {
        write_out(is_supported, 0);
        Ok(())
    };
    finish(MPI_COMM_WORLD, "MPIX_GPU_query_support", r)
} }

/// `PMPIX_Query_cuda_support`: 0, device buffers are not supported.
#[no_mangle]
pub extern "C" fn PMPIX_Query_cuda_support() -> c_int {
    0
}

mpi_value_fn! {
    /// `MPIX_Query_cuda_support`: 0, CUDA buffers are not supported.
    fn MPIX_Query_cuda_support() -> c_int
}

/// `PMPIX_Query_hip_support`: 0, device buffers are not supported.
#[no_mangle]
pub extern "C" fn PMPIX_Query_hip_support() -> c_int {
    0
}

mpi_value_fn! {
    /// `MPIX_Query_hip_support`: 0, HIP buffers are not supported.
    fn MPIX_Query_hip_support() -> c_int
}

/// `PMPIX_Query_ze_support`: 0, device buffers are not supported.
#[no_mangle]
pub extern "C" fn PMPIX_Query_ze_support() -> c_int {
    0
}

mpi_value_fn! {
    /// `MPIX_Query_ze_support`: 0, Level Zero buffers are not supported.
    fn MPIX_Query_ze_support() -> c_int
}
