//! Multiple-shooting NMPC (Christensen et al., §IV-B): at each sample, the OCP from the
//! filter's estimate solved by SQP ([`crate::sqp`]) on the NLP of [`crate::nlp`], warm-started
//! from the previous solution shifted by one interval, and the first input applied.

use crate::error::ControlError;
use crate::nlp::{Formulation, Nlp, NlpPoint, OcpData, OcpWeights};
use crate::sqp::{damped_bfgs, qp_step, Hessian};
use hysens::runtime::{HybridModel, ModelSizes, ModelTypes, RelaxedSizes};
use nalgebra::{DMatrix, DVector};

/// The controller's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct NmpcSettings {
    /// `T_s`, the sample time and the length of each shooting interval.
    pub sample_time: f64,
    /// `N`, the intervals in the horizon.
    pub horizon: usize,
    /// ESDIRK34 steps per interval (the seed: 5).
    pub steps_per_interval: usize,
    /// Simpson sub-intervals of the tracking integral per interval (even).
    pub quadrature_intervals: usize,
    /// The objective's weights.
    pub weights: OcpWeights,
    /// `(u_min, u_max)` per input.
    pub input_bounds: Vec<(f64, f64)>,
    /// The Hessian approximation.
    pub hessian: Hessian,
    /// SQP iterations before [`ControlError::SqpNotConverged`].
    pub max_iterations: usize,
    /// Convergence: the relative step `max |d_i| / (1 + |w_i|)` at most this.
    pub tolerance: f64,
    /// Newton tolerances of the interval solves.
    pub newton_tolerances: (f64, f64),
    /// How the algebraic variables enter the NLP.
    pub formulation: Formulation,
}

impl NmpcSettings {
    /// The first setting out of its range, as an error: bounds empty or not finite, one pair
    /// per input; a horizon and steps of at least 1; an even number of quadrature intervals; a
    /// positive sample time; a positive decay of the relaxation.
    fn check(&self, inputs: &[&str]) -> Result<(), ControlError> {
        let invalid = |what: String| Err(ControlError::InvalidArgument { what });
        if self.input_bounds.len() != inputs.len() {
            return invalid(format!(
                "{} input bounds for {} inputs",
                self.input_bounds.len(),
                inputs.len()
            ));
        }
        for (name, &(lower, upper)) in inputs.iter().zip(&self.input_bounds) {
            if !(lower <= upper && lower.is_finite() && upper.is_finite()) {
                return invalid(format!(
                    "the bounds of `{name}`, [{lower}, {upper}], are empty or not finite"
                ));
            }
        }
        let q = self.quadrature_intervals;
        let positive = self.sample_time > 0.0 && self.sample_time.is_finite();
        if self.horizon == 0
            || q < 2
            || !q.is_multiple_of(2)
            || !positive
            || self.steps_per_interval == 0
        {
            return invalid(format!(
                "horizon {}, {q} quadrature intervals, {} steps per interval, sample time {}: \
                 need a horizon and steps of at least 1, an even number of quadrature intervals \
                 and a positive sample time",
                self.horizon, self.steps_per_interval, self.sample_time
            ));
        }
        match self.formulation {
            Formulation::Relaxed { decay } if !(decay > 0.0 && decay.is_finite()) => invalid(
                format!("the relaxed formulation needs a positive decay, not η = {decay}"),
            ),
            _ => Ok(()),
        }
    }
}

/// How the last SQP went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SqpReport {
    /// Iterations (QPs solved).
    pub iterations: usize,
    /// The objective at the last evaluated iterate.
    pub objective: f64,
    /// The largest constraint violation there.
    pub violation: f64,
}

/// What the BFGS update needs of the last SQP iteration: its step, the tracking part's
/// gradient and the constraint Jacobian before it, and the QP's equality multipliers.
struct LastStep {
    step: DVector<f64>,
    gradient: DVector<f64>,
    constraint_jacobian: DMatrix<f64>,
    multipliers: DVector<f64>,
}

