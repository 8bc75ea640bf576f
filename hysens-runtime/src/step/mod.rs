//! ESDIRK integration of one smooth mode (semi-explicit index-1 DAE or ODE): the integrator
//! [`Stepper`] and its pieces, one file each.
//!
//! One step `t_n → t_n + h` (Kristensen et al. 2005, Eqs. 11–14 and Algorithm 1; Christensen,
//! Cantisani & Jørgensen, Eqs. 3–10):
//!
//! 1. Stage 1 is explicit: `Y_1 = y_n`, `Z_1 = z_n`, `F_1 = f(t_n, y_n, z_n)`.
//! 2. For each implicit stage `i ≥ 2`, with `ψ_i = y_n + h Σ_{j<i} a_ij F_j` (Christensen et al.,
//!    Eqs. 5–9), solve `R_i(Y, Z) = [Y − ψ_i − hγ f(T_i, Y, Z); g(T_i, Y, Z)] = 0` by simplified
//!    Newton (`newton.rs`) with the iteration matrix `M = [I − hγ f_y, −hγ f_z; g_y, g_z]`
//!    (Jacobian frozen at some earlier point, usually `(t_n, y_n, z_n)`), LU-factorized once per
//!    step and shared by all stages (`matrix.rs`). The `g` rows are *not* scaled by `hγ` as in
//!    Kristensen et al.'s Eq. 17 (Christensen et al.'s form): the Newton iterates are the same
//!    under any row scaling, but the unscaled form keeps `cond(M)` bounded as `h → 0`.
//! 3. Stage derivatives are recovered as `F_i = (Y_i − ψ_i)/(hγ)` (no extra `f` evaluation; it
//!    keeps `Y_i = ψ_i + hγ F_i` exact, which stiff accuracy relies on). Where the step's
//!    length depends on the parameters, its sensitivities need the `F_i` themselves, not only
//!    `h F_i`, and they are refined then (`fsa/length.rs`).
//! 4. Stiff accuracy: `y_{n+1} = Y_S`, `z_{n+1} = Z_S` (Kristensen et al. 2005, Eq. 14).
//! 5. Local error estimate `e = h Σ_j (b_j − b̂_j) F_j` on the differential states, WRMS norm
//!    with weights `atol + rtol·max(|y_n|, |y_{n+1}|)` (Kristensen et al. 2005, Eqs. 20–21);
//!    and, when the mode has an integral cost, that of its quadrature (`Options::cost_error_test`,
//!    on by default).
//!
//! Files: `attempt.rs` (stages and Newton, error estimate), `matrix.rs` (Jacobian reuse and the
//! iteration matrix), `adaptive.rs` (error-controlled steps, initial step), `commit.rs`
//! (acceptance), `fixed.rs` (fixed steps and the replay of a frozen step sequence),
//! `controller.rs` (PI step-size control), `dense.rs` (dense output), `snapshot.rs` (the state
//! between steps as a value, to resume from). The forward sensitivities
//! of the step are `fsa/`.
//!
//! **Stage 1 and predictors.** `F_1` is evaluated afresh at every step rather than reused from
//! the previous step's last stage (FSAL): one extra `f` call per step, but each step then
//! depends only on `(t_n, y_n, z_n, p)`, which keeps the sensitivity and adjoint recursions
//! step-local and is correct across discontinuities (where FSAL would carry `f` of the old mode
//! or input over the switch). **Predictors**: Newton starts from `Y_i⁰ = ψ_i + hγ F_i⁰`, with
//! `F_i⁰` and `Z_i⁰` linearly extrapolated in `c` through stage 1 and the latest stage
//! (`attempt.rs`, `explicit_predictor`; Kristensen et al. 2005, §4, and Christensen et al.,
//! Eq. 11, describe other choices). For stiff components that extrapolation is explicit over
//! `hλ ≫ 1` and can start Newton far outside its region of convergence: Robertson to 4e10
//! (rtol 1e-6, atol 1e-10, FSA) had 22 Newton failures in 190 steps with the default tableau
//! and 52 in 388 with ESDIRK34, all with a fresh Jacobian at `h/t ≈ 0.1–0.6`, most in the
//! first implicit stage (diverging, θ up to 1e8) or in the stage whose extrapolation factor is
//! `c_4/c_3 = 4.3`; each cut `h` by 1/4 or 1/2, after which the controller grew it back ×5
//! into the next failure. So when Newton fails from the explicit predictor, the stage is
//! tried once more from a linearly implicit one (`implicit_predictor`): the stage equation
//! with `f` and `g` linearized at the latest stage (the stored Jacobian), plus the change
//! since stage 1 that the Jacobian does not explain, extrapolated in `c` — one LU solve and a
//! product with the Jacobian. Robertson: 1 and 2 failures, 178 and 354 steps, `f` evaluations
//! 3078 → 2813 and 3906 → 3370. It is a retry, not the first guess: as the first guess it
//! removed the failures as well, but its `O(N²)` cost per stage doubled the plain solve of the
//! 101-state chain (`benches/gradient.rs`: 11 → 21.5 ms), where Newton converges from the
//! explicit guess anyway. The first Newton correction is accepted on its own only if it is
//! already below the Newton tolerance (`newton.rs`).
//!
//! **After a Newton failure** the step is cut (×1/4 if the iteration diverged, else ×1/2) and,
//! as after an error-test rejection, the next accepted step may not grow (Hairer & Wanner II,
//! §IV.8): growing it ×5 at once ran straight into the next failure. Measured (ESDIRK34, FSA):
//! the Dow benchmark at rtol 1e-6 78 → 47 failures, `f` evaluations 2479 → 2314 (steps 156 →
//! 164); HIRES at rtol 1e-6 (default tableau) 8 → 4 failures, 1944 → 1827 evaluations;
//! Robertson, Van der Pol and every example and reproduced number unchanged (bit for bit).
//!
//! **Affine modes.** If the model declares its Jacobian constant
//! ([`SmoothMode::jacobian_is_constant`]; the macro proves it symbolically), `M` is the exact
//! Jacobian of every stage equation: the Jacobian is evaluated once, stays fresh, and the first
//! Newton iterate, which solves the linear stage equation, is accepted without a second
//! residual evaluation (Serban & Recuero's Ex. 5.1 with FSA: 786 → 390 Newton iterations, 424 → 78
//! LU factorizations per solve).
//!
//! **Storage.** Everything lives in the integrator value: no heap, no panics. Each accepted
//! step is reported to an observer as a [`StepRecord`] (start time, step size, all stage values
//! and stage derivatives, Newton iteration counts), which is what an adjoint replay or
//! internal-numerical-differentiation sensitivities need.

