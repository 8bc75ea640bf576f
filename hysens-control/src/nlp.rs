//! The multiple-shooting NLP of Christensen et al.'s OCP (§IV-B, Eqs. 43–46) as a
//! least-squares objective with equality constraints, evaluated with exact derivatives:
//!
//! `min ½‖r(w)‖²  s.t.  c(w) = 0,  u_min ≤ u_j ≤ u_max`, over
//! `w = (x_0, [y_0,] u_0, x_1, …, x_{N−1}, [y_{N−1},] u_{N−1}, x_N)` (`y_j`, the algebraic
//! variables at the intervals' starts, in the relaxed formulation only), with
//!
//! - the tracking term `½∫ ‖z − z̄‖²_{Q_z} dt` as residuals `√(Q_z ω_k) (z(t_{j,k}) − z̄(t_{j,k}))`
//!   at the nodes of Simpson's rule (weights `ω_k`) on each interval — the quadrature of the
//!   integral of the seed, which integrates it as an extra state;
//! - the input-rate penalty `½ Σ ‖Δu_j‖²_{Q_Δu/T_s}`, `Δu_0 = u_0 − u_{−1}` with the input
//!   applied last;
//! - the terminal term `½ ‖z(t_N) − z̄(t_N)‖²_{Q_z/T_s}` at the last interval's end;
//! - the constraints `x_0 − x̂ = 0` and `x_{j+1} − F_j = 0` (continuity), and in the relaxed
//!   formulation ([`Formulation::Relaxed`]) the consistency conditions
//!   `g(t_j, x_j, y_j, u_j) = 0` of Bock et al. (pitfall P13: the seed omits them).
//!
//! Every derivative is the runtime's forward sensitivity of the interval's solve (the exact
//! derivative of its fixed ESDIRK34 steps), so `∇φ = Jᵣᵀ r` and the constraint Jacobian are
//! exact to round-off: `tests/nmpc.rs` checks them against central differences.

use crate::error::ControlError;
use crate::quadrature::simpson_weight;
use crate::shooting::{integrate, Interval, IntervalSetup};
use hysens::runtime::{HybridModel, ModelSizes, ModelTypes};
use nalgebra::{DMatrix, DVector};

/// The OCP's data at one sample: where it starts and what it tracks.
#[derive(Clone)]
pub struct OcpData<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// `t_k`.
    pub t: f64,
    /// The estimate `x̂_{k|k}` the horizon starts from.
    pub x_hat: [f64; NY],
    /// A guess of the algebraic variables at `x̂` (the filter's `ẑ`).
    pub z_hat: [f64; NZ],
    /// The parameters (the disturbances `d`; the inputs' entries are overwritten by `u_j`).
    pub p: [f64; NP],
    /// The input applied over the previous sample, `u_{k−1}`.
    pub u_previous: Vec<f64>,
    /// The setpoint `z̄(t)`.
    pub setpoint: &'a dyn Fn(f64) -> f64,
}

/// The objective's weights and the horizon's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct OcpWeights {
    /// `Q_z` (on the tracked output).
    pub q_z: f64,
    /// `Q_Δu` (divided by `T_s` in the objective, as in the seed).
    pub q_du: f64,
}

/// The NLP evaluated at a point `w`.
#[derive(Clone, Debug)]
pub struct NlpPoint {
    /// The residuals `r(w)`: the objective is `½‖r‖²`.
    pub residual: DVector<f64>,
    /// `∂r/∂w`.
    pub residual_jacobian: DMatrix<f64>,
    /// `c(w)`.
    pub constraints: DVector<f64>,
    /// `∂c/∂w`.
    pub constraint_jacobian: DMatrix<f64>,
    /// The algebraic variables at each interval's end (warm-start guesses).
    pub z_ends: Vec<Vec<f64>>,
    /// The rows of `r` that are input rates: linear in `w`, so `Jᵀ J` of these rows is their
    /// exact Hessian; every other row reads one block of `w` (an interval's variables).
    pub rate_rows: core::ops::Range<usize>,
}

impl NlpPoint {
    /// `φ = ½‖r‖²`.
    pub fn objective(&self) -> f64 {
        0.5 * self.residual.norm_squared()
    }
}

/// How the algebraic variables enter the NLP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Formulation {
    /// Each interval starts from the consistent `z` (no algebraic decision variables).
    Consistent,
    /// Bock et al.'s relaxed DAE with decay `η` (Christensen et al.: 1): `w^y_j` are decision
    /// variables and `g(t_j, w^x_j, w^y_j, u_j) = 0` are constraints. For models without
    /// guards.
    Relaxed {
        /// `η`.
        decay: f64,
    },
}

