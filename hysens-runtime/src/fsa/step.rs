//! The step's derivative, stage by stage, with the exact stage matrices factorized once per step
//! and shared by all directions (module docs of `fsa/`, "Its derivative").
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::Following;
use super::Sensitivities;
use crate::error::SolveError;
use crate::linalg::{all_finite, StageFactors};
use crate::model::{MatrixStore, ModeJacobian, SmoothMode};
use crate::step::StepLength;

/// The exact Jacobians `J_i` at the stage points of one step: one per stage, or one for all
/// when the mode's Jacobian is constant (no `S` copies of an `N × N` matrix).
pub(super) enum StageJacobians<const S: usize, const NY: usize, const NZ: usize, St>
where
    St: MatrixStore,
{
    /// `J_i` of each stage.
    Each([ModeJacobian<NY, NZ, St>; S]),
    /// The same `J` at every stage.
    Constant(ModeJacobian<NY, NZ, St>),
}

impl<const S: usize, const NY: usize, const NZ: usize, St> StageJacobians<S, NY, NZ, St>
where
    St: MatrixStore,
{
    /// `J_i` of stage `i < S`.
    #[inline(always)]
    pub(super) fn stage(&self, i: usize) -> &ModeJacobian<NY, NZ, St> {
        match self {
            StageJacobians::Each(jac) => &jac[i],
            StageJacobians::Constant(jac) => jac,
        }
    }
}

/// Partials at the converged stage points of one step: `J_i` blocks, `f_t`, `g_t`.
pub(super) struct StagePartials<'a, const S: usize, const NY: usize, const NZ: usize, St>
where
    St: MatrixStore,
{
    pub jac: &'a StageJacobians<S, NY, NZ, St>,
    /// The mode's declared Jacobian pattern (`SmoothMode::jacobian_nonzeros`), for products.
    pub nonzeros: Option<&'static [(usize, usize)]>,
    pub ft: &'a [[f64; NY]; S],
    pub gt: &'a [[f64; NZ]; S],
}

/// `K` columns of the step derivative (module docs), all with the same `dH`: the directions
/// `(dy_n, dz_n, dt_n)` per column and the parameter sources `(f_{p_q}, g_{p_q})` at each stage
/// (zero for the H-direction). Columns are the innermost index, as in the sensitivity storage.
pub(super) struct StepColumns<'a, const S: usize, const NY: usize, const NZ: usize, const K: usize>
{
    pub dy: &'a [[f64; K]; NY],
    pub dz: &'a [[f64; K]; NZ],
    pub dt: &'a [f64; K],
    pub dh: f64,
    pub src_f: &'a [[[f64; K]; NY]; S],
    pub src_g: &'a [[[f64; K]; NZ]; S],
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Following<'_, '_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Propagates the sensitivities over the accepted step of size `h` whose stages are in
    /// the stage storage and whose iteration matrix is factorized in `self.step.matrix.lu` (module docs).
    /// Returns the WRMS norm of the sensitivities' local error estimate if
    /// [`crate::Options::sensitivity_error_test`] is set (else 0).
    pub(crate) fn propagate_sensitivities(
        &mut self,
        h: f64,
        length: StepLength,
    ) -> Result<f64, SolveError> {
        let tab = self.step.tableau;
        let shifted = self.fsa.sens.st.iter().any(|x| *x != 0.0);
        let need_h = match length {
            StepLength::Fixed => false,
            StepLength::Landing => shifted,
            StepLength::Event => true,
        };
        let need_t = shifted || need_h;
        // Jacobians at every stage point (a new step: its stage matrices are factorized on
        // first use).
        let jac = self.stage_jacobians(self.step.t, h);
        let mut fp = [[[0.0; NP]; NY]; S];
        let mut gp = [[[0.0; NP]; NZ]; S];
        let mut ft = [[0.0; NY]; S];
        let mut gt = [[0.0; NZ]; S];
        for i in 0..S {
            let step = &mut *self.step;
            let ti = step.t + tab.c[i] * h;
            let (y, z, p) = (&step.stages.ys[i], &step.stages.zs[i], &step.p);
            step.model
                .parameter_jacobian(ti, y, z, p, &mut fp[i], &mut gp[i]);
            if need_t {
                step.model
                    .time_partials(ti, y, z, p, &mut ft[i], &mut gt[i]);
            }
        }
        let partials = StagePartials {
            jac: &jac,
            nonzeros: self.step.model.jacobian_nonzeros(),
            ft: &ft,
            gt: &gt,
        };
        let (sy, sz, st) = (self.fsa.sens.sy, self.fsa.sens.sz, self.fsa.sens.st);
        let columns = StepColumns {
            dy: &sy,
            dz: &sz,
            dt: &st,
            dh: 0.0,
            src_f: &fp,
            src_g: &gp,
        };
        let (mut dy, mut dz) = ([[[0.0; NP]; NY]; S], [[[0.0; NP]; NZ]; S]);
        let mut err = [[0.0; NP]; NY];
        self.step_derivative(h, &partials, &columns, &mut dy, &mut dz, &mut err)?;
        let error = if self.step.opts.sensitivity_error_test {
            self.sensitivity_error(h, &mut err, &dy[S - 1])
        } else {
            0.0
        };
        if !dy[S - 1].iter().all(all_finite) || !dz[S - 1].iter().all(all_finite) {
            return Err(self.step.err_nonfinite("sensitivities"));
        }
        // Nothing above changed `self.fsa.sens`. What follows can fail only for landing and event
        // steps (the H-direction and ∂H/∂p), after the new values are in place; `accept`
        // restores the previous ones then.
        self.fsa.sens.stage_sy = dy;
        self.fsa.sens.stage_sz = dz;
        self.fsa.sens.sy = dy[S - 1];
        self.fsa.sens.sz = dz[S - 1];
        self.fsa.sens.step_dt = self.fsa.sens.st;
        self.fsa.sens.step_dh = [0.0; NP];
        if need_h {
            self.step_length_column(self.step.t, h, &partials)?;
        }
        if length == StepLength::Landing && shifted {
            self.land_on_fixed_target()?;
        }
        Ok(error)
    }

