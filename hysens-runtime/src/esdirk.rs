//! Adaptive ESDIRK integration of one smooth mode (semi-explicit index-1 DAE or ODE).
//!
//! One step `t_n → t_n + h` (note 003_004 §1.1, §2.1, §2.5):
//!
//! 1. Stage 1 is explicit: `Y_1 = y_n`, `Z_1 = z_n`, `F_1 = f(t_n, y_n, z_n)`.
//! 2. For each implicit stage `i ≥ 2`, with `ψ_i = y_n + h Σ_{j<i} a_ij F_j` (seed 004 eqs. 5–9),
//!    solve `R_i(Y, Z) = [Y − ψ_i − hγ f(T_i, Y, Z); g(T_i, Y, Z)] = 0` by simplified Newton with
//!    the iteration matrix
//!    `M = [I − hγ f_y, −hγ f_z; g_y, g_z]` (Jacobian frozen at some earlier point, usually
//!    `(t_n, y_n, z_n)`), LU-factorized once per step and shared by all stages. The `g` rows are
//!    *not* scaled by `hγ` (the seed-004 form, note §2.1 and §7.2 P3): the Newton iterates are the
//!    same under any row scaling, but the unscaled form keeps `cond(M)` bounded as `h → 0`.
//! 3. Stage derivatives are recovered as `F_i = (Y_i − ψ_i)/(hγ)` (no extra `f` evaluation; it
//!    keeps `Y_i = ψ_i + hγ F_i` exact, which stiff accuracy relies on).
//! 4. Stiff accuracy: `y_{n+1} = Y_S`, `z_{n+1} = Z_S` (note §1.1).
//! 5. Local error estimate `e = h Σ_j (b_j − b̂_j) F_j` on the differential states, WRMS norm
//!    with weights `atol + rtol·max(|y_n|, |y_{n+1}|)` (Kristensen et al. 2005 eqs. 20–21).
//!
//! **Stage 1 and predictors.** `F_1` is evaluated afresh at every step rather than reused from
//! the previous step's last stage (FSAL): one extra `f` call per step, but each step then
//! depends only on `(t_n, y_n, z_n, p)`, which keeps the sensitivity and adjoint recursions
//! step-local and is correct across discontinuities (note §1.1, §7.2 P4). Newton starts from
//! `Y_i⁰ = ψ_i + hγ F_i⁰`, with `F_i⁰` and `Z_i⁰` linearly extrapolated in `c` through stage 1
//! and the latest stage (note §2.2 lists alternatives). The first Newton correction is accepted
//! on its own only if it is already below the Newton tolerance (no rate carried over between
//! stages; see the comment in `newton`).
//!
//! **Newton convergence test.** The test is on the Newton displacement `Δ = −M⁻¹R` in the WRMS
//! norm with weights `atol + rtol·|u_n|` fixed at the step's start (RADAU5's `SCAL`; Hairer &
//! Wanner II §IV.8, eqs. 8.10–8.13): with the contraction rate
//! `θ_k = ‖Δ_k‖/‖Δ_{k−1}‖`, the iteration has converged when `θ/(1−θ) ‖Δ_k‖ ≤ newton_tol`;
//! it has failed when `θ ≥ 1` (divergence) or when the rate predicts that `max_newton_iterations`
//! will not suffice, both judged only from the second rate estimate `θ_2` on (next paragraph).
//! `Δ` is the residual preconditioned by `M⁻¹`, so this is the residual test of note §2.1
//! measured in the units of the unknowns, which makes it independent of how the `g` rows are
//! scaled (the concern of note §7.2 P3). The rate `θ` is the contraction monitor `α` of note
//! §2.4.
//!
//! **Failure is judged from the second rate estimate on.** The first ratio
//! `θ_1 = ‖Δ_1‖/‖Δ_0‖` may only *accept* (its convergence test applies as usual); `θ ≥ 1` and the
//! predicted-failure test are checked from `θ_2 = ‖Δ_2‖/‖Δ_1‖` on. The estimates 8.10–8.13 model
//! a steady linear contraction. But `Δ_0` removes the predictor's error, and what is left after
//! it is the linearization error of `f` along `Δ_0` (curvature, and the Jacobian taken at `y_n`
//! rather than at the stage), so `θ_1` grows with `‖Δ_0‖` instead of measuring the contraction;
//! on a stiff problem that remainder can also lie in other directions than `Δ_0`, where the
//! problem is nearly linear. Robertson after `t ≈ 1e6` (y₂ ≈ 1e-9 with weight ≈ atol = 1e-10,
//! `hγ k₂ ≈ 1e12`): `Δ_0` has a y₂ part of ~1e-11; the term `hγ k₂ Δ_{0,y₂}²` (≈ 1e-10) leaves a
//! residual of that size in the slow, nearly linear y₁/y₃ directions; `Δ_1` lies there (y₂ part
//! ~1e-16), so `Δ_2` is tiny again. Measured with ESDIRK4(3)6L\[2\]SA, rtol 1e-6, atol 1e-10,
//! `[0, 4e10]`, when failure was judged on `θ_1` as well: all 4079 Newton failures of the run
//! were at `θ_1` (3063 with `θ_1 ≥ 1`, median 1.16; 1016 predicted too slow, median
//! `θ_1` = 0.84); 3260 had a fresh Jacobian, so re-evaluating it could not help; `‖Δ_1‖` was a
//! median 38× `newton_tol`, far above round-off. Each failure cut `h` by 1/4 or 1/2, which
//! pinned the step at `h/t ≈ 2e-3…1e-2`: 2842 steps, 42 416 `f` evaluations. Iterating once
//! more instead, those iterations converge with `θ_2` median 9e-3 (90% below 0.08; 12 of 818
//! really diverged, at `h/t ≈ 0.1…0.6`): 190 steps, 21 Newton failures, 3306 `f` evaluations.
//! The rule costs one extra iteration before a genuine failure is detected, against a whole
//! retried step and a cut of `h` for a false one. (Also measured: failing at `θ_1 ≥ 2` gave
//! 231 steps; predicting `Y_i⁰ = Y_{i−1}` instead of extrapolating removed most failures too,
//! 177 steps, but took ESDIRK23 on `[0, 1e5]` from 458 to 1334 steps.)
//!
//! **Jacobian reuse.** After an accepted step the Jacobian is kept for the next step if the
//! worst contraction rate of the step (`θ_1` included) was at most `jacobian_reuse_rate`; the LU
//! is refactorized whenever `h` changes. If the Newton iteration fails with an old Jacobian, the
//! Jacobian is re-evaluated and the step retried with the same `h`; with a fresh Jacobian `h` is
//! reduced (by 1/4 on divergence, 1/2 on slow convergence). (Leaving `θ_1` out of the reuse
//! decision, measured on the run above: 47 instead of 122 Jacobians but 4469 instead of 3306
//! `f` evaluations.)
//!
//! **Affine modes.** If the model declares its Jacobian constant
//! ([`SmoothMode::jacobian_is_constant`]; the macro proves it symbolically), `M` is the exact
//! Jacobian of every stage equation: the Jacobian is evaluated once, stays fresh, and the first
//! Newton iterate, which solves the linear stage equation, is accepted without a second
//! residual evaluation (Serban & Recuero's Ex. 5.1 with FSA: 786 → 390 Newton iterations, 424 → 78
//! LU factorizations per solve).
//!
//! **Step control.** `PiController` (`step/controller.rs`) (note §2.4). The step is clipped to
//! land exactly on the final time. (Hairer & Wanner's trick of keeping `h` when the factor is in
//! `[1, 1.2]`, to reuse the LU, was tried and removed: when the error estimate is dominated by
//! Newton noise — it does not grow with `h` — the step size froze; measured on Robertson in DAE
//! form: 6413 steps instead of ~600.)
//!
//! **Storage.** Everything lives in the integrator value: no heap, no panics. Each accepted
//! step is reported to an observer as a [`StepRecord`] (start time, step size, all stage values
//! and stage derivatives, Newton iteration counts), which is what an adjoint replay or
//! internal-numerical-differentiation sensitivities need.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use crate::error::SolveError;
use crate::linalg::{Lu, LuError};
use crate::model::{ModeJacobian, SmoothMode};
use crate::norm::{rms, sum_sq, weights};
use crate::options::Options;
use crate::stats::Stats;
use crate::step::controller::PiController;
use crate::tableau::Tableau;
use fsa::Sensitivities;

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
    /// Stage derivatives `F_i` (`F_1 = f(t_n, y_n, z_n)`, `F_i = (Y_i − ψ_i)/(hγ)` for `i ≥ 2`).
    pub f: &'a [[f64; NY]; S],
    /// Newton iterations performed for each stage (0 for the explicit stage).
    pub newton_iterations: &'a [usize; S],
    /// WRMS norm of the local error estimate (≤ 1 for steps accepted by the error test).
    pub error: f64,
}

