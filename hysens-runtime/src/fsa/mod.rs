//! Forward sensitivities: the exact derivative of the discrete solution, across every switch.
//!
//! Files: this one (the sensitivity state), `integrator.rs` ([`Esdirk`]: the stepper with the
//! sensitivities that follow it), `step.rs` (the step's derivative, stage by stage, with the
//! stage LUs), `length.rs` (the step-length direction, `∂H/∂p`, and the event time `τ`),
//! `error_test.rs` (the sensitivities in the local error test), `start.rs` (a segment's
//! initial sensitivities, with the consistent algebraic part), `jump.rs` (the jump through a
//! reset), `cost.rs` (the cost gradients). Each map's transpose is in the file of the same
//! name in `adjoint/`.
//!
//! Within a mode the sensitivities are those of the ESDIRK solution by internal numerical
//! differentiation (IND) of the *converged* stage equations (Christensen, Cantisani &
//! Jørgensen, Eqs. 12–24, with the exact stage Jacobians): the exact derivative of the discrete
//! solution with the step sequence frozen, including steps whose start time or length depends
//! on the parameters (after an event of a hybrid solve, [`crate::solve`]).
//!
//! **The step map.** One step from `(t_n, y_n, z_n)` of length `H` is
//! `Φ(t_n, y_n, z_n, H, p) = (Y_S, Z_S)` with the stage equations (`T_i = t_n + c_i H`,
//! `Y_1 = y_n`, `Z_1 = z_n`, `F_1 = f(t_n, y_n, z_n)`)
//!
//! ```text
//! ψ_i = y_n + H Σ_{j<i} a_ij F_j,   Y_i = ψ_i + Hγ F_i,   F_i = f(T_i, Y_i, Z_i),   0 = g(T_i, Y_i, Z_i)
//! ```
//!
//! **Its derivative** in a direction `(dy_n, dz_n, dt_n, dH)` plus a parameter source
//! `(f_{p_q}, g_{p_q})` (one column; all partials at the converged stage points):
//!
//! * stage 1: `dY_1 = dy_n`, `dZ_1 = dz_n`, `dF_1 = f_y dY_1 + f_z dZ_1 + f_t dt_n + f_{p_q}`;
//! * stage `i ≥ 2`: `dT_i = dt_n + c_i dH`, `dψ_i = dy_n + Σ_{j<i} a_ij (dH F_j + H dF_j)`,
//!   ```text
//!   J_i [dY_i; dZ_i] = [dψ_i + γ dH F_i + Hγ (f_t dT_i + f_{p_q});  −(g_t dT_i + g_{p_q})],
//!   J_i = [I − Hγ f_y, −Hγ f_z; g_y, g_z]   at (T_i, Y_i, Z_i)
//!   ```
//!   (the exact Jacobian at the stage, Christensen et al., Eqs. 17–19; a Jacobian frozen at `t_n`
//!   gives the first-order-only sensitivities of Kristensen et al. 2005, Algorithm 2), and
//!   `dF_i = (dY_i − dψ_i − γ dH F_i)/(Hγ)`, the derivative of `F_i = (Y_i − ψ_i)/(Hγ)`;
//! * output (stiffly accurate): `dy_{n+1} = dY_S`, `dz_{n+1} = dZ_S`, `dt_{n+1} = dt_n + dH`.
//!
//! Two kinds of columns are computed with this one linear map:
//!
//! * **parameter columns** `q = 1..NP`: `(s_n[:,q], w_n[:,q], ∂t_n/∂p_q, dH = 0)` with the
//!   source `(f_{p_q}, g_{p_q})` (the memory terms are part of the source, `model/adapter.rs`);
//!   the integrator's `S_y = ∂y_n/∂p`, `S_z = ∂z_n/∂p` are *total* derivatives of the state at
//!   the grid point `t_n(p)`, and `∂t_n/∂p` ("grid shift") is carried along
//!   ([`Esdirk::time_sensitivity`]);
//! * the **H-direction** `Φ_H = ∂(Y_i, Z_i)/∂H`: `(0, 0, 0, dH = 1)` without source, computed
//!   only when a step's length depends on `p`. It carries the stage derivatives `F_i`
//!   themselves (`Φ_H ≈ Σ b_i F_i`), not `H F_i` as everything else does, so the `F_i`
//!   recovered from the Newton solution (error `e/(Hγ)` for an error `e` of `Y_i`, at least
//!   its rounding) are first refined by one Newton correction of their stage equation
//!   (`Esdirk::refine_stage_derivatives`, `length.rs`): without it a step of length `δ` from
//!   an event to a sample time, or from a sample time to an event, gave sensitivities off by
//!   about `ε|y|/δ`.
//!
//! **Step length** ([`crate::StepLength`]): with the step sequence frozen, a `Fixed` step has
//! `∂H/∂p = 0` (its end moves with its start: `∂t_{n+1}/∂p = ∂t_n/∂p`); a `Landing` step on a
//! fixed target has `H = t_target − t_n`, so `∂H/∂p = −∂t_n/∂p` and
//! `∂t_{n+1}/∂p = 0`; an `Event` step ends at the event time `t*(p)` and its `∂H/∂p` is
//! supplied by the caller ([`Esdirk::apply_step_length_derivative`], computed from the guard
//! in `jump.rs`). In every case the total step derivative is the parameter column plus
//! `Φ_H ∂H/∂p` (linearity), applied by [`Esdirk::apply_step_length_derivative`] to the stage
//! and end sensitivities alike.
//!
//! The linear stage systems are solved directly: each exact stage matrix `J_i` is factorized
//! once per accepted step and shared by all columns, which are solved together (the parameter
//! columns as one multi-right-hand-side solve, `Lu::solve_columns`). The result is the
//! derivative of the discrete map defined by the exactly solved stage equations with the step
//! sequence frozen; it differs from the derivative of the Newton-iterated solution only by
//! terms of the size of the Newton error (≤ `newton_tol` times the tolerance).
//!
//! **In the error test** ([`crate::Options::sensitivity_error_test`]): the local error of the
//! parameter columns is estimated like the states' (`h Σ_j d_j dF_j`, filtered through the
//! step's iteration matrix) and weighted with the states' tolerances on `|∂y/∂p|`. The
//! sensitivities are then computed in [`Esdirk::try_step`] for every attempt that passes the
//! state test, into a copy ([`Sensitivities`]) that the commit installs; the derivative is the
//! same (the replay tests of the hybrid solve check it), only the step sequence changes.
//!
//! Only accepted steps contribute (as in Kristensen et al. 2005, Algorithm 1). Cost per step: `S` Jacobian (none for a
//! constant Jacobian) and parameter Jacobian evaluations (plus `S` time-partial evaluations
//! when the grid is shifted or the H-direction is needed), `S − 1` factorizations of `N × N`
//! stage matrices (none for a constant Jacobian: every stage matrix is then the step's
//! iteration matrix), and one solve with `NP` right-hand sides (plus one for the H-direction)
//! per implicit stage.

