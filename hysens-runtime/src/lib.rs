//! # hysens-runtime
//!
//! The `no_std`, no-heap integration engine of hysens: fixed-size ESDIRK methods, events,
//! resets and forward sensitivities across every switch. Every size is a const generic; nothing
//! in the solve path allocates.
//!
//! What is public: the hybrid solve ([`solve`]) of a [`HybridModel`] with its problem, options
//! and outputs, the [`Solver`] builder over it, the integrator of one smooth mode ([`Esdirk`],
//! a [`SmoothMode`]), the tableaus ([`tableau`]) and the error type ([`SolveError`]). Inside,
//! one module per concept:
//!
//! | module | what |
//! |---|---|
//! | `tableau/` | ESDIRK tableaus as `const` data, checked against their order conditions |
//! | `linalg/` | fixed-size LU with partial pivoting |
//! | `model/` | the model interfaces ([`SmoothMode`], [`HybridModel`]) and the mode adapter |
//! | `newton.rs` | simplified Newton for the stages; consistent algebraic variables |
//! | `step/` | the ESDIRK integrator: attempt, acceptance, step control, dense output |
//! | `fsa/` | forward sensitivities: step derivative, step length, event jumps, costs |
//! | `events/` | guards: arming, detection, location, polishing, reset, grazing, Zeno |
//! | `hybrid/` | the driver of a hybrid solve, its problem and solution types |
//! | `adjoint/` | the discrete adjoint: the tape of a solve and its backward pass (no events yet) |
//! | `solver/` | the [`Solver`] builder; with `std`, owned results |
//! | `stack.rs` | how much stack a solve needs ([`stack_estimate`]); with `std`, growing it |
//!
//! **Stack.** Every array lives on the stack, sized by the model, so a solve needs a multiple
//! of the integrator's size: 0.3–0.6 MiB for 11 states, 20–45 MiB for 101 states with
//! sensitivities in a debug build (a third of that in release). [`stack_estimate`] (and a
//! `#[hybrid_model]`'s `Model::STACK_ESTIMATE`) gives it with a safety margin. With feature
//! `std` the builder's [`Solver::solve`], [`Solver::solve_into`] and [`Solver::gradient`] use
//! it to run on a larger stack segment when the thread has less left (so any thread can call
//! them); the `no_std` calls ([`solve`], [`solve_adjoint`], and `solve_into` without `std`)
//! run on the caller's stack: give them a thread of [`stack_estimate`]'s size.
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

mod adjoint;
mod error;
mod events;
mod fsa;
mod hybrid;
mod linalg;
mod model;
mod newton;
mod norm;
mod options;
mod run;
mod solver;
mod stack;
mod stats;
mod step;
pub mod tableau;

/// What a user of the runtime needs, in one import: `use hysens_runtime::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "std")]
    pub use crate::solver::{Event, Gradient, SampleState, Solution, SolveFailure};
    pub use crate::solver::{Fields, InitialStates, ModelTypes, Params, Solver, Variable, Wrt};
    pub use crate::{
        solve_adjoint, AdjointGradient, AdjointProducts, CostErrorTest, HybridModel, HybridOptions,
        ModelSizes, Options, SolveError, Stats,
    };
}

pub use adjoint::{
    AdjointGradient, AdjointPoint, AdjointStats, AdjointTape, Checkpoint, TapeEvent, TapeStep,
};
pub use error::{Described, SolveError};
pub use fsa::Esdirk;
pub use hybrid::{
    adjoint_tape_length, solve, solve_adjoint, EventRecord, HybridOptions, HybridOutputs,
    HybridProblem, HybridSolution, LoggedStep, Sample, StepKind, StepPlan, ZENO_CLOSE_EVENTS,
};
pub use model::{
    AdjointProducts, Direction, EventTarget, GuardInfo, HybridModel, InitialMode, Memory, ModeInfo,
    ModeJacobian, ModelSizes, Point, ResetJacobian, ScalarPartials, SmoothMode,
};
pub use options::{CostErrorTest, Options};
#[cfg(feature = "std")]
pub use solver::{Event, Gradient, SampleState, Solution, SolveFailure};
pub use solver::{Fields, InitialStates, ModelTypes, Params, Solver, Variable, Wrt};
pub use stack::stack_estimate;
pub use stats::Stats;
pub use step::{StepLength, StepRecord, Trial};
pub use tableau::{Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA};
