//! Fixed-size dense linear algebra for the Newton iteration matrix and sensitivity solves.
//!
//! Sizes are const generics; everything lives on the stack. No heap, no panics.

mod lu;

pub(crate) use lu::{Lu, LuError};
