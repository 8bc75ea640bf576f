//! Newton's method, twice: the simplified Newton iteration of the implicit ESDIRK stages, with
//! its convergence and failure tests ([`StageNewton`]), and the Newton iteration that makes the
//! algebraic variables consistent at every restart ([`consistent_z`]).
//!
//! **Newton convergence test.** The test is on the Newton displacement `Δ = −M⁻¹R` in the WRMS
//! norm with weights `atol + rtol·|u_n|` fixed at the step's start (RADAU5's `SCAL`; Hairer &
//! Wanner II §IV.8, eqs. 8.10–8.13): with the contraction rate
//! `θ_k = ‖Δ_k‖/‖Δ_{k−1}‖`, the iteration has converged when `θ/(1−θ) ‖Δ_k‖ ≤ newton_tol`;
//! it has failed when `θ ≥ 1` (divergence) or when the rate predicts that `max_newton_iterations`
//! will not suffice, both judged only from the second rate estimate `θ_2` on (next paragraph).
//! `Δ` is the residual preconditioned by `M⁻¹`, so this is the residual test of Kristensen et al. 2005
//! (§4, after Houbak, Nørsett & Thomsen 1985) measured in the units of the unknowns, which makes
//! it independent of how the `g` rows are scaled (their Eq. 17 scales them by `hγ`). The rate
//! `θ` is the usual contraction monitor (Hairer & Wanner II, Eq. IV.8.11).
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
//! really diverged, at `h/t ≈ 0.1…0.6`): 190 steps, 21 Newton failures, 3306 `f` evaluations
//! (those 21 were the explicit stage predictor's; retried from the linearly implicit one,
//! `step/`, "Predictors": 178 steps, 1 failure).
//! The rule costs one extra iteration before a genuine failure is detected, against a whole
//! retried step and a cut of `h` for a false one. (Also measured: failing at `θ_1 ≥ 2` gave
//! 231 steps; predicting `Y_i⁰ = Y_{i−1}` instead of extrapolating removed most failures too,
//! 177 steps, but took ESDIRK23 on `[0, 1e5]` from 458 to 1334 steps.)
//!
//! **Consistent algebraic variables.** See [`consistent_z`]. It replaces two earlier
//! iterations (one at `t0`, one after a reset, with different limits and tests): the
//! tolerance-scaled test of the first serves both, with the larger iteration limit (30) of the
//! second; after a reset the next segment's integrator makes `z⁺` consistent, starting from
//! `z⁻`.

use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::linalg::{DenseLu, LuError, StageFactors};
use crate::model::{constraint_gram, constraint_rows, ConditionPartials, ModeJacobian, SmoothMode};
use crate::norm::{rms, sum_sq, weights};
use crate::stats::Stats;

/// Iteration limit of [`consistent_z`].
const MAX_CONSISTENCY_ITERATIONS: usize = 30;

/// The most halvings of a step in [`consistent_z`]'s line search: `λ ≥ 2⁻³⁰ ≈ 1e-9`.
const MAX_BACKTRACKS: usize = 30;

/// The WRMS correction (in tolerance units) below which [`consistent_z`] accepts an iteration
/// that no longer contracts: its round-off floor, within the tolerance.
const STAGNATION_FLOOR: f64 = 1.0;

/// The simplified Newton iteration of one step (module docs): the model, the factorized
/// iteration matrix `M` and the settings, shared by the stages.
pub(crate) struct StageNewton<'a, M, const NP: usize, const N: usize, F: StageFactors<N>> {
    /// The mode.
    pub model: &'a M,
    /// Its parameters.
    pub p: &'a [f64; NP],
    /// LU factors of the iteration matrix `M = [I − hγ f_y, −hγ f_z; g_y, g_z]`.
    pub lu: &'a F,
    /// `M` is the exact Jacobian of the stage equation (a constant-Jacobian mode): the first
    /// iterate is accepted.
    pub linear: bool,
    /// `Options::max_newton_iterations`.
    pub max_iterations: usize,
    /// `Options::newton_tol`.
    pub tol: f64,
}

