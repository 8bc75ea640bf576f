//! Parameter estimation with [argmin](https://argmin-rs.org) (feature `argmin`): a model, its
//! problem data and the choice of free parameters as an argmin problem.
//!
//! A [`Fit`] wraps a configured [`Solver`] (tolerances, options, tableau), the problem (`t0`,
//! `tf`, the initial states `x0` and parameters `p`), the sample times `t_k` with their data
//! `d_k`, the free entries `θ` (parameters and, if wanted, initial states; the others stay at
//! their values in `x0` and `p`) and the variable `v` the data measure. The parameter vector
//! of argmin is `θ` as a [`DVector<f64>`], in the order the free entries were named. `Fit`
//! implements the four argmin traits that gradient-based and least-squares methods need:
//!
//! - [`CostFunction`] and [`Gradient`]: the model's objective `G(θ) = ∫ L dt + Σ_k ℓ_k + φ`
//!   and its gradient `dG/dθ` by the discrete adjoint ([`Solver::gradient`]: one forward solve
//!   with a tape and one backward pass, whatever the number of free entries) — for L-BFGS,
//!   nonlinear conjugate gradients, steepest descent;
//! - [`Operator`] and [`Jacobian`]: the residuals `r_k(θ) = v(t_k; θ) − d_k` and their
//!   Jacobian `J_kj = ∂r_k/∂θ_j = ∂v(t_k)/∂θ_j`, the forward sensitivities at the samples
//!   ([`Solver::solve`] with [`Solver::sensitivities_to`] the free entries) — for
//!   Gauss–Newton.
//!
//! The two views are one least-squares problem when the model's only cost is the sampled
//! `#[cost(sampled)] fn misfit(x: &X, d: f64) -> f64 { 0.5 * (x.h - d).powi(2) }`: then
//! `G = ½‖r‖²` and `dG/dθ = Jᵀr` (Nocedal & Wright 2006, Eq. 10.3), whose Gauss–Newton step
//! solves `JᵀJ δ = −Jᵀr` (ibid., §10.3). Both derivatives are exact derivatives of the
//! discrete solution, across every event (Serban & Recuero 2019, Eq. 6 for the jumps), so a
//! fit converges to the minimum of the discrete problem without the noise of finite
//! differences. At the minimum, with data of independent noise of standard deviation `σ`, the
//! linearized covariance of the estimate is `σ²(JᵀJ)⁻¹` ([`Fit::covariance`]; Seber & Wild
//! 1989, *Nonlinear Regression*, §2.1).
//!
//! A value and its derivative at the same `θ` come from one solve: argmin's line searches for
//! gradient methods (More–Thuente, Hager–Zhang) ask for the cost and then the gradient at each
//! trial point, and Gauss–Newton asks for the residuals and then the Jacobian, so by default a
//! cost is computed together with its gradient and residuals together with their Jacobian,
//! and the derivative call that follows reuses them ([`Fit::derivatives_with_values`] turns
//! that off for derivative-free methods). [`Fit::counts`] tells how many solves of each kind
//! were made.
//!
//! A solve that fails — a bad setting, a non-finite parameter, a step-size underflow, Zeno
//! behaviour — comes back as an argmin [`Error`] wrapping a [`FitError`] (recover it with
//! `error.downcast_ref::<FitError>()`), never as a panic.
//!
//! # Example
//!
//! Gravity and restitution of a bouncing ball from its sampled heights, with L-BFGS and the
//! adjoint gradient:
//!
//! ```
//! use hysens::argmin::core::{Executor, State};
//! use hysens::argmin::solver::linesearch::MoreThuenteLineSearch;
//! use hysens::argmin::solver::quasinewton::LBFGS;
//! use hysens::argmin::Fit;
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod ball {
//!     #[states]
//!     pub struct X { pub h: f64, pub v: f64 }
//!     #[params]
//!     pub struct P { pub g: f64, pub e: f64 }
//!     #[mode(initial)]
//!     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
//!     #[guard(flight -> flight, falling)]
//!     fn impact(x: &X) -> f64 { x.h }
//!     #[reset(impact)]
//!     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
//!     /// `½ (h(t_k) − d_k)²`
//!     #[cost(sampled)]
//!     fn misfit(x: &X, d: f64) -> f64 { 0.5 * (x.h - d).powi(2) }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x0 = ball::X { h: 1.0, v: 0.0 };
//! let times: Vec<f64> = (1..=14).map(|k| 0.1 * k as f64).collect();
//! // The data: the heights of the model itself at g = 9.81, e = 0.8 (impacts at 0.45, 1.17 s).
//! // A model with a sampled cost needs a datum per sample: zeros here (that misfit is unread).
//! let solver = ball::Model.solver().tolerances(1e-10, 1e-12);
//! let zeros = vec![0.0; times.len()];
//! let truth = solver
//!     .samples(&times)
//!     .data(&zeros)
//!     .solve(0.0, 1.5, &x0, &ball::P { g: 9.81, e: 0.8 })?;
//! let heights: Vec<f64> = truth.samples.iter().map(|s| s.x.h).collect();
//!
//! // Fit g and e from a guess, matching the heights.
//! let fit = Fit::new(solver, 0.0, 1.5, &x0, &ball::P { g: 9.0, e: 0.7 })
//!     .samples(&times, &heights)
//!     .free(["g", "e"])?
//!     .observe("h")?;
//! let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 5).with_tolerance_grad(1e-12)?;
//! let result = Executor::new(&fit, lbfgs)
//!     .configure(|state| state.param(fit.initial_guess()).max_iters(100))
//!     .run()?;
//! let theta = result.state().get_best_param().unwrap();
//! assert!((theta[0] - 9.81).abs() < 1e-6 && (theta[1] - 0.8).abs() < 1e-6);
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use ::argmin::core::{CostFunction, Error, Gradient, Jacobian, Operator};
use hysens_runtime::{
    AdjointProducts, Fields, InitialStates, ModelSizes, ModelTypes, Params, SolveError,
    SolveFailure, Solver, Variable, Wrt,
};

/// argmin's `core` (the [`Executor`](::argmin::core::Executor), states, observers) and `solver`
/// (L-BFGS, Gauss–Newton, line searches, …) modules, of the argmin version [`Fit`] implements.
#[doc(no_inline)]
pub use ::argmin::{core, solver};
/// The vector and matrix types of the parameters, residuals and Jacobians.
#[doc(no_inline)]
pub use nalgebra::{DMatrix, DVector};

/// A parameter-estimation problem over a hybrid model, for argmin; see the [module
/// docs](self).
///
/// Made by [`Fit::new`] from a configured solver and the problem, then set up with
/// [`Fit::samples`], [`Fit::free`] and [`Fit::observe`]. The argmin traits are implemented
/// for `Fit` and for `&Fit`, so `Executor::new(&fit, ..)` leaves the fit with the caller to
/// read [`Fit::counts`] afterwards.
///
/// The const parameters are those of the [`Solver`] (tableau stages and model sizes); they
/// are inferred, never written.
pub struct Fit<
    'a,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
> {
    solver: Solver<'a, M, S, NY, NZ, NP, N, NS>,
    t0: f64,
    tf: f64,
    x0: [f64; NY],
    p: [f64; NP],
    times: &'a [f64],
    data: &'a [f64],
    /// The entries of `θ`, in order.
    free: Vec<Variable>,
    /// The model's names of the free parameters and initial states (for the solver's
    /// selection and for looking results up).
    free_params: Vec<&'static str>,
    free_states: Vec<&'static str>,
    observed: Option<Observed>,
    derivatives_with_values: bool,
    cache: Mutex<Option<Evaluation>>,
    counts: Mutex<FitCounts>,
}

impl<
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > fmt::Debug for Fit<'_, M, S, NY, NZ, NP, N, NS>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fit")
            .field("t0", &self.t0)
            .field("tf", &self.tf)
            .field("x0", &self.x0)
            .field("p", &self.p)
            .field("samples", &self.times.len())
            .field("free", &self.free)
            .field("observed", &self.observed)
            .field("derivatives_with_values", &self.derivatives_with_values)
            .field("counts", &*lock(&self.counts))
            .finish_non_exhaustive()
    }
}

