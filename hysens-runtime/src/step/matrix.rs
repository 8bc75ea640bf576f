//! The iteration matrix `M = [I − hγ f_y, −hγ f_z; g_y, g_z]` of a step and the Jacobian it is
//! built from (Kristensen et al. 2005, Algorithm 1; Christensen, Cantisani & Jørgensen, Eq. 7,
//! in their unscaled form).
//!
//! **Jacobian reuse.** After an accepted step the Jacobian is kept for the next step if the
//! worst contraction rate of the step (`θ_1` included) was at most `jacobian_reuse_rate`; the LU
//! is refactorized whenever `h` changes. If the Newton iteration fails with an old Jacobian, the
//! Jacobian is re-evaluated and the step retried with the same `h`; with a fresh Jacobian `h` is
//! reduced (by 1/4 on divergence, 1/2 on slow convergence). (Leaving `θ_1` out of the reuse
//! decision, measured on the run above: 47 instead of 122 Jacobians but 4469 instead of 3306
//! `f` evaluations.)
//!

use super::Stepper;
use crate::error::SolveError;
use crate::linalg::{Lu, LuError, StageFactors};
use crate::model::{MatrixStore, ModeJacobian, SmoothMode};

/// State of the stored Jacobian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JacState {
    /// Never evaluated, or must be re-evaluated before the next attempt.
    Invalid,
    /// Evaluated at the current `(t, y, z)`.
    Fresh,
    /// Evaluated at an earlier accepted point.
    Stale,
}

/// The point `(t, y, z)` a Jacobian was evaluated at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct JacobianPoint<const NY: usize, const NZ: usize> {
    pub t: f64,
    pub y: [f64; NY],
    pub z: [f64; NZ],
}

/// The Jacobian, the LU factors of the iteration matrix and the Newton contraction rates that
/// decide on reusing them (module docs).
#[derive(Clone, Debug)]
pub(crate) struct IterationMatrix<const NY: usize, const NZ: usize, const N: usize, St>
where
    St: MatrixStore,
{
    /// `f_y, f_z, g_y, g_z` at the point of [`IterationMatrix::state`].
    pub jac: ModeJacobian<NY, NZ, St>,
    /// Where `jac` was evaluated (a checkpoint keeps the point, not the matrix:
    /// `snapshot.rs`).
    pub at: JacobianPoint<NY, NZ>,
    /// Whether `jac` belongs to the current point.
    pub state: JacState,
    /// The model's Jacobian is constant ([`SmoothMode::jacobian_is_constant`]).
    pub linear: bool,
    /// LU factors of `M`.
    pub lu: Lu<N, St>,
    /// Step size the LU was factorized for (NaN: no valid factorization).
    pub lu_h: f64,
    /// Worst Newton contraction rate of the last accepted step.
    pub theta_last: f64,
    /// Worst Newton contraction rate of the current attempt.
    pub theta_step: f64,
}

impl<const NY: usize, const NZ: usize, const N: usize, St> IterationMatrix<NY, NZ, N, St>
where
    St: MatrixStore,
{
    /// Nothing evaluated yet.
    pub(crate) fn new(linear: bool) -> Self {
        IterationMatrix {
            jac: ModeJacobian::zeroed(),
            at: JacobianPoint {
                t: f64::NAN,
                y: [0.0; NY],
                z: [0.0; NZ],
            },
            state: JacState::Invalid,
            linear,
            lu: StageFactors::identity(),
            lu_h: f64::NAN,
            theta_last: 0.0,
            theta_step: 0.0,
        }
    }

    /// State of the Jacobian once the point it was evaluated at is left behind: stale, or
    /// still exact for a constant Jacobian.
    pub(crate) fn after_step(&self) -> JacState {
        if self.linear {
            JacState::Fresh
        } else {
            JacState::Stale
        }
    }

    /// Whether the Jacobian must be evaluated before the next attempt: never evaluated or
    /// invalidated, or stale after a step whose worst contraction rate exceeded `reuse_rate`.
    pub(crate) fn needs_jacobian(&self, reuse_rate: f64) -> bool {
        match self.state {
            JacState::Invalid => true,
            JacState::Fresh => false,
            JacState::Stale => self.theta_last > reuse_rate,
        }
    }

    /// Bookkeeping after an accepted step: its worst contraction rate decides on the reuse of
    /// the Jacobian, which is left behind.
    #[inline]
    pub(crate) fn accepted(&mut self) {
        self.theta_last = self.theta_step;
        self.state = self.after_step();
    }
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Evaluates the Jacobian if [`IterationMatrix::needs_jacobian`].
    pub(super) fn prepare_jacobian(&mut self) -> Result<(), SolveError> {
        if self.matrix.needs_jacobian(self.opts.jacobian_reuse_rate) {
            self.eval_jacobian()?;
        }
        Ok(())
    }

    pub(crate) fn lu_error(&self, e: LuError) -> SolveError {
        SolveError::from_lu(e, self.t, self.mode, "iteration matrix")
    }

    pub(super) fn eval_jacobian(&mut self) -> Result<(), SolveError> {
        self.matrix.at = JacobianPoint {
            t: self.t,
            y: self.y,
            z: self.z,
        };
        self.matrix.jac.clear();
        self.model
            .jacobian(self.t, &self.y, &self.z, &self.p, &mut self.matrix.jac);
        self.stats.jacobian_evals += 1;
        if !self.matrix.jac.is_finite() {
            self.matrix.state = JacState::Invalid;
            return Err(self.err_nonfinite("Jacobian"));
        }
        self.matrix.state = JacState::Fresh;
        self.matrix.lu_h = f64::NAN;
        Ok(())
    }

    /// Builds and factorizes `M = [I − hγ f_y, −hγ f_z; g_y, g_z]` unless already done for `h`.
    pub(super) fn factor(&mut self, h: f64) -> Result<(), LuError> {
        if self.matrix.lu_h == h {
            return Ok(());
        }
        let hg = h * self.tableau.gamma;
        self.stats.lu_factorizations += 1;
        match self.matrix.jac.refactor_stage_matrix(
            hg,
            &mut self.matrix.lu,
            self.model.jacobian_nonzeros(),
        ) {
            Ok(()) => {
                self.matrix.lu_h = h;
                Ok(())
            }
            Err(e) => {
                self.matrix.lu_h = f64::NAN;
                Err(e)
            }
        }
    }
}
