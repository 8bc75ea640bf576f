//! Filippov sliding on a switching surface, written by hand on the runtime's hooks
//! (`HybridModel::event_target`): the semantics the `#[switching_surface]` attribute builds on,
//! checked against closed forms with forward sensitivities to parameters and initial states,
//! and with the adjoint.
//!
//! The model: states `(x, y)`, parameters `p = (c, a, b)`, the wall `g = x − c` between
//! `below` (`g < 0`, `f¹ = (1, 1)`) and `above` (`g > 0`, a field `f²` per case). With
//! `σᵢ = g_x fⁱ` (Pytlak & Suski, Part I, Eqs. 6–8 and 13–18):
//!
//! - reaching the wall from below: across it if `σ₂ > 0`, into sliding if `σ₂ < 0`;
//! - in sliding, `x' = f_F = (1 − α) f¹ + α f²` with `α = σ₁/(σ₁ − σ₂)` (Eqs. 10–12); here
//!   `f¹_y = f²_y = 1` and `g_x = (1, 0)`, so `f_F = (0, 1)` for every `f²`;
//! - leaving sliding when `σ₂` rises through 0 (`α = 1`), into `above` if `σ₁ > 0`.
//!
//! Cases (`x0, y0 = 0`, `c = 0.5`, `a = 2`, `b = 1.5`, `T = 3`), the wall reached at
//! `t* = c − x0`:
//!
//! - **transversal**, `f² = (a, 1)`: `x(T) = c + a (T − t*)`, so `∂x/∂x0 = a`,
//!   `∂x/∂c = 1 − a`, `∂x/∂a = T − t*`;
//! - **sliding to `t_f`**, `f² = (−a, 1)`: `x(T) = c`, so `∂x/∂c = 1` and nothing else — the
//!   component of the sensitivity normal to the wall is removed at the entry;
//! - **entry and exit**, `f² = (y − b, 1)`: sliding while `y < b`, exit at `t_e = b − y0`, then
//!   `x(T) = c + (T − t_e)²/2`: `∂x/∂c = 1`, `∂x/∂b = −(T − t_e)`, `∂x/∂y0 = T − t_e`,
//!   `∂x/∂x0 = 0`; `dt*/d(c, x0) = (1, −1)`, `dt_e/d(b, y0) = (1, −1)`.
//!
//! `y = y0 + t` throughout. The integrator is exact on these polynomial arcs and the event
//! roots are linear, so the discrete solution and its exact derivatives equal the closed form
//! to round-off (1e-12).
//!
//! Two more models: a curved surface (`Circle`, sliding on a circle, against its closed form)
//! and a nonlinear wall whose sliding field depends on the state through `α` (`Bend`, entry
//! and exit, against central differences of replays of the same step sequence: removing the
//! `α_y` term from its Jacobian makes that test fail, FSA 0.158 against FD 0.033).
//!
//! The three models are written by hand against the runtime's traits, not with
//! `#[hybrid_model]`: they state the runtime's Filippov hooks themselves — each sliding mode's
//! field and `HybridModel::event_target`'s choice at the surface's guards — which a
//! `#[switching_surface]` derives from the surface and which no model written with the macro
//! can state. So the runtime's sliding semantics are checked here on their own, and the
//! macro's construction of them separately (`tests/model_sliding.rs`).
#![allow(clippy::needless_range_loop)]

use crate::sliding_checks;

use hysens::runtime::{
    AdjointProducts, Direction, EventTarget, GuardInfo, HybridModel, InitialStates, ModeInfo,
    ModeJacobian, ModelSizes, ModelTypes, Params, Point, ScalarPartials, SolveError, Solver, Wrt,
};
use sliding_checks::{assert_adjoint_equals_forward, forward_and_adjoint_counting_allocations};

/// A mode of a hand-written model (no memory), for its `MODES` table.
const fn mode(name: &'static str, constant_jacobian: bool) -> ModeInfo {
    ModeInfo {
        name,
        uses_memory: false,
        constant_jacobian,
        terminal: false,
        index2: false,
    }
}

/// A guard of a hand-written model (no reset; the surface is the model's own, not a generated
/// one), for its `GUARDS` table.
const fn guard(name: &'static str, from: usize, to: usize, direction: Direction) -> GuardInfo {
    GuardInfo {
        name,
        from,
        to,
        direction,
        has_reset: false,
        surface: None,
    }
}

