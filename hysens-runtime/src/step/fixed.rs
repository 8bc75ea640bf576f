//! Steps of a given size without error control: fixed-step integration and the replay of a
//! frozen step sequence (the hybrid driver's `StepPlan::Replay` and its event polishing).

use super::attempt::Attempt;
use super::{positive_finite, Esdirk, JacState, StepLength, StepRecord};
use crate::error::SolveError;
use crate::model::SmoothMode;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Esdirk<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
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

    /// Takes one step of exactly size `h > 0` without error control (fixed-step mode, as in Christensen, Cantisani & Jørgensen;
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
