//! Emits the kernels of `src/cases.rs` into `$OUT_DIR`, where `src/lib.rs` includes them.
//!
//! Included code is compiled and linted like hand-written code (it is not a macro expansion, so
//! clippy does not skip it): `cargo clippy -D warnings` on this crate is a check of the emitter.

#[path = "src/cases.rs"]
mod cases;
#[path = "src/generate.rs"]
#[allow(dead_code, reason = "the accessors that only the tests use")]
mod generate;

use std::path::PathBuf;

fn main() {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let kernels = generate::kernels();
    write(
        &out_dir.join("kernels.rs"),
        &generate::kernels_source(&kernels),
    );
    write(
        &out_dir.join("registry.rs"),
        &generate::registry_source(&kernels),
    );
    println!("cargo::rerun-if-changed=src/cases.rs");
    println!("cargo::rerun-if-changed=src/generate.rs");
    // The emitter itself is a build dependency: cargo rebuilds this script when it changes.
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
