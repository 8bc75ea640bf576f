//! A bouncing ball (P2, `ball` in `support/models.rs`) with sensitivities to the initial state,
//! gravity and the restitution coefficient, p = (z0, v0, g, γ): impact times, their
//! derivatives τ, the final state, its sensitivities and dG/dp against the closed form of the
//! flight arcs (exact derivatives by dual numbers), and against central differences of the
//! same integrator on a frozen step sequence.
#![allow(clippy::needless_range_loop)]
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use crate::models;
use crate::runtime;

use hysens::runtime::{HybridOptions, StepPlan, Tableau, ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use models::ball;
use runtime::*;

/// Closed form of the ball at time T: flight arcs z = z_s + v_s (t − t_s) − g (t − t_s)²/2;
/// impact when this reaches 0: t = t_s + (v_s + √(v_s² + 2 g z_s))/g, impact speed
/// √(v_s² + 2 g z_s), rebound velocity γ times it, z_s = 0. Returns (z(T), v(T), impact times).
fn ball_closed_form(p: [f64; 4], t_end: f64) -> ([D4; 2], Vec<D4>) {
    let z0 = D4::var(p[0], 0);
    let v0 = D4::var(p[1], 1);
    let g = D4::var(p[2], 2);
    let gamma = D4::var(p[3], 3);
    let two = D4::c(2.0);
    let (mut ts, mut zs, mut vs) = (D4::c(0.0), z0, v0);
    let mut impacts = Vec::new();
    loop {
        let speed = vs.mul(vs).add(two.mul(g).mul(zs)).sqrt();
        let ti = ts.add(vs.add(speed).div(g));
        if ti.v >= t_end {
            break;
        }
        impacts.push(ti);
        ts = ti;
        zs = D4::c(0.0);
        vs = gamma.mul(speed);
    }
    let dt = D4::c(t_end).sub(ts);
    let z = zs.add(vs.mul(dt)).sub(g.mul(dt).mul(dt).div(two));
    let v = vs.sub(g.mul(dt));
    ([z, v], impacts)
}

/// Ball with sensitivities to (z0, v0, g, γ) against the closed form, every tableau, z0 = 5,
/// v0 = −0.1, g = 10, γ = 0.8, T = 1.9 (one impact), and T = 4.5 (three impacts). The flight
/// arcs are quadratic in t, which every method of order ≥ 2 integrates exactly, so the only
/// errors are round-off in the Newton iterations and in the event location (secant on the
/// discrete solution to round-off): expected ~1e-12; required 1e-7 relative,
/// taken relative to max(|ref|, 1) per component. dz/dγ must be 9.09995 (the closed form; diffsol 0.18
/// gives 8.17).
#[test]
fn ball_closed_form_sensitivities() {
    fn check<const S: usize>(tab: &Tableau<S>, tf: f64) {
        let p = [5.0, -0.1, 10.0, 0.8];
        let (exact, impacts) = ball_closed_form(p, tf);
        let opts = HybridOptions::new(1e-8, 1e-10);
        let r = run(
            &ball::Model,
            tab,
            &ball_problem(p, tf),
            &opts,
            StepPlan::Adaptive,
            16,
            0,
        );
        assert_eq!(r.result, Ok(()), "{}", tab.name);
        assert_eq!(r.events.len(), impacts.len(), "{}", tab.name);
        let mut worst = 0.0_f64;
        for (e, ti) in r.events.iter().zip(&impacts) {
            worst = worst.max((e.t - ti.v).abs());
            for q in 0..4 {
                worst = worst.max((e.tau[q] - ti.d[q]).abs() / ti.d[q].abs().max(1.0));
            }
        }
        for k in 0..2 {
            worst = worst.max((r.sol.y[k] - exact[k].v).abs() / exact[k].v.abs().max(1.0));
            for q in 0..4 {
                let e = exact[k].d[q];
                worst = worst.max((r.sol.sy[k][q] - e).abs() / e.abs().max(1.0));
            }
        }
        // Terminal cost φ = z(T): dG/dp = dz(T)/dp.
        for q in 0..4 {
            let e = exact[0].d[q];
            worst = worst.max((r.sol.cost_gradient[q] - e).abs() / e.abs().max(1.0));
        }
        println!(
            "{} T={tf}: {} impacts, z(T) = {:.15}, dz/dp = {:?} (exact {:?}), worst rel err {worst:.2e}, \
             steps {}, retakes {}",
            tab.name,
            impacts.len(),
            r.sol.y[0],
            r.sol.sy[0],
            exact[0].d,
            r.sol.stats.steps,
            r.sol.stats.event_retakes
        );
        assert!(worst < 1e-7, "{}: {worst:e}", tab.name);
        if tf == 1.9 {
            assert!(
                (r.sol.sy[0][3] - 9.09995).abs() < 1e-5,
                "dz/dγ = {}",
                r.sol.sy[0][3]
            );
        }
    }
    for tf in [1.9, 4.5] {
        check(&ESDIRK23, tf);
        check(&ESDIRK34, tf);
        check(&ESDIRK436L2SA, tf);
    }
}

/// Bouncing ball with p = (z0, v0, g, γ) (initial-state sensitivities included), T = 4.5
/// (three impacts, resets with R_y, R_p): FSA vs frozen FD at rtol 1e-8, every tableau.
/// Measured 1.4e-9 (FD noise; the flight arcs are integrated exactly, so the continuous jump
/// formulas used before gave the same).
#[test]
fn ball_fsa_matches_frozen_finite_differences() {
    let problem = |p: [f64; 4]| ball_problem(p, 4.5);
    let p0 = [5.0, -0.1, 10.0, 0.8];
    fsa_matches_frozen_fd_every_tableau(&ball::Model, &problem, p0, 1e-8, 1e-5, 1e-7, "ball");
}