/// The adjoint products of a mode without algebraic equations, `oy = f_yᵀ l` and
/// `op = f_pᵀ l`, from its Jacobians.
fn transposed_products<const NP: usize>(
    fy: &[[f64; 2]; 2],
    fp: &[[f64; NP]; 2],
    l: &[f64; 2],
    oy: &mut [f64; 2],
    op: &mut [f64; NP],
) {
    for c in 0..2 {
        oy[c] = (0..2).map(|r| fy[r][c] * l[r]).sum();
    }
    for q in 0..NP {
        op[q] = (0..2).map(|r| fp[r][q] * l[r]).sum();
    }
}

/// Which field `f²` the model has above the wall (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Case {
    Transversal,
    SlidingToEnd,
    EntryAndExit,
}

/// The wall model of the module docs; `repel` makes every surface event repulsive (to test
/// the error path). Hand-written (module docs): its `event_target` writes out the paper's sign
/// tests, and with `repel` it answers `RepulsiveSurface` whatever the fields, which no
/// generated model can.
struct Wall {
    case: Case,
    repel: bool,
}

type P<'a> = Point<'a, 2, 0, 3>;
const BELOW: usize = 0;
const ABOVE: usize = 1;
const SLIDING: usize = 2;

/// The Filippov choice at the wall's four guards (reach from below, from above, exit to below,
/// exit to above) by the signs of `σ₁`, `σ₂` (Pytlak & Suski Eqs. 7, 8, 15, 17).
fn filippov_target(guard: usize, s1: f64, s2: f64) -> EventTarget {
    let mode_if = |ok: bool, mode| {
        if ok {
            EventTarget::Mode(mode)
        } else {
            EventTarget::RepulsiveSurface
        }
    };
    match guard {
        0 => EventTarget::Mode(if s2 > 0.0 { ABOVE } else { SLIDING }),
        1 => EventTarget::Mode(if s1 < 0.0 { BELOW } else { SLIDING }),
        2 => mode_if(s2 < 0.0, BELOW),
        _ => mode_if(s1 > 0.0, ABOVE),
    }
}
const C: usize = 0;
const A: usize = 1;
const B: usize = 2;

impl Wall {
    /// `f²` and its derivatives: `(f², ∂f²/∂y, ∂f²/∂p)`.
    fn above(&self, at: &P) -> ([f64; 2], [[f64; 2]; 2], [[f64; 3]; 2]) {
        let mut fy = [[0.0; 2]; 2];
        let mut fp = [[0.0; 3]; 2];
        let fx = match self.case {
            Case::Transversal => {
                fp[0][A] = 1.0;
                at.p[A]
            }
            Case::SlidingToEnd => {
                fp[0][A] = -1.0;
                -at.p[A]
            }
            Case::EntryAndExit => {
                fy[0][1] = 1.0;
                fp[0][B] = -1.0;
                at.y[1] - at.p[B]
            }
        };
        ([fx, 1.0], fy, fp)
    }

    /// `σ₁ = g_x f¹` and `σ₂ = g_x f²` (`g_x = (1, 0)`).
    fn sigmas(&self, at: &P) -> (f64, f64) {
        (1.0, self.above(at).0[0])
    }
}

impl HybridModel<2, 0, 3> for Wall {
    type Store = hysens::runtime::Inline;
    const MODES: &'static [ModeInfo] = &[
        mode("below", true),
        mode("above", true),
        mode("sliding", true),
    ];
    const GUARDS: &'static [GuardInfo] = &[
        guard("wall from below", BELOW, ABOVE, Direction::Rising),
        guard("wall from above", ABOVE, BELOW, Direction::Falling),
        guard("alpha = 0", SLIDING, BELOW, Direction::Falling),
        guard("alpha = 1", SLIDING, ABOVE, Direction::Rising),
    ];
    const STATE_NAMES: [&'static str; 2] = ["x", "y"];
    const PARAMETER_NAMES: [&'static str; 3] = ["c", "a", "b"];
    const HAS_INTEGRAL_COST: bool = false;

    fn residual(&self, mode: usize, at: &P, f: &mut [f64; 2], _: &mut [f64; 0]) {
        *f = match mode {
            BELOW => [1.0, 1.0],
            ABOVE => self.above(at).0,
            _ => [0.0, 1.0],
        };
    }

    fn jacobian(&self, mode: usize, at: &P, j: &mut ModeJacobian<2, 0>) {
        if mode == ABOVE {
            j.fy = self.above(at).1;
        }
    }

    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &P,
        fp: &mut [[f64; 3]; 2],
        _: &mut [[f64; 3]; 0],
    ) {
        if mode == ABOVE {
            *fp = self.above(at).2;
        }
    }

    fn guard(&self, guard: usize, at: &P) -> f64 {
        let (s1, s2) = self.sigmas(at);
        match guard {
            0 | 1 => at.y[0] - at.p[C],
            2 => s1,
            _ => s2,
        }
    }

    fn guard_partials(&self, guard: usize, at: &P, d: &mut ScalarPartials<2, 0, 3>) {
        match guard {
            0 | 1 => {
                d.y[0] = 1.0;
                d.p[C] = -1.0;
            }
            2 => {}
            _ => {
                let (_, fy, fp) = self.above(at);
                d.y = fy[0];
                d.p = fp[0];
            }
        }
    }

    fn event_target(&self, guard: usize, at: &P) -> EventTarget {
        let (s1, s2) = self.sigmas(at);
        if self.repel {
            return EventTarget::RepulsiveSurface;
        }
        filippov_target(guard, s1, s2)
    }

    /// `φ = x(T)² + y(T)`.
    fn terminal_cost(&self, at: &P) -> f64 {
        at.y[0] * at.y[0] + at.y[1]
    }

    fn terminal_cost_partials(&self, at: &P, d: &mut ScalarPartials<2, 0, 3>) {
        d.y = [2.0 * at.y[0], 1.0];
    }
}

