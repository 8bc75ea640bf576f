//! What happens at an event: the event-time sensitivity, the reset, the consistent
//! re-initialization of the algebraic variables, the new memory, and the jumps of the forward
//! sensitivities — all as exact derivatives of the *discrete* solution (with the step sequence
//! frozen; `esdirk_fsa.rs` for the step map and its derivative).
//!
//! **The event step.** The hybrid driver ends the step from `(t_n, y_n, z_n)` exactly at the
//! root of the guard on the discrete solution: `t* = t_n + H` with
//! `h(t*, Φ_y(t_n, y_n, z_n, H, p), Φ_z(…), p, m) = 0`. Its sensitivities are first propagated
//! with `∂H/∂p = 0` (`StepLength::Event`), giving the end sensitivities `S = dY_S`,
//! `W = dZ_S` (which already carry the grid shift `dt_n = ∂t_n/∂p` of the step's start), and
//! the H-direction `Φ_H = ∂Y_S/∂H`, `Z_H = ∂Z_S/∂H`. Differentiating the root condition
//! (all partials at the end of the step, `t*⁻`, in the mode being left, with its memory
//! `m⁻ = (y*, z*)` and memory sensitivities `(s*, w*)`):
//!
//! ```text
//! h_t (dt_n + dH) + h_y (S + Φ_H dH) + h_z (W + Z_H dH) + h_p + h_{y*} s* + h_{z*} w* = 0
//! dH = −(h_t dt_n + h_y S + h_z W + h_p + h_{y*} s* + h_{z*} w*) / (h_t + h_y Φ_H + h_z Z_H)
//! τ  = dt*/dp = dt_n + dH
//! ```
//!
//! ([`event_step_length_derivative`]; the denominator is the discrete counterpart of the
//! transversality quantity `ḣ⁻` of note 000 Eq. 4). The total pre-event sensitivities are then
//! `s⁻ = S + Φ_H dH`, `w⁻ = W + Z_H dH` (`Esdirk::apply_step_length_derivative`), and the
//! step's cost quadrature is differentiated with the same `dH` (`cost.rs`).
//!
//! **Applying the event** ([`apply_event`], given `τ` and the total `s⁻, w⁻`):
//!
//! 1. Reset `y⁺ = R(t*, y⁻, z⁻, p, m⁻)` (`y⁺ = y⁻` without a reset).
//! 2. New memory `m⁺ = (y⁺, z⁻)`: the differential part is the state right after entry, the
//!    algebraic part is captured from the left state. The two coincide whenever `z` is
//!    continuous, and the left capture is the only well-posed choice when the new mode's `g`
//!    reads `z*` (note 000 §6 item 3: for the EM model `g(z⁺; z*)` is an identity if `z* = z⁺`).
//! 3. Consistent `z⁺`: Newton's method on `g_new(t*, y⁺, z, p, m⁺) = 0` with `y⁺` fixed,
//!    iterated to round-off.
//! 4. Reset map derivative ([`reset_sensitivity`]), the total derivative of `y⁺` at `t*(p)`:
//!    `s⁺ = R_y s⁻ + R_z w⁻ + R_p + R_t τ + R_{y*} s* + R_{z*} w*` (without a reset `s⁺ = s⁻`).
//!    Because `s⁻, s⁺` are total derivatives at the moving point `t*(p)`, there is no
//!    `(ẏ⁻ − ẏ⁺)τ` term: the next segment starts at `t*` with the grid shift `∂t/∂p = τ`,
//!    and its steps carry it (`esdirk_fsa.rs`). With the continuous formulas of note 000 §2.2
//!    (`s⁺_fixed = s⁺ − ẏ⁺ τ`) the two conventions agree in the limit `h → 0`.
//! 5. New memory sensitivities, the total derivatives (note 000 §2.4): `s*⁺ = s⁺`,
//!    `w*⁺ = w⁻` (`z*` is captured from the left).
//! 6. `w⁺` follows from the differentiated constraint of the new mode at the moving point,
//!    `g_y s⁺ + g_z w⁺ + g_t τ + g_p + g_{y*} s*⁺ + g_{z*} w*⁺ = 0`; the integrator computes it
//!    (`Esdirk::enable_sensitivities_at` with the memory terms supplied by `mode_adapter.rs`).
//!
//! The integral cost needs no Leibniz term `(L⁻ − L⁺)τ`: its exact discrete counterpart is
//! the `∂H/∂p` and `∂t_n/∂p` dependence of the quadratures of the event step and of the steps
//! after it (`cost.rs`).
//!
//! The continuous rate `ḣ⁻ = h_y ẏ⁻ + h_z ż⁻ + h_t` (`ẏ⁻ = f(t*, y⁻, z⁻)`) is still computed,
//! for the grazing test of the driver only; it enters no sensitivity.
#![allow(clippy::needless_range_loop)]

