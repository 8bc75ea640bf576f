//! Sample and final times a hair's breadth from an event: the short step between them.
//!
//! A sample time (or the final time) `δ` after an event is reached by a landing step of length
//! `δ` whose start, the event time `t*(p)`, moves with the parameters; its length does too
//! (`∂H/∂p = −∂t*/∂p`), so the sensitivities at the sample carry the step's derivative with
//! respect to its length, `∂y_{n+1}/∂H ≈ Σ bᵢ Fᵢ`, **without** the factor `H`. Likewise a sample
//! `δ` before an event leaves a step of length `δ` to the event, whose `∂y_{n+1}/∂H` enters the
//! event time's root condition. Both need the stage derivatives `Fᵢ` accurate in themselves,
//! not only `H Fᵢ`.
//!
//! The bouncing ball (free flight, one impact; `tests/model_ball.rs` has its closed form) is
//! integrated exactly by every tableau (quadratic flight), so the discrete solution, its event
//! time and its sensitivities equal the closed form to round-off: every tolerance below is a
//! round-off bound. The same ball written as an index-1 DAE (the gravity as an algebraic
//! variable) checks the DAE path (`Fᵢ = f(Tᵢ, Yᵢ, Zᵢ)` reads the algebraic stage values).
#![deny(missing_docs)]

use crate::event_models;

use event_models::{ball, dae_ball};
use hysens::runtime::{Fields, InitialStates, Params, Solver, Wrt};
use num_dual::{Dual64, DualNum};

const H0: f64 = 1.0;
const V0: f64 = 0.5;
const G: f64 = 9.81;
const E: f64 = 0.8;
/// The gaps between the event and the sample (or final) time.
const DELTAS: [f64; 5] = [1e-15, 1e-13, 1e-11, 1e-9, 1e-7];
/// The directions `(h0, v0, g, e)`, in the order of the closed form's seeds.
const WRT: [Wrt<'static>; 4] = [
    Wrt::InitialState("h"),
    Wrt::InitialState("v"),
    Wrt::Param("g"),
    Wrt::Param("e"),
];

/// `(h, v)(t)` of the closed form (before the single impact, or after it), the impact time `t1`
/// and the terminal cost `φ = h + v²/2 + g h`, all along the seeds of `(h0, v0, g, e)`.
fn closed_form(k: usize, t: f64, after: bool) -> ([Dual64; 2], Dual64, Dual64) {
    let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
    let (h0, v0, g, e) = (seed(0, H0), seed(1, V0), seed(2, G), seed(3, E));
    let w = (v0 * v0 + g * h0 * 2.0).sqrt();
    let t1 = (v0 + w) / g;
    // The side of the impact is that of the discrete solution (whose event time is that of
    // the closed form only to the solve's accuracy).
    let [h, v] = if !after {
        [h0 + v0 * t - g * t * t * 0.5, v0 - g * t]
    } else {
        let after = -t1 + t;
        [e * w * after - g * after * after * 0.5, e * w - g * after]
    };
    let cost = h + v * v * 0.5 + g * h;
    ([h, v], t1, cost)
}

/// `|a − b| / max(|b|, 1)`.
fn err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

/// Round-off bound for every comparison on the ODE ball: the computed sensitivities are sums
/// of a few dozen O(1)–O(10) terms (the steps before the impact, the event time's root
/// condition, the jump and the short step), each with a relative round-off of a few ε;
/// measured below 1e-14 after the fix. The defect it guards against was an error of order
/// ε/δ (0.7 at δ = 1e-15, 2e-9 at δ = 1e-7).
const ODE_TOL: f64 = 1e-12;

/// Bound for the DAE ball, set by its discrete solution rather than round-off: the nonlinear
/// constraint is solved to the Newton tolerance (a fraction of the solve's tolerance), and
/// `v' = v² − w` cancels two terms of size 20, so the discrete solution, its event time
/// (8e-13 before the closed form's at the tolerances below) and its sensitivities differ from
/// the closed form's by about 1e-11 wherever the sample is, with or without the defect. The
/// defect gave 3e-9 at δ = 1e-7 and up to 5e-4 for shorter gaps.
const DAE_TOL: f64 = 2e-10;

