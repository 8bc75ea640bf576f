//! The step-length direction `Φ_H = ∂(Y_i, Z_i)/∂H` and the application of `∂H/∂p` (module
//! docs of `fsa/`, "Step length").
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::step::{StagePartials, StepColumns};
use crate::error::{all_finite, SolveError};
use crate::model::{ModeJacobian, SmoothMode};
use crate::step::Esdirk;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Esdirk<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Adds `Φ_H ∂H/∂p` to the stage and end sensitivities of the last accepted step and
    /// `∂H/∂p` to the grid shift (module docs, "Step length"): the step length of the last
    /// step, accepted as [`crate::StepLength::Event`], is `H + dh·δp` to first order. Call once,
    /// right after the commit.
    pub fn apply_step_length_derivative(&mut self, dh: &[f64; NP]) -> Result<(), SolveError> {
        if !all_finite(dh) {
            return Err(self.err_nonfinite("step length sensitivity"));
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
            return Err(self.err_nonfinite("sensitivities"));
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
        let tab = self.tableau;
        self.fsa.stage_lu_valid = [false; S];
        let mut jac = [ModeJacobian::<NY, NZ>::ZERO; S];
        let mut ft = [[0.0; NY]; S];
        let mut gt = [[0.0; NZ]; S];
        for i in 0..S {
            let ti = tn + tab.c[i] * h;
            let (y, z) = (&self.stages.ys[i], &self.stages.zs[i]);
            if self.matrix.linear {
                jac[i] = self.matrix.jac;
            } else {
                self.model.jacobian(ti, y, z, &self.p, &mut jac[i]);
            }
            self.model
                .time_partials(ti, y, z, &self.p, &mut ft[i], &mut gt[i]);
            self.stats.sensitivity_jacobian_evals += 1;
        }
        let partials = StagePartials {
            jac: &jac,
            ft: &ft,
            gt: &gt,
        };
        self.step_length_column(h, &partials)
    }

    /// The H-direction `Φ_H = ∂(Y_i, Z_i)/∂H` of the step of size `h` (module docs): the step
    /// derivative in the direction `dH = 1` without parameter source, stored in
    /// `stage_yh`, `stage_zh`.
    pub(super) fn step_length_column(
        &mut self,
        h: f64,
        partials: &StagePartials<'_, S, NY, NZ>,
    ) -> Result<(), SolveError> {
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
            return Err(self.err_nonfinite("step length sensitivity"));
        }
        self.fsa.sens.stage_yh = yh;
        self.fsa.sens.stage_zh = zh;
        Ok(())
    }
}
