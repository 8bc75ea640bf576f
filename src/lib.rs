//! # hysens
//!
//! Hybrid dynamical systems — modes, guards, resets, memory — with parametric sensitivities that
//! stay exact across every switch.
//!
//! This facade re-exports the workspace crates:
//!
//! - [`symbolic`]: the compile-time symbolic differentiation engine (`hysens-symbolic`).
//! - [`runtime`]: the `no_std`, no-heap ESDIRK runtime (`hysens-runtime`).
//!
//! The `#[hybrid_model]` attribute macro (`hysens-macros`) joins this facade when it exists.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use hysens_runtime as runtime;
pub use hysens_symbolic as symbolic;

/// The README's code blocks, compiled and run as doctests so the README stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
