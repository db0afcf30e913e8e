//! Client/server connections from Fortran: `MPI_OPEN_PORT`,
//! `MPI_CLOSE_PORT`, `MPI_COMM_ACCEPT`, `MPI_COMM_CONNECT` (port names are
//! `CHARACTER` arguments, blank-padded), `MPI_COMM_JOIN` and the name
//! service (`MPI_PUBLISH_NAME`, `MPI_LOOKUP_NAME`, `MPI_UNPUBLISH_NAME`).

use crate::strings::{pad, text_in};
use crate::{set_ierror, Fint};
use std::os::raw::{c_char, c_int};

/// `MPI_MAX_PORT_NAME`.
const MAX_PORT_NAME: usize = 256;

extern "C" {
    fn MPI_Open_port(info: c_int, port_name: *mut c_char) -> c_int;
    fn MPI_Close_port(port_name: *const c_char) -> c_int;
    fn MPI_Comm_accept(
        port: *const c_char,
        info: c_int,
        root: c_int,
        comm: c_int,
        newcomm: *mut c_int,
    ) -> c_int;
    fn MPI_Comm_connect(
        port: *const c_char,
        info: c_int,
        root: c_int,
        comm: c_int,
        newcomm: *mut c_int,
    ) -> c_int;
    fn MPI_Comm_join(fd: c_int, intercomm: *mut c_int) -> c_int;
}

fortran_fn! {
    /// `MPI_OPEN_PORT(INFO, PORT_NAME, IERROR)`.
    fn mpi_open_port_(info: *const Fint, port_name: *mut c_char, ierror: *mut Fint, port_name_len: usize) {
        let mut buf = [0u8; MAX_PORT_NAME + 1];
        let r = MPI_Open_port(*info, buf.as_mut_ptr() as *mut c_char);
        if !port_name.is_null() {
            let n = buf.iter().position(|&b| b == 0).unwrap_or(MAX_PORT_NAME);
            pad(std::slice::from_raw_parts_mut(port_name as *mut u8, port_name_len), &buf[..n]);
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_CLOSE_PORT(PORT_NAME, IERROR)`.
    fn mpi_close_port_(port_name: *const c_char, ierror: *mut Fint, port_name_len: usize) {
        let name = text_in(port_name, port_name_len);
        set_ierror(ierror, MPI_Close_port(name.as_ptr()));
    }
}

fortran_fn! {
    /// `MPI_COMM_ACCEPT(PORT_NAME, INFO, ROOT, COMM, NEWCOMM, IERROR)`.
    fn mpi_comm_accept_(port_name: *const c_char, info: *const Fint, root: *const Fint, comm: *const Fint, newcomm: *mut Fint, ierror: *mut Fint, port_name_len: usize) {
        let name = text_in(port_name, port_name_len);
        set_ierror(ierror, MPI_Comm_accept(name.as_ptr(), *info, *root, *comm, newcomm));
    }
}

fortran_fn! {
    /// `MPI_COMM_CONNECT(PORT_NAME, INFO, ROOT, COMM, NEWCOMM, IERROR)`.
    fn mpi_comm_connect_(port_name: *const c_char, info: *const Fint, root: *const Fint, comm: *const Fint, newcomm: *mut Fint, ierror: *mut Fint, port_name_len: usize) {
        let name = text_in(port_name, port_name_len);
        set_ierror(ierror, MPI_Comm_connect(name.as_ptr(), *info, *root, *comm, newcomm));
    }
}

fortran_fn! {
    /// `MPI_COMM_JOIN(FD, INTERCOMM, IERROR)`.
    fn mpi_comm_join_(fd: *const Fint, intercomm: *mut Fint, ierror: *mut Fint) {
        set_ierror(ierror, MPI_Comm_join(*fd, intercomm));
    }
}

extern "C" {
    fn MPI_Publish_name(service: *const c_char, info: c_int, port: *const c_char) -> c_int;
    fn MPI_Lookup_name(service: *const c_char, info: c_int, port: *mut c_char) -> c_int;
    fn MPI_Unpublish_name(service: *const c_char, info: c_int, port: *const c_char) -> c_int;
}

fortran_fn! {
    /// `MPI_PUBLISH_NAME(SERVICE_NAME, INFO, PORT_NAME, IERROR)`.
    fn mpi_publish_name_(service: *const c_char, info: *const Fint, port_name: *const c_char, ierror: *mut Fint, service_len: usize, port_name_len: usize) {
        let (s, p) = (text_in(service, service_len), text_in(port_name, port_name_len));
        set_ierror(ierror, MPI_Publish_name(s.as_ptr(), *info, p.as_ptr()));
    }
}

fortran_fn! {
    /// `MPI_LOOKUP_NAME(SERVICE_NAME, INFO, PORT_NAME, IERROR)`.
    fn mpi_lookup_name_(service: *const c_char, info: *const Fint, port_name: *mut c_char, ierror: *mut Fint, service_len: usize, port_name_len: usize) {
        let s = text_in(service, service_len);
        let mut buf = [0u8; MAX_PORT_NAME + 1];
        let r = MPI_Lookup_name(s.as_ptr(), *info, buf.as_mut_ptr() as *mut c_char);
        if r == 0 && !port_name.is_null() {
            let n = buf.iter().position(|&b| b == 0).unwrap_or(MAX_PORT_NAME);
            pad(std::slice::from_raw_parts_mut(port_name as *mut u8, port_name_len), &buf[..n]);
        }
        set_ierror(ierror, r);
    }
}

fortran_fn! {
    /// `MPI_UNPUBLISH_NAME(SERVICE_NAME, INFO, PORT_NAME, IERROR)`.
    fn mpi_unpublish_name_(service: *const c_char, info: *const Fint, port_name: *const c_char, ierror: *mut Fint, service_len: usize, port_name_len: usize) {
        let (s, p) = (text_in(service, service_len), text_in(port_name, port_name_len));
        set_ierror(ierror, MPI_Unpublish_name(s.as_ptr(), *info, p.as_ptr()));
    }
}
