//! One attempt of a step: the explicit first stage, the implicit stages by simplified Newton
//! (`newton.rs`), the stage derivatives and the local error estimate (module docs of `step/`).
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::Stepper;
use crate::error::SolveError;
use crate::linalg::{all_finite, StageFactors};
use crate::model::SmoothMode;
use crate::newton::{StageEquation, StageNewton};
use crate::norm::{rms, sum_sq, weights};

/// Result of one step attempt (the state is not advanced).
#[derive(Clone, Copy, Debug)]
pub(super) enum Attempt {
    /// All stages converged; WRMS error estimate.
    Done { error: f64 },
    /// The Newton iteration of `stage` failed.
    NewtonFailed { stage: usize, diverged: bool },
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// One attempt of a step of size `h` from the current state; fills the stage storage.
    pub(super) fn attempt(&mut self, h: f64) -> Result<Attempt, SolveError> {
        let tab = self.tableau;
        let t = self.t;
        self.matrix.theta_step = 0.0;
        self.stages.computed = None;
        self.stages.refined = false;
        self.stages.quadrature = 0.0;
        // Stage 1 (explicit).
        self.stages.ys[0] = self.y;
        self.stages.zs[0] = self.z;
        self.stages.iters[0] = 0;
        let mut f1 = [0.0; NY];
        self.model.f(t, &self.y, &self.z, &self.p, &mut f1);
        self.stats.f_evals += 1;
        if !all_finite(&f1) {
            return Err(self.err_nonfinite("f at an accepted point"));
        }
        self.stages.fs[0] = f1;
        let hg = h * tab.gamma;
        let inv_w = self.newton_weights(hg);
        let newton = StageNewton {
            model: self.model,
            p: &self.p,
            lu: &self.matrix.lu,
            linear: self.matrix.linear,
            max_iterations: self.opts.max_newton_iterations,
            tol: self.opts.newton_tol,
        };
        for i in 1..S {
            // ψ_i = y_n + h Σ_{j<i} a_ij F_j  (Christensen et al., Eq. 6)
            let mut psi = self.y;
            for j in 0..i {
                let a = h * tab.a[i][j];
                for k in 0..NY {
                    psi[k] += a * self.stages.fs[j][k];
                }
            }
            let ti = t + tab.c[i] * h;
            let eq = StageEquation {
                t: ti,
                hg,
                psi: &psi,
                inv_w: &inv_w,
            };
            // Newton from the explicit predictor; if it fails, once more from the linearly
            // implicit one (module docs of `step/`, "Predictors"), before the step is retried
            // with a smaller h.
            let theta_before = self.matrix.theta_step;
            let (mut yi, mut zi) = self.explicit_predictor(i, hg, &psi);
            let theta = &mut self.matrix.theta_step;
            let mut result = newton.solve(&eq, &mut yi, &mut zi, &mut self.stats, theta);
            if result.is_err() {
                (yi, zi) = self.implicit_predictor(i, hg, &psi);
                self.stats.lu_solves += 1;
                self.matrix.theta_step = theta_before;
                let theta = &mut self.matrix.theta_step;
                result = newton.solve(&eq, &mut yi, &mut zi, &mut self.stats, theta);
            }
            match result {
                Ok(n) => self.stages.iters[i] = n,
                Err(diverged) => return Ok(Attempt::NewtonFailed { stage: i, diverged }),
            }
            let mut fi = [0.0; NY];
            for k in 0..NY {
                fi[k] = (yi[k] - psi[k]) / hg;
            }
            self.stages.ys[i] = yi;
            self.stages.zs[i] = zi;
            self.stages.fs[i] = fi;
        }
        let error = self.attempt_error(h);
        if !error.is_finite() {
            // Treat like a failed iteration: the step is too large.
            return Ok(Attempt::NewtonFailed {
                stage: S - 1,
                diverged: true,
            });
        }
        Ok(Attempt::Done { error })
    }