use crate::error::SolveError;
use crate::hybrid_model::{HybridModel, Memory, Point, ResetJacobian, ScalarPartials};
use crate::linalg::{Lu, LuError};
use crate::model::ModeJacobian;

fn finite<const K: usize>(v: &[f64; K]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Newton's method on `g(t, y, z, p, m) = 0` for `z` (with `y` fixed) in `mode`, with the
/// exact `g_z` at every iterate, until the correction is at round-off level
/// (`|Δz_i| ≤ 4ε|z_i|`) or stops decreasing once below `1e-10 (1 + |z|)`.
///
/// Errors: [`SolveError::SingularMatrix`] if `g_z` is singular,
/// [`SolveError::InconsistentInitialValues`] if the iteration does not converge.
#[allow(clippy::too_many_arguments)]
pub fn consistent_z<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    t: f64,
    y: &[f64; NY],
    z: &mut [f64; NZ],
    p: &[f64; NP],
    memory: &Memory<NY, NZ>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    if NZ == 0 {
        return Ok(());
    }
    const MAX_IT: usize = 30;
    let mut prev = f64::INFINITY;
    let mut last = f64::INFINITY;
    for _ in 0..MAX_IT {
        let at = Point { t, y, z, p, memory };
        let mut fv = [0.0; NY];
        let mut gv = [0.0; NZ];
        model.residual(mode, &at, &mut fv, &mut gv);
        let mut jac = ModeJacobian::ZERO;
        model.jacobian(mode, &at, &mut jac);
        if !finite(&gv) {
            return Err(SolveError::NonFiniteValue {
                t,
                mode,
                what: "g at a restart",
            });
        }
        let lu = Lu::factor(jac.gz).map_err(|e| match e {
            LuError::Singular { column } => SolveError::SingularMatrix { t, mode, column },
            LuError::NonFinite { .. } => SolveError::NonFiniteValue {
                t,
                mode,
                what: "g_z at a restart",
            },
        })?;
        lu.solve(&mut gv);
        let mut dn = 0.0_f64;
        let mut roundoff = true;
        for i in 0..NZ {
            z[i] -= gv[i];
            dn = dn.max(gv[i].abs() / (1.0 + z[i].abs()));
            roundoff &= gv[i].abs() <= 4.0 * f64::EPSILON * z[i].abs();
        }
        if !dn.is_finite() {
            break;
        }
        last = dn;
        if roundoff || dn == 0.0 || (dn <= 1e-10 && dn > 0.5 * prev) {
            return Ok(());
        }
        prev = dn;
    }
    Err(SolveError::InconsistentInitialValues {
        t,
        mode,
        residual: last,
    })
}

/// `ż = −g_z⁻¹ (g_y ẏ + g_t)` in `mode` at `at` (zero-size when `NZ = 0`).
pub fn algebraic_rate<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    ydot: &[f64; NY],
) -> Result<[f64; NZ], SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut zdot = [0.0; NZ];
    if NZ == 0 {
        return Ok(zdot);
    }
    let mut jac = ModeJacobian::ZERO;
    model.jacobian(mode, at, &mut jac);
    let mut ft = [0.0; NY];
    let mut gt = [0.0; NZ];
    model.time_partials(mode, at, &mut ft, &mut gt);
    for r in 0..NZ {
        let mut v = gt[r];
        for c in 0..NY {
            v += jac.gy[r][c] * ydot[c];
        }
        zdot[r] = -v;
    }
    let lu = Lu::factor(jac.gz).map_err(|e| match e {
        LuError::Singular { column } => SolveError::SingularMatrix {
            t: at.t,
            mode,
            column,
        },
        LuError::NonFinite { .. } => SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "g_z at an event",
        },
    })?;
    lu.solve(&mut zdot);
    Ok(zdot)
}

