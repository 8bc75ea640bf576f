//! Applying an event: the reset, the new memory and the consistent algebraic variables, with
//! the grazing and Zeno tests (module docs of `events/`). The sensitivity jump is
//! `fsa/jump.rs`.
//!
//! 1. Reset `y⁺ = R(t*, y⁻, z⁻, p, m⁻)` (`y⁺ = y⁻` without a reset): an explicit transfer
//!    function `T = y⁺ − R` of Serban & Recuero 2019, Eq. 3c.
//! 2. New memory `m⁺ = (y⁺, z⁻)` (their §4, Eq. 22–24): the differential part is the state right
//!    after entry, the algebraic part is captured from the left state. The two coincide
//!    whenever `z` is continuous, and the left capture is the only well-posed choice when the
//!    new mode's `g` reads `z*` (in their Ex. 5.2 the constraint `σ(u*; u*, z*) = z*` of the
//!    new mode is an identity at `t⁺`, so `z⁺` cannot determine `z*`).
//! 3. Consistent `z⁺` (their Eq. 3d): Newton's method on `g_new(t*, y⁺, z, p, m⁺) = 0` with `y⁺`
//!    fixed, started from `z⁻`; done by the integrator of the next segment when it starts
//!    (`newton.rs`, the same routine as at `t0`).
//! 4. With sensitivities, the jump `s⁺`, `s*⁺`, `w*⁺` (`fsa/jump.rs`).
//!
//! The continuous rate `ḣ⁻ = h_y ẏ⁻ + h_z ż⁻ + h_t` (`ẏ⁻ = f(t*, y⁻, z⁻)`, the transversality
//! quantity of their Eq. 4) is computed for the grazing test only; it enters no sensitivity.
//! So is the motion of the state after the event with the event time,
//! `∂y⁺/∂t* = R_t + R_y ẏ⁻ + R_z ż⁻`, for the arming of the next mode's guards (`arming.rs`).

use super::{algebraic_rate, t_eps, AfterEvent};
use crate::error::SolveError;
use crate::fsa::jump::{jump_sensitivities, reset_jacobian, PreEventSensitivities};
use crate::linalg::all_finite;
use crate::model::{HybridModel, Memory, Point, ScalarPartials};
use crate::run::HybridOptions;

/// The state just before an event and the data of the mode being left.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreEvent<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// Event time.
    pub t: f64,
    /// Mode being left.
    pub mode: usize,
    /// `y⁻`.
    pub y: &'a [f64; NY],
    /// `z⁻`.
    pub z: &'a [f64; NZ],
    /// Parameters.
    pub p: &'a [f64; NP],
    /// Memory of the mode being left.
    pub memory: &'a Memory<NY, NZ>,
    /// The total sensitivities `s⁻, w⁻, τ` and the memory's `s*, w*` (`None`: no
    /// sensitivities).
    pub sens: Option<PreEventSensitivities<'a, NY, NZ, NP>>,
}

/// Everything an event changes (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PostEvent<const NY: usize, const NZ: usize, const NP: usize> {
    /// Continuous `ḣ⁻ = h_y ẏ⁻ + h_z ż⁻ + h_t` (grazing test only).
    pub hdot: f64,
    /// The event as the arming of the next mode's guards sees it: the guard, its rate, how
    /// `y⁺` and the new memory move with the event time.
    pub after: AfterEvent<NY, NZ>,
    /// `τ = dt*/dp` (zero without sensitivities).
    pub tau: [f64; NP],
    /// `y⁺`.
    pub y: [f64; NY],
    /// The starting guess `z⁻` for `z⁺` (made consistent by the next segment's integrator).
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

/// Applies the event of `guard` (leaving `pre.mode`), module docs items 1, 2 and 4.
pub(crate) fn apply_event<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
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
    let zdot_m = algebraic_rate(model, pre.mode, &at, &ydot_m)
        .map_err(|e| SolveError::from_lu(e, at.t, pre.mode, "g_z at an event"))?;
    let mut hp = ScalarPartials::ZERO;
    model.guard_partials(guard, &at, &mut hp);
    let hdot = hp.rate(&ydot_m, &zdot_m);
    if !hdot.is_finite() || !all_finite(&ydot_m) || !all_finite(&zdot_m) {
        return Err(nonfinite("guard rate at an event"));
    }
    // 1. Reset.
    let mut y_plus = *pre.y;
    if has_reset {
        model.reset(guard, &at, &mut y_plus);
        if !all_finite(&y_plus) {
            return Err(nonfinite("reset"));
        }
    }
    // How y⁺ moves with t*: ∂y⁺/∂t* = R_t + R_y ẏ⁻ + R_z ż⁻ (the memory of the mode being left
    // is constant); ẏ⁻ without a reset (`R_y = I`), without building the `NY × NY` identity.
    let motion_y = if has_reset {
        reset_jacobian(model, guard, &at).rate(&ydot_m, &zdot_m)
    } else {
        ydot_m
    };
    let after = AfterEvent {
        guard,
        rate_before: hdot,
        y: motion_y,
        memory_z: zdot_m,
        dt: t_eps(t),
    };
    // 2. New memory (3. z⁺ is made consistent by the next segment's integrator).
    let memory = Memory {
        y: y_plus,
        z: *pre.z,
    };
    let mut post = PostEvent {
        hdot,
        after,
        tau: [0.0; NP],
        y: y_plus,
        z: *pre.z,
        memory,
        sy: [[0.0; NP]; NY],
        memory_sy: [[0.0; NP]; NY],
        memory_sz: [[0.0; NP]; NZ],
    };
    // 4. Sensitivities.
    if let Some(sens) = &pre.sens {
        let jump = jump_sensitivities(model, guard, has_reset, pre.mode, &at, sens)?;
        post.tau = *sens.tau;
        post.sy = jump.sy;
        post.memory_sy = jump.memory_sy;
        post.memory_sz = jump.memory_sz;
    }
    Ok(post)
}

/// The Zeno tests of a solve: too many events, or [`crate::ZENO_CLOSE_EVENTS`] in a row with
/// vanishing separation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zeno {
    last_event_t: f64,
    close_events: usize,
}

impl Zeno {
    /// No event yet.
    pub(crate) const fn new() -> Self {
        Zeno {
            last_event_t: f64::NEG_INFINITY,
            close_events: 0,
        }
    }

    /// Checks an event at `t` in `mode` after `events` events so far.
    pub(crate) fn check<const NY: usize, const NZ: usize>(
        &mut self,
        t: f64,
        mode: usize,
        events: usize,
        options: &HybridOptions<NY, NZ>,
    ) -> Result<(), SolveError> {
        let too_many = |zeno| SolveError::TooManyEvents {
            t,
            mode,
            count: events,
            zeno,
        };
        if events >= options.max_events {
            return Err(too_many(false));
        }
        if t - self.last_event_t <= options.min_event_separation * t.abs().max(1.0) {
            self.close_events += 1;
            if self.close_events >= crate::ZENO_CLOSE_EVENTS {
                return Err(too_many(true));
            }
        } else {
            self.close_events = 0;
        }
        Ok(())
    }

    /// Records an event applied at `t`.
    pub(crate) fn record(&mut self, t: f64) {
        self.last_event_t = t;
    }
}