/// One implicit stage equation `R(Y, Z) = [Y − ψ − hγ f(T, Y, Z); g(T, Y, Z)] = 0`.
pub(crate) struct StageEquation<'a, const NY: usize, const N: usize> {
    /// Stage time `T`.
    pub t: f64,
    /// `hγ`.
    pub hg: f64,
    /// `ψ = y_n + h Σ_{j<i} a_ij F_j`.
    pub psi: &'a [f64; NY],
    /// Inverse WRMS weights of the unknowns `(Y, Z)`.
    pub inv_w: &'a [f64; N],
}

/// The data of [`consistent_z`]: where `g` is solved for `z`, and the tolerances.
#[derive(Clone, Copy)]
pub(crate) struct ConsistencyProblem<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// Time.
    pub t: f64,
    /// Differential state (fixed).
    pub y: &'a [f64; NY],
    /// Parameters.
    pub p: &'a [f64; NP],
    /// Mode index (error context).
    pub mode: usize,
    /// Relative tolerances of `z`.
    pub rtol: &'a [f64; NZ],
    /// Absolute tolerances of `z`.
    pub atol: &'a [f64; NZ],
}

impl<M, const NP: usize, const N: usize, F: StageFactors<N>> StageNewton<'_, M, NP, N, F> {
    /// Simplified Newton for one implicit stage `eq`, from `(y, z)` (the predictor) to the
    /// converged stage values (module docs). Returns the iteration count, or `Err(diverged)` on
    /// failure; raises `theta_max` to the largest contraction rate seen.
    // Inlined into the stage loop (`step/attempt.rs`), where it always was: out of line, P1 with
    // FSA measured +12% instructions (callgrind).
    #[inline(always)]
    pub(crate) fn solve<const NY: usize, const NZ: usize>(
        &self,
        eq: &StageEquation<'_, NY, N>,
        y: &mut [f64; NY],
        z: &mut [f64; NZ],
        stats: &mut Stats,
        theta_max: &mut f64,
    ) -> Result<usize, bool>
    where
        M: SmoothMode<NY, NZ, NP>,
    {
        let inv_w = eq.inv_w;
        let mut nrm_prev = 0.0;
        // Whether the last rate estimate was ≥ 1 (reported if the iterations run out).
        let mut diverging = false;
        for k in 0..self.max_iterations {
            let Some(r) = self.correction(eq, y, z, stats) else {
                return Err(true);
            };
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
            if let Some(result) = self.rate_test(k, nrm, nrm_prev, theta_max, &mut diverging) {
                return result;
            }
            nrm_prev = nrm;
        }
        Err(diverging)
    }

    /// The Newton correction `M⁻¹ (−R(Y, Z))` of the stage equation `eq` at `(y, z)` (module
    /// docs), or `None` if the residual is not finite.
    #[inline(always)]
    fn correction<const NY: usize, const NZ: usize>(
        &self,
        eq: &StageEquation<'_, NY, N>,
        y: &[f64; NY],
        z: &[f64; NZ],
        stats: &mut Stats,
    ) -> Option<[f64; N]>
    where
        M: SmoothMode<NY, NZ, NP>,
    {
        let mut fv = [0.0; NY];
        let mut gv = [0.0; NZ];
        if NZ > 0 {
            self.model.residual(eq.t, y, z, self.p, &mut fv, &mut gv);
            stats.g_evals += 1;
        } else {
            self.model.f(eq.t, y, z, self.p, &mut fv);
        }
        stats.f_evals += 1;
        if !all_finite(&fv) || !all_finite(&gv) {
            return None;
        }
        // r = −R(Y, Z)
        let mut r = [0.0; N];
        for c in 0..NY {
            r[c] = -(y[c] - eq.psi[c] - eq.hg * fv[c]);
        }
        for c in 0..NZ {
            r[NY + c] = -gv[c];
        }
        self.lu.solve(&mut r);
        stats.lu_solves += 1;
        stats.newton_iterations += 1;
        Some(r)
    }

    /// The convergence and failure tests after iteration `k` (0-based) with the correction
    /// norm `nrm` (`nrm_prev` before it; module docs): `Some(Ok(iterations))` converged,
    /// `Some(Err(diverged))` failed, `None` go on. Raises `theta_max` and sets `diverging`.
    #[inline(always)]
    fn rate_test(
        &self,
        k: usize,
        nrm: f64,
        nrm_prev: f64,
        theta_max: &mut f64,
        diverging: &mut bool,
    ) -> Option<Result<usize, bool>> {
        if k == 0 {
            // No rate estimate yet. Hairer & Wanner (eq. IV.8.12) carry the rate over from
            // the previous stage; that accepted single iterations whose error then drifted
            // (measured: |g| up to 1e-3 at tol 1e-8 on an index-1 DAE). We accept the first
            // iterate only if its correction is itself within the tolerance, so the
            // remaining error is at most θ·tol.
            if nrm <= self.tol {
                return Some(Ok(1));
            }
        } else {
            let theta = nrm / nrm_prev;
            *theta_max = theta_max.max(theta);
            *diverging = theta >= 1.0;
            if !*diverging && theta / (1.0 - theta) * nrm <= self.tol {
                return Some(Ok(k + 1));
            }
            // Failure is judged from the second rate estimate on (module docs, "Failure is
            // judged from the second rate estimate on"): the first ratio θ_1 = ‖Δ_1‖/‖Δ_0‖
            // measures the linearization error left by the predictor's correction, not the
            // contraction of the iteration (Robertson to 4e10: all 4079 Newton failures were
            // at θ_1; continued, those iterations converge with θ_2 ≈ 1e-2).
            if k >= 2 {
                if *diverging {
                    return Some(Err(true));
                }
                // Predicted failure: even at rate θ the remaining iterations cannot reach
                // tol (Hairer & Wanner II, eq. IV.8.13).
                // θ^remaining by repeated multiplication: the exponent is a small integer,
                // and `libm::pow` here cost a fifth of `pow`'s 28% share of a plain
                // Robertson solve.
                let remaining = self.max_iterations.saturating_sub(1 + k);
                let theta_power = (0..remaining).fold(1.0, |acc, _| acc * theta);
                if theta_power / (1.0 - theta) * nrm > self.tol {
                    return Some(Err(false));
                }
            }
        }
        None
    }
}

