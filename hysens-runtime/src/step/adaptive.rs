//! Error-controlled steps: the initial step size, the retry loop of an adaptive step and the
//! integration to a final time.
//!
//! **Step control.** `PiController` (`controller.rs`; Kristensen et al. 2005, Eqs. 25–29). The step is clipped to
//! land exactly on the final time. (Hairer & Wanner's trick of keeping `h` when the factor is in
//! `[1, 1.2]`, to reuse the LU, was tried and removed: when the error estimate is dominated by
//! Newton noise — it does not grow with `h` — the step size froze; measured on Robertson in DAE
//! form: 6413 steps instead of ~600.)
//!
//! **Initial step.** Hairer, Nørsett & Wanner's heuristic (I, §II.4) at the start of every
//! segment (the start of the solve and every restart after an event), with two changes:
//!
//! * Their probe `h0 = 0.01 d0/d1` (`d0 = ‖y0‖`, `d1 = ‖f0‖` in the error test's weighted
//!   norm, `w = atol + rtol |y0|`) and the cap `100 h0` on the result measure the state's size
//!   against its rate; a state with `d0 < 1e-5` counts as zero and gets the probe `1e-6`. But
//!   `d0 ≤ 1` already means `y0` is within its tolerance of zero (`|y0| ≲ atol`), and for
//!   `1e-5 ≤ d0 ≤ 1` the relative rule made the step proportional to a size the error test
//!   does not resolve: `x' = 0.2` from `x0 = 1e-16` at `t0 = 0.5` (rtol 1e-10, atol 1e-12:
//!   `d0 = 1e-4`, `d1 = 2e11`) got `h = 5e-16`, below the round-off `1.8e-15` of `t`, and
//!   ended at once with `StepSizeTooSmall`; so did the restart after a crossing of a
//!   switching surface `x = 0` wherever the event left the state a few ulps off 0, at rtol
//!   1e-10 and 1e-12 with `atol = rtol/100` (at rtol 1e-8, `d0 = 1e-6` fell under the `1e-5`
//!   and it worked) and at every rtol with atol 1e-14. Here a state with `d0 ≤ 1` counts as
//!   zero.
//! * The probe and the result are at least `100 ε |t|` (CVODE's lower bound for its initial
//!   step, at `t`) and `h_min`: the probe `1e-6` is absolute, below the round-off of `t` for
//!   `|t| ≳ 1e10`, and a state just above its tolerance with a large rate still gets a small
//!   `100 h0`. The step-size limit of the attempts is `16 ε |t|` (`h_roundoff`), so the first
//!   step can be rejected once by `fac_min = 0.2` before it.
//!

use super::attempt::Attempt;
use super::{h_roundoff, positive_finite, JacState, Stepper, Trial};
use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::linalg::LuError;
use crate::model::SmoothMode;
use crate::norm::{rms, sum_sq, weights};