    /// The WRMS error estimate of the step of size `h` in the stage storage (Kristensen et al.
    /// 2005, Eqs. 20–21), with the integral cost's quadrature when its error test is on.
    #[inline(always)]
    fn attempt_error(&mut self, h: f64) -> f64 {
        let (_, r) = self.filtered_estimate(h);
        let mut e = [0.0; NY];
        e.copy_from_slice(&r[..NY]);
        let mut w = [0.0; NY];
        weights(
            &self.opts.rtol_y,
            &self.opts.atol_y,
            &self.y,
            &self.stages.ys[S - 1],
            &mut w,
        );
        let mut error = rms(sum_sq(&e, &w), NY);
        if NZ > 0 && self.model.is_index2() {
            error = self.with_index2_variables(h, &r, sum_sq(&e, &w));
        }
        if self.model.has_integral_cost() {
            if let Some(tol) = self.opts.cost_tolerances() {
                // The larger of the two norms (CVODES' `errconQ`): the states' test is
                // unchanged (docs of `Options::cost_error_test`). A NaN must fail.
                let eq = self.quadrature_error(h, tol);
                error = if eq.is_nan() { eq } else { error.max(eq) };
            }
        }
        error
    }

    /// The local error estimate of the states for the step of size `h` in the stage storage:
    /// the raw `e = h Σ_j d_j F_j` (Kristensen et al. 2005, Eq. 20) and `ẽ = M⁻¹ [e; 0]`, filtered
    /// through the step's iteration matrix `M` (which must be factorized for this `h`). The
    /// filter (Hairer & Wanner II, §IV.8, Eq. 8.20): the embedded methods
    /// are not A-stable, so the raw estimate of a stiff component grows like |hλ| although the
    /// component is damped; M⁻¹ ≈ (I − hγJ)⁻¹ removes exactly that growth and leaves the
    /// non-stiff components (|hγλ| ≪ 1) unchanged. Without it ESDIRK34 on Robertson over
    /// [0, 1e5] at rtol 1e-6 rejected half of its steps and stopped at 1e5 steps near
    /// t = 5.6e3; with it, 180 steps and 2 rejections.
    pub(crate) fn state_error_estimate(&mut self, h: f64) -> ([f64; NY], [f64; NY]) {
        let (e, r) = self.filtered_estimate(h);
        let mut filtered = [0.0; NY];
        filtered.copy_from_slice(&r[..NY]);
        (e, filtered)
    }

    /// The raw estimate `e` and the whole filtered `M⁻¹ [e; 0]`, its algebraic part included
    /// ([`Stepper::state_error_estimate`]).
    #[inline(always)]
    fn filtered_estimate(&mut self, h: f64) -> ([f64; NY], [f64; N]) {
        let mut e = [0.0; NY];
        for j in 0..S {
            let d = h * self.tableau.d(j);
            for k in 0..NY {
                e[k] += d * self.stages.fs[j][k];
            }
        }
        let mut r = [0.0; N];
        r[..NY].copy_from_slice(&e);
        self.matrix.lu.solve(&mut r);
        self.stats.lu_solves += 1;
        (e, r)
    }

    /// The error of an index-2 step: the states' squared weighted sum `sum_y` and the filtered
    /// estimate's algebraic part `r[NY..]` times `hγ`, as RADAU5 scales the index-2 components
    /// of its estimate by the step size (Hairer & Wanner II, §VII.8), WRMS over all `N`
    /// components (`z`'s weights from `z_n` and `Z_S`). On `y` alone the estimate let index-2
    /// steps grow too long: a point held on a circle (`tests/index2_modes.rs`) was within 12 and
    /// 28 times rtol at rtol 1e-8 and 1e-10 (sensitivities 59 and 139) in 32 and 78 steps, where
    /// the same rotation as an ODE is within 5.4 and 5.5 (27, 28) in 38 and 114 steps; with the
    /// `z` term, 2.0 and 2.2 (9.0, 11.6) in 47 and 138 steps.
    #[inline(never)]
    fn with_index2_variables(&self, h: f64, r: &[f64; N], sum_y: f64) -> f64 {
        let hg = h * self.tableau.gamma;
        let mut w = [0.0; NZ];
        weights(
            &self.opts.rtol_z,
            &self.opts.atol_z,
            &self.z,
            &self.stages.zs[S - 1],
            &mut w,
        );
        let mut z_part = [0.0; NZ];
        for c in 0..NZ {
            z_part[c] = hg * r[NY + c];
        }
        rms(sum_y + sum_sq(&z_part, &w), N)
    }

