//! Forward parametric sensitivities of the ESDIRK solution by internal numerical
//! differentiation (IND) of the *converged* stage equations (note 003_004 §3.3; the
//! architecture guide's "FSA"): the exact derivative of the discrete solution with the step
//! sequence frozen, including steps whose start time or length depends on the parameters
//! (after an event of a hybrid solve, `hybrid_solve.rs`).
//!
//! **The step map.** One step from `(t_n, y_n, z_n)` of length `H` is
//! `Φ(t_n, y_n, z_n, H, p) = (Y_S, Z_S)` with the stage equations (`T_i = t_n + c_i H`,
//! `Y_1 = y_n`, `Z_1 = z_n`, `F_1 = f(t_n, y_n, z_n)`)
//!
//! ```text
//! ψ_i = y_n + H Σ_{j<i} a_ij F_j,   Y_i = ψ_i + Hγ F_i,   F_i = f(T_i, Y_i, Z_i),   0 = g(T_i, Y_i, Z_i)
//! ```
//!
//! **Its derivative** in a direction `(dy_n, dz_n, dt_n, dH)` plus a parameter source
//! `(f_{p_q}, g_{p_q})` (one column; all partials at the converged stage points):
//!
//! * stage 1: `dY_1 = dy_n`, `dZ_1 = dz_n`, `dF_1 = f_y dY_1 + f_z dZ_1 + f_t dt_n + f_{p_q}`;
//! * stage `i ≥ 2`: `dT_i = dt_n + c_i dH`, `dψ_i = dy_n + Σ_{j<i} a_ij (dH F_j + H dF_j)`,
//!   ```text
//!   J_i [dY_i; dZ_i] = [dψ_i + γ dH F_i + Hγ (f_t dT_i + f_{p_q});  −(g_t dT_i + g_{p_q})],
//!   J_i = [I − Hγ f_y, −Hγ f_z; g_y, g_z]   at (T_i, Y_i, Z_i)
//!   ```
//!   (the exact Jacobian, note §3.3 item 3 and §7.2 P6; a Jacobian frozen at `t_n` would give
//!   the O(h)-inaccurate sensitivities of seed 003, note §3.2 / P5), and
//!   `dF_i = (dY_i − dψ_i − γ dH F_i)/(Hγ)`, the derivative of `F_i = (Y_i − ψ_i)/(Hγ)`;
//! * output (stiffly accurate): `dy_{n+1} = dY_S`, `dz_{n+1} = dZ_S`, `dt_{n+1} = dt_n + dH`.
//!
//! Two kinds of columns are computed with this one linear map:
//!
//! * **parameter columns** `q = 1..NP`: `(s_n[:,q], w_n[:,q], ∂t_n/∂p_q, dH = 0)` with the
//!   source `(f_{p_q}, g_{p_q})` (the memory terms are part of the source, `mode_adapter.rs`);
//!   the integrator's `S_y = ∂y_n/∂p`, `S_z = ∂z_n/∂p` are *total* derivatives of the state at
//!   the grid point `t_n(p)`, and `∂t_n/∂p` ("grid shift") is carried along
//!   ([`Esdirk::time_sensitivity`]);
//! * the **H-direction** `Φ_H = ∂(Y_i, Z_i)/∂H`: `(0, 0, 0, dH = 1)` without source, computed
//!   only when a step's length depends on `p`.
//!
//! **Step length** ([`super::StepLength`]): with the step sequence frozen, a `Fixed` step has
//! `∂H/∂p = 0` (its end moves with its start: `∂t_{n+1}/∂p = ∂t_n/∂p`); a `Landing` step on a
//! fixed target has `H = t_target − t_n`, so `∂H/∂p = −∂t_n/∂p` and
//! `∂t_{n+1}/∂p = 0`; an `Event` step ends at the event time `t*(p)` and its `∂H/∂p` is
//! supplied by the caller ([`Esdirk::apply_step_length_derivative`], computed from the guard
//! in `jump.rs`). In every case the total step derivative is the parameter column plus
//! `Φ_H ∂H/∂p` (linearity), applied by [`Esdirk::apply_step_length_derivative`] to the stage
//! and end sensitivities alike.
//!
//! The linear stage systems are solved directly: each exact stage matrix `J_i` is factorized
//! once per accepted step and shared by all columns, which are solved together (the parameter
//! columns as one multi-right-hand-side solve, `Lu::solve_columns`). The result is the
//! derivative of the discrete map defined by the exactly solved stage equations with the step
//! sequence frozen; it differs from the derivative of the Newton-iterated solution only by
//! terms of the size of the Newton error (≤ `newton_tol` times the tolerance).
//!
//! **In the error test** ([`crate::Options::sensitivity_error_test`]): the local error of the
//! parameter columns is estimated like the states' (`h Σ_j d_j dF_j`, filtered through the
//! step's iteration matrix) and weighted with the states' tolerances on `|∂y/∂p|`. The
//! sensitivities are then computed in [`Esdirk::try_step`] for every attempt that passes the
//! state test, into a copy ([`Sensitivities`]) that the commit installs; the derivative is the
//! same (the replay test in `hybrid_tests.rs` checks it), only the step sequence changes.
//!
//! Only accepted steps contribute (note §7.2 P8). Cost per step: `S` Jacobian (none for a
//! constant Jacobian) and parameter Jacobian evaluations (plus `S` time-partial evaluations
//! when the grid is shifted or the H-direction is needed), `S − 1` factorizations of `N × N`
//! stage matrices (none for a constant Jacobian: every stage matrix is then the step's
//! iteration matrix), and one solve with `NP` right-hand sides (plus one for the H-direction)
//! per implicit stage.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::{all_finite, Esdirk, StepLength};
use crate::error::SolveError;
use crate::linalg::Lu;
use crate::model::{ModeJacobian, SmoothMode};
use crate::norm::rms;

