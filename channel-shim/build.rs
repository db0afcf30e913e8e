//! Build script of the channel shim.
//!
//! Sets the shared object's SONAME to `libmpich.so.12`, the name Debian's
//! MPICH programs ask the dynamic loader for.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libmpich.so.12");
    println!("cargo:rerun-if-changed=build.rs");
}
