//! Build script of the channel shim.
//!
//! Sets the shared object's SONAME to `libmpich.so.12`, the name Debian's
//! MPICH programs ask the dynamic loader for.
//!
//! It also makes sure every function Debian's `mpi.h` declares is exported:
//! it reads `mpi-functions.txt` (name, C return type, MPI version; written by
//! `tools/list-mpi-functions.py`), finds the functions implemented under
//! `src/ffi/` (any `fn MPI_x(` outside comments and strings; the `mpi_fn!`
//! macro defines `PMPI_x` next to it), and writes into `$OUT_DIR`:
//!
//! - `unsupported.rs`: for every other function, `MPI_x` and `PMPI_x` stubs
//!   that end the job with `mpinetsim: MPI_x is not supported`;
//! - `coverage_data.rs`: `IMPLEMENTED` and `ALL_FUNCTIONS` for the coverage
//!   document (docs/mpi-coverage.md).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// One line of mpi-functions.txt.
struct Function {
    name: String,
    return_type: String,
    version: String,
}

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmpich.so.12");
    println!("cargo:rerun-if-changed=build.rs");

    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());

    let list_path = manifest_dir.join("mpi-functions.txt");
    println!("cargo:rerun-if-changed={}", list_path.display());
    let functions = read_function_list(&list_path);

    let ffi_dir = manifest_dir.join("src").join("ffi");
    println!("cargo:rerun-if-changed={}", ffi_dir.display());
    let mut implemented = BTreeSet::new();
    let mut files = Vec::new();
    rust_files(&ffi_dir, &mut files);
    files.sort();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        implemented.extend(implemented_functions(&strip_comments_and_strings(&text)));
    }

    let listed: BTreeSet<&str> = functions.iter().map(|f| f.name.as_str()).collect();
    for name in &implemented {
        if !listed.contains(name.as_str()) {
            println!(
                "cargo:warning=src/ffi implements {name}, which mpi-functions.txt does not list"
            );
        }
    }

    write_if_changed(
        &out_dir.join("unsupported.rs"),
        &unsupported_stubs(&functions, &implemented),
    );
    write_if_changed(
        &out_dir.join("coverage_data.rs"),
        &coverage_data(&functions, &implemented),
    );
}

/// Parses mpi-functions.txt: `<name> <return type> <version>` per line.
fn read_function_list(path: &Path) -> Vec<Function> {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut functions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [name, return_type, version] = fields[..] else {
            panic!(
                "{}:{}: expected `<name> <return type> <version>`, got {line:?}",
                path.display(),
                i + 1
            );
        };
        if !name.starts_with("MPI_") || !name.bytes().all(is_ident_byte) {
            panic!(
                "{}:{}: {name:?} is not an MPI_ function name",
                path.display(),
                i + 1
            );
        }
        rust_return_type(return_type).unwrap_or_else(|| {
            panic!(
                "{}:{}: unknown return type {return_type:?}",
                path.display(),
                i + 1
            )
        });
        functions.push(Function {
            name: name.to_string(),
            return_type: return_type.to_string(),
            version: version.to_string(),
        });
    }
    functions
}

/// The Rust type a stub returns for a C return type of mpi.h.
fn rust_return_type(c_type: &str) -> Option<&'static str> {
    Some(match c_type {
        "int" | "MPI_Fint" => "::std::os::raw::c_int",
        "double" => "f64",
        "MPI_Aint" | "MPI_Offset" | "MPI_Count" => "isize",
        "MPI_File" => "*mut ::std::os::raw::c_void",
        _ => return None,
    })
}

/// All `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Rust source with comments, string literals and char literals blanked
/// out (so neither `// fn MPI_x(` nor `"fn MPI_x("` counts as a definition).
/// Raw strings are treated like plain ones, which is enough for src/ffi.
fn strip_comments_and_strings(src: &str) -> String {
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

/// Names matching `\bfn\s+(MPI_[A-Za-z0-9_]+)\s*\(` in `src`.
fn implemented_functions(src: &str) -> Vec<String> {
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
        if j > ws_start
            && name_start > ws_start
            && name.starts_with("MPI_")
            && name.len() > 4
            && b.get(j) == Some(&b'(')
        {
            found.push(name.to_string());
        }
        i += 2;
    }
    found
}

/// `$OUT_DIR/unsupported.rs`: stubs for every listed, unimplemented function.
fn unsupported_stubs(functions: &[Function], implemented: &BTreeSet<String>) -> String {
    let mut s = String::from(
        "// Generated by channel-shim/build.rs from mpi-functions.txt: MPI functions\n\
         // src/ffi does not implement. Each ends the job with one line\n\
         // `mpinetsim: MPI_x is not supported`.\n\n",
    );
    for f in functions.iter().filter(|f| !implemented.contains(&f.name)) {
        let ret = rust_return_type(&f.return_type).unwrap();
        for prefix in ["", "P"] {
            let _ = writeln!(
                s,
                "/// `{prefix}{name}` is not supported: ends the job saying so.\n\
                 #[no_mangle]\n\
                 #[allow(non_snake_case, clippy::missing_safety_doc)]\n\
                 pub unsafe extern \"C\" fn {prefix}{name}() -> {ret} {{\n    \
                 crate::abi::unsupported(\"{name}\")\n}}\n",
                name = f.name,
            );
        }
    }
    s
}

/// `$OUT_DIR/coverage_data.rs`: `IMPLEMENTED` and `ALL_FUNCTIONS`.
fn coverage_data(functions: &[Function], implemented: &BTreeSet<String>) -> String {
    let mut s = String::from(
        "// Generated by channel-shim/build.rs from mpi-functions.txt and src/ffi.\n\n\
         /// MPI functions of mpi-functions.txt that src/ffi implements, sorted.\n\
         pub const IMPLEMENTED: &[&str] = &[\n",
    );
    for f in functions.iter().filter(|f| implemented.contains(&f.name)) {
        let _ = writeln!(s, "    {:?},", f.name);
    }
    s.push_str(
        "];\n\n\
         /// Every function of mpi-functions.txt as (name, MPI version column:\n\
         /// \"3.1\", \"4.0\" or \"removed\"), in the file's order.\n\
         pub const ALL_FUNCTIONS: &[(&str, &str)] = &[\n",
    );
    for f in functions {
        let _ = writeln!(s, "    ({:?}, {:?}),", f.name, f.version);
    }
    s.push_str("];\n");
    s
}

/// Writes `path` only when its content changes, so dependents are not
/// rebuilt needlessly.
fn write_if_changed(path: &Path, content: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(content) {
        fs::write(path, content).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}
