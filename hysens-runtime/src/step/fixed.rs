//! Steps of a given size without error control: fixed-step integration and the replay of a
//! frozen step sequence (the hybrid driver's `StepPlan::Replay` and its event polishing).

use super::attempt::Attempt;
use super::{positive_finite, JacState, Stepper};
use crate::error::SolveError;
use crate::model::SmoothMode;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Computes one step of exactly size `h > 0` from the current state without error control
    /// and without accepting it (fills the stage storage; returns the WRMS error estimate). The
    /// Jacobian policy is that of [`Stepper::integrate_to`]; on a Newton failure with a stale
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
            self.prepare_jacobian()?;
            if let Err(e) = self.factor(h) {
                if self.matrix.state == JacState::Stale {
                    self.matrix.state = JacState::Invalid;
                    continue;
                }
                return Err(self.lu_error(e));
            }
            match self.attempt(h)? {
                Attempt::Done { error } => {
                    self.stages.computed = Some((h, error));
                    return Ok(error);
                }
                Attempt::NewtonFailed { stage: s, .. } => {
                    self.stats.newton_failures += 1;
                    stage = s;
                    if self.matrix.state == JacState::Stale {
                        self.matrix.state = JacState::Invalid;
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

    /// Computes (does not accept) a step of a size `h` within round-off of zero (at most
    /// `16 ε |t|`: the landing on a stop time a few ulps ahead, after an event; or exactly
    /// zero: the step to an event at a mode's entry, `hybrid/entry.rs`), whose stages
    /// Newton's method cannot resolve: `Y_i − ψ_i` is round-off, so the recovery
    /// `F_i = (Y_i − ψ_i)/(hγ)` would be noise of the size of `f`. The stages are taken as
    /// the explicit Euler stages `Y_i = y_n + c_i h F_1`, `Z_i = z_n`, `F_i = F_1 = f(t_n, y_n,
    /// z_n)`, which satisfy every stage equation to `O(h²)`, far below round-off; the step's
    /// forward sensitivities (the exact stage equations differentiated at these stages, with
    /// the H-direction `Σ b_i F_i = F_1`) and its error estimate (zero) follow as for any step.
    pub(crate) fn evaluate_roundoff(&mut self, h: f64) -> Result<f64, SolveError> {
        // No Newton here, but the sensitivities of a mode with a constant Jacobian use the
        // stored one (`fsa/step.rs`).
        self.prepare_jacobian()?;
        let mut f1 = [0.0; NY];
        self.model.f(self.t, &self.y, &self.z, &self.p, &mut f1);
        self.stats.f_evals += 1;
        if !crate::linalg::all_finite(&f1) {
            return Err(self.err_nonfinite("f"));
        }
        for i in 0..S {
            let ch = self.tableau.c[i] * h;
            for (y, (yn, f)) in self.stages.ys[i].iter_mut().zip(self.y.iter().zip(&f1)) {
                *y = yn + ch * f;
            }
            self.stages.zs[i] = self.z;
            self.stages.fs[i] = f1;
            self.stages.iters[i] = 0;
        }
        self.stages.refined = false;
        // The quadrature of a step of round-off size is below round-off of `Q_n`.
        self.stages.quadrature = 0.0;
        self.stages.computed = Some((h, 0.0));
        Ok(0.0)
    }
}
