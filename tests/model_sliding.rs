//! Filippov switching surfaces (`#[switching_surface(negative, positive)]`, Pytlak & Suski):
//! the generated sliding mode, guards and `event_target` against a plain-Rust twin
//! (`support/filippov.rs`), and solves through the generated models against closed forms, with
//! their forward sensitivities and the adjoint gradient.
//!
//! Four models:
//!
//! - `curved`: an ellipse `x² + k y² = r²` between two nonlinear modes, next to an ordinary
//!   guard with a reset: every kernel against num-dual (the sliding mode's `f_F` and all its
//!   Jacobians included), the tables, `event_target` against the paper's sign tests, and the
//!   identities `g_y (f_F)_y = −f_Fᵀ g_yy`, `g_y (f_F)_p = −f_Fᵀ g_yp`.
//! - `wall`: the wall `x = c + v t` between `f¹ = (1, 1)` and `f² = (a, 1)`: a transversal
//!   crossing (`a > v`), sliding until the final time (`a < v`), from either side, and on a
//!   moving wall.
//! - `ramp`: the wall `x = c` between `f¹ = (1, 1)` and `f² = (y − b, 1)`: sliding entered and
//!   left (`α` reaches 1 at `y = b`), and a crossing.
//! - `circle`: the circle `x² + y² = R²` between a spiral out and a spiral in; the sliding
//!   motion is the rotation at angular speed `ω`, reached from inside or from outside.
//!
//! The closed forms of the wall and the ramp are piecewise polynomials of degree at most 2, on
//! which every tableau is exact, with linear guards located to round-off: the solution and its
//! sensitivities equal the closed form to round-off (1e-10 asserted). The circle's sliding
//! motion is a rotation, integrated to the tolerance.
#![deny(missing_docs)]

use crate::filippov;
use crate::sliding_checks;
use crate::support;

use filippov::{check_event_targets, check_identities, expected_target, sliding_field};
use hysens::hybrid_model;
use hysens::runtime::{
    Direction, EventTarget, GuardInfo, HybridModel, InitialStates, Memory, ModeInfo, Params, Wrt,
};
use num_dual::{Dual64, DualNum};
use sliding_checks::{
    assert_adjoint_equals_forward, check_solve, close, event_log,
    forward_and_adjoint_counting_allocations, solve_against_closed_form, Case, ClosedForm,
};
use support::{c, check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// An ellipse between two nonlinear modes, next to an ordinary guard.
#[hybrid_model]
pub mod curved {
    /// The states.
    #[states]
    pub struct X {
        /// Abscissa.
        pub x: f64,
        /// Ordinate.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The ellipse's half-axis along `x`.
        pub r: f64,
        /// Angular speed.
        pub w: f64,
        /// Radial rate.
        pub m: f64,
        /// The ellipse's aspect: `x² + k y² = r²`.
        pub k: f64,
    }

    /// Inside the ellipse: a time-dependent spiral.
    #[mode(initial)]
    fn inside(x: &X, p: &P, t: f64) -> X {
        X {
            x: -p.w * x.y + p.m * x.x * (1.0 + 0.1 * t),
            y: p.w * x.x + p.m * x.y.powi(3),
        }
    }

    /// Outside it.
    #[mode]
    fn outside(x: &X, p: &P) -> X {
        X {
            x: -p.w * x.y - p.m * x.x + x.y.sin(),
            y: p.w * x.x - p.m * x.y * x.x.cos(),
        }
    }

    /// An ordinary guard, numbered before the surface's.
    #[guard(outside -> inside, rising)]
    fn far(x: &X) -> f64 {
        x.x - 3.0
    }

    /// Its reset.
    #[reset(far)]
    fn pull_in(x: &X, p: &P) -> X {
        X {
            x: 0.5 * x.x,
            y: p.k * x.y,
        }
    }

    /// The ellipse.
    #[switching_surface(inside, outside)]
    fn rim(x: &X, p: &P) -> f64 {
        x.x * x.x + p.k * x.y * x.y - p.r * p.r
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }

    /// An integral cost, integrated in every mode.
    #[cost(integral)]
    fn effort(x: &X, p: &P) -> f64 {
        p.m * x.y * x.y
    }
}

/// A wall `x = c + v t`, reached from either side.
#[hybrid_model]
pub mod wall {
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
        /// The wall's position at `t = 0`.
        pub c: f64,
        /// The speed across the wall above it.
        pub a: f64,
        /// The wall's speed.
        pub v: f64,
    }

    /// Below the wall.
    #[mode(initial)]
    fn below() -> X {
        X { x: 1.0, y: 1.0 }
    }

    /// Above the wall: the first mode when the solve starts there.
    #[mode(initial_if(wall, positive))]
    fn above(p: &P) -> X {
        X { x: p.a, y: 1.0 }
    }

    /// The wall between `below` (`g < 0`) and `above` (`g > 0`).
    #[switching_surface(below, above)]
    fn wall(x: &X, p: &P, t: f64) -> f64 {
        x.x - p.c - p.v * t
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }
}

