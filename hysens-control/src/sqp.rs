//! Sequential quadratic programming for the multiple-shooting NLP (Christensen et al., §IV-B:
//! SQP with a BFGS approximation of the Lagrangian's Hessian; Gauss–Newton as the option
//! least-squares objectives invite). Each iteration linearizes the constraints and solves
//!
//! `min ½ dᵀ H d + (Jᵣᵀ r)ᵀ d  s.t.  J_c d = −c,  u_min − u ≤ d_u ≤ u_max − u`
//!
//! with clarabel, takes the full step (the warm start of a receding horizon keeps the
//! iterates near the solution, as in real-time NMPC), and stops when the step and the
//! constraint violation are below the tolerance. `H` is `Jᵣᵀ Jᵣ` (Gauss–Newton) or, for BFGS,
//! block-diagonal blocks updated with the damped BFGS formula of Powell (Nocedal & Wright,
//! *Numerical Optimization*, Procedure 18.2) on the Lagrangian's gradient `∇φ + J_cᵀ λ`, with
//! `λ` the QP's equality multipliers — positive definite whatever the curvature seen — plus the
//! exact Hessian of the input-rate terms (`crate::nmpc`, where the blocks are kept).

use crate::error::ControlError;
use crate::nlp::NlpPoint;
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use nalgebra::{DMatrix, DVector};

/// The Hessian approximation of the SQP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hessian {
    /// `Jᵣᵀ Jᵣ`, exact at a zero-residual solution.
    GaussNewton,
    /// Partitioned damped BFGS on the Lagrangian (one block per interval), started from the
    /// Gauss–Newton blocks at each solve.
    Bfgs,
}

/// The QP of one iteration, and its solution.
pub(crate) struct QpStep {
    /// The step `d`.
    pub step: DVector<f64>,
    /// The multipliers of the equality rows (`∇φ + H d + J_cᵀ λ + …= 0`).
    pub multipliers: DVector<f64>,
}

/// Dense to clarabel's compressed-column form, keeping the upper triangle only if `upper`.
fn csc(m: &DMatrix<f64>, upper: bool) -> CscMatrix<f64> {
    let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            if (!upper || i <= j) && m[(i, j)] != 0.0 {
                rowval.push(i);
                nzval.push(m[(i, j)]);
            }
        }
        colptr.push(rowval.len());
    }
    CscMatrix::new(m.nrows(), m.ncols(), colptr, rowval, nzval)
}

/// Solves the QP at `point` with Hessian `h` and the input bounds on the rows `bounded` of
/// `w` (`(index, lower, upper)`).
pub(crate) fn qp_step(
    point: &NlpPoint,
    h: &DMatrix<f64>,
    w: &DVector<f64>,
    bounded: &[(usize, f64, f64)],
    t: f64,
) -> Result<QpStep, ControlError> {
    let n = w.len();
    let m_eq = point.constraints.len();
    let gradient = point.residual_jacobian.transpose() * &point.residual;
    let finite = |m: &DMatrix<f64>| m.iter().all(|v| v.is_finite());
    if !(finite(h)
        && finite(&point.constraint_jacobian)
        && gradient
            .iter()
            .chain(point.constraints.iter())
            .all(|v| v.is_finite()))
    {
        return Err(ControlError::NonFinite {
            t,
            what: "the QP's data (a setpoint, the model or a step gave NaN or ∞)",
        });
    }
    let mut a = DMatrix::zeros(m_eq + 2 * bounded.len(), n);
    let mut b = vec![0.0; m_eq + 2 * bounded.len()];
    a.view_mut((0, 0), (m_eq, n))
        .copy_from(&point.constraint_jacobian);
    for (b, c) in b.iter_mut().zip(point.constraints.iter()) {
        *b = -c;
    }
    for (k, &(index, lower, upper)) in bounded.iter().enumerate() {
        // d ≤ upper − w and −d ≤ w − lower, as A d + s = b with s ≥ 0.
        a[(m_eq + 2 * k, index)] = 1.0;
        b[m_eq + 2 * k] = upper - w[index];
        a[(m_eq + 2 * k + 1, index)] = -1.0;
        b[m_eq + 2 * k + 1] = w[index] - lower;
    }
    let cones = [
        SupportedConeT::ZeroConeT(m_eq),
        SupportedConeT::NonnegativeConeT(2 * bounded.len()),
    ];
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .max_iter(200)
        .build()
        .map_err(|e| ControlError::InvalidArgument {
            what: format!("QP settings: {e:?}"),
        })?;
    let q: Vec<f64> = gradient.iter().copied().collect();
    let mut solver = DefaultSolver::new(&csc(h, true), &q, &csc(&a, false), &b, &cones, settings)
        .map_err(|e| ControlError::QpFailed {
        t,
        status: format!("{e:?}"),
    })?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => Ok(QpStep {
            step: DVector::from_column_slice(&solver.solution.x),
            multipliers: DVector::from_column_slice(&solver.solution.z[..m_eq]),
        }),
        status => Err(ControlError::QpFailed {
            t,
            status: format!("{status:?}"),
        }),
    }
}

/// The damped BFGS update of `h` with the step `s` and the change `y` of the Lagrangian's
/// gradient (Nocedal & Wright, Procedure 18.2): `y` is blended with `H s` when the curvature
/// `sᵀy` is below `0.2 sᵀHs`, so `H` stays positive definite.
pub(crate) fn damped_bfgs(h: &mut DMatrix<f64>, s: &DVector<f64>, y: &DVector<f64>) {
    let hs = &*h * s;
    let shs = s.dot(&hs);
    if shs <= 0.0 || !shs.is_finite() {
        return;
    }
    let sy = s.dot(y);
    let theta = if sy >= 0.2 * shs {
        1.0
    } else {
        0.8 * shs / (shs - sy)
    };
    let r = theta * y + (1.0 - theta) * &hs;
    let sr = s.dot(&r);
    if sr <= 0.0 || !sr.is_finite() {
        return;
    }
    *h += &r * r.transpose() / sr - &hs * hs.transpose() / shs;
}
