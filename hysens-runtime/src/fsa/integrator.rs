//! [`Esdirk`]: the ESDIRK stepper of one mode (`step/`) with the forward sensitivities that
//! consume its steps. The stepper computes and accepts steps and exposes what each did (stage
//! values and derivatives, the iteration matrix); this type propagates the sensitivities over
//! every accepted step from that (`step.rs`, `length.rs`), before the stepper advances, and
//! puts them into the stepper's error test through its hook when
//! [`crate::Options::sensitivity_error_test`] asks for it (`error_test.rs`).

use super::{Following, Fsa, Sensitivities};
use crate::error::SolveError;
use crate::model::SmoothMode;
use crate::options::Options;
use crate::stats::Stats;
use crate::step::{IntegratorSnapshot, StepLength, StepRecord, Stepper, Trial};
use crate::tableau::Tableau;

/// ESDIRK integrator for one mode, with forward sensitivities: its state `(t, y, z)`,
/// step-size control, iteration matrix, stage storage, statistics and sensitivities.
///
/// Const parameters: `S` stages, `NY` differential states, `NZ` algebraic variables, `NP`
/// parameters and `N = NY + NZ` (checked at compile time; see [`SmoothMode`]).
#[derive(Clone, Debug)]
pub struct Esdirk<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> where
    M: SmoothMode<NY, NZ, NP>,
{
    /// The stepper whose steps the sensitivities follow.
    pub(crate) step: Stepper<'m, M, S, NY, NZ, NP, N>,
    /// The forward sensitivities (module docs of `fsa/`).
    pub(crate) fsa: Fsa<S, NY, NZ, NP, N, M::Store>,
}

/// The stepper `step` with its sensitivities off (until [`Esdirk::enable_sensitivities`]); a
/// stepper restored from a snapshot (`step/snapshot.rs`) resumes that way.
impl<'m, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    From<Stepper<'m, M, S, NY, NZ, NP, N>> for Esdirk<'m, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    fn from(step: Stepper<'m, M, S, NY, NZ, NP, N>) -> Self {
        Esdirk {
            step,
            fsa: Fsa::new(),
        }
    }
}

