//! Event edge cases of the hybrid solve, each against its closed form: the initial mode chosen
//! by look-ahead when a guard is zero at t0, simultaneous roots of two guards, a near-tangent
//! guard (a grazing error) next to a clear crossing, and Zeno behaviour of a bouncing ball
//! (an error, not an endless loop).
#![allow(clippy::needless_range_loop)]
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use crate::event_models;
use crate::models;
use crate::runtime;

use event_models::{graze, twin_guards};
use hysens::runtime::{HybridOptions, HybridProblem, SolveError, StepPlan, ESDIRK34};
use models::{ball, ex51};
use runtime::*;

/// p = 0 makes the guard exactly zero at t0 (h(0) = 0): the look-ahead with each candidate
/// mode's f gives ḣ > 0, so the rule "guard positive → mode B" applies; the guard that is zero
/// at the start must not fire. In mode B the solution is x = 5(1 − e^{−2t}), and since
/// x³ − 5x² + 7x > 0 for x > 0 no event follows.
#[test]
fn initial_mode_by_look_ahead_never_fires() {
    let r = run(
        &ex51::Model,
        &ESDIRK34,
        &ex51_problem(0.0),
        &HybridOptions::new(1e-10, 1e-12),
        StepPlan::Adaptive,
        4,
        0,
    );
    assert_eq!(r.result, Ok(()));
    assert_eq!(r.events.len(), 0);
    assert_eq!(r.sol.mode, 1);
    let exact = 5.0 * (1.0 - libm::exp(-10.0));
    assert!((r.sol.y[0] - exact).abs() < 1e-8);
}

/// Simultaneous roots: guard 0 wins (deterministic order), exactly one event at t = 1 (y = t is
/// integrated exactly; the event is located to round-off).
#[test]
fn simultaneous_roots_lowest_guard_index() {
    let problem = HybridProblem {
        t0: 0.0,
        tf: 2.0,
        y0: [0.0],
        z0: [],
        p: [0.0],
        sensitivities: Some([[0.0]]),
        sample_times: &[],
        sample_data: &[],
    };
    let r = run(
        &twin_guards::Model,
        &ESDIRK34,
        &problem,
        &HybridOptions::new(1e-8, 1e-10),
        StepPlan::Adaptive,
        4,
        0,
    );
    assert_eq!(r.result, Ok(()));
    assert_eq!(r.events.len(), 1);
    assert_eq!((r.events[0].guard, r.events[0].to, r.sol.mode), (0, 1, 1));
    assert!((r.events[0].t - 1.0).abs() < 1e-14);
    // τ = −(h_p)/ḣ = 0 (the guard does not depend on p).
    assert_eq!(r.events[0].tau[0], 0.0);
}

fn graze_run(p: f64) -> Run<1, 0, 1> {
    // A sample at t = 1 makes a step end at the apex, so the crossing is seen.
    let problem = HybridProblem {
        t0: 0.0,
        tf: 2.0,
        y0: [0.0],
        z0: [],
        p: [p],
        sensitivities: Some([[0.0]]),
        sample_times: &[1.0],
        sample_data: &[],
    };
    run(
        &graze::Model,
        &ESDIRK34,
        &problem,
        &HybridOptions::new(1e-8, 1e-10),
        StepPlan::Adaptive,
        4,
        1,
    )
}

