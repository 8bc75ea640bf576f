//! What happens at an event: the reset, the consistent re-initialization of the algebraic
//! variables, the new memory, and the jumps of the forward sensitivities.
//!
//! At an event of guard `h` at `t_i` (all partials at `t_i⁻` in the mode being left, with its
//! memory `m⁻ = (y*, z*)` and memory sensitivities `(s*, w*)`):
//!
//! 1. `ẏ⁻ = f(t_i, y⁻, z⁻)`; `ż⁻` from the time-differentiated constraint
//!    `g_y ẏ⁻ + g_z ż⁻ + g_t = 0` (note 000 §2.2: "`yddot` and `zdot` come from the
//!    time-differentiated DAE"; the memory is constant in time).
//! 2. Event-time sensitivity (note 000 §2.2, explicit form of Eq. 6b, with the memory terms of
//!    §2.3):
//!    `τ = −(h_y s⁻ + h_z w⁻ + h_p + h_{y*} s* + h_{z*} w*) / (h_y ẏ⁻ + h_z ż⁻ + h_t)`.
//!    The denominator `ḣ⁻` is the transversality quantity of Eq. 4.
//! 3. Reset `y⁺ = R(t_i, y⁻, z⁻, p, m⁻)` (`y⁺ = y⁻` without a reset).
//! 4. New memory `m⁺ = (y⁺, z⁻)`: the differential part is the state right after entry, the
//!    algebraic part is captured from the left state. The two coincide whenever `z` is
//!    continuous, and the left capture is the only well-posed choice when the new mode's `g`
//!    reads `z*` (note 000 §6 item 3: for the EM model `g(z⁺; z*)` is an identity if `z* = z⁺`).
//! 5. Consistent `z⁺`: Newton's method on `g_new(t_i, y⁺, z, p, m⁺) = 0` with `y⁺` fixed,
//!    iterated to round-off.
//! 6. Sensitivities (note 000 §2.2, Eq. 6c for an explicit transfer `y⁺ = R`):
//!    `s⁺ = R_y (s⁻ + ẏ⁻τ) + R_z (w⁻ + ż⁻τ) + R_p + R_{y*} s* + R_{z*} w* + R_t τ − ẏ⁺ τ`,
//!    with `ẏ⁺ = f_new(t_i, y⁺, z⁺, p, m⁺)`. Without a reset `R_y = I`, the rest zero, so
//!    `s⁺ = s⁻ + (ẏ⁻ − ẏ⁺)τ` (note 000 §4.1, Ex. 5.1 jumps).
//! 7. New memory sensitivities, the *total* derivatives (note 000 §2.4, never the paper's
//!    literal Eq. 25): `s*⁺ = s⁺ + ẏ⁺τ`, `w*⁺ = w⁻ + ż⁻τ` (the latter because `z*` is captured
//!    from the left).
//! 8. `w⁺` follows from the differentiated constraint of the new mode,
//!    `g_y s⁺ + g_z w⁺ + g_p + g_{y*} s*⁺ + g_{z*} w*⁺ = 0`; the integrator computes it when
//!    sensitivities are enabled for the new segment (`Esdirk::enable_sensitivities` with the
//!    memory terms supplied by `mode_adapter.rs`).
//! 9. Leibniz term of the integral cost (note 000 §3.1 / §5 item 5): `(L⁻ − L⁺) τ`, with
//!    `L⁻` in the old mode at `t_i⁻` and `L⁺` in the new mode at `t_i⁺`.
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
    /// `s⁻` (`None`: no sensitivities).
    pub sy: Option<&'a [[f64; NP]; NY]>,
    /// `w⁻`.
    pub sz: &'a [[f64; NP]; NZ],
    /// Parameters.
    pub p: &'a [f64; NP],
    /// Memory of the mode being left.
    pub memory: &'a Memory<NY, NZ>,
    /// Its sensitivities `s*`.
    pub memory_sy: &'a [[f64; NP]; NY],
    /// Its sensitivities `w*`.
    pub memory_sz: &'a [[f64; NP]; NZ],
}

/// Everything an event changes (module docs, items 1–9).
#[derive(Clone, Copy, Debug)]
pub struct PostEvent<const NY: usize, const NZ: usize, const NP: usize> {
    /// `ḣ⁻ = h_y ẏ⁻ + h_z ż⁻ + h_t` (transversality).
    pub hdot: f64,
    /// `τ = dt_i/dp` (zero without sensitivities).
    pub tau: [f64; NP],
    /// `y⁺`.
    pub y: [f64; NY],
    /// `z⁺` (consistent).
    pub z: [f64; NZ],
    /// New memory `(y⁺, z⁻)`.
    pub memory: Memory<NY, NZ>,
    /// `s⁺`.
    pub sy: [[f64; NP]; NY],
    /// New memory sensitivities `s*⁺ = s⁺ + ẏ⁺τ`.
    pub memory_sy: [[f64; NP]; NY],
    /// `w*⁺ = w⁻ + ż⁻τ`.
    pub memory_sz: [[f64; NP]; NZ],
    /// Leibniz term `(L⁻ − L⁺) τ` of the integral cost.
    pub leibniz: [f64; NP],
}

