//! # hysens
//!
//! Hybrid dynamical systems — modes, guards, resets, memory — with parametric sensitivities that
//! stay exact across every switch.
//!
//! This facade re-exports the workspace crates:
//!
//! - [`symbolic`]: the compile-time symbolic differentiation engine (`hysens-symbolic`).
//! - [`runtime`]: the `no_std`, no-heap ESDIRK runtime (`hysens-runtime`).
//! - [`hybrid_model`]: the attribute macro that turns an annotated module into a model with
//!   compile-time kernels (`hysens-macros`).
//!
//! **Start with [`guide`]**: the model language, every attribute with a compiled example.
//!
//! With the cargo feature `argmin`, the module `argmin` adds parameter estimation with the
//! argmin optimizers: a model and its data as an argmin problem, with gradients by the adjoint
//! and residual Jacobians by forward sensitivities.
//! With the feature `rayon`, `hysens::batch` solves one model for many parameter sets and initial
//! states in parallel (multistart, sweeps, Monte Carlo).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use hysens_macros::hybrid_model;
pub use hysens_runtime as runtime;
pub use hysens_symbolic as symbolic;

#[cfg(feature = "argmin")]
pub mod argmin;
#[cfg(feature = "rayon")]
pub mod batch;
pub mod guide;

/// What a user needs, in one import: `use hysens::prelude::*;` brings the `#[hybrid_model]`
/// attribute, the solving API ([`runtime::Solver`], [`runtime::Params`],
/// [`runtime::InitialStates`], [`runtime::Wrt`], the owned [`runtime::Solution`]) and the model
/// traits; with the feature `rayon`, also the batch methods (`hysens::batch::Batch`).
pub mod prelude {
    #[cfg(feature = "rayon")]
    pub use crate::batch::Batch;
    pub use hysens_macros::hybrid_model;
    pub use hysens_runtime::prelude::*;
}

/// The README's code blocks, compiled and run as doctests so the README stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
