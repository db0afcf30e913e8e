//! `MPI_Win_allocate_shared` and `MPI_Win_shared_query`: the members of a
//! window on one simulated host map one file of shared memory, so their
//! loads and stores reach each other as on a node of a cluster. The engine
//! (`shim_engine::rma::shared`) agrees on the layout and the file's name;
//! here the file is made, mapped and removed.
//!
//! The file is created by the communicator's first member in `/dev/shm`
//! (the temporary folder where there is none) with a name no one can have
//! chosen before (`O_EXCL`), mode 0600; the others open it without
//! following links and check that it is ours, a regular file of the
//! agreed length, before they map it. It is unlinked as soon as every
//! member has mapped it, so it never outlives the window, even when the
//! job is killed later.

use crate::abi::*;
use crate::ffi::buffers::program_memory;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::info::pairs_of;
use crate::ffi::large_count::{CInt, COut, DisplT};
use crate::ffi::rma::record_attr_values;
use crate::ffi::write_out;
use shim_engine::datatype::Span;
use shim_engine::info::WinHints;
use shim_engine::rma::shared::{segment_address, SharedLayout};
use shim_engine::MpiError;
use std::ffi::{CString, OsStr};
use std::os::raw::{c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Windows this process created, for unique file names.
static CREATED: AtomicU64 = AtomicU64::new(0);

/// Where the shared files go: memory-backed `/dev/shm` if there is one.
fn shm_folder() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() {
        shm
    } else {
        std::env::temp_dir()
    }
}

/// A mapping of a shared file.
struct Mapping {
    addr: *mut c_void,
    len: usize,
}

/// Maps `len` bytes of the open file `fd`, shared.
unsafe fn map(fd: c_int, len: usize) -> Option<Mapping> {
    let addr = libc::mmap(
        std::ptr::null_mut(),
        len,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_SHARED,
        fd,
        0,
    );
    (addr != libc::MAP_FAILED).then_some(Mapping { addr, len })
}

/// The first member: a new private file of `len` bytes, mapped; its path.
unsafe fn create_mapping(len: usize) -> Option<(Mapping, CString)> {
    let folder = shm_folder();
    for attempt in 0..16u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "mpinetsim-win-{}-{}-{}-{:x}{attempt}",
            libc::geteuid(),
            std::process::id(),
            CREATED.fetch_add(1, Ordering::Relaxed),
            nanos
        );
        let path = CString::new(folder.join(name).as_os_str().as_bytes()).ok()?;
        let fd = libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o600 as libc::c_uint,
        );
        if fd < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EEXIST) {
                continue;
            }
            return None;
        }
        let mapped = if libc::ftruncate(fd, len as libc::off_t) == 0 {
            map(fd, len)
        } else {
            None
        };
        libc::close(fd);
        return match mapped {
            Some(m) => Some((m, path)),
            None => {
                libc::unlink(path.as_ptr());
                None
            }
        };
    }
    None
}

/// Another member: maps the first member's file at `path` after checking
/// that it is a regular file of ours, `len` bytes long, in the folder
/// shared files go to.
unsafe fn open_mapping(path: &[u8], len: usize) -> Option<Mapping> {
    let p = std::path::Path::new(OsStr::from_bytes(path));
    if p.parent() != Some(shm_folder().as_path()) {
        return None;
    }
    let c = CString::new(path).ok()?;
    let fd = libc::open(
        c.as_ptr(),
        libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return None;
    }
    let mut st: libc::stat = std::mem::zeroed();
    let ours = libc::fstat(fd, &mut st) == 0
        && st.st_mode & libc::S_IFMT == libc::S_IFREG
        && st.st_uid == libc::geteuid()
        && st.st_mode & 0o077 == 0
        && st.st_size as u64 == len as u64;
    let m = if ours { map(fd, len) } else { None };
    libc::close(fd);
    m
}