/// Applies the event of `guard` (from `pre.mode` to `to`), module docs items 1–9.
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
    // 1. ẏ⁻, ż⁻.
    let mut ydot_m = [0.0; NY];
    let mut gtmp = [0.0; NZ];
    model.residual(pre.mode, &at, &mut ydot_m, &mut gtmp);
    let zdot_m = algebraic_rate(model, pre.mode, &at, &ydot_m)?;
    // 2. ḣ⁻ and τ.
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
    let mut tau = [0.0; NP];
    if let Some(sm) = pre.sy {
        if hdot == 0.0 {
            return Err(SolveError::GrazingEvent {
                t,
                mode: pre.mode,
                guard,
            });
        }
        for q in 0..NP {
            let mut v = hp.p[q];
            for c in 0..NY {
                v += hp.y[c] * sm[c][q] + hp.memory_y[c] * pre.memory_sy[c][q];
            }
            for c in 0..NZ {
                v += hp.z[c] * pre.sz[c][q] + hp.memory_z[c] * pre.memory_sz[c][q];
            }
            tau[q] = -v / hdot;
        }
    }
    // 3. Reset.
    let mut y_plus = *pre.y;
    if has_reset {
        model.reset(guard, &at, &mut y_plus);
        if !finite(&y_plus) {
            return Err(nonfinite("reset"));
        }
    }
    // 4.–5. New memory, consistent z⁺.
    let memory = Memory {
        y: y_plus,
        z: *pre.z,
    };
    let mut z_plus = *pre.z;
    consistent_z(model, to, t, &y_plus, &mut z_plus, pre.p, &memory)?;
    let at_plus = Point {
        t,
        y: &y_plus,
        z: &z_plus,
        p: pre.p,
        memory: &memory,
    };
    let mut post = PostEvent {
        hdot,
        tau,
        y: y_plus,
        z: z_plus,
        memory,
        sy: [[0.0; NP]; NY],
        memory_sy: [[0.0; NP]; NY],
        memory_sz: [[0.0; NP]; NZ],
        leibniz: [0.0; NP],
    };
    let Some(sm) = pre.sy else {
        return Ok(post);
    };
    // 6. s⁺.
    let mut ydot_p = [0.0; NY];
    model.residual(to, &at_plus, &mut ydot_p, &mut gtmp);
    if !finite(&ydot_p) {
        return Err(nonfinite("f after an event"));
    }
    let mut rj = ResetJacobian::ZERO;
    if has_reset {
        model.reset_jacobian(guard, &at, &mut rj);
    } else {
        for i in 0..NY {
            rj.y[i][i] = 1.0;
        }
    }
    for q in 0..NP {
        // Total derivatives of the pre-event state: s⁻ + ẏ⁻τ, w⁻ + ż⁻τ.
        let mut ds = [0.0; NY];
        let mut dw = [0.0; NZ];
        for c in 0..NY {
            ds[c] = sm[c][q] + ydot_m[c] * tau[q];
        }
        for c in 0..NZ {
            dw[c] = pre.sz[c][q] + zdot_m[c] * tau[q];
        }
        for r in 0..NY {
            let mut v = rj.p[r][q] + rj.t[r] * tau[q] - ydot_p[r] * tau[q];
            for c in 0..NY {
                v += rj.y[r][c] * ds[c] + rj.memory_y[r][c] * pre.memory_sy[c][q];
            }
            for c in 0..NZ {
                v += rj.z[r][c] * dw[c] + rj.memory_z[r][c] * pre.memory_sz[c][q];
            }
            post.sy[r][q] = v;
            // 7. s*⁺ = s⁺ + ẏ⁺τ.
            post.memory_sy[r][q] = v + ydot_p[r] * tau[q];
        }
        for c in 0..NZ {
            post.memory_sz[c][q] = dw[c];
        }
    }
    // 9. Leibniz term.
    let l_minus = model.integral_cost(pre.mode, &at);
    let l_plus = model.integral_cost(to, &at_plus);
    for q in 0..NP {
        post.leibniz[q] = (l_minus - l_plus) * tau[q];
    }
    if !post.sy.iter().all(finite) || !post.leibniz.iter().all(|x| x.is_finite()) {
        return Err(nonfinite("sensitivities at an event"));
    }
    Ok(post)
}
