//! The end of a step in a Hessenberg index-2 mode (Serban & Recuero 2019, §3.3, Eq. 15).
//!
//! The stages solve `0 = k(t, Y_i, p)`, so `y_{n+1} = Y_S` lies on the constraint, but the
//! algebraic stage values are only as accurate as the method's stage order: measured on a point
//! held on a circle (`tests/index2_modes.rs`, in a variant where `z = c` on the circle), `Z_S`
//! converged at order ≈ 2 in the step size and its sensitivity at ≈ 1.9 while `y` kept the
//! method's order (at rtol 1e-8: `z` off by 1.5e-7, `∂z/∂ω` by 6.1e-6, `y` by 1e-8). `z` is a function of `y` through
//! the hidden constraint `H = k_y f + k_t = 0`, so the accepted step's `z_{n+1}` is taken from
//! it instead: Newton on `H(t_{n+1}, y_{n+1}, z) = 0` from `Z_S`, and with sensitivities
//! `w_{n+1} = −H_z⁻¹ (H_y s_{n+1} + H_p + H_t ∂t_{n+1}/∂p)`, the exact derivative of that
//! map (`fsa/start.rs`). It is part of the scheme: the next step's explicit first stage
//! `F_1 = f(y_n, z_n)` then reads the consistent `z_n`. With it, `z` is as accurate as `y` (the
//! circle with `z = c x1`: `z` within 0.4 and 12 times rtol at rtol 1e-6 and 1e-10, below the
//! states' errors). The integral cost's quadrature still reads the stage values `Z_i`.

use super::start::algebraic_sensitivities;
use super::Following;
use crate::error::SolveError;
use crate::linalg::{all_finite, ModeJacobian};
use crate::model::{ConditionPartials, SmoothMode};
use crate::newton::{consistent_z, ConsistencyProblem};
use crate::step::Stepper;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Following<'_, '_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// In an index-2 mode, `z` at the integrator's point (the end of the step just accepted,
    /// its sensitivities complete) from the hidden constraint, with its sensitivities (module
    /// docs); in any other mode nothing.
    pub(crate) fn project_onto_hidden_constraint(&mut self) -> Result<(), SolveError> {
        if NZ == 0 || !self.step.model.is_index2() {
            return Ok(());
        }
        let (t, y, z) = (self.step.t, self.step.y, self.step.z);
        let z = self.step.on_hidden_constraint(t, &y, z)?;
        let step = &mut *self.step;
        step.z = z;
        if !self.fsa.enabled {
            return Ok(());
        }
        let mut c = ConditionPartials::ZERO;
        step.model
            .condition_partials(step.t, &step.y, &step.z, &step.p, &mut c);
        let sens = &mut self.fsa.sens;
        sens.sz = algebraic_sensitivities(&c, &sens.sy, &sens.st).map_err(|e| step.lu_error(e))?;
        if !sens.sz.iter().all(all_finite) {
            return Err(step.err_nonfinite("algebraic sensitivities of an index-2 mode"));
        }
        Ok(())
    }
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// `z` with `H(t, y, z) = 0` in an index-2 mode (Newton from `guess`, the step's stage value
    /// `Z_S`): where the solve goes on from after a step (module docs), and where a guard is
    /// evaluated at a step's end (`events/polish.rs`, `model/event_guard.rs`).
    pub(crate) fn on_hidden_constraint(
        &mut self,
        t: f64,
        y: &[f64; NY],
        guess: [f64; NZ],
    ) -> Result<[f64; NZ], SolveError> {
        let problem = ConsistencyProblem {
            t,
            y,
            p: &self.p,
            mode: self.mode,
            rtol: &self.opts.rtol_z,
            atol: &self.opts.atol_z,
        };
        let (mut z, mut jac, mut at_z) = (guess, ModeJacobian::zeroed(), [0.0; NZ]);
        consistent_z(
            self.model,
            &problem,
            &mut z,
            &mut jac,
            &mut at_z,
            &mut self.stats,
        )?;
        Ok(z)
    }
}