/// The whole collective: layout, file, mapping, window.
unsafe fn allocate_shared(
    func: &str,
    size: isize,
    disp_unit: impl CInt,
    info: c_int,
    comm: c_int,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> Result<(), MpiError> {
    let c = comm_from(comm)?;
    let size = u64::try_from(size).map_err(|_| MpiError::Size)?;
    // The MPI_WIN_DISP_UNIT attribute is an int, also for the _c variant.
    let disp_unit = c_int::try_from(disp_unit.wide()).map_err(|_| MpiError::Disp)?;
    let unit = u32::try_from(disp_unit).map_err(|_| MpiError::Disp)?;
    let hints = pairs_of(info)?;
    let noncontig = WinHints::default().updated(&hints).alloc_shared_noncontig();
    let layout: SharedLayout = engine(func, |e| e.shared_window_layout(c, size, unit, noncontig))?;
    let len = usize::try_from(layout.len).map_err(|_| MpiError::NoMem)?;
    // The first member creates the file; all learn its name.
    let first = layout.me == 0;
    let mut created = None;
    let mut name = Vec::new();
    if first {
        if let Some((m, path)) = create_mapping(len) {
            name = path.as_bytes().to_vec();
            created = Some((m, path));
        }
    }
    let name = engine(func, |e| e.shared_window_name(c, &name))?;
    let mapping = match created {
        Some((m, _)) => Some(m),
        None if !first && !name.is_empty() => open_mapping(&name, len),
        None => None,
    };
    let all = engine(func, |e| e.shared_window_all_mapped(c, mapping.is_some()));
    if first && !name.is_empty() {
        // Everyone who could map it has: the name is no longer needed.
        if let Ok(path) = CString::new(name) {
            libc::unlink(path.as_ptr());
        }
    }
    let unmap = |m: &Option<Mapping>| {
        if let Some(m) = m {
            libc::munmap(m.addr, m.len);
        }
    };
    if !all? {
        unmap(&mapping);
        return Err(MpiError::NoMem);
    }
    let m = mapping.as_ref().expect("mapped when all mapped");
    let mine = layout.mine();
    let base = segment_address(m.addr as usize, mine) as *mut c_void;
    let segment = program_memory(
        (m.addr as *mut u8).add(mine.offset as usize) as *mut c_void,
        Span {
            base: 0,
            len: mine.size as usize,
        },
    );
    let created = engine(func, |e| {
        let w = e.shared_window_create(segment, m.addr as usize, layout, c)?;
        e.win_set_hints(w, &hints).map(|_| w)
    });
    let w = match created {
        Ok(w) => w,
        Err(e) => {
            unmap(&mapping);
            return Err(e);
        }
    };
    crate::runtime::serve_one_sided_while_computing();
    let h = win_to(w);
    record_attr_values(h, mine.size as isize, disp_unit, MPI_WIN_FLAVOR_SHARED);
    write_out(baseptr as *mut *mut c_void, base);
    write_out(win, h);
    Ok(())
}

mpi_fn! { fn MPI_Win_allocate_shared / c (size: isize, disp_unit: DisplT, info: c_int, comm: c_int, baseptr: *mut c_void, win: *mut c_int) {
    let func = "MPI_Win_allocate_shared";
    finish(comm, func, allocate_shared(func, size, disp_unit, info, comm, baseptr, win))
} }

mpi_fn! { fn MPI_Win_shared_query / c (win: c_int, rank: c_int, size: *mut isize, disp_unit: *mut DisplT, baseptr: *mut c_void) {
    let func = "MPI_Win_shared_query";
    let r = (|| {
        let w = win_from(win)?;
        let rank = match rank {
            MPI_PROC_NULL => None,
            r => Some(usize::try_from(r).map_err(|_| MpiError::Rank)?),
        };
        let (addr, s) = engine(func, |e| e.win_shared_query(w, rank))?;
        write_out(size, s.size as isize);
        write_out(disp_unit, <DisplT as COut>::narrow(i64::from(s.disp_unit)));
        write_out(baseptr as *mut *mut c_void, addr as *mut c_void);
        Ok(())
    })();
    finish(win, func, r)
} }

/// `MPI_Win_free` of a shared window: unmaps the members' memory.
pub(crate) unsafe fn unmap_after_free(mapping: Option<(usize, u64)>) {
    if let Some((addr, len)) = mapping {
        libc::munmap(addr as *mut c_void, len as usize);
    }
}