/// Consistent algebraic variables: Newton's method on `g(t, y, z, p) = 0` (in an index-2 mode
/// on its hidden constraint, `SmoothMode::condition`) for `z` with `y` fixed and the exact
/// `g_z` at every iterate (an index-1 DAE needs consistent initial values,
/// Kristensen et al. 2005, Eq. 1; at a reset, Serban & Recuero 2019, Eq. 3d).
///
/// One routine for every restart: `t0` and the start of every mode segment after an event (the
/// integrator of the new segment calls it, `Esdirk::new`). Converged when the WRMS correction
/// (weights `atol_z + rtol_z |z|`) is below 1e-3 — far below the tolerance, so the initial
/// inconsistency does not pollute the first error estimate — and then iterated to round-off:
/// Newton converges quadratically, so it stops when the correction is at the round-off level of
/// `z` (`|Δz_i| ≤ 4ε|z_i|`), is zero, or no longer halves. A re-initialized `z` is then an
/// exact function of its inputs, as the sensitivities assume. A correction that no longer
/// halves below [`STAGNATION_FLOOR`] (within the tolerance) is accepted too: the round-off of a
/// variable near zero with a tiny `atol_z` can sit above 1e-3 units (measured: 0.016 for the
/// multiplier of a rope's velocity constraint at `atol_z` 1e-14, `tests/rope_taut.rs`; 1.2 for
/// a 1 mm pendulum's at `atol_z` 1e-15, which fails as it should). If the iterations run out,
/// the result is accepted if the last correction was below 1e-3.
///
/// Far from a solution (a correction above [`STAGNATION_FLOOR`]) a full step may overshoot: on
/// `w + k x + 0.1 w³ = 0` with `k x = −8e6`, from `w = 0` it lands at `w = 8e6`, and Newton then
/// shrinks it by a third per iteration: all 30 iterations to reach the root `w ≈ 431` (at
/// `k x = −8e9` they run out). There the step is shortened by a backtracking line search on
/// `|g|` ([`line_search`], as SUNDIALS' IDACalcIC does): 7 iterations for `k x` from −8e3 to
/// −8e9, 8 at −8e12 (`tests/inputs_and_errors.rs`). A full step that reduces `|g|` is
/// taken as before, so the iterates of a start that converged without it are unchanged, bit
/// for bit; near a solution the full step is always taken (there `|g|` may be round-off).
///
/// `jac` receives the Jacobian at the last iterate before the final update (the integrator
/// keeps it for its first step) and `jac_z` that iterate; `stats` counts the evaluations.
///
/// Errors: [`SolveError::NonFiniteValue`] for a non-finite `g` or Jacobian,
/// [`SolveError::InconsistentInitialValues`] if the iteration does not converge or meets a
/// singular `g_z` (with its column): either way no consistent `z` was found from this start,
/// and a singular `g_z` is what an equation without a real solution gives (`0 = z² + y + 1`
/// from `z = 0`), so it is reported as the inconsistent start it is, not as a bare singular
/// matrix (issue #19).
pub(crate) fn consistent_z<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &ConsistencyProblem<'_, NY, NZ, NP>,
    z: &mut [f64; NZ],
    jac: &mut ModeJacobian<NY, NZ, M::Store>,
    jac_z: &mut [f64; NZ],
    stats: &mut Stats,
) -> Result<(), SolveError>
where
    M: SmoothMode<NY, NZ, NP>,
{
    if NZ == 0 {
        return Ok(());
    }
    let ConsistencyProblem {
        t,
        y,
        p,
        mode,
        rtol,
        atol,
    } = *problem;
    let nonfinite = |what| SolveError::NonFiniteValue { t, mode, what };
    // `g` at `z`; `g_at_z` says whether it is already there (a line search's accepted trial).
    let mut g = [0.0; NZ];
    let mut g_at_z = false;
    let mut last = f64::INFINITY;
    for _ in 0..MAX_CONSISTENCY_ITERATIONS {
        if !g_at_z {
            // `g`, or an index-2 mode's hidden constraint (`SmoothMode::condition`).
            model.condition(t, y, z, p, &mut g);
            stats.g_evals += 1;
            if !all_finite(&g) {
                return Err(nonfinite("g at a restart"));
            }
        }
        jac.clear();
        *jac_z = *z;
        model.jacobian(t, y, z, p, jac);
        stats.jacobian_evals += 1;
        if !jac.is_finite() {
            return Err(nonfinite("Jacobian"));
        }
        let lu = DenseLu::factor(condition_z(model, problem, z, jac)).map_err(|e| match e {
            LuError::Singular { column } => SolveError::InconsistentInitialValues {
                t,
                mode,
                residual: last,
                singular_column: Some(column),
            },
            e => SolveError::from_lu(e, t, mode, "g_z"),
        })?;
        stats.lu_factorizations += 1;
        let mut correction = g;
        lu.solve(&mut correction);
        stats.lu_solves += 1;
        let mut w = [0.0; NZ];
        weights(rtol, atol, z, z, &mut w);
        let prev = last;
        last = rms(sum_sq(&correction, &w), NZ);
        // Far from a solution (the correction beyond the tolerance), a step that does not
        // reduce `|g|` is shortened (doc above); near one, the full step is taken.
        g_at_z = last > STAGNATION_FLOOR
            && last.is_finite()
            && line_search(model, problem, z, &correction, &mut g, stats);
        if g_at_z {
            continue;
        }
        for (zi, d) in z.iter_mut().zip(correction.iter()) {
            *zi -= d;
        }
        if !last.is_finite() {
            break;
        }
        let roundoff = correction
            .iter()
            .zip(z.iter())
            .all(|(d, z)| d.abs() <= 4.0 * f64::EPSILON * z.abs());
        // Converged to round-off, or stagnating at its floor (doc above).
        let stagnating = last <= STAGNATION_FLOOR && last > 0.5 * prev;
        if stagnating || last <= 1e-3 && (roundoff || last == 0.0) {
            return Ok(());
        }
    }
    if last <= 1e-3 {
        return Ok(());
    }
    Err(SolveError::InconsistentInitialValues {
        t,
        mode,
        residual: last,
        singular_column: None,
    })
}

