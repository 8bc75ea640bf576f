//! The first step of a segment never falls below the round-off of `t`, whatever the size of
//! the state (issue #19): at the start of a solve from a tiny state, after a crossing that
//! lands the state within a few ulps of zero, and across a Filippov switching surface at every
//! tolerance from 1e-4 to 1e-12 with each tableau.
//!
//! The defect: the initial step (Hairer, Nørsett & Wanner I, §II.4; `step/adaptive.rs`, module
//! docs "Initial step") scaled its probe and its cap with the state's size relative to its
//! rate, `0.01 ‖y0‖/‖f0‖` in the error test's norm, counting a state as zero only below
//! `‖y0‖ < 1e-5`. A state within its tolerance of zero but above that (`x0 = 1e-16` with atol
//! 1e-12: `‖y0‖ = 1e-4`) got a first step of `‖y0‖/‖f0‖ = 5e-16`, below the round-off of
//! `t = 0.5`, and the solve ended at once with `StepSizeTooSmall`. A crossing of a surface
//! `x = 0` leaves such a state wherever the event lands a few ulps off the root, and the
//! restart failed the same way, at rtol 1e-10 and 1e-12 with `atol = rtol/100` (at rtol 1e-8
//! `‖y0‖ = 1e-6` was under the threshold and it worked), and with atol 1e-14 at every rtol.
//!
//! Every model here has piecewise constant fields: its solution is piecewise linear, which
//! every tableau integrates exactly, and its event times are roots of linear guards located
//! to round-off. So the closed forms hold to round-off at every tolerance, and each
//! tolerance below is a round-off bound.
#![deny(missing_docs)]

use hysens::hybrid_model;
use hysens::runtime::{
    HybridModel, HybridOutputs, HybridSolution, InitialStates, LoggedStep, ModelSizes, ModelTypes,
    Params, Solver, StepKind, Wrt, ESDIRK23, ESDIRK34,
};

/// `x' = v` in a single mode.
#[hybrid_model]
pub mod drift {
    /// The state.
    #[states]
    pub struct X {
        /// The drifting state.
        pub x: f64,
    }

    /// The parameter.
    #[params]
    pub struct P {
        /// The rate.
        pub v: f64,
    }

    /// The only mode.
    #[mode(initial)]
    fn only(p: &P) -> X {
        X { x: p.v }
    }

    /// A terminal cost (for the gradient).
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x
    }
}

/// `x' = −down` until `x` falls through 0 (an ordinary guard), then `x' = up`.
#[hybrid_model]
pub mod floor {
    /// The state.
    #[states]
    pub struct X {
        /// The height.
        pub x: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The falling speed.
        pub down: f64,
        /// The rising speed.
        pub up: f64,
    }

    /// Falling.
    #[mode(initial)]
    fn falling(p: &P) -> X {
        X { x: -p.down }
    }

    /// Rising.
    #[mode]
    fn rising(p: &P) -> X {
        X { x: p.up }
    }

    /// The floor `x = 0`.
    #[guard(falling -> rising, falling)]
    fn floor(x: &X) -> f64 {
        x.x
    }

    /// A terminal cost (for the gradient).
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x
    }
}

/// A switching surface `x = c` that the flow crosses transversally: `x' = v_l` on the left,
/// `x' = v_r` on the right, both positive.
#[hybrid_model]
pub mod surface {
    /// The state.
    #[states]
    pub struct X {
        /// The state across the surface.
        pub x: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The surface.
        pub c: f64,
        /// The rate on the left.
        pub vl: f64,
        /// The rate on the right.
        pub vr: f64,
    }

    /// Left of the surface.
    #[mode(initial)]
    fn left(p: &P) -> X {
        X { x: p.vl }
    }

    /// Right of it.
    #[mode(initial_if(wall, positive))]
    fn right(p: &P) -> X {
        X { x: p.vr }
    }

    /// The surface between `left` (`x < c`) and `right`.
    #[switching_surface(left, right)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }

    /// A terminal cost (for the gradient).
    #[cost(terminal)]
    fn phi(x: &X) -> f64 {
        x.x
    }
}

/// The relative tolerances the switching surfaces are to work at (issue #19).
const RTOLS: [f64; 5] = [1e-4, 1e-6, 1e-8, 1e-10, 1e-12];

/// Round-off bound for every comparison with a closed form, per unit of the time scale
/// `max(|t|, 1)` of the solve (see [`close`]): the times carry an absolute round-off of a few
/// `ε |t|` (each step's end `t + h` is rounded, and the event times are roots located until
/// their bracket is `4 ε max(|t|, 1)` wide, `events/`), which the states inherit through
/// their rates; the states are sums of a few dozen steps `h·v`, the sensitivities a handful of
/// products of these. Measured: at most 3.1e-16, a few ε (printed by each test).
const ROUND_OFF: f64 = 1e-14;

