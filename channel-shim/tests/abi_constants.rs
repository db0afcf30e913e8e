//! The Rust constants of `channel_shim::abi` against Debian's MPICH `mpi.h`:
//! a generated C program prints every constant of `ALL_CONSTANTS` (value and
//! `sizeof`), the layout of `MPI_Status`, and — linked with the real MPICH —
//! the sizes of the predefined datatypes and how MPICH encodes a status
//! count; each is compared with the Rust side. A second check lists the
//! header's object-like macros and fails if one is neither declared in Rust
//! nor explained below.

mod common;

use channel_shim::abi::{self, MpiStatus};
use common::{on_path, skip_because};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const MPICH_INCLUDE: &str = "/usr/include/x86_64-linux-gnu/mpich";

/// Object-like macros of mpi.h that are deliberately not in ALL_CONSTANTS.
const NOT_CONSTANTS: &[(&str, &str)] = &[
    ("MPI_INCLUDED", "include guard"),
    ("MPI_PROTO_H_INCLUDED", "include guard"),
    ("MPI_FILE_DEFINED", "empty marker for ROMIO"),
    ("MPI_AINT_FMT_DEC_SPEC", "printf format string"),
    ("MPI_AINT_FMT_HEX_SPEC", "printf format string"),
    (
        "MPI_DUP_FN",
        "address of MPIR_Dup_fn (exported by ffi::symbols)",
    ),
    (
        "MPI_COMM_DUP_FN",
        "address of MPIR_Dup_fn (exported by ffi::symbols)",
    ),
    (
        "MPI_TYPE_DUP_FN",
        "address of MPIR_Dup_fn (exported by ffi::symbols)",
    ),
    (
        "MPI_WIN_DUP_FN",
        "address of MPIR_Dup_fn (exported by ffi::symbols)",
    ),
    ("MPICH_VERSION", "string \"4.0.2\""),
    ("MPICH_API_PUBLIC", "empty attribute macro"),
];

fn header_present() -> bool {
    if Path::new(MPICH_INCLUDE).join("mpi.h").is_file() {
        return true;
    }
    !skip_because("mpi.h not found (apt-get install libmpich-dev)")
}

fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("abi-constants-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `source` with Debian's `mpicc` (or `cc -I<mpich include>`,
/// adding `-lmpich` when the program calls MPI) and returns the executable.
fn compile(name: &str, source: &str, link_mpich: bool) -> PathBuf {
    let dir = work_dir(name);
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, source).unwrap();
    let mut cmd;
    if on_path("mpicc") {
        cmd = Command::new("mpicc");
        cmd.arg("-o").arg(&exe).arg(&c);
    } else {
        cmd = Command::new("cc");
        cmd.arg(format!("-I{MPICH_INCLUDE}"))
            .arg("-o")
            .arg(&exe)
            .arg(&c);
        if link_mpich {
            cmd.arg("-lmpich");
        }
    }
    let out = cmd.output().expect("cannot run the C compiler");
    assert!(
        out.status.success(),
        "compiling {} failed:\n{}",
        c.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs `exe` with the system's MPICH (no LD_LIBRARY_PATH that might point
/// at a shim) and returns stdout.
fn run(exe: &Path) -> String {
    let out = Command::new(exe)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD")
        .output()
        .expect("cannot run the C program");
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `name number number` lines into a map.
fn parse(stdout: &str) -> BTreeMap<String, (i64, i64)> {
    stdout
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "bad line {l:?}");
            (
                f[0].to_string(),
                (f[1].parse().unwrap(), f[2].parse().unwrap()),
            )
        })
        .collect()
}