/// The line search of [`consistent_z`] far from a solution: the Newton step `z − λ Δz` with the
/// largest `λ = 1, 1/2, 1/4, …` (at most [`MAX_BACKTRACKS`] halvings) whose condition is finite
/// and satisfies Armijo's test on `φ = ½ |g|²`, `|g(z − λ Δz)|² ≤ (1 − 2αλ) |g(z)|²` with
/// `α = 1e-4` (the Newton direction descends `φ` at the rate `−|g|²`; Dennis & Schnabel 1983,
/// Alg. A6.3.1). On success `z` is the accepted point and `g` its condition; otherwise `z` is
/// unchanged, `g` is overwritten and the caller takes the full step.
fn line_search<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &ConsistencyProblem<'_, NY, NZ, NP>,
    z: &mut [f64; NZ],
    correction: &[f64; NZ],
    g: &mut [f64; NZ],
    stats: &mut Stats,
) -> bool
where
    M: SmoothMode<NY, NZ, NP>,
{
    const ARMIJO: f64 = 1e-4;
    let squared = |v: &[f64; NZ]| v.iter().map(|x| x * x).sum::<f64>();
    let merit = squared(g);
    let mut lambda = 1.0;
    for _ in 0..=MAX_BACKTRACKS {
        let mut trial = *z;
        for (zi, d) in trial.iter_mut().zip(correction) {
            *zi -= lambda * d;
        }
        model.condition(problem.t, problem.y, &trial, problem.p, g);
        stats.g_evals += 1;
        let trial_merit = squared(g);
        if trial_merit.is_finite() && trial_merit <= (1.0 - 2.0 * ARMIJO * lambda) * merit {
            *z = trial;
            return true;
        }
        lambda *= 0.5;
    }
    false
}

