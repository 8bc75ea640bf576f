//! Events while sliding on a Filippov switching surface, through generated models
//! (`#[hybrid_model]`), against closed forms derived below, with forward sensitivities to the
//! parameters and the initial states, the event times and their sensitivities, and the adjoint
//! gradient against the forward one.
//!
//! The models:
//!
//! - `latch` (**ordinary guards while sliding**): the wall `x = c` between `below`
//!   (`f¹ = (1, 1)`) and `above` (`f² = (−a, 1 + y)`), a guard of `below` (`release`, with a
//!   reset) and a guard of `above` (`stop`, without one), both into `free`. Whichever side
//!   the trajectory reached the wall from, the sliding mode watches both guards: three solves
//!   (`release` from below, `stop` from below, `release` from above) against the closed form;
//!   the tables, the kernels of the copies the sliding mode watches (against num-dual on a
//!   plain-Rust twin, `support::check_model`) and their event targets; no heap; no panics.
//! - `tie`: guards of both sides reaching zero at the same instant while sliding: the one
//!   declared first fires.
//! - `lanes` (**two surfaces that do not intersect**): the parallel lines `x = c₁` (between
//!   `left` and `mid`) and `x = c₂` (between `mid` and `right`): sliding on one, leaving it,
//!   then crossing the other or sliding on it. Each sliding mode watches the other surface (they
//!   share `mid`: `inner_meets_outer`, `outer_meets_inner`), which never reaches zero there: no
//!   intersection is reported.
//! - `corner` (**intersecting surfaces**): a wall `x = c` and a tilted floor `y = d + k x`
//!   sharing the mode `east`: sliding on either reaches the other, and the solve ends with
//!   `SolveError::SurfaceIntersection` naming the generated guard `wall_meets_floor` (or
//!   `floor_meets_wall`), with the solution up to it.
//!
//! No model here ends a solve with `SolveError::RepulsiveSurface`: a generated model does at
//! a start on a repulsive surface (`tests/model_sliding.rs`), the runtime's
//! `tests/hybrid_sliding.rs` at an exit, with a hand-written `event_target`. A generated surface's
//! exit is repulsive only when `σ₁` and `σ₂` change sign at the same instant (while sliding
//! `σ₁ > 0 > σ₂`, and the first of them to reach zero is an ordinary exit), where
//! `α = σ₁/(σ₁ − σ₂)` is `0/0`: what the solve does there depends on round-off (the side of
//! the root the event lands on, or a stage exactly on it), so no tolerance makes such a test
//! meaningful.
//!
//! # The closed forms
//!
//! Every closed form is written once, over dual numbers (`num_dual::Dual64`): seeding one
//! initial state or parameter gives the exact derivative of the states at `T` and of every
//! event time, which the solve's forward sensitivities and `dt/dθ` are compared with. The
//! terminal cost of every model is `φ = x(T)² + y(T)`, so `dφ/dθ = 2x ∂x/∂θ + ∂y/∂θ`, compared
//! with the forward gradient; the adjoint gradient is compared with the forward one.
//!
//! **`latch`.** With `g = x − c`, `g_x = (1, 0)`: `σ₁ = g_x f¹ = 1 > 0` and `σ₂ = −a < 0`
//! (for `a > 0`), so the wall is reached from either side and held:
//! `α = σ₁/(σ₁ − σ₂) = 1/(1 + a)` and, with `K = 1 + a`,
//!
//! ```text
//! f_F = (1 − α)(1, 1) + α(−a, 1 + y) = (0, 1 + y/K),   so on the wall
//! y(t) = (y_e + K) e^{(t − t_e)/K} − K,   and y reaches a level Y at
//! t(Y) = t_e + K ln((Y + K)/(y_e + K))
//! ```
//!
//! from the entry `(t_e, y_e)`: from below (`x0 < c`, `x = x0 + t`, `y = y0 + t`)
//! `t_e = c − x0`, `y_e = y0 + t_e`; from above (`x = x0 − a t`, `y' = 1 + y`, so
//! `y = (y0 + 1) eᵗ − 1`) `t_e = (x0 − c)/a`, `y_e = (y0 + 1) e^{t_e} − 1`. On the wall
//! (`x = c`) `release = y − b − d x` rises through zero at `Y_r = b + d c` and
//! `stop = x y − q` at `Y_s = q/c`; the first of `t(Y_r)`, `t(Y_s)` fires (`t_g`, `y_g`).
//! `release` resets `x⁺ = x − e y` (`stop` keeps the state), into `free`
//! (`x' = y`, `y' = −1`): with `s = T − t_g`,
//!
//! ```text
//! x(T) = x_g + y_g s − s²/2,   y(T) = y_g − s,   x_g = c − e Y_r (release) or c (stop).
//! ```
//!
//! The event times are `t_e` and `t_g`; `t_g` depends on `x0, y0, c, a` and on `b, d`
//! (`release`) or `q` (`stop`), with sensitivities far from zero: e.g.
//! `∂t_g/∂b = K/(Y_r + K)` for `release`. The cases' numbers keep every other guard away from
//! zero (the closed form asserts it: `release` and `stop` negative until the wall is reached,
//! the other guard's level above the one that fires, `t_g < T`).
//!
//! **`lanes`.** `y' = 1` in every mode (and on both sliding fields, whose `y` components
//! are convex combinations of 1), so `y(T) = y0 + T`. From `left` (`x = x0 + t`) the inner line
//! is reached at `t₁ = c₁ − x0`, `y₁ = y0 + t₁`, where `mid`'s `σ₂ = y₁ − b`: if `y₁ < b` it
//! slides (`f_F = (0, 1)`) until `σ₂` rises through 0 at `t_x = b − y0` and leaves into `mid`
//! from `(c₁, b)`; if `y₁ > b` it crosses at `t₁`. In `mid` (`x' = y − b`), from `t_m`
//! (`t_x` or `t₁`) with `u = x'(t_m)` (0 or `y₁ − b`): `x = c₁ + u s + s²/2`, which reaches
//! `c₂` after `s = −u + √(u² + 2(c₂ − c₁))`, at `t₂ = t_m + s`, where `σ₁ = y₂ − b > 0`. The
//! outer line is crossed if `r > 0` (`x(T) = c₂ + r(T − t₂)`) and held if `r < 0`
//! (`x(T) = c₂`).
//!
//! **`corner`.** `wall = x − c` (between `west`, `(1, v)`, and `east`, `(−a, v)`) and
//! `floor = y − d − k x` (between `east` and `north`, `(−1, −1)`). From `west` the wall is
//! reached at `t_e = c − x0` and held (`σ₂ = −a < 0`) with `f_F = (0, v)`; the floor is met
//! where `y = d + k c`: `t* = t_e + (d + k c − y_e)/v` (`v = 1` from below the floor,
//! `v = −1` from above it: `floor` rises or falls through zero). From `east`
//! (`x = x0 − a t`, `y = y0 + v t`) the floor is reached at `t_e = (d + k x0 − y0)/(v + k a)`
//! and held: with `g_x = (−k, 1)`, `σ₁ = k a + v > 0`, `σ₂ = k − 1 < 0` (`k < 1`),
//! `α = σ₁/(σ₁ − σ₂)` and `f_F = (1 − α)(−a, v) + α(−1, −1)`, a constant field along the
//! floor, whose `x` component `w < 0` meets the wall at `t* = t_e + (c − x_e)/w`.
//!
//! # Tolerances
//!
//! `lanes`, `corner` and `tie` move on polynomial arcs of degree at most 2, on which every ESDIRK
//! tableau is exact, and their event roots are polished on the discrete solution to
//! round-off: their solution, sensitivities and event times equal the closed form to
//! round-off (1e-10 asserted, relative to `max(1, |exact|)`: four orders of magnitude above
//! the ~1e-14 the solves give, below any error an event or a jump condition could make).
//! `latch` slides on an exponential arc, which the integrator follows to its tolerance
//! (`rtol = 1e-10`, `atol = 1e-12`): the states, the sensitivities, the event times and their
//! sensitivities are asserted to 1e-8 relative, two orders above that tolerance (the global
//! error of a solve over `T = 3` at `rtol = 1e-10` is a few 1e-10), far below what a missed
//! event-time term (O(1) in every sensitivity) would give. The adjoint and the forward gradient
//! are derivatives of the same discrete solution: equal to round-off, asserted to 1e-10.
//! The kernels are compared with num-dual to `support`'s tolerances (its module docs).
#![deny(missing_docs)]

