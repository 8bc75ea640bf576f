//! An event at `t0`: a ball on the floor moving down bounces at the start (`hybrid/entry.rs`),
//! written as an ODE and as an index-1 DAE (`tests/support/event_models.rs`), against the
//! closed form, by the forward sensitivities and by the adjoint.
//!
//! From `(h0, v0)` with `h0 ≥ 0`, the impact comes at `t1 = (v0 + w)/g`, `w = √(v0² + 2 g h0)`,
//! with speed `w`; after it, `h = e w τ − g τ²/2` and `v = e w − g τ`, `τ = t − t1`. At
//! `h0 = 0`, `v0 < 0`: `w = |v0|` and `t1 = 0`, the event at `t0`. Its derivatives are those
//! of the solutions that start above the floor (`h0 ≥ 0`: below it there is no flight to
//! compare with), which is what the zero-length step to the event differentiates
//! (`τ = −(h_y s0 + h_p)/(h_y f⁻)`). Every piece is a polynomial in time that the ESDIRK steps
//! follow exactly, so every tolerance is a round-off bound.
#![deny(missing_docs)]

use crate::event_models;

use event_models::{ball, dae_ball};
use hysens::hybrid_model;
use hysens::runtime::{Fields, Gradient, InitialStates, Params, Solution, Wrt};
use num_dual::{Dual64, DualNum};

const V0: f64 = -2.0;
const G: f64 = 9.81;
const E: f64 = 0.8;
/// Before the second impact (at `2 e |v0| / g ≈ 0.326`).
const T: f64 = 0.3;
/// The directions `(h0, v0, g, e)`, in the order of the closed form's seeds.
const WRT: [Wrt<'static>; 4] = [
    Wrt::InitialState("h"),
    Wrt::InitialState("v"),
    Wrt::Param("g"),
    Wrt::Param("e"),
];

/// `(h, v)(T)`, the impact time `t1` and the models' terminal cost `φ = h + v²/2 + g h`, along
/// the seed `k` of `(h0, v0, g, e)`.
fn closed_form(k: usize) -> ([Dual64; 2], Dual64, Dual64) {
    let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
    let (h0, v0, g, e) = (seed(0, 0.0), seed(1, V0), seed(2, G), seed(3, E));
    let w = (v0 * v0 + g * h0 * 2.0).sqrt();
    let t1 = (v0 + w) / g;
    let tau = -t1 + T;
    let [h, v] = [e * w * tau - g * tau * tau * 0.5, e * w - g * tau];
    ([h, v], t1, h + v * v * 0.5 + g * h)
}

/// Checks a solve with an impact at `t0` and its adjoint gradient against the closed form to
/// `tol` (the adjoint against the forward gradient to 1e-12: the same discrete solution).
fn check<X: Fields<2>, const NZ: usize>(
    solution: &Solution<X, 2, NZ, 2>,
    adjoint: &Gradient<2, 2>,
    tol: f64,
) {
    assert_eq!(solution.events.len(), 1);
    assert_eq!(
        (solution.events[0].t, solution.events[0].guard),
        (0.0, "impact")
    );
    let close = |what: &str, a: f64, b: f64| {
        assert!(
            (a - b).abs() <= tol * b.abs().max(1.0),
            "{what}: {a} vs {b}"
        );
    };
    for (k, wrt) in WRT.into_iter().enumerate() {
        let ([h, v], t1, cost) = closed_form(k);
        close("h(T)", solution.y[0], h.re);
        close("v(T)", solution.y[1], v.re);
        for (of, exact) in [("h", h.eps), ("v", v.eps)] {
            let computed = solution.sensitivity(of, wrt).expect("a direction");
            close(&format!("∂{of}/∂{wrt:?}"), computed, exact);
        }
        let dt = solution
            .event_time_sensitivity(0, wrt)
            .expect("a direction");
        close(&format!("dt1/d{wrt:?}"), dt, t1.eps);
        let forward = solution.cost_gradient(wrt).expect("a direction");
        close(&format!("dφ/d{wrt:?}"), forward, cost.eps);
        let backward = adjoint.wrt(wrt).expect("a direction");
        let gap = (backward - forward).abs() / forward.abs().max(1.0);
        assert!(
            gap <= 1e-12,
            "dφ/d{wrt:?}: adjoint {backward} vs forward {forward}"
        );
    }
}

/// Solves the ball of module `$ball` (`ball` or `dae_ball`, whose states and parameters have
/// the same fields) on the floor moving down, forward with sensitivities and by the adjoint,
/// and checks both with [`check`] to `$tol` (a macro: the two models are different types).
macro_rules! check_bounce_at_t0 {
    ($ball:ident, $tol:expr) => {{
        let (x0, p) = ($ball::X { h: 0.0, v: V0 }, $ball::P { g: G, e: E });
        let solver = $ball::Model.solver().tolerances(1e-10, 1e-12);
        let solution = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, T, &x0, &p)
            .expect("the ball solves");
        let adjoint = solver.gradient(0.0, T, &x0, &p).expect("the ball solves");
        check(&solution, &adjoint, $tol);
    }};
}

#[test]
fn a_ball_on_the_floor_moving_down_bounces_at_t0() {
    check_bounce_at_t0!(ball, 1e-12);
}