/// `c_z` of the mode's condition on `z` at `z` (`SmoothMode::condition`): `g_z` from `jac`
/// (the mode's Jacobian there), or an index-2 mode's `H_z`.
fn condition_z<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &ConsistencyProblem<'_, NY, NZ, NP>,
    z: &[f64; NZ],
    jac: &ModeJacobian<NY, NZ, M::Store>,
) -> [[f64; NZ]; NZ]
where
    M: SmoothMode<NY, NZ, NP>,
{
    if !model.is_index2() {
        return jac.g_z();
    }
    let mut partials = ConditionPartials::ZERO;
    let (t, y, p) = (problem.t, problem.y, problem.p);
    model.condition_partials(t, y, z, p, &mut partials);
    partials.cz
}

/// The state `y` of an index-2 mode at the start of a segment (at `t0`, or after an event's
/// reset) put on the mode's constraint `k(t, y, p) = 0` (`k = g`, which does not read `z`):
/// Newton on `k(y + Cᵀλ) = 0` for `λ`, `C = k_y`, the least (orthogonal) change of `y`, the
/// transfer `T` that completes Serban & Recuero's Eq. 16c with `k = 0` (16e). A start off the
/// constraint by more than [`off_constraint_limit`] tolerance units (the WRMS norm of the
/// change, weights `atol_y + rtol_y |y|`) is a model whose initial state or reset does not
/// satisfy its constraints, [`SolveError::OffConstraint`] (dependent constraints,
/// [`SolveError::DependentConstraints`]); below it, the difference is the
/// previous segment's own integration error (measured: ESDIRK34 at rtol 1e-4 entering a circle
/// constraint 1.1 units off), which the projection removes.
pub(crate) fn project_onto_constraint<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    at: (f64, usize, &[f64; NP]),
    y: &mut [f64; NY],
    z: &[f64; NZ],
    (rtol_y, atol_y): (&[f64; NY], &[f64; NY]),
) -> Result<(), SolveError>
where
    M: SmoothMode<NY, NZ, NP>,
{
    let (t, mode, _) = at;
    let weight: [f64; NY] = core::array::from_fn(|m| atol_y[m] + rtol_y[m] * y[m].abs());
    let start = *y;
    let mut last = f64::INFINITY;
    for _ in 0..MAX_CONSISTENCY_ITERATIONS {
        let step = least_change_step(model, at, y, z)?;
        for (v, d) in y.iter_mut().zip(&step) {
            *v -= d;
        }
        let moved = rms(
            (0..NY).map(|m| square((y[m] - start[m]) / weight[m])).sum(),
            NY,
        );
        if moved.is_nan() || moved > off_constraint_limit(rtol_y) {
            return Err(SolveError::OffConstraint {
                t,
                mode,
                distance: moved,
            });
        }
        // Converged as `consistent_z`: below 1e-3 of the tolerance, then to round-off.
        let (size, previous) = (
            rms((0..NY).map(|m| square(step[m] / weight[m])).sum(), NY),
            last,
        );
        last = size;
        let roundoff = (0..NY).all(|m| step[m].abs() <= 4.0 * f64::EPSILON * y[m].abs());
        if size <= 1e-3 && (roundoff || size == 0.0 || size > 0.5 * previous) {
            return Ok(());
        }
    }
    if last <= 1e-3 {
        return Ok(());
    }
    Err(SolveError::OffConstraint {
        t,
        mode,
        distance: f64::INFINITY,
    })
}

