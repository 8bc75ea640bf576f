//! What the driver stores for dense output: a [`DensePoint`] at the start of every mode
//! segment and at the end of every accepted step, with the time derivatives of the state and
//! of its fixed-time sensitivities (`crate::dense` for the formulas and the error).

use super::{Driver, HybridOutputs, HybridSolution};
use crate::adjoint::tape::Recorder;
use crate::dense::{DensePoint, QuarticBasis};
use crate::error::SolveError;
use crate::fsa::ModeIntegrator;
use crate::linalg::{DenseLu, ModeJacobian};
use crate::model::{algebraic_rate, ConditionPartials, HybridModel, ModeAdapter, SmoothMode};
use crate::newton::{consistent_z, ConsistencyProblem};
use crate::options::Options;
use crate::stats::Stats;
use crate::tableau::{Extension, INNER_NODES};

/// `ε^{1/3}`: the central difference of `g`'s Jacobian along the flow takes steps of this
/// times the step size (`crate::dense`, module docs).
const CBRT_EPSILON: f64 = 6.055454452393343e-6;

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'_, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    /// Appends the point at the integrator's time to the dense output, if one is kept: where a
    /// segment starts (`step` is `None`) or where the accepted step `step = (t_n, h)` ends.
    pub(super) fn record_dense<'m, const N: usize>(
        &self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        step: Option<(f64, f64)>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        let Some(points) = outputs.dense.as_deref_mut() else {
            return Ok(());
        };
        let segment_start = step.is_none();
        // At the end of a step on a grid that moves with `p`, the step's derivative with
        // respect to its length converts to fixed time (`crate::dense`, "On a moving grid").
        let end_rate = match step {
            Some((tn, h)) if self.fsa && h > 0.0 && moves(it.time_sensitivity()) => {
                Some(it.step_length_direction_aside(tn, h)?[S - 1])
            }
            _ => None,
        };
        let (t, mode) = (it.t(), adapter.mode());
        let capacity = points.len();
        if sol.n_dense_points >= capacity {
            return Err(SolveError::StorageFull { t, mode, capacity });
        }
        let (sy, sz) = it.sensitivities();
        let moving = MovingSensitivities {
            sy,
            sz,
            st: it.time_sensitivity(),
        };
        let at = PointInput {
            t,
            y: it.y(),
            z: it.z(),
            p: &self.problem.p,
        };
        let sens = self.fsa.then_some(&moving);
        let mut point = dense_point(adapter, &at, sens, it.next_step_size(), end_rate.as_ref())?;
        point.segment_start = segment_start;
        if let (false, Some(start)) = (segment_start, sol.n_dense_points.checked_sub(1)) {
            let step = InnerInput {
                start: &points[start],
                p: &self.problem.p,
                options: &self.options.integrator,
                fsa: self.fsa,
            };
            complete_inner(it, adapter, &step, &mut point)?;
        }
        points[sol.n_dense_points] = point;
        sol.n_dense_points += 1;
        Ok(())
    }
}

/// Whether a grid shift `∂t/∂p` is not zero.
fn moves<const NP: usize>(shift: &[f64; NP]) -> bool {
    shift.iter().any(|x| *x != 0.0)
}

/// A grid point's time, state and parameters.
struct PointInput<'a, const NY: usize, const NZ: usize, const NP: usize> {
    t: f64,
    y: &'a [f64; NY],
    z: &'a [f64; NZ],
    p: &'a [f64; NP],
}

/// The integrator's sensitivities at a grid point: total derivatives `(s_n, w_n)` of the state
/// at the time `t_n`, which moves with `p` by the grid shift `st = ∂t_n/∂p`.
struct MovingSensitivities<'a, const NY: usize, const NZ: usize, const NP: usize> {
    sy: &'a [[f64; NP]; NY],
    sz: &'a [[f64; NP]; NZ],
    st: &'a [f64; NP],
}