/// What the forward sensitivities carry from step to step (module docs): the state's
/// sensitivities at the current time and the data of the last accepted step that cost
/// gradients and event jumps read.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sensitivities<const S: usize, const NY: usize, const NZ: usize, const NP: usize> {
    /// `∂y/∂p` at [`Esdirk::t`] (`NY × NP`).
    sy: [[f64; NP]; NY],
    /// `∂z/∂p` at [`Esdirk::t`] (`NZ × NP`).
    sz: [[f64; NP]; NZ],
    /// Stage sensitivities `∂Y_i/∂p` of the last accepted step (for cost quadratures).
    stage_sy: [[[f64; NP]; NY]; S],
    /// Stage sensitivities `∂Z_i/∂p` of the last accepted step.
    stage_sz: [[[f64; NP]; NZ]; S],
    /// Grid shift `∂t_n/∂p` of the current time [`Esdirk::t`] (nonzero after an event whose
    /// time depends on `p`).
    st: [f64; NP],
    /// `∂t_n/∂p` at the start of the last accepted step.
    step_dt: [f64; NP],
    /// `∂H/∂p` of the last accepted step.
    step_dh: [f64; NP],
    /// H-direction `∂Y_i/∂H` of the last accepted step (valid after a step of
    /// [`StepLength::Landing`] with a shifted start or [`StepLength::Event`]).
    stage_yh: [[f64; NY]; S],
    /// H-direction `∂Z_i/∂H` of the last accepted step.
    stage_zh: [[f64; NZ]; S],
}

impl<const S: usize, const NY: usize, const NZ: usize, const NP: usize>
    Sensitivities<S, NY, NZ, NP>
{
    /// All zero.
    pub(super) const ZERO: Self = Sensitivities {
        sy: [[0.0; NP]; NY],
        sz: [[0.0; NP]; NZ],
        stage_sy: [[[0.0; NP]; NY]; S],
        stage_sz: [[[0.0; NP]; NZ]; S],
        st: [0.0; NP],
        step_dt: [0.0; NP],
        step_dh: [0.0; NP],
        stage_yh: [[0.0; NY]; S],
        stage_zh: [[0.0; NZ]; S],
    };
}

/// Partials at the converged stage points of one step: `J_i` blocks, `f_t`, `g_t`.
struct StagePartials<'a, const S: usize, const NY: usize, const NZ: usize> {
    jac: &'a [ModeJacobian<NY, NZ>; S],
    ft: &'a [[f64; NY]; S],
    gt: &'a [[f64; NZ]; S],
}