/// The measured variable: a differential state or an algebraic variable, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Observed {
    State(usize),
    Algebraic(usize),
}

/// What one solve at `θ` computed (the last one is kept for the derivative call that follows).
#[derive(Clone, Debug)]
struct Evaluation {
    theta: Vec<f64>,
    cost: f64,
    gradient: Option<DVector<f64>>,
    residuals: Option<DVector<f64>>,
    jacobian: Option<DMatrix<f64>>,
}

/// How many solves a [`Fit`] has made, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FitCounts {
    /// Solves without sensitivities (a cost or residuals alone).
    pub plain: usize,
    /// Solves with forward sensitivities to the free entries (residuals with their Jacobian,
    /// and the cost with its gradient).
    pub forward_sensitivities: usize,
    /// Adjoint gradients: a forward solve that records a tape, and a backward pass over it.
    pub adjoint: usize,
    /// Calls answered from the last solve (a derivative at the point a value was computed).
    pub reused: usize,
}

impl FitCounts {
    /// The forward solves of every kind (each adjoint gradient has one).
    pub fn solves(&self) -> usize {
        self.plain + self.forward_sensitivities + self.adjoint
    }
}

/// Why a fit could not be set up or evaluated.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FitError {
    /// [`Fit::free`] or [`Fit::observe`] named no variable of the model.
    UnknownName {
        /// What was looked for: `"parameter"`, `"initial state"` or `"variable"`.
        kind: &'static str,
        /// The name given.
        name: String,
    },
    /// [`Fit::free`] named the same entry twice.
    Duplicate {
        /// The name given.
        name: String,
    },
    /// A parameter vector `θ` of the wrong length.
    Dimension {
        /// The number of free entries.
        expected: usize,
        /// The length of the vector given.
        got: usize,
    },
    /// Residuals need one datum per sample time.
    DataLength {
        /// Sample times.
        times: usize,
        /// Data.
        data: usize,
    },
    /// Residuals need the measured variable: call [`Fit::observe`].
    NoObservation,
    /// The solve failed.
    Solve {
        /// What went wrong, when, in which mode (by index).
        error: SolveError,
        /// The name of the mode it went wrong in.
        mode: &'static str,
        /// The error with the model's names of modes, guards and surfaces (the failure's
        /// `Display`).
        message: String,
    },
    /// `JᵀJ` is not positive definite (the data do not determine the free entries), so the
    /// covariance does not exist.
    Singular,
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::UnknownName { kind, name } => write!(f, "the model has no {kind} `{name}`"),
            FitError::Duplicate { name } => write!(f, "`{name}` is named twice as free"),
            FitError::Dimension { expected, got } => write!(
                f,
                "the parameter vector has {got} entries; the fit has {expected} free entries"
            ),
            FitError::DataLength { times, data } => write!(
                f,
                "{data} data for {times} sample times: residuals need one datum per sample time"
            ),
            FitError::NoObservation => write!(
                f,
                "residuals need the measured variable: call `Fit::observe` with its name"
            ),
            FitError::Solve { message, .. } => write!(f, "the solve failed: {message}"),
            FitError::Singular => write!(
                f,
                "JᵀJ is not positive definite: the data do not determine the free entries"
            ),
        }
    }
}