#[test]
fn constants_match_mpi_h() {
    if !header_present() {
        return;
    }
    let mut src = String::from(
        "#include <mpi.h>\n#include <stdio.h>\n#include <stdint.h>\n#include <stddef.h>\n\
         #define P(name) printf(\"%s %lld %zu\\n\", #name, (long long)(intptr_t)(name), sizeof(name))\n\
         #define OFF(field) printf(\"offsetof.%s %zu %zu\\n\", #field, offsetof(MPI_Status, field), sizeof(((MPI_Status *)0)->field))\n\
         int main(void) {\n",
    );
    for (name, _) in abi::ALL_CONSTANTS {
        let _ = writeln!(src, "    P({name});");
    }
    src.push_str(
        "    printf(\"sizeof.MPI_Status %zu %zu\\n\", sizeof(MPI_Status), _Alignof(MPI_Status));\n\
         OFF(count_lo); OFF(count_hi_and_cancelled); OFF(MPI_SOURCE); OFF(MPI_TAG); OFF(MPI_ERROR);\n\
         return 0;\n}\n",
    );
    let printed = parse(&run(&compile("constants", &src, false)));

    let mut wrong = Vec::new();
    for ((name, value), (_, size)) in abi::ALL_CONSTANTS.iter().zip(abi::ALL_CONSTANT_SIZES) {
        match printed.get(*name) {
            None => wrong.push(format!("{name}: not printed by the C program")),
            Some(&(c_value, c_size)) => {
                if c_value != *value {
                    wrong.push(format!(
                        "{name}: mpi.h says {c_value} ({c_value:#x}), Rust says {value} ({value:#x})"
                    ));
                }
                if c_size != *size as i64 {
                    wrong.push(format!("{name}: sizeof is {c_size} in C, {size} in Rust"));
                }
            }
        }
    }

    let layout = [
        (
            "sizeof.MPI_Status",
            std::mem::size_of::<MpiStatus>(),
            std::mem::align_of::<MpiStatus>(),
        ),
        (
            "offsetof.count_lo",
            std::mem::offset_of!(MpiStatus, count_lo),
            4,
        ),
        (
            "offsetof.count_hi_and_cancelled",
            std::mem::offset_of!(MpiStatus, count_hi_and_cancelled),
            4,
        ),
        (
            "offsetof.MPI_SOURCE",
            std::mem::offset_of!(MpiStatus, mpi_source),
            4,
        ),
        (
            "offsetof.MPI_TAG",
            std::mem::offset_of!(MpiStatus, mpi_tag),
            4,
        ),
        (
            "offsetof.MPI_ERROR",
            std::mem::offset_of!(MpiStatus, mpi_error),
            4,
        ),
    ];
    for (key, rust_a, rust_b) in layout {
        let (c_a, c_b) = printed[key];
        if (c_a, c_b) != (rust_a as i64, rust_b as i64) {
            wrong.push(format!(
                "{key}: C says ({c_a}, {c_b}), Rust says ({rust_a}, {rust_b})"
            ));
        }
    }

    assert!(
        wrong.is_empty(),
        "{} of {} constants differ from mpi.h:\n{}",
        wrong.len(),
        abi::ALL_CONSTANTS.len(),
        wrong.join("\n")
    );
    println!(
        "{} constants and the MPI_Status layout match mpi.h",
        abi::ALL_CONSTANTS.len()
    );
}