    /// The integral cost's part of the error test ([`crate::Options::cost_error_test`], with
    /// tolerances `(rtol_q, atol_q)` = `tol` from [`crate::Options::cost_tolerances`]) for the
    /// step of size `h` in the stage storage: `|e_q|/w_q` with the embedded estimate
    /// `e_q = h Σ_j d_j L_j` of the quadrature `q' = L` (Kristensen et al. 2005, Eq. 20, as for
    /// the states; unfiltered, since `q` does not feed back) and
    /// `w_q = atol_q + rtol_q·max(|Q_n|, |Q_n + h Σ_i b_i L_i|)`. Stores the step's quadrature
    /// `h Σ_i b_i L_i` for the commit. `L` is evaluated at the stages with `b_j ≠ 0` or
    /// `d_j ≠ 0` only; a non-finite value makes the result infinite (the attempt then fails
    /// like one whose states' estimate is not finite).
    fn quadrature_error(&mut self, h: f64, (rtol_q, atol_q): (f64, f64)) -> f64 {
        let tab = self.tableau;
        let (mut sum_b, mut sum_d) = (0.0, 0.0);
        for j in 0..S {
            let (b, d) = (tab.b[j], tab.d(j));
            if b == 0.0 && d == 0.0 {
                continue;
            }
            let tj = self.t + tab.c[j] * h;
            let l = self
                .model
                .integral_cost(tj, &self.stages.ys[j], &self.stages.zs[j], &self.p);
            sum_b += b * l;
            sum_d += d * l;
        }
        let dq = h * sum_b;
        if !(dq.is_finite() && sum_d.is_finite()) {
            return f64::INFINITY;
        }
        self.stages.quadrature = dq;
        let qn = self.quadrature;
        let w = atol_q + rtol_q * qn.abs().max((qn + dq).abs());
        (h * sum_d / w).abs()
    }

    /// Inverse Newton test weights, once per attempt at `(y_n, z_n)` as in RADAU5 (Hairer &
    /// Wanner II, §IV.8, "SCAL"): `1/(atol + rtol·|u_n|)`. In an index-2 mode the algebraic
    /// variables' are multiplied by `hγ` (RADAU5 scales its index-2 components by the step
    /// size, Hairer & Wanner II, §VII.8): `z` is fixed by `k(Y) = 0` only through
    /// `Y = ψ + hγ f(Y, Z)`, so its Newton corrections are the states' divided by `hγ`, and the
    /// rate test read them as divergence (measured: two failures per step on a point held on a
    /// circle, every replayed step failing at tight tolerances). The step's `z` is then taken
    /// from the hidden constraint (`fsa/index2.rs`), so the scaling costs it no accuracy.
    #[inline(always)]
    fn newton_weights(&self, hg: f64) -> [f64; N] {
        let mut inv_w = [0.0; N];
        for c in 0..NY {
            inv_w[c] = 1.0 / (self.opts.atol_y[c] + self.opts.rtol_y[c] * self.y[c].abs());
        }
        let scale = if self.model.is_index2() { hg } else { 1.0 };
        for c in 0..NZ {
            let w = self.opts.atol_z[c] + self.opts.rtol_z[c] * self.z[c].abs();
            inv_w[NY + c] = scale / w;
        }
        inv_w
    }