/// The largest error, over every direction, of
///
/// 0. the state sensitivities at a sample `t_s` and at the final time `t_f = 0.9` after the
///    impact (from a solve with that sample), and at the final time `t_f = t_s`;
/// 1. the event time's sensitivities (both solves, when `t_s` is after the impact);
/// 2. the terminal cost's gradient by forward sensitivities, at `t_f = t_s` and at `t_f = 0.9`
///    with the sample `t_s`;
/// 3. the same gradients by the adjoint;
/// 4. the adjoint's against the forward gradient of the same solve (the adjoint is the
///    transpose of the forward chain, so they agree to round-off on either model).
///
/// With `t_s` after the impact, the short step is the landing step from the impact to `t_s`;
/// before it, the step from `t_s` to the impact.
fn worst_errors<M, const S: usize, const NZ: usize, const N: usize, const NS: usize>(
    solver: &Solver<'_, M, S, 2, NZ, 2, N, NS>,
    t_s: f64,
) -> [f64; 5]
where
    M: hysens::runtime::AdjointProducts<2, NZ, 2>
        + hysens::runtime::ModelSizes<N, NS>
        + hysens::runtime::HybridModel<2, NZ, 2>
        + hysens::runtime::ModelTypes<2, NZ, 2>,
{
    const TF: f64 = 0.9;
    let times = [t_s];
    let (x0, p): (M::State, M::Params) = (Fields::from_array([H0, V0]), Fields::from_array([G, E]));
    let sampled = solver.samples(&times);
    let forward = sampled
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, TF, &x0, &p)
        .expect("the ball solves");
    let terminal = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_s, &x0, &p)
        .expect("the ball solves");
    let adjoint_sampled = sampled.gradient(0.0, TF, &x0, &p).expect("the ball solves");
    let adjoint_terminal = solver.gradient(0.0, t_s, &x0, &p).expect("the ball solves");
    assert_eq!(forward.samples.len(), 1);
    assert_eq!(forward.events.len(), 1);
    // The side of the impact each solve is on: its own discrete event time, which may differ
    // between the solves by the local error (their step sequences differ) — for the DAE ball,
    // by more than the shortest gaps. (A sample at the event time is taken after the event.)
    let sample_after = t_s >= forward.events[0].t;
    let terminal_after = !terminal.events.is_empty();
    let mut worst = [0.0f64; 5];
    for (k, wrt) in WRT.into_iter().enumerate() {
        let (at_s, t1, _) = closed_form(k, t_s, sample_after);
        let (at_t, _, cost_t) = closed_form(k, t_s, terminal_after);
        let (at_f, _, cost_f) = closed_form(k, TF, true);
        for (i, of) in ["h", "v"].into_iter().enumerate() {
            for (computed, exact) in [
                (forward.sample_sensitivity(0, of, wrt), at_s[i]),
                (forward.sensitivity(of, wrt), at_f[i]),
                (terminal.sensitivity(of, wrt), at_t[i]),
            ] {
                worst[0] = worst[0].max(err(computed.unwrap(), exact.eps));
            }
        }
        worst[1] = worst[1].max(err(forward.event_time_sensitivity(0, wrt).unwrap(), t1.eps));
        if !terminal.events.is_empty() {
            worst[1] = worst[1].max(err(
                terminal.event_time_sensitivity(0, wrt).unwrap(),
                t1.eps,
            ));
        }
        worst[2] = worst[2]
            .max(err(terminal.cost_gradient(wrt).unwrap(), cost_t.eps))
            .max(err(forward.cost_gradient(wrt).unwrap(), cost_f.eps));
        worst[3] = worst[3]
            .max(err(adjoint_terminal.wrt(wrt).unwrap(), cost_t.eps))
            .max(err(adjoint_sampled.wrt(wrt).unwrap(), cost_f.eps));
        worst[4] = worst[4]
            .max(err(
                adjoint_terminal.wrt(wrt).unwrap(),
                terminal.cost_gradient(wrt).unwrap(),
            ))
            .max(err(
                adjoint_sampled.wrt(wrt).unwrap(),
                forward.cost_gradient(wrt).unwrap(),
            ));
    }
    worst
}