/// The guard `p − (y − 1)²` along `y = t` goes past zero by `p` around `t = 1` (roots
/// `1 ∓ √p`, rate `2√p` there, `ḧ = −2`; `events/grazing.rs`). At rtol 1e-8 the guard's
/// tolerance band at the roots is `w = 2√p (atol + rtol) ≈ 2√p · 1e-8`, so the crossing is a
/// grazing event when `ḣ² = 4p ≤ 2 |ḧ| · 0.1 · w`, i.e. `√p ≤ 2e-9`: at `p = 1e-18` the
/// tolerances do not decide whether the guard crosses (an error at the first root
/// `t = 1 − 1e-9`); at `p = 1e-12` (roots 2e-6 apart) they do — an ordinary event with
/// `τ = dt1/dp = −1/(2√p) = −5e5`; and a clear crossing (`p = 0.01`) at 0.9 with `τ = −5`.
#[test]
fn grazing_is_an_error() {
    let r = graze_run(1e-18);
    println!("grazing: {:?}, t = {}", r.result, r.sol.t);
    match r.result {
        Err(SolveError::GrazingEvent {
            t,
            mode: 0,
            guard: 0,
        }) => {
            assert!((t - (1.0 - 1e-9)).abs() < 1e-12, "{t}");
        }
        other => panic!("expected a grazing error, got {other:?}"),
    }
    // The state up to the event is kept.
    assert!((r.sol.t - (1.0 - 1e-9)).abs() < 1e-12);
    assert_eq!(r.sol.n_events, 0);
    for (p, t1) in [(1e-12, 1.0 - 1e-6), (0.01, 0.9)] {
        let ok = graze_run(p);
        assert_eq!(ok.result, Ok(()), "p = {p}");
        assert_eq!(ok.events.len(), 1);
        // y = t is exact: the root to round-off (of t, over the rate 2√p for p = 1e-12).
        assert!(
            (ok.events[0].t - t1).abs() < 1e-9,
            "p = {p}: {}",
            ok.events[0].t
        );
        // τ = dt1/dp: t1 = 1 − √p, τ = −1/(2√p); to the relative accuracy of the root.
        let tau = -0.5 / p.sqrt();
        assert!(
            (ok.events[0].tau[0] / tau - 1.0).abs() < 1e-6,
            "p = {p}: {} vs {tau}",
            ok.events[0].tau[0]
        );
    }
}

/// The Zeno ball of [`zeno_is_an_error`] (`γ = 0.5` from `z0 = 1`, on `[0, 3]`) with ESDIRK34
/// and `opts`, adaptive, with room for `events` events; prints how the solve ended.
fn zeno_run(what: &str, opts: &HybridOptions<2, 0>, events: usize) -> Run<2, 0, 4> {
    let r = run(
        &ball::Model,
        &ESDIRK34,
        &ball_problem([1.0, 0.0, 10.0, 0.5], 3.0),
        opts,
        StepPlan::Adaptive,
        events,
        0,
    );
    println!(
        "Zeno ({what}): {:?}, t = {}, events {}",
        r.result, r.sol.t, r.sol.n_events
    );
    r
}

/// Zeno: a ball with γ = 0.5 from z0 = 1 has infinitely many impacts before
/// t∞ = √0.2 · (1 + 2·0.5/(1 − 0.5)) ≈ 1.342; the solve must stop with an error before it,
/// not loop, and keep the events up to there: by the cap `max_events` when it is small
/// (reported as the cap, `zeno: false`); with the default cap, at the impact whose speed the
/// tolerances no longer resolve (a grazing event: `v² ≤ 2 g · 0.1 · atol`, the 19th impact at
/// rtol 1e-8, atol 1e-10, `events/grazing.rs`); and without that test (`grazing_tol = 0`) by
/// vanishing separation (reported as Zeno behaviour, `zeno: true`).
#[test]
fn zeno_is_an_error() {
    let mut opts = HybridOptions::new(1e-8, 1e-10);
    opts.max_events = 10;
    let r = zeno_run("max 10", &opts, 64);
    assert!(matches!(
        r.result,
        Err(SolveError::TooManyEvents {
            count: 10,
            zeno: false,
            ..
        })
    ));
    let message = r.result.unwrap_err().to_string();
    assert!(message.contains("cap of 10 events"), "{message}");
    assert!(message.contains("max_events"), "{message}");
    assert!(!message.contains("Zeno"), "{message}");
    assert_eq!(r.events.len(), 10);
    // Impact times increase towards t∞.
    assert!(r
        .events
        .windows(2)
        .all(|w| w[1].t > w[0].t && w[1].t < 1.3417));
    let opts = HybridOptions::new(1e-8, 1e-10);
    let r = zeno_run("default", &opts, 1000);
    assert!(
        matches!(r.result, Err(SolveError::GrazingEvent { guard: 0, .. })),
        "{:?}",
        r.result
    );
    // The impact speeds halve: the 19th is 4.5·2⁻¹⁸ = 1.7e-5 ≥ √(2·10·0.1·1e-10) = 1.4e-5,
    // the 20th below.
    assert_eq!(r.sol.n_events, 19);
    assert!(r.sol.t < 1.3417);
    let mut opts = HybridOptions::new(1e-8, 1e-10);
    opts.grazing_tol = 0.0;
    let r = zeno_run("no grazing test", &opts, 1000);
    assert!(
        matches!(r.result, Err(SolveError::TooManyEvents { zeno: true, .. })),
        "{:?}",
        r.result
    );
    assert!(r
        .result
        .unwrap_err()
        .to_string()
        .contains("Zeno behaviour?"));
    assert!(r.sol.t < 1.3417);
}
