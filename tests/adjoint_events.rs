//! The discrete adjoint (`solve_adjoint`) across events, against the forward sensitivities of
//! the same solve, for every tableau: Serban & Recuero 2019, Example 5.1 (three switches, an
//! integral cost), the bouncing ball (resets, terminal costs), the relay DAE (memory, a reset,
//! an integral cost), a two-mode index-1 DAE (a guard on an algebraic variable, a reset that
//! reads `z` and `t`, costs of every kind, memory) and the EM hysteretic oscillator of their
//! Example 5.2 (an index-1 DAE whose modes read the memory), with sampled costs, including
//! samples at `t0` and after events.
//!
//! Both sides are derivatives of the same discrete solution with the step sequence frozen: the
//! adjoint transposes exactly the linear chain of step maps, event-time and jump maps that the
//! forward sensitivities apply, so they agree to round-off: 1e-10 relative, 1e-13 absolute for
//! entries near zero (the round-off of two summation orders over a few hundred steps and a
//! few event maps, with well-conditioned stage matrices).
#![deny(missing_docs)]

use hysens::hybrid_model;
use hysens::runtime::{
    solve, solve_adjoint, AdjointGradient, AdjointProducts, HybridOptions, HybridOutputs,
    HybridProblem, HybridSolution, InitialStates, ModelSizes, Params, Sample, Solver, StepPlan,
    Tableau, TapeStep, ESDIRK23, ESDIRK34, ESDIRK436L2SA,
};

#[path = "support/models.rs"]
mod models;

/// `|a − b| ≤ rtol max(|a|, |b|) + 1e-13` (module docs); returns the relative difference.
fn close(what: &str, a: f64, b: f64, rtol: f64) -> f64 {
    let diff = (a - b).abs();
    assert!(
        diff <= rtol * a.abs().max(b.abs()) + 1e-13,
        "{what}: adjoint {a:e} vs forward {b:e}"
    );
    diff / a.abs().max(b.abs()).max(1e-300)
}

/// One comparison, to `rtol` relative: returns the largest relative difference over `dG/dp`
/// and `dG/dy0`.
#[allow(clippy::too_many_arguments)]
fn compare<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    name: &str,
    model: &M,
    tableau: &Tableau<S>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    rtol: f64,
) -> f64
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let name = format!("{name} {}", tableau.name);
    let n = problem.sample_times.len();
    // The adjoint, with a seed ∂y0/∂p (arbitrary: y0 depends on p through it).
    let mut seeds = [[0.0; NP]; NY];
    for (i, row) in seeds.iter_mut().enumerate() {
        for (q, s) in row.iter_mut().enumerate() {
            *s = 0.1 * (i as f64 + 1.0) - 0.07 * q as f64;
        }
    }
    let mut seeded = *problem;
    seeded.sensitivities = Some(seeds);
    let mut tape = vec![TapeStep::ZERO; 20_000];
    let mut samples = vec![Sample::ZERO; n];
    let mut asa = HybridSolution::ZERO;
    let mut grad = AdjointGradient::ZERO;
    let mut out = HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: None,
    };
    solve_adjoint(
        model,
        tableau,
        &seeded,
        options,
        StepPlan::Adaptive,
        &mut tape,
        &mut out,
        &mut asa,
        &mut grad,
    )
    .unwrap();
    assert_eq!(grad.tape_len, asa.stats.steps);
    assert_eq!(grad.stats.steps, asa.stats.steps);
    // The forward sensitivities of the same solve, with the same seed.
    let mut samples = vec![Sample::ZERO; n];
    let mut fsa = HybridSolution::ZERO;
    let mut out = HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: None,
    };
    solve(
        model,
        tableau,
        &seeded,
        options,
        StepPlan::Adaptive,
        &mut out,
        &mut fsa,
    )
    .unwrap();
    assert_eq!(fsa.stats.steps, asa.stats.steps, "{name}: the same steps");
    assert_eq!(fsa.cost, asa.cost, "{name}: the same solve");
    let mut worst: f64 = 0.0;
    for q in 0..NP {
        let what = format!("{name} dG/dp[{q}] (seeded)");
        worst = worst.max(close(&what, grad.p[q], fsa.cost_gradient[q], rtol));
    }
    // Parameters and initial states by the builder: p and y0 columns, no seed.
    let mut samples = vec![Sample::ZERO; n];
    let mut all = HybridSolution::<NY, NZ, NS>::ZERO;
    let mut out = HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: None,
    };
    Solver::new(model)
        .tableau(tableau)
        .options(*options)
        .sensitivities_to(Params::All, InitialStates::All)
        .samples(problem.sample_times)
        .data(problem.sample_data)
        .algebraic_guess(&problem.z0)
        .solve_into(
            problem.t0,
            problem.tf,
            &problem.y0,
            &problem.p,
            &mut out,
            &mut all,
        )
        .unwrap();
    let mut samples = vec![Sample::ZERO; n];
    let mut out = HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: None,
    };
    let mut grad = AdjointGradient::ZERO;
    solve_adjoint(
        model,
        tableau,
        problem,
        options,
        StepPlan::Adaptive,
        &mut tape,
        &mut out,
        &mut asa,
        &mut grad,
    )
    .unwrap();
    assert_eq!(all.stats.steps, asa.stats.steps, "{name}: the same steps");
    for q in 0..NP {
        let what = format!("{name} dG/dp[{q}]");
        worst = worst.max(close(&what, grad.p[q], all.cost_gradient[q], rtol));
    }
    for i in 0..NY {
        let what = format!("{name} dG/dy0[{i}]");
        worst = worst.max(close(&what, grad.y0[i], all.cost_gradient[NP + i], rtol));
    }
    assert!(asa.n_events > 0, "{name}: the solve meets events");
    assert_eq!(
        grad.stats.events, asa.n_events,
        "{name}: every event transposed"
    );
    println!(
        "{name}: {} steps, {} events, largest relative difference {worst:.1e}; backward pass {:?}",
        asa.stats.steps, asa.n_events, grad.stats
    );
    worst
}