mod adaptive;
mod attempt;
mod commit;
pub(crate) mod controller;
pub(crate) mod dense;
mod fixed;
mod matrix;
mod snapshot;

use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::model::SmoothMode;
use crate::newton::{consistent_z, project_onto_constraint, ConsistencyProblem};
use crate::options::Options;
use crate::stats::Stats;
use crate::tableau::Tableau;
use controller::StepControl;
pub(crate) use matrix::{IterationMatrix, JacState, JacobianPoint};
pub(crate) use snapshot::IntegratorSnapshot;

/// Data of one accepted step, passed to the observer.
#[derive(Clone, Copy, Debug)]
pub struct StepRecord<'a, const S: usize, const NY: usize, const NZ: usize> {
    /// Start time `t_n`.
    pub t: f64,
    /// Step size `h` (the step ends at `t_n + h`, exactly at the final time for the last step).
    pub h: f64,
    /// Differential stage values `Y_i` (`Y_1 = y_n`, `Y_S = y_{n+1}`).
    pub y: &'a [[f64; NY]; S],
    /// Algebraic stage values `Z_i` (`Z_1 = z_n`, `Z_S = z_{n+1}`).
    pub z: &'a [[f64; NZ]; S],
    /// Stage derivatives `F_i` (`F_1 = f(t_n, y_n, z_n)`, `F_i = (Y_i − ψ_i)/(hγ)` for `i ≥ 2`,
    /// refined by one Newton correction where the step's length depends on the parameters: a
    /// landing step after an event, the step to an event; module docs of `fsa/`, "Step
    /// length").
    pub f: &'a [[f64; NY]; S],
    /// Newton iterations performed for each stage (0 for the explicit stage).
    pub newton_iterations: &'a [usize; S],
    /// WRMS norm of the local error estimate (≤ 1 for steps accepted by the error test).
    pub error: f64,
}