impl std::error::Error for FitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FitError::Solve { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Whether the model's name `full` (`p.g`, `y.h`) is the caller's `given` (`p.g` or `g`).
fn names_match(full: &str, given: &str) -> bool {
    full == given
        || full
            .split_once('.')
            .is_some_and(|(_, field)| field == given)
}

/// The index of `given` among the model's `names`.
fn index_of(names: &[&str], given: &str) -> Option<usize> {
    names.iter().position(|full| names_match(full, given))
}

/// The field name of a model name (`p.g` → `g`).
fn field(full: &'static str) -> &'static str {
    full.split_once('.').map_or(full, |(_, field)| field)
}

/// The lock, also after a panic elsewhere (the guarded data stay consistent: every update is
/// a single assignment).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<
        'a,
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > Fit<'a, M, S, NY, NZ, NP, N, NS>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    /// A fit of the model of `solver` (with its tolerances, options and tableau) on
    /// `[t0, tf]` from the states `x0` with the parameters `p`.
    ///
    /// Every parameter is free at first (in the model's order), no initial state; `x0` and
    /// `p` give the initial guess of the free entries ([`Fit::initial_guess`]) and the values
    /// of the others. The solver's own sample times, data and sensitivity selection are
    /// replaced by the fit's.
    pub fn new(
        solver: Solver<'a, M, S, NY, NZ, NP, N, NS>,
        t0: f64,
        tf: f64,
        x0: &M::State,
        p: &M::Params,
    ) -> Self {
        Fit {
            solver: solver
                .samples(&[])
                .data(&[])
                .sensitivities_to(Params::None, InitialStates::None),
            t0,
            tf,
            x0: x0.to_array(),
            p: p.to_array(),
            times: &[],
            data: &[],
            free: (0..NP).map(Variable::Param).collect(),
            free_params: M::PARAMETER_NAMES.to_vec(),
            free_states: Vec::new(),
            observed: None,
            derivatives_with_values: true,
            cache: Mutex::new(None),
            counts: Mutex::new(FitCounts::default()),
        }
    }

    /// The sample times `t_k` (non-decreasing, in `[t0, tf]`) and the data `d_k`, one per
    /// time: the data of the model's sampled cost `ℓ(.., d_k)` and of the residuals
    /// `v(t_k) − d_k`.
    pub fn samples(mut self, times: &'a [f64], data: &'a [f64]) -> Self {
        self.solver = self.solver.samples(times).data(data);
        (self.times, self.data) = (times, data);
        self.forget();
        self
    }

    /// The free entries `θ`, in this order: parameters by name (`"g"` or `Wrt::Param("g")`)
    /// and initial states as `Wrt::InitialState("h")`. The others keep their values from
    /// [`Fit::new`].
    pub fn free<'w, W: Into<Wrt<'w>>>(
        mut self,
        entries: impl IntoIterator<Item = W>,
    ) -> Result<Self, FitError> {
        let (mut free, mut params, mut states) = (Vec::new(), Vec::new(), Vec::new());
        for entry in entries {
            let (variable, name) = match entry.into() {
                Wrt::Param(name) => {
                    let unknown = || FitError::UnknownName {
                        kind: "parameter",
                        name: name.into(),
                    };
                    let i = index_of(&M::PARAMETER_NAMES, name).ok_or_else(unknown)?;
                    params.push(M::PARAMETER_NAMES[i]);
                    (Variable::Param(i), name)
                }
                Wrt::InitialState(name) => {
                    let unknown = || FitError::UnknownName {
                        kind: "initial state",
                        name: name.into(),
                    };
                    let i = index_of(&M::STATE_NAMES, name).ok_or_else(unknown)?;
                    states.push(M::STATE_NAMES[i]);
                    (Variable::InitialState(i), name)
                }
            };
            if free.contains(&variable) {
                return Err(FitError::Duplicate { name: name.into() });
            }
            free.push(variable);
        }
        (self.free, self.free_params, self.free_states) = (free, params, states);
        self.forget();
        Ok(self)
    }

    /// The variable the data measure, by name: a differential state (`"h"`) or an algebraic
    /// variable. Needed by the residuals and their Jacobian.
    pub fn observe(mut self, name: &str) -> Result<Self, FitError> {
        let observed = match index_of(&M::STATE_NAMES, name) {
            Some(i) => Observed::State(i),
            None => match index_of(&M::ALGEBRAIC_NAMES, name) {
                Some(i) => Observed::Algebraic(i),
                None => {
                    return Err(FitError::UnknownName {
                        kind: "variable",
                        name: name.into(),
                    })
                }
            },
        };
        self.observed = Some(observed);
        self.forget();
        Ok(self)
    }

    /// Whether a value computed alone also computes its derivative: the cost with its
    /// gradient by the adjoint, the residuals with their Jacobian by forward sensitivities
    /// (default `true`). The derivative call argmin makes next at the same point then reuses
    /// them. Set `false` for methods that evaluate values alone (Nelder–Mead, a backtracking
    /// line search, finite differences): a cost is then one solve without sensitivities.
    pub fn derivatives_with_values(mut self, yes: bool) -> Self {
        self.derivatives_with_values = yes;
        self
    }

    /// The starting point of an optimization: the free entries' values from [`Fit::new`].
    pub fn initial_guess(&self) -> DVector<f64> {
        DVector::from_iterator(
            self.free.len(),
            self.free.iter().map(|&v| match v {
                Variable::Param(i) => self.p.get(i).copied().unwrap_or(f64::NAN),
                Variable::InitialState(i) => self.x0.get(i).copied().unwrap_or(f64::NAN),
            }),
        )
    }

    /// The field names of the entries of `θ`, in order (`["g", "e"]`).
    pub fn names(&self) -> Vec<&'static str> {
        self.free
            .iter()
            .map(|&v| match v {
                Variable::Param(i) => M::PARAMETER_NAMES.get(i).map_or("", |&n| field(n)),
                Variable::InitialState(i) => M::STATE_NAMES.get(i).map_or("", |&n| field(n)),
            })
            .collect()
    }