/// A wall `x = c` that is left when `y` reaches `b`.
#[hybrid_model]
pub mod ramp {
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
        /// The wall.
        pub c: f64,
        /// Where the field above the wall turns away from it.
        pub b: f64,
    }

    /// Below the wall.
    #[mode(initial)]
    fn below() -> X {
        X { x: 1.0, y: 1.0 }
    }

    /// Above the wall: towards it while `y < b`.
    #[mode]
    fn above(x: &X, p: &P) -> X {
        X {
            x: x.y - p.b,
            y: 1.0,
        }
    }

    /// The wall.
    #[switching_surface(below, above)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }
}

/// The circle `x² + y² = R²` between a spiral out and a spiral in.
#[hybrid_model]
pub mod circle {
    /// The states.
    #[states]
    pub struct X {
        /// Abscissa.
        pub x: f64,
        /// Ordinate.
        pub y: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The radius.
        pub r: f64,
        /// Angular speed.
        pub w: f64,
        /// Radial rate.
        pub m: f64,
    }

    /// Inside: spiralling out.
    #[mode(initial)]
    fn inside(x: &X, p: &P) -> X {
        X {
            x: -p.w * x.y + p.m * x.x,
            y: p.w * x.x + p.m * x.y,
        }
    }

    /// Outside: spiralling in; the first mode when the solve starts there.
    #[mode(initial_if(rim, positive))]
    fn outside(x: &X, p: &P) -> X {
        X {
            x: -p.w * x.y - p.m * x.x,
            y: p.w * x.x - p.m * x.y,
        }
    }

    /// The circle.
    #[switching_surface(inside, outside)]
    fn rim(x: &X, p: &P) -> f64 {
        x.x * x.x + x.y * x.y - p.r * p.r
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.y
    }
}

// ---------------------------------------------------------------------------------------------
// The twins, in plain Rust over a number type.
// ---------------------------------------------------------------------------------------------

/// `curved` again.
struct Curved;

impl Curved {
    fn fields<D: Scalar>(v: &Vars<D, 2, 0, 4>) -> [[D; 2]; 2] {
        let ([x, y], [_, w, m, _]) = (v.y, v.p);
        [
            [-w * y + m * x * (v.t * 0.1 + 1.0), w * x + m * y.powi(3)],
            [-w * y - m * x + y.sin(), w * x - m * y * x.cos()],
        ]
    }

    /// `g_y`.
    fn gradient<D: Scalar>(v: &Vars<D, 2, 0, 4>) -> [D; 2] {
        [v.y[0] * 2.0, v.p[3] * v.y[1] * 2.0]
    }

    fn sliding<D: Scalar>(v: &Vars<D, 2, 0, 4>) -> ([D; 2], [D; 2]) {
        let [f1, f2] = Self::fields(v);
        sliding_field(Self::gradient(v), c(0.0), f1, f2)
    }
}

impl Reference<2, 0, 4> for Curved {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 2, 0, 4>) -> [D; 2] {
        match mode {
            0 | 1 => Self::fields(v)[mode],
            2 => Self::sliding(v).0,
            _ => panic!("mode {mode}"),
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 4>) -> D {
        let ([x, y], [r, _, _, k]) = (v.y, v.p);
        match guard {
            // `far`, watched in `outside` and, as guard 5, in the sliding mode.
            0 | 5 => x - 3.0,
            1 | 2 => x * x + k * y * y - r * r,
            3 => Self::sliding(v).1[0],
            4 => Self::sliding(v).1[1],
            _ => panic!("guard {guard}"),
        }
    }

    fn reset<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 4>) -> Option<[D; 2]> {
        (guard == 0 || guard == 5).then(|| [v.y[0] * 0.5, v.p[3] * v.y[1]])
    }

    fn integral_cost<D: Scalar>(&self, _mode: usize, v: &Vars<D, 2, 0, 4>) -> Option<D> {
        Some(v.p[2] * v.y[1] * v.y[1])
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 4>) -> Option<D> {
        Some(v.y[0] * v.y[0] + v.y[1])
    }
}

