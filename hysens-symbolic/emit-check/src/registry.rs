//! Every compiled kernel behind one signature, so tests can run them in a loop.
//!
//! The adapters are generated next to the kernels (`$OUT_DIR/registry.rs`) but are not emitted
//! by hysens-symbolic: they are the build script's glue, kept out of `kernels.rs` so that file
//! holds nothing but emitted code.

use crate::kernels::*;

/// A kernel taking its array arguments concatenated (`x`, then `v` or `w`) and writing its
/// outputs flattened row-major. Output slots the kernel does not write are left untouched.
pub struct Compiled {
    /// The kernel's name, as in `generate::kernels()`.
    pub name: &'static str,
    /// Calls the kernel. Panics if a slice has the wrong length.
    pub call: fn(&[f64], &mut [f64]),
}

include!(concat!(env!("OUT_DIR"), "/registry.rs"));