/// `|a − b| ≤ ROUND_OFF · max(|t|, 1) · max(|b|, 1)` for a solve at times near `t`; returns the
/// error in units of `max(|t|, 1) · max(|b|, 1)`.
fn close(what: &str, a: f64, b: f64, t: f64) -> f64 {
    let error = (a - b).abs() / (t.abs().max(1.0) * b.abs().max(1.0));
    assert!(
        error <= ROUND_OFF,
        "{what}: {a} vs {b} (scaled error {error:e})"
    );
    error
}

/// The step log of a solve (each step's size and kind).
fn step_log<M, const S: usize, const NP: usize, const N: usize, const NS: usize>(
    solver: &Solver<'_, M, S, 1, 0, NP, N, NS>,
    t0: f64,
    tf: f64,
    x0: &M::State,
    p: &M::Params,
) -> Vec<LoggedStep>
where
    M: HybridModel<1, 0, NP> + ModelSizes<N, NS> + ModelTypes<1, 0, NP>,
{
    let mut steps = vec![LoggedStep::ZERO; 4096];
    let mut solution = HybridSolution::ZERO;
    let mut outputs = HybridOutputs {
        samples: &mut [],
        events: None,
        steps: Some(&mut steps),
        dense: None,
    };
    solver
        .solve_into(t0, tf, x0, p, &mut outputs, &mut solution)
        .unwrap_or_else(|e| panic!("{e}"));
    steps.truncate(solution.n_logged_steps);
    steps
}

/// `x' = 0.2` from `x0 = 1e-16` at `t0 = 0.5`: `x(t) = x0 + 0.2 (t − t0)`. The state is
/// within its tolerance of zero at every tolerance below; it ended with `StepSizeTooSmall
/// (h = 5e-16)` at rtol 1e-10, atol 1e-12. The first step is that of a zero state now (the
/// probe `1e-6`, at most 100 of them): at least 1e-6 (asserted), where the round-off of `t`
/// is 1.8e-15.
#[test]
fn a_tiny_state_takes_a_first_step_above_round_off() {
    let (t0, tf, x0, v) = (0.5, 1.5, 1e-16, 0.2);
    let mut worst = 0.0f64;
    for (rtol, atol) in [(1e-6, 1e-8), (1e-10, 1e-12), (1e-12, 1e-14), (1e-8, 1e-16)] {
        let solver = drift::Model.solver().tolerances(rtol, atol);
        let what = format!("rtol {rtol:e}, atol {atol:e}");
        let solution = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(t0, tf, &drift::X { x: x0 }, &drift::P { v })
            .unwrap_or_else(|f| panic!("{what}: {}", f.error));
        worst = worst.max(close(&what, solution.y[0], x0 + v * (tf - t0), tf));
        let dv = solution.sensitivity("x", Wrt::Param("v")).unwrap();
        let dx0 = solution.sensitivity("x", Wrt::InitialState("x")).unwrap();
        worst = worst.max(close(&format!("{what}: ∂x/∂v"), dv, tf - t0, tf));
        worst = worst.max(close(&format!("{what}: ∂x/∂x0"), dx0, 1.0, tf));
        let gradient = solver
            .gradient(t0, tf, &drift::X { x: x0 }, &drift::P { v })
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        worst = worst.max(close(
            &format!("{what}: dφ/dv"),
            gradient.wrt(Wrt::Param("v")).unwrap(),
            tf - t0,
            tf,
        ));
        let steps = step_log(&solver, t0, tf, &drift::X { x: x0 }, &drift::P { v });
        assert!(steps[0].h >= 1e-6, "{what}: first step {:e}", steps[0].h);
    }
    println!("a tiny state: largest scaled error {worst:.1e}");
}

