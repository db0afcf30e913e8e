//! mpi.h refers to some objects by symbol rather than by value
//! (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY, MPI_F_STATUS_IGNORE,
//! MPI_F08_STATUS_IGNORE, MPI_T_PVAR_ALL_HANDLES, MPIR_Dup_fn behind
//! MPI_COMM_DUP_FN). A program built with Debian's mpicc that uses them must
//! load and run against the shim.

mod common;
use common::{on_path, shim_library, skip_because};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `libchannel_shim.so` of this test's profile folder, linked as
/// `libmpich.so.12` into a fresh folder.
fn shim_dir() -> PathBuf {
    let lib = shim_library();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("abi-symbols");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&lib, dir.join("libmpich.so.12")).unwrap();
    dir
}

/// Compiles the C program `source` with `mpicc` as `<dir>/<name>` and runs
/// it with `dir` first on the library path; returns what it printed.
fn compile_and_run(dir: &Path, name: &str, source: &str) -> String {
    let (c, exe) = (dir.join(format!("{name}.c")), dir.join(name));
    std::fs::write(&c, source).unwrap();
    let built = Command::new("mpicc")
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} ({}):\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn programs_using_header_symbols_load_against_the_shim() {
    if !on_path("mpicc") && skip_because("mpicc not found (apt-get install mpich libmpich-dev)") {
        return;
    }
    let dir = shim_dir();
    let printed = compile_and_run(
        &dir,
        "symbols",
        r#"
#include <mpi.h>
#include <stdio.h>
int main(void) {
    void *in = (void *)0x1234, *out = NULL;
    int flag = 0;
    int rc = MPI_COMM_DUP_FN(MPI_COMM_WORLD, 0, NULL, in, &out, &flag);
    printf("dup %d %d %d\n", rc, out == in, flag);
    printf("unweighted %d %d\n", MPI_UNWEIGHTED != NULL, MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
    printf("weights_empty %d\n", MPI_WEIGHTS_EMPTY != NULL);
    printf("f08 %d\n", MPI_F08_STATUS_IGNORE == &MPIR_F08_MPI_STATUS_IGNORE_OBJ);
    printf("f08s %d\n", MPI_F08_STATUSES_IGNORE == &MPIR_F08_MPI_STATUSES_IGNORE_OBJ[0]);
    printf("fstatus %d %d\n", MPI_F_STATUS_IGNORE == NULL, MPI_F_STATUSES_IGNORE == NULL);
    printf("pvar %d\n", MPI_T_PVAR_ALL_HANDLES != NULL);
    return 0;
}
"#,
    );
    assert_eq!(
        printed,
        "dup 0 1 1\nunweighted 1 1\nweights_empty 1\nf08 1\nf08s 1\nfstatus 1 1\npvar 1\n"
    );
}

/// QMPI names MPI functions by their number in MPICH's
/// `enum QMPI_Functions_enum`: the shim's list (qmpi-functions.txt) must
/// give every enumerator the value Debian's header gives it, and the
/// shim must export `QMPI_X`, the end of a tool chain, for every `MPI_X`
/// it implements that QMPI numbers.
#[test]
fn qmpi_function_numbers_are_the_headers() {
    if !on_path("mpicc") && skip_because("mpicc not found (apt-get install mpich libmpich-dev)") {
        return;
    }
    let list = include_str!("../qmpi-functions.txt");
    let names: Vec<&str> = list.lines().collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("qmpi-numbers");
    std::fs::create_dir_all(&dir).unwrap();
    let mut c = String::from("#include <mpi.h>\n#include <stdio.h>\nint main(void) {\n");
    c += "    printf(\"%d\\n\", (int)MPI_LAST_FUNC_T);\n";
    for n in &names {
        c += &format!("    printf(\"%d\\n\", (int){n});\n");
    }
    c += "    return 0;\n}\n";
    let printed = compile_and_run(&dir, "numbers", &c);
    let values: Vec<usize> = printed.lines().map(|l| l.parse().unwrap()).collect();
    let expected: Vec<usize> = std::iter::once(names.len()).chain(0..names.len()).collect();
    assert_eq!(
        values, expected,
        "regenerate with tools/list-qmpi-functions.py"
    );
    // Every implemented MPI_X that QMPI numbers has its QMPI_X.
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(shim_library())
        .output()
        .unwrap();
    let symbols = String::from_utf8_lossy(&nm.stdout);
    let exported: std::collections::HashSet<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let implemented = channel_shim::abi::coverage::IMPLEMENTED;
    let numbered: Vec<&&str> = implemented
        .iter()
        .filter(|f| names.contains(&format!("{}_T", f.to_ascii_uppercase()).as_str()))
        .collect();
    let missing: Vec<&&&str> = numbered
        .iter()
        .filter(|f| !exported.contains(format!("Q{f}").as_str()))
        .collect();
    assert!(numbered.len() > 400, "{} numbered", numbered.len());
    assert!(missing.is_empty(), "no QMPI_ twin: {missing:?}");
}