/// A ball bouncing on the ground.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height above the ground.
        pub h: f64,
        /// Upward velocity.
        pub v: f64,
    }

    /// Gravity and restitution.
    #[params]
    pub struct P {
        /// Gravitational acceleration.
        pub g: f64,
        /// Coefficient of restitution.
        pub e: f64,
    }

    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    #[guard(flight -> flight, falling)]
    fn impact(x: &X, _p: &P) -> f64 {
        x.h
    }

    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    #[cost(terminal)]
    fn height(x: &X, _p: &P) -> f64 {
        x.h
    }

    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }
}

/// A two-mode index-1 DAE with algebraic guards, memory and an input.
#[hybrid_model]
pub mod two_mode {
    /// Differential states.
    #[states]
    pub struct X {
        /// Position.
        pub a: f64,
        /// Velocity.
        pub b: f64,
    }

    /// Algebraic variables.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub w: f64,
        /// Switching signal.
        pub s: f64,
    }

    /// Parameters.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
        /// Switching threshold on `s`.
        pub thr: f64,
        /// Restitution at the switch up.
        pub e: f64,
    }

    /// Inputs (held constant over a solve).
    #[inputs]
    pub struct U {
        /// Forcing amplitude.
        pub f0: f64,
    }

    /// A tenth: a module constant used in the expressions.
    const TENTH: f64 = 0.1;

    /// The spring force.
    fn spring(a: f64, p: &P) -> f64 {
        -p.k * a
    }

    #[mode(initial)]
    fn low(x: &X, z: &Z, p: &P, u: &U, t: f64) -> (X, [f64; 2]) {
        (
            X {
                a: x.b,
                b: spring(x.a, p) - p.c * x.b + z.w,
            },
            [
                z.w - u.f0 * t.sin() - z.s * x.a,
                z.s - (x.a * x.b).tanh() - TENTH * z.w,
            ],
        )
    }

    #[mode(initial_if(up, positive))]
    fn high(x: &X, z: &Z, p: &P, u: &U, m: &Memory) -> (X, [f64; 2]) {
        let damping = p.c * x.b.powi(3);
        (
            X {
                a: x.b,
                b: spring(x.a, p) - damping + z.w * z.s,
            },
            [
                z.w.exp() - 1.0 - u.f0 * x.b,
                z.s * (1.0 + x.a.powi(2)) - z.w.cosh() - m.z.s,
            ],
        )
    }

    #[guard(low -> high, rising)]
    fn up(z: &Z, p: &P) -> f64 {
        z.s - p.thr
    }

    #[guard(high -> low, falling)]
    fn down(x: &X, z: &Z, m: &Memory) -> f64 {
        x.a - m.y.a + z.w
    }

    #[reset(up)]
    fn kick(x: &X, z: &Z, p: &P, t: f64) -> X {
        X {
            a: x.a,
            b: -p.e * x.b + TENTH * z.w * t.sin(),
        }
    }

    #[cost(integral)]
    fn effort(x: &X, z: &Z) -> f64 {
        x.a.powi(2) + 0.5 * z.w.powi(2)
    }

    #[cost(integral)]
    fn drift(x: &X, m: &Memory) -> f64 {
        (x.a - m.y.a).powi(2)
    }

    #[cost(terminal)]
    fn final_state(x: &X, z: &Z, p: &P, t: f64) -> f64 {
        p.k * x.b.powi(2) + z.s * (0.5 * t).cos()
    }

    #[cost(sampled)]
    fn signal_misfit(z: &Z, d: f64) -> f64 {
        (z.s - d).powi(2)
    }
}