/// The first step is at least `100 ε |t|` whatever the state: a state just above its tolerance
/// (`x0 = 3e-14`, atol 1e-14) with the rate 0.2 gets HNW's cap `‖y0‖/‖f0‖ = 1.5e-13`, and a
/// zero state the absolute `100 · 1e-6`; at `t0 = 1e4` and `1e12` those are below the
/// round-off of `t` (`16 ε |t|` = 3.6e-11 and 3.6e-3), where both ended with
/// `StepSizeTooSmall`. The closed form `x0 + 0.2 (t − t0)` holds to the round-off of the
/// times, which the increments `0.2 h` inherit ([`ROUND_OFF`]; at `t = 1e12` that is
/// `0.2 · 2.2e-4`).
#[test]
fn the_first_step_is_above_the_round_off_of_a_large_time() {
    let v = 0.2;
    let mut worst = 0.0f64;
    for (t0, x0) in [(1e4, 3e-14), (1e12, 0.0)] {
        let tf = t0 + 2.0;
        let solver = drift::Model.solver().tolerances(1e-12, 1e-14);
        let what = format!("t0 {t0:e}, x0 {x0:e}");
        let solution = solver
            .solve(t0, tf, &drift::X { x: x0 }, &drift::P { v })
            .unwrap_or_else(|f| panic!("{what}: {}", f.error));
        worst = worst.max(close(&what, solution.y[0], x0 + v * (tf - t0), tf));
        let steps = step_log(&solver, t0, tf, &drift::X { x: x0 }, &drift::P { v });
        assert!(
            steps[0].h >= 100.0 * f64::EPSILON * t0,
            "{what}: first step {:e}",
            steps[0].h
        );
    }
    println!("large times: largest scaled error {worst:.1e}");
}

/// `x' = −0.7` from `x0 = 0.3` at `t0 = 0.5` falls through the floor at
/// `t* = t0 + x0/0.7` (not a binary fraction: the event lands within ulps of `x = 0`, not on
/// it), then `x' = 0.4`: `x(T) = 0.4 (T − t*)`. The restart from that state ended with
/// `StepSizeTooSmall` at `t*` for tight absolute tolerances. Checked: the event time, the
/// state, the sensitivities and the adjoint gradient against the closed form, and that the
/// step after the crossing is a sane size (at least 1e-6, as for a zero state at `t0`).
#[test]
fn a_crossing_that_lands_the_state_near_zero_continues_normally() {
    let (t0, tf, x0, down, up) = (0.5, 2.5, 0.3, 0.7, 0.4);
    let t_star = t0 + x0 / down;
    // ∂/∂(down, up, x0) of x(T) = up (T − t*) and of t*.
    let dx = [up * x0 / (down * down), tf - t_star, -up / down];
    let dt = [-x0 / (down * down), 0.0, 1.0 / down];
    let directions = [Wrt::Param("down"), Wrt::Param("up"), Wrt::InitialState("x")];
    let mut worst = 0.0f64;
    for rtol in RTOLS {
        for atol in [rtol * 1e-2, 1e-14] {
            let what = format!("rtol {rtol:e}, atol {atol:e}");
            let solver = floor::Model.solver().tolerances(rtol, atol);
            let (xs, ps) = (floor::X { x: x0 }, floor::P { down, up });
            let solution = solver
                .sensitivities_to(Params::All, InitialStates::All)
                .solve(t0, tf, &xs, &ps)
                .unwrap_or_else(|f| panic!("{what}: {}", f.error));
            assert_eq!(solution.events.len(), 1, "{what}");
            worst = worst.max(close(
                &format!("{what}: t*"),
                solution.events[0].t,
                t_star,
                tf,
            ));
            worst = worst.max(close(
                &format!("{what}: x(T)"),
                solution.y[0],
                up * (tf - t_star),
                tf,
            ));
            let gradient = solver
                .gradient(t0, tf, &xs, &ps)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            for (k, wrt) in directions.into_iter().enumerate() {
                let s = solution.sensitivity("x", wrt).unwrap();
                worst = worst.max(close(&format!("{what}: ∂x/∂{wrt:?}"), s, dx[k], tf));
                let tau = solution.event_time_sensitivity(0, wrt).unwrap();
                worst = worst.max(close(&format!("{what}: ∂t*/∂{wrt:?}"), tau, dt[k], tf));
                let g = gradient.wrt(wrt).unwrap();
                worst = worst.max(close(&format!("{what}: dφ/d{wrt:?}"), g, dx[k], tf));
            }
            let steps = step_log(&solver, t0, tf, &xs, &ps);
            let event = steps
                .iter()
                .position(|s| s.kind == StepKind::EventTrial)
                .expect("the step to the event");
            let next = steps[event + 1].h;
            assert!(
                next >= 1e-6,
                "{what}: the step after the crossing is {next:e}"
            );
        }
    }
    println!("a crossing onto zero: largest scaled error {worst:.1e}");
}

