//! The integrator's state between two accepted steps, as a value: what a checkpoint of the
//! adjoint's tape keeps so that a solve resumed from it repeats the original steps bit for bit
//! (`adjoint/checkpoint.rs`).
//!
//! Everything that decides the next steps is kept: the accepted point, the controller history,
//! the Jacobian's reuse state and the contraction rates, the last stages, the integral cost
//! accumulated for its error test (`Options::cost_error_test`) and the counters.
//! Neither the Jacobian nor the LU factors of the iteration matrix are kept, only the point
//! the Jacobian was evaluated at and the step size the LU was built for: both are deterministic
//! functions of these (the model's Jacobian of the same point; `matrix.rs`), so
//! [`Stepper::restore`] rebuilds the very same matrices, bit for bit, and a checkpoint costs
//! `O(N)` storage instead of `O(N²)`. The forward sensitivities are not kept (the adjoint's
//! forward pass runs without them).

use super::controller::StepControl;
use super::{IterationMatrix, JacState, JacobianPoint, Stages, Stepper};
use crate::error::SolveError;
use crate::model::SmoothMode;
use crate::options::Options;
use crate::stats::Stats;
use crate::tableau::Tableau;

/// The state of an [`Stepper`] between accepted steps, without its LU factors and forward
/// sensitivities (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntegratorSnapshot<const S: usize, const NY: usize, const NZ: usize> {
    t: f64,
    y: [f64; NY],
    z: [f64; NZ],
    stats: Stats,
    control: StepControl,
    jac_at: JacobianPoint<NY, NZ>,
    jac_state: JacState,
    lu_h: f64,
    theta_last: f64,
    theta_step: f64,
    stages: Stages<S, NY, NZ>,
    quadrature: f64,
}

impl<const S: usize, const NY: usize, const NZ: usize> IntegratorSnapshot<S, NY, NZ> {
    /// The time of the accepted point it holds.
    pub(crate) fn t(&self) -> f64 {
        self.t
    }

    /// All zero (to initialize storage).
    pub(crate) const ZERO: Self = IntegratorSnapshot {
        t: 0.0,
        y: [0.0; NY],
        z: [0.0; NZ],
        stats: Stats::ZERO,
        control: StepControl::new(0.0),
        jac_at: JacobianPoint {
            t: f64::NAN,
            y: [0.0; NY],
            z: [0.0; NZ],
        },
        jac_state: JacState::Invalid,
        lu_h: f64::NAN,
        theta_last: 0.0,
        theta_step: 0.0,
        stages: Stages::ZERO,
        quadrature: 0.0,
    };
}

impl<'m, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'m, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// The state to resume from (module docs).
    pub(crate) fn snapshot(&self) -> IntegratorSnapshot<S, NY, NZ> {
        IntegratorSnapshot {
            t: self.t,
            y: self.y,
            z: self.z,
            stats: self.stats,
            control: self.control,
            jac_at: self.matrix.at,
            jac_state: self.matrix.state,
            lu_h: self.matrix.lu_h,
            theta_last: self.matrix.theta_last,
            theta_step: self.matrix.theta_step,
            stages: self.stages,
            quadrature: self.quadrature,
        }
    }

    /// The integrator of `snapshot`, for the same model, tableau, mode, parameters and options
    /// as the one it was taken from: its next steps are those the original took. Rebuilds the
    /// Jacobian and the LU factors the original held (not counted in the statistics, which are
    /// the snapshot's); a Jacobian to be re-evaluated anyway (`JacState::Invalid`) is not.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn restore(
        model: &'m M,
        tableau: &'m Tableau<S>,
        mode: usize,
        p: [f64; NP],
        opts: Options<NY, NZ>,
        snapshot: &IntegratorSnapshot<S, NY, NZ>,
    ) -> Result<Self, SolveError> {
        let mut matrix = IterationMatrix::new(model.jacobian_is_constant());
        let at = snapshot.jac_at;
        if snapshot.jac_state != JacState::Invalid {
            matrix.jac.clear();
            model.jacobian(at.t, &at.y, &at.z, &p, &mut matrix.jac);
        }
        matrix.at = at;
        matrix.state = snapshot.jac_state;
        matrix.theta_last = snapshot.theta_last;
        matrix.theta_step = snapshot.theta_step;
        let mut it = Stepper {
            model,
            tableau,
            p,
            mode,
            opts,
            t: snapshot.t,
            y: snapshot.y,
            z: snapshot.z,
            stats: snapshot.stats,
            control: snapshot.control,
            matrix,
            stages: snapshot.stages,
            quadrature: snapshot.quadrature,
        };
        if snapshot.lu_h.is_finite() && snapshot.jac_state != JacState::Invalid {
            it.factor(snapshot.lu_h).map_err(|e| it.lu_error(e))?;
        }
        it.stats = snapshot.stats;
        Ok(it)
    }
}