/// The stage storage of the step computed last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stages<const S: usize, const NY: usize, const NZ: usize> {
    /// Differential stage values `Y_i`.
    pub ys: [[f64; NY]; S],
    /// Algebraic stage values `Z_i`.
    pub zs: [[f64; NZ]; S],
    /// Stage derivatives `F_i`.
    pub fs: [[f64; NY]; S],
    /// Whether `F_i` (`i ≥ 2`) were refined for the step's H-direction
    /// (`Stepper::refine_stage_derivatives`, `fsa/length.rs`): at most once per step, so that
    /// every user of the step sees the same values.
    pub refined: bool,
    /// Newton iterations per stage.
    pub iters: [usize; S],
    /// The step in the storage, computed but not accepted: its size and error estimate (set by
    /// [`Esdirk::try_step`](crate::smooth::Esdirk::try_step) and [`Stepper::evaluate_fixed`], taken
    /// by the commit, which accepts nothing else).
    pub computed: Option<(f64, f64)>,
    /// The step's quadrature of the integral cost `h Σ_i b_i L_i`, computed by the attempt
    /// for the error test ([`Options::cost_error_test`]; 0 without it), added to
    /// [`Stepper::quadrature`](Stepper) when the step is accepted.
    pub quadrature: f64,
}

impl<const S: usize, const NY: usize, const NZ: usize> Stages<S, NY, NZ> {
    /// Empty storage.
    pub(crate) const ZERO: Self = Stages {
        ys: [[0.0; NY]; S],
        zs: [[0.0; NZ]; S],
        fs: [[0.0; NY]; S],
        refined: false,
        iters: [0; S],
        computed: None,
        quadrature: 0.0,
    };
}

/// Round-off limit of the step size at time `t`: `16 ε max(|t|, tiny)`.
pub(crate) fn h_roundoff(t: f64) -> f64 {
    16.0 * f64::EPSILON * t.abs().max(f64::MIN_POSITIVE)
}