/// `wall` again.
struct Wall;

impl Wall {
    fn sliding<D: Scalar>(v: &Vars<D, 2, 0, 3>) -> ([D; 2], [D; 2]) {
        let [_, a, speed] = v.p;
        sliding_field([c(1.0), c(0.0)], -speed, [c(1.0), c(1.0)], [a, c(1.0)])
    }
}

impl Reference<2, 0, 3> for Wall {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 2, 0, 3>) -> [D; 2] {
        match mode {
            0 => [c(1.0), c(1.0)],
            1 => [v.p[1], c(1.0)],
            2 => Self::sliding(v).0,
            _ => panic!("mode {mode}"),
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 3>) -> D {
        match guard {
            0 | 1 => v.y[0] - v.p[0] - v.p[2] * v.t,
            2 | 3 => Self::sliding(v).1[guard - 2],
            _ => panic!("guard {guard}"),
        }
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 3>) -> Option<D> {
        Some(v.y[0] * v.y[0] + v.y[1])
    }
}

/// `ramp` again.
struct Ramp;

impl Ramp {
    fn sliding<D: Scalar>(v: &Vars<D, 2, 0, 2>) -> ([D; 2], [D; 2]) {
        let f2 = [v.y[1] - v.p[1], c(1.0)];
        sliding_field([c(1.0), c(0.0)], c(0.0), [c(1.0), c(1.0)], f2)
    }
}

impl Reference<2, 0, 2> for Ramp {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 2, 0, 2>) -> [D; 2] {
        match mode {
            0 => [c(1.0), c(1.0)],
            1 => [v.y[1] - v.p[1], c(1.0)],
            2 => Self::sliding(v).0,
            _ => panic!("mode {mode}"),
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 2>) -> D {
        match guard {
            0 | 1 => v.y[0] - v.p[0],
            2 | 3 => Self::sliding(v).1[guard - 2],
            _ => panic!("guard {guard}"),
        }
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 2>) -> Option<D> {
        Some(v.y[0] * v.y[0] + v.y[1])
    }
}

/// `circle` again.
struct Circle;

impl Circle {
    fn fields<D: Scalar>(v: &Vars<D, 2, 0, 3>) -> [[D; 2]; 2] {
        let ([x, y], [_, w, m]) = (v.y, v.p);
        [
            [-w * y + m * x, w * x + m * y],
            [-w * y - m * x, w * x - m * y],
        ]
    }

    fn sliding<D: Scalar>(v: &Vars<D, 2, 0, 3>) -> ([D; 2], [D; 2]) {
        let [f1, f2] = Self::fields(v);
        sliding_field([v.y[0] * 2.0, v.y[1] * 2.0], c(0.0), f1, f2)
    }
}

impl Reference<2, 0, 3> for Circle {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 2, 0, 3>) -> [D; 2] {
        match mode {
            0 | 1 => Self::fields(v)[mode],
            2 => Self::sliding(v).0,
            _ => panic!("mode {mode}"),
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, 2, 0, 3>) -> D {
        let ([x, y], r) = (v.y, v.p[0]);
        match guard {
            0 | 1 => x * x + y * y - r * r,
            2 | 3 => Self::sliding(v).1[guard - 2],
            _ => panic!("guard {guard}"),
        }
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 3>) -> Option<D> {
        Some(v.y[0] * v.y[0] + v.y[1])
    }
}

// ---------------------------------------------------------------------------------------------
// The kernels.
// ---------------------------------------------------------------------------------------------

/// `n` points with `y ∈ [-2, 2)²` and parameters from `params`, keeping those where
/// `|σ₁ − σ₂| ≥ 0.5` (away from the pole of `α`, so that the sliding field's derivatives are
/// moderate and the tolerances of `check_model` apply).
fn points<const NP: usize>(
    seed: u64,
    n: usize,
    params: impl Fn(&mut Rng) -> [f64; NP],
    rates: impl Fn(&TestPoint<2, 0, NP>) -> [f64; 2],
) -> Vec<TestPoint<2, 0, NP>> {
    let mut rng = Rng::new(seed);
    let mut points = Vec::new();
    while points.len() < n {
        let y = rng.array(-2.0, 2.0);
        let p = params(&mut rng);
        let t = rng.uniform(0.0, 3.0);
        let point = rng.point(t, y, [], p, Memory::ZERO);
        let [s1, s2] = rates(&point);
        if (s1 - s2).abs() >= 0.5 {
            points.push(point);
        }
    }
    points
}