impl AdjointProducts<2, 0, 3> for Wall {
    fn adjoint_products(
        &self,
        mode: usize,
        at: &P,
        l: &[f64; 2],
        _: &[f64; 0],
        oy: &mut [f64; 2],
        _: &mut [f64; 0],
        op: &mut [f64; 3],
    ) {
        let (mut fy, mut fp) = ([[0.0; 2]; 2], [[0.0; 3]; 2]);
        if mode == ABOVE {
            (_, fy, fp) = self.above(at);
        }
        transposed_products(&fy, &fp, l, oy, op);
    }
}

impl ModelSizes<2, 5> for Wall {}
impl ModelTypes<2, 0, 3> for Wall {
    type State = [f64; 2];
    type Algebraic = [f64; 0];
    type Params = [f64; 3];
}

const P0: [f64; 3] = [0.5, 2.0, 1.5];
const T: f64 = 3.0;

/// `(x(T), ∂x(T)/∂(x0, y0, c, a, b))` of the closed form (module docs).
fn closed_form(case: Case) -> (f64, [f64; 5]) {
    let [c, a, b] = P0;
    let entry = c;
    match case {
        Case::Transversal => (c + a * (T - entry), [a, 0.0, 1.0 - a, T - entry, 0.0]),
        Case::SlidingToEnd => (c, [0.0, 0.0, 1.0, 0.0, 0.0]),
        Case::EntryAndExit => {
            let exit = b;
            let d = T - exit;
            (c + d * d / 2.0, [0.0, d, 1.0, 0.0, -d])
        }
    }
}

#[test]
fn crossing_sliding_and_exit_against_the_closed_form() {
    let directions = [
        Wrt::InitialState("x"),
        Wrt::InitialState("y"),
        Wrt::Param("c"),
        Wrt::Param("a"),
        Wrt::Param("b"),
    ];
    for (case, modes) in [
        (Case::Transversal, vec![(BELOW, ABOVE)]),
        (Case::SlidingToEnd, vec![(BELOW, SLIDING)]),
        (Case::EntryAndExit, vec![(BELOW, SLIDING), (SLIDING, ABOVE)]),
    ] {
        let model = Wall { case, repel: false };
        let solver = Solver::new(&model).tolerances(1e-10, 1e-12);
        let solution = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, T, &[0.0, 0.0], &P0)
            .unwrap_or_else(|f| panic!("{case:?}: {}", f.error));
        let got: Vec<_> = solution.events.iter().map(|e| (e.from, e.to)).collect();
        let names = |(f, t): (usize, usize)| (Wall::MODES[f].name, Wall::MODES[t].name);
        let want: Vec<_> = modes.into_iter().map(names).collect();
        assert_eq!(got, want, "{case:?}: the modes entered");
        let (x, dx) = closed_form(case);
        assert!(
            (solution.x[0] - x).abs() < 1e-12,
            "{case:?}: x(T) = {}",
            solution.x[0]
        );
        assert!((solution.x[1] - T).abs() < 1e-12, "{case:?}: y(T)");
        for (k, wrt) in directions.into_iter().enumerate() {
            let s = solution.sensitivity("x", wrt).expect("a direction");
            assert!(
                (s - dx[k]).abs() < 1e-12,
                "{case:?}: ∂x/∂{wrt:?} = {s} vs {}",
                dx[k]
            );
            let sy = solution.sensitivity("y", wrt).expect("a direction");
            let dy = if k == 1 { 1.0 } else { 0.0 };
            assert!((sy - dy).abs() < 1e-12, "{case:?}: ∂y/∂{wrt:?} = {sy}");
        }
        // The entry time t* = c − x0 and, for the exit, t_e = b − y0.
        let entry = &solution.events[0];
        assert!((entry.t - P0[0]).abs() < 1e-12);
        let tau = |k: usize, wrt| solution.event_time_sensitivity(k, wrt).unwrap();
        assert!((tau(0, Wrt::Param("c")) - 1.0).abs() < 1e-12);
        assert!((tau(0, Wrt::InitialState("x")) + 1.0).abs() < 1e-12);
        if case == Case::EntryAndExit {
            assert!((solution.events[1].t - P0[2]).abs() < 1e-12);
            assert!((tau(1, Wrt::Param("b")) - 1.0).abs() < 1e-12);
            assert!((tau(1, Wrt::InitialState("y")) + 1.0).abs() < 1e-12);
        }
        // The adjoint transposes the same chain: dφ/dθ of φ = x(T)² + y(T).
        let gradient = solver
            .gradient(0.0, T, &[0.0, 0.0], &P0)
            .expect("the same solve");
        let what = format!("{case:?}: ");
        assert_adjoint_equals_forward(&what, &gradient, &solution, directions, 1e-12);
    }
}