pub(crate) mod cost;
mod error_test;
mod index2;
mod initial;
mod integrator;
pub(crate) mod jump;
pub(crate) mod length;
mod start;
pub(crate) mod step;

pub(crate) use initial::mapped_problem;
pub use integrator::Esdirk;

/// The integrator of one mode segment: a mode of a hybrid model with its memory.
pub(crate) type ModeIntegrator<
    'i,
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> = Esdirk<'i, ModeAdapter<'m, M, NY, NZ, NP>, S, NY, NZ, NP, N>;

use crate::linalg::{Lu, MatrixStore, StageFactors};
use crate::model::{ModeAdapter, SmoothMode};
use crate::step::Stepper;

/// A stepper and the forward sensitivities that follow its steps, borrowed together: the
/// receiver of the propagation (`step.rs`, `length.rs`, `error_test.rs`), which reads the
/// stepper's step and writes the sensitivities (and the stepper's statistics and refined stage
/// derivatives).
pub(crate) struct Following<
    'a,
    'm,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> where
    M: SmoothMode<NY, NZ, NP>,
{
    pub step: &'a mut Stepper<'m, M, S, NY, NZ, NP, N>,
    pub fsa: &'a mut Fsa<S, NY, NZ, NP, N, M::Store>,
}

/// The integrator's forward-sensitivity state.
#[derive(Clone, Debug)]
pub(crate) struct Fsa<
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    St: MatrixStore,
> {
    /// Forward sensitivities enabled.
    pub enabled: bool,
    /// The sensitivities carried from step to step.
    pub sens: Sensitivities<S, NY, NZ, NP>,
    /// Sensitivities of the step just computed by [`Esdirk::try_step`] and its step size, when
    /// the error test included them; installed by the commit instead of recomputing them.
    pub pending: Option<(f64, Sensitivities<S, NY, NZ, NP>)>,
    /// LU factorizations of the exact stage matrices of the step whose sensitivities are being
    /// propagated, shared by every parameter direction (`step.rs`).
    pub stage_lus: [Lu<N, St>; S],
    /// Which entries of `stage_lus` belong to the current step.
    pub stage_lu_valid: [bool; S],
}

