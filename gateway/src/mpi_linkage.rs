//! Which MPI library a program was built against, from the shared
//! libraries its ELF file asks the loader for (`DT_NEEDED`), followed
//! through the libraries it needs in turn. mpinetsim replaces MPICH's
//! `libmpi.so.12`; a program built against Open MPI (`libmpi.so.40`)
//! cannot run on it, and one that needs no MPI library at all never
//! connects (unless it loads MPI itself, as Python's mpi4py does).

use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// What a program needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MpiLinkage {
    /// MPICH's ABI (`libmpi.so.12`, `libmpich.so.12`, …): runs on the shim.
    Mpich,
    /// Open MPI; the library that says so.
    OpenMpi(String),
    /// A dynamically linked program with no MPI library among all the
    /// libraries it needs.
    NoMpi,
    /// A statically linked program: it loads no library at all.
    Static,
    /// Not an ELF64 little-endian file (a script, another architecture),
    /// or some library it needs was not found: nothing is said.
    Unknown,
}

/// What to add to the sentence about a rank that ended before MPI_Init:
/// why a program that needs no MPI library (or loads none at all) never
/// connected, and what to do; nothing for the others.
pub fn hint(linkage: &MpiLinkage, program: &Path) -> String {
    match linkage {
        MpiLinkage::NoMpi => format!(
            "; {} is not linked to an MPI library (none of the libraries it needs is libmpi.so.12): build it with Debian's mpicc or mpif90",
            program.display()
        ),
        MpiLinkage::Static => format!(
            "; {} is statically linked, so it cannot load mpinetsim's MPI library: build it with Debian's mpicc or mpif90, without -static",
            program.display()
        ),
        _ => String::new(),
    }
}

/// Library names of MPICH's ABI.
const MPICH_LIBRARIES: [&str; 6] = [
    "libmpi.so.12",
    "libmpich.so.12",
    "libmpifort.so.12",
    "libmpichfort.so.12",
    "libmpicxx.so.12",
    "libmpichcxx.so.12",
];

/// True for a library of Open MPI (any version).
fn is_open_mpi(name: &str) -> bool {
    name.starts_with("libmpi.so.4")
        || name.starts_with("libmpi.so.20")
        || name.starts_with("libopen-rte.so")
        || name.starts_with("libopen-pal.so")
        || name.starts_with("libmpi_mpifh.so")
        || name.starts_with("libmpi_usempif08.so")
}

/// Folders the loader searches after LD_LIBRARY_PATH and a library's own
/// run paths (Debian's multiarch folders first).
const SYSTEM_FOLDERS: [&str; 6] = [
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
];

/// Most libraries followed (a program's closure is rarely over a hundred).
const MAX_LIBRARIES: usize = 500;

/// What `program` is linked against (see [`MpiLinkage`]).
pub fn mpi_linkage(program: &Path) -> MpiLinkage {
    let first = match read_dynamic(program) {
        Ok(Some(d)) => d,
        Ok(None) => return MpiLinkage::Static,
        Err(_) => return MpiLinkage::Unknown,
    };
    let env_folders: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([(program.to_path_buf(), first)]);
    let mut unresolved = false;
    while let Some((path, dynamic)) = queue.pop_front() {
        let origin = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        for name in &dynamic.needed {
            if MPICH_LIBRARIES.contains(&name.as_str()) {
                return MpiLinkage::Mpich;
            }
            if is_open_mpi(name) {
                return MpiLinkage::OpenMpi(name.clone());
            }
            if !seen.insert(name.clone()) || seen.len() > MAX_LIBRARIES {
                continue;
            }
            let folders = dynamic
                .run_paths
                .iter()
                .map(|p| PathBuf::from(p.replace("$ORIGIN", &origin.to_string_lossy())))
                .chain(env_folders.iter().cloned())
                .chain(SYSTEM_FOLDERS.iter().map(PathBuf::from));
            let found = folders
                .map(|f| f.join(name))
                .find_map(|p| match read_dynamic(&p) {
                    Ok(Some(d)) => Some((p, d)),
                    _ => None,
                });
            match found {
                Some(next) => queue.push_back(next),
                None => unresolved = true,
            }
        }
    }
    if unresolved {
        MpiLinkage::Unknown
    } else {
        MpiLinkage::NoMpi
    }
}

/// The dynamic section's needs of one ELF file.
#[derive(Debug, Default)]
struct Dynamic {
    needed: Vec<String>,
    /// DT_RUNPATH or DT_RPATH folders.
    run_paths: Vec<String>,
}

