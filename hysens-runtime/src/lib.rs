//! # hysens-runtime
//!
//! The `no_std`, no-heap integration engine of hysens: fixed-size ESDIRK methods, events,
//! resets and forward sensitivities across every switch. Every size is a const generic; nothing
//! in the solve path allocates.
//!
//! What is public: the hybrid solve of a [`HybridModel`] — [`solve`] (with each named cost,
//! [`solve_costs`]), the gradient by the discrete adjoint [`solve_adjoint`], both over one
//! [`HybridRun`] (model, tableau, [`HybridProblem`], [`HybridOptions`], [`StepPlan`],
//! [`Objective`]) — with its outputs and results; the
//! [`Solver`] builder over it (owned results with feature `std`); the model interfaces a
//! `#[hybrid_model]` implements; the tableaus ([`tableau`]); the error type ([`SolveError`]);
//! the dense output of a solve ([`dense_output`]);
//! and the integrator of one smooth mode ([`smooth`]). Everything else is the crate's own.
//!
//! Inside, one module per concept; arrows run one way, from the API to the driver to the
//! concepts to the numerical kernels (checked by the test `tests/import_graph.rs`):
//!
//! | module | what |
//! |---|---|
//! | `solver/` | the API: the [`Solver`] builder, sensitivity selection, owned results |
//! | `hybrid/` | the driver: sequences integration, events, recording and outputs; the gradient's forward pass, backward pass and recomputation (`gradient.rs`) |
//! | `run.rs` | what describes a run: problem, options, step plan, outputs, solution |
//! | `events/` | guards: arming, detection, location, polishing, reset, grazing, Zeno |
//! | `fsa/` | forward sensitivities: the stepper with sensitivities ([`smooth::Esdirk`]) and the maps it applies: step, step length and event time, jump, segment start, cost |
//! | `adjoint/` | the discrete adjoint: the tape, checkpoints, and the transpose of each map of `fsa/` in the file of the same name, across events and memory |
//! | `step/` | the ESDIRK step of one smooth mode: attempt, error test, step control, dense output |
//! | `newton.rs` | simplified Newton for the stages; consistent algebraic variables |
//! | `model/` | the model interfaces ([`HybridModel`], [`AdjointProducts`], [`smooth::SmoothMode`]), the named costs and the objective a solve differentiates ([`Objective`]), and the mode adapter (a mode of a hybrid model with its memory as a smooth mode) |
//! | `linalg/` | fixed-size LU with partial pivoting; the block vocabulary of a mode's Jacobian ([`ModeJacobian`]: stage matrix, products with it and its transpose) |
//! | `tableau/` | ESDIRK tableaus as `const` data, checked against their order conditions |
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
//! use hysens_runtime::smooth::{Esdirk, SmoothMode};
//! use hysens_runtime::{Inline, ModeJacobian, Options, ESDIRK34};
//!
//! /// y' = −k y
//! struct Decay;
//! impl SmoothMode<1, 0, 1> for Decay {
//!     type Store = Inline;
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
mod dense;
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

/// The integrator of one smooth mode, without events: [`Esdirk`](smooth::Esdirk) over a
/// [`SmoothMode`](smooth::SmoothMode), step by step ([`Trial`](smooth::Trial), committed with
/// a [`StepLength`](smooth::StepLength)) or to a time, reporting each accepted step as a
/// [`StepRecord`](smooth::StepRecord).
pub mod smooth {
    pub use crate::fsa::Esdirk;
    pub use crate::model::SmoothMode;
    pub use crate::step::{StepLength, StepRecord, Trial};
}

/// What a user of the runtime needs, in one import: `use hysens_runtime::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "std")]
    pub use crate::solver::{
        CostGradients, Event, Gradient, LookupError, SampleState, Solution, SolveFailure,
    };
    pub use crate::solver::{
        Fields, InitialStates, ModelTypes, NoParams, Params, Solver, Variable, Wrt,
    };
    pub use crate::{
        solve_adjoint, AdjointGradient, AdjointProducts, CostErrorTest, HybridModel, HybridOptions,
        ModelSizes, Options, SolveError, Stats,
    };
}

pub use adjoint::{AdjointGradient, AdjointPoint, AdjointStats, AdjointTape, Checkpoint, TapeStep};
pub use dense::{dense_output, DenseError, DensePoint, Limit};
pub use error::{Described, SolveError};
pub use hybrid::{adjoint_tape_length, solve, solve_adjoint, solve_costs};
pub use model::{
    cost_index, AdjointProducts, ConditionPartials, CostInfo, CostKind, CostValue, Direction,
    EventTarget, GuardInfo, HybridModel, InitialMode, Inline, MatrixStore, Memory, ModeInfo,
    ModeJacobian, ModelSizes, Objective, Point, RelaxedSizes, ResetJacobian, ScalarPartials,
};
#[cfg(feature = "std")]
pub use model::{Heap, HeapMatrix};
#[cfg(feature = "sparse")]
pub use model::{Sparse, SparseLu};
pub use options::{CostErrorTest, Options};
pub(crate) use run::ZENO_CLOSE_EVENTS;
pub use run::{
    EventRecord, HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution,
    LoggedStep, Sample, StepKind, StepPlan,
};
#[cfg(feature = "std")]
pub use solver::{
    CostGradients, Event, Gradient, LookupError, SampleState, Solution, SolveFailure,
};
pub use solver::{Fields, InitialStates, ModelTypes, NoParams, Params, Solver, Variable, Wrt};
pub use stack::{stack_estimate, stack_estimate_in};
pub use stats::Stats;
pub use tableau::{Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA, ESDIRK547L2SA2};