/// A surface both of whose fields point away at the event ends the solve with
/// `RepulsiveSurface`, naming the time and the guard, and keeps the solution up to it.
#[test]
fn a_repulsive_surface_is_an_error() {
    let model = Wall {
        case: Case::SlidingToEnd,
        repel: true,
    };
    let Err(failure) = Solver::new(&model)
        .tolerances(1e-10, 1e-12)
        .solve(0.0, T, &[0.0, 0.0], &P0)
    else {
        panic!("a repulsive surface must end the solve");
    };
    assert!(
        matches!(failure.error, SolveError::RepulsiveSurface { guard: 0, mode: BELOW, t } if (t - P0[0]).abs() < 1e-12),
        "{:?}",
        failure.error
    );
    assert!(failure
        .error
        .to_string()
        .contains("repulsive switching surface"));
    assert!(
        (failure.partial.t - P0[0]).abs() < 1e-12,
        "kept up to the event"
    );
}

/// A curved surface: the circle `g = x² + y² − R²` between `inside` (`f¹ = ω(−y, x) + μ(x, y)`,
/// spiralling out) and `outside` (`f² = ω(−y, x) − ν(x, y)`, spiralling in). On the circle
/// `σ₁ = 2μ r² > 0 > σ₂ = −2ν r²`: the trajectory reaches it and slides with
/// `f_F = ω(−y, x)` (`α = μ/(μ + ν)`; the radial parts cancel). Parameters `(R, ω, μ, ν)`.
/// Hand-written (module docs): its sliding mode is the field `ω(−y, x)` as written, not one
/// derived from the surface, and its `event_target` is written out.
struct Circle;

type Q<'a> = Point<'a, 2, 0, 4>;
const INSIDE: usize = 0;
const ON: usize = 2;

impl Circle {
    /// `(f, ∂f/∂y, ∂f/∂p)` of `mode`.
    fn field(mode: usize, at: &Q) -> ([f64; 2], [[f64; 2]; 2], [[f64; 4]; 2]) {
        let ([x, y], [_, w, mu, nu]) = (*at.y, *at.p);
        let radial = match mode {
            INSIDE => mu,
            ON => 0.0,
            _ => -nu,
        };
        let f = [-w * y + radial * x, w * x + radial * y];
        let fy = [[radial, -w], [w, radial]];
        let mut fp = [[0.0, -y, 0.0, 0.0], [0.0, x, 0.0, 0.0]];
        match mode {
            INSIDE => (fp[0][2], fp[1][2]) = (x, y),
            ON => {}
            _ => (fp[0][3], fp[1][3]) = (-x, -y),
        }
        (f, fy, fp)
    }
}