    /// The step length of a landing step from a shifted start (module docs, "Step length"):
    /// `H = t_target − t_n`, so `∂H/∂p = −∂t_n/∂p`, and the end is exactly on the fixed target
    /// (grid shift 0, not merely round-off of it).
    fn land_on_fixed_target(&mut self) -> Result<(), SolveError> {
        let mut dh = [0.0; NP];
        for q in 0..NP {
            dh[q] = -self.fsa.sens.st[q];
        }
        self.apply_step_length_derivative(&dh)?;
        self.fsa.sens.st = [0.0; NP];
        Ok(())
    }

    /// The sensitivities of the step of size `h` just computed (the stage storage), without
    /// changing the integrator's: the new [`Sensitivities`] and their error estimate (see
    /// [`Esdirk::propagate_sensitivities`]). For the error test of [`Esdirk::try_step`].
    pub(crate) fn sensitivity_step(
        &mut self,
        h: f64,
        length: StepLength,
    ) -> Result<(Sensitivities<S, NY, NZ, NP>, f64), SolveError> {
        let current = self.fsa.sens;
        let result = self.propagate_sensitivities(h, length);
        let next = core::mem::replace(&mut self.fsa.sens, current);
        result.map(|error| (next, error))
    }

    /// The derivative of the step map of size `h` (module docs) in the `K` directions of
    /// `cols`: stage derivatives `(dY_i, dZ_i)` into `dy`, `dz`, and their local error
    /// estimate `h Σ_j d_j dF_j` into `err`.
    pub(super) fn step_derivative<const K: usize>(
        &mut self,
        h: f64,
        partials: &StagePartials<'_, S, NY, NZ, M::Store>,
        cols: &StepColumns<'_, S, NY, NZ, K>,
        dy: &mut [[[f64; K]; NY]; S],
        dz: &mut [[[f64; K]; NZ]; S],
        err: &mut [[f64; K]; NY],
    ) -> Result<(), SolveError> {
        let tab = self.step.tableau;
        // hdf[j] = H dF_j, the stage derivatives scaled as they enter dψ and the estimate.
        let mut hdf = [[[0.0; K]; NY]; S];
        dy[0] = *cols.dy;
        dz[0] = *cols.dz;
        hdf[0] = first_stage(h, partials, cols);
        for i in 1..S {
            let (dpsi, shift) = self.stage_psi(i, cols.dh, &dy[0], &hdf);
            let mut x = self.stage_rhs(h, i, partials, cols, &dpsi, &shift);
            self.solve_stage(partials.jac.stage(i), h, &mut x, i)?;
            // H dF_i = (dY_i − dψ_i − γ dH F_i)/γ
            for c in 0..NY {
                for q in 0..K {
                    dy[i][c][q] = x[c][q];
                    hdf[i][c][q] = (x[c][q] - dpsi[c][q] - shift[c]) / tab.gamma;
                }
            }
            // Lengths agree: N = NY + NZ is a compile-time assertion in `Esdirk::new`.
            dz[i].copy_from_slice(&x[NY..]);
        }
        // The local error estimate of the columns, as for the states: h Σ_j d_j dF_j.
        *err = [[0.0; K]; NY];
        for j in 0..S {
            let d = tab.d(j);
            for c in 0..NY {
                for q in 0..K {
                    err[c][q] += d * hdf[j][c][q];
                }
            }
        }
        Ok(())
    }