/// The same as an index-1 DAE: the zero-length step to the event moves the algebraic `w` along
/// the constraint (`ż = −g_z⁻¹ g_y f`), which enters `τ`'s denominator and `w⁻`. The
/// tolerance is the DAE solve's Newton accuracy (`tests/short_steps.rs`: about 1e-11).
#[test]
fn a_dae_ball_on_the_floor_moving_down_bounces_at_t0() {
    check_bounce_at_t0!(dae_ball, 2e-10);
}

/// A lever pushed by a spring-like algebraic force `w` (`w + w³/10 = k x`) until `w`
/// reaches `thr` (the guard reads the algebraic variable), then released with a kick that
/// reads `w` too (`v⁺ = −e v + w/10`) into free flight against a damping force. Started with
/// `thr` equal to the consistent `w` at `t0` and `ẇ > 0` (`v0 > 0`): an event at `t0`, whose
/// zero-length step moves `w` along the constraint (`ż = k v/(1 + 3w²/10)`) — in `τ`'s
/// denominator `h_z ż` and in the jump `w⁻ = w0 + ż τ`.
#[hybrid_model]
pub mod lever {
    /// The states.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
        /// Velocity.
        pub v: f64,
    }

    /// The algebraic force.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub w: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Release threshold.
        pub thr: f64,
        /// Restitution of the kick.
        pub e: f64,
        /// Damping in free flight.
        pub c: f64,
    }

    /// Pushed: `v' = w`.
    #[mode(initial)]
    fn pushed(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { x: x.v, v: z.w }, [z.w - p.k * x.x + 0.1 * z.w.powi(3)])
    }

    /// Free: damped, `w = c v`.
    #[mode]
    fn free(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { x: x.v, v: -z.w }, [z.w - p.c * x.v])
    }

    /// The force reaches the threshold.
    #[guard(pushed -> free, rising)]
    fn release(z: &Z, p: &P) -> f64 {
        z.w - p.thr
    }

    /// The kick.
    #[reset(release)]
    fn kick(x: &X, z: &Z, p: &P) -> X {
        X {
            x: x.x,
            v: -p.e * x.v + 0.1 * z.w,
        }
    }

    /// A terminal cost.
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x * x.x + x.v
    }
}

/// `lever` started on its guard: the adjoint equals the forward gradient to 1e-10 (the same
/// discrete solution; as `tests/adjoint_events.rs` for DAE models). Against finite
/// differences of whole solves (adaptive steps, rtol 1e-12): a central one for `e` and `c`,
/// which do not move `h(t0)` (the event stays at `t0`); one-sided ones for `thr` (up) and `k`
/// (down), towards `h(t0) < 0`, where the event moves to `t ≈ δ/ẇ` — the side the zero-length
/// step differentiates. Tolerances: the differences' truncation (`δ²`, `δ`) and the solves'
/// noise (`rtol/δ`).
#[test]
fn a_dae_start_on_a_guard_that_reads_an_algebraic_variable() {
    let (t0, tf) = (0.0, 1.5);
    let x0 = lever::X { x: 0.5, v: 1.0 };
    let params = |k: f64, thr: f64, e: f64, c: f64| lever::P { k, thr, e, c };
    let (k, e, c) = (2.0, 0.8, 0.3);
    let solver = lever::Model.solver().tolerances(1e-12, 1e-14);
    // The consistent w at t0 (the constraint does not read thr).
    let start = solver
        .samples(&[t0])
        .solve(t0, tf, &x0, &params(k, 10.0, e, c))
        .expect("solves");
    let thr = start.samples[0].z[0];
    let p = params(k, thr, e, c);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(t0, tf, &x0, &p)
        .expect("solves");
    let first = &solution.events[0];
    assert_eq!((first.t, first.guard, first.to), (t0, "release", "free"));
    let adjoint = solver.gradient(t0, tf, &x0, &p).expect("solves");
    let directions = ["k", "thr", "e", "c"].map(Wrt::Param);
    for wrt in directions
        .into_iter()
        .chain(["x", "v"].map(Wrt::InitialState))
    {
        let (f, a) = (
            solution.cost_gradient(wrt).unwrap(),
            adjoint.wrt(wrt).unwrap(),
        );
        assert!(
            (a - f).abs() <= 1e-10 * f.abs().max(1.0),
            "dG/d{wrt:?}: {a} vs {f}"
        );
    }
    let cost = |p: lever::P| solver.solve(t0, tf, &x0, &p).expect("solves").cost;
    let gradient = |name| solution.cost_gradient(Wrt::Param(name)).unwrap();
    let delta = 1e-4;
    let fd_e =
        (cost(params(k, thr, e + delta, c)) - cost(params(k, thr, e - delta, c))) / (2.0 * delta);
    let fd_c =
        (cost(params(k, thr, e, c + delta)) - cost(params(k, thr, e, c - delta))) / (2.0 * delta);
    for (name, fd) in [("e", fd_e), ("c", fd_c)] {
        let f = gradient(name);
        assert!(
            (fd - f).abs() <= 1e-6 * f.abs().max(1.0),
            "dG/d{name}: FD {fd} vs {f}"
        );
    }
    let delta = 1e-6;
    let fd_thr = (cost(params(k, thr + delta, e, c)) - solution.cost) / delta;
    let fd_k = (solution.cost - cost(params(k - delta, thr, e, c))) / delta;
    for (name, fd) in [("thr", fd_thr), ("k", fd_k)] {
        let f = gradient(name);
        assert!(
            (fd - f).abs() <= 1e-4 * f.abs().max(1.0),
            "dG/d{name}: one-sided FD {fd} vs {f}"
        );
    }
}
