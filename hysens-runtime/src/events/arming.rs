//! Armed signs of the guards, and when a guard counts as zero (module docs of `events/`,
//! "Arming").
//!
//! **On the guard.** A guard is zero at a point when its value is within round-off of its
//! terms, `|h| ≤ ZERO_ULPS · ε · (|h| + |h_t t| + Σ|h_y y| + Σ|h_z z| + Σ|h_p p| + …)` —
//! the first-order effect of rounding every input of `h` (for `h = y − c` it is a few ulps of
//! `max(|y|, |c|)`): a property of the guard and the point, not of the solver's tolerances. At
//! a restart after an event the event time itself is known to round-off only (`t_eps`, the
//! precision of the root on the discrete solution), so a guard whose value the state after
//! the event would reach by moving the event time within that uncertainty is zero too:
//! `|h| ≤ … + 2 t_eps(t*) |∂h⁺/∂t*|`, with `∂h⁺/∂t*` the rate of the guard evaluated after
//! the reset as the event time moves (through `y⁺ = R(t*, y⁻(t*), …)`).
//!
//! **Decided by the flow.** A guard that is zero takes the sign of its rate `ḣ = h_t + h_y ẏ +
//! h_z ż` in the mode entered, unless the rate is itself within round-off of its terms; then it
//! is undecided here and the driver decides it on the mode's first step (`hybrid/entry.rs`).
#![allow(clippy::needless_range_loop)]

use super::{sign, MAX_GUARDS};
use crate::error::SolveError;
use crate::model::{algebraic_rate, Direction, HybridModel, ModeJacobian, Point, ScalarPartials};

/// A guard is zero within this many units of round-off of its terms (module docs).
pub(crate) const ZERO_ULPS: f64 = 8.0;

/// Armed signs of all guards: `+1`, `−1` or `0` (undecided), in two bit sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Armed {
    pos: u128,
    neg: u128,
}

impl Armed {
    /// No guard armed.
    pub(crate) const NONE: Armed = Armed { pos: 0, neg: 0 };

    /// The armed sign of guard `g` (0 for `g ≥ MAX_GUARDS`).
    pub(crate) fn get(&self, g: usize) -> f64 {
        if g >= MAX_GUARDS {
            return 0.0;
        }
        let bit = 1u128 << g;
        if self.pos & bit != 0 {
            1.0
        } else if self.neg & bit != 0 {
            -1.0
        } else {
            0.0
        }
    }

    /// Sets the armed sign of guard `g` to the sign of `s` (0: undecided).
    pub(crate) fn set(&mut self, g: usize, s: f64) {
        if g >= MAX_GUARDS {
            return;
        }
        let bit = 1u128 << g;
        self.pos &= !bit;
        self.neg &= !bit;
        if s > 0.0 {
            self.pos |= bit;
        } else if s < 0.0 {
            self.neg |= bit;
        }
    }

    /// Whether any guard is undecided among those of `mode`.
    pub(crate) fn any_undecided<M, const NY: usize, const NZ: usize, const NP: usize>(
        &self,
        mode: usize,
    ) -> bool
    where
        M: HybridModel<NY, NZ, NP>,
    {
        M::GUARDS
            .iter()
            .enumerate()
            .any(|(g, info)| info.from == mode && self.get(g) == 0.0)
    }
}

/// Where a mode is entered: at `t0`, or after an event whose time is known to round-off.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Entry<const NY: usize, const NZ: usize> {
    /// The start of the solve: the point is the caller's, exact.
    Start,
    /// Right after an event at `t*` (module docs, "On the guard").
    Event(AfterEvent<NY, NZ>),
}

/// The event a mode is entered after: the guard that fired, and how the state after it moves
/// with the event time `t*`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AfterEvent<const NY: usize, const NZ: usize> {
    /// The guard that fired.
    pub guard: usize,
    /// Its rate `ḣ⁻` just before the event, in the mode left.
    pub rate_before: f64,
    /// `∂y⁺/∂t* = R_t + R_y ẏ⁻ + R_z ż⁻` (`ẏ⁻` without a reset).
    pub y: [f64; NY],
    /// `∂z*/∂t* = ż⁻`: the new memory's algebraic part is captured from the left.
    pub memory_z: [f64; NZ],
    /// The event time's uncertainty, `t_eps(t*)`.
    pub dt: f64,
}

