//! The forward sensitivities at an event, as exact derivatives of the *discrete* solution (with
//! the step sequence frozen): the event step's length derivative, which gives the event-time
//! sensitivity `τ`, and the jump of the sensitivities through the reset. The state part of an
//! event (reset, new memory, consistent `z⁺`) is in `events/reset.rs`.
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
//! ([`event_step_length_derivative`]: the discrete counterpart of Serban & Recuero 2019,
//! Eq. 6b, whose denominator is the transversality quantity `ḣ⁻` of their Eq. 4). The total
//! pre-event sensitivities are then `s⁻ = S + Φ_H dH`, `w⁻ = W + Z_H dH`
//! (`Esdirk::apply_step_length_derivative`), and the step's cost quadrature is differentiated
//! with the same `dH` (`fsa/cost.rs`).
//!
//! **The jump** ([`jump_sensitivities`], given `τ` and the total `s⁻, w⁻`):
//!
//! * Reset map derivative, the total derivative of `y⁺ = R(t*, y⁻, z⁻, p, m⁻)` at `t*(p)`
//!   (Serban & Recuero 2019, Eq. 6c for an explicit transfer `T = y⁺ − R`):
//!   `s⁺ = R_y s⁻ + R_z w⁻ + R_p + R_t τ + R_{y*} s* + R_{z*} w*` (without a reset `s⁺ = s⁻`).
//!   Because `s⁻, s⁺` are total derivatives at the moving point `t*(p)`, there is no
//!   `(ẏ⁻ − ẏ⁺)τ` term: the next segment starts at `t*` with the grid shift `∂t/∂p = τ`,
//!   and its steps carry it (`fsa/`, "Step length"). With the fixed-time sensitivities of
//!   Eq. 6 (`s⁺_fixed = s⁺ − ẏ⁺ τ`) the two conventions agree in the limit `h → 0`.
//! * New memory sensitivities, the total derivatives of `y* = y(t*(p)⁺)` and `z* = z(t*(p)⁻)`:
//!   `s*⁺ = s⁺`, `w*⁺ = w⁻`. (Serban & Recuero's Eq. 25 sets `s* = s⁺` with a fixed-time
//!   `s⁺`, which is right only when `ẏ⁺ τ = 0`, as in their Ex. 5.2; the total derivative
//!   `s⁺ + ẏ⁺ τ` is what differentiating `y*` gives, and it is what `s⁺` is here.)
//! * `w⁺` follows from the differentiated constraint of the new mode at the moving point,
//!   `g_y s⁺ + g_z w⁺ + g_t τ + g_p + g_{y*} s*⁺ + g_{z*} w*⁺ = 0` (their Eq. 25b); the
//!   integrator computes it (`Esdirk::enable_sensitivities_at` with the memory terms supplied
//!   by the mode adapter, `model/adapter.rs`).
//!
//! The integral cost needs no Leibniz term `(L⁻ − L⁺)τ` (their Eq. 8): its exact discrete
//! counterpart is the `∂H/∂p` and `∂t_n/∂p` dependence of the quadratures of the event step and
//! of the steps after it (`fsa/cost.rs`).
#![allow(clippy::needless_range_loop)]

use super::ModeIntegrator;
use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::model::{HybridModel, Point, ResetJacobian, ScalarPartials};

/// The H-direction and partial step sensitivities of an event step (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventStep<'a, const NY: usize, const NZ: usize, const NP: usize> {
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
pub(crate) fn event_step_length_derivative<M, const NY: usize, const NZ: usize, const NP: usize>(
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
    let den = hp.rate(step.yh, step.zh);
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
    if !all_finite(&dh) {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "event time sensitivity",
        });
    }
    Ok((dh, den))
}

impl<
        'i,
        'm,
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
    > ModeIntegrator<'i, 'm, M, S, NY, NZ, NP, N>
