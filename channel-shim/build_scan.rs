//! Source scanning shared by the build scripts of the channel shim
//! (`build.rs`) and of its Fortran bindings (`fortran/build.rs`, which
//! includes this file with `#[path]`): which MPI functions a folder of Rust
//! sources defines, and which MPI functions have a Fortran binding.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// All `.rs` files under `dir`, recursively.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Rust source with comments, string literals and char literals blanked
/// out (so neither `// fn MPI_x(` nor `"fn MPI_x("` counts as a definition).
/// Raw strings are treated like plain ones, which is enough for src/ffi.
pub fn strip_comments_and_strings(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let blank = |c: u8| if c == b'\n' { b'\n' } else { b' ' };
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            // escaped char literal such as '\'' or '\n'
            out.extend_from_slice(b"   ");
            i += 3;
            while i < b.len() && b[i] != b'\'' {
                out.push(b' ');
                i += 1;
            }
            out.push(b' ');
            i += 1;
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // plain char literal such as '"'
            out.extend_from_slice(b"   ");
            i += 3;
        } else if b[i] == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.push(b' ');
                    i += 1;
                }
                out.push(blank(b[i]));
                i += 1;
            }
            out.push(b' ');
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Names matching `\bfn\s+(<prefix>[A-Za-z0-9_]+)\s*[(=]` in `src`: a
/// function definition, or a line of the Fortran bindings' wrapper table
/// (`fn mpi_send_ = MPI_Send(...)`); also `fn MPI_Xxx / c (` (and its
/// `MPI_Xxx_c`) and `fn mpi_xxx_f08_ / pmpir_xxx_f08_ (` (an `mpi_f08`
/// routine with its profiling name).
pub fn defined_functions(src: &str, prefix: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 <= b.len() {
        let at_fn = &b[i..i + 2] == b"fn" && (i == 0 || !is_ident_byte(b[i - 1]));
        if !at_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        let ws_start = j;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        let name_start = j;
        while j < b.len() && is_ident_byte(b[j]) {
            j += 1;
        }
        let name = &src[name_start..j];
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if name_start > ws_start
            && name.starts_with(prefix)
            && name.len() > prefix.len()
            && matches!(b.get(j), Some(b'(') | Some(b'='))
        {
            found.push(name.to_string());
        } else if name_start > ws_start
            && name.starts_with(prefix)
            && src[j..].starts_with('/')
            && src[j + 1..].trim_start().starts_with("c")
        {
            // `fn MPI_Xxx / c (`: also its large-count variant MPI_Xxx_c.
            found.push(name.to_string());
            found.push(format!("{name}_c"));
        } else if name_start > ws_start
            && name.starts_with(prefix)
            && src[j..].starts_with('/')
            && (src[j + 1..].trim_start().starts_with("pmpir_")
                || src[j + 1..].trim_start().starts_with("pmpixr_"))
        {
            // `fn mpi_xxx_f08_ / pmpir_xxx_f08_ (`: an `mpi_f08` routine
            // and its profiling name (channel-shim/fortran/src/f08_*.rs;
            // `pmpixr_` for MPICH's `mpix_` extensions).
            found.push(name.to_string());
        }
        i += 2;
    }
    found
}

/// The functions starting with `prefix` that the `.rs` files under `dir`
/// define (comments and strings excluded); asks Cargo to rerun the build
/// script when one of the files changes.
pub fn functions_defined_under(dir: &Path, prefix: &str) -> BTreeSet<String> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    let mut found = BTreeSet::new();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        found.extend(defined_functions(
            &strip_comments_and_strings(&text),
            prefix,
        ));
    }
    found
}

/// gfortran's name of the Fortran binding of the C function `c_name`
/// (`MPI_Comm_rank` → `mpi_comm_rank_`).
pub fn fortran_name(c_name: &str) -> String {
    format!("{}_", c_name.to_ascii_lowercase())
}

/// Whether an `mpif.h` program can call `c_name`: false for the MPI 4.0
/// large-count `_c` variants, the tool interface `MPI_T_*` and the status
/// and file handle conversions between languages, which MPI defines for C
/// (or only for the `mpi_f08` module) and Debian's `libmpichfort.so.12`
/// does not export.
pub fn has_fortran_binding(c_name: &str) -> bool {
    let conversions = ["_c2f", "_f2c", "_c2f08", "_f082c", "_f082f", "_f2f08"];
    !(c_name.starts_with("MPI_T_")
        || c_name.ends_with("_c")
        || conversions.iter().any(|s| c_name.ends_with(s)))
}