/// The exponential-model hysteretic oscillator (Serban & Recuero 2019, Example 5.2).
#[hybrid_model]
pub mod steel {
    /// Displacement and velocity.
    #[states]
    pub struct X {
        /// Deformation displacement `u`.
        pub u: f64,
        /// Velocity `v`.
        pub v: f64,
    }

    /// The internal stress.
    #[algebraic]
    pub struct Z {
        /// Stress `z`.
        pub z: f64,
    }

    /// The parameters of the exponential model.
    #[params]
    pub struct P {
        /// Stiffness `k_a`.
        pub k_a: f64,
        /// Stiffness `k_b`.
        pub k_b: f64,
        /// Rate `alpha`.
        pub alpha: f64,
        /// Rate `beta`.
        pub beta: f64,
    }

    /// Nodal mass `m`.
    const MASS: f64 = 1.0;
    /// Cross-section area `A`.
    const AREA: f64 = 1.0;
    /// The model's small constant `δ`.
    const DELTA: f64 = 1e-20;

    /// `u₀ = −ln(δ/(k_a − k_b))/(2α)`.
    fn u0(p: &P) -> f64 {
        -(DELTA / (p.k_a - p.k_b)).ln() / (2.0 * p.alpha)
    }

    /// `f̄ = (k_a − k_b)/(2α) (1 − exp(−2α u₀))`.
    fn fbar(p: &P) -> f64 {
        (p.k_a - p.k_b) / (2.0 * p.alpha) * (1.0 - (-2.0 * p.alpha * u0(p)).exp())
    }

    /// `g_β(u) = −2βu + 2 sinh(βu) + k_b u`.
    fn g_beta(u: f64, p: &P) -> f64 {
        -2.0 * p.beta * u + 2.0 * (p.beta * u).sinh() + p.k_b * u
    }

    /// The stress law `σ(u, u*, z*, p)` on the branch `ξ`.
    fn sigma(xi: f64, x: &X, m: &Memory, p: &P) -> f64 {
        let c = fbar(p) + DELTA / p.alpha;
        let e = (-p.alpha * xi * (x.u - m.y.u)).exp();
        g_beta(x.u, p) + xi * c - e * (g_beta(m.y.u, p) + xi * c - m.z.z)
    }

    /// The load `f(t) = t sin(2πt)/2` on the free end.
    fn load(t: f64) -> f64 {
        0.5 * t * (2.0 * core::f64::consts::PI * t).sin()
    }

    #[mode(initial)]
    fn loading(x: &X, z: &Z, p: &P, m: &Memory, t: f64) -> (X, [f64; 1]) {
        (
            X {
                u: x.v,
                v: (-AREA * z.z + load(t)) / MASS,
            },
            [z.z - sigma(1.0, x, m, p)],
        )
    }

    #[mode]
    fn unloading(x: &X, z: &Z, p: &P, m: &Memory, t: f64) -> (X, [f64; 1]) {
        (
            X {
                u: x.v,
                v: (-AREA * z.z + load(t)) / MASS,
            },
            [z.z - sigma(-1.0, x, m, p)],
        )
    }

    #[guard(loading -> unloading, falling)]
    fn reversal_down(x: &X) -> f64 {
        x.v
    }

    #[guard(unloading -> loading, rising)]
    fn reversal_up(x: &X) -> f64 {
        x.v
    }

    #[cost(integral)]
    fn deformation(x: &X) -> f64 {
        x.u.powi(2)
    }
}

/// Runs `compare` for every tableau; returns the largest relative difference.
macro_rules! every_tableau {
    ($name:expr, $model:expr, $problem:expr, $options:expr) => {{
        let a = compare($name, $model, &ESDIRK23, $problem, $options, 1e-10);
        let b = compare($name, $model, &ESDIRK34, $problem, $options, 1e-10);
        let c = compare($name, $model, &ESDIRK436L2SA, $problem, $options, 1e-10);
        a.max(b).max(c)
    }};
}

#[test]
fn ex51_adjoint_equals_forward() {
    use models::ex51;
    let mut problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let options = HybridOptions::new(1e-8, 1e-10);
    let mut worst = every_tableau!("Ex. 5.1", &ex51::Model, &problem, &options);
    // With sample times (no sampled cost): steps landing on them after a switch, from a start
    // that moves with p.
    let times = [0.5, 1.2, 2.5, 4.0];
    problem.sample_times = &times;
    worst = worst.max(every_tableau!(
        "Ex. 5.1 sampled",
        &ex51::Model,
        &problem,
        &options
    ));
    println!("Ex. 5.1: worst {worst:.1e}");
}