impl<'m, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Esdirk<'m, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// Creates an integrator at `(t0, y0, z0)` for mode index `mode` (used only in error
    /// context). `z0` is a guess: it is made consistent with `g(t0, y0, z0, p) = 0` by Newton's
    /// method on `z` (`newton.rs`; an index-1 DAE needs consistent initial values, Kristensen et
    /// al. 2005, Eq. 1). Sensitivities are off until [`Esdirk::enable_sensitivities`].
    ///
    /// Errors: [`SolveError::NonFiniteValue`] for non-finite inputs,
    /// [`SolveError::InvalidArgument`] for a setting outside its range (named by
    /// [`Options::invalid_setting`]), [`SolveError::SingularMatrix`] if `g_z` is singular and
    /// [`SolveError::InconsistentInitialValues`] if the constraint cannot be solved.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &'m M,
        tableau: &'m Tableau<S>,
        mode: usize,
        p: [f64; NP],
        t0: f64,
        y0: [f64; NY],
        z0: [f64; NZ],
        opts: Options<NY, NZ>,
    ) -> Result<Self, SolveError> {
        Ok(Stepper::new(model, tableau, mode, p, t0, y0, z0, opts)?.into())
    }

    /// The state between steps, to resume from (`step/snapshot.rs`; the sensitivities are not
    /// kept).
    pub(crate) fn snapshot(&self) -> IntegratorSnapshot<S, NY, NZ> {
        self.step.snapshot()
    }

    /// Current time (of the last accepted step).
    pub fn t(&self) -> f64 {
        self.step.t
    }

    /// Differential state at [`Esdirk::t`].
    pub fn y(&self) -> &[f64; NY] {
        &self.step.y
    }

    /// Algebraic state at [`Esdirk::t`].
    pub fn z(&self) -> &[f64; NZ] {
        &self.step.z
    }

    /// Statistics so far.
    pub fn stats(&self) -> &Stats {
        &self.step.stats
    }

    /// The integral cost accumulated so far by the error test of
    /// [`Options::cost_error_test`] (0 without it): the starting value (see
    /// [`Esdirk::set_quadrature`]) plus the quadratures `h Σ_i b_i L_i` of the accepted steps.
    pub fn quadrature(&self) -> f64 {
        self.step.quadrature
    }

    /// Sets the integral cost accumulated so far (`Q_n` of the error test of
    /// [`Options::cost_error_test`], e.g. that of the previous mode segments of a hybrid
    /// solve).
    pub fn set_quadrature(&mut self, q: f64) {
        self.step.quadrature = q;
    }

    /// Proposed size of the next step (0 before the first step if it is to be selected).
    pub fn next_step_size(&self) -> f64 {
        self.step.control.h
    }

    /// Stage storage of the last computed step: `(Y_i, Z_i, F_i)` (see [`StepRecord`]). After
    /// [`Esdirk::try_step`] or [`Esdirk::evaluate_fixed`], `Y_S, Z_S` is the end state of the
    /// not yet accepted step; after a commit, the stages of the accepted step.
    #[allow(clippy::type_complexity)]
    pub fn stages(&self) -> (&[[f64; NY]; S], &[[f64; NZ]; S], &[[f64; NY]; S]) {
        self.step.stages()
    }

    /// The tableau in use.
    pub fn tableau(&self) -> &Tableau<S> {
        self.step.tableau
    }

    /// Makes the next adaptive step at most `h` (`Stepper::limit_next_step`).
    pub(crate) fn limit_next_step(&mut self, h: f64) {
        self.step.limit_next_step(h);
    }

    /// Integrates adaptively to `tf ≥ t`, landing exactly on `tf`. `observer` is called after
    /// every accepted step.
    ///
    /// If sensitivities are enabled, a failure of their stage solves is reported as
    /// [`SolveError::NewtonFailure`].
    ///
    /// On error the integrator keeps the last accepted state ([`Esdirk::t`], [`Esdirk::y`],
    /// [`Esdirk::z`]) and its statistics.
    pub fn integrate_to<F>(&mut self, tf: f64, mut observer: F) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        if !tf.is_finite() || tf < self.step.t {
            return Err(SolveError::InvalidArgument {
                t: self.step.t,
                mode: self.step.mode,
                what: "final time",
            });
        }
        self.step.control.attempts = 0;
        while self.step.t < tf {
            let trial = self.try_step(tf)?;
            self.commit(&trial, &mut observer)?;
        }
        Ok(())
    }

    /// Computes the next adaptive step towards `t_stop > t` (clipped to land exactly on it),
    /// retrying with smaller steps until one passes the error test — the sensitivities' too,
    /// with [`Options::sensitivity_error_test`] — but does **not** accept it: the stage storage
    /// ([`Esdirk::stages`]) holds the step and the state is unchanged until [`Esdirk::commit`].
    /// A caller that finds an event in the step instead re-takes a shorter step with
    /// [`Esdirk::evaluate_fixed`] (the hybrid driver, [`crate::solve`]).
    pub fn try_step(&mut self, t_stop: f64) -> Result<Trial, SolveError> {
        self.try_step_within(t_stop, t_stop)
    }

    /// [`Esdirk::try_step`] towards `t_stop` in an integration that goes on to `horizon ≥
    /// t_stop` (`Stepper::try_step_checked`).
    pub(crate) fn try_step_within(
        &mut self,
        t_stop: f64,
        horizon: f64,
    ) -> Result<Trial, SolveError> {
        // Sensitivities computed for an earlier step no longer belong to the stage storage.
        self.fsa.pending = None;
        let fsa = &mut self.fsa;
        let in_test = fsa.enabled && self.step.opts.sensitivity_error_test;
        self.step
            .try_step_checked(t_stop, horizon, &mut |step, h, landing, error| {
                if !in_test {
                    return Ok(error);
                }
                with_sensitivity_error(step, fsa, h, landing, error)
            })
    }

    /// Computes (does not accept) one step of exactly size `h > 0` from the current state
    /// without error control (`Stepper::evaluate_fixed`): a step of a replayed sequence, or a
    /// re-take of the step to an event.
    ///
    /// Errors: [`SolveError::NewtonFailure`] if the Newton iteration fails even with a fresh
    /// Jacobian, [`SolveError::SingularMatrix`], [`SolveError::NonFiniteValue`].
    pub fn evaluate_fixed(&mut self, h: f64) -> Result<f64, SolveError> {
        self.fsa.pending = None;
        self.step.evaluate_fixed(h)
    }

    /// Computes (does not accept) a step of a size within round-off of zero, or zero
    /// (`Stepper::evaluate_roundoff`).
    pub(crate) fn evaluate_roundoff(&mut self, h: f64) -> Result<f64, SolveError> {
        self.fsa.pending = None;
        self.step.evaluate_roundoff(h)
    }

    /// Takes one step of exactly size `h > 0` without error control (fixed-step mode, as in
    /// Christensen, Cantisani & Jørgensen; also used to replay a frozen step sequence). The
    /// Jacobian policy is the same as in [`Esdirk::integrate_to`]; set `jacobian_reuse_rate =
    /// 0` to evaluate it every step.
    ///
    /// Errors: [`SolveError::NewtonFailure`] if the Newton iteration fails even with a fresh
    /// Jacobian, [`SolveError::SingularMatrix`], [`SolveError::NonFiniteValue`].
    pub fn step_fixed<F>(&mut self, h: f64, mut observer: F) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        self.evaluate_fixed(h)?;
        let t_end = self.step.t + h;
        self.commit_fixed(h, t_end, StepLength::Fixed, &mut observer)
    }

    /// Accepts the step computed by [`Esdirk::try_step`]: propagates the sensitivities, advances
    /// the state to `trial.t_end`, calls `observer` and updates the step-size controller.
    ///
    /// Errors: [`SolveError::InvalidArgument`] if `trial` is not the step just computed (see
    /// [`Esdirk::commit_fixed`]); the integrator is left unchanged.
    #[inline]
    pub fn commit<F>(&mut self, trial: &Trial, observer: &mut F) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        let length = if trial.landing {
            StepLength::Landing
        } else {
            StepLength::Fixed
        };
        let error = self.step.computed(trial.h, trial.t_end)?;
        self.follow(trial.h, length)?;
        self.step.commit(trial, error, observer);
        Ok(())
    }

    /// Accepts the step of size `h` just computed by [`Esdirk::evaluate_fixed`], ending at
    /// `t_end` (pass `t + h`, or the exact target time the step was sized for). `length` says
    /// how `h` depends on the parameters (sensitivities only; see [`StepLength`]).
    ///
    /// Errors: [`SolveError::InvalidArgument`] if no step was computed since the last commit,
    /// if `h` is not its size, or if `t_end` differs from `t + h` by more than round-off; the
    /// integrator is left unchanged.
    #[inline]
    pub fn commit_fixed<F>(
        &mut self,
        h: f64,
        t_end: f64,
        length: StepLength,
        observer: &mut F,
    ) -> Result<(), SolveError>
    where
        F: FnMut(&StepRecord<'_, S, NY, NZ>),
    {
        let error = self.step.computed(h, t_end)?;
        self.follow(h, length)?;
        self.step.commit_fixed(h, t_end, error, observer);
        Ok(())
    }

    /// The sensitivities over the step of size `h` about to be accepted (in the stage storage,
    /// the stepper still at its start): those computed for its error test, or propagated now.
    /// On failure the sensitivities stay those of the last accepted step: a fixed-length step
    /// changes nothing before its last check, the others are undone from a copy.
    #[inline(always)]
    fn follow(&mut self, h: f64, length: StepLength) -> Result<(), SolveError> {
        if !self.fsa.enabled {
            return Ok(());
        }
        match self.fsa.pending.take() {
            // Computed for the error test of this very step (`try_step`).
            Some((h_pending, next)) if h_pending == h => self.fsa.sens = next,
            _ => {
                let accepted = if length == StepLength::Fixed {
                    None
                } else {
                    Some(self.fsa.sens)
                };
                if let Err(e) = self.following().propagate_sensitivities(h, length) {
                    if let Some(sens) = accepted {
                        self.fsa.sens = sens;
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Sensitivities `(∂y/∂p, ∂z/∂p)` at [`Esdirk::t`] (zero if not enabled): total
    /// derivatives of the state at the grid point, whose own time derivative is
    /// [`Esdirk::time_sensitivity`].
    pub fn sensitivities(&self) -> (&[[f64; NP]; NY], &[[f64; NP]; NZ]) {
        (&self.fsa.sens.sy, &self.fsa.sens.sz)
    }

    /// Grid shift `∂t/∂p` of the current time [`Esdirk::t`] (module docs): zero unless the
    /// segment started at a parameter-dependent time and has not yet landed on a fixed time.
    pub fn time_sensitivity(&self) -> &[f64; NP] {
        &self.fsa.sens.st
    }

    /// Stage sensitivities `(∂Y_i/∂p, ∂Z_i/∂p)` of the last accepted step (zero before the
    /// first step or if sensitivities are disabled), total derivatives including the step's
    /// length and start-time dependence; integral-cost gradients use them (`fsa/cost.rs`).
    #[allow(clippy::type_complexity)]
    pub fn stage_sensitivities(&self) -> (&[[[f64; NP]; NY]; S], &[[[f64; NP]; NZ]; S]) {
        (&self.fsa.sens.stage_sy, &self.fsa.sens.stage_sz)
    }

    /// `(∂t_n/∂p, ∂H/∂p)` of the last accepted step: its start time `t_n` and length `H`
    /// (stage times `T_i = t_n + c_i H`); integral-cost gradients use them (`fsa/cost.rs`).
    pub fn step_time_sensitivities(&self) -> (&[f64; NP], &[f64; NP]) {
        (&self.fsa.sens.step_dt, &self.fsa.sens.step_dh)
    }

    /// The H-direction `(∂Y_i/∂H, ∂Z_i/∂H)` of the last accepted step (module docs); valid after a
    /// step of [`crate::smooth::StepLength::Event`] (or a `Landing` step from a shifted start).
    #[allow(clippy::type_complexity)]
    pub fn step_length_direction(&self) -> (&[[f64; NY]; S], &[[f64; NZ]; S]) {
        (&self.fsa.sens.stage_yh, &self.fsa.sens.stage_zh)
    }

    /// Whether sensitivities are enabled.
    pub fn sensitivities_enabled(&self) -> bool {
        self.fsa.enabled
    }

    /// Turns on forward sensitivities with respect to the parameters, starting from
    /// `∂y/∂p (t) = sy0` at the current time (zero if the initial state does not depend on
    /// `p`), with a fixed current time. See [`Esdirk::enable_sensitivities_at`].
    pub fn enable_sensitivities(&mut self, sy0: [[f64; NP]; NY]) -> Result<(), SolveError> {
        self.enable_sensitivities_at(sy0, [0.0; NP])
    }

    /// Turns on forward sensitivities starting from the total derivative `sy0 = dy/dp` of the
    /// state at the current time, which itself depends on the parameters with
    /// `dt/dp = st0` (a restart at an event time, module docs of `fsa/`). The algebraic
    /// sensitivities are made consistent with the differentiated constraint:
    /// `S_z = −g_z⁻¹ (g_y S_y + g_t st0 + g_p)` (Kristensen et al. 2005, Eq. 3).
    pub fn enable_sensitivities_at(
        &mut self,
        sy0: [[f64; NP]; NY],
        st0: [f64; NP],
    ) -> Result<(), SolveError> {
        self.following().enable_sensitivities_at(sy0, st0)
    }

    /// Adds `Φ_H ∂H/∂p` to the stage and end sensitivities of the last accepted step and
    /// `∂H/∂p` to the grid shift (module docs of `fsa/`, "Step length"): the step length of the
    /// last step, accepted as [`StepLength::Event`], is `H + dh·δp` to first order. Call once,
    /// right after the commit.
    pub fn apply_step_length_derivative(&mut self, dh: &[f64; NP]) -> Result<(), SolveError> {
        self.following().apply_step_length_derivative(dh)
    }

    /// The H-direction of the last accepted step (`length.rs`), for a solve without forward
    /// sensitivities that records a tape for the adjoint.
    pub(crate) fn compute_step_length_direction(
        &mut self,
        tn: f64,
        h: f64,
    ) -> Result<(), SolveError> {
        self.following().compute_step_length_direction(tn, h)
    }

    /// The H-direction `∂Y_i/∂H` of the last accepted step, from `tn` of size `h`
    /// (`length.rs`), computed on the side: the stage derivatives, the stage LUs, the stored
    /// H-direction and the statistics are restored afterwards, so the steps, the tape and the
    /// counters stay those of a solve that does not ask for it (for the dense output's
    /// conversion to fixed time, `hybrid/dense.rs`).
    pub(crate) fn step_length_direction_aside(
        &mut self,
        tn: f64,
        h: f64,
    ) -> Result<[[f64; NY]; S], SolveError> {
        let fsa = self.fsa.clone();
        let (fs, refined, stats) = (
            self.step.stages.fs,
            self.step.stages.refined,
            self.step.stats,
        );
        let direction = self
            .following()
            .compute_step_length_direction(tn, h)
            .map(|()| self.fsa.sens.stage_yh);
        self.fsa = fsa;
        self.step.stages.fs = fs;
        self.step.stages.refined = refined;
        self.step.stats = stats;
        direction
    }

    /// In a Hessenberg index-2 mode, `z` (and its sensitivities) at the end of the step just
    /// accepted from the hidden constraint (`index2.rs`); nothing in other modes. Call once the
    /// step's sensitivities are complete (after an event step's `∂t*/∂p`).
    pub(crate) fn project_onto_hidden_constraint(&mut self) -> Result<(), SolveError> {
        self.following().project_onto_hidden_constraint()
    }

    /// The stage derivatives of the last accepted step refined (`length.rs`), for a solve
    /// without forward sensitivities that records a tape for the adjoint.
    pub(crate) fn refine_stage_derivatives_of_last_step(
        &mut self,
        tn: f64,
        h: f64,
    ) -> Result<(), SolveError> {
        self.following()
            .refine_stage_derivatives_of_last_step(tn, h)
    }

    /// The stepper and the sensitivities, borrowed together for the propagation.
    fn following(&mut self) -> Following<'_, 'm, M, S, NY, NZ, NP, N> {
        Following {
            step: &mut self.step,
            fsa: &mut self.fsa,
        }
    }
}

/// With sensitivities in the error test ([`Options::sensitivity_error_test`]), a step of size
/// `h` whose states pass (`error ≤ 1`) must pass for the sensitivities too: returns the larger
/// of the two estimates, and keeps the sensitivities computed for the test for the commit.
fn with_sensitivity_error<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    step: &mut Stepper<'_, M, S, NY, NZ, NP, N>,
    fsa: &mut Fsa<S, NY, NZ, NP, N, M::Store>,
    h: f64,
    landing: bool,
    error: f64,
) -> Result<f64, SolveError>
where
    M: SmoothMode<NY, NZ, NP>,
{
    let length = if landing {
        StepLength::Landing
    } else {
        StepLength::Fixed
    };
    let (next, sens_error): (Sensitivities<S, NY, NZ, NP>, f64) =
        Following { step, fsa }.sensitivity_step(h, length)?;
    // A NaN estimate must fail the test (f64::max would drop it).
    let sens_error = if sens_error.is_nan() {
        f64::INFINITY
    } else {
        sens_error
    };
    if sens_error <= 1.0 {
        fsa.pending = Some((h, next));
    }
    Ok(error.max(sens_error))
}