    /// The explicit Newton starting values `(Y_i⁰, Z_i⁰)` of stage `i ≥ 1` (0-based) with
    /// `hγ` = `hg` and `ψ_i` = `psi` (module docs of `step/`, "Predictors"): the stage
    /// derivatives and algebraic values linearly extrapolated in `c` through stage 1 (`c = 0`)
    /// and the latest stage, `F_i⁰ = F_1 + ρ (F_{i−1} − F_1)`, `Z_i⁰ = Z_1 + ρ (Z_{i−1} − Z_1)`,
    /// `ρ = c_i / c_{i−1}` (for stage 2, or `c_{i−1} = 0`, `ρ = 0`); then `Y_i⁰ = ψ_i + hγ F_i⁰`.
    #[inline(always)]
    fn explicit_predictor(&self, i: usize, hg: f64, psi: &[f64; NY]) -> ([f64; NY], [f64; NZ]) {
        let tab = self.tableau;
        let rho = if i >= 2 && tab.c[i - 1] != 0.0 {
            tab.c[i] / tab.c[i - 1]
        } else {
            0.0
        };
        let mut yi = *psi;
        for k in 0..NY {
            let f0 = self.stages.fs[0][k];
            yi[k] += hg * (f0 + rho * (self.stages.fs[i - 1][k] - f0));
        }
        let mut zi = self.z;
        for k in 0..NZ {
            zi[k] += rho * (self.stages.zs[i - 1][k] - self.z[k]);
        }
        (yi, zi)
    }

    /// The linearly implicit Newton starting values `(Y_i⁰, Z_i⁰)` of stage `i ≥ 1` (0-based),
    /// for a retry after Newton failed from the explicit ones, with `hγ` = `hg` and `ψ_i` =
    /// `psi`: one linearly implicit step from the latest stage `j = i − 1` (module
    /// docs of `step/`, "Predictors"). With `J = [f_y, f_z; g_y, g_z]` the stored Jacobian
    /// and `M` the factorized iteration matrix, `f` is modelled near stage `j` as
    /// `f(T_i, Y, Z) ≈ F_j + f_y (Y − Y_j) + f_z (Z − Z_j) + ρ w_f` and `g` as
    /// `g_y (Y − Y_j) + g_z (Z − Z_j) + ρ w_g`, where `w = [F_j − F_1; 0] − J [Y_j − Y_1; Z_j − Z_1]`
    /// is the change from stage 1 to stage `j` that `J` does not explain (the explicit time
    /// dependence, the non-stiff trend) and `ρ = (c_i − c_j)/c_j` extrapolates it (0 for
    /// `c_j = 0`). The stage equation of that model is linear with matrix `M`:
    /// `(Y⁰, Z⁰) = (Y_j, Z_j) + M⁻¹ [ψ_i + hγ (F_j + ρ w_f) − Y_j; −ρ w_g]`.
    /// One LU solve and a product with the Jacobian, no `f` evaluation. For a non-stiff
    /// component (`hγ J` small) this is the explicit predictor; for a stiff one it is a Newton
    /// step from the latest stage instead of an explicit extrapolation over `hλ ≫ 1`.
    #[inline(always)]
    fn implicit_predictor(&self, i: usize, hg: f64, psi: &[f64; NY]) -> ([f64; NY], [f64; NZ]) {
        let tab = self.tableau;
        let j = i - 1;
        let (fs, ys, zs) = (&self.stages.fs, &self.stages.ys, &self.stages.zs);
        let mut r = [0.0; N];
        for k in 0..NY {
            r[k] = psi[k] + hg * fs[j][k] - ys[j][k];
        }
        if j > 0 && tab.c[j] != 0.0 {
            let rho = (tab.c[i] - tab.c[j]) / tab.c[j];
            let jac = &self.matrix.jac;
            let dy: [f64; NY] = core::array::from_fn(|c| ys[j][c] - ys[0][c]);
            let dz: [f64; NZ] = core::array::from_fn(|c| zs[j][c] - zs[0][c]);
            let mut w_f: [f64; NY] = core::array::from_fn(|k| fs[j][k] - fs[0][k]);
            let mut w_g = [0.0; NZ];
            jac.sub_f_times_vector(&dy, &dz, &mut w_f);
            jac.add_g_times_vector(&dy, &dz, &mut w_g);
            for k in 0..NY {
                r[k] += hg * rho * w_f[k];
            }
            for k in 0..NZ {
                r[NY + k] = rho * w_g[k];
            }
        }
        self.matrix.lu.solve(&mut r);
        let mut yi = ys[j];
        let mut zi = zs[j];
        for k in 0..NY {
            yi[k] += r[k];
        }
        for k in 0..NZ {
            zi[k] += r[NY + k];
        }
        (yi, zi)
    }
}
