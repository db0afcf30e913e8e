//! More point-to-point: matched probes and their receives
//! (`MPI_Mprobe`, `MPI_Improbe`, `MPI_Mrecv`, `MPI_Imrecv`), MPI 4.0's
//! `MPI_Isendrecv` and `MPI_Isendrecv_replace`, and `MPI_Status_set_cancelled`.
//! The semantics live in the engine (`shim_engine::mprobe`,
//! `shim_engine::isendrecv`); receives go straight into program memory.

use crate::abi::*;
use crate::ffi::buffers::{ignored, program_memory, region, write_status_single};
use crate::ffi::call_record;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::large_count::CountT;
use crate::ffi::multiple::{block_until, thread_multiple};
use crate::ffi::p2p::{hand_out, wait_then};
use crate::ffi::write_out;
use crate::runtime;
use shim_engine::MpiError;
use std::os::raw::{c_int, c_void};

mpi_fn! { fn MPI_Mprobe(source: c_int, tag: c_int, comm: c_int, message: *mut c_int, status: *mut MpiStatus) {
    let r = (|| {
        let (c, s, t) = (comm_from(comm)?, source_from(source)?, tag_from(tag)?);
        let (m, st) = if thread_multiple() {
            block_until("MPI_Mprobe", |e| e.improbe(s, t, c))?
        } else {
            engine("MPI_Mprobe", |e| e.mprobe(s, t, c))?
        };
        call_record::mprobed(c, Some((message_to(m), &st)));
        write_out(message, message_to(m));
        write_status_single(status, &st);
        Ok(())
    })();
    finish(comm, "MPI_Mprobe", r)
} }

mpi_fn! { fn MPI_Improbe(source: c_int, tag: c_int, comm: c_int, flag: *mut c_int, message: *mut c_int, status: *mut MpiStatus) {
    let r = (|| {
        let (c, s, t) = (comm_from(comm)?, source_from(source)?, tag_from(tag)?);
        let found = engine("MPI_Improbe", |e| e.improbe(s, t, c))?;
        call_record::mprobed(c, found.as_ref().map(|(m, st)| (message_to(*m), st)));
        write_out(flag, found.is_some() as c_int);
        if let Some((m, st)) = found {
            write_out(message, message_to(m));
            write_status_single(status, &st);
        }
        Ok(())
    })();
    finish(comm, "MPI_Improbe", r)
} }

/// The communicator whose error handler gets the errors of a receive of
/// message handle `h` (`MPI_COMM_WORLD`'s when it names none).
fn comm_of_message(h: c_int) -> c_int {
    message_from(h)
        .ok()
        .flatten()
        .and_then(|m| runtime::with_engine(|e| e.message_comm(m)).flatten())
        .map_or(MPI_COMM_WORLD, comm_to)
}

mpi_fn! { fn MPI_Mrecv / c (buf: *mut c_void, count: CountT, datatype: c_int, message: *mut c_int, status: *mut MpiStatus) {
    let comm = if message.is_null() { MPI_COMM_WORLD } else { comm_of_message(*message) };
    let r = (|| {
        if message.is_null() {
            return Err(MpiError::Arg);
        }
        let (m, dt, n) = (message_from(*message)?, datatype_from(datatype)?, count_from(count)?);
        let handle = *message;
        let id = engine("MPI_Mrecv", |e| {
            let span = e.datatypes().span(dt, n)?;
            let id = e.imrecv_into(m, program_memory(buf, span), n, dt)?;
            call_record::mrecv(e, handle, (n, dt), None);
            Ok(id)
        })?;
        write_out(message, MPI_MESSAGE_NULL);
        let st = wait_then("MPI_Mrecv", id, false, |_, done| Ok(done.status))?;
        write_status_single(status, &st);
        st.error.map_or(Ok(()), Err)
    })();
    finish(comm, "MPI_Mrecv", r)
} }

mpi_fn! { fn MPI_Imrecv / c (buf: *mut c_void, count: CountT, datatype: c_int, message: *mut c_int, request: *mut c_int) {
    let comm = if message.is_null() { MPI_COMM_WORLD } else { comm_of_message(*message) };
    let r = (|| {
        if message.is_null() {
            return Err(MpiError::Arg);
        }
        let (m, dt, n) = (message_from(*message)?, datatype_from(datatype)?, count_from(count)?);
        let handle = *message;
        engine("MPI_Imrecv", |e| {
            let span = e.datatypes().span(dt, n)?;
            let id = e.imrecv_into(m, program_memory(buf, span), n, dt)?;
            call_record::mrecv(e, handle, (n, dt), Some(request_to(id)));
            hand_out(e, id, buf, request)
        })?;
        write_out(message, MPI_MESSAGE_NULL);
        Ok(())
    })();
    finish(comm, "MPI_Imrecv", r)
} }

mpi_fn! { fn MPI_Isendrecv / c (sendbuf: *const c_void, sendcount: CountT, sendtype: c_int, dest: c_int, sendtag: c_int,
                           recvbuf: *mut c_void, recvcount: CountT, recvtype: c_int, source: c_int, recvtag: c_int,
                           comm: c_int, request: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        let send = (count_from(sendcount)?, datatype_from(sendtype)?, dest_from(dest)?, send_tag(sendtag)?);
        let recv = (count_from(recvcount)?, datatype_from(recvtype)?, source_from(source)?, tag_from(recvtag)?);
        engine("MPI_Isendrecv", |e| {
            let sspan = e.datatypes().span(send.1, send.0)?;
            let rspan = e.datatypes().span(recv.1, recv.0)?;
            let id = e.isendrecv_with(
                program_memory(sendbuf, sspan),
                send,
                program_memory(recvbuf, rspan),
                recv,
                c,
            )?;
            hand_out(e, id, recvbuf, request)
        })
    })();
    finish(comm, "MPI_Isendrecv", r)
} }

mpi_fn! { fn MPI_Isendrecv_replace / c (buf: *mut c_void, count: CountT, datatype: c_int, dest: c_int, sendtag: c_int,
                                   source: c_int, recvtag: c_int, comm: c_int, request: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        let (dt, n) = (datatype_from(datatype)?, count_from(count)?);
        let (d, stg, s, rtg) = (dest_from(dest)?, send_tag(sendtag)?, source_from(source)?, tag_from(recvtag)?);
        engine("MPI_Isendrecv_replace", |e| {
            let span = e.datatypes().span(dt, n)?;
            // The message is the buffer as it is now: packed during the call.
            let id = e.isendrecv_replace_with(
                region(buf, span),
                program_memory(buf, span),
                (n, dt),
                (d, stg),
                (s, rtg),
                c,
            )?;
            hand_out(e, id, buf, request)
        })
    })();
    finish(comm, "MPI_Isendrecv_replace", r)
} }

mpi_fn! { fn MPI_Status_set_cancelled(status: *mut MpiStatus, flag: c_int) {
    if ignored(status) {
        return finish(MPI_COMM_WORLD, "MPI_Status_set_cancelled", Err(MpiError::Arg));
    }
    (*status).set_cancelled(flag != 0);
    MPI_SUCCESS
} }
