//! Guards and events: arming at restarts, crossing detection on the dense output, root
//! location, moving the root onto the discrete solution, the reset with its grazing and Zeno
//! tests. The hybrid driver (`hybrid/`) calls these in this order for every step of a mode
//! segment; none of them calls the driver.
//!
//! **Arming** (`arming.rs`). Each guard of the current mode carries the sign it had at the
//! last accepted point ("armed sign"). A crossing is a change from the armed sign in the
//! guard's declared direction (`Rising`: − to ≥ 0, `Falling`: + to ≤ 0). At a restart (`t0`
//! or right after an event) a guard whose value lies within its tolerance band
//! `|h| ≤ Σ_i |∂h/∂y_i| w_i + Σ_j |∂h/∂z_j| w_j` (`w = atol + rtol |·|`, the guard change
//! caused by a tolerance-sized state error) is armed with the sign of its time derivative
//! `ḣ = h_y ẏ + h_z ż + h_t` in the new mode ("look-ahead"), so a guard that is zero right after
//! a restart never fires again until it has moved away and come back; if `ḣ = 0` it stays
//! undecided and takes the sign of its value at the end of the first step (it cannot fire in
//! that step). At `t0` there is no event this rule could be protecting: a guard of the initial
//! mode that is zero and moving the way it fires is an event at `t0` (a ball on the floor moving
//! down, a start on an attractive switching surface), applied before the first step
//! (`hybrid/start.rs`) — not a guard armed as crossed, which would let the solution leave the
//! mode's region without an event.
//!
//! **Detection** (`locate.rs`). Per computed step the guard is evaluated on the dense output
//! (`step/dense.rs`) at `θ = k/`[`SCAN`], `k = 1..SCAN` (the last point is the step's end
//! state), and the first sub-interval in which it crosses in its direction brackets the root;
//! sign changes against the direction update the running sign, so a `−`/`+` excursion inside
//! one step is still caught. Crossings separated by less than `h/SCAN` can be missed; they are
//! grazing situations (see `HybridOptions::grazing_tol`).
//!
//! **Root** (`locate.rs`). Regula falsi with the Illinois modification (Dowell & Jarratt
//! 1971), superlinear and bracketing, run until the bracket is at round-off in `t`. The
//! earliest root over all guards wins; ties go to the lowest guard index (deterministic).
//!
//! **Polishing** (`polish.rs`). The root on the dense output starts a secant iteration on the
//! **discrete** solution: the step is re-taken from `t_n` with size `H` and the guard evaluated
//! at its end, until `H` is at round-off. The step `t_n → t_n + H` is then accepted, so the
//! state, its sensitivities and the cost at the event are exact functions of the step, as an
//! adjoint replay needs.
//!
//! **The event** (`reset.rs`): reset, new memory, the grazing test
//! (`HybridOptions::grazing_tol`) and the Zeno tests (`max_events`, vanishing separation), which
//! end the solve with an error rather than loop; the sensitivity jump is `fsa/jump.rs`.
//!
//! **The mode entered** is [`crate::HybridModel::event_target`] at the event point: the
//! guard's fixed target, or the choice of a switching surface. Filippov sliding (Pytlak &
//! Suski, Part I, Eqs. 6–18) needs nothing else from the runtime: the sliding mode is an ODE
//! mode with the field `f_F = (1 − α) f¹ + α f²`, `α = σ₁/(σ₁ − σ₂)`, `σᵢ = g_x fⁱ`, entered
//! when both fields point at the surface and left by guards on `σ₁` (α = 0) and `σ₂` (α = 1);
//! a repulsive surface is [`crate::SolveError::RepulsiveSurface`], and a sliding trajectory
//! that reaches another surface (a guard on it, watched in the sliding mode) is
//! [`crate::SolveError::SurfaceIntersection`] — both chosen by `event_target`
//! ([`crate::EventTarget`]). Because `g_x f_F ≡ 0`
//! wherever `α` is defined, `g` is a first integral of the sliding field: the surface is kept
//! without the paper's index-2 multiplier. The ESDIRK steps preserve a linear `g` exactly (every
//! Runge–Kutta method keeps linear invariants) and a curved one to the integration error (a
//! circle at rtol 1e-10: the radius drifts by 1.6e-12 over a turn and a half;
//! `tests/hybrid_sliding.rs`). The sensitivities are those of any event — the jump with the
//! event-time derivative removes the component normal to the surface (`g_x s + g_p = 0` after
//! the entry), and the `α_x` terms enter through the sliding field's Jacobian.

mod arming;
mod grazing;
pub(crate) mod locate;
mod polish;
mod reset;

pub(crate) use arming::{algebraic_rate, arming_sign, fires_at_entry, AfterEvent, Armed, Entry};
pub(crate) use grazing::is_grazing;
pub(crate) use locate::detect;
pub(crate) use polish::polish;
pub(crate) use reset::{apply_event, PostEvent, PreEvent, Zeno};

use crate::model::ModeAdapter;
use crate::step::Esdirk;

/// Sub-intervals per step at whose ends guards are evaluated on the dense output.
pub(crate) const SCAN: usize = 8;

/// The largest number of guards a model may have (armed signs live in two `u128` bit sets).
pub(crate) const MAX_GUARDS: usize = 128;

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

/// A located crossing on the dense output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Crossing {
    /// Guard index.
    pub guard: usize,
    /// Root `θ` on the trial step's dense output.
    pub theta: f64,
    /// The guard's second time derivative at the root on the dense output (for the grazing
    /// test, `grazing.rs`).
    pub hddot: f64,
}

/// Round-off scale of times near `t`.
pub(crate) fn t_eps(t: f64) -> f64 {
    4.0 * f64::EPSILON * t.abs().max(1.0)
}

/// Sign of `v` as `±1`, or 0 for zero (and NaN).
pub(crate) fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}