/// The parts of the objective the Hessian is built from at `point`: the gradient of the
/// tracking (and terminal) residuals `J_tᵀ r_t`, their Gauss–Newton matrix `J_tᵀ J_t` (block
/// diagonal: each of these rows reads one block of `w`), and the input-rate rows' `J_Δᵀ J_Δ`,
/// their exact Hessian.
struct ObjectiveParts {
    tracking_gradient: DVector<f64>,
    tracking_gauss_newton: DMatrix<f64>,
    rate_hessian: DMatrix<f64>,
}

impl ObjectiveParts {
    fn of(point: &NlpPoint) -> Self {
        let rows = point.rate_rows.clone();
        let mut tracking = point.residual_jacobian.clone();
        tracking.rows_mut(rows.start, rows.len()).fill(0.0);
        let mut rate = point.residual_jacobian.clone();
        rate.rows_mut(0, rows.start).fill(0.0);
        let tail = rate.nrows() - rows.end;
        rate.rows_mut(rows.end, tail).fill(0.0);
        ObjectiveParts {
            tracking_gradient: tracking.transpose() * &point.residual,
            tracking_gauss_newton: tracking.transpose() * &tracking,
            rate_hessian: rate.transpose() * &rate,
        }
    }
}

/// The QP's Hessian at `point`: Gauss–Newton `Jᵀ J`, or `B + J_Δᵀ J_Δ` with `B` the
/// partitioned (block-diagonal) damped BFGS approximation of the Hessian of the Lagrangian's
/// tracking part, one block per interval (Bock & Plitt 1984: the multiple-shooting Lagrangian
/// is separable over the intervals' variables, so its Hessian is block diagonal and each block
/// is updated with its own step and gradient change), started from the blocks of `J_tᵀ J_t`
/// at a solve's first iteration. A dense BFGS matrix would fill the QP's KKT system: measured on
/// the electrolyzer, 13 times the time of Gauss–Newton per solve, nearly all of it in the QP.
fn update_hessian(
    kind: Hessian,
    curvature: &mut DMatrix<f64>,
    last: Option<LastStep>,
    point: &NlpPoint,
    parts: &ObjectiveParts,
    blocks: &[core::ops::Range<usize>],
) -> DMatrix<f64> {
    match (kind, last) {
        (Hessian::GaussNewton, _) => {
            return point.residual_jacobian.transpose() * &point.residual_jacobian;
        }
        (Hessian::Bfgs, Some(last)) => {
            // y = ∇L(w⁺, λ) − ∇L(w, λ), ∇L = ∇φ_t + J_cᵀ λ, block by block.
            let y = &parts.tracking_gradient - last.gradient
                + (&point.constraint_jacobian - last.constraint_jacobian).transpose()
                    * last.multipliers;
            for block in blocks {
                let (start, n) = (block.start, block.len());
                let mut b = curvature.view((start, start), (n, n)).clone_owned();
                damped_bfgs(
                    &mut b,
                    &last.step.rows(start, n).clone_owned(),
                    &y.rows(start, n).clone_owned(),
                );
                curvature.view_mut((start, start), (n, n)).copy_from(&b);
            }
        }
        (Hessian::Bfgs, None) => {
            // Each block starts positive definite: its Gauss–Newton block plus 1e-6 of its
            // largest diagonal entry (a block with no tracking rows — x_N's — gets the identity
            // scaled to the whole matrix). From a singular block the damped update subtracts
            // two nearly equal rank-one terms and loses definiteness to round-off.
            *curvature = parts.tracking_gauss_newton.clone();
            let whole = curvature.diagonal().amax().max(f64::MIN_POSITIVE);
            for block in blocks {
                let largest = (block.clone())
                    .map(|i| curvature[(i, i)])
                    .fold(0.0, f64::max);
                let shift = 1e-6 * if largest > 0.0 { largest } else { whole };
                for i in block.clone() {
                    curvature[(i, i)] += shift;
                }
            }
        }
    }
    &*curvature + &parts.rate_hessian
}

