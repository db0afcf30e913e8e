//! Build script of the Fortran bindings.
//!
//! Sets the shared object's SONAME to `libmpichfort.so.12`, the name
//! programs built with Debian's `mpif90` ask the loader for, and records
//! `libmpich.so.12` (the channel shim) as NEEDED: such programs are linked
//! with `--as-needed` and so do not load the C library themselves.
//!
//! The C functions are resolved when the library is loaded. At link time a
//! stand-in `libmpich.so` with that SONAME and no symbols, compiled here
//! with the system C compiler (`$CC`, else `cc`), only provides the NEEDED
//! entry; shared objects may keep undefined symbols.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmpichfort.so.12");

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let src = out_dir.join("stand_in.c");
    std::fs::write(&src, "/* stand-in for libmpich.so.12 at link time */\n")
        .expect("write the stand-in source");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-shared", "-fPIC", "-Wl,-soname,libmpich.so.12", "-o"])
        .arg(out_dir.join("libmpich.so"))
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(
        status.success(),
        "{cc} failed to build the stand-in libmpich.so"
    );
    // rustc links with --as-needed, which would drop a library that
    // resolves no symbol at link time.
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--push-state,--no-as-needed,{},--pop-state",
        out_dir.join("libmpich.so").display()
    );
}