impl HybridModel<2, 0, 4> for Circle {
    type Store = hysens::runtime::Inline;
    const MODES: &'static [ModeInfo] = &[
        mode("inside", false),
        mode("outside", false),
        mode("on the circle", false),
    ];
    const GUARDS: &'static [GuardInfo] = &[
        guard("circle from inside", INSIDE, 1, Direction::Rising),
        guard("circle from outside", 1, INSIDE, Direction::Falling),
    ];
    const STATE_NAMES: [&'static str; 2] = ["x", "y"];
    const PARAMETER_NAMES: [&'static str; 4] = ["R", "omega", "mu", "nu"];
    const HAS_INTEGRAL_COST: bool = false;

    fn residual(&self, mode: usize, at: &Q, f: &mut [f64; 2], _: &mut [f64; 0]) {
        *f = Self::field(mode, at).0;
    }
    fn jacobian(&self, mode: usize, at: &Q, j: &mut ModeJacobian<2, 0>) {
        j.fy = Self::field(mode, at).1;
    }
    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &Q,
        fp: &mut [[f64; 4]; 2],
        _: &mut [[f64; 4]; 0],
    ) {
        *fp = Self::field(mode, at).2;
    }
    fn guard(&self, _: usize, at: &Q) -> f64 {
        at.y[0] * at.y[0] + at.y[1] * at.y[1] - at.p[0] * at.p[0]
    }
    fn guard_partials(&self, _: usize, at: &Q, d: &mut ScalarPartials<2, 0, 4>) {
        d.y = [2.0 * at.y[0], 2.0 * at.y[1]];
        d.p[0] = -2.0 * at.p[0];
    }
    fn event_target(&self, guard: usize, at: &Q) -> EventTarget {
        let sigma = |mode| {
            let f = Self::field(mode, at).0;
            2.0 * at.y[0] * f[0] + 2.0 * at.y[1] * f[1]
        };
        EventTarget::Mode(match guard {
            0 => {
                if sigma(1) > 0.0 {
                    1
                } else {
                    ON
                }
            }
            _ => {
                if sigma(INSIDE) < 0.0 {
                    INSIDE
                } else {
                    ON
                }
            }
        })
    }
    /// `φ = x(T)`.
    fn terminal_cost(&self, at: &Q) -> f64 {
        at.y[0]
    }
    fn terminal_cost_partials(&self, _: &Q, d: &mut ScalarPartials<2, 0, 4>) {
        d.y[0] = 1.0;
    }
}

impl AdjointProducts<2, 0, 4> for Circle {
    fn adjoint_products(
        &self,
        mode: usize,
        at: &Q,
        l: &[f64; 2],
        _: &[f64; 0],
        oy: &mut [f64; 2],
        _: &mut [f64; 0],
        op: &mut [f64; 4],
    ) {
        let (_, fy, fp) = Self::field(mode, at);
        transposed_products(&fy, &fp, l, oy, op);
    }
}

impl ModelSizes<2, 6> for Circle {}
impl ModelTypes<2, 0, 4> for Circle {
    type State = [f64; 2];
    type Algebraic = [f64; 0];
    type Params = [f64; 4];
}

/// From `(r0, 0)` inside, the radius grows as `r0 e^{μt}` and the angle as `ωt` until the
/// circle, then the trajectory turns on it: `x(T) = R cos(θ0 + ωT)`, `y(T) = R sin(θ0 + ωT)`
/// whatever the entry time. Its sensitivities: `∂x/∂R = cos θ`, `∂x/∂ω = −R T sin θ`,
/// `∂x/∂(μ, ν) = 0` and, through `θ0 = atan2(y0, x0)`, `∂x/∂y0 = −R sin θ · x0/r0²`,
/// `∂x/∂x0 = R sin θ · y0/r0² = 0` (a radial change of the start is forgotten at the entry).
/// The global error of the integration at rtol 1e-10 bounds the agreement (about 1.3 turns
/// at `ω = 2π`): 1e-8 relative to the scale 1 of the states and `R T` of `∂x/∂ω`.
#[test]
fn sliding_on_a_circle_against_the_closed_form() {
    use core::f64::consts::PI;
    let (r0, radius, omega, mu, nu, t_end) = (0.5, 1.0, 2.0 * PI, 1.0, 1.0, 2.0);
    let p = [radius, omega, mu, nu];
    let solver = Solver::new(&Circle).tolerances(1e-10, 1e-12);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_end, &[r0, 0.0], &p)
        .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(solution.events.len(), 1);
    assert_eq!(
        (solution.events[0].from, solution.events[0].to),
        ("inside", "on the circle")
    );
    let entry = (radius / r0).ln() / mu;
    assert!(
        (solution.events[0].t - entry).abs() < 1e-9,
        "entry at {}",
        solution.events[0].t
    );
    let theta = omega * t_end;
    let (x, y) = (radius * theta.cos(), radius * theta.sin());
    let [xt, yt] = solution.x;
    assert!(
        (xt - x).abs() < 1e-8 && (yt - y).abs() < 1e-8,
        "({xt}, {yt}) vs ({x}, {y})"
    );
    let expected = [
        (Wrt::Param("R"), theta.cos(), 1.0),
        (
            Wrt::Param("omega"),
            -radius * t_end * theta.sin(),
            radius * t_end,
        ),
        (Wrt::Param("mu"), 0.0, 1.0),
        (Wrt::Param("nu"), 0.0, 1.0),
        (Wrt::InitialState("x"), 0.0, 1.0),
        (Wrt::InitialState("y"), -radius * theta.sin() / r0, 1.0 / r0),
    ];
    let mut worst = (xt - x).abs().max((yt - y).abs());
    for (wrt, exact, scale) in expected {
        let s = solution.sensitivity("x", wrt).expect("a direction");
        assert!(
            (s - exact).abs() < 1e-8 * scale,
            "∂x/∂{wrt:?} = {s} vs {exact}"
        );
        worst = worst.max((s - exact).abs() / scale);
    }
    let drift = (xt.hypot(yt) - radius).abs();
    println!("circle: largest scaled error {worst:.1e}, drift of the radius {drift:.1e}");
    let gradient = solver
        .gradient(0.0, t_end, &[r0, 0.0], &p)
        .expect("the same solve");
    let directions = expected.map(|(wrt, _, _)| wrt);
    assert_adjoint_equals_forward("circle: ", &gradient, &solution, directions, 1e-10);
}