/// The H-direction and partial step sensitivities of an event step (module docs).
#[derive(Clone, Copy, Debug)]
pub struct EventStep<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// `S = dY_S` propagated with `∂H/∂p = 0`.
    pub sy: &'a [[f64; NP]; NY],
    /// `W = dZ_S` propagated with `∂H/∂p = 0`.
    pub sz: &'a [[f64; NP]; NZ],
    /// `Φ_H = ∂Y_S/∂H`.
    pub yh: &'a [f64; NY],
    /// `Z_H = ∂Z_S/∂H`.
    pub zh: &'a [f64; NZ],
    /// Grid shift `∂t_n/∂p` of the step's start.
    pub dt: &'a [f64; NP],
    /// Memory sensitivities `s*` of the mode being left.
    pub memory_sy: &'a [[f64; NP]; NY],
    /// Memory sensitivities `w*`.
    pub memory_sz: &'a [[f64; NP]; NZ],
}

/// Derivative of the event step's length (module docs): returns
/// `(∂H/∂p, h_t + h_y Φ_H + h_z Z_H)`, with the guard partials at `at` (the end of the
/// event step, `t*⁻`). Then `τ = ∂t_n/∂p + ∂H/∂p`.
///
/// Errors: [`SolveError::GrazingEvent`] if the denominator is zero,
/// [`SolveError::NonFiniteValue`] if anything is not finite.
pub fn event_step_length_derivative<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    step: &EventStep<'_, NY, NZ, NP>,
) -> Result<([f64; NP], f64), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut hp = ScalarPartials::ZERO;
    model.guard_partials(guard, at, &mut hp);
    let mut den = hp.t;
    for c in 0..NY {
        den += hp.y[c] * step.yh[c];
    }
    for c in 0..NZ {
        den += hp.z[c] * step.zh[c];
    }
    if !den.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "guard rate at an event",
        });
    }
    if den == 0.0 {
        return Err(SolveError::GrazingEvent {
            t: at.t,
            mode,
            guard,
        });
    }
    let mut dh = [0.0; NP];
    for q in 0..NP {
        let mut v = hp.p[q] + hp.t * step.dt[q];
        for c in 0..NY {
            v += hp.y[c] * step.sy[c][q] + hp.memory_y[c] * step.memory_sy[c][q];
        }
        for c in 0..NZ {
            v += hp.z[c] * step.sz[c][q] + hp.memory_z[c] * step.memory_sz[c][q];
        }
        dh[q] = -v / den;
    }
    if !finite(&dh) {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "event time sensitivity",
        });
    }
    Ok((dh, den))
}

/// The state just before an event and the data of the mode being left.
#[derive(Clone, Copy, Debug)]
pub struct PreEvent<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// Event time.
    pub t: f64,
    /// Mode being left.
    pub mode: usize,
    /// `y⁻`.
    pub y: &'a [f64; NY],
    /// `z⁻`.
    pub z: &'a [f64; NZ],
    /// Total `s⁻` at `t*(p)` (`None`: no sensitivities).
    pub sy: Option<&'a [[f64; NP]; NY]>,
    /// Total `w⁻`.
    pub sz: &'a [[f64; NP]; NZ],
    /// `τ = dt*/dp` (zero without sensitivities).
    pub tau: &'a [f64; NP],
    /// Parameters.
    pub p: &'a [f64; NP],
    /// Memory of the mode being left.
    pub memory: &'a Memory<NY, NZ>,
    /// Its sensitivities `s*`.
    pub memory_sy: &'a [[f64; NP]; NY],
    /// Its sensitivities `w*`.
    pub memory_sz: &'a [[f64; NP]; NZ],
}

/// Everything an event changes (module docs).
#[derive(Clone, Copy, Debug)]
pub struct PostEvent<const NY: usize, const NZ: usize, const NP: usize> {
    /// Continuous `ḣ⁻ = h_y ẏ⁻ + h_z ż⁻ + h_t` (grazing test only).
    pub hdot: f64,
    /// `τ = dt*/dp` (zero without sensitivities).
    pub tau: [f64; NP],
    /// `y⁺`.
    pub y: [f64; NY],
    /// `z⁺` (consistent).
    pub z: [f64; NZ],
    /// New memory `(y⁺, z⁻)`.
    pub memory: Memory<NY, NZ>,
    /// Total `s⁺` at `t*(p)`.
    pub sy: [[f64; NP]; NY],
    /// New memory sensitivities `s*⁺ = s⁺`.
    pub memory_sy: [[f64; NP]; NY],
    /// `w*⁺ = w⁻`.
    pub memory_sz: [[f64; NP]; NZ],
}