/// State of the stored Jacobian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JacState {
    /// Never evaluated, or must be re-evaluated before the next attempt.
    Invalid,
    /// Evaluated at the current `(t, y, z)`.
    Fresh,
    /// Evaluated at an earlier accepted point.
    Stale,
}

/// Result of one step attempt (the state is not advanced).
#[derive(Clone, Copy, Debug)]
enum Attempt {
    /// All stages converged; WRMS error estimate.
    Done { error: f64 },
    /// The Newton iteration of `stage` failed.
    NewtonFailed { stage: usize, diverged: bool },
}

/// Round-off limit of the step size at time `t`: `16 ε max(|t|, tiny)`.
fn h_roundoff(t: f64) -> f64 {
    16.0 * f64::EPSILON * t.abs().max(f64::MIN_POSITIVE)
}

/// `x` is finite and strictly positive (false for NaN).
fn positive_finite(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

fn all_finite<const K: usize>(v: &[f64; K]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// ESDIRK integrator for one mode, with its state `(t, y, z)`, step-size history, Jacobian and
/// LU caches, statistics and the stage storage of the current step.
///
/// Const parameters: `S` stages, `NY` differential states, `NZ` algebraic variables, `NP`
/// parameters and `N = NY + NZ` (checked at compile time; see [`crate::model`]).
#[derive(Clone, Debug)]
pub struct Esdirk<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> {
    model: &'m M,
    tableau: &'m Tableau<S>,
    p: [f64; NP],
    mode: usize,
    opts: Options<NY, NZ>,
    t: f64,
    y: [f64; NY],
    z: [f64; NZ],
    /// Proposed size of the next step (0 = select automatically).
    h: f64,
    stats: Stats,
    ctrl: PiController,
    jac: ModeJacobian<NY, NZ>,
    jac_state: JacState,
    /// Worst Newton contraction rate of the last accepted step.
    theta_last: f64,
    /// Worst Newton contraction rate of the current attempt.
    theta_step: f64,
    /// The model's Jacobian is constant ([`SmoothMode::jacobian_is_constant`]).
    linear: bool,
    lu: Lu<N>,
    /// Step size the LU was factorized for (NaN: no valid factorization).
    lu_h: f64,
    /// LU factorizations of the exact stage matrices of the step whose sensitivities are being
    /// propagated, shared by every parameter direction (see `esdirk_fsa.rs`).
    stage_lus: [Lu<N>; S],
    /// Which entries of `stage_lus` belong to the current step.
    stage_lu_valid: [bool; S],
    ys: [[f64; NY]; S],
    zs: [[f64; NZ]; S],
    fs: [[f64; NY]; S],
    iters: [usize; S],
    /// Step attempts so far (accepted and rejected), against `max_steps`.
    attempts: usize,
    /// Forward sensitivities enabled (see `esdirk_fsa.rs`).
    fsa: bool,
    /// The sensitivities carried from step to step (see `esdirk_fsa.rs`).
    sens: Sensitivities<S, NY, NZ, NP>,
    /// Sensitivities of the step just computed by [`Esdirk::try_step`] and its step size, when
    /// the error test included them; installed by the commit instead of recomputing them.
    sens_pending: Option<(f64, Sensitivities<S, NY, NZ, NP>)>,
    /// The step in the stage storage, computed but not accepted: its size and error estimate
    /// (set by [`Esdirk::try_step`] and [`Esdirk::evaluate_fixed`], taken by the commit, which
    /// accepts nothing else).
    computed: Option<(f64, f64)>,
}

/// How the length `H` of an accepted step depends on the parameters (for the forward
/// sensitivities, `esdirk_fsa.rs`). With the step sequence frozen, the step's start time
/// `t_n(p)` may move (after an event), and `H` is one of:
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepLength {
    /// `H` fixed (chosen by the controller or replayed): `∂H/∂p = 0`; the end time moves with
    /// the start, `∂t_{n+1}/∂p = ∂t_n/∂p`.
    Fixed,
    /// `H = t_target − t_n` with a fixed target (sample time or final time):
    /// `∂H/∂p = −∂t_n/∂p`, so `∂t_{n+1}/∂p = 0`.
    Landing,
    /// `H = t* − t_n` with an event time `t*(p)` still to be differentiated: the sensitivities
    /// are propagated with `∂H/∂p = 0` and the H-direction `∂Φ/∂H` is computed; the caller
    /// then supplies `∂H/∂p` with [`Esdirk::apply_step_length_derivative`].
    Event,
}

impl<'m, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Esdirk<'m, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Creates an integrator at `(t0, y0, z0)` for mode index `mode` (used only in error
    /// context). `z0` is a guess: it is made consistent with `g(t0, y0, z0, p) = 0` by Newton's
    /// method on `z` (note 003_004 §2.6, §7.2 P4).
    ///
    /// Errors: [`SolveError::NonFiniteValue`] for non-finite inputs,
    /// [`SolveError::InvalidArgument`] for a setting outside its range (named by
    /// [`Options::invalid_setting`]), [`SolveError::SingularMatrix`] if `g_z` is singular and
    /// [`SolveError::InconsistentInitialValues`] if the constraint cannot be solved.
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
        const { assert!(N == NY + NZ, "Esdirk: N must equal NY + NZ") };
        const { assert!(S >= 2, "Esdirk: an ESDIRK needs at least two stages") };
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
        let mut s = Esdirk {
            model,
            tableau,
            p,
            mode,
            opts,
            t: t0,
            y: y0,
            z: z0,
            h: opts.h_init.unwrap_or(0.0),
            stats: Stats::default(),
            ctrl: PiController::new(),
            jac: ModeJacobian::ZERO,
            jac_state: JacState::Invalid,
            theta_last: 0.0,
            theta_step: 0.0,
            linear: model.jacobian_is_constant(),
            lu: Lu::factor_identity(),
            stage_lus: [Lu::factor_identity(); S],
            stage_lu_valid: [false; S],
            lu_h: f64::NAN,
            ys: [[0.0; NY]; S],
            zs: [[0.0; NZ]; S],
            fs: [[0.0; NY]; S],
            iters: [0; S],
            attempts: 0,
            fsa: false,
            sens: Sensitivities::ZERO,
            sens_pending: None,
            computed: None,
        };
        s.make_consistent()?;
        Ok(s)
    }

    /// Current time (of the last accepted step).
    pub fn t(&self) -> f64 {
        self.t
    }

    /// Differential state at [`Esdirk::t`].
    pub fn y(&self) -> &[f64; NY] {
        &self.y
    }

    /// Algebraic state at [`Esdirk::t`].
    pub fn z(&self) -> &[f64; NZ] {
        &self.z
    }

    /// Statistics so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Proposed size of the next step (0 before the first step if it is to be selected).
    pub fn next_step_size(&self) -> f64 {
        self.h
    }

    fn err_nonfinite(&self, what: &'static str) -> SolveError {
        SolveError::NonFiniteValue {
            t: self.t,
            mode: self.mode,
            what,
        }
    }

    /// Newton's method on `g(t, y, z) = 0` for `z` with the exact `g_z` (note §2.6).
    fn make_consistent(&mut self) -> Result<(), SolveError> {
        if NZ == 0 {
            return Ok(());
        }
        const MAX_IT: usize = 20;
        let mut gv = [0.0; NZ];
        let mut last = f64::INFINITY;
        for _ in 0..MAX_IT {
            self.model.g(self.t, &self.y, &self.z, &self.p, &mut gv);
            self.stats.g_evals += 1;
            if !all_finite(&gv) {
                return Err(self.err_nonfinite("g at the initial point"));
            }
            self.eval_jacobian()?;
            let lu = Lu::factor(self.jac.gz).map_err(|e| self.lu_error(e))?;
            self.stats.lu_factorizations += 1;
            lu.solve(&mut gv);
            self.stats.lu_solves += 1;
            let mut w = [0.0; NZ];
            weights(
                &self.opts.rtol_z,
                &self.opts.atol_z,
                &self.z,
                &self.z,
                &mut w,
            );
            for (zi, d) in self.z.iter_mut().zip(gv.iter()) {
                *zi -= d;
            }
            let prev = last;
            last = rms(sum_sq(&gv, &w), NZ);
            if !last.is_finite() {
                break;
            }
            // Converged when the correction is far below the tolerance (1e-3 of it), so the
            // initial inconsistency does not pollute the first error estimate; then iterated to
            // round-off (Newton converges quadratically: stop when the correction is at the
            // round-off level of z or no longer shrinks), so that a re-initialized z is an exact
            // function of its inputs, as the sensitivities assume (hybrid restarts).
            let roundoff = gv
                .iter()
                .zip(self.z.iter())
                .all(|(d, z)| d.abs() <= 4.0 * f64::EPSILON * z.abs());
            if last <= 1e-3 && (roundoff || last == 0.0 || last > 0.5 * prev) {
                // Evaluated before the last update (still exact if constant).
                self.jac_state = self.jacobian_after_step();
                return Ok(());
            }
        }
        if last <= 1e-3 {
            self.jac_state = self.jacobian_after_step();
            return Ok(());
        }
        Err(SolveError::InconsistentInitialValues {
            t: self.t,
            mode: self.mode,
            residual: last,
        })
    }

    fn lu_error(&self, e: LuError) -> SolveError {
        match e {
            LuError::Singular { column } => SolveError::SingularMatrix {
                t: self.t,
                mode: self.mode,
                column,
            },
            LuError::NonFinite { .. } => self.err_nonfinite("iteration matrix"),
        }
    }

    fn eval_jacobian(&mut self) -> Result<(), SolveError> {
        self.jac = ModeJacobian::ZERO;
        self.model
            .jacobian(self.t, &self.y, &self.z, &self.p, &mut self.jac);
        self.stats.jacobian_evals += 1;
        if !self.jac.is_finite() {
            self.jac_state = JacState::Invalid;
            return Err(self.err_nonfinite("Jacobian"));
        }
        self.jac_state = JacState::Fresh;
        self.lu_h = f64::NAN;
        Ok(())
    }

    /// State of the Jacobian once the point it was evaluated at is left behind: stale, or
    /// still exact for a constant Jacobian.
    fn jacobian_after_step(&self) -> JacState {
        if self.linear {
            JacState::Fresh
        } else {
            JacState::Stale
        }
    }

    /// Builds and factorizes `M = [I − hγ f_y, −hγ f_z; g_y, g_z]` unless already done for `h`.
    fn factor(&mut self, h: f64) -> Result<(), LuError> {
        if self.lu_h == h {
            return Ok(());
        }
        let hg = h * self.tableau.gamma;
        let j = &self.jac;
        let m = self.lu.matrix_mut();
        for r in 0..NY {
            for c in 0..NY {
                m[r][c] = -hg * j.fy[r][c] + if r == c { 1.0 } else { 0.0 };
            }
            for c in 0..NZ {
                m[r][NY + c] = -hg * j.fz[r][c];
            }
        }
        for r in 0..NZ {
            for c in 0..NY {
                m[NY + r][c] = j.gy[r][c];
            }
            for c in 0..NZ {
                m[NY + r][NY + c] = j.gz[r][c];
            }
        }
        self.stats.lu_factorizations += 1;
        match self.lu.refactor_in_place() {
            Ok(()) => {
                self.lu_h = h;
                Ok(())
            }
            Err(e) => {
                self.lu_h = f64::NAN;
                Err(e)
            }
        }
    }

    /// One attempt of a step of size `h` from the current state; fills the stage storage.
    fn attempt(&mut self, h: f64) -> Result<Attempt, SolveError> {
        let tab = self.tableau;
        let t = self.t;
        self.theta_step = 0.0;
        // The stage storage is about to change: sensitivities computed for an earlier attempt
        // no longer belong to it.
        self.sens_pending = None;
        self.computed = None;
        // Stage 1 (explicit).
        self.ys[0] = self.y;
        self.zs[0] = self.z;
        self.iters[0] = 0;
        let mut f1 = [0.0; NY];
        self.model.f(t, &self.y, &self.z, &self.p, &mut f1);
        self.stats.f_evals += 1;
        if !all_finite(&f1) {
            return Err(self.err_nonfinite("f at an accepted point"));
        }
        self.fs[0] = f1;
        let hg = h * tab.gamma;
        // Newton test weights, once per attempt at (y_n, z_n) as in RADAU5 (Hairer & Wanner
        // II, §IV.8 "SCAL"): inverses of atol + rtol·|u_n|.
        let mut inv_w = [0.0; N];
        for c in 0..NY {
            inv_w[c] = 1.0 / (self.opts.atol_y[c] + self.opts.rtol_y[c] * self.y[c].abs());
        }
        for c in 0..NZ {
            inv_w[NY + c] = 1.0 / (self.opts.atol_z[c] + self.opts.rtol_z[c] * self.z[c].abs());
        }
        for i in 1..S {
            // ψ_i = y_n + h Σ_{j<i} a_ij F_j  (seed 004 eq. 6)
            let mut psi = self.y;
            for j in 0..i {
                let a = h * tab.a[i][j];
                for k in 0..NY {
                    psi[k] += a * self.fs[j][k];
                }
            }
            // Predictor (note §2.2 lists alternatives): linear extrapolation in c of the stage
            // derivatives and algebraic values through stage 1 (c = 0) and the latest stage,
            // F_i⁰ = F_1 + ρ (F_{i−1} − F_1), Z_i⁰ = Z_1 + ρ (Z_{i−1} − Z_1), ρ = c_i / c_{i−1};
            // for stage 2 (only F_1 known, or c_{i−1} = 0) ρ = 0. Then Y_i⁰ = ψ_i + hγ F_i⁰.
            let rho = if i >= 2 && tab.c[i - 1] != 0.0 {
                tab.c[i] / tab.c[i - 1]
            } else {
                0.0
            };
            let mut yi = psi;
            for k in 0..NY {
                let f0 = self.fs[0][k];
                yi[k] += hg * (f0 + rho * (self.fs[i - 1][k] - f0));
            }
            let mut zi = self.z;
            for k in 0..NZ {
                zi[k] += rho * (self.zs[i - 1][k] - self.z[k]);
            }
            let ti = t + tab.c[i] * h;
            match self.newton(ti, hg, &psi, &inv_w, &mut yi, &mut zi) {
                Ok(n) => self.iters[i] = n,
                Err(diverged) => return Ok(Attempt::NewtonFailed { stage: i, diverged }),
            }
            let mut fi = [0.0; NY];
            for k in 0..NY {
                fi[k] = (yi[k] - psi[k]) / hg;
            }
            self.ys[i] = yi;
            self.zs[i] = zi;
            self.fs[i] = fi;
        }
        // Error estimate (Kristensen et al. 2005 eq. 20), WRMS (eq. 21).
        let (_, e) = self.state_error_estimate(h);
        let mut w = [0.0; NY];
        weights(
            &self.opts.rtol_y,
            &self.opts.atol_y,
            &self.y,
            &self.ys[S - 1],
            &mut w,
        );
        let error = rms(sum_sq(&e, &w), NY);
        if !error.is_finite() {
            // Treat like a failed iteration: the step is too large.
            return Ok(Attempt::NewtonFailed {
                stage: S - 1,
                diverged: true,
            });
        }
        Ok(Attempt::Done { error })
    }

    /// The local error estimate of the states for the step of size `h` in the stage storage:
    /// the raw `e = h Σ_j d_j F_j` (Kristensen et al. 2005 eq. 20) and `ẽ = M⁻¹ [e; 0]`, filtered
    /// through the step's iteration matrix `M` (which must be factorized for this `h`). The
    /// filter (note 003_004 §7.2 P9; Hairer & Wanner II §IV.8, eq. 8.20): the embedded methods
    /// are not A-stable, so the raw estimate of a stiff component grows like |hλ| although the
    /// component is damped; M⁻¹ ≈ (I − hγJ)⁻¹ removes exactly that growth and leaves the
    /// non-stiff components (|hγλ| ≪ 1) unchanged. Without it ESDIRK34 on Robertson over
    /// [0, 1e5] at rtol 1e-6 rejected half of its steps and stopped at 1e5 steps near
    /// t = 5.6e3; with it, 180 steps and 2 rejections.
    pub(super) fn state_error_estimate(&mut self, h: f64) -> ([f64; NY], [f64; NY]) {
        let mut e = [0.0; NY];
        for j in 0..S {
            let d = h * self.tableau.d(j);
            for k in 0..NY {
                e[k] += d * self.fs[j][k];
            }
        }
        let mut r = [0.0; N];
        r[..NY].copy_from_slice(&e);
        self.lu.solve(&mut r);
        self.stats.lu_solves += 1;
        let mut filtered = [0.0; NY];
        filtered.copy_from_slice(&r[..NY]);
        (e, filtered)
    }

    /// Simplified Newton for one implicit stage. Returns the iteration count, or
    /// `Err(diverged)` on failure.
    fn newton(
        &mut self,
        ti: f64,
        hg: f64,
        psi: &[f64; NY],
        inv_w: &[f64; N],
        y: &mut [f64; NY],
        z: &mut [f64; NZ],
    ) -> Result<usize, bool> {
        let maxit = self.opts.max_newton_iterations;
        let tol = self.opts.newton_tol;
        let mut fv = [0.0; NY];
        let mut gv = [0.0; NZ];
        let mut r = [0.0; N];
        let mut nrm_prev = 0.0;
        // Whether the last rate estimate was ≥ 1 (reported if the iterations run out).
        let mut diverging = false;
        for k in 0..maxit {
            if NZ > 0 {
                self.model.residual(ti, y, z, &self.p, &mut fv, &mut gv);
                self.stats.g_evals += 1;
            } else {
                self.model.f(ti, y, z, &self.p, &mut fv);
            }
            self.stats.f_evals += 1;
            if !all_finite(&fv) || !all_finite(&gv) {
                return Err(true);
            }
            // r = −R(Y, Z)
            for c in 0..NY {
                r[c] = -(y[c] - psi[c] - hg * fv[c]);
            }
            for c in 0..NZ {
                r[NY + c] = -gv[c];
            }
            self.lu.solve(&mut r);
            self.stats.lu_solves += 1;
            self.stats.newton_iterations += 1;
            if self.linear {
                // M is the exact Jacobian of the affine stage equation: the first iterate is
                // its solution (up to round-off).
                for c in 0..NY {
                    y[c] += r[c];
                }
                for c in 0..NZ {
                    z[c] += r[NY + c];
                }
                return if all_finite(y) && all_finite(z) {
                    Ok(1)
                } else {
                    Err(true)
                };
            }
            let mut roundoff = true;
            for c in 0..NY {
                y[c] += r[c];
                roundoff &= r[c].abs() <= 4.0 * f64::EPSILON * y[c].abs();
            }
            for c in 0..NZ {
                z[c] += r[NY + c];
                roundoff &= r[NY + c].abs() <= 4.0 * f64::EPSILON * z[c].abs();
            }
            let mut sum = 0.0;
            for c in 0..N {
                let v = r[c] * inv_w[c];
                sum += v * v;
            }
            let nrm = rms(sum, N);
            if !nrm.is_finite() {
                return Err(true);
            }
            if roundoff || nrm == 0.0 {
                return Ok(k + 1);
            }
            if k == 0 {
                // No rate estimate yet. Hairer & Wanner (eq. IV.8.12) carry the rate over from
                // the previous stage; that accepted single iterations whose error then drifted
                // (measured: |g| up to 1e-3 at tol 1e-8 on an index-1 DAE). We accept the first
                // iterate only if its correction is itself within the tolerance, so the
                // remaining error is at most θ·tol.
                if nrm <= tol {
                    return Ok(1);
                }
            } else {
                let theta = nrm / nrm_prev;
                self.theta_step = self.theta_step.max(theta);
                diverging = theta >= 1.0;
                if !diverging && theta / (1.0 - theta) * nrm <= tol {
                    return Ok(k + 1);
                }
                // Failure is judged from the second rate estimate on (module docs, "Failure is
                // judged from the second rate estimate on"): the first ratio θ_1 = ‖Δ_1‖/‖Δ_0‖
                // measures the linearization error left by the predictor's correction, not the
                // contraction of the iteration (Robertson to 4e10: all 4079 Newton failures were
                // at θ_1; continued, those iterations converge with θ_2 ≈ 1e-2).
                if k >= 2 {
                    if diverging {
                        return Err(true);
                    }
                    // Predicted failure: even at rate θ the remaining iterations cannot reach
                    // tol (Hairer & Wanner II, eq. IV.8.13).
                    // θ^remaining by repeated multiplication: the exponent is a small integer,
                    // and `libm::pow` here cost a fifth of `pow`'s 28% share of a plain
                    // Robertson solve.
                    let remaining = maxit.saturating_sub(1 + k);
                    let theta_power = (0..remaining).fold(1.0, |acc, _| acc * theta);
                    if theta_power / (1.0 - theta) * nrm > tol {
                        return Err(false);
                    }
                }
            }
            nrm_prev = nrm;
        }
        Err(diverging)
    }

    /// Initial step size (Hairer, Nørsett & Wanner I, §II.4, "starting step size"), with the
    /// order `k` of the error estimate.
    fn initial_step(&mut self, span: f64) -> Result<f64, SolveError> {
        let k = self.tableau.error_estimate_order() as f64;
        let mut w = [0.0; NY];
        weights(
            &self.opts.rtol_y,
            &self.opts.atol_y,
            &self.y,
            &self.y,
            &mut w,
        );
        let mut f0 = [0.0; NY];
        self.model.f(self.t, &self.y, &self.z, &self.p, &mut f0);
        self.stats.f_evals += 1;
        if !all_finite(&f0) {
            return Err(self.err_nonfinite("f at the initial point"));
        }
        let d0 = rms(sum_sq(&self.y, &w), NY);
        let d1 = rms(sum_sq(&f0, &w), NY);
        let mut h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        h0 = h0.min(span);
        let mut y1 = self.y;
        for c in 0..NY {
            y1[c] += h0 * f0[c];
        }
        let mut f1 = [0.0; NY];
        self.model.f(self.t + h0, &y1, &self.z, &self.p, &mut f1);
        self.stats.f_evals += 1;
        let mut df = [0.0; NY];
        for c in 0..NY {
            df[c] = f1[c] - f0[c];
        }
        let d2 = rms(sum_sq(&df, &w), NY) / h0;
        let dm = d1.max(d2);
        let h1 = if !dm.is_finite() {
            h0 * 1e-3
        } else if dm <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            libm::pow(0.01 / dm, 1.0 / k)
        };
        Ok((100.0 * h0).min(h1).min(span).min(self.opts.h_max))
    }

    /// Integrates adaptively to `tf ≥ t`, landing exactly on `tf`. `observer` is called after
    /// every accepted step.
    ///
    /// If sensitivities are enabled, a failure of their stage solves is reported as
    /// [`SolveError::NewtonFailure`].
    ///
    /// On error the integrator keeps the last accepted state ([`Esdirk::t`], [`Esdirk::y`],
    /// [`Esdirk::z`]) and its statistics.
    pub fn integrate_to<F>(&mut self, tf: f64, mut observer: F) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        if !tf.is_finite() || tf < self.t {
            return Err(SolveError::InvalidArgument {
                t: self.t,
                mode: self.mode,
                what: "final time",
            });
        }
        self.attempts = 0;
        while self.t < tf {
            let trial = self.try_step(tf)?;
            self.commit(&trial, &mut observer)?;
        }
        Ok(())
    }

    /// Computes the next adaptive step towards `t_stop > t` (clipped to land exactly on it),
    /// retrying with smaller steps until one passes the error test, but does **not** accept it:
    /// the stage storage ([`Esdirk::stages`]) holds the step and the state is unchanged until
    /// [`Esdirk::commit`]. A caller that finds an event in the step instead re-takes a shorter
    /// step with [`Esdirk::evaluate_fixed`] (the hybrid driver, `hybrid_solve.rs`).
    pub fn try_step(&mut self, t_stop: f64) -> Result<Trial, SolveError> {
        if !t_stop.is_finite() || t_stop <= self.t {
            return Err(SolveError::InvalidArgument {
                t: self.t,
                mode: self.mode,
                what: "final time",
            });
        }
        if !positive_finite(self.h) {
            self.h = self.initial_step(t_stop - self.t)?;
        }
        let k = self.tableau.error_estimate_order();
        let mut last_stage = 0usize;
        let mut last_singular: Option<usize> = None;
        loop {
            self.attempts += 1;
            if self.attempts > self.opts.max_steps {
                return Err(SolveError::TooManySteps {
                    t: self.t,
                    mode: self.mode,
                    max_steps: self.opts.max_steps,
                });
            }
            let mut h = self.h.min(self.opts.h_max);
            let remaining = t_stop - self.t;
            let last = h >= remaining;
            if last {
                h = remaining;
            }
            let h_lim = self.opts.h_min.max(h_roundoff(self.t));
            if !last && h < h_lim {
                return Err(match last_singular {
                    Some(column) => SolveError::SingularMatrix {
                        t: self.t,
                        mode: self.mode,
                        column,
                    },
                    None if last_stage > 0 => SolveError::NewtonFailure {
                        t: self.t,
                        mode: self.mode,
                        h,
                        stage: last_stage,
                    },
                    None => SolveError::StepSizeTooSmall {
                        t: self.t,
                        mode: self.mode,
                        h,
                    },
                });
            }
            let refresh = match self.jac_state {
                JacState::Invalid => true,
                JacState::Fresh => false,
                JacState::Stale => self.theta_last > self.opts.jacobian_reuse_rate,
            };
            if refresh {
                self.eval_jacobian()?;
            }
            if let Err(e) = self.factor(h) {
                match e {
                    LuError::NonFinite { .. } => return Err(self.err_nonfinite("iteration matrix")),
                    LuError::Singular { column } => {
                        if self.jac_state == JacState::Stale {
                            self.jac_state = JacState::Invalid;
                        } else {
                            last_singular = Some(column);
                            self.h = h * 0.5;
                        }
                        continue;
                    }
                }
            }
            last_singular = None;
            match self.attempt(h)? {
                Attempt::NewtonFailed { stage, diverged } => {
                    self.stats.newton_failures += 1;
                    last_stage = stage;
                    if self.jac_state == JacState::Stale {
                        self.jac_state = JacState::Invalid;
                        self.h = h;
                    } else {
                        self.h = h * if diverged { 0.25 } else { 0.5 };
                    }
                }
                Attempt::Done { error } => {
                    last_stage = 0;
                    // With sensitivities in the error test, a step that passes for the states
                    // must pass for the sensitivities too (Options::sensitivity_error_test).
                    let error = if error <= 1.0 && self.fsa && self.opts.sensitivity_error_test {
                        let length = if last {
                            StepLength::Landing
                        } else {
                            StepLength::Fixed
                        };
                        let (next, sens_error) = self.sensitivity_step(h, length)?;
                        // A NaN estimate must fail the test (f64::max would drop it).
                        let sens_error = if sens_error.is_nan() {
                            f64::INFINITY
                        } else {
                            sens_error
                        };
                        if sens_error <= 1.0 {
                            self.sens_pending = Some((h, next));
                        }
                        error.max(sens_error)
                    } else {
                        error
                    };
                    if error <= 1.0 {
                        self.computed = Some((h, error));
                        return Ok(Trial {
                            h,
                            error,
                            landing: last,
                            t_end: if last { t_stop } else { self.t + h },
                        });
                    }
                    self.stats.rejected_steps += 1;
                    let fac = self
                        .ctrl
                        .reject(error, k, self.opts.target, self.opts.fac_min);
                    self.h = h * fac;
                }
            }
        }
    }

    /// Accepts the step computed by [`Esdirk::try_step`]: propagates the sensitivities, advances
    /// the state to `trial.t_end`, calls `observer` and updates the step-size controller.
    ///
    /// Errors: [`SolveError::InvalidArgument`] if `trial` is not the step just computed (see
    /// [`Esdirk::commit_fixed`]); the integrator is left unchanged.
    // Inlined (with `accept`): out of line, commit + accept measured +2% instructions on P1.
    #[inline]
    pub fn commit<F>(&mut self, trial: &Trial, observer: &mut F) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        let length = if trial.landing {
            StepLength::Landing
        } else {
            StepLength::Fixed
        };
        let error = self.accept(trial.h, trial.t_end, length, observer)?;
        let fac = self.ctrl.accept(
            trial.h,
            error,
            self.tableau.error_estimate_order(),
            self.opts.target,
            self.opts.fac_min,
            self.opts.fac_max,
        );
        self.theta_last = self.theta_step;
        self.jac_state = self.jacobian_after_step();
        self.h = trial.h * fac;
        Ok(())
    }

    /// Stage storage of the last computed step: `(Y_i, Z_i, F_i)` (see [`StepRecord`]). After
    /// [`Esdirk::try_step`] or [`Esdirk::evaluate_fixed`], `Y_S, Z_S` is the end state of the
    /// not yet accepted step; after a commit, the stages of the accepted step.
    #[allow(clippy::type_complexity)]
    pub fn stages(&self) -> (&[[f64; NY]; S], &[[f64; NZ]; S], &[[f64; NY]; S]) {
        (&self.ys, &self.zs, &self.fs)
    }

    /// The tableau in use.
    pub fn tableau(&self) -> &Tableau<S> {
        self.tableau
    }

    /// Accepts the computed step if it is the one of size `h` ending at `t_end` (to round-off:
    /// a landing or event step ends on its exact target time); returns its error estimate.
    // Inlined into both commits: out of line it measured +2% instructions on P1 (callgrind).
    #[inline(always)]
    fn accept<F>(
        &mut self,
        h: f64,
        t_end: f64,
        length: StepLength,
        observer: &mut F,
    ) -> Result<f64, SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        let error = match self.computed {
            Some((h_computed, error))
                if h == h_computed
                    && t_end.is_finite()
                    && (t_end - (self.t + h)).abs()
                        <= h_roundoff(self.t.abs().max(t_end.abs())) =>
            {
                error
            }
            _ => {
                return Err(SolveError::InvalidArgument {
                    t: self.t,
                    mode: self.mode,
                    what: "step to accept (not the step just computed, or t_end ≠ t + h)",
                })
            }
        };
        if self.fsa {
            match self.sens_pending.take() {
                // Computed for the error test of this very step (`try_step`).
                Some((h_pending, next)) if h_pending == h => self.sens = next,
                // Uses the stage storage and the LU of this step; must precede the state
                // update. On failure the sensitivities stay those of the last accepted step:
                // a fixed-length step changes nothing before its last check, the others are
                // undone from a copy.
                _ => {
                    let accepted = if length == StepLength::Fixed {
                        None
                    } else {
                        Some(self.sens)
                    };
                    if let Err(e) = self.propagate_sensitivities(h, length) {
                        if let Some(sens) = accepted {
                            self.sens = sens;
                        }
                        return Err(e);
                    }
                }
            }
        }
        self.stats.steps += 1;
        observer(&StepRecord {
            t: self.t,
            h,
            y: &self.ys,
            z: &self.zs,
            f: &self.fs,
            newton_iterations: &self.iters,
            error,
        });
        self.t = t_end;
        self.y = self.ys[S - 1];
        self.z = self.zs[S - 1];
        self.computed = None;
        Ok(error)
    }

    /// Computes one step of exactly size `h > 0` from the current state without error control
    /// and without accepting it (fills the stage storage; returns the WRMS error estimate). The
    /// Jacobian policy is that of [`Esdirk::integrate_to`]; on a Newton failure with a stale
    /// Jacobian the step is retried once with a fresh one.
    ///
    /// Errors: [`SolveError::NewtonFailure`] if the Newton iteration fails even with a fresh
    /// Jacobian, [`SolveError::SingularMatrix`], [`SolveError::NonFiniteValue`].
    pub fn evaluate_fixed(&mut self, h: f64) -> Result<f64, SolveError> {
        if !positive_finite(h) {
            return Err(SolveError::InvalidArgument {
                t: self.t,
                mode: self.mode,
                what: "step size",
            });
        }
        let mut stage = 0;
        for _ in 0..2 {
            let refresh = match self.jac_state {
                JacState::Invalid => true,
                JacState::Fresh => false,
                JacState::Stale => self.theta_last > self.opts.jacobian_reuse_rate,
            };
            if refresh {
                self.eval_jacobian()?;
            }
            if let Err(e) = self.factor(h) {
                if self.jac_state == JacState::Stale {
                    self.jac_state = JacState::Invalid;
                    continue;
                }
                return Err(self.lu_error(e));
            }
            match self.attempt(h)? {
                Attempt::Done { error } => {
                    self.computed = Some((h, error));
                    return Ok(error);
                }
                Attempt::NewtonFailed { stage: s, .. } => {
                    self.stats.newton_failures += 1;
                    stage = s;
                    if self.jac_state == JacState::Stale {
                        self.jac_state = JacState::Invalid;
                        continue;
                    }
                    break;
                }
            }
        }
        Err(SolveError::NewtonFailure {
            t: self.t,
            mode: self.mode,
            h,
            stage,
        })
    }

    /// Accepts the step of size `h` just computed by [`Esdirk::evaluate_fixed`], ending at
    /// `t_end` (pass `t + h`, or the exact target time the step was sized for). `length` says
    /// how `h` depends on the parameters (sensitivities only; see [`StepLength`]).
    ///
    /// Errors: [`SolveError::InvalidArgument`] if no step was computed since the last commit,
    /// if `h` is not its size, or if `t_end` differs from `t + h` by more than round-off; the
    /// integrator is left unchanged.
    pub fn commit_fixed<F>(
        &mut self,
        h: f64,
        t_end: f64,
        length: StepLength,
        observer: &mut F,
    ) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        self.accept(h, t_end, length, observer)?;
        self.theta_last = self.theta_step;
        self.jac_state = self.jacobian_after_step();
        Ok(())
    }

    /// Takes one step of exactly size `h > 0` without error control (fixed-step mode, seed 004;
    /// also used to replay a frozen step sequence). The Jacobian policy is the same as in
    /// [`Esdirk::integrate_to`]; set `jacobian_reuse_rate = 0` to evaluate it every step.
    ///
    /// Errors: [`SolveError::NewtonFailure`] if the Newton iteration fails even with a fresh
    /// Jacobian, [`SolveError::SingularMatrix`], [`SolveError::NonFiniteValue`].
    pub fn step_fixed<F>(&mut self, h: f64, mut observer: F) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        self.evaluate_fixed(h)?;
        let t_end = self.t + h;
        self.commit_fixed(h, t_end, StepLength::Fixed, &mut observer)
    }
}

/// A step computed by [`Esdirk::try_step`] that passed the error test but is not yet accepted.
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

#[path = "esdirk_fsa.rs"]
mod fsa;
