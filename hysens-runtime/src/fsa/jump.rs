//! The forward sensitivities at an event, as exact derivatives of the *discrete* solution (with
//! the step sequence frozen): the jump of the sensitivities through the reset, given the
//! event-time sensitivity `τ` of the event step (`length.rs`). The state part of an
//! event (reset, new memory, consistent `z⁺`) is in `events/reset.rs`.
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

use crate::error::SolveError;
use crate::linalg::all_finite;

use crate::model::{HybridModel, Point, ResetJacobian};

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

/// The Jacobian of the reset of `guard` at `at`.
pub(crate) fn reset_jacobian<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    at: &Point<'_, NY, NZ, NP>,
) -> ResetJacobian<NY, NZ, NP, M::Store>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut rj = ResetJacobian::zeroed();
    model.reset_jacobian(guard, at, &mut rj);
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
    // s⁺ = R_y s⁻ + R_z w⁻ + R_p + R_t τ + R_{y*} s* + R_{z*} w* (module docs); s⁻ without a
    // reset (`R_y = I`, the rest zero), without building the `NY × NY` identity.
    let sy = if has_reset {
        let memory = (pre.memory_sy, pre.memory_sz);
        reset_jacobian(model, guard, at).sensitivity_columns(pre.sy, pre.sz, pre.tau, memory)
    } else {
        *pre.sy
    };
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
