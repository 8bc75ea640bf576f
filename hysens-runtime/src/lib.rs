//! # hysens-runtime
//!
//! The `no_std`, no-heap integration engine of hysens: fixed-size ESDIRK methods, events,
//! resets and forward sensitivities across every switch. Every size is a const generic; nothing
//! in the solve path allocates.
//!
//! Status: tableaus ([`tableau`]), fixed-size LU ([`linalg`]), the error type ([`error`]), the
//! model interface of one smooth mode ([`model`]), adaptive and fixed-step ESDIRK integration
//! of a semi-explicit index-1 DAE ([`esdirk`]) and its forward parameter sensitivities, dense
//! output ([`dense`]), and the hybrid solve ([`hybrid_solve::solve`]) of a [`HybridModel`]:
//! events located on the discrete solution ([`events`]), resets, consistent re-initialization
//! and the exact derivative of the discrete event step ([`jump`]), memory ([`mode_adapter`]), costs and their gradients
//! ([`cost`]), caller-provided outputs ([`hybrid_io`]). The adjoint is not implemented yet.
//!
//! The solve of one smooth mode:
//!
//! ```
//! use hysens_runtime::{Esdirk, ModeJacobian, Options, SmoothMode, ESDIRK34};
//!
//! /// y' = −k y
//! struct Decay;
//! impl SmoothMode<1, 0, 1> for Decay {
//!     fn f(&self, _t: f64, y: &[f64; 1], _z: &[f64; 0], p: &[f64; 1], out: &mut [f64; 1]) {
//!         out[0] = -p[0] * y[0];
//!     }
//!     fn g(&self, _t: f64, _y: &[f64; 1], _z: &[f64; 0], _p: &[f64; 1], _out: &mut [f64; 0]) {}
//!     fn jacobian(&self, _t: f64, _y: &[f64; 1], _z: &[f64; 0], p: &[f64; 1],
//!                 jac: &mut ModeJacobian<1, 0>) {
//!         jac.fy[0][0] = -p[0];
//!     }
//!     fn parameter_jacobian(&self, _t: f64, y: &[f64; 1], _z: &[f64; 0], _p: &[f64; 1],
//!                           fp: &mut [[f64; 1]; 1], _gp: &mut [[f64; 1]; 0]) {
//!         fp[0][0] = -y[0];
//!     }
//! }
//!
//! // Const parameters: S = 4 stages, NY = 1, NZ = 0, NP = 1, N = NY + NZ = 1.
//! let mut it = Esdirk::<_, 4, 1, 0, 1, 1>::new(
//!     &Decay, &ESDIRK34, 0, [2.0], 0.0, [1.0], [], Options::new(1e-8, 1e-10),
//! )?;
//! it.enable_sensitivities([[0.0]])?;
//! it.integrate_to(1.0, |_step| {})?;
//! let exact = (-2.0f64).exp();
//! assert!((it.y()[0] - exact).abs() < 1e-6);
//! // ∂y/∂k = −t e^{−kt}
//! assert!((it.sensitivities().0[0][0] + exact).abs() < 1e-6);
//! # Ok::<(), hysens_runtime::SolveError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(any(feature = "std", test))]
extern crate std;

pub mod controller;
pub mod cost;
pub mod dense;
pub mod error;
pub mod esdirk;
pub mod events;
pub mod hybrid_io;
pub mod hybrid_model;
pub mod hybrid_solve;
pub mod jump;
pub mod linalg;
pub mod mode_adapter;
pub mod model;
pub mod norm;
pub mod options;
mod solver;
pub mod stats;
pub mod tableau;

/// What a user of the runtime needs, in one import: `use hysens_runtime::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "std")]
    pub use crate::solver::{Event, SampleState, Solution, SolveFailure};
    pub use crate::solver::{Fields, InitialStates, Params, Solver, Variable, Wrt};
    pub use crate::{
        AdjointProducts, HybridModel, HybridOptions, ModelSizes, Options, SolveError, Stats,
    };
}

pub use error::SolveError;
pub use esdirk::{Esdirk, StepLength, StepRecord, Trial};
pub use hybrid_io::{
    EventRecord, HybridOptions, HybridOutputs, HybridProblem, HybridSolution, LoggedStep, Sample,
    StepKind, StepPlan,
};
pub use hybrid_model::{
    AdjointProducts, Direction, GuardInfo, HybridModel, InitialMode, Memory, ModeInfo, ModelSizes,
    Point, ResetJacobian, ScalarPartials,
};
pub use hybrid_solve::solve;
pub use model::{ModeJacobian, SmoothMode};
pub use options::Options;
#[cfg(feature = "std")]
pub use solver::{Event, SampleState, Solution, SolveFailure};
pub use solver::{Fields, InitialStates, Params, Solver, Variable, Wrt};
pub use stats::Stats;
pub use tableau::{Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA};