/// Reset map derivative (module docs, item 4):
/// `s⁺ = R_y s⁻ + R_z w⁻ + R_p + R_t τ + R_{y*} s* + R_{z*} w*`, with `rj` the reset
/// Jacobian (identity `R_y` without a reset).
pub fn reset_sensitivity<const NY: usize, const NZ: usize, const NP: usize>(
    rj: &ResetJacobian<NY, NZ, NP>,
    pre: &PreEvent<'_, NY, NZ, NP>,
    sm: &[[f64; NP]; NY],
) -> [[f64; NP]; NY] {
    let mut out = [[0.0; NP]; NY];
    for q in 0..NP {
        for r in 0..NY {
            let mut v = rj.p[r][q] + rj.t[r] * pre.tau[q];
            for c in 0..NY {
                v += rj.y[r][c] * sm[c][q] + rj.memory_y[r][c] * pre.memory_sy[c][q];
            }
            for c in 0..NZ {
                v += rj.z[r][c] * pre.sz[c][q] + rj.memory_z[r][c] * pre.memory_sz[c][q];
            }
            out[r][q] = v;
        }
    }
    out
}

/// Applies the event of `guard` (from `pre.mode` to `to`), module docs items 1–6.
pub fn apply_event<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    to: usize,
    has_reset: bool,
    pre: &PreEvent<'_, NY, NZ, NP>,
) -> Result<PostEvent<NY, NZ, NP>, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let t = pre.t;
    let at = Point {
        t,
        y: pre.y,
        z: pre.z,
        p: pre.p,
        memory: pre.memory,
    };
    let nonfinite = |what| SolveError::NonFiniteValue {
        t,
        mode: pre.mode,
        what,
    };
    // Continuous ḣ⁻ for the grazing test.
    let mut ydot_m = [0.0; NY];
    let mut gtmp = [0.0; NZ];
    model.residual(pre.mode, &at, &mut ydot_m, &mut gtmp);
    let zdot_m = algebraic_rate(model, pre.mode, &at, &ydot_m)?;
    let mut hp = ScalarPartials::ZERO;
    model.guard_partials(guard, &at, &mut hp);
    let mut hdot = hp.t;
    for c in 0..NY {
        hdot += hp.y[c] * ydot_m[c];
    }
    for c in 0..NZ {
        hdot += hp.z[c] * zdot_m[c];
    }
    if !hdot.is_finite() || !finite(&ydot_m) || !finite(&zdot_m) {
        return Err(nonfinite("guard rate at an event"));
    }
    // 1. Reset.
    let mut y_plus = *pre.y;
    if has_reset {
        model.reset(guard, &at, &mut y_plus);
        if !finite(&y_plus) {
            return Err(nonfinite("reset"));
        }
    }
    // 2.–3. New memory, consistent z⁺.
    let memory = Memory {
        y: y_plus,
        z: *pre.z,
    };
    let mut z_plus = *pre.z;
    consistent_z(model, to, t, &y_plus, &mut z_plus, pre.p, &memory)?;
    let mut post = PostEvent {
        hdot,
        tau: *pre.tau,
        y: y_plus,
        z: z_plus,
        memory,
        sy: [[0.0; NP]; NY],
        memory_sy: [[0.0; NP]; NY],
        memory_sz: [[0.0; NP]; NZ],
    };
    let Some(sm) = pre.sy else {
        return Ok(post);
    };
    // 4. s⁺.
    let mut rj = ResetJacobian::ZERO;
    if has_reset {
        model.reset_jacobian(guard, &at, &mut rj);
    } else {
        for i in 0..NY {
            rj.y[i][i] = 1.0;
        }
    }
    post.sy = reset_sensitivity(&rj, pre, sm);
    // 5. Memory sensitivities.
    post.memory_sy = post.sy;
    post.memory_sz = *pre.sz;
    if !post.sy.iter().all(finite) {
        return Err(nonfinite("sensitivities at an event"));
    }
    Ok(post)
}
