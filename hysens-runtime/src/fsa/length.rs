//! The step-length direction `Φ_H = ∂(Y_i, Z_i)/∂H` and the application of `∂H/∂p` (module
//! docs of `fsa/`, "Step length").
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::step::{StagePartials, StepColumns};
use super::Following;
use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::model::{ModeJacobian, SmoothMode};

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Following<'_, '_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Adds `Φ_H ∂H/∂p` to the stage and end sensitivities of the last accepted step and
    /// `∂H/∂p` to the grid shift (module docs, "Step length"): the step length of the last
    /// step, accepted as [`crate::StepLength::Event`], is `H + dh·δp` to first order. Call once,
    /// right after the commit.
    pub fn apply_step_length_derivative(&mut self, dh: &[f64; NP]) -> Result<(), SolveError> {
        if !all_finite(dh) {
            return Err(self.step.err_nonfinite("step length sensitivity"));
        }
        let before = self.fsa.sens;
        for q in 0..NP {
            for i in 0..S {
                for c in 0..NY {
                    self.fsa.sens.stage_sy[i][c][q] += self.fsa.sens.stage_yh[i][c] * dh[q];
                }
                for c in 0..NZ {
                    self.fsa.sens.stage_sz[i][c][q] += self.fsa.sens.stage_zh[i][c] * dh[q];
                }
            }
            for c in 0..NY {
                self.fsa.sens.sy[c][q] = self.fsa.sens.stage_sy[S - 1][c][q];
            }
            for c in 0..NZ {
                self.fsa.sens.sz[c][q] = self.fsa.sens.stage_sz[S - 1][c][q];
            }
            self.fsa.sens.st[q] += dh[q];
            self.fsa.sens.step_dh[q] += dh[q];
        }
        let s = &self.fsa.sens;
        if !s.stage_sy.iter().all(|y| y.iter().all(all_finite))
            || !s.stage_sz.iter().all(|z| z.iter().all(all_finite))
            || !all_finite(&s.st)
        {
            self.fsa.sens = before;
            return Err(self.step.err_nonfinite("sensitivities"));
        }
        Ok(())
    }

    /// The H-direction of the last accepted step, from `tn` of size `h`, computed afresh from
    /// its stages (with the exact stage Jacobians, as [`Esdirk::propagate_sensitivities`] does
    /// for an event step), for a solve without forward sensitivities that records a tape for
    /// the adjoint; read it with [`Esdirk::step_length_direction`]. Call right after the
    /// commit, before the next step.
    pub(crate) fn compute_step_length_direction(
        &mut self,
        tn: f64,
        h: f64,
    ) -> Result<(), SolveError> {
        let tab = self.step.tableau;
        let jac = self.stage_jacobians(tn, h);
        let mut ft = [[0.0; NY]; S];
        let mut gt = [[0.0; NZ]; S];
        for i in 0..S {
            let ti = tn + tab.c[i] * h;
            let (y, z) = (&self.step.stages.ys[i], &self.step.stages.zs[i]);
            self.step
                .model
                .time_partials(ti, y, z, &self.step.p, &mut ft[i], &mut gt[i]);
        }
        let partials = StagePartials {
            jac: &jac,
            ft: &ft,
            gt: &gt,
        };
        self.step_length_column(tn, h, &partials)
    }

    /// [`Esdirk::refine_stage_derivatives`] for the last accepted step, from `tn` of size `h`,
    /// with its stage Jacobians evaluated here: for a solve without forward sensitivities that
    /// records a tape for the adjoint, at a landing step whose length depends on the
    /// parameters (the adjoint's H-direction of that step reads the recorded `F_i`). Call right
    /// after the commit, before the next step.
    pub(crate) fn refine_stage_derivatives_of_last_step(
        &mut self,
        tn: f64,
        h: f64,
    ) -> Result<(), SolveError> {
        let jac = self.stage_jacobians(tn, h);
        self.refine_stage_derivatives(tn, h, &jac)
    }

    /// The exact Jacobians at the stage points of the step in the stage storage, from `tn` of
    /// size `h` (the stage LUs of the forward sensitivities become stale).
    fn stage_jacobians(&mut self, tn: f64, h: f64) -> [ModeJacobian<NY, NZ>; S] {
        let tab = self.step.tableau;
        self.fsa.stage_lu_valid = [false; S];
        let mut jac = [ModeJacobian::<NY, NZ>::ZERO; S];
        for i in 0..S {
            let ti = tn + tab.c[i] * h;
            let (y, z) = (&self.step.stages.ys[i], &self.step.stages.zs[i]);
            if self.step.matrix.linear {
                jac[i] = self.step.matrix.jac;
            } else {
                self.step
                    .model
                    .jacobian(ti, y, z, &self.step.p, &mut jac[i]);
            }
            self.step.stats.sensitivity_jacobian_evals += 1;
        }
        jac
    }

    /// Refines the stage derivatives `F_i` (`i ≥ 2`) of the step in the stage storage, from
    /// `tn` of size `h`, with `jac` the exact Jacobians at its stages (module docs of `fsa/`,
    /// "Step length"), once per step.
    ///
    /// The step recovers `F_i = (Y_i − ψ_i)/(hγ)` from the Newton solution `Y_i` (`step/`), so
    /// an error `e` of `Y_i` — the Newton error, and at least the rounding of `Y_i` to a
    /// float, `ε|Y_i|` — becomes `e/(hγ)` in `F_i`. The step itself only uses `h F_i`, but the
    /// H-direction `∂Y_S/∂H ≈ Σ b_i F_i` uses `F_i` alone, and it enters the sensitivities
    /// wherever the step's length depends on the parameters (a landing step after an event,
    /// the step to an event): a step of length `δ` after an event gave sensitivities off by
    /// about `ε|y|/δ` (8 % at δ = 2e-15, 1e-7 at δ = 1e-9 on the bouncing ball). Evaluating
    /// `f(T_i, Y_i, Z_i)` instead turns the error into `f_y e + f_z e_z`, far better for a
    /// short step but worse by `hγ‖f_y‖` for a stiff one (the reason for the recovery;
    /// Hairer & Wanner II, §IV.8). Both are avoided by one Newton correction of the stage
    /// equation `R_i(Y, Z) = [Y − ψ_i − hγ f(T_i, Y, Z); g(T_i, Y, Z)]` with its exact
    /// Jacobian `J_i` (the stage matrix of the sensitivities, `fsa/step.rs`), applied to `F_i`
    /// rather than to `Y_i` (where it would be rounded away):
    ///
    /// ```text
    /// [x_y; x_z] = J_i⁻¹ [hγ (F_i − f(T_i, Y_i, Z_i)); g(T_i, Y_i, Z_i)],   F_i ← F_i − x_y/(hγ)
    /// ```
    ///
    /// (`R_i(Y_i, Z_i)` written with `Y_i − ψ_i = hγ F_i`), the stage derivative at the exact
    /// solution of the stage equation to first order in the residual: `f(T_i, Y_i, Z_i)` where
    /// `hγ J` is small, the recovered `F_i` where it is large, in between what Newton's
    /// method gives. The residual is computed accurately even when it is only the rounding of
    /// `Y_i` (`Y_i − ψ_i` is formed without cancellation error), so the refined `F_i` is
    /// accurate to a few ulps of `f`. Cost: one residual and one stage solve per implicit
    /// stage, on the few steps whose length depends on the parameters.
    ///
    /// The refined values replace `F_i` in the stage storage: the H-direction (here and in
    /// the adjoint, which reads them from its tape) and the observer use them; the step's
    /// states `Y_i, Z_i` are unchanged.
    pub(super) fn refine_stage_derivatives(
        &mut self,
        tn: f64,
        h: f64,
        jac: &[ModeJacobian<NY, NZ>; S],
    ) -> Result<(), SolveError> {
        // A step of length zero (an event at a mode's entry, `hybrid/entry.rs`) has the exact
        // `F_i = f(t_n, y_n, z_n)` already (`Esdirk::evaluate_roundoff`).
        if self.step.stages.refined || h == 0.0 {
            return Ok(());
        }
        let tab = self.step.tableau;
        let hg = h * tab.gamma;
        let mut fs = self.step.stages.fs;
        for i in 1..S {
            let ti = tn + tab.c[i] * h;
            let (mut f, mut g) = ([0.0; NY], [0.0; NZ]);
            let (y, z) = (&self.step.stages.ys[i], &self.step.stages.zs[i]);
            self.step
                .model
                .residual(ti, y, z, &self.step.p, &mut f, &mut g);
            self.step.stats.f_evals += 1;
            let mut x = [[0.0; 1]; N];
            for c in 0..NY {
                x[c][0] = hg * (fs[i][c] - f[c]);
            }
            for c in 0..NZ {
                x[NY + c][0] = g[c];
            }
            self.solve_stage(&jac[i], h, &mut x, i)?;
            for c in 0..NY {
                fs[i][c] -= x[c][0] / hg;
            }
        }
        if !fs.iter().all(all_finite) {
            return Err(self.step.err_nonfinite("stage derivatives"));
        }
        self.step.stages.fs = fs;
        self.step.stages.refined = true;
        Ok(())
    }

    /// The H-direction `Φ_H = ∂(Y_i, Z_i)/∂H` of the step from `tn` of size `h` (module
    /// docs): the step derivative in the direction `dH = 1` without parameter source, stored in
    /// `stage_yh`, `stage_zh`, with the stage derivatives refined first
    /// ([`Esdirk::refine_stage_derivatives`]).
    pub(super) fn step_length_column(
        &mut self,
        tn: f64,
        h: f64,
        partials: &StagePartials<'_, S, NY, NZ>,
    ) -> Result<(), SolveError> {
        self.refine_stage_derivatives(tn, h, partials.jac)?;
        let columns = StepColumns {
            dy: &[[0.0; 1]; NY],
            dz: &[[0.0; 1]; NZ],
            dt: &[0.0; 1],
            dh: 1.0,
            src_f: &[[[0.0; 1]; NY]; S],
            src_g: &[[[0.0; 1]; NZ]; S],
        };
        let (mut dy, mut dz) = ([[[0.0; 1]; NY]; S], [[[0.0; 1]; NZ]; S]);
        self.step_derivative(h, partials, &columns, &mut dy, &mut dz, &mut [[0.0; 1]; NY])?;
        let yh = dy.map(|stage| stage.map(|[v]| v));
        let zh = dz.map(|stage| stage.map(|[v]| v));
        if !yh.iter().all(all_finite) || !zh.iter().all(all_finite) {
            return Err(self.step.err_nonfinite("step length sensitivity"));
        }
        self.fsa.sens.stage_yh = yh;
        self.fsa.sens.stage_zh = zh;
        Ok(())
    }
}