/// Runs every gap on both sides of the impact (of the discrete solution), prints the errors
/// and checks them against `tol` (the adjoint against the forward gradient against
/// [`ODE_TOL`]).
fn check<M, const S: usize, const NZ: usize, const N: usize, const NS: usize>(
    name: &str,
    solver: &Solver<'_, M, S, 2, NZ, 2, N, NS>,
    tol: f64,
) where
    M: hysens::runtime::AdjointProducts<2, NZ, 2>
        + hysens::runtime::ModelSizes<N, NS>
        + hysens::runtime::HybridModel<2, NZ, 2>
        + hysens::runtime::ModelTypes<2, NZ, 2>,
{
    let t1 = solver
        .solve(
            0.0,
            0.9,
            &Fields::from_array([H0, V0]),
            &Fields::from_array([G, E]),
        )
        .expect("the ball solves")
        .events[0]
        .t;
    let mut failures = Vec::new();
    println!(
        "{name}: side, δ, errors of (state sens., event time sens., dφ/dθ FSA, dφ/dθ ASA), \
         |ASA − FSA|"
    );
    for side in [1.0, -1.0] {
        for delta in DELTAS {
            let t_s = t1 + side * delta;
            let worst = worst_errors(solver, t_s);
            let label = if side > 0.0 { "after" } else { "before" };
            let shown: Vec<String> = worst.iter().map(|e| format!("{e:.1e}")).collect();
            println!("  {label:6} δ = {delta:.0e}: {}", shown.join("  "));
            // (Written so that a NaN fails.)
            let within = worst[..4].iter().all(|e| *e <= tol) && worst[4] <= ODE_TOL;
            if !within {
                failures.push((label, delta, worst));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: errors above {tol:e}: {failures:?}"
    );
}

#[test]
fn ball_sample_and_final_time_next_to_the_impact() {
    check(
        "ball",
        &ball::Model.solver().tolerances(1e-10, 1e-12),
        ODE_TOL,
    );
}

#[test]
fn ball_sample_and_final_time_next_to_the_impact_esdirk34() {
    check(
        "ball, ESDIRK34",
        &ball::Model
            .solver()
            .tolerances(1e-10, 1e-12)
            .tableau(&hysens::runtime::ESDIRK34),
        ODE_TOL,
    );
}

#[test]
fn dae_ball_sample_and_final_time_next_to_the_impact() {
    check(
        "DAE ball",
        &dae_ball::Model
            .solver()
            .tolerances(1e-10, 1e-12)
            .algebraic_guess(&dae_ball::Z { w: G }),
        DAE_TOL,
    );
}

/// A sample `δ` after the impact costs one step, the landing on it: the step from the impact
/// is cut to `δ` but the controller keeps the proposal it was cut from, instead of growing
/// from `δ` by `fac_max` per step (which cost 8–13 extra steps for `δ = 1e-13…1e-9`).
#[test]
fn a_short_landing_does_not_reset_the_step_size() {
    let solver = ball::Model.solver().tolerances(1e-10, 1e-12);
    let (x0, p) = (ball::X { h: H0, v: V0 }, ball::P { g: G, e: E });
    let plain = solver.solve(0.0, 0.9, &x0, &p).expect("the ball solves");
    let t1 = plain.events[0].t;
    for delta in DELTAS {
        let times = [t1 + delta];
        let sampled = solver
            .samples(&times)
            .solve(0.0, 0.9, &x0, &p)
            .expect("the ball solves");
        assert_eq!(sampled.samples.len(), 1);
        let extra = sampled.stats.steps as i64 - plain.stats.steps as i64;
        assert!(extra <= 1, "δ = {delta:e}: {extra} extra steps");
    }
}