/// The controller.
#[derive(Clone, Debug)]
pub struct Nmpc<'m, M, const NY: usize, const NZ: usize> {
    /// The NLP it solves.
    pub nlp: Nlp<'m, M>,
    settings: NmpcSettings,
    /// The last solution (the next warm start, shifted).
    w: Option<DVector<f64>>,
    /// The algebraic variables at the intervals' ends of the last solution.
    z_ends: Vec<[f64; NZ]>,
    /// The last solve's report.
    pub report: SqpReport,
}

impl<'m, M, const NY: usize, const NZ: usize> Nmpc<'m, M, NY, NZ> {
    /// A controller of `model` manipulating the parameters named `inputs` to make the output
    /// named `output` track a setpoint. Errors: an unknown name, bounds with `u_min > u_max`
    /// or not finite, a horizon of 0, an odd number of quadrature intervals.
    pub fn new<const NP: usize>(
        model: &'m M,
        inputs: &[&'m str],
        output: &'m str,
        settings: NmpcSettings,
    ) -> Result<Self, ControlError>
    where
        M: HybridModel<NY, NZ, NP>,
    {
        settings.check(inputs)?;
        let invalid = |what: String| ControlError::InvalidArgument { what };
        let input_positions = inputs
            .iter()
            .map(|name| {
                // The model's names are qualified (`u.flow`); the caller writes the field.
                let field = |p: &&str| p.split_once('.').map_or(*p, |(_, field)| field) == *name;
                M::PARAMETER_NAMES
                    .iter()
                    .position(field)
                    .ok_or_else(|| invalid(format!("no parameter or input named `{name}`")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let output_index = M::OUTPUT_NAMES
            .iter()
            .position(|o| *o == output)
            .ok_or_else(|| {
                invalid(format!(
                    "no output named `{output}` (the model has {:?})",
                    M::OUTPUT_NAMES
                ))
            })?;
        if matches!(settings.formulation, Formulation::Relaxed { .. }) && !M::GUARDS.is_empty() {
            return Err(invalid(format!(
                "the relaxed formulation needs a model without guards (this one has {})",
                M::GUARDS.len()
            )));
        }
        let q = settings.quadrature_intervals;
        let nlp = Nlp {
            model,
            sizes: (NY, NZ),
            horizon: settings.horizon,
            sample_time: settings.sample_time,
            steps_per_interval: settings.steps_per_interval,
            quadrature_intervals: q,
            tolerances: settings.newton_tolerances,
            input_positions,
            output: output_index,
            weights: settings.weights.clone(),
            formulation: settings.formulation,
        };
        Ok(Nmpc {
            nlp,
            settings,
            w: None,
            z_ends: Vec::new(),
            report: SqpReport::default(),
        })
    }

    /// Algebraic decision variables per interval.
    fn algebraic_variables(&self) -> usize {
        match self.settings.formulation {
            Formulation::Consistent => 0,
            Formulation::Relaxed { .. } => NZ,
        }
    }

    /// The first iterate: the last solution shifted by one interval (its last input and
    /// final state repeated), or, at the first call, `x̂`, `ẑ` and `u_{k−1}` everywhere (the
    /// seed's §IV-B).
    fn warm_start<const NP: usize>(&self, data: &OcpData<'_, NY, NZ, NP>) -> DVector<f64> {
        let nzd = self.algebraic_variables();
        let block = NY + nzd + self.nlp.input_positions.len();
        let n = self.nlp.variables();
        match &self.w {
            Some(w) => DVector::from_fn(n, |i, _| w[if i + block < n { i + block } else { i }]),
            None => DVector::from_fn(n, |i, _| match i % block {
                k if k < NY => data.x_hat[k],
                k if k < NY + nzd => data.z_hat[k - NY],
                k => data.u_previous[k - NY - nzd],
            }),
        }
    }

    /// The algebraic guesses of the intervals: `ẑ` for the first, the end of the previous
    /// interval (of the solution `z_ends` belongs to, shifted by `shift` intervals) for the
    /// others.
    fn guesses<const NP: usize>(
        &self,
        data: &OcpData<'_, NY, NZ, NP>,
        z_ends: &[[f64; NZ]],
        shift: usize,
    ) -> Vec<[f64; NZ]> {
        (0..self.nlp.horizon)
            .map(
                |j| match (j + shift).checked_sub(1).and_then(|k| z_ends.get(k)) {
                    Some(z) if j > 0 => *z,
                    _ => data.z_hat,
                },
            )
            .collect()
    }

    /// Solves the OCP at `data` and returns the first input `u_0*`. On
    /// [`ControlError::SqpNotConverged`] the last iterate is kept as the next warm start.
    pub fn solve<
        const NP: usize,
        const N: usize,
        const NS: usize,
        const NR: usize,
        const NRS: usize,
    >(
        &mut self,
        data: &OcpData<'_, NY, NZ, NP>,
    ) -> Result<Vec<f64>, ControlError>
    where
        M: HybridModel<NY, NZ, NP>
            + ModelSizes<N, NS>
            + RelaxedSizes<NR, NRS>
            + ModelTypes<NY, NZ, NP>,
    {
        let nu = self.nlp.input_positions.len();
        if data.u_previous.len() != nu {
            return Err(ControlError::InvalidArgument {
                what: format!("{} previous inputs for {nu} inputs", data.u_previous.len()),
            });
        }
        let nzd = self.algebraic_variables();
        let block = NY + nzd + nu;
        let bounds = &self.settings.input_bounds;
        let bounded: Vec<(usize, f64, f64)> = (0..self.nlp.horizon * nu)
            .map(|k| {
                let index = k / nu * block + NY + nzd + k % nu;
                (index, bounds[k % nu].0, bounds[k % nu].1)
            })
            .collect();
        let mut w = self.warm_start(data);
        let mut guesses = self.guesses(data, &self.z_ends, usize::from(self.w.is_some()));
        let mut curvature = DMatrix::zeros(0, 0);
        let blocks = self.nlp.blocks();
        let mut last: Option<LastStep> = None;
        let mut step_size = f64::INFINITY;
        for iteration in 1..=self.settings.max_iterations {
            let point = self
                .nlp
                .evaluate::<NY, NZ, NP, N, NS, NR, NRS>(data, &w, &guesses)?;
            let parts = ObjectiveParts::of(&point);
            let hessian = update_hessian(
                self.settings.hessian,
                &mut curvature,
                last.take(),
                &point,
                &parts,
                &blocks,
            );
            self.report = SqpReport {
                iterations: iteration,
                objective: point.objective(),
                violation: point.constraints.amax(),
            };
            let qp = qp_step(&point, &hessian, &w, &bounded, data.t)?;
            step_size = (0..w.len())
                .map(|i| qp.step[i].abs() / (1.0 + w[i].abs()))
                .fold(0.0, f64::max);
            w += &qp.step;
            self.z_ends = point
                .z_ends
                .iter()
                .map(|z| core::array::from_fn(|i| z[i]))
                .collect();
            guesses = self.guesses(data, &self.z_ends, 0);
            let converged = step_size <= self.settings.tolerance;
            last = Some(LastStep {
                step: qp.step,
                gradient: parts.tracking_gradient,
                constraint_jacobian: point.constraint_jacobian,
                multipliers: qp.multipliers,
            });
            if converged {
                break;
            }
        }
        let u0 = w.as_slice()[NY + nzd..NY + nzd + nu].to_vec();
        self.w = Some(w);
        if step_size <= self.settings.tolerance {
            Ok(u0)
        } else {
            Err(ControlError::SqpNotConverged {
                t: data.t,
                iterations: self.settings.max_iterations,
                step: step_size,
                violation: self.report.violation,
            })
        }
    }
}
