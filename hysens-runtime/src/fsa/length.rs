//! The step length: the direction `Φ_H = ∂(Y_i, Z_i)/∂H`, the application of `∂H/∂p` (module
//! docs of `fsa/`, "Step length"), and `∂H/∂p` of a step that ends at an event, which gives
//! the event time's sensitivity `τ`. The transposes are in `adjoint/length.rs`.
//!
//! **The event step.** The hybrid driver ends the step from `(t_n, y_n, z_n)` exactly at the
//! root of the guard on the discrete solution: `t* = t_n + H` with
//! `h(t*, Φ_y(t_n, y_n, z_n, H, p), Φ_z(…), p, m) = 0`. Its sensitivities are first propagated
//! with `∂H/∂p = 0` (`StepLength::Event`), giving the end sensitivities `S = dY_S`,
//! `W = dZ_S` (which already carry the grid shift `dt_n = ∂t_n/∂p` of the step's start), and
//! the H-direction `Φ_H = ∂Y_S/∂H`, `Z_H = ∂Z_S/∂H`. Differentiating the root condition
//! (all partials at the end of the step, `t*⁻`, in the mode being left, with its memory
//! `m⁻ = (y*, z*)` and memory sensitivities `(s*, w*)`):
//!
//! ```text
//! h_t (dt_n + dH) + h_y (S + Φ_H dH) + h_z (W + Z_H dH) + h_p + h_{y*} s* + h_{z*} w* = 0
//! dH = −(h_t dt_n + h_y S + h_z W + h_p + h_{y*} s* + h_{z*} w*) / (h_t + h_y Φ_H + h_z Z_H)
//! τ  = dt*/dp = dt_n + dH
//! ```
//!
//! ([`event_step_length_derivative`]: the discrete counterpart of Serban & Recuero 2019,
//! Eq. 6b, whose denominator is the transversality quantity `ḣ⁻` of their Eq. 4). The total
//! pre-event sensitivities are then `s⁻ = S + Φ_H dH`, `w⁻ = W + Z_H dH`
//! (`Esdirk::apply_step_length_derivative`), and the step's cost quadrature is differentiated
//! with the same `dH` (`fsa/cost.rs`).
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::step::{StageJacobians, StagePartials, StepColumns};
use super::{Following, ModeIntegrator};
use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::model::{
    event_guard_partials, HybridModel, ModeJacobian, Point, ScalarPartials, SmoothMode,
};

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
            nonzeros: self.step.model.jacobian_nonzeros(),
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
    pub(super) fn stage_jacobians(
        &mut self,
        tn: f64,
        h: f64,
    ) -> StageJacobians<S, NY, NZ, M::Store> {
        let tab = self.step.tableau;
        self.fsa.stage_lu_valid = [false; S];
        // One Jacobian per stage used (the statistic counts stages, constant or not).
        self.step.stats.sensitivity_jacobian_evals += S;
        if self.step.matrix.linear {
            // With the heap storages the clone shares the allocation (`linalg/heap.rs`).
            return StageJacobians::Constant(self.step.matrix.jac.clone());
        }
        let mut jac: [ModeJacobian<NY, NZ, M::Store>; S] =
            core::array::from_fn(|_| ModeJacobian::zeroed());
        for (i, jac) in jac.iter_mut().enumerate() {
            let ti = tn + tab.c[i] * h;
            let (y, z) = (&self.step.stages.ys[i], &self.step.stages.zs[i]);
            self.step.model.jacobian(ti, y, z, &self.step.p, jac);
        }
        StageJacobians::Each(jac)
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
        jac: &StageJacobians<S, NY, NZ, M::Store>,
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
            self.solve_stage(jac.stage(i), h, &mut x, i)?;
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
        partials: &StagePartials<'_, S, NY, NZ, M::Store>,
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

/// The H-direction and partial step sensitivities of an event step (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventStep<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// `S = dY_S` propagated with `∂H/∂p = 0`.
    pub sy: &'a [[f64; NP]; NY],
    /// `W = dZ_S` propagated with `∂H/∂p = 0`.
    pub sz: &'a [[f64; NP]; NZ],
    /// `Φ_H = ∂Y_S/∂H`.
    pub yh: &'a [f64; NY],
    /// `Z_H = ∂Z_S/∂H`.
    pub zh: &'a [f64; NZ],
    /// Grid shift `∂t_n/∂p` of the step's start.
    pub dt: &'a [f64; NP],
    /// Memory sensitivities `s*` of the mode being left.
    pub memory_sy: &'a [[f64; NP]; NY],
    /// Memory sensitivities `w*`.
    pub memory_sz: &'a [[f64; NP]; NZ],
}