    /// The initial states and parameters at `θ`: those of [`Fit::new`] with the free entries
    /// replaced by `θ`'s.
    pub fn values(&self, theta: &[f64]) -> Result<([f64; NY], [f64; NP]), FitError> {
        if theta.len() != self.free.len() {
            return Err(FitError::Dimension {
                expected: self.free.len(),
                got: theta.len(),
            });
        }
        let (mut x0, mut p) = (self.x0, self.p);
        for (&v, &value) in self.free.iter().zip(theta) {
            let slot = match v {
                Variable::Param(i) => p.get_mut(i),
                Variable::InitialState(i) => x0.get_mut(i),
            };
            if let Some(slot) = slot {
                *slot = value;
            }
        }
        Ok((x0, p))
    }

    /// How many solves the fit has made so far, by kind.
    pub fn counts(&self) -> FitCounts {
        *lock(&self.counts)
    }

    /// The objective `G(θ)` from one solve without sensitivities (never reused, never kept).
    pub fn objective(&self, theta: &[f64]) -> Result<f64, FitError> {
        let (x0, p) = self.values(theta)?;
        let solution = self
            .solver
            .solve(self.t0, self.tf, &from(x0), &from(p))
            .map_err(failed);
        lock(&self.counts).plain += 1;
        Ok(solution?.cost)
    }