/// Reads an ELF64 little-endian file's needed libraries; `Ok(None)` for a
/// file without a dynamic section, an error for anything else.
fn read_dynamic(path: &Path) -> std::io::Result<Option<Dynamic>> {
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not an ELF64 LE file");
    let f = File::open(path)?;
    let mut header = [0u8; 64];
    f.read_exact_at(&mut header, 0)?;
    if &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return Err(bad());
    }
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let ph_off = u64_at(&header, 0x20);
    let ph_size = u16_at(&header, 0x36) as u64;
    let ph_count = u16_at(&header, 0x38) as u64;
    if ph_size < 56 || ph_count > 4096 {
        return Err(bad());
    }
    let mut phdrs = vec![0u8; (ph_size * ph_count) as usize];
    f.read_exact_at(&mut phdrs, ph_off)?;
    // (virtual address, file offset, size in the file) of each loaded
    // segment, to find the string table from its address.
    let mut loads = Vec::new();
    let mut dynamic = None;
    for ph in phdrs.chunks_exact(ph_size as usize) {
        let kind = u32::from_le_bytes(ph[..4].try_into().expect("4 bytes"));
        let (offset, vaddr, filesz) = (u64_at(ph, 8), u64_at(ph, 16), u64_at(ph, 32));
        match kind {
            1 => loads.push((vaddr, offset, filesz)),
            2 => dynamic = Some((offset, filesz)),
            _ => {}
        }
    }
    let Some((dyn_off, dyn_size)) = dynamic else {
        return Ok(None);
    };
    if dyn_size > 1 << 20 {
        return Err(bad());
    }
    let mut entries = vec![0u8; dyn_size as usize];
    f.read_exact_at(&mut entries, dyn_off)?;
    let (mut needed, mut run_paths) = (Vec::new(), Vec::new());
    let (mut strtab, mut strsz) = (None, 0u64);
    for e in entries.chunks_exact(16) {
        let (tag, value) = (u64_at(e, 0), u64_at(e, 8));
        match tag {
            0 => break,
            1 => needed.push(value),
            5 => strtab = Some(value),
            10 => strsz = value,
            15 | 29 => run_paths.push(value),
            _ => {}
        }
    }
    let strtab_vaddr = strtab.ok_or_else(bad)?;
    let strtab_off = loads
        .iter()
        .find(|(v, _, size)| (*v..v + size).contains(&strtab_vaddr))
        .map(|(v, off, _)| strtab_vaddr - v + off)
        .ok_or_else(bad)?;
    if strsz == 0 || strsz > 16 << 20 {
        return Err(bad());
    }
    let mut strings = vec![0u8; strsz as usize];
    f.read_exact_at(&mut strings, strtab_off)?;
    let string = |at: u64| -> String {
        let tail = strings.get(at as usize..).unwrap_or_default();
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        String::from_utf8_lossy(&tail[..end]).into_owned()
    };
    Ok(Some(Dynamic {
        needed: needed.into_iter().map(string).collect(),
        run_paths: run_paths
            .into_iter()
            .flat_map(|at| {
                string(at)
                    .split(':')
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_needs_the_c_library_and_no_mpi() {
        let sh = Path::new("/bin/sh").canonicalize().unwrap();
        let d = read_dynamic(&sh).unwrap().unwrap();
        assert!(d.needed.iter().any(|n| n == "libc.so.6"), "{d:?}");
        assert_eq!(mpi_linkage(&sh), MpiLinkage::NoMpi);
    }

    #[test]
    fn scripts_and_missing_files_say_nothing() {
        let d = tempfile::tempdir().unwrap();
        let script = d.path().join("run.sh");
        std::fs::write(&script, "#!/bin/sh\nexec ./a.out\n").unwrap();
        assert_eq!(mpi_linkage(&script), MpiLinkage::Unknown);
        assert_eq!(mpi_linkage(&d.path().join("none")), MpiLinkage::Unknown);
    }

    #[test]
    fn mpich_libraries_are_recognised_directly_and_open_mpi_by_name() {
        let mpich = Path::new("/usr/lib/x86_64-linux-gnu/libmpich.so.12");
        if mpich.exists() {
            // libmpichcxx needs libmpich.so.12.
            let cxx = Path::new("/usr/lib/x86_64-linux-gnu/libmpichcxx.so.12");
            if cxx.exists() {
                assert_eq!(mpi_linkage(cxx), MpiLinkage::Mpich);
            }
        }
        assert!(is_open_mpi("libmpi.so.40"));
        assert!(is_open_mpi("libopen-pal.so.40"));
        assert!(!is_open_mpi("libmpi.so.12"));
    }
}