/// A nonlinear wall model whose sliding field depends on the state through `α`: below
/// `f¹ = (1 + y²/5, −k y)`, above `f² = (y − b, 1)`, the wall `x = c`. On the wall
/// `σ₁ = 1 + y²/5 > 0`; with `y < b`, `σ₂ = y − b < 0`: sliding with `α = N/D`,
/// `N = 1 + y²/5`, `D = N − y + b`, so `f_F = (0, −k y + α (1 + k y))` (Pytlak & Suski,
/// Eqs. 10–12): `y` climbs to `b`, where `α = 1` and the trajectory leaves into `above`.
/// Parameters `(c, b, k)`. The sliding field's derivatives carry the `α_y`, `α_b` terms:
/// `α_y = (N_y D − N D_y)/D²` with `N_y = 2y/5`, `D_y = N_y − 1`; `α_b = −N/D²`.
/// Hand-written (module docs): the sliding field and its Jacobian, `α_y` and `α_b` terms
/// included, are written out: the test checks the runtime's sensitivities through a sliding
/// mode handed to it as written.
struct Bend;

type R<'a> = Point<'a, 2, 0, 3>;

impl Bend {
    /// `(f, ∂f/∂y, ∂f/∂p)` of `mode`.
    fn field(mode: usize, at: &R) -> ([f64; 2], [[f64; 2]; 2], [[f64; 3]; 2]) {
        let ([_, y], [_, b, k]) = (*at.y, *at.p);
        match mode {
            BELOW => (
                [1.0 + y * y / 5.0, -k * y],
                [[0.0, 0.4 * y], [0.0, -k]],
                [[0.0; 3], [0.0, 0.0, -y]],
            ),
            ABOVE => (
                [y - b, 1.0],
                [[0.0, 1.0], [0.0, 0.0]],
                [[0.0, -1.0, 0.0], [0.0; 3]],
            ),
            _ => {
                let n = 1.0 + y * y / 5.0;
                let d = n - y + b;
                let alpha = n / d;
                let alpha_y = (0.4 * y * d - n * (0.4 * y - 1.0)) / (d * d);
                let alpha_b = -n / (d * d);
                let fy = -k + alpha_y * (1.0 + k * y) + alpha * k;
                (
                    [0.0, -k * y + alpha * (1.0 + k * y)],
                    [[0.0; 2], [0.0, fy]],
                    [[0.0; 3], [0.0, alpha_b * (1.0 + k * y), -y + alpha * y]],
                )
            }
        }
    }

    fn sigmas(at: &R) -> (f64, f64) {
        (Self::field(BELOW, at).0[0], Self::field(ABOVE, at).0[0])
    }
}

impl HybridModel<2, 0, 3> for Bend {
    type Store = hysens::runtime::Inline;
    const MODES: &'static [ModeInfo] = &[
        mode("below", false),
        mode("above", false),
        mode("sliding", false),
    ];
    const GUARDS: &'static [GuardInfo] = Wall::GUARDS;
    const STATE_NAMES: [&'static str; 2] = ["x", "y"];
    const PARAMETER_NAMES: [&'static str; 3] = ["c", "b", "k"];
    const HAS_INTEGRAL_COST: bool = false;

    fn residual(&self, mode: usize, at: &R, f: &mut [f64; 2], _: &mut [f64; 0]) {
        *f = Self::field(mode, at).0;
    }
    fn jacobian(&self, mode: usize, at: &R, j: &mut ModeJacobian<2, 0>) {
        j.fy = Self::field(mode, at).1;
    }
    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &R,
        fp: &mut [[f64; 3]; 2],
        _: &mut [[f64; 3]; 0],
    ) {
        *fp = Self::field(mode, at).2;
    }
    fn guard(&self, guard: usize, at: &R) -> f64 {
        let (s1, s2) = Self::sigmas(at);
        match guard {
            0 | 1 => at.y[0] - at.p[C],
            2 => s1,
            _ => s2,
        }
    }
    fn guard_partials(&self, guard: usize, at: &R, d: &mut ScalarPartials<2, 0, 3>) {
        let (mode, row) = match guard {
            0 | 1 => {
                d.y[0] = 1.0;
                d.p[C] = -1.0;
                return;
            }
            2 => (BELOW, 0),
            _ => (ABOVE, 0),
        };
        let (_, fy, fp) = Self::field(mode, at);
        d.y = fy[row];
        d.p = fp[row];
    }
    fn event_target(&self, guard: usize, at: &R) -> EventTarget {
        let (s1, s2) = Self::sigmas(at);
        filippov_target(guard, s1, s2)
    }
    /// `φ = x(T)² + y(T)`.
    fn terminal_cost(&self, at: &R) -> f64 {
        at.y[0] * at.y[0] + at.y[1]
    }
    fn terminal_cost_partials(&self, at: &R, d: &mut ScalarPartials<2, 0, 3>) {
        d.y = [2.0 * at.y[0], 1.0];
    }
}