/// The dense-output point at `at` in the adapter's mode (`crate::dense`, module docs), with
/// fixed-time sensitivities from `sens` if given; `step` scales the central difference.
/// `shift_rate`, if given, replaces `ẏ = f` in the conversion to fixed time (the step's
/// derivative `∂y_{n+1}/∂H` with respect to its length, `crate::dense`, "On a moving grid"),
/// with `ż` consistent with it.
fn dense_point<M, const NY: usize, const NZ: usize, const NP: usize>(
    adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
    at: &PointInput<'_, NY, NZ, NP>,
    sens: Option<&MovingSensitivities<'_, NY, NZ, NP>>,
    step: f64,
    shift_rate: Option<&[f64; NY]>,
) -> Result<DensePoint<NY, NZ, NP>, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let (t, y, z, p) = (at.t, at.y, at.z, at.p);
    let mode = adapter.mode();
    let singular = |e| SolveError::from_lu(e, t, mode, "g_z at a dense-output point");
    let mut point = DensePoint {
        t,
        mode,
        y: *y,
        z: *z,
        ..DensePoint::ZERO
    };
    adapter.f(t, y, z, p, &mut point.ydot);
    let model_point = adapter.point(t, y, z, p);
    point.zdot =
        algebraic_rate(adapter.model(), mode, &model_point, &point.ydot).map_err(singular)?;
    let Some(sens) = sens else {
        return Ok(point);
    };
    // Fixed-time sensitivities: s = s_n − ẏ ∂t_n/∂p, w = w_n − ż ∂t_n/∂p.
    let (ydot, zdot) = match shift_rate {
        Some(rate) => {
            let zdot =
                algebraic_rate(adapter.model(), mode, &model_point, rate).map_err(singular)?;
            (*rate, zdot)
        }
        None => (point.ydot, point.zdot),
    };
    for (row, (moving, rate)) in point.sy.iter_mut().zip(sens.sy.iter().zip(ydot)) {
        *row = core::array::from_fn(|j| moving[j] - rate * sens.st[j]);
    }
    for (row, (moving, rate)) in point.sz.iter_mut().zip(sens.sz.iter().zip(zdot)) {
        *row = core::array::from_fn(|j| moving[j] - rate * sens.st[j]);
    }
    // ṡ = f_y s + f_z w + f_p.
    let (jac, fp, _) = jacobians(adapter, at);
    point.sydot = fp;
    jac.add_f_times(&point.sy, &point.sz, &mut point.sydot);
    if NZ == 0 {
        return Ok(point);
    }
    // ẇ = −g_z⁻¹ (g_y ṡ + d/dt[g_y s + g_z w + g_p]), the bracket at fixed (s, w) by central
    // differences along the flow (module docs of `crate::dense`).
    let delta = CBRT_EPSILON * step;
    let along = |sign: f64| {
        let d = sign * delta;
        let ys: [f64; NY] = core::array::from_fn(|i| y[i] + d * point.ydot[i]);
        let zs: [f64; NZ] = core::array::from_fn(|i| z[i] + d * point.zdot[i]);
        let (jac, _, mut g) = jacobians(
            adapter,
            &PointInput {
                t: t + d,
                y: &ys,
                z: &zs,
                p,
            },
        );
        jac.add_g_times(&point.sy, &point.sz, &mut g);
        g
    };
    let (ahead, behind) = (along(1.0), along(-1.0));
    let mut rhs = [[0.0; NP]; NZ];
    jac.add_g_times(&point.sydot, &[[0.0; NP]; NZ], &mut rhs);
    for (r, (a, b)) in rhs.iter_mut().zip(ahead.iter().zip(&behind)) {
        for (r, (a, b)) in r.iter_mut().zip(a.iter().zip(b)) {
            *r += (a - b) / (2.0 * delta);
        }
    }
    DenseLu::factor(jac.g_z())
        .map_err(singular)?
        .solve_columns(&mut rhs);
    point.szdot = rhs.map(|row| row.map(|v| -v));
    Ok(point)
}

/// What the inner points of a step need besides the integrator: the point the step started
/// from, the parameters, the tolerances of the algebraic Newton and whether sensitivities are on.
struct InnerInput<'a, const NY: usize, const NZ: usize, const NP: usize> {
    start: &'a DensePoint<NY, NZ, NP>,
    p: &'a [f64; NP],
    options: &'a Options<NY, NZ>,
    fsa: bool,
}

/// The values at the step's inner nodes `θ = ¼, ½, ¾` (written into `end`; `crate::dense`,
/// "Inside a step"): `y` and its total sensitivity from the stages' continuous extension, the
/// fixed-time sensitivity `σ = S(θ) − ẏ(θ) (∂t_n/∂p + θ ∂h/∂p)`, and in a mode with algebraic
/// variables `z` by Newton on `g = 0` at that `y` and `w = −g_z⁻¹ (g_y σ + g_p)`.
fn complete_inner<
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    it: &ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
    adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
    step: &InnerInput<'_, NY, NZ, NP>,
    end: &mut DensePoint<NY, NZ, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let (t0, h, mode) = (step.start.t, end.t - step.start.t, adapter.mode());
    let (ys, zs, _) = it.stages();
    let (stage_sy, _) = it.stage_sensitivities();
    let (dt, dh) = it.step_time_sensitivities();
    let weights = |extension| -> Result<[[f64; S]; 3], SolveError> {
        let mut weights = [[0.0; S]; 3];
        for (w, &theta) in weights.iter_mut().zip(&INNER_NODES) {
            *w = it.tableau().continuous_weights(theta, extension).ok_or(
                SolveError::NonFiniteValue {
                    t: t0,
                    mode,
                    what: "continuous extension weights",
                },
            )?;
        }
        Ok(weights)
    };
    // In an index-2 mode the stage values are of lower order than an ODE's (its `Z_i` of order
    // ≈ 2, `fsa/index2.rs`), and the smooth weights' order conditions do not hold for them:
    // measured on a point held on a circle (`tests/index2_modes.rs`, rtol 1e-9), `∂x2/∂ω` from
    // the smooth weights was off by 2.3e-7, from the stiff ones by 3.7e-8 (a sampled solve:
    // 7.5e-9).
    let for_sensitivities = match adapter.is_index2() {
        true => Extension::Stiff,
        false => Extension::Smooth,
    };
    let (stiff, smooth) = (weights(Extension::Stiff)?, weights(for_sensitivities)?);
    let extend = |d: &[f64; S], stage: &dyn Fn(usize) -> f64| {
        let base = stage(0);
        base + (1..S).map(|i| d[i] * (stage(i) - base)).sum::<f64>()
    };
    // The values from the stiff extension; the smooth one's values only for the rate in the
    // grid-shift term of the sensitivities (module docs of `crate::dense`).
    let y_smooth: [[f64; NY]; 3] =
        smooth.map(|d| core::array::from_fn(|c| extend(&d, &|i| ys[i][c])));
    end.y_inner = stiff.map(|d| core::array::from_fn(|c| extend(&d, &|i| ys[i][c])));
    for (k, &theta) in INNER_NODES.iter().enumerate() {
        let (y, t) = (end.y_inner[k], t0 + theta * h);
        let mut sy = [[0.0; NP]; NY];
        if step.fsa {
            // ẏ(θ) is the quartic's rate through the five values of y (`crate::dense`).
            let basis = QuarticBasis::at(theta, h);
            for (c, row) in sy.iter_mut().enumerate() {
                let nodes = [
                    step.start.y[c],
                    y_smooth[0][c],
                    y_smooth[1][c],
                    y_smooth[2][c],
                    end.y[c],
                ];
                let rate = basis.rate_of(nodes);
                *row = core::array::from_fn(|q| {
                    extend(&smooth[k], &|i| stage_sy[i][c][q]) - rate * (dt[q] + theta * dh[q])
                });
            }
        }
        end.sy_inner[k] = sy;
        if NZ > 0 {
            let guess = core::array::from_fn(|c| extend(&stiff[k], &|i| zs[i][c]));
            let at = InnerPoint {
                t,
                y: &y,
                sy: &sy,
                guess,
            };
            (end.z_inner[k], end.sz_inner[k]) = consistent_inner(adapter, &at, step)?;
        }
    }
    Ok(())
}

