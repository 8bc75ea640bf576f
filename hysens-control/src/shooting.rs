//! One shooting interval of the multiple-shooting NLP (Christensen et al., §IV-B, Eqs. 45–47):
//! the model solved over `[t_j, t_j + T_s]` from `w^x_j` with the inputs `u_j` held, by
//! ESDIRK34 with fixed steps, with forward sensitivities to the start and to every parameter.
//! It returns the interval's end state `F_j` with its derivatives with respect to the
//! interval's decision variables, and the tracked output at the nodes of Simpson's rule with
//! theirs: what the tracking integral's least-squares residuals and their Jacobian are made of.
//!
//! Two formulations of the algebraic start ([`crate::nlp::Formulation`]):
//!
//! - **Consistent**: the solver makes `z` consistent at the interval's start (its consistent
//!   initialization, differentiated with the rest), so `F_j` depends on `(w^x_j, u_j)` and the
//!   consistency conditions hold at every iterate by construction.
//! - **Relaxed** (Bock et al.): the interval solves the relaxed DAE of [`crate::relaxed`] from
//!   `(w^x_j, w^y_j)` with `r_j = g(t_j, w^x_j, w^y_j, p)`, so `F_j` depends on
//!   `(w^x_j, w^y_j, u_j)`: `∂F/∂w^x = F_{x0} + F_r g_x`, `∂F/∂w^y = F_r g_z`,
//!   `∂F/∂u = F_u + F_r g_u` (the chain rule through `r`; `F_r` is the runtime's sensitivity
//!   to the appended parameters).

use crate::error::ControlError;
use crate::relaxed::Relaxed;
use hysens::runtime::{
    Fields, HybridModel, InitialMode, InitialStates, Memory, ModelSizes, ModelTypes, Params, Point,
    ScalarPartials, Solver, ESDIRK34,
};
use nalgebra::{DMatrix, DVector};

/// What an interval gives the NLP: derivatives are with respect to the interval's decision
/// variables in the order `(w^x_j, [w^y_j,] u_j)`.
#[derive(Clone, Debug)]
pub(crate) struct Interval {
    /// `F_j`.
    pub end: DVector<f64>,
    /// `∂F_j/∂(w^x_j, [w^y_j,] u_j)` (`NY × columns`).
    pub jacobian: DMatrix<f64>,
    /// The tracked output at the quadrature nodes.
    pub output: Vec<f64>,
    /// Its derivatives, one row per node.
    pub output_jacobian: DMatrix<f64>,
    /// The algebraic variables at the interval's end (the next interval's guess).
    pub z_end: Vec<f64>,
    /// Relaxed: the consistency condition `g(t_j, w^x_j, w^y_j, p)` and its derivatives with
    /// respect to `(w^x_j, w^y_j, u_j)`.
    pub consistency: Option<(DVector<f64>, DMatrix<f64>)>,
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
    /// The inputs' positions in the parameter vector.
    pub inputs: &'a [usize],
    /// The tracked output (an index of `Model::OUTPUT_NAMES`).
    pub output: usize,
    /// `Some(η)`: the relaxed formulation with this decay.
    pub relaxation: Option<f64>,
}

/// The solve of one interval of any model `Mx` with sensitivities to all its parameters and
/// initial states: per node, the state, its sensitivity columns `(p, y0)`, and the output.
struct Raw {
    end: DVector<f64>,
    /// `∂F/∂(p, y0)` (`NY × (NPX + NY)`).
    columns: DMatrix<f64>,
    output: Vec<f64>,
    /// `∂o_k/∂(p, y0)`, one row per node.
    output_columns: DMatrix<f64>,
    z_end: Vec<f64>,
}

fn solve_raw<
    Mx,
    const NY: usize,
    const NZ: usize,
    const NPX: usize,
    const N: usize,
    const NSX: usize,
>(
    model: &Mx,
    setup: &IntervalSetup<'_>,
    t0: f64,
    (x, z_guess, p): (&[f64; NY], &[f64; NZ], &[f64; NPX]),
) -> Result<Raw, ControlError>
where
    Mx: HybridModel<NY, NZ, NPX> + ModelSizes<N, NSX> + ModelTypes<NY, NZ, NPX>,
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
        .sensitivities_to(Params::All, InitialStates::All)
        .samples(&nodes)
        .algebraic_guess(&Fields::from_array(*z_guess))
        .solve(t0, t1, &Fields::from_array(*x), &Fields::from_array(*p))
        .map_err(|failure| ControlError::Solve {
            during: "a shooting interval",
            message: failure.to_string(),
        })?;
    let directions = NPX + NY;
    let last = &solution.samples[n];
    let columns = DMatrix::from_fn(NY, directions, |i, j| last.dy[j][i]);
    let mut output = Vec::with_capacity(n + 1);
    let mut output_columns = DMatrix::zeros(n + 1, directions);
    for (k, sample) in solution.samples.iter().enumerate() {
        let memory = Memory {
            y: sample.y,
            z: sample.z,
        };
        let at = Point {
            t: sample.t,
            y: &sample.y,
            z: &sample.z,
            p,
            memory: &memory,
        };
        let mut partials = ScalarPartials::ZERO;
        Mx::output_partials(setup.output, &at, &mut partials);
        output.push(Mx::output(setup.output, &at));
        for j in 0..directions {
            let through_y: f64 = (0..NY).map(|i| partials.y[i] * sample.dy[j][i]).sum();
            let through_z: f64 = (0..NZ).map(|i| partials.z[i] * sample.dz[j][i]).sum();
            let direct = if j < NPX { partials.p[j] } else { 0.0 };
            output_columns[(k, j)] = through_y + through_z + direct;
        }
    }
    Ok(Raw {
        end: DVector::from_column_slice(&last.y),
        columns,
        output,
        output_columns,
        z_end: solution.z.to_vec(),
    })
}