/// The multiple-shooting NLP of a model.
#[derive(Clone, Debug)]
pub struct Nlp<'m, M> {
    /// The model.
    pub model: &'m M,
    /// Differential states and algebraic variables of the model.
    pub sizes: (usize, usize),
    /// Intervals in the horizon, `N`.
    pub horizon: usize,
    /// `T_s`.
    pub sample_time: f64,
    /// ESDIRK34 steps per interval.
    pub steps_per_interval: usize,
    /// Simpson sub-intervals of the tracking integral per interval (even).
    pub quadrature_intervals: usize,
    /// Newton tolerances of the interval solves.
    pub tolerances: (f64, f64),
    /// The inputs' positions in the parameter vector.
    pub input_positions: Vec<usize>,
    /// The tracked output (an index of `Model::OUTPUT_NAMES`).
    pub output: usize,
    /// The weights.
    pub weights: OcpWeights,
    /// The formulation.
    pub formulation: Formulation,
}

impl<M> Nlp<'_, M> {
    /// Algebraic decision variables per interval: `NZ` relaxed, 0 consistent.
    fn algebraic_variables(&self) -> usize {
        match self.formulation {
            Formulation::Consistent => 0,
            Formulation::Relaxed { .. } => self.sizes.1,
        }
    }

    /// Size of one `(x_j, [y_j,] u_j)` block.
    fn block(&self) -> usize {
        self.sizes.0 + self.algebraic_variables() + self.input_positions.len()
    }

    /// The blocks of `w`: `(x_j, [y_j,] u_j)` for each interval, then `x_N`. The Lagrangian
    /// of multiple shooting is separable over them but for the input-rate terms.
    pub fn blocks(&self) -> Vec<core::ops::Range<usize>> {
        let block = self.block();
        let mut blocks: Vec<_> = (0..self.horizon)
            .map(|j| j * block..(j + 1) * block)
            .collect();
        blocks.push(self.horizon * block..self.variables());
        blocks
    }

    /// Number of decision variables, `N (NY [+ NZ] + NU) + NY`.
    pub fn variables(&self) -> usize {
        self.horizon * self.block() + self.sizes.0
    }

    /// `(x_j, y_j, u_j)` of `w` (`y_j` empty in the consistent formulation, `y_N` and `u_N`
    /// empty).
    pub fn split<'w>(&self, w: &'w DVector<f64>, j: usize) -> (&'w [f64], &'w [f64], &'w [f64]) {
        let (ny, nz, nu) = (
            self.sizes.0,
            self.algebraic_variables(),
            self.input_positions.len(),
        );
        let w = &w.as_slice()[j * self.block()..];
        if j < self.horizon {
            (&w[..ny], &w[ny..ny + nz], &w[ny + nz..ny + nz + nu])
        } else {
            (&w[..ny], &[], &[])
        }
    }

    /// The setup of every interval's solve.
    fn interval_setup(&self) -> IntervalSetup<'_> {
        IntervalSetup {
            length: self.sample_time,
            steps: self.steps_per_interval,
            quadrature_intervals: self.quadrature_intervals,
            tolerances: self.tolerances,
            inputs: &self.input_positions,
            output: self.output,
            relaxation: match self.formulation {
                Formulation::Consistent => None,
                Formulation::Relaxed { decay } => Some(decay),
            },
        }
    }

    /// The NLP at `w`, each interval's algebraic guess from `z_guesses` (one per interval;
    /// unused in the relaxed formulation, where `w^y_j` is the start).
    ///
    /// Rows of `r`: the tracking residuals (`nodes` per interval), the input rates (`NU` per
    /// interval), the terminal residual. Rows of `c`: `x_0 − x̂`, the continuity conditions
    /// (`NY` per interval), the consistency conditions (`NZ` per interval, relaxed only).
    pub fn evaluate<
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
        const NR: usize,
        const NRS: usize,
    >(
        &self,
        data: &OcpData<'_, NY, NZ, NP>,
        w: &DVector<f64>,
        z_guesses: &[[f64; NZ]],
    ) -> Result<NlpPoint, ControlError>
    where
        M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
    {
        let (nu, horizon, nzd) = (
            self.input_positions.len(),
            self.horizon,
            self.algebraic_variables(),
        );
        let nodes = self.quadrature_intervals + 1;
        let n_r = horizon * (nodes + nu) + 1;
        let n_c = (horizon + 1) * NY + horizon * nzd;
        let mut out = NlpPoint {
            residual: DVector::zeros(n_r),
            residual_jacobian: DMatrix::zeros(n_r, self.variables()),
            constraints: DVector::zeros(n_c),
            constraint_jacobian: DMatrix::zeros(n_c, self.variables()),
            z_ends: Vec::with_capacity(horizon),
            rate_rows: horizon * nodes..horizon * (nodes + nu),
        };
        for i in 0..NY {
            out.constraints[i] = w[i] - data.x_hat[i];
            out.constraint_jacobian[(i, i)] = 1.0;
        }
        let setup = self.interval_setup();
        for j in 0..horizon {
            let (x, y, u) = self.split(w, j);
            let x: [f64; NY] = core::array::from_fn(|i| x[i]);
            let start: [f64; NZ] = match nzd {
                0 => z_guesses.get(j).copied().unwrap_or(data.z_hat),
                _ => core::array::from_fn(|i| y[i]),
            };
            let mut p = data.p;
            for (&position, &value) in self.input_positions.iter().zip(u) {
                p[position] = value;
            }
            let t0 = data.t + j as f64 * self.sample_time;
            let interval = integrate::<M, NY, NZ, NP, N, NS, NR, NRS>(
                self.model,
                &setup,
                t0,
                (&x, &start, &p),
            )?;
            self.tracking_rows(j, t0, &interval, data.setpoint, &mut out);
            self.rate_rows(j, w, &data.u_previous, &mut out);
            self.interval_constraints(j, &interval, w, &mut out);
            if j + 1 == horizon {
                self.terminal_row(
                    &interval,
                    data.t + horizon as f64 * self.sample_time,
                    data.setpoint,
                    &mut out,
                );
            }
            out.z_ends.push(interval.z_end);
        }
        Ok(out)
    }

    /// The tracking residuals `√(Q_z ω_k) (z(t_{j,k}) − z̄(t_{j,k}))` of interval `j` at its
    /// Simpson nodes, and their derivatives.
    fn tracking_rows(
        &self,
        j: usize,
        t0: f64,
        interval: &Interval,
        setpoint: &dyn Fn(f64) -> f64,
        out: &mut NlpPoint,
    ) {
        let (nodes, block) = (self.quadrature_intervals + 1, self.block());
        let h = self.sample_time / self.quadrature_intervals as f64;
        for k in 0..nodes {
            let weight = h / 3.0 * simpson_weight(k, self.quadrature_intervals);
            let scale = (self.weights.q_z * weight).sqrt();
            let row = j * nodes + k;
            out.residual[row] = scale * (interval.output[k] - setpoint(t0 + k as f64 * h));
            for c in 0..block {
                out.residual_jacobian[(row, j * block + c)] =
                    scale * interval.output_jacobian[(k, c)];
            }
        }
    }

    /// The input-rate residuals `√(Q_Δu/T_s) (u_j − u_{j−1})` (`u_{−1}` the input applied
    /// last).
    fn rate_rows(&self, j: usize, w: &DVector<f64>, u_previous: &[f64], out: &mut NlpPoint) {
        let (nu, block, nodes) = (
            self.input_positions.len(),
            self.block(),
            self.quadrature_intervals + 1,
        );
        let offset = self.sizes.0 + self.algebraic_variables();
        let scale = (self.weights.q_du / self.sample_time).sqrt();
        let u = self.split(w, j).2;
        for (i, &uj) in u.iter().enumerate() {
            let row = self.horizon * nodes + j * nu + i;
            let before = match j {
                0 => u_previous[i],
                _ => self.split(w, j - 1).2[i],
            };
            out.residual[row] = scale * (uj - before);
            out.residual_jacobian[(row, j * block + offset + i)] = scale;
            if j > 0 {
                out.residual_jacobian[(row, (j - 1) * block + offset + i)] = -scale;
            }
        }
    }

    /// The continuity conditions `x_{j+1} − F_j = 0` of interval `j` and, relaxed, its
    /// consistency conditions `g(t_j, w^x_j, w^y_j, u_j) = 0`.
    fn interval_constraints(
        &self,
        j: usize,
        interval: &Interval,
        w: &DVector<f64>,
        out: &mut NlpPoint,
    ) {
        let (ny, block) = (self.sizes.0, self.block());
        let (column, next) = (j * block, (j + 1) * block);
        for i in 0..ny {
            let row = (j + 1) * ny + i;
            out.constraints[row] = w[next + i] - interval.end[i];
            out.constraint_jacobian[(row, next + i)] = 1.0;
            for c in 0..block {
                out.constraint_jacobian[(row, column + c)] = -interval.jacobian[(i, c)];
            }
        }
        if let Some((g, dg)) = &interval.consistency {
            let nzd = self.algebraic_variables();
            for i in 0..nzd {
                let row = (self.horizon + 1) * ny + j * nzd + i;
                out.constraints[row] = g[i];
                for c in 0..block {
                    out.constraint_jacobian[(row, column + c)] = dg[(i, c)];
                }
            }
        }
    }

    /// The terminal residual `√(Q_z/T_s) (z(t_N) − z̄(t_N))` at the last interval's end.
    fn terminal_row(
        &self,
        interval: &Interval,
        t_end: f64,
        setpoint: &dyn Fn(f64) -> f64,
        out: &mut NlpPoint,
    ) {
        let (block, last_node) = (self.block(), self.quadrature_intervals);
        let row = out.residual.len() - 1;
        let scale = (self.weights.q_z / self.sample_time).sqrt();
        out.residual[row] = scale * (interval.output[last_node] - setpoint(t_end));
        for c in 0..block {
            out.residual_jacobian[(row, (self.horizon - 1) * block + c)] =
                scale * interval.output_jacobian[(last_node, c)];
        }
    }
}
