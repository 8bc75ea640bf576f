//! The integral cost's quadrature in the local error test (`Options::cost_error_test`,
//! `Solver::cost_error_test`; CVODES' `errconQ`).
//!
//! A falling mass `h' = v, v' = −g` with the integral cost `G = ∫ h² dt`: the states are
//! quadratic in time, which every tableau integrates exactly with steps of any length, so the
//! states' error test lets the steps grow to the whole interval, and the quadrature of the
//! quartic `h²` is then poor. With the cost in the error test the steps resolve `∫ h² dt`
//! too. Against the closed form `G = Σ_{i,j} c_i c_j T^{i+j+1}/(i+j+1)` of
//! `h = c₀ + c₁ t + c₂ t²` and its derivatives; the discrete adjoint against the forward
//! sensitivities and the checkpointed adjoint against the full tape with the test on (with an
//! impact, so the accumulated cost carries over a mode segment and is restored from
//! checkpoints).
#![deny(missing_docs)]

#[path = "support/adjoint.rs"]
mod adjoint;

use adjoint::every_tableau;
use hysens::hybrid_model;
use hysens::runtime::{HybridOptions, InitialStates, Params, Solver, Wrt};

/// A mass falling under gravity onto the ground, with the integral cost `∫ h² dt`.
#[hybrid_model]
pub mod fall {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }
    /// Gravity and restitution.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub e: f64,
    }
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }
    #[cost(integral)]
    fn height_squared(x: &X) -> f64 {
        x.h.powi(2)
    }
}

const H0: f64 = 10.0;
const V0: f64 = 3.0;
const G: f64 = 1.0;
const E: f64 = 0.8;
/// Final time of the event-free solve (`h ≥ 14` on `[0, T]`).
const T: f64 = 4.0;

/// `G` and `(dG/dh0, dG/dv0, dG/dg)` of the closed form on `[0, T]` (no impact).
fn closed_form() -> (f64, [f64; 3]) {
    let c = [H0, V0, -G / 2.0];
    let mut g = 0.0;
    let mut dc = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            let k = (i + j + 1) as f64;
            g += c[i] * c[j] * T.powi(i as i32 + j as i32 + 1) / k;
            // ∂/∂c_i of the symmetric sum: 2 Σ_j c_j T^{i+j+1}/(i+j+1).
            dc[i] += 2.0 * c[j] * T.powi(i as i32 + j as i32 + 1) / k;
        }
    }
    (g, [dc[0], dc[1], -dc[2] / 2.0])
}

/// `(|G − G_exact|, largest |dG/dθ − exact|, steps)` of a solve at rtol 1e-10, with the cost
/// in the error test or not.
fn errors(cost_test: bool) -> (f64, f64, usize) {
    let mut solver = Solver::new(&fall::Model).tolerances(1e-10, 1e-12);
    if cost_test {
        solver = solver.cost_error_test(1e-10, 1e-12);
    }
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, T, &fall::X { h: H0, v: V0 }, &fall::P { g: G, e: E })
        .expect("the fall solves");
    assert!(solution.events.is_empty());
    let (g, dg) = closed_form();
    let wrt = [
        Wrt::InitialState("h"),
        Wrt::InitialState("v"),
        Wrt::Param("g"),
    ];
    let mut worst = 0.0f64;
    for (w, exact) in wrt.into_iter().zip(dg) {
        let computed = solution.cost_gradient(w).expect("a chosen direction");
        worst = worst.max((computed - exact).abs());
    }
    ((solution.cost - g).abs(), worst, solution.stats.steps)
}

/// Off, the states' test takes 6 steps and `G` (≈ 718) is off by 5e-2 (7e-5 relative, the
/// assertion asks for 1e-6); on (rtol_q 1e-10, 111 steps), `G` is off by 1.0e-8 and `dG/dθ`
/// by 2.1e-8 (measured; 1.4e-11 and 3e-11 relative to `G`). The bound 1e-9 relative to `G`
/// is the local tolerance 1e-10 accumulated over the steps with a margin of ~30; the gradient's
/// quadrature is not controlled itself, but integrates polynomials of the same degree on the
/// same steps.
#[test]
fn the_cost_in_the_error_test_resolves_its_quadrature() {
    let (g, _) = closed_form();
    let (off_g, off_dg, off_steps) = errors(false);
    let (on_g, on_dg, on_steps) = errors(true);
    println!("off: |ΔG| {off_g:.1e}, |ΔdG| {off_dg:.1e}, {off_steps} steps");
    println!("on:  |ΔG| {on_g:.1e}, |ΔdG| {on_dg:.1e}, {on_steps} steps");
    assert!(off_g > 1e-6 * g, "without the test the quadrature is poor");
    assert!(on_g < 1e-9 * g, "{on_g:e}");
    assert!(on_dg < 1e-9 * g, "{on_dg:e}");
    assert!(on_steps > off_steps);
}

/// With the test on, through an impact: the adjoint equals the forward sensitivities to
/// round-off (1e-10, `support/adjoint.rs`) and, from checkpoints at every window length,
/// the full tape's gradient bit for bit: the accumulated cost the test reads (`Q_n`) is part
/// of the integrator's snapshot.
#[test]
fn checkpointed_adjoint_with_the_cost_in_the_error_test() {
    let x0 = fall::X { h: 1.0, v: 0.5 };
    let p = fall::P { g: 9.81, e: 0.8 };
    let problem = fall::Model::problem(0.0, 1.2, &x0, &p);
    let mut options = HybridOptions::new(1e-8, 1e-10);
    options.integrator.cost_error_test = Some((1e-8, 1e-10));
    every_tableau(
        "fall, cost in the error test",
        &fall::Model,
        &problem,
        &options,
        true,
    );
    // The test changes the steps.
    let steps = |cost_test: Option<(f64, f64)>| {
        let mut options = HybridOptions::new(1e-8, 1e-10);
        options.integrator.cost_error_test = cost_test;
        Solver::new(&fall::Model)
            .options(options)
            .solve(
                0.0,
                1.2,
                &fall::X { h: 1.0, v: 0.5 },
                &fall::P { g: 9.81, e: 0.8 },
            )
            .expect("the fall solves")
            .stats
            .steps
    };
    assert!(steps(Some((1e-8, 1e-10))) > steps(None));
}