/// The adjoint's dG/dp of Ex. 5.1 against the closed form of Serban & Recuero 2019, §5.1:
/// dG/dp = −2.31195310744389; 1e-6 relative is the global error of the solution at rtol 1e-8,
/// atol 1e-10 with the 3rd- and 4th-order tableaus (the forward sensitivities of the same solve
/// agree to round-off, above). ESDIRK23's global error at these tolerances is 1.7e-6 (measured,
/// its forward gradient the same to 1e-15), a discretization error, so it is not compared with
/// the closed form here.
#[test]
fn ex51_adjoint_gradient_reference() {
    use models::ex51;
    fn one<const S: usize>(tableau: &Tableau<S>) {
        let problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
        let options = HybridOptions::new(1e-8, 1e-10);
        let mut tape = vec![TapeStep::ZERO; 4096];
        let mut out = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
        };
        let mut sol = HybridSolution::ZERO;
        let mut grad = AdjointGradient::ZERO;
        solve_adjoint(
            &ex51::Model,
            tableau,
            &problem,
            &options,
            StepPlan::Adaptive,
            &mut tape,
            &mut out,
            &mut sol,
            &mut grad,
        )
        .unwrap();
        assert_eq!(sol.n_events, 3);
        let reference = -2.31195310744389;
        let rel = (grad.p[0] - reference).abs() / reference.abs();
        println!(
            "Ex. 5.1 {}: dG/dp = {:.15}, relative error {rel:.1e}",
            tableau.name, grad.p[0]
        );
        assert!(rel < 1e-6, "{}: dG/dp = {}", tableau.name, grad.p[0]);
    }
    one(&ESDIRK34);
    one(&ESDIRK436L2SA);
}

#[test]
fn ball_adjoint_equals_forward() {
    // From 1 m at rest: impacts near t = 0.45, 1.17, 1.75, 2.21, 2.58; samples (no sampled
    // cost) make steps land after impacts, from starts that move with p and y0.
    let times = [0.3, 0.8, 1.5, 2.4];
    let mut problem = ball::Model::problem(
        0.0,
        2.7,
        &ball::X { h: 1.0, v: 0.0 },
        &ball::P { g: 9.81, e: 0.8 },
    );
    problem.sample_times = &times;
    let options = HybridOptions::new(1e-8, 1e-10);
    let worst = every_tableau!("ball", &ball::Model, &problem, &options);
    println!("ball: worst {worst:.1e}");
}

#[test]
fn relay_adjoint_equals_forward() {
    use models::relay;
    let mut problem = relay::Model::problem(
        0.0,
        10.0,
        &relay::X { q: 0.0, v: 0.0 },
        &relay::P { k: 2.0, c: 0.3 },
    );
    problem.z0 = [1.0];
    let times = [2.0, 5.0, 9.0];
    problem.sample_times = &times;
    let options = HybridOptions::new(1e-8, 1e-10);
    let worst = every_tableau!("relay", &relay::Model, &problem, &options);
    println!("relay: worst {worst:.1e}");
}

#[test]
fn two_mode_dae_adjoint_equals_forward() {
    let times = [0.0, 1.5, 3.0];
    let data = [0.1, 0.4, 0.2];
    let mut problem = two_mode::Model::problem(
        0.0,
        6.0,
        &two_mode::X { a: 1.0, b: 0.0 },
        &two_mode::P {
            k: 4.0,
            c: 0.2,
            thr: 0.3,
            e: 0.8,
        },
        &two_mode::U { f0: 1.0 },
    );
    problem.sample_times = &times;
    problem.sample_data = &data;
    let options = HybridOptions::new(1e-8, 1e-10);
    let worst = every_tableau!("two-mode DAE", &two_mode::Model, &problem, &options);
    println!("two-mode DAE: worst {worst:.1e}");
}

#[test]
fn steel_adjoint_equals_forward() {
    let pi2 = core::f64::consts::PI.powi(2);
    let problem = steel::Model::problem(
        0.0,
        3.0,
        &steel::X { u: 0.0, v: 0.0 },
        &steel::P {
            k_a: 32.0 * pi2,
            k_b: pi2,
            alpha: 205.0,
            beta: 0.0,
        },
    );
    let options = HybridOptions::new(1e-8, 1e-10);
    let worst = every_tableau!("EM oscillator", &steel::Model, &problem, &options);
    println!("EM oscillator: worst {worst:.1e}");
}