/// Why the last attempts of an adaptive step failed (for the error when `h` gets too small).
#[derive(Default)]
struct Failures {
    /// Elimination column of a singular iteration matrix.
    singular: Option<usize>,
    /// Stage whose Newton iteration failed (0: none).
    stage: usize,
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Stepper<'_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Initial step size: Hairer, Nørsett & Wanner I, §II.4, "Starting step size" (steps
    /// (a)–(f)), with `k` the order of the error estimate, and two changes so that the first
    /// step of a segment is never below the round-off of `t`, whatever the size of the state
    /// (module docs, "Initial step").
    fn initial_step(&mut self, span: f64) -> Result<f64, SolveError> {
        let k = self.tableau.error_estimate_order() as f64;
        let mut w = [0.0; NY];
        weights(
            &self.opts.rtol_y,
            &self.opts.atol_y,
            &self.y,
            &self.y,
            &mut w,
        );
        let mut f0 = [0.0; NY];
        self.model.f(self.t, &self.y, &self.z, &self.p, &mut f0);
        self.stats.f_evals += 1;
        if !all_finite(&f0) {
            return Err(self.err_nonfinite("f at the initial point"));
        }
        // (a) The sizes of y0 and f0 in the error test's norm.
        let d0 = rms(sum_sq(&self.y, &w), NY);
        let d1 = rms(sum_sq(&f0, &w), NY);
        // The floor of every step size below: the lower bound `100 ε max(|t0|, |t_out|)` of
        // SUNDIALS CVODE's initial step (its documentation, "The initial stepsize"), taken at
        // `t` alone (from `t0 = 0` towards a distant horizon — Robertson to 4e10 — it would
        // be a large first step), and `h_min` (a smaller first step fails the attempt's limit).
        let floor = (100.0 * f64::EPSILON * self.t.abs()).max(self.opts.h_min);
        // (b) The probe: the explicit Euler step changes y by 1% of its size; a zero state
        // (HNW: d0 < 1e-5) or a resting one gets 1e-6. A state within its tolerance of zero
        // (d0 ≤ 1: |y| ≲ atol) has no size to measure that 1% against, and counts as zero.
        let mut h0 = if d0 <= 1.0 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        h0 = h0.max(floor).min(span);
        // (c)–(d) An explicit Euler step of size h0 and the estimate of ‖y''‖.
        let mut y1 = self.y;
        for c in 0..NY {
            y1[c] += h0 * f0[c];
        }
        let mut f1 = [0.0; NY];
        self.model.f(self.t + h0, &y1, &self.z, &self.p, &mut f1);
        self.stats.f_evals += 1;
        let mut df = [0.0; NY];
        for c in 0..NY {
            df[c] = f1[c] - f0[c];
        }
        let d2 = rms(sum_sq(&df, &w), NY) / h0;
        // (e) The step whose error, of order k, would be 0.01.
        let dm = d1.max(d2);
        let h1 = if !dm.is_finite() {
            h0 * 1e-3
        } else if dm <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            libm::pow(0.01 / dm, 1.0 / k)
        };
        // (f) The smaller of the two, at most 100 probes; not below the floor.
        let h = (100.0 * h0).min(h1).max(floor);
        Ok(h.min(span).min(self.opts.h_max))
    }

    /// Computes the next adaptive step towards `t_stop > t` (clipped to land exactly on it),
    /// retrying with smaller steps until one passes the error test, but does **not** accept it:
    /// the stage storage ([`Stepper::stages`]) holds the step and the state is unchanged until
    /// [`Stepper::commit`]. A caller that finds an event in the step instead re-takes a shorter
    /// step with [`Stepper::evaluate_fixed`] (the hybrid driver, [`crate::solve`]).
    ///
    /// The initial step size, if one is to be selected, is chosen for the span to `horizon ≥
    /// t_stop` (the hybrid driver: the next sample time within the solve to `t_f`), not cut to
    /// the distance to `t_stop` — the step is then clipped to land on `t_stop`, and the
    /// proposal survives the landing (`controller.rs`, `StepControl::accepted`). (A new
    /// segment starting `δ` before a sample time used to select `δ` and grow from it by
    /// `fac_max` per step.)
    ///
    /// `check(stepper, h, landing, error)` is the error test's hook for what rides on the step
    /// (the forward sensitivities, `fsa/`): called for an attempt whose states pass
    /// (`error ≤ 1`), it returns the error the attempt is judged by (`error` when nothing is
    /// added).
    pub(crate) fn try_step_checked(
        &mut self,
        t_stop: f64,
        horizon: f64,
        check: &mut impl FnMut(&mut Self, f64, bool, f64) -> Result<f64, SolveError>,
    ) -> Result<Trial, SolveError> {
        self.check_stop_and_first_size(t_stop, horizon)?;
        let k = self.tableau.error_estimate_order();
        let mut failures = Failures::default();
        loop {
            self.control.attempts += 1;
            if self.control.attempts > self.opts.max_steps {
                return Err(SolveError::TooManySteps {
                    t: self.t,
                    mode: self.mode,
                    max_steps: self.opts.max_steps,
                });
            }
            let mut h = self.control.h.min(self.opts.h_max);
            let remaining = t_stop - self.t;
            // A step whose end rounds onto the stop lands on it (else the next step would be
            // of length zero).
            let last = h >= remaining || self.t + h >= t_stop;
            if last {
                h = remaining;
            }
            let h_lim = self.opts.h_min.max(h_roundoff(self.t));
            if !last && h < h_lim {
                return Err(self.too_small(h, &failures));
            }
            if !self.factor_for_attempt(h, &mut failures)? {
                continue;
            }
            match self.attempt(h)? {
                Attempt::NewtonFailed { stage, diverged } => {
                    self.stats.newton_failures += 1;
                    failures.stage = stage;
                    if self.matrix.state == JacState::Stale {
                        self.matrix.state = JacState::Invalid;
                        self.control.h = h;
                    } else {
                        self.control.h = h * if diverged { 0.25 } else { 0.5 };
                        self.control.pi.newton_failed();
                    }
                }
                Attempt::Done { error } => {
                    failures.stage = 0;
                    let error = if error <= 1.0 {
                        check(self, h, last, error)?
                    } else {
                        error
                    };
                    if error <= 1.0 {
                        self.stages.computed = Some((h, error));
                        return Ok(Trial {
                            h,
                            error,
                            landing: last,
                            t_end: if last { t_stop } else { self.t + h },
                        });
                    }
                    self.stats.rejected_steps += 1;
                    let fac = self
                        .control
                        .pi
                        .reject(error, k, self.opts.target, self.opts.fac_min);
                    self.control.h = h * fac;
                }
            }
        }
    }

    /// Checks that `t_stop` lies ahead, and selects the size of the first step if none is
    /// proposed yet, for the span to `horizon` (see [`Self::try_step_checked`]).
    fn check_stop_and_first_size(&mut self, t_stop: f64, horizon: f64) -> Result<(), SolveError> {
        if !t_stop.is_finite() || t_stop <= self.t {
            return Err(SolveError::InvalidArgument {
                t: self.t,
                mode: self.mode,
                what: "final time",
            });
        }
        if !positive_finite(self.control.h) {
            // (`horizon` NaN or short: the span to the stop.)
            let span = (t_stop - self.t).max(horizon - self.t);
            self.control.h = self.initial_step(span)?;
        }
        Ok(())
    }

    /// Prepares the Jacobian and factors the iteration matrix for an attempt of size `h`:
    /// `true` to go on with the attempt, `false` to try again after a singular matrix (with a
    /// fresh Jacobian if it was stale, else with half the step, the failure noted for
    /// [`Self::too_small`]).
    #[inline(always)]
    fn factor_for_attempt(&mut self, h: f64, failures: &mut Failures) -> Result<bool, SolveError> {
        self.prepare_jacobian()?;
        match self.factor(h) {
            Ok(()) => {
                failures.singular = None;
                Ok(true)
            }
            Err(LuError::NonFinite { .. }) => Err(self.err_nonfinite("iteration matrix")),
            Err(LuError::Singular { column }) => {
                if self.matrix.state == JacState::Stale {
                    self.matrix.state = JacState::Invalid;
                } else {
                    failures.singular = Some(column);
                    self.control.h = h * 0.5;
                }
                Ok(false)
            }
        }
    }

    /// Makes the next adaptive step at most `h` (a computed step the hybrid driver could not
    /// use: a guard varied too fast within it for the scan to rule out a crossing).
    pub(crate) fn limit_next_step(&mut self, h: f64) {
        if positive_finite(h) {
            self.control.h = self.control.h.min(h);
        }
    }

    /// The error when the step size fell below its limit: what made it shrink (a singular
    /// iteration matrix, a Newton failure) or [`SolveError::StepSizeTooSmall`].
    fn too_small(&self, h: f64, failures: &Failures) -> SolveError {
        let (t, mode) = (self.t, self.mode);
        match failures.singular {
            Some(column) => SolveError::SingularMatrix { t, mode, column },
            None if failures.stage > 0 => SolveError::NewtonFailure {
                t,
                mode,
                h,
                stage: failures.stage,
            },
            None => SolveError::StepSizeTooSmall { t, mode, h },
        }
    }
}