impl<const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize, St>
    Fsa<S, NY, NZ, NP, N, St>
where
    St: MatrixStore,
{
    /// Disabled, all zero.
    pub(crate) fn new() -> Self {
        Fsa {
            enabled: false,
            sens: Sensitivities::ZERO,
            pending: None,
            stage_lus: core::array::from_fn(|_| StageFactors::identity()),
            stage_lu_valid: [false; S],
        }
    }
}

/// What the forward sensitivities carry from step to step (module docs): the state's
/// sensitivities at the current time and the data of the last accepted step that cost
/// gradients and event jumps read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sensitivities<const S: usize, const NY: usize, const NZ: usize, const NP: usize> {
    /// `∂y/∂p` at [`Esdirk::t`] (`NY × NP`).
    sy: [[f64; NP]; NY],
    /// `∂z/∂p` at [`Esdirk::t`] (`NZ × NP`).
    sz: [[f64; NP]; NZ],
    /// Stage sensitivities `∂Y_i/∂p` of the last accepted step (for cost quadratures).
    stage_sy: [[[f64; NP]; NY]; S],
    /// Stage sensitivities `∂Z_i/∂p` of the last accepted step.
    stage_sz: [[[f64; NP]; NZ]; S],
    /// Grid shift `∂t_n/∂p` of the current time [`Esdirk::t`] (nonzero after an event whose
    /// time depends on `p`).
    st: [f64; NP],
    /// `∂t_n/∂p` at the start of the last accepted step.
    step_dt: [f64; NP],
    /// `∂H/∂p` of the last accepted step.
    step_dh: [f64; NP],
    /// H-direction `∂Y_i/∂H` of the last accepted step (valid after a step of
    /// [`crate::StepLength::Landing`] with a shifted start or [`crate::StepLength::Event`]).
    stage_yh: [[f64; NY]; S],
    /// H-direction `∂Z_i/∂H` of the last accepted step.
    stage_zh: [[f64; NZ]; S],
}

impl<const S: usize, const NY: usize, const NZ: usize, const NP: usize>
    Sensitivities<S, NY, NZ, NP>
{
    /// All zero.
    pub(crate) const ZERO: Self = Sensitivities {
        sy: [[0.0; NP]; NY],
        sz: [[0.0; NP]; NZ],
        stage_sy: [[[0.0; NP]; NY]; S],
        stage_sz: [[[0.0; NP]; NZ]; S],
        st: [0.0; NP],
        step_dt: [0.0; NP],
        step_dh: [0.0; NP],
        stage_yh: [[0.0; NY]; S],
        stage_zh: [[0.0; NZ]; S],
    };
}
