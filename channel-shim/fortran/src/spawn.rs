//! Dynamic processes from Fortran: `MPI_COMM_SPAWN` and
//! `MPI_COMM_SPAWN_MULTIPLE`. Commands are `CHARACTER` arguments; an
//! argument vector is a `CHARACTER` array whose first blank element ends
//! it (`ARRAY_OF_ARGV(COUNT, *)` for the multiple form, one row per
//! command), or `MPI_ARGV_NULL` / `MPI_ARGVS_NULL`; `MPI_ERRCODES_IGNORE`
//! is honoured.

use crate::sentinel;
use crate::strings::{text_in, trimmed};
use crate::{set_ierror, Fint};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn MPI_Comm_spawn(
        command: *const c_char,
        argv: *const *const c_char,
        maxprocs: c_int,
        info: c_int,
        root: c_int,
        comm: c_int,
        intercomm: *mut c_int,
        errcodes: *mut c_int,
    ) -> c_int;
    fn MPI_Comm_spawn_multiple(
        count: c_int,
        commands: *const *const c_char,
        argvs: *const *const *const c_char,
        maxprocs: *const c_int,
        infos: *const c_int,
        root: c_int,
        comm: c_int,
        intercomm: *mut c_int,
        errcodes: *mut c_int,
    ) -> c_int;
}

/// Most arguments read from one Fortran argument vector (it must end with
/// a blank element before that).
const MAX_ARGS: usize = 1 << 16;

/// The arguments of a Fortran argument vector whose elements are `len`
/// characters, `stride` elements apart, up to its first blank element;
/// None for `MPI_ARGV_NULL`.
unsafe fn fortran_argv(argv: *const c_char, len: usize, stride: usize) -> Option<Vec<CString>> {
    if sentinel::argv(argv.cast::<c_void>()).is_null() {
        return None;
    }
    let mut args = Vec::new();
    while args.len() < MAX_ARGS {
        let element = argv.add(args.len() * stride * len);
        let text = trimmed(std::slice::from_raw_parts(element.cast::<u8>(), len));
        if text.as_bytes().is_empty() {
            break;
        }
        args.push(text);
    }
    Some(args)
}

/// A NULL-terminated C `argv` over `args` (which must outlive it).
fn c_argv(args: &[CString]) -> Vec<*const c_char> {
    args.iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

fortran_fn! {
    /// `MPI_COMM_SPAWN(COMMAND, ARGV, MAXPROCS, INFO, ROOT, COMM, INTERCOMM, ARRAY_OF_ERRCODES, IERROR)`.
    fn mpi_comm_spawn_(command: *const c_char, argv: *const c_char, maxprocs: *const Fint, info: *const Fint, root: *const Fint, comm: *const Fint, intercomm: *mut Fint, errcodes: *mut Fint, ierror: *mut Fint, command_len: usize, argv_len: usize) {
        let command = text_in(command, command_len);
        let args = fortran_argv(argv, argv_len, 1);
        let c_args = args.as_deref().map(c_argv);
        let argv_ptr = c_args.as_ref().map_or(std::ptr::null(), |a| a.as_ptr());
        set_ierror(ierror, MPI_Comm_spawn(
            command.as_ptr(), argv_ptr, *maxprocs, *info, *root, *comm, intercomm,
            sentinel::errcodes(errcodes),
        ));
    }
}

fortran_fn! {
    /// `MPI_COMM_SPAWN_MULTIPLE(COUNT, ARRAY_OF_COMMANDS, ARRAY_OF_ARGV, ARRAY_OF_MAXPROCS, ARRAY_OF_INFO, ROOT, COMM, INTERCOMM, ARRAY_OF_ERRCODES, IERROR)`.
    fn mpi_comm_spawn_multiple_(count: *const Fint, commands: *const c_char, argvs: *const c_char, maxprocs: *const Fint, infos: *const Fint, root: *const Fint, comm: *const Fint, intercomm: *mut Fint, errcodes: *mut Fint, ierror: *mut Fint, commands_len: usize, argv_len: usize) {
        let n = (*count).max(0) as usize;
        let names: Vec<CString> = (0..n)
            .map(|i| text_in(commands.add(i * commands_len), commands_len))
            .collect();
        let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        // ARRAY_OF_ARGV(COUNT, *): command i's arguments are row i, so
        // consecutive arguments of one command are COUNT elements apart.
        let all_null = sentinel::argv(argvs.cast::<c_void>()).is_null();
        let args: Vec<Vec<CString>> = (0..n)
            .map(|i| {
                if all_null {
                    Vec::new()
                } else {
                    fortran_argv(argvs.add(i * argv_len), argv_len, n).unwrap_or_default()
                }
            })
            .collect();
        let c_args: Vec<Vec<*const c_char>> = args.iter().map(|a| c_argv(a)).collect();
        let argv_ptrs: Vec<*const *const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        set_ierror(ierror, MPI_Comm_spawn_multiple(
            *count, name_ptrs.as_ptr(),
            if all_null { std::ptr::null() } else { argv_ptrs.as_ptr() },
            maxprocs, infos, *root, *comm, intercomm, sentinel::errcodes(errcodes),
        ));
    }
}