/// The twin's rates `[σ₁, σ₂]` at a point.
fn twin_rates<const NP: usize>(
    sliding: impl Fn(&Vars<f64, 2, 0, NP>) -> ([f64; 2], [f64; 2]),
) -> impl Fn(&TestPoint<2, 0, NP>) -> [f64; 2] {
    move |point| {
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
}

fn curved_points() -> Vec<TestPoint<2, 0, 4>> {
    let params = |rng: &mut Rng| {
        [
            rng.uniform(0.5, 2.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(0.2, 1.0),
            rng.uniform(0.5, 2.0),
        ]
    };
    points(14, 40, params, twin_rates::<4>(Curved::sliding))
}

#[test]
fn curved_kernels_match_num_dual() {
    check_model("curved", &curved::Model, &Curved, &curved_points());
}

#[test]
fn wall_ramp_and_circle_kernels_match_num_dual() {
    let wall_params = |rng: &mut Rng| {
        [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-0.5, 0.5),
        ]
    };
    let wall_points = points(15, 24, wall_params, twin_rates::<3>(Wall::sliding));
    check_model("wall", &wall::Model, &Wall, &wall_points);
    let ramp_params = |rng: &mut Rng| [rng.uniform(-1.0, 1.0), rng.uniform(-2.0, 2.0)];
    let ramp_points = points(16, 24, ramp_params, twin_rates::<2>(Ramp::sliding));
    check_model("ramp", &ramp::Model, &Ramp, &ramp_points);
    let circle_params = |rng: &mut Rng| {
        [
            rng.uniform(0.5, 2.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(0.2, 1.0),
        ]
    };
    let circle_points = points(17, 24, circle_params, twin_rates::<3>(Circle::sliding));
    check_model("circle", &circle::Model, &Circle, &circle_points);
}

#[test]
fn tables_list_the_sliding_mode_and_the_surface_guards() {
    type M = curved::Model;
    let mode = |name, constant_jacobian| ModeInfo {
        name,
        uses_memory: false,
        constant_jacobian,
        terminal: false,
        index2: false,
    };
    assert_eq!(
        <M as HybridModel<2, 0, 4>>::MODES,
        &[
            mode("inside", false),
            mode("outside", false),
            mode("rim_sliding", false)
        ]
    );
    let guard = |name, from, to, direction, has_reset, surface| GuardInfo {
        name,
        from,
        to,
        direction,
        has_reset,
        surface,
    };
    // The surface's four guards watch it, and errors name it by them.
    let rim = Some("rim");
    assert_eq!(
        <M as HybridModel<2, 0, 4>>::GUARDS,
        &[
            guard("far", 1, 0, Direction::Rising, true, None),
            guard("rim_from_inside", 0, 1, Direction::Rising, false, rim),
            guard("rim_from_outside", 1, 0, Direction::Falling, false, rim),
            guard("rim_exit_to_inside", 2, 0, Direction::Falling, false, rim),
            guard("rim_exit_to_outside", 2, 1, Direction::Rising, false, rim),
            // The guard of `outside`, watched while sliding too (a declared guard).
            guard("far", 2, 0, Direction::Rising, true, None),
        ]
    );
    assert_eq!(M::mode_name(2), Some("rim_sliding"));
    assert_eq!(M::mode_name(3), None);
    assert_eq!(M::guard_name(4), Some("rim_exit_to_outside"));
    assert_eq!(M::guard_name(5), Some("far"));
    assert_eq!(M::guard_name(6), None);
    assert_eq!(curved::Model::JACOBIAN_NONZEROS.len(), 3);
    // The wall's sliding field `(≈0, 1)` does not read the states: a constant Jacobian.
    assert!(<wall::Model as HybridModel<2, 0, 3>>::MODES[2].constant_jacobian);
}

#[test]
fn event_targets_follow_the_sign_tests() {
    let points = curved_points();
    let rates = twin_rates::<4>(Curved::sliding);
    let compared = check_event_targets(&curved::Model, 1, [0, 1, 2], &points, &rates);
    // The points reach every outcome: crossing, sliding and repulsive.
    let outcomes: Vec<EventTarget> = points
        .iter()
        .flat_map(|p| (0..4).map(move |k| (k, p)))
        .map(|(k, p)| expected_target(k, rates(p), [0, 1, 2]))
        .collect();
    let (mode, repulsive) = (EventTarget::Mode, EventTarget::RepulsiveSurface);
    for outcome in [mode(0), mode(1), mode(2), repulsive] {
        assert!(outcomes.contains(&outcome), "{outcome:?} is not reached");
    }
    println!("{compared} event targets compared");
}

#[test]
fn the_sliding_field_keeps_the_surface() {
    let worst = check_identities(
        &curved::Model,
        2,
        &curved_points(),
        |p| [2.0 * p.y[0], 2.0 * p.p[3] * p.y[1]],
        |p| [[2.0, 0.0], [0.0, 2.0 * p.p[3]]],
        |p| [[0.0; 4], [0.0, 0.0, 0.0, 2.0 * p.y[1]]],
    );
    println!("curved: largest scaled residual of the identities {worst:.1e}");
    let circle_params = |rng: &mut Rng| {
        [
            rng.uniform(0.5, 2.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(0.2, 1.0),
        ]
    };
    let points = points(18, 24, circle_params, twin_rates::<3>(Circle::sliding));
    let worst = check_identities(
        &circle::Model,
        2,
        &points,
        |p| [2.0 * p.y[0], 2.0 * p.y[1]],
        |_| [[2.0, 0.0], [0.0, 2.0]],
        |_| [[0.0; 3]; 2],
    );
    println!("circle: largest scaled residual of the identities {worst:.1e}");
}

// ---------------------------------------------------------------------------------------------
// Solves against closed forms.
// ---------------------------------------------------------------------------------------------

/// `(x(T), y(T))` of the wall from `(x0, y0)`, `T = 2`: reaching `x = c + v t` from below at
/// `t_e = (c − x0)/(1 − v)`, crossing when `a > v` (then `x = x_e + a (T − t_e)`) and sliding
/// with the wall otherwise (`x = c + v T`); from above (`x0 > c`, `a < v`) it reaches the wall
/// at `t_e = (x0 − c)/(v − a)` and slides.
fn wall_closed_form(y0: [Dual64; 2], p: [Dual64; 3]) -> ClosedForm {
    let ([x0, y_start], [c, a, v]) = (y0, p);
    let t = 2.0;
    let x = if x0.re < c.re && a.re > v.re {
        let t_e = (c - x0) / (-v + 1.0);
        c + v * t_e + a * (-t_e + t)
    } else {
        c + v * t
    };
    ClosedForm::final_state([x, y_start + t])
}

#[test]
fn wall_crossing_and_sliding_against_the_closed_form() {
    let cases: [Case<3>; 5] = [
        (
            "(i) crossing",
            [0.25, 0.5],
            [1.0, 0.75, 0.0],
            &[("wall_from_below", "below", "above")],
        ),
        (
            "(ii) sliding until T",
            [0.25, 0.5],
            [1.0, -0.75, 0.0],
            &[("wall_from_below", "below", "wall_sliding")],
        ),
        (
            "(ii) from above",
            [1.5, 0.5],
            [1.0, -0.75, 0.0],
            &[("wall_from_above", "above", "wall_sliding")],
        ),
        (
            "a moving wall, crossing",
            [0.25, 0.5],
            [1.0, 0.75, 0.25],
            &[("wall_from_below", "below", "above")],
        ),
        (
            "a moving wall, sliding",
            [0.25, 0.5],
            [1.0, -0.75, 0.25],
            &[("wall_from_below", "below", "wall_sliding")],
        ),
    ];
    for case in cases {
        let solver = wall::Model.solver().tolerances(1e-10, 1e-12);
        let names = ["c", "a", "v"];
        solve_against_closed_form("wall", solver, case, 2.0, names, 1e-10, wall_closed_form);
    }
}

/// `(x(T), y(T))` of the ramp from `(x0, y0)`, `T = 3`: reaching `x = c` at `t_e = c − x0`
/// where `y_e = y0 + t_e`; if `y_e < b` it slides (`x = c`) until `y = b` at
/// `t_x = b − y0` and leaves into `above`, where `x = c + (t − t_x)²/2`; if `y_e > b` it
/// crosses, and `x = c + (y_e − b)(t − t_e) + (t − t_e)²/2`.
fn ramp_closed_form(y0: [Dual64; 2], p: [Dual64; 2]) -> ClosedForm {
    let ([x0, y_start], [c, b]) = (y0, p);
    let t = 3.0;
    let t_e = c - x0;
    let y_e = y_start + t_e;
    let x = if y_e.re < b.re {
        let after = -(b - y_start) + t;
        c + after * after * 0.5
    } else {
        let after = -t_e + t;
        c + (y_e - b) * after + after * after * 0.5
    };
    ClosedForm::final_state([x, y_start + t])
}

#[test]
fn ramp_entering_and_leaving_the_sliding_mode_against_the_closed_form() {
    let cases: [Case<2>; 2] = [
        (
            "(iii) sliding, then above",
            [0.25, 0.0],
            [1.0, 1.5],
            &[
                ("wall_from_below", "below", "wall_sliding"),
                ("wall_exit_to_above", "wall_sliding", "above"),
            ],
        ),
        (
            "crossing",
            [0.25, 1.0],
            [1.0, 1.5],
            &[("wall_from_below", "below", "above")],
        ),
    ];
    for case in cases {
        let solver = ramp::Model.solver().tolerances(1e-10, 1e-12);
        solve_against_closed_form(
            "ramp",
            solver,
            case,
            3.0,
            ["c", "b"],
            1e-10,
            ramp_closed_form,
        );
    }
    // The exit time `t_x = b − y0` and its sensitivities.
    let solution = ramp::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(
            0.0,
            3.0,
            &ramp::X { x: 0.25, y: 0.0 },
            &ramp::P { c: 1.0, b: 1.5 },
        )
        .expect("the ramp solves");
    close("t_x", solution.events[1].t, 1.5, 1e-12);
    for (wrt, exact) in [
        (Wrt::Param("b"), 1.0),
        (Wrt::InitialState("y"), -1.0),
        (Wrt::Param("c"), 0.0),
        (Wrt::InitialState("x"), 0.0),
    ] {
        let dt = solution
            .event_time_sensitivity(1, wrt)
            .expect("a direction");
        close(&format!("dt_x/d{wrt:?}"), dt, exact, 1e-10);
    }
}

/// The ramp's entry and exit where the state lands within ulps of zero (issue #19): the wall
/// `x = 0` is reached at `t_e = 0.75` with `y = −0.75`, and the sliding motion leaves it at
/// `y = b = 0`, `t_x = 1.5`, at `(x, y) ≈ (0, 0)`. The restart there took a first step of
/// `‖y‖/‖f‖` (Hairer, Nørsett & Wanner's initial step relative to a state below its tolerance)
/// under the round-off of `t`: `StepSizeTooSmall` at `t_x` with atol 1e-14, at every rtol
/// (`step/adaptive.rs`, "Initial step"). At every tolerance from 1e-4 to 1e-12 and with each
/// tableau the solve, its sensitivities and the adjoint match the closed form to 1e-10, the
/// bound of the ramp's other solves (round-off on its piecewise quadratic solution).
#[test]
fn ramp_entry_and_exit_at_a_zero_state_at_every_tolerance_and_tableau() {
    use hysens::runtime::{ESDIRK23, ESDIRK34};
    let (y0, p) = ([-0.75, -1.5], [0.0, 0.0]);
    let (x0, params) = (ramp::X { x: y0[0], y: y0[1] }, ramp::P { c: p[0], b: p[1] });
    let events = [
        ("wall_from_below", "below", "wall_sliding"),
        ("wall_exit_to_above", "wall_sliding", "above"),
    ];
    let (mut worst, mut gap) = (0.0f64, 0.0f64);
    for rtol in [1e-4, 1e-6, 1e-8, 1e-10, 1e-12] {
        for atol in [rtol * 1e-2, 1e-14] {
            let solver = ramp::Model.solver().tolerances(rtol, atol);
            for tableau in ["ESDIRK436L2SA", "ESDIRK23", "ESDIRK34"] {
                let what = format!("rtol {rtol:e}, atol {atol:e}, {tableau}");
                let forward = solver.sensitivities_to(Params::All, InitialStates::All);
                let (solution, adjoint) = match tableau {
                    "ESDIRK23" => (
                        forward.tableau(&ESDIRK23).solve(0.0, 3.0, &x0, &params),
                        solver.tableau(&ESDIRK23).gradient(0.0, 3.0, &x0, &params),
                    ),
                    "ESDIRK34" => (
                        forward.tableau(&ESDIRK34).solve(0.0, 3.0, &x0, &params),
                        solver.tableau(&ESDIRK34).gradient(0.0, 3.0, &x0, &params),
                    ),
                    _ => (
                        forward.solve(0.0, 3.0, &x0, &params),
                        solver.gradient(0.0, 3.0, &x0, &params),
                    ),
                };
                let solution = solution.unwrap_or_else(|f| panic!("{what}: {}", f.error));
                let adjoint = adjoint.unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(event_log(&solution), events, "{what}");
                close(&format!("{what}: t_x"), solution.events[1].t, 1.5, 1e-10);
                let (w, g) = check_solve(
                    &what,
                    &solution,
                    &adjoint,
                    y0,
                    p,
                    ["c", "b"],
                    1e-10,
                    ramp_closed_form,
                );
                (worst, gap) = (worst.max(w), gap.max(g));
            }
        }
    }
    println!("ramp at a zero state: largest error {worst:.1e}, adjoint − forward {gap:.1e}");
}

/// `(x(T), y(T))` on the circle: the angle advances at `ω` from the start, in every mode, and
/// the radius is `R` after the surface is reached: `R (cos, sin)(atan2(y0, x0) + ω T)`.
fn circle_closed_form(y0: [Dual64; 2], p: [Dual64; 3], t: f64) -> ClosedForm {
    let ([x0, y_start], [r, w, _]) = (y0, p);
    let angle = y_start.atan2(x0) + w * t;
    ClosedForm::final_state([r * angle.cos(), r * angle.sin()])
}

#[test]
fn circle_sliding_from_inside_and_outside_against_the_closed_form() {
    let p = [1.0, 0.8, 1.0];
    let params = circle::P {
        r: p[0],
        w: p[1],
        m: p[2],
    };
    // From radius 0.5 the circle is reached at ln 2 ≈ 0.69, from radius 2 at the same time.
    for (what, y0, first) in [
        ("from inside", [0.3, 0.4], "inside"),
        ("from outside", [1.2, -1.6], "outside"),
    ] {
        let x0 = circle::X { x: y0[0], y: y0[1] };
        let solver = circle::Model.solver().tolerances(1e-10, 1e-12);
        let solution = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, 3.0, &x0, &params)
            .unwrap_or_else(|f| panic!("{what}: {}", f.error));
        let log: Vec<_> = solution.events.iter().map(|e| (e.from, e.to)).collect();
        assert_eq!(log, [(first, "rim_sliding")], "{what}");
        close(
            &format!("{what}: t_e"),
            solution.events[0].t,
            2f64.ln(),
            1e-8,
        );
        let adjoint = solver
            .gradient(0.0, 3.0, &x0, &params)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let (worst, gap) = check_solve(
            what,
            &solution,
            &adjoint,
            y0,
            p,
            ["r", "w", "m"],
            1e-8,
            |y0, p| circle_closed_form(y0, p, 3.0),
        );
        println!("circle, {what}: largest error {worst:.1e}, adjoint − forward {gap:.1e}");
    }
}

/// A generated sliding model solves without the heap: entry, sliding and exit of the ramp, with
/// forward sensitivities (`solve_into`) and by the adjoint (`solve_adjoint`, caller storage).
#[test]
fn a_generated_sliding_solve_does_not_allocate() {
    use hysens::runtime::HybridOptions;
    let (x0, p) = (ramp::X { x: 0.0, y: 0.0 }, ramp::P { c: 0.5, b: 1.5 });
    let solver = ramp::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All);
    let mut problem = ramp::Model::problem(0.0, 3.0, &x0, &p);
    problem.sensitivities = Some([[0.0; 2]; 2]);
    let options = HybridOptions::new(1e-10, 1e-12);
    let counted = forward_and_adjoint_counting_allocations::<2, 4, 2, 256>(
        |outputs, all| solver.solve_into(0.0, 3.0, &x0, &p, outputs, all),
        |tape, outputs, plain, gradient| {
            ramp::Model.solve_adjoint(&problem, &options, tape, outputs, plain, gradient)
        },
    );
    assert_eq!(counted.result, Ok(()));
    assert_eq!(counted.forward.n_events, 2, "entry and exit");
    assert_eq!(counted.allocations, 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(100))]

    /// Generated sliding models never panic on user input: any start, parameters (the wall,
    /// where the far field turns) and tolerance give a solution or an error with a message.
    #[test]
    fn generated_sliding_solves_never_panic(
        x in proptest::prelude::prop_oneof![-3.0..3.0f64, proptest::sample::select(vec![f64::NAN, f64::INFINITY, 1e300, 0.0])],
        y in -3.0..3.0f64,
        c in proptest::prelude::prop_oneof![-2.0..2.0f64, proptest::sample::select(vec![f64::NAN, -1e300])],
        b in -3.0..3.0f64,
        rtol in proptest::sample::select(vec![1e-6, 1e-10, 0.0, -1.0]),
    ) {
        let (x0, p) = (ramp::X { x, y }, ramp::P { c, b });
        let solver = ramp::Model.solver().tolerances(rtol, 1e-10);
        if let Err(failure) = solver.sensitivities_to(Params::All, InitialStates::All).solve(0.0, 3.0, &x0, &p) {
            proptest::prop_assert!(!failure.error.to_string().is_empty());
        }
        if let Err(error) = solver.gradient(0.0, 3.0, &x0, &p) {
            proptest::prop_assert!(!error.to_string().is_empty());
        }
    }
}

