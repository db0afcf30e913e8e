//! Dynamic processes: `MPI_Comm_spawn`, `MPI_Comm_spawn_multiple` and
//! `MPI_Comm_get_parent`. The root's commands go to the gateway, which
//! starts the processes as new ranks of the simulated network; the
//! engine's `spawn` module makes the intercommunicator.
//!
//! Info keys honoured per command: `host` (a host of the network),
//! `wdir` (the working directory) and `path` (folders to find the
//! program in); others are ignored, as MPI allows.

use crate::abi::*;
use crate::ffi::comm::hand_out_comm;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::comm_from;
use crate::ffi::info::pairs_of;
use crate::ffi::write_out;
use mpinetsim_protocol::spawn::{SpawnCommand, SpawnRequest};
use shim_engine::MpiError;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// Most arguments one command may carry.
const MAX_ARGS: usize = 1 << 16;

/// A C string argument.
unsafe fn text(p: *const c_char) -> Result<String, MpiError> {
    if p.is_null() {
        return Err(MpiError::Arg);
    }
    CStr::from_ptr(p)
        .to_str()
        .map(str::to_owned)
        .map_err(|_| MpiError::Arg)
}

/// An `argv` argument: NULL-terminated; `MPI_ARGV_NULL` is none.
unsafe fn arguments(argv: *const *const c_char) -> Result<Vec<String>, MpiError> {
    let mut args = Vec::new();
    if argv.is_null() {
        return Ok(args);
    }
    while !(*argv.add(args.len())).is_null() {
        if args.len() == MAX_ARGS {
            return Err(MpiError::Arg);
        }
        args.push(text(*argv.add(args.len()))?);
    }
    Ok(args)
}

/// One command as the root passed it.
unsafe fn command(
    program: *const c_char,
    argv: *const *const c_char,
    maxprocs: c_int,
    info: c_int,
) -> Result<SpawnCommand, MpiError> {
    let count = u32::try_from(maxprocs)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(MpiError::Arg)?;
    let pairs = pairs_of(info)?;
    let key = |k: &str| {
        pairs
            .iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.clone())
    };
    Ok(SpawnCommand {
        program: text(program)?,
        args: arguments(argv)?,
        count,
        host: key("host"),
        wdir: key("wdir"),
        path: key("path"),
    })
}

/// Both spawn routines: `commands` reads the root's commands (called at
/// the root only); writes the intercommunicator and one error code per
/// new process.
unsafe fn spawn(
    func: &str,
    commands: impl FnOnce() -> Result<Vec<SpawnCommand>, MpiError>,
    root: c_int,
    comm: c_int,
    intercomm: *mut c_int,
    errcodes: *mut c_int,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        let root = u32::try_from(root).map_err(|_| MpiError::Root)?;
        let here = engine(func, |e| Ok(e.comm_rank(c)? == root))?;
        let request = if here {
            Some(
                SpawnRequest {
                    commands: commands()?,
                }
                .encode(),
            )
        } else {
            None
        };
        match engine(func, |e| e.comm_spawn(request, root, c)) {
            Ok((ic, count)) => {
                hand_out_comm(Some(ic), intercomm);
                if !errcodes.is_null() {
                    for i in 0..count as usize {
                        write_out(errcodes.add(i), MPI_SUCCESS);
                    }
                }
                Ok(())
            }
            Err(err) => {
                write_out(intercomm, MPI_COMM_NULL);
                if let Some(why) = engine(func, |e| Ok(e.spawn_refusal())).ok().flatten() {
                    eprintln!("mpinetsim: {func}: {why}");
                }
                Err(err)
            }
        }
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_spawn(command_name: *const c_char, argv: *mut *mut c_char, maxprocs: c_int, info: c_int, root: c_int, comm: c_int, intercomm: *mut c_int, array_of_errcodes: *mut c_int) {
    let commands = || Ok(vec![command(command_name, argv.cast(), maxprocs, info)?]);
    spawn("MPI_Comm_spawn", commands, root, comm, intercomm, array_of_errcodes)
} }

mpi_fn! { fn MPI_Comm_spawn_multiple(count: c_int, array_of_commands: *mut *mut c_char, array_of_argv: *mut *mut *mut c_char, array_of_maxprocs: *const c_int, array_of_info: *const c_int, root: c_int, comm: c_int, intercomm: *mut c_int, array_of_errcodes: *mut c_int) {
    let commands = || {
        let n = usize::try_from(count).ok().filter(|&n| n > 0).ok_or(MpiError::Arg)?;
        if array_of_commands.is_null() || array_of_maxprocs.is_null() || array_of_info.is_null() {
            return Err(MpiError::Arg);
        }
        (0..n)
            .map(|i| {
                let argv = if array_of_argv.is_null() {
                    std::ptr::null()
                } else {
                    (*array_of_argv.add(i)).cast_const().cast()
                };
                command(
                    *array_of_commands.add(i),
                    argv,
                    *array_of_maxprocs.add(i),
                    *array_of_info.add(i),
                )
            })
            .collect()
    };
    spawn("MPI_Comm_spawn_multiple", commands, root, comm, intercomm, array_of_errcodes)
} }

mpi_fn! { fn MPI_Comm_get_parent(parent: *mut c_int) {
    let func = "MPI_Comm_get_parent";
    let r = engine(func, |e| Ok(e.comm_parent())).map(|p| hand_out_comm(p, parent));
    finish(MPI_COMM_WORLD, func, r)
} }