/// The mode a model without guards starts in.
fn start_mode(initial: InitialMode) -> usize {
    match initial {
        InitialMode::Fixed(mode) => mode,
        InitialMode::ByGuardSigns { fallback, .. } => fallback.unwrap_or(0),
    }
}

/// Integrates interval `[t0, t0 + T_s]` from `x` (and, relaxed, `y`) with parameters `p`
/// (inputs set): the interval's map and its derivatives with respect to `(x, [y,] u)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn integrate<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
    const NR: usize,
    const NRS: usize,
>(
    model: &M,
    setup: &IntervalSetup<'_>,
    t0: f64,
    (x, y, p): (&[f64; NY], &[f64; NZ], &[f64; NP]),
) -> Result<Interval, ControlError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let nu = setup.inputs.len();
    let Some(decay) = setup.relaxation else {
        let raw = solve_raw::<M, NY, NZ, NP, N, NS>(model, setup, t0, (x, y, p))?;
        // Columns (x0, u): the initial states, then the inputs among the parameters.
        let pick = |m: &DMatrix<f64>| {
            DMatrix::from_fn(m.nrows(), NY + nu, |i, j| match j < NY {
                true => m[(i, NP + j)],
                false => m[(i, setup.inputs[j - NY])],
            })
        };
        return Ok(Interval {
            jacobian: pick(&raw.columns),
            output_jacobian: pick(&raw.output_columns),
            end: raw.end,
            output: raw.output,
            z_end: raw.z_end,
            consistency: None,
        });
    };
    const {
        assert!(
            NR == NP + NZ && NRS == NR + NY,
            "RelaxedSizes<NR, NRS> must have NR = NP + NZ, NRS = NR + NY"
        )
    };
    // The relaxed DAE: r = g(t0, x, y, p) appended to p.
    let mode = start_mode(M::INITIAL_MODE);
    let memory = Memory { y: *x, z: *y };
    let at = Point {
        t: t0,
        y: x,
        z: y,
        p,
        memory: &memory,
    };
    let (mut f, mut g) = ([0.0; NY], [0.0; NZ]);
    model.residual(mode, &at, &mut f, &mut g);
    if !g.iter().all(|v| v.is_finite()) {
        return Err(ControlError::NonFinite {
            t: t0,
            what: "the algebraic residual at a shooting node",
        });
    }
    let mut jac = hysens::runtime::ModeJacobian::zeroed();
    model.jacobian(mode, &at, &mut jac);
    let (mut fp, mut gp) = ([[0.0; NP]; NY], [[0.0; NP]; NZ]);
    model.parameter_jacobian(mode, &at, &mut fp, &mut gp);
    let mut extended = [0.0; NR];
    extended[..NP].copy_from_slice(p);
    extended[NP..].copy_from_slice(&g);
    let relaxed = Relaxed::<M, NP, N, NRS> {
        model,
        start: t0,
        length: setup.length,
        decay,
    };
    let raw = solve_raw::<Relaxed<'_, M, NP, N, NRS>, NY, NZ, NR, N, NRS>(
        &relaxed,
        setup,
        t0,
        (x, y, &extended),
    )?;
    // Through r: ∂(·)/∂x = (·)_{x0} + (·)_r g_x, ∂/∂y = (·)_r g_z, ∂/∂u = (·)_u + (·)_r g_u.
    let chain = |m: &DMatrix<f64>| {
        DMatrix::from_fn(m.nrows(), NY + NZ + nu, |i, j| {
            let through_r =
                |dr: &dyn Fn(usize) -> f64| (0..NZ).map(|k| m[(i, NP + k)] * dr(k)).sum::<f64>();
            if j < NY {
                m[(i, NR + j)] + through_r(&|k| jac.gy[k][j])
            } else if j < NY + NZ {
                through_r(&|k| jac.gz[k][j - NY])
            } else {
                let u = setup.inputs[j - NY - NZ];
                m[(i, u)] + through_r(&|k| gp[k][u])
            }
        })
    };
    let consistency_jacobian = DMatrix::from_fn(NZ, NY + NZ + nu, |i, j| match j {
        j if j < NY => jac.gy[i][j],
        j if j < NY + NZ => jac.gz[i][j - NY],
        j => gp[i][setup.inputs[j - NY - NZ]],
    });
    Ok(Interval {
        jacobian: chain(&raw.columns),
        output_jacobian: chain(&raw.output_columns),
        end: raw.end,
        output: raw.output,
        z_end: raw.z_end,
        consistency: Some((DVector::from_column_slice(&g), consistency_jacobian)),
    })
}
