//! MPICH's fault-tolerance extensions (the `MPIX_Comm_*` routines of the
//! MPI Forum's ULFM proposal), as they behave where no process fails —
//! which is every mpinetsim job: a rank that dies ends the job (see the
//! gateway's crash handling), so there is never a failed process to
//! acknowledge or exclude. `MPIX_Comm_agree` still agrees (a bitwise AND
//! over the communicator, crossing the simulated network like any
//! reduction) and `MPIX_Comm_shrink` still makes a new communicator, also
//! of a communicator `MPIX_Comm_revoke` revoked (the engine's `revoke`
//! module: every other operation on it then fails with
//! `MPIX_ERR_REVOKED`, at every member once the notice reaches it).

use crate::abi::*;
use crate::ffi::collectives::PMPI_Allreduce;
use crate::ffi::comm::PMPI_Comm_dup;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::comm_from;
use crate::ffi::write_out;
use shim_engine::MpiError;
use std::os::raw::{c_int, c_void};

mpi_fn! { fn MPIX_Comm_agree(comm: c_int, flag: *mut c_int) {
    if flag.is_null() {
        return finish(comm, "MPIX_Comm_agree", Err(MpiError::Arg));
    }
    // Every rank's flag, ANDed bit by bit: the agreed value at every rank
    // (also on a revoked communicator).
    let mine = *flag;
    on_revoked(|| PMPI_Allreduce((&mine as *const c_int).cast::<c_void>(), flag.cast::<c_void>(), 1, MPI_INT, MPI_BAND, comm))
} }

mpi_fn! { fn MPIX_Comm_shrink(comm: c_int, newcomm: *mut c_int) {
    // No process has failed: every member survives into the new one (also
    // of a revoked communicator).
    on_revoked(|| PMPI_Comm_dup(comm, newcomm))
} }

mpi_fn! { fn MPIX_Comm_revoke(comm: c_int) {
    let func = "MPIX_Comm_revoke";
    let r = comm_from(comm).and_then(|c| engine(func, |e| e.comm_revoke(c)));
    finish(comm, func, r)
} }

/// Runs `call`, one of the routines that work on a revoked communicator.
fn on_revoked(call: impl FnOnce() -> c_int) -> c_int {
    crate::runtime::with_engine(|e| e.revocation_exempt(true));
    let r = call();
    crate::runtime::with_engine(|e| e.revocation_exempt(false));
    r
}

mpi_fn! { fn MPIX_Comm_failure_ack(comm: c_int) {
    // Acknowledges the failures noticed so far: there are none.
    finish(comm, "MPIX_Comm_failure_ack", comm_from(comm).map(|_| ()))
} }

mpi_fn! { fn MPIX_Comm_failure_get_acked(comm: c_int, failedgrp: *mut c_int) {
    let func = "MPIX_Comm_failure_get_acked";
    let r = comm_from(comm).and_then(|_| {
        if failedgrp.is_null() {
            return Err(MpiError::Arg);
        }
        write_out(failedgrp, MPI_GROUP_EMPTY);
        Ok(())
    });
    finish(comm, func, r)
} }