    /// The linearized covariance `σ²(JᵀJ)⁻¹` of the estimate at `θ` (a minimum of `½‖r‖²`),
    /// for data with independent noise of standard deviation `sigma`, with `J` the residual
    /// Jacobian from the forward sensitivities. The square roots of its diagonal are the
    /// standard deviations of the entries of `θ`.
    pub fn covariance(&self, theta: &[f64], sigma: f64) -> Result<DMatrix<f64>, FitError> {
        let jacobian = self.evaluate(theta, Need::Jacobian, |e| e.jacobian.clone())?;
        let normal = jacobian.transpose() * &jacobian;
        let inverse = normal
            .cholesky()
            .map(|c| c.inverse())
            .ok_or(FitError::Singular)?;
        let covariance = inverse * (sigma * sigma);
        if covariance.iter().all(|c| c.is_finite()) {
            Ok(covariance)
        } else {
            Err(FitError::Singular)
        }
    }

    /// Forgets the kept evaluation (after a change of the problem).
    fn forget(&mut self) {
        *self.cache.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// What `need` asks for at `θ`, as `pick` takes it from an evaluation: from the kept one
    /// if it has it, else from a new solve (of the kind `need` and
    /// [`Fit::derivatives_with_values`] call for), which is then kept.
    fn evaluate<T>(
        &self,
        theta: &[f64],
        need: Need,
        pick: impl Fn(&Evaluation) -> Option<T>,
    ) -> Result<T, FitError> {
        if let Some(kept) = lock(&self.cache).as_ref().filter(|e| e.theta == theta) {
            if let Some(value) = pick(kept) {
                lock(&self.counts).reused += 1;
                return Ok(value);
            }
        }
        let eager = self.derivatives_with_values;
        let evaluation = match need {
            Need::Cost if !eager => Evaluation {
                theta: theta.to_vec(),
                cost: self.objective(theta)?,
                gradient: None,
                residuals: None,
                jacobian: None,
            },
            Need::Cost | Need::Gradient => self.adjoint(theta)?,
            Need::Residuals | Need::Jacobian => {
                self.forward(theta, eager || need == Need::Jacobian)?
            }
        };
        // Each kind of solve computes what it is chosen for, so `pick` finds it; residuals
        // are missing only without an observed variable, which `forward` reports first.
        let value = pick(&evaluation).ok_or(FitError::NoObservation);
        *lock(&self.cache) = Some(evaluation);
        value
    }

    /// The cost and its gradient by the discrete adjoint.
    fn adjoint(&self, theta: &[f64]) -> Result<Evaluation, FitError> {
        let (x0, p) = self.values(theta)?;
        let result = self.solver.gradient(self.t0, self.tf, &from(x0), &from(p));
        lock(&self.counts).adjoint += 1;
        let gradient = result.map_err(failed)?;
        let dg = self.free.iter().map(|&v| match v {
            Variable::Param(i) => gradient.params.get(i).copied().unwrap_or(f64::NAN),
            Variable::InitialState(i) => {
                gradient.initial_states.get(i).copied().unwrap_or(f64::NAN)
            }
        });
        Ok(Evaluation {
            theta: theta.to_vec(),
            cost: gradient.cost,
            gradient: Some(DVector::from_iterator(self.free.len(), dg)),
            residuals: None,
            jacobian: None,
        })
    }

    /// The cost and the residuals from one solve, with forward sensitivities to the free
    /// entries if `sensitivities` (then also the cost gradient and the residual Jacobian).
    fn forward(&self, theta: &[f64], sensitivities: bool) -> Result<Evaluation, FitError> {
        let observed = self.observed.ok_or(FitError::NoObservation)?;
        if self.data.len() != self.times.len() {
            return Err(FitError::DataLength {
                times: self.times.len(),
                data: self.data.len(),
            });
        }
        let (x0, p) = self.values(theta)?;
        let solver = if sensitivities {
            self.solver.sensitivities_to(
                Params::Only(&self.free_params),
                InitialStates::Only(&self.free_states),
            )
        } else {
            self.solver
        };
        let result = solver.solve(self.t0, self.tf, &from(x0), &from(p));
        {
            let mut counts = lock(&self.counts);
            match sensitivities {
                true => counts.forward_sensitivities += 1,
                false => counts.plain += 1,
            }
        }
        let solution = result.map_err(failed)?;
        let (m, n) = (self.data.len(), self.free.len());
        let value = |y: &[f64; NY], z: &[f64; NZ]| match observed {
            Observed::State(i) => y.get(i).copied().unwrap_or(f64::NAN),
            Observed::Algebraic(i) => z.get(i).copied().unwrap_or(f64::NAN),
        };
        let residuals = DVector::from_iterator(
            m,
            solution
                .samples
                .iter()
                .zip(self.data)
                .map(|(s, d)| value(&s.y, &s.z) - d),
        );
        let mut evaluation = Evaluation {
            theta: theta.to_vec(),
            cost: solution.cost,
            gradient: None,
            residuals: Some(residuals),
            jacobian: None,
        };
        if sensitivities {
            // Column j of the solution's sensitivities for each free entry.
            let columns: Vec<Option<usize>> = self
                .free
                .iter()
                .map(|v| solution.directions().iter().position(|d| d == v))
                .collect();
            let jacobian = DMatrix::from_fn(m, n, |k, j| {
                let sample = solution.samples.get(k);
                match (sample, columns.get(j).copied().flatten()) {
                    (Some(s), Some(c)) => match (s.dy.get(c), s.dz.get(c)) {
                        (Some(dy), Some(dz)) => value(dy, dz),
                        _ => f64::NAN,
                    },
                    _ => f64::NAN,
                }
            });
            let gradient = self.free.iter().map(|&v| {
                let wrt = match v {
                    Variable::Param(i) => M::PARAMETER_NAMES.get(i).map(|&n| Wrt::Param(n)),
                    Variable::InitialState(i) => {
                        M::STATE_NAMES.get(i).map(|&n| Wrt::InitialState(n))
                    }
                };
                wrt.and_then(|w| solution.cost_gradient(w).ok())
                    .unwrap_or(f64::NAN)
            });
            evaluation.gradient = Some(DVector::from_iterator(n, gradient));
            evaluation.jacobian = Some(jacobian);
        }
        Ok(evaluation)
    }
}

/// The model's type of the array `values` (its state or parameters).
fn from<T: Fields<K>, const K: usize>(values: [f64; K]) -> T {
    T::from_array(values)
}

/// The fit's error for a failed solve or gradient.
fn failed<X, const NY: usize, const NZ: usize, const NP: usize>(
    failure: SolveFailure<X, NY, NZ, NP>,
) -> FitError {
    FitError::Solve {
        error: failure.error,
        mode: failure.mode,
        message: failure.to_string(),
    }
}

/// What an argmin call needs from an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Cost,
    Gradient,
    Residuals,
    Jacobian,
}