where
    M: HybridModel<NY, NZ, NP>,
{
    /// `τ = dt*/dp` of the event step of `guard` just accepted as
    /// [`crate::StepLength::Event`]: solves the differentiated root condition for `∂H/∂p`
    /// ([`event_step_length_derivative`]) and applies it to the step's sensitivities
    /// ([`ModeIntegrator::apply_step_length_derivative`]), which completes them.
    pub(crate) fn event_time_sensitivity(&mut self, guard: usize) -> Result<[f64; NP], SolveError> {
        let adapter = self.step.model;
        let (memory_sy, memory_sz) = adapter.memory_sensitivities();
        let (sy, sz) = self.sensitivities();
        let (yh, zh) = self.step_length_direction();
        let step = EventStep {
            sy,
            sz,
            yh: &yh[S - 1],
            zh: &zh[S - 1],
            dt: self.time_sensitivity(),
            memory_sy,
            memory_sz,
        };
        let at = adapter.point(self.t(), self.y(), self.z(), &self.step.p);
        let (dh, _) =
            event_step_length_derivative(adapter.model(), guard, adapter.mode(), &at, &step)?;
        self.apply_step_length_derivative(&dh)?;
        Ok(*self.time_sensitivity())
    }
}

/// The total sensitivities just before an event and those of the memory of the mode being left.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreEventSensitivities<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// Total `s⁻` at `t*(p)`.
    pub sy: &'a [[f64; NP]; NY],
    /// Total `w⁻`.
    pub sz: &'a [[f64; NP]; NZ],
    /// `τ = dt*/dp`.
    pub tau: &'a [f64; NP],
    /// Memory sensitivities `s*` of the mode being left.
    pub memory_sy: &'a [[f64; NP]; NY],
    /// Memory sensitivities `w*`.
    pub memory_sz: &'a [[f64; NP]; NZ],
}

/// The sensitivities after an event (module docs, "The jump").
#[derive(Clone, Copy, Debug)]
pub(crate) struct JumpSensitivities<const NY: usize, const NZ: usize, const NP: usize> {
    /// Total `s⁺` at `t*(p)`.
    pub sy: [[f64; NP]; NY],
    /// New memory sensitivities `s*⁺ = s⁺`.
    pub memory_sy: [[f64; NP]; NY],
    /// `w*⁺ = w⁻`.
    pub memory_sz: [[f64; NP]; NZ],
}

/// Reset map derivative (module docs):
/// `s⁺ = R_y s⁻ + R_z w⁻ + R_p + R_t τ + R_{y*} s* + R_{z*} w*`, with `rj` the reset
/// Jacobian (identity `R_y` without a reset).
fn reset_sensitivity<const NY: usize, const NZ: usize, const NP: usize>(
    rj: &ResetJacobian<NY, NZ, NP>,
    pre: &PreEventSensitivities<'_, NY, NZ, NP>,
) -> [[f64; NP]; NY] {
    let mut out = [[0.0; NP]; NY];
    for q in 0..NP {
        for r in 0..NY {
            let mut v = rj.p[r][q] + rj.t[r] * pre.tau[q];
            for c in 0..NY {
                v += rj.y[r][c] * pre.sy[c][q] + rj.memory_y[r][c] * pre.memory_sy[c][q];
            }
            for c in 0..NZ {
                v += rj.z[r][c] * pre.sz[c][q] + rj.memory_z[r][c] * pre.memory_sz[c][q];
            }
            out[r][q] = v;
        }
    }
    out
}

/// The Jacobian of the reset of `guard` at `at` (that of `y⁺ = y⁻` without a reset).
pub(crate) fn reset_jacobian<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    has_reset: bool,
    at: &Point<'_, NY, NZ, NP>,
) -> ResetJacobian<NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut rj = ResetJacobian::ZERO;
    if has_reset {
        model.reset_jacobian(guard, at, &mut rj);
    } else {
        for i in 0..NY {
            rj.y[i][i] = 1.0;
        }
    }
    rj
}

/// The sensitivities after the event of `guard` at `at` (the state just before it, in the mode
/// being left; module docs, "The jump").
///
/// Errors: [`SolveError::NonFiniteValue`] if `s⁺` is not finite.
pub(crate) fn jump_sensitivities<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    has_reset: bool,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    pre: &PreEventSensitivities<'_, NY, NZ, NP>,
) -> Result<JumpSensitivities<NY, NZ, NP>, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let rj = reset_jacobian(model, guard, has_reset, at);
    let sy = reset_sensitivity(&rj, pre);
    if !sy.iter().all(all_finite) {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "sensitivities at an event",
        });
    }
    Ok(JumpSensitivities {
        sy,
        memory_sy: sy,
        memory_sz: *pre.sz,
    })
}