/// Derivative of the event step's length (module docs): returns
/// `(∂H/∂p, h_t + h_y Φ_H + h_z Z_H)`, with the guard partials at `at` (the end of the
/// event step, `t*⁻`). Then `τ = ∂t_n/∂p + ∂H/∂p`.
///
/// Errors: [`SolveError::GrazingEvent`] if the denominator is zero,
/// [`SolveError::NonFiniteValue`] if anything is not finite.
pub(crate) fn event_step_length_derivative<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    step: &EventStep<'_, NY, NZ, NP>,
) -> Result<([f64; NP], f64), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut hp = ScalarPartials::ZERO;
    event_guard_partials(model, guard, mode, at, &mut hp)
        .map_err(|e| SolveError::from_lu(e, at.t, mode, "H_z"))?;
    let den = hp.rate(step.yh, step.zh);
    if !den.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "guard rate at an event",
        });
    }
    if den == 0.0 {
        return Err(SolveError::GrazingEvent {
            t: at.t,
            mode,
            guard,
        });
    }
    let mut dh = [0.0; NP];
    for q in 0..NP {
        let mut v = hp.p[q] + hp.t * step.dt[q];
        for c in 0..NY {
            v += hp.y[c] * step.sy[c][q] + hp.memory_y[c] * step.memory_sy[c][q];
        }
        for c in 0..NZ {
            v += hp.z[c] * step.sz[c][q] + hp.memory_z[c] * step.memory_sz[c][q];
        }
        dh[q] = -v / den;
    }
    if !all_finite(&dh) {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "event time sensitivity",
        });
    }
    Ok((dh, den))
}

impl<
        'i,
        'm,
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
    > ModeIntegrator<'i, 'm, M, S, NY, NZ, NP, N>
where
    M: HybridModel<NY, NZ, NP>,
{
    /// `τ = dt*/dp` of the event step of `guard` just accepted as
    /// [`crate::StepLength::Event`]: solves the differentiated root condition for `∂H/∂p`
    /// ([`event_step_length_derivative`]) and applies it to the step's sensitivities
    /// ([`ModeIntegrator::apply_step_length_derivative`]), which completes them.
    pub(crate) fn event_time_sensitivity(&mut self, guard: usize) -> Result<[f64; NP], SolveError> {
        let adapter = self.step.model;
        // In an index-2 mode the guard reads z on the hidden constraint (`model/event_guard.rs`),
        // as the event was located (`events/polish.rs`).
        let z = match adapter.is_index2() {
            true => {
                let (t, y, z) = (self.step.t, self.step.y, self.step.z);
                self.step.on_hidden_constraint(t, &y, z)?
            }
            false => *self.z(),
        };
        let (memory_sy, memory_sz) = adapter.memory_sensitivities();
        let (sy, sz) = self.sensitivities();
        let (yh, zh) = self.step_length_direction();
        let step = EventStep {
            sy,
            sz,
            yh: &yh[S - 1],
            zh: &zh[S - 1],
            dt: self.time_sensitivity(),
            memory_sy,
            memory_sz,
        };
        let at = adapter.point(self.t(), self.y(), &z, &self.step.p);
        let (dh, _) =
            event_step_length_derivative(adapter.model(), guard, adapter.mode(), &at, &step)?;
        self.apply_step_length_derivative(&dh)?;
        Ok(*self.time_sensitivity())
    }
}