use crate::filippov;
use crate::sliding_checks;
use crate::support;

use filippov::{expected_target, sliding_field};
use hysens::hybrid_model;
use hysens::runtime::{
    Direction, EventTarget, GuardInfo, HybridModel, InitialStates, Memory, Params,
};
use num_dual::{Dual64, DualNum};
use sliding_checks::{
    check_solve, close, event_log, forward_and_adjoint_counting_allocations,
    solve_against_closed_form, Case, ClosedForm,
};
use support::{c, check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// An ordinary guard on each side of a wall, both watched while sliding along it.
#[hybrid_model]
pub mod latch {
    /// The states.
    #[states]
    pub struct X {
        /// Across the wall.
        pub x: f64,
        /// Along it.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The wall `x = c`.
        pub c: f64,
        /// The speed towards the wall above it.
        pub a: f64,
        /// The level of `release`.
        pub b: f64,
        /// The slope of `release` in `x`.
        pub d: f64,
        /// The kick of `release`'s reset.
        pub e: f64,
        /// The level of `stop`.
        pub q: f64,
    }

    /// Below the wall.
    #[mode(initial)]
    fn below() -> X {
        X { x: 1.0, y: 1.0 }
    }

    /// Above the wall: back towards it; the first mode when the solve starts there.
    #[mode(initial_if(wall, positive))]
    fn above(x: &X, p: &P) -> X {
        X {
            x: -p.a,
            y: 1.0 + x.y,
        }
    }

    /// Released: off the wall's modes.
    #[mode]
    fn free(x: &X) -> X {
        X { x: x.y, y: -1.0 }
    }

    /// The wall between `below` (`g < 0`) and `above` (`g > 0`).
    #[switching_surface(below, above)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }

    /// A guard of the negative side: `y` reaches `b + d x`.
    #[guard(below -> free, rising)]
    fn release(x: &X, p: &P) -> f64 {
        x.y - p.b - p.d * x.x
    }

    /// `release` kicks the state off the wall, by `e y`.
    #[reset(release)]
    fn kick(x: &X, p: &P) -> X {
        X {
            x: x.x - p.e * x.y,
            y: x.y,
        }
    }

    /// A guard of the positive side: `x y` reaches `q`.
    #[guard(above -> free, rising)]
    fn stop(x: &X, p: &P) -> f64 {
        x.x * x.y - p.q
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }
}

/// Two parallel walls `x = c₁`, `x = c₂` separating three modes.
#[hybrid_model]
pub mod lanes {
    /// The states.
    #[states]
    pub struct X {
        /// Across the walls.
        pub x: f64,
        /// Along them.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The inner wall.
        pub c1: f64,
        /// The outer wall.
        pub c2: f64,
        /// Where `mid`'s field turns from the inner wall to the outer one.
        pub b: f64,
        /// The speed across the outer wall beyond it.
        pub r: f64,
    }

    /// Left of the inner wall.
    #[mode(initial)]
    fn left() -> X {
        X { x: 1.0, y: 1.0 }
    }

    /// Between the walls.
    #[mode]
    fn mid(x: &X, p: &P) -> X {
        X {
            x: x.y - p.b,
            y: 1.0,
        }
    }

    /// Right of the outer wall.
    #[mode]
    fn right(p: &P) -> X {
        X { x: p.r, y: 1.0 }
    }

    /// The inner wall.
    #[switching_surface(left, mid)]
    fn inner(x: &X, p: &P) -> f64 {
        x.x - p.c1
    }

    /// The outer wall.
    #[switching_surface(mid, right)]
    fn outer(x: &X, p: &P) -> f64 {
        x.x - p.c2
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }
}

/// A constant dual number.
fn constant(x: f64) -> Dual64 {
    Dual64::from_re(x)
}

// ---------------------------------------------------------------------------------------------
// (a) Ordinary guards while sliding.
// ---------------------------------------------------------------------------------------------

/// The final time of the `latch` solves.
const LATCH_T: f64 = 3.0;

/// `latch`'s closed form (module docs), `p = (c, a, b, d, e, q)`; asserts the assumptions
/// it is derived under on the case's numbers.
fn latch_closed_form(y0: [Dual64; 2], p: [Dual64; 6]) -> ClosedForm {
    let ([x0, y_start], [c, a, b, d, e, q]) = (y0, p);
    let k = a + 1.0;
    // The entry into sliding, from below or from above.
    let (t_e, y_e) = if x0.re < c.re {
        let t_e = c - x0;
        let y_e = y_start + t_e;
        // `below`'s guard `release` stays negative up to the wall: it is linear in `t` there
        // (`(1 − d) t` plus a constant), so its values at the start and at the entry decide.
        for (at_x, at_y) in [(x0, y_start), (c, y_e)] {
            assert!((at_y - b - d * at_x).re < 0.0, "release in below");
        }
        (t_e, y_e)
    } else {
        let t_e = (x0 - c) / a;
        let y_e = (y_start + 1.0) * t_e.exp() - 1.0;
        // `above`'s guard `stop` stays negative up to the wall: `x y` moves from its start
        // value to `c y_e` with `x` falling linearly and `y` growing; in these cases both ends
        // (and every value between: |x y| ≤ 0.5) are far below `q`.
        for (at_x, at_y) in [(x0, y_start), (c, y_e)] {
            assert!((at_x * at_y - q).re < 0.0, "stop in above");
        }
        (t_e, y_e)
    };
    // On the wall: the time `y` reaches `level` (none if it is already above it: a rising
    // guard then never fires).
    let reach =
        |level: Dual64| (level.re > y_e.re).then(|| t_e + k * ((level + k) / (y_e + k)).ln());
    let (level_r, level_s) = (b + d * c, q / c);
    let (t_g, x_g, y_g) = match (reach(level_r), reach(level_s)) {
        (Some(t_r), t_s) if t_s.is_none_or(|t_s| t_r.re < t_s.re) => {
            (t_r, c - e * level_r, level_r)
        }
        (_, Some(t_s)) => (t_s, c, level_s),
        _ => panic!("no guard fires on the wall"),
    };
    assert!(t_g.re < LATCH_T, "the guard fires before T");
    let s = -t_g + LATCH_T;
    ClosedForm {
        y: [x_g + y_g * s - s * s * 0.5, y_g - s],
        event_times: Some(vec![t_e, t_g]),
    }
}

/// `latch` solved from `y0` with `p`: the event log, the closed form, the adjoint.
fn latch_case(case: Case<'_, 6>) {
    let solver = latch::Model.solver().tolerances(1e-10, 1e-12);
    let names = ["c", "a", "b", "d", "e", "q"];
    solve_against_closed_form(
        "latch",
        solver,
        case,
        LATCH_T,
        names,
        1e-8,
        latch_closed_form,
    );
}

/// Sliding along the wall from below until `below`'s guard `release` fires: its reset kicks
/// the state off the wall into `free`. `t_e = 0.75`, `t_r = 0.75 + 3 ln(5/3.75) ≈ 1.613`.
#[test]
fn a_guard_of_the_negative_side_fires_while_sliding() {
    latch_case((
        "release, from below",
        [0.25, 0.0],
        [1.0, 2.0, 1.5, 0.5, 0.25, 10.0],
        &[
            ("wall_from_below", "below", "wall_sliding"),
            ("release", "wall_sliding", "free"),
        ],
    ));
}

/// Sliding along the wall from below until `above`'s guard `stop` fires (a mode the
/// trajectory never visited): `t_s = 0.75 + 3 ln(4.5/3.75) ≈ 1.297`, without a reset.
#[test]
fn a_guard_of_the_positive_side_fires_while_sliding() {
    latch_case((
        "stop, from below",
        [0.25, 0.0],
        [1.0, 2.0, 5.0, 0.5, 0.25, 1.5],
        &[
            ("wall_from_below", "below", "wall_sliding"),
            ("stop", "wall_sliding", "free"),
        ],
    ));
}

/// From above: the wall is reached at `t_e = 0.25`, and `below`'s guard `release` fires on it
/// at `t_r = 0.25 + 3 ln(5/(e^{0.25} + 2)) ≈ 1.51`.
#[test]
fn a_guard_of_the_side_not_visited_fires_while_sliding_from_above() {
    latch_case((
        "release, from above",
        [1.5, 0.0],
        [1.0, 2.0, 1.5, 0.5, 0.25, 10.0],
        &[
            ("wall_from_above", "above", "wall_sliding"),
            ("release", "wall_sliding", "free"),
        ],
    ));
}

/// A start exactly on the wall, where both fields point at it: the solve slides from `t0`
/// (an event at `t0`, `wall_from_below` out of the fallback mode `below`, as `above`'s field
/// moves `g` down; `hybrid/entry.rs`). The states after the entry are differentiable from
/// both sides of the wall (the entry's projection is the same from either side), so the closed
/// form derived for an entry from above, at `t_e = (x0 − c)/a = 0`, gives their derivatives
/// too; the event time is one-sided: from the initial mode `below` it is `t_e = c − x0`.
#[test]
fn a_start_on_the_wall_slides_from_t0() {
    let (y0, p) = ([1.0, 0.0], [1.0, 2.0, 1.5, 0.5, 0.25, 10.0]);
    let x0 = latch::X { x: y0[0], y: y0[1] };
    let params = latch::P {
        c: p[0],
        a: p[1],
        b: p[2],
        d: p[3],
        e: p[4],
        q: p[5],
    };
    let solver = latch::Model.solver().tolerances(1e-10, 1e-12);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, LATCH_T, &x0, &params)
        .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(
        event_log(&solution),
        [
            ("wall_from_below", "below", "wall_sliding"),
            ("release", "wall_sliding", "free"),
        ]
    );
    assert_eq!(solution.events[0].t, 0.0);
    let adjoint = solver
        .gradient(0.0, LATCH_T, &x0, &params)
        .unwrap_or_else(|e| panic!("{e}"));
    let (worst, gap) = check_solve(
        "start on the wall",
        &solution,
        &adjoint,
        y0,
        p,
        ["c", "a", "b", "d", "e", "q"],
        1e-8,
        |y0, p| {
            let mut exact = latch_closed_form(y0, p);
            if let Some(events) = &mut exact.event_times {
                events[0] = p[0] - y0[0];
            }
            exact
        },
    );
    println!("latch, start on the wall: largest error {worst:.1e}, adjoint − forward {gap:.1e}");
}

