//! The continuous-discrete extended Kalman filter of Christensen et al. (§IV-A, Eqs. 31–42)
//! for an index-1 DAE with additive process noise, `dx = f dt + σ dω`, `0 = g`, measured by
//! named outputs of the model with noise `v_k ~ N(0, R)`.
//!
//! **Update** at `t_k` (Eqs. 31–40): the innovation `e = y_m − m(x̂, ẑ)` with the output
//! Jacobian on the algebraic manifold, `C = m_x + m_z ∂z/∂x` (`∂z/∂x = −g_z⁻¹ g_x`, Eq. 35),
//! `R_e = C P Cᵀ + R`, `K = P Cᵀ R_e⁻¹`, `x̂ += K e`, the covariance in Joseph form
//! `P = (I − KC) P (I − KC)ᵀ + K R Kᵀ` (symmetric and positive semi-definite whatever the
//! round-off in `K`), and `ẑ` re-solved from `g(x̂, ẑ) = 0` (Eq. 40).
//!
//! **Prediction** over `[t_k, t_{k+1}]` (Eqs. 41–42): one solve of the model from `(x̂, ẑ)`
//! with forward sensitivities to the initial states, which are the transition matrix along
//! the consistent manifold, `Φ(t, t_k) = dx(t)/dx(t_k)` with `z` following (hysens makes the
//! start consistent and differentiates that too: pitfall P12 holds by construction), and
//! `P(t_{k+1}) = Φ P Φᵀ + Q`, `Q = ∫ Φ(t_{k+1}, s) σσᵀ Φ(t_{k+1}, s)ᵀ ds` (Eq. 42 with the
//! transpose its print misses). The seed does not say how to compute `Q`. Here: composite
//! Simpson's rule on `n` equal sub-intervals (`n` even, [`Prediction::quadrature_intervals`]),
//! with `Φ(t_{k+1}, s_i) = Φ(t_{k+1}, t_k) Φ(s_i, t_k)⁻¹` from the solve's samples at the
//! nodes (the flow's composition rule on one trajectory). The integrand is smooth, so the
//! error falls as `h⁴`; `tests/ekf_linear.rs` measures it against the closed form of a linear
//! system. With a hybrid model the solve crosses the events on its way and `Φ` carries their
//! jumps (the exact sensitivity transfer of the runtime); the composition rule still holds
//! through them, but the integrand jumps at an event, so Simpson's rule is then only first
//! order in the node spacing: use more nodes when a sample holds events.

use crate::error::ControlError;
use crate::model::ModeOf;
use crate::quadrature::simpson_weight;
use hysens::runtime::{
    Fields, HybridModel, InitialStates, ModelSizes, ModelTypes, Params, SampleState, Solver,
    ESDIRK34,
};
use nalgebra::{DMatrix, DVector};

/// How the filter's prediction integrates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Relative and absolute tolerance of the solve (with a fixed step, of its Newton test).
    pub tolerances: (f64, f64),
    /// Fixed steps of this size (Christensen et al.: `0.2 T_s`, ESDIRK34), or adaptive ones.
    pub fixed_step: Option<f64>,
    /// Sub-intervals of Simpson's rule for the process-noise integral (even, at least 2).
    pub quadrature_intervals: usize,
}

impl Default for Prediction {
    /// Adaptive ESDIRK34 steps at rtol 1e-8, atol 1e-10; Simpson's rule on 4 sub-intervals.
    fn default() -> Self {
        Prediction {
            tolerances: (1e-8, 1e-10),
            fixed_step: None,
            quadrature_intervals: 4,
        }
    }
}

/// The innovation of one update, for monitoring and consistency tests.
#[derive(Clone, Debug, PartialEq)]
pub struct Innovation {
    /// `e = y_m − m(x̂_{k|k−1})`.
    pub residual: DVector<f64>,
    /// Its covariance `R_e = C P Cᵀ + R`.
    pub covariance: DMatrix<f64>,
}

impl Innovation {
    /// The normalized innovation squared `eᵀ R_e⁻¹ e` (χ² with as many degrees of freedom
    /// as measurements, for a consistent filter).
    pub fn normalized_squared(&self) -> f64 {
        match self.covariance.clone().cholesky() {
            Some(c) => self.residual.dot(&c.solve(&self.residual)),
            None => f64::NAN,
        }
    }
}

