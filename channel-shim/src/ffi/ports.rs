//! Client/server connections between groups of one job: `MPI_Open_port`,
//! `MPI_Close_port`, `MPI_Comm_accept`, `MPI_Comm_connect` and
//! `MPI_Comm_join` (the engine's `ports` module says how).

use crate::abi::*;
use crate::ffi::comm::hand_out_comm;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::{write_c_string, write_out};
use shim_engine::MpiError;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// `MPI_ERR_PORT`.
const ERR_PORT: MpiError = MpiError::Code(MPI_ERR_PORT);

/// A port name argument.
unsafe fn port<'a>(p: *const c_char) -> Result<&'a str, MpiError> {
    if p.is_null() {
        return Err(ERR_PORT);
    }
    CStr::from_ptr(p).to_str().map_err(|_| ERR_PORT)
}

mpi_fn! { fn MPI_Open_port(_info: c_int, port_name: *mut c_char) {
    let func = "MPI_Open_port";
    let r = engine(func, |e| Ok(e.open_port()))
        .map(|name| { write_c_string(port_name, MPI_MAX_PORT_NAME as usize, &name); });
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Close_port(port_name: *const c_char) {
    let func = "MPI_Close_port";
    let r = port(port_name).and_then(|p| engine(func, |e| e.close_port(p)));
    finish(MPI_COMM_WORLD, func, r)
} }

/// `MPI_Comm_accept` and `MPI_Comm_connect`: the port name matters at the
/// root only.
unsafe fn connection(
    func: &str,
    port_name: *const c_char,
    root: c_int,
    comm: c_int,
    newcomm: *mut c_int,
    accept: bool,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        let root = u32::try_from(root).map_err(|_| MpiError::Root)?;
        let here = engine(func, |e| Ok(e.comm_rank(c)? == root))?;
        let name = if here { port(port_name)? } else { "" };
        let ic = engine(func, |e| {
            if accept {
                e.comm_accept(name, root, c)
            } else {
                e.comm_connect(name, root, c)
            }
        });
        match ic {
            Ok(ic) => {
                hand_out_comm(Some(ic), newcomm);
                Ok(())
            }
            Err(err) => {
                hand_out_comm(None, newcomm);
                Err(err)
            }
        }
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Comm_accept(port_name: *const c_char, _info: c_int, root: c_int, comm: c_int, newcomm: *mut c_int) {
    connection("MPI_Comm_accept", port_name, root, comm, newcomm, true)
} }

mpi_fn! { fn MPI_Comm_connect(port_name: *const c_char, _info: c_int, root: c_int, comm: c_int, newcomm: *mut c_int) {
    connection("MPI_Comm_connect", port_name, root, comm, newcomm, false)
} }

/// Writes all of `bytes` to `fd`, then reads exactly as many back.
fn exchange(fd: c_int, bytes: [u8; 4]) -> std::io::Result<[u8; 4]> {
    let mut done = 0;
    while done < bytes.len() {
        // SAFETY: writes from a live local array.
        let n = unsafe { libc::write(fd, bytes[done..].as_ptr().cast(), bytes.len() - done) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        done += n as usize;
    }
    let mut got = [0u8; 4];
    let mut read = 0;
    while read < got.len() {
        // SAFETY: reads into a live local array.
        let n = unsafe { libc::read(fd, got[read..].as_mut_ptr().cast(), got.len() - read) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        read += n as usize;
    }
    Ok(got)
}

mpi_fn! { fn MPI_Comm_join(fd: c_int, intercomm: *mut c_int) {
    let func = "MPI_Comm_join";
    let r = (|| {
        // Each end tells the other its world rank over the program's socket.
        let me = engine(func, |e| Ok(e.rank()))?;
        let peer = exchange(fd, me.to_le_bytes()).map_err(|_| MpiError::Arg)?;
        let peer = u32::from_le_bytes(peer);
        match engine(func, |e| e.comm_join(peer)) {
            Ok(ic) => {
                hand_out_comm(Some(ic), intercomm);
                Ok(())
            }
            Err(err) => {
                write_out(intercomm, MPI_COMM_NULL);
                Err(err)
            }
        }
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

// ---- the name service: MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name ----

/// The job's name service: one file per published service name in the
/// `names` folder of the job's private folder (where the gateway's socket
/// is; mode 0700, removed with the job), holding the port name. Ranks
/// started by another launcher over TCP have no such folder.
fn names_dir() -> Result<std::path::PathBuf, MpiError> {
    let socket =
        std::env::var_os(mpinetsim_protocol::ENV_SOCKET).ok_or(MpiError::Code(MPI_ERR_SERVICE))?;
    let dir = std::path::Path::new(&socket)
        .parent()
        .ok_or(MpiError::Code(MPI_ERR_SERVICE))?
        .join("names");
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => Ok(dir),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(dir),
        Err(_) => Err(MpiError::Code(MPI_ERR_SERVICE)),
    }
}

/// The file of service `name` (its bytes in hexadecimal: any name is a
/// valid file name).
fn service_file(name: &str) -> Result<std::path::PathBuf, MpiError> {
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    Ok(names_dir()?.join(hex))
}

/// A service name argument.
unsafe fn service<'a>(p: *const c_char) -> Result<&'a str, MpiError> {
    if p.is_null() {
        return Err(MpiError::Code(MPI_ERR_SERVICE));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| MpiError::Code(MPI_ERR_SERVICE))
}

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};

mpi_fn! { fn MPI_Publish_name(service_name: *const c_char, _info: c_int, port_name: *const c_char) {
    let func = "MPI_Publish_name";
    let r = (|| {
        let (s, p) = (service(service_name)?, port(port_name)?);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(service_file(s)?)
            // A name published already (by this job) is MPI_ERR_SERVICE.
            .map_err(|_| MpiError::Code(MPI_ERR_SERVICE))?;
        use std::io::Write;
        f.write_all(p.as_bytes()).map_err(|_| MpiError::Code(MPI_ERR_SERVICE))
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Lookup_name(service_name: *const c_char, _info: c_int, port_name: *mut c_char) {
    let func = "MPI_Lookup_name";
    let r = (|| {
        let s = service(service_name)?;
        let p = std::fs::read_to_string(service_file(s)?).map_err(|_| MpiError::Code(MPI_ERR_NAME))?;
        write_c_string(port_name, MPI_MAX_PORT_NAME as usize, &p);
        Ok(())
    })();
    finish(MPI_COMM_WORLD, func, r)
} }

mpi_fn! { fn MPI_Unpublish_name(service_name: *const c_char, _info: c_int, port_name: *const c_char) {
    let func = "MPI_Unpublish_name";
    let r = (|| {
        let (s, p) = (service(service_name)?, port(port_name)?);
        let file = service_file(s)?;
        // Only the name as published with this port.
        match std::fs::read_to_string(&file) {
            Ok(published) if published == p => {
                std::fs::remove_file(&file).map_err(|_| MpiError::Code(MPI_ERR_SERVICE))
            }
            _ => Err(MpiError::Code(MPI_ERR_SERVICE)),
        }
    })();
    finish(MPI_COMM_WORLD, func, r)
} }
