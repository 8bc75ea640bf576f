//! One shooting interval of the multiple-shooting NLP (Christensen et al., §IV-B, Eqs. 45–46):
//! the model solved over `[t_j, t_j + T_s]` from `x_j` with the inputs `u_j` held, by ESDIRK34
//! with fixed steps, with forward sensitivities to `x_j` and `u_j`. It returns the interval's
//! end state `F_j` with `A_j = ∂F_j/∂x_j`, `B_j = ∂F_j/∂u_j`, and the tracked output at the
//! nodes of Simpson's rule on the interval with its derivatives: what the tracking integral's
//! least-squares residuals and their Jacobian are made of.
//!
//! The algebraic variables are made consistent at the interval's start (the solver's
//! consistent initialization, differentiated with the rest), so `F_j` depends on `x_j` and
//! `u_j` alone and the NLP has no algebraic decision variables: the consistency conditions
//! that the relaxed formulation of Bock et al. adds to the NLP (the seed omits them, pitfall
//! P13) hold here at every iterate by construction, at the price of an algebraic solve per
//! interval. The relaxed DAE itself, with `w^y_j` as decision variables, is not built.

use crate::error::ControlError;
use hysens::runtime::{
    Fields, HybridModel, InitialStates, ModelSizes, ModelTypes, Params, Solver, Wrt, ESDIRK34,
};
use nalgebra::{DMatrix, DVector};

/// What an interval gives the NLP.
#[derive(Clone, Debug)]
pub(crate) struct Interval {
    /// `F_j`.
    pub end: DVector<f64>,
    /// `∂F_j/∂x_j` (`NY × NY`).
    pub a: DMatrix<f64>,
    /// `∂F_j/∂u_j` (`NY × NU`).
    pub b: DMatrix<f64>,
    /// The tracked output at the quadrature nodes.
    pub output: Vec<f64>,
    /// Its derivatives: row `k` is `[∂o_k/∂x_j, ∂o_k/∂u_j]` (`nodes × (NY + NU)`).
    pub output_jacobian: DMatrix<f64>,
    /// The algebraic variables at the interval's end (the next warm start's guess).
    pub z_end: Vec<f64>,
}

/// How an interval is integrated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntervalSetup<'a> {
    /// `T_s`.
    pub length: f64,
    /// ESDIRK34 steps per interval (the seed: 5).
    pub steps: usize,
    /// Simpson sub-intervals of the tracking integral (even).
    pub quadrature_intervals: usize,
    /// Tolerances of the Newton iteration.
    pub tolerances: (f64, f64),
    /// The input names (a subset of the model's parameters).
    pub inputs: &'a [&'a str],
    /// The tracked output's name.
    pub output: &'a str,
}

/// Integrates interval `[t0, t0 + T_s]` from `x` with parameters `p` (inputs set).
pub(crate) fn integrate<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    setup: &IntervalSetup<'_>,
    t0: f64,
    (x, z_guess, p): (&[f64; NY], &[f64; NZ], &[f64; NP]),
) -> Result<Interval, ControlError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let (n, t1) = (setup.quadrature_intervals, t0 + setup.length);
    let nodes: Vec<f64> = (0..=n)
        .map(|k| {
            if k == n {
                t1
            } else {
                t0 + setup.length * k as f64 / n as f64
            }
        })
        .collect();
    let (rtol, atol) = setup.tolerances;
    let solution = Solver::new(model)
        .tableau(&ESDIRK34)
        .tolerances(rtol, atol)
        .fixed_step(setup.length / setup.steps as f64)
        .sensitivities_to(Params::Only(setup.inputs), InitialStates::All)
        .samples(&nodes)
        .algebraic_guess(&Fields::from_array(*z_guess))
        .solve(t0, t1, &Fields::from_array(*x), &Fields::from_array(*p))
        .map_err(|failure| ControlError::Solve {
            during: "a shooting interval",
            message: failure.to_string(),
        })?;
    let lookup = |e: hysens::runtime::LookupError| ControlError::InvalidArgument {
        what: e.to_string(),
    };
    let wrt: Vec<Wrt<'_>> = M::STATE_NAMES
        .iter()
        .map(|s| Wrt::InitialState(s))
        .chain(setup.inputs.iter().map(|u| Wrt::Param(u)))
        .collect();
    let nu = setup.inputs.len();
    let mut a = DMatrix::zeros(NY, NY);
    let mut b = DMatrix::zeros(NY, nu);
    for (i, state) in M::STATE_NAMES.iter().enumerate() {
        for (j, w) in wrt.iter().enumerate() {
            let d = solution.sensitivity(state, *w).map_err(lookup)?;
            if j < NY {
                a[(i, j)] = d;
            } else {
                b[(i, j - NY)] = d;
            }
        }
    }
    let mut output = Vec::with_capacity(n + 1);
    let mut output_jacobian = DMatrix::zeros(n + 1, NY + nu);
    for k in 0..=n {
        output.push(solution.output(setup.output, k).map_err(lookup)?);
        for (j, w) in wrt.iter().enumerate() {
            output_jacobian[(k, j)] = solution
                .output_sensitivity(setup.output, k, *w)
                .map_err(lookup)?;
        }
    }
    Ok(Interval {
        end: DVector::from_column_slice(&solution.y),
        a,
        b,
        output,
        output_jacobian,
        z_end: solution.z.to_vec(),
    })
}