/// The filter: the estimate `(x̂, ẑ)` at `t`, its covariance `P` (of the differential
/// states), and what it needs to update and predict.
#[derive(Clone, Debug)]
pub struct ContinuousDiscreteEkf<'m, M, const NY: usize, const NZ: usize, const NP: usize> {
    /// The model and the mode of the estimate (`Model::MODES` index; each prediction sets it
    /// to the mode its solve ends in).
    pub plant: ModeOf<'m, M, NY, NZ, NP>,
    /// The measured outputs, as indices of `Model::OUTPUT_NAMES`.
    pub measured: Vec<usize>,
    /// Measurement noise covariance `R`.
    pub measurement_noise: DMatrix<f64>,
    /// Diffusion `σ` (`NY × NW`).
    pub sigma: DMatrix<f64>,
    /// How to predict.
    pub prediction: Prediction,
    /// Time of the estimate.
    pub t: f64,
    /// `x̂`.
    pub y: [f64; NY],
    /// `ẑ`, consistent with `x̂`.
    pub z: [f64; NZ],
    /// `P`.
    pub covariance: DMatrix<f64>,
}

impl<'m, M, const NY: usize, const NZ: usize, const NP: usize>
    ContinuousDiscreteEkf<'m, M, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP> + ModelTypes<NY, NZ, NP>,
{
    /// A filter of `model`'s `mode` measuring the outputs named in `measured` with noise
    /// covariance `measurement_noise`, process diffusion `sigma`, starting from `x̂ = y0`
    /// (with `ẑ` made consistent from the guess `z_guess`) and `P = p0` at `t0`.
    /// Errors: an unknown output, sizes that do not match, an inconsistent start.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        plant: ModeOf<'m, M, NY, NZ, NP>,
        measured: &[&str],
        measurement_noise: DMatrix<f64>,
        sigma: DMatrix<f64>,
        (t0, y0, z_guess, p): (f64, [f64; NY], [f64; NZ], &[f64; NP]),
        p0: DMatrix<f64>,
    ) -> Result<Self, ControlError> {
        let measured = measured
            .iter()
            .map(|name| {
                M::OUTPUT_NAMES
                    .iter()
                    .position(|o| o == name)
                    .ok_or_else(|| ControlError::InvalidArgument {
                        what: format!(
                            "no output named `{name}` (the model has {:?})",
                            M::OUTPUT_NAMES
                        ),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let nm = measured.len();
        if nm == 0 {
            return Err(ControlError::InvalidArgument {
                what: "a filter needs at least one measured output".into(),
            });
        }
        let shapes = [
            (measurement_noise.shape(), (nm, nm), "R"),
            (sigma.shape(), (NY, sigma.ncols()), "σ"),
            (p0.shape(), (NY, NY), "P0"),
        ];
        for (shape, expected, what) in shapes {
            if shape != expected {
                return Err(ControlError::InvalidArgument {
                    what: format!("{what} is {shape:?}, expected {expected:?}"),
                });
            }
        }
        let z = plant.consistent_algebraic(t0, &y0, &z_guess, p, "the filter's start")?;
        Ok(ContinuousDiscreteEkf {
            plant,
            measured,
            measurement_noise,
            sigma,
            prediction: Prediction::default(),
            t: t0,
            y: y0,
            z,
            covariance: p0,
        })
    }

    /// The measurement update with `measurement` (one value per measured output) at the
    /// filter's time, with the parameters `p` of the measurement equation (Christensen et al.
    /// use the previous input `u_{k−1}` and the current disturbance `d_k`: pitfall P11).
    /// Returns the innovation. On error the estimate is unchanged.
    pub fn update(
        &mut self,
        measurement: &[f64],
        p: &[f64; NP],
    ) -> Result<Innovation, ControlError> {
        let t = self.t;
        let nm = self.measured.len();
        if measurement.len() != nm || !measurement.iter().all(|v| v.is_finite()) {
            return Err(ControlError::InvalidArgument {
                what: format!(
                    "{} measurements, expected {nm} finite values",
                    measurement.len()
                ),
            });
        }
        let dz_dy =
            self.plant
                .algebraic_sensitivity(t, &self.y, &self.z, p, "the filter's update")?;
        let mut c = DMatrix::zeros(nm, NY);
        let mut residual = DVector::zeros(nm);
        for (row, &output) in self.measured.iter().enumerate() {
            let (value, partials) = self.plant.output(output, t, &self.y, &self.z, p);
            residual[row] = measurement[row] - value;
            for j in 0..NY {
                let through_z: f64 = (0..NZ).map(|i| partials.z[i] * dz_dy[(i, j)]).sum();
                c[(row, j)] = partials.y[j] + through_z;
            }
        }
        let pc = &self.covariance * c.transpose();
        let covariance = &c * &pc + &self.measurement_noise;
        let innovation = Innovation {
            residual,
            covariance,
        };
        let chol = innovation
            .covariance
            .clone()
            .cholesky()
            .ok_or(ControlError::SingularInnovationCovariance { t })?;
        // K = P Cᵀ R_e⁻¹, from R_e Kᵀ = C P.
        let gain = chol.solve(&pc.transpose()).transpose();
        let y_new = DVector::from_column_slice(&self.y) + &gain * &innovation.residual;
        let i_kc = DMatrix::identity(NY, NY) - &gain * &c;
        let joseph = &i_kc * &self.covariance * i_kc.transpose()
            + &gain * &self.measurement_noise * gain.transpose();
        let y: [f64; NY] = core::array::from_fn(|i| y_new[i]);
        if !y.iter().chain(joseph.iter()).all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite {
                t,
                what: "the updated estimate",
            });
        }
        let z = self
            .plant
            .consistent_algebraic(t, &y, &self.z, p, "the filter's re-solve of ẑ")?;
        (self.y, self.z, self.covariance) = (y, z, symmetric(joseph));
        Ok(innovation)
    }
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> ContinuousDiscreteEkf<'_, M, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP> + ModelTypes<NY, NZ, NP>,
{
    /// The prediction to `t_next` with the parameters (inputs held, disturbances) `p`.
    /// On error the estimate is unchanged.
    pub fn predict<const N: usize, const NS: usize>(
        &mut self,
        t_next: f64,
        p: &[f64; NP],
    ) -> Result<(), ControlError>
    where
        M: ModelSizes<N, NS>,
    {
        let n = self.prediction.quadrature_intervals;
        let forward = t_next > self.t && t_next.is_finite();
        if n < 2 || !n.is_multiple_of(2) || !forward {
            return Err(ControlError::InvalidArgument {
                what: format!(
                    "a prediction from {} to {t_next} with {n} quadrature intervals \
                     (need t_next > t and an even number, at least 2)",
                    self.t
                ),
            });
        }
        let (t0, h) = (self.t, (t_next - self.t) / n as f64);
        let nodes: Vec<f64> = (0..=n)
            .map(|i| if i == n { t_next } else { t0 + i as f64 * h })
            .collect();
        let (rtol, atol) = self.prediction.tolerances;
        let mut solver = Solver::new(self.plant.model)
            .tableau(&ESDIRK34)
            .tolerances(rtol, atol)
            .sensitivities_to(Params::None, InitialStates::All)
            .samples(&nodes)
            .algebraic_guess(&Fields::from_array(self.z));
        if let Some(step) = self.prediction.fixed_step {
            solver = solver.fixed_step(step);
        }
        let solution = solver
            .solve(
                t0,
                t_next,
                &Fields::from_array(self.y),
                &Fields::from_array(*p),
            )
            .map_err(|failure| ControlError::Solve {
                during: "the filter's prediction",
                message: failure.to_string(),
            })?;
        // Column j of sample k's sensitivities is ∂y(s_k)/∂y_j(t_k): Φ(s_k, t_k).
        let transition =
            |sample: &SampleState<_, NY, NZ>| DMatrix::from_fn(NY, NY, |r, j| sample.dy[j][r]);
        let phi = transition(&solution.samples[n]);
        let noise = &self.sigma * self.sigma.transpose();
        let mut q = DMatrix::zeros(NY, NY);
        for (k, sample) in solution.samples.iter().enumerate() {
            let weight = h / 3.0 * simpson_weight(k, n);
            let back = phi.clone()
                * transition(sample)
                    .try_inverse()
                    .ok_or(ControlError::NonFinite {
                        t: sample.t,
                        what: "the inverse of the transition matrix",
                    })?;
            q += weight * &back * &noise * back.transpose();
        }
        let covariance = symmetric(&phi * &self.covariance * phi.transpose() + q);
        if !covariance.iter().all(|v| v.is_finite()) {
            return Err(ControlError::NonFinite {
                t: t_next,
                what: "the predicted covariance",
            });
        }
        // A hybrid model may end the sample in another mode: the update's algebraic equations
        // are that mode's.
        if let Some(mode) = M::MODES.iter().position(|m| m.name == solution.mode) {
            self.plant.mode = mode;
        }
        (self.t, self.y, self.z, self.covariance) = (t_next, solution.y, solution.z, covariance);
        Ok(())
    }
}

/// `(A + Aᵀ)/2`: the covariance kept exactly symmetric against round-off.
fn symmetric(a: DMatrix<f64>) -> DMatrix<f64> {
    (&a + a.transpose()) * 0.5
}