/// A solve that starts exactly on a surface: on an attractive one it slides from `t0` (an
/// event at `t0`, `hybrid/entry.rs`; its sensitivities against a closed form are in
/// `model_sliding_events.rs`); where both fields cross it the same way it starts on the side
/// they move into; on a repulsive one it is `SolveError::RepulsiveSurface`, never a silent
/// choice of a side.
#[test]
fn a_start_on_the_surface_slides_crosses_or_is_refused() {
    use hysens::runtime::SolveError;
    let p = wall::P {
        c: 0.5,
        a: -2.0,
        v: 0.0,
    };
    let on = wall::X { x: 0.5, y: 0.0 };
    let solution = wall::Model
        .solver()
        .solve(0.0, 1.0, &on, &p)
        .expect("solves");
    let entry = &solution.events[0];
    assert_eq!(
        (
            entry.t,
            entry.guard,
            entry.from,
            entry.to,
            solution.events.len()
        ),
        (0.0, "wall_from_below", "below", "wall_sliding", 1)
    );
    assert_eq!(solution.mode, "wall_sliding");
    assert!((solution.x.x - 0.5).abs() < 1e-12 && (solution.x.y - 1.0).abs() < 1e-12);
    // A wall moving at v = 2 between x' = 1 below and x' = 3 above: g' = −1 below and +1
    // above, both fields leave the wall (repulsive). A start on it is neither side's.
    let repulsive = wall::P {
        c: 0.5,
        a: 3.0,
        v: 2.0,
    };
    let Err(failure) = wall::Model.solver().solve(0.0, 1.0, &on, &repulsive) else {
        panic!("a start on a repulsive surface must be refused");
    };
    assert!(
        matches!(
            failure.error,
            SolveError::RepulsiveSurface {
                t: 0.0,
                mode: 1,
                guard: 0
            }
        ),
        "{:?}",
        failure.error
    );
    // Named by the surface and the mode, not by indices (issue #19).
    assert_eq!(
        failure.to_string(),
        "repulsive switching surface `wall`: both fields point away from it at t = 0.0 in mode `above`"
    );
    // With v = 0 both fields cross the wall upwards (g' = 1 and 3): the start is above.
    let crossing = wall::P {
        v: 0.0,
        ..repulsive
    };
    let solution = wall::Model
        .solver()
        .solve(0.0, 1.0, &on, &crossing)
        .expect("solves");
    assert_eq!((solution.mode, solution.events.len()), ("above", 0));
    assert!((solution.x.x - 3.5).abs() < 1e-12);
}