/// The transversal crossing of a switching surface (`x' = v_l > 0` left of `x = c`,
/// `x' = v_r > 0` right of it) at every tolerance from 1e-4 to 1e-12, with each tableau,
/// forward sensitivities and the adjoint gradient: `t* = t0 + (c − x0)/v_l`,
/// `x(T) = c + v_r (T − t*)`. With `c = 0` the crossing leaves the state at 0 or a few ulps
/// off it, which, depending on the tableau, ended with `StepSizeTooSmall` at `t*`: for
/// `x0 = −1` at rtol 1e-10 (atol 1e-12) and 1e-12 (atol 1e-14), and with atol 1e-14 at every
/// rtol. The configuration (`x0 = 0`, `c = 1`, `v_l = 1`, `v_r = 2`) worked: the state
/// is 1 there. Both are checked, and crossings at `t* = 0.65` and `1e3 + 0.3` with the
/// opposite ratios of the rates.
#[test]
fn a_transversal_surface_crossing_at_every_tolerance_and_tableau() {
    let cases = [
        // (t0, T, x0, c, v_l, v_r)
        (0.0, 3.0, 0.0, 1.0, 1.0, 2.0),
        (0.0, 3.0, -1.0, 0.0, 1.0, 2.0),
        (0.5, 3.0, -0.3, 0.0, 2.0, 1.0),
        (1e3, 1e3 + 2.0, -0.09, 0.0, 0.3, 7.0),
    ];
    let mut worst = 0.0f64;
    for (t0, tf, x0, c, vl, vr) in cases {
        let t_star = t0 + (c - x0) / vl;
        // ∂/∂(c, v_l, v_r, x0) of x(T) and of t*.
        let dx = [
            1.0 - vr / vl,
            vr * (c - x0) / (vl * vl),
            tf - t_star,
            vr / vl,
        ];
        let dt = [1.0 / vl, -(c - x0) / (vl * vl), 0.0, -1.0 / vl];
        let directions = [
            Wrt::Param("c"),
            Wrt::Param("vl"),
            Wrt::Param("vr"),
            Wrt::InitialState("x"),
        ];
        let (xs, ps) = (surface::X { x: x0 }, surface::P { c, vl, vr });
        for rtol in RTOLS {
            for atol in [rtol * 1e-2, 1e-8, 1e-14] {
                let solver = surface::Model.solver().tolerances(rtol, atol);
                for tableau in ["ESDIRK436L2SA", "ESDIRK23", "ESDIRK34"] {
                    let what =
                        format!("x0 {x0}, c {c}, t0 {t0}: rtol {rtol:e}, atol {atol:e}, {tableau}");
                    let forward = solver.sensitivities_to(Params::All, InitialStates::All);
                    let result = match tableau {
                        "ESDIRK23" => forward.tableau(&ESDIRK23).solve(t0, tf, &xs, &ps),
                        "ESDIRK34" => forward.tableau(&ESDIRK34).solve(t0, tf, &xs, &ps),
                        _ => forward.solve(t0, tf, &xs, &ps),
                    };
                    let solution = result.unwrap_or_else(|f| panic!("{what}: {}", f.error));
                    let log: Vec<_> = solution.events.iter().map(|e| (e.from, e.to)).collect();
                    assert_eq!(log, [("left", "right")], "{what}");
                    worst = worst.max(close(
                        &format!("{what}: t*"),
                        solution.events[0].t,
                        t_star,
                        tf,
                    ));
                    let x = c + vr * (tf - t_star);
                    worst = worst.max(close(&format!("{what}: x(T)"), solution.y[0], x, tf));
                    for (k, wrt) in directions.into_iter().enumerate() {
                        let s = solution.sensitivity("x", wrt).unwrap();
                        worst = worst.max(close(&format!("{what}: ∂x/∂{wrt:?}"), s, dx[k], tf));
                        let tau = solution.event_time_sensitivity(0, wrt).unwrap();
                        worst = worst.max(close(&format!("{what}: ∂t*/∂{wrt:?}"), tau, dt[k], tf));
                    }
                    let gradient = match tableau {
                        "ESDIRK23" => solver.tableau(&ESDIRK23).gradient(t0, tf, &xs, &ps),
                        "ESDIRK34" => solver.tableau(&ESDIRK34).gradient(t0, tf, &xs, &ps),
                        _ => solver.gradient(t0, tf, &xs, &ps),
                    };
                    let gradient = gradient.unwrap_or_else(|e| panic!("{what}: {e}"));
                    for (k, wrt) in directions.into_iter().enumerate() {
                        let g = gradient.wrt(wrt).unwrap();
                        worst = worst.max(close(&format!("{what}: dφ/d{wrt:?}"), g, dx[k], tf));
                    }
                }
            }
        }
    }
    println!("a transversal surface: largest scaled error {worst:.1e}");
}
