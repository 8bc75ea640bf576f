//! The transposes of the two maps a Hessenberg index-2 mode adds to the forward chain
//! (Serban & Recuero 2019, §3.3; the forward maps in `fsa/index2.rs` and `fsa/start.rs`):
//!
//! * **`z` from the hidden constraint** at the end of every step and at a segment's start:
//!   `w = −H_z⁻¹ (H_y s + H_p + H_t st)` with `H = k_y f + k_t`. Transposed, with
//!   `λ = H_z⁻ᵀ w̄`: `s̄ −= H_yᵀ λ`, `t̄ −= H_t·λ`, `p̄ −= H_pᵀ λ`, and `w̄` is spent (the
//!   algebraic stage value `Z_S` the projection replaced gets none of it). This is the discrete
//!   form of the projected adjoint's final condition `λ_fᵀ = −g_z (CB)⁻¹ C` and of its projected
//!   jumps (§3.3, Eqs. 19–21: the adjoint of `z` enters the differential adjoint only through
//!   `(CB)⁻¹ C`, here `H_z⁻ᵀ` and `H_yᵀ`, with `CB = k_y f_z = H_z` on the constraints).
//! * **The start of a segment moved onto `k = 0`**: `s ← s − Cᵀ (C Cᵀ)⁻¹ (C s + k_p + k_t st)`,
//!   `C = k_y`. Transposed, with `μ = (C Cᵀ)⁻¹ C s̄`: `s̄ ← s̄ − Cᵀ μ`, `p̄ −= k_pᵀ μ`,
//!   `τ̄ −= k_t·μ` (`I − Cᵀ (C Cᵀ)⁻¹ C` is symmetric).
//!
//! Dropping either breaks the equality of the adjoint gradient with the forward one
//! (`tests/index2_adjoint.rs`).
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::jump::{PreEventAdjoint, RestartAdjoint};
use super::start::subtract_transposed;
use super::AdjointStats;
use crate::error::SolveError;
use crate::linalg::DenseLu;
use crate::model::{constraint_gram, mode_g_partials, ConditionPartials, HybridModel, Point};

/// The adjoints a transposed index-2 map reads and updates: of the differential state, of the
/// time of the point, and of the parameters.
pub(super) struct PointAdjoint<'a, const NY: usize, const NP: usize> {
    pub y: &'a mut [f64; NY],
    pub t: &'a mut f64,
    pub p: &'a mut [f64; NP],
}

/// Whether `mode` of `M` is a Hessenberg index-2 mode.
pub(super) fn is_index2<M, const NY: usize, const NZ: usize, const NP: usize>(mode: usize) -> bool
where
    M: HybridModel<NY, NZ, NP>,
{
    NZ > 0 && M::MODES.get(mode).is_some_and(|info| info.index2)
}

/// The transpose of `z` from the hidden constraint of the index-2 `mode` at `at` (module
/// docs): spends `z_bar` into `adjoint`.
///
/// Errors: [`SolveError::SingularMatrix`] if `H_z` is singular, [`SolveError::NonFiniteValue`].
pub(super) fn hidden_constraint_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    z_bar: &mut [f64; NZ],
    adjoint: PointAdjoint<'_, NY, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut c = ConditionPartials::ZERO;
    model.hidden_constraint_partials(mode, at, &mut c);
    let lu = DenseLu::factor(c.cz).map_err(|e| SolveError::from_lu(e, at.t, mode, "H_z"))?;
    let mut lambda = *z_bar;
    lu.solve_transposed(&mut lambda);
    subtract_transposed(&c, &lambda, adjoint, at.t, mode)?;
    *z_bar = [0.0; NZ];
    Ok(())
}

/// The transpose of the start of a segment of the index-2 `mode` moved onto `k = 0` (module
/// docs), at the start `at`, on the adjoints of its state, time and the parameters.
///
/// Errors: [`SolveError::SingularMatrix`] if `k_y` loses rank, [`SolveError::NonFiniteValue`].
fn onto_constraint_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    adjoint: PointAdjoint<'_, NY, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut k = mode_g_partials(model, mode, at);
    let rows = core::array::from_fn(|row| model.is_constraint(mode, row));
    let gram = constraint_gram(&mut k, &rows);
    let lu = DenseLu::factor(gram).map_err(|e| SolveError::from_lu(e, at.t, mode, "k_y k_yᵀ"))?;
    let mut mu: [f64; NZ] =
        core::array::from_fn(|r| (0..NY).map(|c| k.cy[r][c] * adjoint.y[c]).sum::<f64>());
    lu.solve(&mut mu);
    subtract_transposed(&k, &mu, adjoint, at.t, mode)
}

/// The start of a segment of the index-2 `mode` at `at` transposed (`fsa/start.rs`): `z` from
/// the hidden constraint with the adjoint `w_bar`, then the start moved onto `k = 0`; into the
/// adjoints of the start's state and grid shift in `post`, and `p̄`.
///
/// Errors: as [`hidden_constraint_transpose`] and [`onto_constraint_transpose`].
pub(super) fn start_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    w_bar: &[f64; NZ],
    post: &mut RestartAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut w_bar = *w_bar;
    let adjoint = PointAdjoint {
        y: &mut post.sy,
        t: &mut post.tau,
        p: p_bar,
    };
    hidden_constraint_transpose(model, mode, at, &mut w_bar, adjoint)?;
    let adjoint = PointAdjoint {
        y: &mut post.sy,
        t: &mut post.tau,
        p: p_bar,
    };
    onto_constraint_transpose(model, mode, at, adjoint)
}

/// The adjoints `pre` of the state an event of the index-2 `mode` reads at `before` (its `w̄⁻`
/// spent through the hidden constraint into `s̄⁻`, `τ̄` and `p̄`), and the counters.
///
/// Errors: as [`hidden_constraint_transpose`].
pub(super) fn pre_event_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    before: &Point<'_, NY, NZ, NP>,
    pre: &mut PreEventAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
    stats: &mut AdjointStats,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let adjoint = PointAdjoint {
        y: &mut pre.sy,
        t: &mut pre.tau,
        p: p_bar,
    };
    hidden_constraint_transpose(model, mode, before, &mut pre.sz, adjoint)?;
    stats.jacobian_evals += 1;
    stats.lu_factorizations += 1;
    stats.lu_solves += 1;
    Ok(())
}
