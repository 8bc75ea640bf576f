//! The stochastic closed-loop simulator of Christensen et al. (§IV, Eqs. 25–29): the plant
//! `dx = f dt + σ dω`, `0 = g` advanced over a sample with the inputs held (zero-order hold)
//! by `M` implicit–explicit sub-steps,
//!
//! `x_{n+1} = x_n + f(t_{n+1}, x_{n+1}, z_{n+1}, p) Δt + σ Δω_n`, `0 = g(t_{n+1}, x_{n+1}, z_{n+1}, p)`,
//!
//! implicit Euler in the drift, explicit in the diffusion, `Δω_n ~ N(0, I Δt)` (the seed's
//! Eq. 27 prints `σ ω`; the increment is meant). Each sub-step solves its residual by Newton's
//! method with the exact Jacobian at every iterate (Eq. 29). The random increments come from
//! the caller's generator, so a seeded generator reproduces a run.

use crate::algebraic::algebraic_jacobian;
use crate::error::ControlError;
use crate::model::ModeOf;
use hysens::runtime::HybridModel;
use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution, StandardNormal};

/// Tolerances of each sub-step's Newton iteration (relative, absolute): the sub-step's
/// equations solved to near round-off, so that the simulated plant is the scheme, not the
/// scheme plus Newton error.
const NEWTON_TOLERANCES: (f64, f64) = (1e-11, 1e-12);
/// Newton iterations per sub-step before giving up.
const MAX_ITERATIONS: usize = 20;

/// The implicit–explicit stochastic simulator of one mode of a model.
#[derive(Clone, Debug)]
pub struct StochasticSimulator<'m, M, const NY: usize, const NZ: usize, const NP: usize> {
    /// The mode the plant runs in.
    pub plant: ModeOf<'m, M, NY, NZ, NP>,
    /// The diffusion `σ` (`NY × NW`, one column per Wiener process).
    pub sigma: DMatrix<f64>,
    /// Sub-steps per call of [`StochasticSimulator::advance`] (`M` of Eq. 25).
    pub substeps: usize,
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> StochasticSimulator<'_, M, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    /// The state at `t1` from `(y, z)` at `t0` with the parameters (inputs and disturbances
    /// held) `p`: `substeps` equal sub-steps of the scheme, with increments drawn from `rng`.
    /// `z` is the guess of the first sub-step's algebraic variables (the consistent `z` at
    /// `t0` is best).
    pub fn advance<R: rand::Rng + ?Sized>(
        &self,
        (t0, t1): (f64, f64),
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        rng: &mut R,
    ) -> Result<([f64; NY], [f64; NZ]), ControlError> {
        if self.sigma.nrows() != NY {
            return Err(ControlError::InvalidArgument {
                what: format!(
                    "σ has {} rows; the model has {NY} states",
                    self.sigma.nrows()
                ),
            });
        }
        let forward = t1 > t0 && (t1 - t0).is_finite();
        if self.substeps == 0 || !forward {
            return Err(ControlError::InvalidArgument {
                what: format!(
                    "an interval [{t0}, {t1}] with {} sub-steps: need t1 > t0 and at least one",
                    self.substeps
                ),
            });
        }
        let dt = (t1 - t0) / self.substeps as f64;
        let (mut y, mut z) = (*y, *z);
        for n in 0..self.substeps {
            let dw = DVector::from_fn(self.sigma.ncols(), |_, _| {
                dt.sqrt() * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng)
            });
            let noise = &self.sigma * dw;
            let t = if n + 1 == self.substeps {
                t1
            } else {
                t0 + (n + 1) as f64 * dt
            };
            (y, z) = self.substep(t, dt, &y, &z, p, &noise)?;
        }
        Ok((y, z))
    }

    /// One sub-step to `t` of size `dt` with the diffusion increment `noise = σ Δω`.
    fn substep(
        &self,
        t: f64,
        dt: f64,
        y0: &[f64; NY],
        z0: &[f64; NZ],
        p: &[f64; NP],
        noise: &DVector<f64>,
    ) -> Result<([f64; NY], [f64; NZ]), ControlError> {
        const DURING: &str = "a sub-step of the stochastic simulator";
        let (mut y, mut z) = (*y0, *z0);
        let mut correction = f64::INFINITY;
        for _ in 0..MAX_ITERATIONS {
            let (f, g) = self.plant.residual(t, &y, &z, p);
            let jac = self.plant.jacobian(t, &y, &z, p);
            algebraic_jacobian::<NY, NZ>(&jac.gz, t, DURING)?;
            let n = NY + NZ;
            let residual = DVector::from_fn(n, |i, _| {
                if i < NY {
                    -(y[i] - y0[i] - dt * f[i] - noise[i])
                } else {
                    -g[i - NY]
                }
            });
            if !residual.iter().all(|v| v.is_finite()) {
                return Err(ControlError::NonFinite {
                    t,
                    what: "the residual of a sub-step",
                });
            }
            let fy = jac.f_y();
            let matrix = DMatrix::from_fn(n, n, |i, j| match (i < NY, j < NY) {
                (true, true) => f64::from(i == j) - dt * fy[i][j],
                (true, false) => -dt * jac.fz[i][j - NY],
                (false, true) => jac.gy[i - NY][j],
                (false, false) => jac.gz[i - NY][j - NY],
            });
            let step = matrix
                .lu()
                .solve(&residual)
                .ok_or(ControlError::SingularAlgebraicJacobian { t, during: DURING })?;
            let (rtol, atol) = NEWTON_TOLERANCES;
            correction = 0.0;
            for (i, d) in step.iter().enumerate() {
                let v = if i < NY { &mut y[i] } else { &mut z[i - NY] };
                *v += d;
                correction = f64::max(correction, d.abs() / (atol + rtol * v.abs()));
            }
            if correction <= 1.0 {
                return Ok((y, z));
            }
        }
        Err(ControlError::NewtonFailure {
            t,
            during: DURING,
            iterations: MAX_ITERATIONS,
            last_correction: correction,
        })
    }
}