/// `K` columns of the step derivative (module docs), all with the same `dH`: the directions
/// `(dy_n, dz_n, dt_n)` per column and the parameter sources `(f_{p_q}, g_{p_q})` at each stage
/// (zero for the H-direction). Columns are the innermost index, as in the sensitivity storage.
struct StepColumns<'a, const S: usize, const NY: usize, const NZ: usize, const K: usize> {
    dy: &'a [[f64; K]; NY],
    dz: &'a [[f64; K]; NZ],
    dt: &'a [f64; K],
    dh: f64,
    src_f: &'a [[[f64; K]; NY]; S],
    src_g: &'a [[[f64; K]; NZ]; S],
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Esdirk<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Turns on forward sensitivities with respect to the parameters, starting from
    /// `∂y/∂p (t) = sy0` at the current time (zero if the initial state does not depend on
    /// `p`), with a fixed current time. See [`Esdirk::enable_sensitivities_at`].
    pub fn enable_sensitivities(&mut self, sy0: [[f64; NP]; NY]) -> Result<(), SolveError> {
        self.enable_sensitivities_at(sy0, [0.0; NP])
    }

    /// Turns on forward sensitivities starting from the total derivative `sy0 = dy/dp` of the
    /// state at the current time, which itself depends on the parameters with
    /// `dt/dp = st0` (a restart at an event time, module docs). The algebraic sensitivities are
    /// made consistent with the differentiated constraint:
    /// `S_z = −g_z⁻¹ (g_y S_y + g_t st0 + g_p)` (note §3.1).
    pub fn enable_sensitivities_at(
        &mut self,
        sy0: [[f64; NP]; NY],
        st0: [f64; NP],
    ) -> Result<(), SolveError> {
        if !sy0.iter().all(all_finite) || !all_finite(&st0) {
            return Err(self.err_nonfinite("initial sensitivities"));
        }
        let mut sz0 = [[0.0; NP]; NZ];
        if NZ > 0 {
            let mut jac = ModeJacobian::ZERO;
            let mut fp = [[0.0; NP]; NY];
            let mut gp = [[0.0; NP]; NZ];
            let mut ft = [0.0; NY];
            let mut gt = [0.0; NZ];
            self.model
                .jacobian(self.t, &self.y, &self.z, &self.p, &mut jac);
            self.model
                .parameter_jacobian(self.t, &self.y, &self.z, &self.p, &mut fp, &mut gp);
            if st0.iter().any(|x| *x != 0.0) {
                self.model
                    .time_partials(self.t, &self.y, &self.z, &self.p, &mut ft, &mut gt);
            }
            self.stats.sensitivity_jacobian_evals += 1;
            let lu = Lu::factor(jac.gz).map_err(|e| self.lu_error(e))?;
            for q in 0..NP {
                let mut rhs = [0.0; NZ];
                for r in 0..NZ {
                    let mut v = gp[r][q] + gt[r] * st0[q];
                    for c in 0..NY {
                        v += jac.gy[r][c] * sy0[c][q];
                    }
                    rhs[r] = -v;
                }
                lu.solve(&mut rhs);
                for r in 0..NZ {
                    sz0[r][q] = rhs[r];
                }
            }
            if !sz0.iter().all(all_finite) {
                return Err(self.err_nonfinite("initial algebraic sensitivities"));
            }
        }
        self.sens.sy = sy0;
        self.sens.st = st0;
        self.sens.sz = sz0;
        // Sensitivities a `try_step` computed from the previous ones no longer apply.
        self.sens_pending = None;
        self.fsa = true;
        Ok(())
    }

    /// Sensitivities `(∂y/∂p, ∂z/∂p)` at [`Esdirk::t`] (zero if not enabled): total
    /// derivatives of the state at the grid point, whose own time derivative is
    /// [`Esdirk::time_sensitivity`].
    pub fn sensitivities(&self) -> (&[[f64; NP]; NY], &[[f64; NP]; NZ]) {
        (&self.sens.sy, &self.sens.sz)
    }

    /// Grid shift `∂t/∂p` of the current time [`Esdirk::t`] (module docs): zero unless the
    /// segment started at a parameter-dependent time and has not yet landed on a fixed time.
    pub fn time_sensitivity(&self) -> &[f64; NP] {
        &self.sens.st
    }

    /// Stage sensitivities `(∂Y_i/∂p, ∂Z_i/∂p)` of the last accepted step (zero before the
    /// first step or if sensitivities are disabled), total derivatives including the step's
    /// length and start-time dependence; integral-cost gradients use them (`cost.rs`).
    #[allow(clippy::type_complexity)]
    pub fn stage_sensitivities(&self) -> (&[[[f64; NP]; NY]; S], &[[[f64; NP]; NZ]; S]) {
        (&self.sens.stage_sy, &self.sens.stage_sz)
    }

    /// `(∂t_n/∂p, ∂H/∂p)` of the last accepted step: its start time `t_n` and length `H`
    /// (stage times `T_i = t_n + c_i H`); integral-cost gradients use them (`cost.rs`).
    pub fn step_time_sensitivities(&self) -> (&[f64; NP], &[f64; NP]) {
        (&self.sens.step_dt, &self.sens.step_dh)
    }

    /// The H-direction `(∂Y_i/∂H, ∂Z_i/∂H)` of the last accepted step (module docs); valid
    /// after a step of [`super::StepLength::Event`] (or a `Landing` step from a shifted start).
    #[allow(clippy::type_complexity)]
    pub fn step_length_direction(&self) -> (&[[f64; NY]; S], &[[f64; NZ]; S]) {
        (&self.sens.stage_yh, &self.sens.stage_zh)
    }

    /// Whether sensitivities are enabled.
    pub fn sensitivities_enabled(&self) -> bool {
        self.fsa
    }

    /// Adds `Φ_H ∂H/∂p` to the stage and end sensitivities of the last accepted step and
    /// `∂H/∂p` to the grid shift (module docs, "Step length"): the step length of the last
    /// step, accepted as [`super::StepLength::Event`], is `H + dh·δp` to first order. Call once,
    /// right after the commit.
    pub fn apply_step_length_derivative(&mut self, dh: &[f64; NP]) -> Result<(), SolveError> {
        if !all_finite(dh) {
            return Err(self.err_nonfinite("step length sensitivity"));
        }
        let before = self.sens;
        for q in 0..NP {
            for i in 0..S {
                for c in 0..NY {
                    self.sens.stage_sy[i][c][q] += self.sens.stage_yh[i][c] * dh[q];
                }
                for c in 0..NZ {
                    self.sens.stage_sz[i][c][q] += self.sens.stage_zh[i][c] * dh[q];
                }
            }
            for c in 0..NY {
                self.sens.sy[c][q] = self.sens.stage_sy[S - 1][c][q];
            }
            for c in 0..NZ {
                self.sens.sz[c][q] = self.sens.stage_sz[S - 1][c][q];
            }
            self.sens.st[q] += dh[q];
            self.sens.step_dh[q] += dh[q];
        }
        let s = &self.sens;
        if !s.stage_sy.iter().all(|y| y.iter().all(all_finite))
            || !s.stage_sz.iter().all(|z| z.iter().all(all_finite))
            || !all_finite(&s.st)
        {
            self.sens = before;
            return Err(self.err_nonfinite("sensitivities"));
        }
        Ok(())
    }

    /// Propagates the sensitivities over the accepted step of size `h` whose stages are in
    /// the stage storage and whose iteration matrix is factorized in `self.lu` (module docs).
    /// Returns the WRMS norm of the sensitivities' local error estimate if
    /// [`crate::Options::sensitivity_error_test`] is set (else 0).
    pub(super) fn propagate_sensitivities(
        &mut self,
        h: f64,
        length: StepLength,
    ) -> Result<f64, SolveError> {
        let tab = self.tableau;
        let shifted = self.sens.st.iter().any(|x| *x != 0.0);
        let need_h = match length {
            StepLength::Fixed => false,
            StepLength::Landing => shifted,
            StepLength::Event => true,
        };
        let need_t = shifted || need_h;
        // A new step: its stage matrices are factorized on first use.
        self.stage_lu_valid = [false; S];
        // Jacobians at every stage point.
        let mut jac = [ModeJacobian::<NY, NZ>::ZERO; S];
        let mut fp = [[[0.0; NP]; NY]; S];
        let mut gp = [[[0.0; NP]; NZ]; S];
        let mut ft = [[0.0; NY]; S];
        let mut gt = [[0.0; NZ]; S];
        for i in 0..S {
            let ti = self.t + tab.c[i] * h;
            let (y, z) = (&self.ys[i], &self.zs[i]);
            if self.linear {
                jac[i] = self.jac;
            } else {
                self.model.jacobian(ti, y, z, &self.p, &mut jac[i]);
            }
            self.model
                .parameter_jacobian(ti, y, z, &self.p, &mut fp[i], &mut gp[i]);
            if need_t {
                self.model
                    .time_partials(ti, y, z, &self.p, &mut ft[i], &mut gt[i]);
            }
            self.stats.sensitivity_jacobian_evals += 1;
        }
        let partials = StagePartials {
            jac: &jac,
            ft: &ft,
            gt: &gt,
        };
        let (sy, sz, st) = (self.sens.sy, self.sens.sz, self.sens.st);
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
        let error = if self.opts.sensitivity_error_test {
            self.sensitivity_error(h, &mut err, &dy[S - 1])
        } else {
            0.0
        };
        if !dy[S - 1].iter().all(all_finite) || !dz[S - 1].iter().all(all_finite) {
            return Err(self.err_nonfinite("sensitivities"));
        }
        // Nothing above changed `self.sens`. What follows can fail only for landing and event
        // steps (the H-direction and ∂H/∂p), after the new values are in place; `accept`
        // restores the previous ones then.
        self.sens.stage_sy = dy;
        self.sens.stage_sz = dz;
        self.sens.sy = dy[S - 1];
        self.sens.sz = dz[S - 1];
        self.sens.step_dt = self.sens.st;
        self.sens.step_dh = [0.0; NP];
        if need_h {
            self.step_length_column(h, &partials)?;
        }
        if length == StepLength::Landing && shifted {
            // H = t_target − t_n: ∂H/∂p = −∂t_n/∂p.
            let mut dh = [0.0; NP];
            for q in 0..NP {
                dh[q] = -self.sens.st[q];
            }
            self.apply_step_length_derivative(&dh)?;
            // Exactly on the fixed target (not merely at round-off of it).
            self.sens.st = [0.0; NP];
        }
        Ok(error)
    }

    /// The sensitivities of the step of size `h` just computed (the stage storage), without
    /// changing the integrator's: the new [`Sensitivities`] and their error estimate (see
    /// [`Esdirk::propagate_sensitivities`]). For the error test of [`Esdirk::try_step`].
    pub(super) fn sensitivity_step(
        &mut self,
        h: f64,
        length: StepLength,
    ) -> Result<(Sensitivities<S, NY, NZ, NP>, f64), SolveError> {
        let current = self.sens;
        let result = self.propagate_sensitivities(h, length);
        let next = core::mem::replace(&mut self.sens, current);
        result.map(|error| (next, error))
    }

    /// WRMS norm of the sensitivities' local error estimate `err` (`h Σ d_j dF_j` per column,
    /// overwritten), filtered through the step's iteration matrix like the states' estimate
    /// (`esdirk.rs`, note 003_004 §7.2 P9) and weighted with the states' tolerances on
    /// `max(|s_n|, |s_{n+1}|)` (`s_new` = the new columns `S_{n+1}`).
    ///
    /// The test is on the sensitivities the caller sees, `s(t) = ∂y(t)/∂p` at fixed `t`. On a
    /// grid shifted by an event the columns are the total derivatives `S = s + ẏ ∂t_n/∂p`
    /// (module docs), so the partial sensitivities are `s = S − F st` (`F` = `F_1` at the
    /// start, `F_S` at the end of the step, `st` = the grid shift), and their error is
    /// `err_S − st · δF`, where `δF = (ẽ − e)/(hγ)` is the change of `ẏ` caused by the states'
    /// error: with `M [ẽ; ζ] = [e; 0]`, `ẽ − hγ (f_y ẽ + f_z ζ) = e` and `g_y ẽ + g_z ζ = 0`,
    /// so `(ẽ − e)/(hγ)` is `f` differentiated along the consistent error direction `(ẽ, ζ)`.
    /// Without that term the states' error, which the state test bounds only relative to
    /// `|y|`, leaks unchecked into `s`: Ex. 5.1 at rtol 1e-8 gave `∂x(5)/∂p` to 4.5e-6 relative,
    /// from `5 − x(5)` (≈ 1e-3, known to 2e-6 relative) times `∂t_3/∂p`.
    fn sensitivity_error(
        &mut self,
        h: f64,
        err: &mut [[f64; NP]; NY],
        s_new: &[[f64; NP]; NY],
    ) -> f64 {
        let filtered = self.lu_h == h;
        if filtered {
            let mut r = [[0.0; NP]; N];
            r[..NY].copy_from_slice(err);
            self.lu.solve_columns(&mut r);
            self.stats.lu_solves += NP;
            err.copy_from_slice(&r[..NY]);
        }
        let st = self.sens.st;
        let mut s_old = self.sens.sy;
        let mut s_new = *s_new;
        if st.iter().any(|x| *x != 0.0) {
            let (f_old, f_new) = (self.fs[0], self.fs[S - 1]);
            let mut df = [0.0; NY];
            if filtered {
                let (raw, state_err) = self.state_error_estimate(h);
                let hg = h * self.tableau.gamma;
                for c in 0..NY {
                    df[c] = (state_err[c] - raw[c]) / hg;
                }
            }
            for c in 0..NY {
                for q in 0..NP {
                    s_old[c][q] -= f_old[c] * st[q];
                    s_new[c][q] -= f_new[c] * st[q];
                    err[c][q] -= df[c] * st[q];
                }
            }
        }
        let mut sum = 0.0;
        for c in 0..NY {
            for q in 0..NP {
                let w = self.opts.atol_y[c]
                    + self.opts.rtol_y[c] * s_old[c][q].abs().max(s_new[c][q].abs());
                let v = err[c][q] / w;
                sum += v * v;
            }
        }
        rms(sum, NY * NP)
    }

    /// The H-direction `Φ_H = ∂(Y_i, Z_i)/∂H` of the step of size `h` (module docs): the step
    /// derivative in the direction `dH = 1` without parameter source, stored in
    /// `stage_yh`, `stage_zh`.
    fn step_length_column(
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
        self.sens.stage_yh = yh;
        self.sens.stage_zh = zh;
        Ok(())
    }

    /// The derivative of the step map of size `h` (module docs) in the `K` directions of
    /// `cols`: stage derivatives `(dY_i, dZ_i)` into `dy`, `dz`.
    fn step_derivative<const K: usize>(
        &mut self,
        h: f64,
        partials: &StagePartials<'_, S, NY, NZ>,
        cols: &StepColumns<'_, S, NY, NZ, K>,
        dy: &mut [[[f64; K]; NY]; S],
        dz: &mut [[[f64; K]; NZ]; S],
        err: &mut [[f64; K]; NY],
    ) -> Result<(), SolveError> {
        let tab = self.tableau;
        let hg = h * tab.gamma;
        let dh = cols.dh;
        // hdf[j] = H dF_j, the stage derivatives scaled as they enter dψ and the estimate.
        let mut hdf = [[[0.0; K]; NY]; S];
        dy[0] = *cols.dy;
        dz[0] = *cols.dz;
        // dF_1 = f_y dY_1 + f_z dZ_1 + f_t dt_n + f_p
        let j0 = &partials.jac[0];
        for r in 0..NY {
            let mut v = cols.src_f[0][r];
            for q in 0..K {
                v[q] += partials.ft[0][r] * cols.dt[q];
            }
            for c in 0..NY {
                for q in 0..K {
                    v[q] += j0.fy[r][c] * dy[0][c][q];
                }
            }
            for c in 0..NZ {
                for q in 0..K {
                    v[q] += j0.fz[r][c] * dz[0][c][q];
                }
            }
            for q in 0..K {
                hdf[0][r][q] = h * v[q];
            }
        }
        for i in 1..S {
            // dψ_i = dy_n + Σ_j a_ij (dH F_j + H dF_j)
            let mut dpsi = dy[0];
            for j in 0..i {
                let a = tab.a[i][j];
                for c in 0..NY {
                    for q in 0..K {
                        dpsi[c][q] += a * hdf[j][c][q];
                    }
                }
            }
            // The dH terms: dH Σ_j a_ij F_j in dψ_i and γ dH F_i on the right-hand side
            // (zero for the parameter columns).
            let mut shift = [0.0; NY];
            if dh != 0.0 {
                for c in 0..NY {
                    let mut sum = 0.0;
                    for j in 0..i {
                        sum += tab.a[i][j] * self.fs[j][c];
                    }
                    for q in 0..K {
                        dpsi[c][q] += dh * sum;
                    }
                    shift[c] = tab.gamma * dh * self.fs[i][c];
                }
            }
            let mut dti = *cols.dt;
            for q in 0..K {
                dti[q] += tab.c[i] * dh;
            }
            // J_i [dY_i; dZ_i] = [dψ_i + γ dH F_i + Hγ (f_t dT_i + f_p); −(g_t dT_i + g_p)]
            let mut x = [[0.0; K]; N];
            for c in 0..NY {
                for q in 0..K {
                    x[c][q] = dpsi[c][q]
                        + shift[c]
                        + hg * (partials.ft[i][c] * dti[q] + cols.src_f[i][c][q]);
                }
            }
            for c in 0..NZ {
                for q in 0..K {
                    x[NY + c][q] = -(partials.gt[i][c] * dti[q] + cols.src_g[i][c][q]);
                }
            }
            self.solve_stage(&partials.jac[i], h, &mut x, i)?;
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

    /// Solves `J_i X = B` (the `K` columns of `x`, overwritten) with the exact stage matrix
    /// `J_i = [I − hγ f_y, −hγ f_z; g_y, g_z]` at the converged stage `i` (from `jac`). `J_i`
    /// is factorized once per step, on first use, and reused by every direction (the parameter
    /// columns and the step-length direction): the sensitivities are the derivative of the
    /// *exactly* solved stage equations, so a direct, backward-stable solve is what they need.
    /// (Refinement against the step's Newton LU was used before: it stalls when `hγ` is large
    /// — Robertson towards t = 4e10, cond(J) ≈ 1e10 — and cost more than the factorization for
    /// small systems.) With a constant Jacobian every `J_i` is the step's iteration matrix,
    /// whose factorization for this `h` is reused.
    fn solve_stage<const K: usize>(
        &mut self,
        jac: &ModeJacobian<NY, NZ>,
        h: f64,
        x: &mut [[f64; K]; N],
        stage: usize,
    ) -> Result<(), SolveError> {
        let failure = SolveError::NewtonFailure {
            t: self.t,
            mode: self.mode,
            h,
            stage,
        };
        if self.linear && self.lu_h == h {
            self.lu.solve_columns(x);
        } else {
            let (Some(lu), Some(valid)) = (
                self.stage_lus.get_mut(stage),
                self.stage_lu_valid.get_mut(stage),
            ) else {
                return Err(failure);
            };
            if !*valid {
                *lu = Lu::factor(stage_matrix(jac, h * self.tableau.gamma)).map_err(|_| failure)?;
                *valid = true;
                self.stats.lu_factorizations += 1;
            }
            lu.solve_columns(x);
        }
        self.stats.lu_solves += K;
        self.stats.sensitivity_solves += K;
        if x.iter().all(all_finite) {
            Ok(())
        } else {
            Err(failure)
        }
    }
}

/// The stage matrix `[I − hγ f_y, −hγ f_z; g_y, g_z]` of a semi-explicit index-1 DAE (note
/// 003_004 §2.1), rows `f` then `g`, columns `y` then `z`.
fn stage_matrix<const NY: usize, const NZ: usize, const N: usize>(
    jac: &ModeJacobian<NY, NZ>,
    hg: f64,
) -> [[f64; N]; N] {
    let mut m = [[0.0; N]; N];
    for r in 0..NY {
        for c in 0..NY {
            m[r][c] = -hg * jac.fy[r][c];
        }
        m[r][r] += 1.0;
        for c in 0..NZ {
            m[r][NY + c] = -hg * jac.fz[r][c];
        }
    }
    for r in 0..NZ {
        for c in 0..NY {
            m[NY + r][c] = jac.gy[r][c];
        }
        for c in 0..NZ {
            m[NY + r][NY + c] = jac.gz[r][c];
        }
    }
    m
}