/// An inner point's time, state, fixed-time sensitivity and a guess for `z`.
struct InnerPoint<'a, const NY: usize, const NZ: usize, const NP: usize> {
    t: f64,
    y: &'a [f64; NY],
    sy: &'a [[f64; NP]; NY],
    guess: [f64; NZ],
}

/// `z` consistent with `g(t, y, z) = 0` at an inner point, by Newton from the guess, and its
/// fixed-time sensitivity `w = −g_z⁻¹ (g_y s + g_p)`.
#[allow(clippy::type_complexity)]
fn consistent_inner<M, const NY: usize, const NZ: usize, const NP: usize>(
    adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
    at: &InnerPoint<'_, NY, NZ, NP>,
    step: &InnerInput<'_, NY, NZ, NP>,
) -> Result<([f64; NZ], [[f64; NP]; NZ]), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let (t, y, p) = (at.t, at.y, step.p);
    let problem = ConsistencyProblem {
        t,
        y,
        p,
        mode: adapter.mode(),
        rtol: &step.options.rtol_z,
        atol: &step.options.atol_z,
    };
    let mut z = at.guess;
    let (mut jac, mut jac_z, mut stats) = (ModeJacobian::zeroed(), [0.0; NZ], Stats::ZERO);
    consistent_z(adapter, &problem, &mut z, &mut jac, &mut jac_z, &mut stats)?;
    if !step.fsa {
        return Ok((z, [[0.0; NP]; NZ]));
    }
    let (jac, _, mut gp) = jacobians(adapter, &PointInput { t, y, z: &z, p });
    jac.add_g_times(at.sy, &[[0.0; NP]; NZ], &mut gp);
    DenseLu::factor(jac.g_z())
        .map_err(|e| SolveError::from_lu(e, t, adapter.mode(), "g_z at a dense-output point"))?
        .solve_columns(&mut gp);
    Ok((z, gp.map(|row| row.map(|v| -v))))
}

/// The mode's Jacobian blocks and its parameter Jacobian `(f_p, g_p)` (with the memory's
/// terms) at `at`; in an index-2 mode, the `g` blocks are those of the hidden constraint.
#[allow(clippy::type_complexity)]
fn jacobians<M, const NY: usize, const NZ: usize, const NP: usize>(
    adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
    at: &PointInput<'_, NY, NZ, NP>,
) -> (
    ModeJacobian<NY, NZ, M::Store>,
    [[f64; NP]; NY],
    [[f64; NP]; NZ],
)
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut jac = ModeJacobian::zeroed();
    let (mut fp, mut gp) = ([[0.0; NP]; NY], [[0.0; NP]; NZ]);
    adapter.jacobian(at.t, at.y, at.z, at.p, &mut jac);
    adapter.parameter_jacobian(at.t, at.y, at.z, at.p, &mut fp, &mut gp);
    if adapter.is_index2() {
        // The condition that defines `z` is the hidden constraint (`SmoothMode::condition`).
        let mut c = ConditionPartials::ZERO;
        adapter.condition_partials(at.t, at.y, at.z, at.p, &mut c);
        jac.set_g_blocks(c.cy, c.cz);
        gp = c.cp;
    }
    (jac, fp, gp)
}