impl AdjointProducts<2, 0, 3> for Bend {
    fn adjoint_products(
        &self,
        mode: usize,
        at: &R,
        l: &[f64; 2],
        _: &[f64; 0],
        oy: &mut [f64; 2],
        _: &mut [f64; 0],
        op: &mut [f64; 3],
    ) {
        let (_, fy, fp) = Self::field(mode, at);
        transposed_products(&fy, &fp, l, oy, op);
    }
}

impl ModelSizes<2, 5> for Bend {}
impl ModelTypes<2, 0, 3> for Bend {
    type State = [f64; 2];
    type Algebraic = [f64; 0];
    type Params = [f64; 3];
}

/// On the nonlinear case with entry and exit, the forward sensitivities (to `c, b, k` and the
/// initial state) are the derivatives of the discrete solution: they equal central differences
/// of replays of the same step sequence (`StepPlan::Replay`; the entry and exit re-located on
/// each replay) to 1e-7, with `δ = 1e-6` relative (the central-difference truncation
/// `O(δ²)` and round-off `ε/δ ≈ 1e-10` are far below that). The adjoint equals the forward
/// gradient to 1e-10.
#[test]
fn nonlinear_entry_and_exit_equal_frozen_step_differences() {
    use hysens::runtime::{
        solve, EventRecord, HybridOutputs, HybridProblem, HybridRun, HybridSolution, LoggedStep,
        StepPlan, ESDIRK436L2SA,
    };
    let p0 = [0.5, 1.5, 0.5];
    let y0 = [0.0, 0.2];
    let t_end = 4.0;
    let options = hysens::runtime::HybridOptions::new(1e-8, 1e-10);
    // One solve at (y0, p): final state, cost, events; with `seed`, forward sensitivities.
    let run = |y0: [f64; 2], p: [f64; 3], plan: StepPlan<'_>, log: Option<&mut [LoggedStep]>| {
        let problem = HybridProblem {
            t0: 0.0,
            tf: t_end,
            y0,
            z0: [],
            p,
            sensitivities: Some([[0.0; 3]; 2]),
            sample_times: &[],
            sample_data: &[],
        };
        let mut events = [EventRecord::ZERO; 8];
        let mut solution = HybridSolution::ZERO;
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: Some(&mut events),
            steps: log,
            dense: None,
        };
        solve(
            &HybridRun::new(&Bend, &ESDIRK436L2SA, &problem, &options).with_plan(plan),
            &mut outputs,
            &mut solution,
        )
        .expect("the bend solves");
        solution
    };
    let mut log = vec![LoggedStep::ZERO; 4096];
    let base = run(y0, p0, StepPlan::Adaptive, Some(&mut log));
    assert_eq!(base.n_events, 2, "entry and exit");
    let log = &log[..base.n_logged_steps];
    // FSA columns: the parameters (with ∂y0/∂p = 0) …
    for q in 0..3 {
        let delta = 1e-6 * p0[q];
        let (mut up, mut down) = (p0, p0);
        up[q] += delta;
        down[q] -= delta;
        let (a, b) = (
            run(y0, up, StepPlan::Replay(log), None),
            run(y0, down, StepPlan::Replay(log), None),
        );
        for i in 0..2 {
            let fd = (a.y[i] - b.y[i]) / (2.0 * delta);
            let s = base.sy[i][q];
            assert!(
                (s - fd).abs() < 1e-7 * s.abs().max(1.0),
                "∂y{i}/∂p{q}: FSA {s} vs FD {fd}"
            );
        }
        let fd = (a.cost - b.cost) / (2.0 * delta);
        let g = base.cost_gradient[q];
        assert!(
            (g - fd).abs() < 1e-7 * g.abs().max(1.0),
            "dφ/dp{q}: {g} vs {fd}"
        );
    }
    // … and the initial states, through the builder (columns after the parameters).
    let solver = Solver::new(&Bend).options(options);
    let all = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_end, &y0, &p0)
        .expect("the bend solves");
    for c in 0..2 {
        let delta = 1e-6;
        let (mut up, mut down) = (y0, y0);
        up[c] += delta;
        down[c] -= delta;
        let (a, b) = (
            run(up, p0, StepPlan::Replay(log), None),
            run(down, p0, StepPlan::Replay(log), None),
        );
        let wrt = Wrt::InitialState(Bend::STATE_NAMES[c]);
        for (i, of) in ["x", "y"].into_iter().enumerate() {
            let fd = (a.y[i] - b.y[i]) / (2.0 * delta);
            let s = all.sensitivity(of, wrt).expect("a direction");
            assert!(
                (s - fd).abs() < 1e-7 * s.abs().max(1.0),
                "∂{of}/∂{wrt:?}: FSA {s} vs FD {fd}"
            );
        }
    }
    let gradient = solver
        .gradient(0.0, t_end, &y0, &p0)
        .expect("the same solve");
    for q in 0..3 {
        let (a, f) = (gradient.params[q], base.cost_gradient[q]);
        assert!(
            (a - f).abs() <= 1e-10 * f.abs().max(1.0),
            "dφ/dp{q}: adjoint {a} vs forward {f}"
        );
    }
}