    /// `dψ_i = dy_n + Σ_{j<i} a_ij (dH F_j + H dF_j)` of stage `i` and the term `γ dH F_i` of
    /// its right-hand side (the `dH` terms are zero for the parameter columns).
    #[inline(always)]
    fn stage_psi<const K: usize>(
        &self,
        i: usize,
        dh: f64,
        dy0: &[[f64; K]; NY],
        hdf: &[[[f64; K]; NY]; S],
    ) -> ([[f64; K]; NY], [f64; NY]) {
        let tab = self.step.tableau;
        let mut dpsi = *dy0;
        for j in 0..i {
            let a = tab.a[i][j];
            for c in 0..NY {
                for q in 0..K {
                    dpsi[c][q] += a * hdf[j][c][q];
                }
            }
        }
        let mut shift = [0.0; NY];
        if dh != 0.0 {
            for c in 0..NY {
                let mut sum = 0.0;
                for j in 0..i {
                    sum += tab.a[i][j] * self.step.stages.fs[j][c];
                }
                for q in 0..K {
                    dpsi[c][q] += dh * sum;
                }
                shift[c] = tab.gamma * dh * self.step.stages.fs[i][c];
            }
        }
        (dpsi, shift)
    }

    /// The right-hand side of stage `i`'s derivative,
    /// `[dψ_i + γ dH F_i + Hγ (f_t dT_i + f_p); −(g_t dT_i + g_p)]` with `dT_i = dt_n + c_i dH`.
    #[inline(always)]
    fn stage_rhs<const K: usize>(
        &self,
        h: f64,
        i: usize,
        partials: &StagePartials<'_, S, NY, NZ, M::Store>,
        cols: &StepColumns<'_, S, NY, NZ, K>,
        dpsi: &[[f64; K]; NY],
        shift: &[f64; NY],
    ) -> [[f64; K]; N] {
        let tab = self.step.tableau;
        let hg = h * tab.gamma;
        let mut dti = *cols.dt;
        for q in 0..K {
            dti[q] += tab.c[i] * cols.dh;
        }
        let mut x = [[0.0; K]; N];
        for c in 0..NY {
            for q in 0..K {
                x[c][q] =
                    dpsi[c][q] + shift[c] + hg * (partials.ft[i][c] * dti[q] + cols.src_f[i][c][q]);
            }
        }
        for c in 0..NZ {
            for q in 0..K {
                x[NY + c][q] = -(partials.gt[i][c] * dti[q] + cols.src_g[i][c][q]);
            }
        }
        x
    }

    /// Solves `J_i X = B` (the `K` columns of `x`, overwritten) with the exact stage matrix
    /// `J_i = [I − hγ f_y, −hγ f_z; g_y, g_z]` at the converged stage `i` (from `jac`). `J_i`
    /// is factorized once per step, on first use, and reused by every direction (the parameter
    /// columns and the step-length direction): the sensitivities are the derivative of the
    /// *exactly* solved stage equations, so a direct, backward-stable solve is what they need.
    /// (Refinement against the step's Newton LU was used before: it stalls when `hγ` is large
    /// — Robertson towards t = 4e10, cond(J) ≈ 1e10 — and cost more than the factorization for
    /// small systems.) With a constant Jacobian every `J_i` is the step's iteration matrix,
    /// whose factorization for this `h` is reused.
    pub(super) fn solve_stage<const K: usize>(
        &mut self,
        jac: &ModeJacobian<NY, NZ, M::Store>,
        h: f64,
        x: &mut [[f64; K]; N],
        stage: usize,
    ) -> Result<(), SolveError> {
        let failure = SolveError::NewtonFailure {
            t: self.step.t,
            mode: self.step.mode,
            h,
            stage,
        };
        if self.step.matrix.linear && self.step.matrix.lu_h == h {
            self.step.matrix.lu.solve_columns(x);
        } else {
            let (Some(lu), Some(valid)) = (
                self.fsa.stage_lus.get_mut(stage),
                self.fsa.stage_lu_valid.get_mut(stage),
            ) else {
                return Err(failure);
            };
            if !*valid {
                let nonzeros = self.step.model.jacobian_nonzeros();
                jac.refactor_stage_matrix(h * self.step.tableau.gamma, lu, nonzeros)
                    .map_err(|_| failure)?;
                *valid = true;
                self.step.stats.lu_factorizations += 1;
            }
            lu.solve_columns(x);
        }
        self.step.stats.lu_solves += K;
        self.step.stats.sensitivity_solves += K;
        if x.iter().all(all_finite) {
            Ok(())
        } else {
            Err(failure)
        }
    }
}

/// `H dF_1` of the explicit first stage: `dF_1 = f_y dY_1 + f_z dZ_1 + f_t dt_n + f_p` with
/// `dY_1 = dy_n`, `dZ_1 = dz_n`.
#[inline(always)]
fn first_stage<
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const K: usize,
    St: MatrixStore,
>(
    h: f64,
    partials: &StagePartials<'_, S, NY, NZ, St>,
    cols: &StepColumns<'_, S, NY, NZ, K>,
) -> [[f64; K]; NY] {
    let j0 = partials.jac.stage(0);
    let mut df = cols.src_f[0];
    for (df, ft) in df.iter_mut().zip(&partials.ft[0]) {
        for (v, dt) in df.iter_mut().zip(cols.dt) {
            *v += ft * dt;
        }
    }
    j0.add_f_times_declared(partials.nonzeros, cols.dy, cols.dz, &mut df);
    df.map(|row| row.map(|v| h * v))
}