#[path = "../examples/relay_sliding/model.rs"]
mod relay_model;

/// A step whose end rounds onto a sample time lands on it: the relay example with 101 evenly
/// spaced samples and `h_max = 0.025` once ended a fixed step on the sample at 4.9 by
/// round-off, then took a step of length zero, which the adjoint's transposed step cannot
/// divide by (`NonFiniteValue` at t = 4.9). Now the adjoint gradient equals the forward one.
#[test]
fn a_step_ending_on_a_sample_by_round_off_lands_on_it() {
    use hysens::runtime::HybridOptions;
    use relay_model::relay;
    let mut options = HybridOptions::new(1e-10, 1e-12);
    options.integrator.h_max = 0.025;
    let times: Vec<f64> = (0..101).map(|k| 5.0 * k as f64 / 100.0).collect();
    let x0 = relay::X { x1: 6.0, x2: -4.0 };
    let p = relay::P {
        lambda: 1.0,
        k: 1.0,
        d: 1.5,
    };
    let solver = relay::Model.solver().options(options).samples(&times);
    let adjoint = solver
        .gradient(0.0, 5.0, &x0, &p)
        .expect("the adjoint solves");
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 5.0, &x0, &p)
        .expect("the forward solve");
    let directions = ["lambda", "k", "d"].map(Wrt::Param);
    assert_adjoint_equals_forward("relay: ", &adjoint, &forward, directions, 1e-10);
}