// ---------------------------------------------------------------------------------------------
// (b) Two surfaces that do not intersect.
// ---------------------------------------------------------------------------------------------

/// The final time of the `lanes` solves.
const LANES_T: f64 = 3.5;

/// `lanes`' closed form (module docs), `p = (c₁, c₂, b, r)`.
fn lanes_closed_form(y0: [Dual64; 2], p: [Dual64; 4]) -> ClosedForm {
    let ([x0, y_start], [c1, c2, b, r]) = (y0, p);
    let t1 = c1 - x0;
    let y1 = y_start + t1;
    let mut events = vec![t1];
    let (t_m, u) = if y1.re < b.re {
        let t_x = b - y_start;
        events.push(t_x);
        (t_x, constant(0.0))
    } else {
        (t1, y1 - b)
    };
    let s = -u + (u * u + (c2 - c1) * 2.0).sqrt();
    let t2 = t_m + s;
    events.push(t2);
    assert!(t2.re < LANES_T, "the outer wall is reached before T");
    let x = if r.re > 0.0 {
        c2 + r * (-t2 + LANES_T)
    } else {
        c2
    };
    ClosedForm {
        y: [x, y_start + LANES_T],
        event_times: Some(events),
    }
}

/// Two parallel walls (module docs): from `(0.25, 0)` the inner wall is reached at 0.75 and
/// held until `t_x = b = 1.5`, and the outer one reached at `t₂ = 1.5 + √(2 · 0.5) = 2.5`,
/// crossed (`r > 0`) or held (`r < 0`); from `(0.25, 1)` the inner wall is crossed at 0.75
/// (`y₁ − b = 0.25 > 0`) and the outer one reached at `0.75 − 0.25 + √(0.0625 + 1) ≈ 1.531`.
/// The sliding modes watch `inner_meets_outer` / `outer_meets_inner`, which never fire.
#[test]
fn sliding_on_one_of_two_parallel_walls_then_crossing_or_sliding_on_the_other() {
    let cases: [Case<4>; 3] = [
        (
            "sliding on the inner wall, leaving it, crossing the outer one",
            [0.25, 0.0],
            [1.0, 1.5, 1.5, 0.75],
            &[
                ("inner_from_left", "left", "inner_sliding"),
                ("inner_exit_to_mid", "inner_sliding", "mid"),
                ("outer_from_mid", "mid", "right"),
            ],
        ),
        (
            "sliding on the inner wall, leaving it, sliding on the outer one",
            [0.25, 0.0],
            [1.0, 1.5, 1.5, -0.75],
            &[
                ("inner_from_left", "left", "inner_sliding"),
                ("inner_exit_to_mid", "inner_sliding", "mid"),
                ("outer_from_mid", "mid", "outer_sliding"),
            ],
        ),
        (
            "crossing the inner wall, sliding on the outer one",
            [0.25, 1.0],
            [1.0, 1.5, 1.5, -0.75],
            &[
                ("inner_from_left", "left", "mid"),
                ("outer_from_mid", "mid", "outer_sliding"),
            ],
        ),
    ];
    for case in cases {
        let solver = lanes::Model.solver().tolerances(1e-10, 1e-12);
        let names = ["c1", "c2", "b", "r"];
        solve_against_closed_form(
            "lanes",
            solver,
            case,
            LANES_T,
            names,
            1e-10,
            lanes_closed_form,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (c) Two surfaces that intersect.
// ---------------------------------------------------------------------------------------------

/// A wall and a tilted floor that meet at `(c, d + k c)`, sharing the mode `east`.
#[hybrid_model]
pub mod corner {
    /// The states.
    #[states]
    pub struct X {
        /// Across the wall.
        pub x: f64,
        /// Across the floor.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The wall `x = c`.
        pub c: f64,
        /// The floor's height at `x = 0`.
        pub d: f64,
        /// The floor's slope: `y = d + k x`.
        pub k: f64,
        /// The speed towards the wall in `east`.
        pub a: f64,
        /// The vertical speed in `west` and `east`.
        pub v: f64,
    }

    /// West of the wall.
    #[mode(initial)]
    fn west(p: &P) -> X {
        X { x: 1.0, y: p.v }
    }

    /// East of the wall and under the floor; the first mode when the solve starts there.
    #[mode(initial_if(wall, positive))]
    fn east(p: &P) -> X {
        X { x: -p.a, y: p.v }
    }

    /// Over the floor.
    #[mode]
    fn north() -> X {
        X { x: -1.0, y: -1.0 }
    }

    /// The wall.
    #[switching_surface(west, east)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }

    /// The floor.
    #[switching_surface(east, north)]
    fn floor(x: &X, p: &P) -> f64 {
        x.y - p.d - p.k * x.x
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }
}

/// One `corner` solve that meets the other surface: its name, `(x0, y0)`, `(c, d, k, a, v)`,
/// the entry into sliding `(guard, from, to)`, the generated guard that must end the solve,
/// and the closed-form time and point of the meeting.
type Meeting<'a> = (
    &'a str,
    [f64; 2],
    [f64; 5],
    (&'a str, &'a str, &'a str),
    &'a str,
    f64,
    [f64; 2],
);

/// Sliding on one surface into the other ends the solve with `SurfaceIntersection` at the
/// meeting (module docs: `t* = t_e + (d + k c − y_e)/v` on the wall, `t_e + (c − x_e)/w` on
/// the floor), naming the sliding mode and the generated guard `A_meets_B`, with the solution
/// up to it; the adjoint gradient fails the same way. The arcs are linear and the guards
/// linear, so the meeting is located to round-off: 1e-10 (module docs).
#[test]
fn sliding_into_another_surface_is_an_error() {
    use hysens::runtime::SolveError;
    type M = corner::Model;
    let (modes, guards) = (
        <M as HybridModel<2, 0, 5>>::MODES,
        <M as HybridModel<2, 0, 5>>::GUARDS,
    );
    let cases: [Meeting; 3] = [
        (
            "up the wall into the floor",
            [0.25, 0.0],
            [1.0, 1.0, 0.5, 1.0, 1.0],
            ("wall_from_west", "west", "wall_sliding"),
            "wall_meets_floor",
            1.5,
            [1.0, 1.5],
        ),
        (
            "down the wall onto the floor",
            [0.25, 3.0],
            [1.0, 1.0, 0.5, 1.0, -1.0],
            ("wall_from_west", "west", "wall_sliding"),
            "wall_meets_floor",
            1.5,
            [1.0, 1.5],
        ),
        (
            "along the floor into the wall",
            [3.0, 0.0],
            [1.0, 1.0, 0.5, 1.0, 1.0],
            ("floor_from_east", "east", "floor_sliding"),
            "floor_meets_wall",
            2.0,
            [1.0, 1.5],
        ),
    ];
    for (what, y0, p, entry, meets, t_star, point) in cases {
        let x0 = corner::X { x: y0[0], y: y0[1] };
        let params = corner::P {
            c: p[0],
            d: p[1],
            k: p[2],
            a: p[3],
            v: p[4],
        };
        let solver = corner::Model.solver().tolerances(1e-10, 1e-12);
        let Err(failure) = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, 3.0, &x0, &params)
        else {
            panic!("{what}: the surfaces meet: the solve must fail");
        };
        let SolveError::SurfaceIntersection { t, mode, guard } = failure.error else {
            panic!("{what}: {:?}", failure.error);
        };
        let sliding = entry.2;
        assert_eq!(modes[mode].name, sliding, "{what}: the sliding mode");
        assert_eq!(failure.mode, sliding, "{what}");
        assert_eq!(guards[guard].name, meets, "{what}: the guard");
        assert_eq!(
            guards[guard].from, mode,
            "{what}: watched in the sliding mode"
        );
        assert_eq!(M::guard_name(guard), Some(meets), "{what}");
        close(&format!("{what}: t"), t, t_star, 1e-10);
        assert!(
            failure
                .error
                .to_string()
                .contains("switching surfaces intersect"),
            "{what}: {}",
            failure.error
        );
        // The failure's own text names the sliding mode and the surface reached (issue #19).
        let met = meets
            .split("_meets_")
            .nth(1)
            .expect("a meeting guard's name");
        let message = failure.to_string();
        assert!(
            message.contains(&format!(
                "sliding in mode `{sliding}` reached the switching surface `{met}`"
            )),
            "{what}: {message}"
        );
        // The solution up to the meeting is kept: the entry, and the state at the corner.
        let partial = &failure.partial;
        assert_eq!(event_log(partial), [entry], "{what}: the events before");
        close(
            &format!("{what}: t of the partial solution"),
            partial.t,
            t_star,
            1e-10,
        );
        for (i, exact) in point.into_iter().enumerate() {
            close(&format!("{what}: y{i} at t*"), partial.y[i], exact, 1e-10);
        }
        // The adjoint's forward solve (the same steps, without sensitivities) ends the same
        // way, at the same time to round-off, and the gradient fails as `solve` does: the
        // error, its mode's name and the forward solution up to it (issue #19).
        let gradient_failure = solver
            .gradient(0.0, 3.0, &x0, &params)
            .err()
            .unwrap_or_else(|| panic!("{what}: the gradient must fail"));
        assert_eq!(gradient_failure.mode, sliding, "{what}");
        assert_eq!(
            event_log(&gradient_failure.partial),
            [entry],
            "{what}: the events before"
        );
        assert!(gradient_failure.to_string().contains(&format!("`{met}`")));
        let error = gradient_failure.error;
        assert!(
            matches!(error, SolveError::SurfaceIntersection { t: t_adj, mode: m, guard: g } if m == mode && g == guard && (t_adj - t).abs() <= 1e-12),
            "{what}: {error:?}"
        );
        println!(
            "corner, {what}: {meets} at t = {t} (error {:.1e})",
            (t - t_star).abs()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (e) No heap, no panics.
// ---------------------------------------------------------------------------------------------

/// A guard firing while sliding (with its reset) needs no heap: `latch`'s entry and release,
/// with forward sensitivities (`solve_into`) and by the adjoint (`solve_adjoint`, caller
/// storage).
#[test]
fn a_guard_while_sliding_does_not_allocate() {
    use hysens::runtime::HybridOptions;
    let x0 = latch::X { x: 0.25, y: 0.0 };
    let p = latch::P {
        c: 1.0,
        a: 2.0,
        b: 1.5,
        d: 0.5,
        e: 0.25,
        q: 10.0,
    };
    let solver = latch::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All);
    let mut problem = latch::Model::problem(0.0, LATCH_T, &x0, &p);
    problem.sensitivities = Some([[0.0; 6]; 2]);
    let options = HybridOptions::new(1e-10, 1e-12);
    let counted = forward_and_adjoint_counting_allocations::<2, 8, 6, 512>(
        |outputs, all| solver.solve_into(0.0, LATCH_T, &x0, &p, outputs, all),
        |tape, outputs, plain, gradient| {
            latch::Model.solve_adjoint(&problem, &options, tape, outputs, plain, gradient)
        },
    );
    assert_eq!(counted.result, Ok(()));
    assert_eq!(counted.forward.n_events, 2, "entry and release");
    assert_eq!(
        latch::Model::guard_name(counted.events[1].guard),
        Some("release"),
        "fired while sliding"
    );
    assert_eq!(counted.allocations, 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Guards while sliding never panic on user input: any start, wall, levels of both guards
    /// and tolerance give a solution or an error with a message, by the forward sensitivities
    /// and by the adjoint.
    #[test]
    fn guards_while_sliding_never_panic(
        x in proptest::prelude::prop_oneof![-3.0..3.0f64, proptest::sample::select(vec![f64::NAN, f64::INFINITY, 1e300, 0.0])],
        y in -3.0..3.0f64,
        c in proptest::prelude::prop_oneof![-2.0..2.0f64, proptest::sample::select(vec![f64::NAN, -1e300, 0.0])],
        a in -3.0..3.0f64,
        b in -3.0..3.0f64,
        q in -3.0..3.0f64,
        rtol in proptest::sample::select(vec![1e-6, 1e-10, 0.0, -1.0]),
    ) {
        let (x0, p) = (latch::X { x, y }, latch::P { c, a, b, d: 0.5, e: 0.25, q });
        // A start at 1e300 with `rtol = 0` asks for an absolute accuracy far below the
        // round-off of `x`: every step is rejected until the step limit, which is lowered
        // from 100 000 so that such cases end (as `TooManySteps`) in milliseconds.
        let mut options = hysens::runtime::HybridOptions::new(rtol, 1e-10);
        options.integrator.max_steps = 5_000;
        let solver = latch::Model.solver().options(options);
        if let Err(failure) = solver.sensitivities_to(Params::All, InitialStates::All).solve(0.0, LATCH_T, &x0, &p) {
            proptest::prop_assert!(!failure.error.to_string().is_empty());
        }
        if let Err(error) = solver.gradient(0.0, LATCH_T, &x0, &p) {
            proptest::prop_assert!(!error.to_string().is_empty());
        }
    }

    /// Neither do intersecting surfaces: any start and corner.
    #[test]
    fn intersecting_surfaces_never_panic(
        x in -3.0..3.0f64,
        y in -3.0..3.0f64,
        d in proptest::prelude::prop_oneof![-2.0..2.0f64, proptest::sample::select(vec![f64::NAN, 1e300])],
        k in -2.0..2.0f64,
        v in -2.0..2.0f64,
    ) {
        let (x0, p) = (corner::X { x, y }, corner::P { c: 0.5, d, k, a: 1.0, v });
        let solver = corner::Model.solver().tolerances(1e-8, 1e-10);
        if let Err(failure) = solver.sensitivities_to(Params::All, InitialStates::All).solve(0.0, 3.0, &x0, &p) {
            proptest::prop_assert!(!failure.error.to_string().is_empty());
        }
        if let Err(error) = solver.gradient(0.0, 3.0, &x0, &p) {
            proptest::prop_assert!(!error.to_string().is_empty());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The generated tables and kernels: the guards watched while sliding, against plain-Rust twins.
// ---------------------------------------------------------------------------------------------

/// `latch` again, in plain Rust (modes and guards looked up by name, so that the twin does
/// not depend on how the macro numbers the copies it watches while sliding).
struct Latch;

impl Latch {
    /// `(f_F, [σ₁, σ₂])` on the wall.
    fn sliding<D: Scalar>(v: &Vars<D, 2, 0, 6>) -> ([D; 2], [D; 2]) {
        let f2 = [-v.p[1], v.y[1] + 1.0];
        sliding_field([c(1.0), c(0.0)], c(0.0), [c(1.0), c(1.0)], f2)
    }
}

impl Reference<2, 0, 6> for Latch {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 2, 0, 6>) -> [D; 2] {
        match latch::Model::mode_name(mode) {
            Some("below") => [c(1.0), c(1.0)],
            Some("above") => [-v.p[1], v.y[1] + 1.0],
            Some("free") => [v.y[1], c(-1.0)],
            Some("wall_sliding") => Self::sliding(v).0,
            other => panic!("mode {mode}: {other:?}"),
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 6>) -> D {
        let ([x, y], [wall, _, b, d, _, q]) = (v.y, v.p);
        match latch::Model::guard_name(guard) {
            Some("release") => y - b - d * x,
            Some("stop") => x * y - q,
            Some("wall_from_below" | "wall_from_above") => x - wall,
            Some("wall_exit_to_below") => Self::sliding(v).1[0],
            Some("wall_exit_to_above") => Self::sliding(v).1[1],
            other => panic!("guard {guard}: {other:?}"),
        }
    }

    fn reset<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 6>) -> Option<[D; 2]> {
        let ([x, y], e) = (v.y, v.p[4]);
        (latch::Model::guard_name(guard) == Some("release")).then(|| [x - e * y, y])
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 6>) -> Option<D> {
        Some(v.y[0] * v.y[0] + v.y[1])
    }
}

/// `corner` again.
struct Corner;

impl Corner {
    /// The fields of `west`, `east`, `north`.
    fn fields<D: Scalar>(v: &Vars<D, 2, 0, 5>) -> [[D; 2]; 3] {
        let [_, _, _, a, speed] = v.p;
        [[c(1.0), speed], [-a, speed], [c(-1.0), c(-1.0)]]
    }

    /// `(f_F, [σ₁, σ₂])` on the wall.
    fn on_wall<D: Scalar>(v: &Vars<D, 2, 0, 5>) -> ([D; 2], [D; 2]) {
        let [west, east, _] = Self::fields(v);
        sliding_field([c(1.0), c(0.0)], c(0.0), west, east)
    }

    /// `(f_F, [σ₁, σ₂])` on the floor (`g_y = (−k, 1)`).
    fn on_floor<D: Scalar>(v: &Vars<D, 2, 0, 5>) -> ([D; 2], [D; 2]) {
        let [_, east, north] = Self::fields(v);
        sliding_field([-v.p[2], c(1.0)], c(0.0), east, north)
    }
}

impl Reference<2, 0, 5> for Corner {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 2, 0, 5>) -> [D; 2] {
        let [west, east, north] = Self::fields(v);
        match corner::Model::mode_name(mode) {
            Some("west") => west,
            Some("east") => east,
            Some("north") => north,
            Some("wall_sliding") => Self::on_wall(v).0,
            Some("floor_sliding") => Self::on_floor(v).0,
            other => panic!("mode {mode}: {other:?}"),
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 5>) -> D {
        let ([x, y], [wall, d, k, _, _]) = (v.y, v.p);
        match corner::Model::guard_name(guard) {
            Some("wall_from_west" | "wall_from_east" | "floor_meets_wall") => x - wall,
            Some("floor_from_east" | "floor_from_north" | "wall_meets_floor") => y - d - k * x,
            Some("wall_exit_to_west") => Self::on_wall(v).1[0],
            Some("wall_exit_to_east") => Self::on_wall(v).1[1],
            Some("floor_exit_to_east") => Self::on_floor(v).1[0],
            Some("floor_exit_to_north") => Self::on_floor(v).1[1],
            other => panic!("guard {guard}: {other:?}"),
        }
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 5>) -> Option<D> {
        Some(v.y[0] * v.y[0] + v.y[1])
    }
}

/// `n` points with `y ∈ [-2, 2)²`, `t ∈ [0, 3)` and parameters from `params`.
fn points<const NP: usize>(
    seed: u64,
    n: usize,
    params: impl Fn(&mut Rng) -> [f64; NP],
) -> Vec<TestPoint<2, 0, NP>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let y = rng.array(-2.0, 2.0);
            let p = params(&mut rng);
            let t = rng.uniform(0.0, 3.0);
            rng.point(t, y, [], p, Memory::ZERO)
        })
        .collect()
}

/// `latch`'s points: `a ∈ [0, 2)` keeps `σ₁ − σ₂ = 1 + a ≥ 1` away from the pole of `α`.
fn latch_points() -> Vec<TestPoint<2, 0, 6>> {
    points(21, 24, |rng| {
        [
            rng.uniform(-1.0, 1.0),
            rng.uniform(0.0, 2.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-2.0, 2.0),
        ]
    })
}

/// `corner`'s points: `a ∈ [0.5, 2)`, `|k| < 0.5`, `v ∈ [0.5, 1.5)` keep both surfaces'
/// `σ₁ − σ₂` (`1 + a` and `k (a − 1) + v + 1`) at least 1.
fn corner_points() -> Vec<TestPoint<2, 0, 5>> {
    points(22, 24, |rng| {
        [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-0.5, 0.5),
            rng.uniform(0.5, 2.0),
            rng.uniform(0.5, 1.5),
        ]
    })
}

/// Every kernel of `latch` and `corner` — the guards watched while sliding (copies of the
/// declared guards, with their resets, and the other surface's function) included — against
/// num-dual on the twins (`support::check_model`).
#[test]
fn the_guards_watched_while_sliding_match_num_dual() {
    check_model("latch", &latch::Model, &Latch, &latch_points());
    check_model("corner", &corner::Model, &Corner, &corner_points());
}

/// The rates `[σ₁, σ₂]` of a twin at a test point.
fn rates<const NP: usize>(
    sliding: impl Fn(&Vars<f64, 2, 0, NP>) -> ([f64; 2], [f64; 2]),
    point: &TestPoint<2, 0, NP>,
) -> [f64; 2] {
    let v = Vars {
        t: point.t,
        y: point.y,
        z: [],
        p: point.p,
        ys: point.memory.y,
        zs: [],
    };
    sliding(&v).1
}

/// `A_meets_B`'s event is a `SurfaceIntersection`, a surface's four guards choose by the
/// sign tests, and every other guard — a declared guard watched while sliding included —
/// enters its target.
#[test]
fn event_targets_while_sliding() {
    /// Checks `model.event_target` against `expected(guard name, point)` (`None`: the guard's
    /// fixed target) at every point; returns how many were compared.
    fn check<M: HybridModel<2, 0, NP>, const NP: usize>(
        model: &M,
        points: &[TestPoint<2, 0, NP>],
        expected: impl Fn(&str, &TestPoint<2, 0, NP>) -> Option<EventTarget>,
    ) -> usize {
        let mut compared = 0;
        for point in points {
            for (g, info) in M::GUARDS.iter().enumerate() {
                let expected = expected(info.name, point).unwrap_or(EventTarget::Mode(info.to));
                let target = model.event_target(g, &point.at());
                assert_eq!(target, expected, "guard {g} ({}) at {point:?}", info.name);
                compared += 1;
            }
        }
        compared
    }
    // Modes: below 0, above 1, free 2, wall_sliding 3.
    let latch = check(&latch::Model, &latch_points(), |name, point| {
        let kind = [
            "wall_from_below",
            "wall_from_above",
            "wall_exit_to_below",
            "wall_exit_to_above",
        ]
        .iter()
        .position(|n| *n == name)?;
        Some(expected_target(
            kind,
            rates(Latch::sliding, point),
            [0, 1, 3],
        ))
    });
    // Modes: west 0, east 1, north 2, wall_sliding 3, floor_sliding 4.
    let corner = check(&corner::Model, &corner_points(), |name, point| {
        if name.contains("_meets_") {
            return Some(EventTarget::SurfaceIntersection);
        }
        let (surface, kind) = name.split_once('_')?;
        let kind = match kind {
            "from_west" | "from_east" if surface == "wall" => kind.ends_with("east") as usize,
            "from_east" | "from_north" => kind.ends_with("north") as usize,
            "exit_to_west" | "exit_to_east" if surface == "wall" => {
                2 + kind.ends_with("east") as usize
            }
            "exit_to_east" | "exit_to_north" => 2 + kind.ends_with("north") as usize,
            _ => panic!("{name}"),
        };
        Some(if surface == "wall" {
            expected_target(kind, rates(Corner::on_wall, point), [0, 1, 3])
        } else {
            expected_target(kind, rates(Corner::on_floor, point), [1, 2, 4])
        })
    });
    println!("{latch} + {corner} event targets compared");
}

/// The tables: each declared guard is watched in its mode and, under the same name, target,
/// direction and reset, in the sliding mode; each surface's sliding mode watches the other
/// surface that shares a mode with it (`A_meets_B`, either direction), and only then.
#[test]
fn tables_list_the_guards_watched_while_sliding() {
    let guard = |name, from, to, direction, has_reset, surface| GuardInfo {
        name,
        from,
        to,
        direction,
        has_reset,
        surface,
    };
    let watching = |guards: &[GuardInfo], name: &str| -> Vec<GuardInfo> {
        guards.iter().filter(|g| g.name == name).copied().collect()
    };
    // latch: below 0, above 1, free 2, wall_sliding 3.
    let guards = <latch::Model as HybridModel<2, 0, 6>>::GUARDS;
    assert_eq!(
        watching(guards, "release"),
        [
            guard("release", 0, 2, Direction::Rising, true, None),
            guard("release", 3, 2, Direction::Rising, true, None)
        ]
    );
    assert_eq!(
        watching(guards, "stop"),
        [
            guard("stop", 1, 2, Direction::Rising, false, None),
            guard("stop", 3, 2, Direction::Rising, false, None)
        ]
    );
    assert!(
        !guards.iter().any(|g| g.name.contains("_meets_")),
        "one surface"
    );
    // corner: west 0, east 1, north 2, wall_sliding 3, floor_sliding 4.
    let guards = <corner::Model as HybridModel<2, 0, 5>>::GUARDS;
    let meets: Vec<_> = guards
        .iter()
        .filter(|g| g.name.contains("_meets_"))
        .map(|g| (g.name, g.from, g.direction, g.surface))
        .collect();
    // Each watches the surface it meets, which errors name (`GuardInfo::surface`).
    assert_eq!(
        meets,
        [
            ("wall_meets_floor", 3, Direction::Either, Some("floor")),
            ("floor_meets_wall", 4, Direction::Either, Some("wall"))
        ]
    );
    // lanes: the same, for surfaces that never meet.
    let guards = <lanes::Model as HybridModel<2, 0, 4>>::GUARDS;
    let modes = <lanes::Model as HybridModel<2, 0, 4>>::MODES;
    let meets: Vec<_> = guards
        .iter()
        .filter(|g| g.name.contains("_meets_"))
        .map(|g| (g.name, modes[g.from].name))
        .collect();
    assert_eq!(
        meets,
        [
            ("inner_meets_outer", "inner_sliding"),
            ("outer_meets_inner", "outer_sliding")
        ]
    );
}

/// Two guards that fire at the same instant while sliding, one of each side: the one declared
/// first wins. Both read `y − b` (the same expression on the same solution, so their roots
/// are equal to the bit); `up`, declared first, is a guard of the positive side.
#[hybrid_model]
pub mod tie {
    /// The states.
    #[states]
    pub struct X {
        /// Across the wall.
        pub x: f64,
        /// Along it.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The wall `x = c`.
        pub c: f64,
        /// The level of both guards.
        pub b: f64,
    }

    /// Below the wall.
    #[mode(initial)]
    fn below() -> X {
        X { x: 1.0, y: 1.0 }
    }

    /// Above it.
    #[mode]
    fn above() -> X {
        X { x: -1.0, y: 1.0 }
    }

    /// Where `up` leads.
    #[mode]
    fn first() -> X {
        X { x: 1.0, y: 0.0 }
    }

    /// Where `down` leads.
    #[mode]
    fn second() -> X {
        X { x: -1.0, y: 0.0 }
    }

    /// The wall.
    #[switching_surface(below, above)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }

    /// Declared first, a guard of `above`.
    #[guard(above -> first, rising)]
    fn up(x: &X, p: &P) -> f64 {
        x.y - p.b
    }

    /// Declared second, a guard of `below`.
    #[guard(below -> second, rising)]
    fn down(x: &X, p: &P) -> f64 {
        x.y - p.b
    }
}

/// From `(0.25, 0)` the wall `x = 1` is reached at `0.75` and held (`f_F = (0, 1)`); both
/// guards reach zero at `t = b = 1.5`; `up` fires, and `x` then grows from 1 in `first`.
#[test]
fn guards_of_both_sides_at_the_same_instant_the_first_declared_wins() {
    let solution = tie::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .solve(
            0.0,
            2.0,
            &tie::X { x: 0.25, y: 0.0 },
            &tie::P { c: 1.0, b: 1.5 },
        )
        .expect("solves");
    assert_eq!(
        event_log(&solution),
        [
            ("wall_from_below", "below", "wall_sliding"),
            ("up", "wall_sliding", "first")
        ]
    );
    // Linear arcs and guards: the event time and the state to round-off (module docs).
    close("t of up", solution.events[1].t, 1.5, 1e-10);
    close("x(2)", solution.y[0], 1.5, 1e-10);
    close("y(2)", solution.y[1], 1.5, 1e-10);
}
