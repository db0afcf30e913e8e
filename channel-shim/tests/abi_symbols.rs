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

#[test]
fn programs_using_header_symbols_load_against_the_shim() {
    if !on_path("mpicc") && skip_because("mpicc not found (apt-get install mpich libmpich-dev)") {
        return;
    }
    let dir = shim_dir();
    let c = dir.join("symbols.c");
    let exe = dir.join("symbols");
    std::fs::write(
        &c,
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
    )
    .unwrap();
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
        .env("LD_LIBRARY_PATH", &dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} ({}):\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "dup 0 1 1\nunweighted 1 1\nweights_empty 1\nf08 1\nf08s 1\nfstatus 1 1\npvar 1\n"
    );
}
