//! Guards and events: arming at restarts, crossing detection on the dense output, root
//! location, moving the root onto the discrete solution, the grazing test, the reset with its
//! Zeno tests. The hybrid driver (`hybrid/`) calls these in this order for every step of a mode
//! segment; none of them calls the driver.
//!
//! **Arming** (`arming.rs`). Each guard of the current mode carries the sign it had at the
//! last accepted point ("armed sign"). A crossing is a change from the armed sign in the
//! guard's declared direction (`Rising`: − to +, `Falling`: + to −, `Either`: both). A guard is
//! *on its zero* when its value is within round-off of its terms (`ZERO_ULPS` ulps of
//! `|h| + Σ|∂h/∂v · v|` over its inputs `v`: for `h = T − T_hi` a few ulps of 300 K) — never
//! within the solver's tolerance, so a start 0.2 K below a threshold is below it at every
//! rtol — and, right after an event, also when the state after the event would reach it by
//! moving the event time within its round-off. At the start of a segment (`t0`, or right
//! after an event) a guard on its zero is decided by the flow of the mode entered: the sign
//! of its rate `ḣ = h_t + h_y ẏ + h_z ż` when that is beyond round-off of its terms, else the
//! sign it takes along the mode's first step (`hybrid/entry.rs`: the first derivative that
//! does not vanish; a ball at rest on the floor has `ḣ = 0`, `ḧ = −g`). If the flow crosses it
//! in its direction, it fires at the entry — an event at the same instant, taken as a step of
//! length zero (`hybrid/entry.rs`) — except the crossing that just fired, which the flow
//! carries on across (a dose that leaves a rising level rising) or turns back; if it does not,
//! it is armed with that sign. A chain of such events that comes back to a mode and state
//! already entered at the instant has no continuation in the model
//! ([`crate::SolveError::StuckAtGuard`]: a ball with restitution 0, a relay whose two
//! thresholds are equal); one whose rate vanishes at the entry is a grazing event.
//!
//! **Detection** (`locate.rs`). Per computed step the guard is evaluated on the dense output
//! (`step/dense.rs`) at `θ = k/`[`SCAN`], `k = 0..=SCAN`, and the first point beyond zero in
//! the firing direction ends the bracket of the root (a point on zero counts only if the flow
//! moves on across it there: a touch that turns back is a tangency, no event). Between scan
//! points the guard can cross twice: where the quartic through the even scan points turns
//! towards zero inside a sub-interval, the turn is searched for on the dense output
//! (successive parabolic interpolation), and a turn past zero is two crossings — the first
//! that fires in the guard's direction is the event. Where that quartic misses the odd scan
//! points by more than half the guard's distance to zero there, the guard varies too fast
//! within the step for the scan to rule out a crossing, and the step is cut to a quarter and
//! computed again (`Stats::guard_step_cuts`; in a replayed step plan the steps are kept).
//! What is found is what the dense output — accurate to the tolerance — shows: an excursion
//! past zero smaller than the solution's own error at the requested tolerance can be missed,
//! and is found at a tighter one.
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
//! **Grazing** (`grazing.rs`). A crossing whose rate the solution does not resolve at the
//! requested tolerances — within the crossing's time uncertainty `w/|ḣ|` (`w` the guard's
//! tolerance band) the rate changes by its own size, `ḣ² ≤ 2|ḧ| · grazing_tol · w`, or it is
//! zero to round-off — is [`crate::SolveError::GrazingEvent`]: a near-tangency whose crossing
//! the tolerances do not decide, a crossing without rate, impacts accumulating below the
//! tolerances; its `dt*/dp` would not be meaningful.
//!
//! **The event** (`reset.rs`): reset, new memory and the Zeno tests (`max_events`, vanishing
//! separation), which end the solve with an error rather than loop; the sensitivity jump is
//! `fsa/jump.rs`.
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

pub(crate) use crate::model::algebraic_rate;
pub(crate) use arming::{arming_sign, fires_at_entry, AfterEvent, Armed, Entry};
pub(crate) use grazing::is_grazing;
pub(crate) use locate::detect;
pub(crate) use polish::polish;
pub(crate) use reset::{apply_event, PostEvent, PreEvent, Zeno};

/// Sub-intervals per step at whose ends guards are evaluated on the dense output.
pub(crate) const SCAN: usize = 8;

/// The largest number of guards a model may have (armed signs live in two `u128` bit sets).
pub(crate) const MAX_GUARDS: usize = 128;

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