/// How a guard is armed at the start of a mode segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Arming {
    /// `+1`, `−1`, or `0` (on the guard, undecided by its rate).
    pub sign: f64,
    /// The guard is zero (module docs): `sign` is that of its rate.
    pub on_guard: bool,
    /// The band within which the guard counts as zero here (for the first step's decision).
    pub band: f64,
}

/// Whether guard `g` of direction `direction`, on its zero at the mode's entry `entry` and
/// leaving it with sign `moving` (decided by its rate if `by_rate`, else by the first step),
/// fires at the entry (module docs, "Decided by the flow"): when the flow crosses it in its
/// direction (`Either`: leaves it at all) — except the crossing that has just fired: the guard
/// of the event, carried on across by the flow (a dose that leaves the rising level rising) or
/// turned back, is armed as crossed; only a motion the reset stopped (the rate vanishes) and
/// the flow starts again across is a new crossing (a ball that bounced with restitution 0
/// falls back at once).
pub(crate) fn fires_at_entry<const NY: usize, const NZ: usize>(
    g: usize,
    direction: Direction,
    moving: f64,
    by_rate: bool,
    entry: &Entry<NY, NZ>,
) -> bool {
    match entry {
        Entry::Event(after) if after.guard == g => {
            !by_rate
                && match direction {
                    Direction::Either => moving != 0.0 && moving == sign(after.rate_before),
                    _ => fires_moving(direction, moving),
                }
        }
        _ => fires_moving(direction, moving),
    }
}

/// Whether a guard leaving zero with sign `s` crosses in `direction`.
pub(crate) fn fires_moving(direction: Direction, s: f64) -> bool {
    match direction {
        Direction::Rising => s > 0.0,
        Direction::Falling => s < 0.0,
        Direction::Either => s != 0.0,
    }
}

/// Round-off scale of a scalar function's value `v` with partials `d` at `at` (module docs):
/// `|v| + |h_t t| + Σ|h_y y| + Σ|h_z z| + Σ|h_p p| + Σ|h_{y*} y*| + Σ|h_{z*} z*|`.
pub(crate) fn value_scale<const NY: usize, const NZ: usize, const NP: usize>(
    v: f64,
    d: &ScalarPartials<NY, NZ, NP>,
    at: &Point<'_, NY, NZ, NP>,
) -> f64 {
    let terms = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| (a * b).abs()).sum::<f64>();
    v.abs()
        + (d.t * at.t).abs()
        + terms(&d.y, at.y)
        + terms(&d.z, at.z)
        + terms(&d.p, at.p)
        + terms(&d.memory_y, &at.memory.y)
        + terms(&d.memory_z, &at.memory.z)
}

/// How guard `g` is armed in `mode` at `at`, entered as `entry` (module docs).
pub(crate) fn arming_sign<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    g: usize,
    at: &Point<'_, NY, NZ, NP>,
    entry: &Entry<NY, NZ>,
) -> Result<Arming, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let v = model.guard(g, at);
    if !v.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "guard",
        });
    }
    let mut d = ScalarPartials::ZERO;
    model.guard_partials(g, at, &mut d);
    let mut band = ZERO_ULPS * f64::EPSILON * value_scale(v, &d, at);
    if let Entry::Event(motion) = entry {
        // ∂h⁺/∂t*: the state after the event, and the consistent z⁺ with it, move with t*.
        let zdot = if NZ > 0 && d.z.iter().any(|x| *x != 0.0) {
            algebraic_rate(model, mode, at, &motion.y).unwrap_or([0.0; NZ])
        } else {
            [0.0; NZ]
        };
        let rate = d.rate(&motion.y, &zdot)
            + dot(&d.memory_y, &motion.y)
            + dot(&d.memory_z, &motion.memory_z);
        if rate.is_finite() {
            band += 2.0 * motion.dt * rate.abs();
        }
    }
    if v.abs() > band {
        return Ok(Arming {
            sign: sign(v),
            on_guard: false,
            band,
        });
    }
    let mut ydot = [0.0; NY];
    let mut gv = [0.0; NZ];
    model.residual(mode, at, &mut ydot, &mut gv);
    let zdot = if NZ > 0 && d.z.iter().any(|x| *x != 0.0) {
        algebraic_rate(model, mode, at, &ydot).unwrap_or([0.0; NZ])
    } else {
        [0.0; NZ]
    };
    let rate = d.rate(&ydot, &zdot);
    let decided =
        rate.is_finite() && rate.abs() > rate_tolerance(model, mode, at, &d, &ydot, &zdot, entry);
    Ok(Arming {
        sign: if decided { sign(rate) } else { 0.0 },
        on_guard: true,
        band,
    })
}