#[test]
fn every_header_constant_is_declared() {
    if !header_present() {
        return;
    }
    let dir = work_dir("macros");
    let c = dir.join("macros.c");
    std::fs::write(&c, "#include <mpi.h>\n").unwrap();
    let out = Command::new(if on_path("cc") { "cc" } else { "gcc" })
        .arg(format!("-I{MPICH_INCLUDE}"))
        .args(["-dM", "-E"])
        .arg(&c)
        .output()
        .expect("cannot run the C preprocessor");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();

    let declared: Vec<&str> = abi::ALL_CONSTANTS.iter().map(|(n, _)| *n).collect();
    let mut missing = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("#define ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if rest[name.len()..].starts_with('(') {
            continue; // function-like macro
        }
        let ours =
            name.starts_with("MPI_") || name.starts_with("MPIX_") || name.starts_with("MPICH");
        if ours
            && !declared.contains(&name.as_str())
            && !NOT_CONSTANTS.iter().any(|(n, _)| *n == name)
        {
            missing.push(line.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "mpi.h defines constants that channel_shim::abi::constants does not declare:\n{}",
        missing.join("\n")
    );
}

/// Sizes of the predefined datatypes and the status-count encoding, asked
/// from the real MPICH (singleton MPI_Init, no mpiexec needed).
#[test]
fn datatype_sizes_and_status_encoding_match_mpich() {
    if !header_present() {
        return;
    }
    if !Path::new("/usr/lib/x86_64-linux-gnu/libmpich.so.12").exists()
        && skip_because("libmpich.so.12 not installed (apt-get install libmpich-dev)")
    {
        return;
    }
    let mut src = String::from(
        "#include <mpi.h>\n#include <stdio.h>\n\
         #define T(name) do { int sz = -1; MPI_Aint lb = 0, ext = -1; \
         if (MPI_Type_size(name, &sz) != MPI_SUCCESS) sz = -1; \
         if (MPI_Type_get_extent(name, &lb, &ext) != MPI_SUCCESS) ext = -1; \
         printf(\"%s %d %ld\\n\", #name, sz, (long)ext); } while (0)\n\
         int main(int argc, char **argv) {\n\
         MPI_Init(&argc, &argv);\n\
         MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);\n\
         MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);\n",
    );
    for (name, value) in abi::DATATYPES {
        if *value as i32 != abi::MPI_DATATYPE_NULL {
            let _ = writeln!(src, "    T({name});");
        }
    }
    src.push_str(
        "{ MPI_Status s = {0}; MPI_Status_set_elements_x(&s, MPI_BYTE, (MPI_Count)0x123456789abcLL);\n\
         MPI_Status_set_cancelled(&s, 1);\n\
         printf(\"status.count_lo %d 0\\nstatus.count_hi_and_cancelled %d 0\\n\", s.count_lo, s.count_hi_and_cancelled);\n\
         MPI_Count n = 0; MPI_Get_elements_x(&s, MPI_BYTE, &n); printf(\"status.count %lld 0\\n\", (long long)n); }\n\
         MPI_Finalize();\nreturn 0;\n}\n",
    );
    let printed = parse(&run(&compile("mpich_runtime", &src, true)));

    let mut wrong = Vec::new();
    for (name, value) in abi::DATATYPES {
        let handle = *value as i32;
        if handle == abi::MPI_DATATYPE_NULL {
            continue;
        }
        let (size, extent) = printed[*name];
        let rust = match (
            abi::builtin_datatype_size(handle),
            abi::pair_datatype_layout(handle),
        ) {
            (Some(s), None) => (s as i64, s as i64),
            (None, Some(p)) => (p.size as i64, p.extent as i64),
            other => {
                wrong.push(format!("{name}: Rust knows no size ({other:?})"));
                continue;
            }
        };
        // MPI_LB / MPI_UB have size 0; MPICH reports their extent as 0 too.
        if (size, extent) != rust {
            wrong.push(format!(
                "{name}: MPICH says size {size} extent {extent}, Rust says {rust:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "datatype sizes differ from MPICH:\n{}",
        wrong.join("\n")
    );

    let mut status = MpiStatus {
        count_lo: printed["status.count_lo"].0 as i32,
        count_hi_and_cancelled: printed["status.count_hi_and_cancelled"].0 as i32,
        ..MpiStatus::default()
    };
    assert_eq!(status.count(), 0x1234_5678_9abc);
    assert_eq!(printed["status.count"].0, 0x1234_5678_9abc);
    assert!(status.cancelled());
    let encoded = status;
    status = MpiStatus::default();
    status.set_count(0x1234_5678_9abc);
    status.set_cancelled(true);
    assert_eq!(
        status, encoded,
        "Rust encodes a status count differently from MPICH"
    );
}