/// One argmin trait for one fit type: its associated types, and its one method, which takes
/// what `need` asks for from `Fit::evaluate` by `pick`. The four traits differ only in
/// these, so the impl header and bounds are written once here.
macro_rules! argmin_trait {
    (
        $fit:ty, $trait:ident { $($assoc:ident = $assoc_ty:ty),* },
        $(#[doc = $doc:literal])*
        fn $method:ident -> $out:ty = ($need:expr, $pick:expr)
    ) => {
        impl<
                'a,
                M,
                const S: usize,
                const NY: usize,
                const NZ: usize,
                const NP: usize,
                const N: usize,
                const NS: usize,
            > $trait for $fit
        where
            M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
        {
            $(type $assoc = $assoc_ty;)*

            $(#[doc = $doc])*
            fn $method(&self, theta: &DVector<f64>) -> Result<$out, Error> {
                Ok(self.evaluate(theta.as_slice(), $need, $pick)?)
            }
        }
    };
}

/// The argmin traits, for `Fit` and `&Fit` alike.
macro_rules! argmin_traits {
    ($($fit:ty),*) => {$(
        argmin_trait!(
            $fit, CostFunction { Param = DVector<f64>, Output = f64 },
            /// The objective `G(θ)` (with its gradient by the adjoint, kept for the next
            /// call, unless [`Fit::derivatives_with_values`] is off).
            fn cost -> f64 = (Need::Cost, |e: &Evaluation| Some(e.cost))
        );
        argmin_trait!(
            $fit, Gradient { Param = DVector<f64>, Gradient = DVector<f64> },
            /// `dG/dθ` by the discrete adjoint (or from the forward sensitivities of the
            /// residuals' solve at the same `θ`).
            fn gradient -> DVector<f64> = (Need::Gradient, |e: &Evaluation| e.gradient.clone())
        );
        argmin_trait!(
            $fit, Operator { Param = DVector<f64>, Output = DVector<f64> },
            /// The residuals `r_k = v(t_k) − d_k` (with their Jacobian, kept for the next
            /// call, unless [`Fit::derivatives_with_values`] is off).
            fn apply -> DVector<f64> = (Need::Residuals, |e: &Evaluation| e.residuals.clone())
        );
        argmin_trait!(
            $fit, Jacobian { Param = DVector<f64>, Jacobian = DMatrix<f64> },
            /// `J_kj = ∂v(t_k)/∂θ_j` from the forward sensitivities at the samples.
            fn jacobian -> DMatrix<f64> = (Need::Jacobian, |e: &Evaluation| e.jacobian.clone())
        );
    )*};
}

argmin_traits!(
    Fit<'a, M, S, NY, NZ, NP, N, NS>,
    &Fit<'a, M, S, NY, NZ, NP, N, NS>
);