/// The round-off of a guard's rate `ḣ = h_t + h_y ẏ + h_z ż` (module docs, "Decided by the
/// flow"): `ZERO_ULPS ε` times its terms, where `ẏ = f` counts with the round-off of `f`
/// itself (`|f_i| + Σ|∂f_i/∂y y| + Σ|∂f_i/∂z z| + Σ|∂f_i/∂p p| + |∂f_i/∂t t|`, first order), and
/// after an event the change of the rate over the event time's uncertainty,
/// `2 t_eps |h_y (f_y ∂y⁺/∂t* + f_t)|` (the guard's second derivatives left out). A rate within
/// it says nothing about the way the guard moves.
pub(crate) fn rate_tolerance<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    d: &ScalarPartials<NY, NZ, NP>,
    ydot: &[f64; NY],
    zdot: &[f64; NZ],
    entry: &Entry<NY, NZ>,
) -> f64
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut jac = ModeJacobian::zeroed();
    model.jacobian(mode, at, &mut jac);
    let mut fp = [[0.0; NP]; NY];
    let mut gp = [[0.0; NP]; NZ];
    model.parameter_jacobian(mode, at, &mut fp, &mut gp);
    let mut ft = [0.0; NY];
    let mut gt = [0.0; NZ];
    model.time_partials(mode, at, &mut ft, &mut gt);
    let abs_dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| (a * b).abs()).sum::<f64>();
    let mut terms = d.t.abs() + abs_dot(&d.z, zdot);
    let mut motion = 0.0;
    for i in 0..NY {
        // A state the guard does not read adds nothing (and its row is not read: `O(NY)` rows
        // of `f_y` are `O(NY²)` reads for a large model, once per event).
        if d.y[i] == 0.0 {
            continue;
        }
        let (fy_terms, fz_terms) = jac.f_row_abs_terms(i, at.y, at.z);
        let f_terms =
            ydot[i].abs() + fy_terms + fz_terms + abs_dot(&fp[i], at.p) + (ft[i] * at.t).abs();
        terms += d.y[i].abs() * f_terms;
        if let Entry::Event(m) = entry {
            motion += d.y[i] * (jac.f_y_row_times(i, &m.y) + ft[i]);
        }
    }
    let mut tolerance = ZERO_ULPS * f64::EPSILON * terms;
    if let Entry::Event(m) = entry {
        if motion.is_finite() {
            tolerance += 2.0 * m.dt * motion.abs();
        }
    }
    tolerance
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn armed_bits() {
        let mut a = Armed::default();
        a.set(0, 1.0);
        a.set(127, -3.0);
        a.set(5, 0.0);
        assert_eq!(
            (a.get(0), a.get(127), a.get(5), a.get(200)),
            (1.0, -1.0, 0.0, 0.0)
        );
        a.set(0, -1.0);
        assert_eq!(a.get(0), -1.0);
        a.set(500, 1.0); // out of range: ignored, no panic
    }

    #[test]
    fn moving_directions() {
        assert!(fires_moving(Direction::Rising, 1.0));
        assert!(!fires_moving(Direction::Rising, -1.0));
        assert!(fires_moving(Direction::Falling, -1.0));
        assert!(fires_moving(Direction::Either, -1.0));
        assert!(!fires_moving(Direction::Either, 0.0));
    }
}