/// `x` is finite and strictly positive (false for NaN).
fn positive_finite(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// The ESDIRK stepper of one mode: its state `(t, y, z)`, step-size control, iteration
/// matrix, stage storage and statistics. It computes and accepts steps and exposes what each
/// did (the stage storage, the iteration matrix); the forward sensitivities consume that
/// (`fsa/`: [`crate::smooth::Esdirk`], the stepper with sensitivities, is what callers use).
///
/// Const parameters: `S` stages, `NY` differential states, `NZ` algebraic variables, `NP`
/// parameters and `N = NY + NZ` (checked at compile time; see [`SmoothMode`]).
#[derive(Clone, Debug)]
pub struct Stepper<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> where
    M: SmoothMode<NY, NZ, NP>,
{
    pub(crate) model: &'m M,
    pub(crate) tableau: &'m Tableau<S>,
    pub(crate) p: [f64; NP],
    /// Mode index (error context only).
    pub(crate) mode: usize,
    pub(crate) opts: Options<NY, NZ>,
    /// The accepted state.
    pub(crate) t: f64,
    pub(crate) y: [f64; NY],
    pub(crate) z: [f64; NZ],
    pub(crate) stats: Stats,
    /// Proposed step size, controller history, attempts (`controller.rs`).
    pub(crate) control: StepControl,
    /// Jacobian, iteration matrix and Newton contraction rates (`matrix.rs`).
    pub(crate) matrix: IterationMatrix<NY, NZ, N, M::Store>,
    /// The step computed last (`attempt.rs`).
    pub(crate) stages: Stages<S, NY, NZ>,
    /// `Q_n`, the integral cost accumulated so far, for the weight of its error test
    /// ([`Options::cost_error_test`]; stays 0 without it): the sum of the accepted steps'
    /// quadratures `h Σ_i b_i L_i` (in another order than the cost the hybrid driver adds
    /// up, `fsa/cost.rs`, which is what the caller receives; the weight needs no more).
    pub(crate) quadrature: f64,
}

/// How the length `H` of an accepted step depends on the parameters (for the forward
/// sensitivities, `fsa/`). With the step sequence frozen, the step's start time
/// `t_n(p)` may move (after an event), and `H` is one of:
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepLength {
    /// `H` fixed (chosen by the controller or replayed): `∂H/∂p = 0`; the end time moves with
    /// the start, `∂t_{n+1}/∂p = ∂t_n/∂p`.
    Fixed,
    /// `H = t_target − t_n` with a fixed target (sample time or final time):
    /// `∂H/∂p = −∂t_n/∂p`, so `∂t_{n+1}/∂p = 0`.
    Landing,
    /// `H = t* − t_n` with an event time `t*(p)` still to be differentiated: the sensitivities are
    /// propagated with `∂H/∂p = 0` and the H-direction `∂Φ/∂H` is computed; the caller then
    /// supplies `∂H/∂p` with
    /// [`Esdirk::apply_step_length_derivative`](crate::smooth::Esdirk::apply_step_length_derivative).
    Event,
}

impl<'m, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'m, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// The stepper of [`Esdirk::new`](crate::smooth::Esdirk::new), which documents the
    /// arguments and the errors: at `(t0, y0, z0)` with `z0` made consistent.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &'m M,
        tableau: &'m Tableau<S>,
        mode: usize,
        p: [f64; NP],
        t0: f64,
        y0: [f64; NY],
        z0: [f64; NZ],
        opts: Options<NY, NZ>,
    ) -> Result<Self, SolveError> {
        const { assert!(N == NY + NZ, "Stepper: N must equal NY + NZ") };
        const { assert!(S >= 2, "Stepper: an ESDIRK needs at least two stages") };
        let nonfinite = |what| SolveError::NonFiniteValue { t: t0, mode, what };
        if !t0.is_finite() {
            return Err(nonfinite("initial time"));
        }
        if !all_finite(&y0) {
            return Err(nonfinite("initial y"));
        }
        if !all_finite(&z0) {
            return Err(nonfinite("initial z"));
        }
        if !all_finite(&p) {
            return Err(nonfinite("parameters"));
        }
        if let Some(what) = opts.invalid_setting() {
            return Err(SolveError::InvalidArgument { t: t0, mode, what });
        }
        let mut s = Stepper {
            model,
            tableau,
            p,
            mode,
            opts,
            t: t0,
            y: y0,
            z: z0,
            stats: Stats::default(),
            control: StepControl::new(opts.h_init.unwrap_or(0.0)),
            matrix: IterationMatrix::new(model.jacobian_is_constant()),
            stages: Stages::ZERO,
            quadrature: 0.0,
        };
        s.make_consistent()?;
        Ok(s)
    }

    /// Stage storage of the last computed step: `(Y_i, Z_i, F_i)` (see [`StepRecord`]). After
    /// [`Esdirk::try_step`](crate::smooth::Esdirk::try_step) or [`Stepper::evaluate_fixed`], `Y_S,
    /// Z_S` is the end state of the not yet accepted step; after a commit, the stages of the
    /// accepted step.
    #[allow(clippy::type_complexity)]
    pub fn stages(&self) -> (&[[f64; NY]; S], &[[f64; NZ]; S], &[[f64; NY]; S]) {
        (&self.stages.ys, &self.stages.zs, &self.stages.fs)
    }

    pub(crate) fn err_nonfinite(&self, what: &'static str) -> SolveError {
        SolveError::NonFiniteValue {
            t: self.t,
            mode: self.mode,
            what,
        }
    }

    /// Makes `z` consistent with `g(t, y, z, p) = 0` (`newton.rs`, [`consistent_z`]); the last
    /// Jacobian evaluated there serves the first step.
    fn make_consistent(&mut self) -> Result<(), SolveError> {
        if NZ == 0 {
            return Ok(());
        }
        if self.model.is_index2() {
            let tolerances = (&self.opts.rtol_y, &self.opts.atol_y);
            let at = (self.t, self.mode, &self.p);
            project_onto_constraint(self.model, at, &mut self.y, &self.z, tolerances)?;
        }
        self.matrix.at.t = self.t;
        self.matrix.at.y = self.y;
        let problem = ConsistencyProblem {
            t: self.t,
            y: &self.y,
            p: &self.p,
            mode: self.mode,
            rtol: &self.opts.rtol_z,
            atol: &self.opts.atol_z,
        };
        let r = consistent_z(
            self.model,
            &problem,
            &mut self.z,
            &mut self.matrix.jac,
            &mut self.matrix.at.z,
            &mut self.stats,
        );
        // A Jacobian was evaluated (and is finite) unless the first evaluation failed.
        self.matrix.lu_h = f64::NAN;
        self.matrix.state = match r {
            // Evaluated before the last update (still exact if constant).
            Ok(()) => self.matrix.after_step(),
            Err(_) => JacState::Invalid,
        };
        r
    }
}

/// A step computed by [`Esdirk::try_step`](crate::smooth::Esdirk::try_step) that passed the error
/// test but is not yet accepted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trial {
    /// Step size.
    pub h: f64,
    /// WRMS norm of the local error estimate (≤ 1).
    pub error: f64,
    /// Whether the step was clipped to land exactly on the stop time.
    pub landing: bool,
    /// End time of the step (exactly the stop time when `landing`).
    pub t_end: f64,
}
