//! Library side of the peer benchmark (the binary in `main.rs` drives it; `examples/` probe
//! single behaviours). See README.md.

pub mod case;
pub mod metrics;
pub mod problems;
pub mod reference;
pub mod runners;
pub mod summary;
pub mod table;
pub mod timing;