/// A sliding solve allocates nothing: the nonlinear wall with entry and exit, with forward
/// sensitivities and by the adjoint, into caller storage.
#[test]
fn a_sliding_solve_does_not_allocate() {
    use hysens::runtime::{
        solve, solve_adjoint, HybridOptions, HybridProblem, HybridRun, ESDIRK436L2SA,
    };
    let problem = HybridProblem {
        t0: 0.0,
        tf: 4.0,
        y0: [0.0, 0.2],
        z0: [],
        p: [0.5, 1.5, 0.5],
        sensitivities: Some([[0.0; 3]; 2]),
        sample_times: &[],
        sample_data: &[],
    };
    let options = HybridOptions::new(1e-8, 1e-10);
    let run = || HybridRun::new(&Bend, &ESDIRK436L2SA, &problem, &options);
    let counted = forward_and_adjoint_counting_allocations::<2, 3, 3, 512>(
        |outputs, forward| solve(&run(), outputs, forward),
        |tape, outputs, plain, gradient| solve_adjoint(&run(), tape, outputs, plain, gradient),
    );
    assert_eq!(counted.result, Ok(()));
    assert_eq!(
        (counted.forward.n_events, counted.gradient.stats.events),
        (2, 2),
        "entry and exit"
    );
    assert_eq!(counted.allocations, 0);
}

/// A number from the given range, or one of the values that break naive code.
fn wild(range: core::ops::Range<f64>) -> impl proptest::strategy::Strategy<Value = f64> {
    use proptest::prelude::*;
    prop_oneof![
        6 => range,
        1 => prop::sample::select(vec![0.0, -0.0, 1e-300, -1e300, 1e300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Sliding models never panic on user input: any start (below, above or on the wall),
    /// parameters (attractive, repulsive, degenerate `D = 0`) and tolerance give a solution or
    /// an error with a message, keeping what was computed within the span.
    #[test]
    fn sliding_solves_never_panic(
        x0 in wild(-2.0..2.0),
        y0 in wild(-3.0..3.0),
        c in wild(-1.0..1.0),
        b in wild(-2.0..3.0),
        k in wild(-2.0..2.0),
        rtol in proptest::sample::select(vec![1e-6, 1e-10, -1.0, f64::NAN]),
    ) {
        use proptest::prelude::*;
        let solver = Solver::new(&Bend).tolerances(rtol, 1e-10);
        let all = solver.sensitivities_to(Params::All, InitialStates::All);
        if let Err(failure) = all.solve(0.0, 4.0, &[x0, y0], &[c, b, k]) {
            prop_assert!(!failure.error.to_string().is_empty());
            let t = failure.partial.t;
            prop_assert!(t.is_nan() || (0.0..=4.0).contains(&t), "{t}");
        }
        if let Err(error) = solver.gradient(0.0, 4.0, &[x0, y0], &[c, b, k]) {
            prop_assert!(!error.to_string().is_empty());
        }
        let wall = Wall { case: Case::EntryAndExit, repel: false };
        let result = Solver::new(&wall).tolerances(rtol, 1e-10).solve(0.0, 3.0, &[x0, y0], &[c, k, b]);
        if let Err(failure) = result {
            prop_assert!(!failure.error.to_string().is_empty());
        }
    }
}