/// One Newton step of [`project_onto_constraint`] at `y`: `Cᵀ (C Cᵀ)⁻¹ k` on the constraint
/// rows (`SmoothMode::is_constraint`), `C = k_y`, the change to subtract from `y`.
fn least_change_step<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    (t, mode, p): (f64, usize, &[f64; NP]),
    y: &[f64; NY],
    z: &[f64; NZ],
) -> Result<[f64; NY], SolveError>
where
    M: SmoothMode<NY, NZ, NP>,
{
    let mut k = [0.0; NZ];
    model.g(t, y, z, p, &mut k);
    let mut jac = ModeJacobian::zeroed();
    model.jacobian(t, y, z, p, &mut jac);
    if !all_finite(&k) || !jac.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t,
            mode,
            what: "the constraint of an index-2 mode",
        });
    }
    let mut partials = ConditionPartials::<NY, NZ, NP> {
        cy: jac.g_y(),
        ..ConditionPartials::ZERO
    };
    let rows = constraint_rows(model);
    let gram = constraint_gram(&mut partials, &rows);
    for (ki, &keep) in k.iter_mut().zip(&rows) {
        if !keep {
            *ki = 0.0;
        }
    }
    DenseLu::factor(gram)
        .map_err(|e| match e {
            LuError::Singular { column } => SolveError::DependentConstraints {
                t,
                mode,
                row: column,
            },
            e => SolveError::from_lu(e, t, mode, "k_y k_yᵀ of an index-2 mode"),
        })?
        .solve(&mut k);
    let c = &partials.cy;
    Ok(core::array::from_fn(|m| {
        (0..NZ).map(|i| c[i][m] * k[i]).sum()
    }))
}

/// `x²`.
fn square(x: f64) -> f64 {
    x * x
}

/// How far (WRMS, in tolerance units) [`project_onto_constraint`] may move a state: `1/√rtol`
/// (100 at rtol 1e-4, 1e4 at 1e-8), i.e. a change of at most `√rtol` relative — far above the
/// global error of a solve at that tolerance, far below a constraint a reset ignores.
fn off_constraint_limit<const NY: usize>(rtol_y: &[f64; NY]) -> f64 {
    let rtol = rtol_y.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    1.0 / libm::sqrt(rtol.max(f64::EPSILON))
}
