//! The discrete adjoint (`solve_adjoint`) against the forward sensitivities of the same solve,
//! on event-free `#[hybrid_model]`s, for every tableau: Robertson (stiff ODE), Van der Pol, an
//! index-1 DAE whose equations and integral cost read the memory and `t`, and an affine DAE with a
//! constant Jacobian (whose stage matrices the backward pass reuses); with integral, terminal
//! and sampled costs (one sample at `t0`), with initial-state gradients.
//!
//! Both sides are derivatives of the same discrete solution with the step sequence frozen (the
//! adjoint transposes exactly the linear chain the forward sensitivities apply), so they agree
//! to round-off: 1e-10 relative, 1e-13 absolute for entries near zero. The round-off of the
//! two orders of summation grows with the number of steps and the conditioning of the stage
//! matrices (Robertson's reach cond ≈ 1e7 here), which is what the 1e-10 leaves room for.
#![deny(missing_docs)]

use crate::adjoint_checks as adjoint;

use adjoint::{checkpointed_equals_full, close, compare, every_tableau, samples_only};
use hysens::hybrid_model;
use hysens::runtime::{
    adjoint_tape_length, solve, solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape,
    Checkpoint, HybridModel, HybridOptions, HybridOutputs, HybridProblem, HybridRun,
    HybridSolution, ModelSizes, ModelTypes, Sample, SolveError, StepPlan, TapeStep, ESDIRK34,
    ESDIRK436L2SA,
};

/// Robertson's kinetics with all three cost kinds.
#[hybrid_model]
pub mod rob {
    /// Concentrations.
    #[states]
    pub struct X {
        /// Species A.
        pub y1: f64,
        /// Species B.
        pub y2: f64,
        /// Species C.
        pub y3: f64,
    }
    /// Rate constants.
    #[params]
    pub struct P {
        /// `A → B`.
        pub k1: f64,
        /// `2B → B + C`.
        pub k2: f64,
        /// `B + C → A + C`.
        pub k3: f64,
    }
    #[mode(initial)]
    fn kinetics(x: &X, p: &P) -> X {
        X {
            y1: -p.k1 * x.y1 + p.k3 * x.y2 * x.y3,
            y2: p.k1 * x.y1 - p.k3 * x.y2 * x.y3 - p.k2 * x.y2.powi(2),
            y3: p.k2 * x.y2.powi(2),
        }
    }
    #[cost(integral)]
    fn exposure(x: &X) -> f64 {
        1e4 * x.y2 + x.y1 * x.y3
    }
    #[cost(terminal)]
    fn product(x: &X, p: &P) -> f64 {
        x.y3 + 1e-3 * p.k1 * x.y1
    }
    #[cost(sampled)]
    fn misfit(x: &X, d: f64) -> f64 {
        0.5 * (x.y1 - d).powi(2)
    }
}

/// Van der Pol with all three cost kinds.
#[hybrid_model]
pub mod vdp {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub y1: f64,
        /// Velocity.
        pub y2: f64,
    }
    /// Stiffness and a forcing.
    #[params]
    pub struct P {
        /// μ.
        pub mu: f64,
        /// Forcing amplitude.
        pub a: f64,
    }
    #[mode(initial)]
    fn oscillate(x: &X, p: &P, t: f64) -> X {
        X {
            y1: x.y2,
            y2: p.mu * (1.0 - x.y1.powi(2)) * x.y2 - x.y1 + p.a * t.cos(),
        }
    }
    #[cost(integral)]
    fn energy(x: &X, t: f64) -> f64 {
        x.y1.powi(2) + 0.1 * t * x.y2
    }
    #[cost(terminal)]
    fn velocity(x: &X) -> f64 {
        x.y2
    }
    #[cost(sampled)]
    fn misfit(x: &X, p: &P, d: f64) -> f64 {
        (x.y1 - d).powi(2) + p.a * x.y2
    }
}

/// An index-1 DAE whose equations and costs read the memory `(y*, z*) = (y0, z0)` and `t`.
#[hybrid_model]
pub mod mdae {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub q: f64,
        /// Velocity.
        pub v: f64,
    }
    /// Force and a switching signal.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub f: f64,
        /// Signal.
        pub s: f64,
    }
    /// Parameters.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
        /// Forcing amplitude.
        pub a: f64,
    }
    #[mode(initial)]
    fn drive(x: &X, z: &Z, p: &P, m: &Memory, t: f64) -> (X, [f64; 2]) {
        (
            X {
                q: x.v,
                v: z.f - p.c * x.v * z.s + 0.2 * m.y.v,
            },
            [
                z.f + p.k * (x.q - m.y.q) - p.a * t.sin(),
                z.s - 1.0 - 0.1 * (x.v * z.f).tanh() - 0.05 * m.z.f,
            ],
        )
    }
    #[cost(integral)]
    fn effort(z: &Z, m: &Memory, t: f64) -> f64 {
        z.f.powi(2) * (1.0 + 0.1 * t) + 0.1 * m.y.v * z.s
    }
    #[cost(terminal)]
    fn last(x: &X, z: &Z, p: &P) -> f64 {
        x.q * z.s + p.c * x.v
    }
    #[cost(sampled)]
    fn misfit(x: &X, z: &Z, d: f64) -> f64 {
        0.5 * (x.q - d).powi(2) + 0.1 * z.f
    }
}

/// An affine DAE (constant Jacobian, depending on `p` and the memory) with all cost kinds.
#[hybrid_model]
pub mod lin {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub a: f64,
        /// Velocity.
        pub b: f64,
    }
    /// A force.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub w: f64,
    }
    /// Parameters.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
        /// Coupling.
        pub u: f64,
    }
    #[mode(initial)]
    fn spring(x: &X, z: &Z, p: &P, m: &Memory, t: f64) -> (X, [f64; 1]) {
        (
            X {
                a: x.b,
                b: -p.k * x.a - p.c * x.b + z.w,
            },
            [z.w - p.u * (x.a - m.y.a) - 0.5 * t.sin()],
        )
    }
    #[cost(integral)]
    fn effort(x: &X, z: &Z) -> f64 {
        x.a.powi(2) + z.w.powi(2)
    }
    #[cost(terminal)]
    fn last(x: &X, p: &P) -> f64 {
        p.k * x.b.powi(2)
    }
    #[cost(sampled)]
    fn misfit(x: &X, z: &Z, d: f64) -> f64 {
        (x.a + z.w - d).powi(2)
    }
}

/// Robertson from `(1, 0, 0)` with the classic rate constants to `tf`, sampled at `times`.
fn robertson<'a>(tf: f64, times: &'a [f64], data: &'a [f64]) -> HybridProblem<'a, 3, 0, 3> {
    let x0 = rob::X {
        y1: 1.0,
        y2: 0.0,
        y3: 0.0,
    };
    let p = rob::P {
        k1: 0.04,
        k2: 3e7,
        k3: 1e4,
    };
    let mut problem = rob::Model::problem(0.0, tf, &x0, &p);
    problem.sample_times = times;
    problem.sample_data = data;
    problem
}

/// Van der Pol from `(2, 0)` at `μ = 5`, forcing 0.3, on `[0, 4]`, sampled at `times`.
fn van_der_pol<'a>(times: &'a [f64], data: &'a [f64]) -> HybridProblem<'a, 2, 0, 2> {
    let x0 = vdp::X { y1: 2.0, y2: 0.0 };
    let mut problem = vdp::Model::problem(0.0, 4.0, &x0, &vdp::P { mu: 5.0, a: 0.3 });
    problem.sample_times = times;
    problem.sample_data = data;
    problem
}

/// The DAE with memory from `(0.2, −0.1)` on `[0, 3]`, sampled at `times`, with a consistent
/// guess `z0 = (0, 1)` (the first mode's `g` reads `z*`).
fn memory_dae<'a>(times: &'a [f64], data: &'a [f64]) -> HybridProblem<'a, 2, 2, 3> {
    let x0 = mdae::X { q: 0.2, v: -0.1 };
    let p = mdae::P {
        k: 2.0,
        c: 0.3,
        a: 0.7,
    };
    let mut problem = mdae::Model::problem(0.0, 3.0, &x0, &p);
    problem.z0 = [0.0, 1.0];
    problem.sample_times = times;
    problem.sample_data = data;
    problem
}

#[test]
fn robertson_adjoint_equals_forward() {
    let problem = robertson(40.0, &[0.0, 0.4, 4.0, 40.0], &[1.0, 0.98, 0.9, 0.7]);
    let options = HybridOptions::new(1e-6, 1e-10);
    every_tableau("Robertson", &rob::Model, &problem, &options, false);
}

/// Robertson to t = 4e10, where the stage matrices reach cond ≈ 1e10 (`fsa/step.rs`): the
/// stage solves, forward and transposed, each carry a relative error up to cond·ε ≈ 1e-6 in
/// their worst direction, and the k1- and k3-gradients are sums with cancellation; the two
/// summation orders measured 2.6e-9 apart (1e-14 on the same problem to t = 40, above). 1e-8
/// relative is that round-off with a margin, not the 1e-10 of the well-conditioned problems.
#[test]
fn robertson_long_horizon_adjoint_equals_forward() {
    let problem = robertson(4e10, &[4e5, 4e10], &[0.01, 0.0]);
    let options = HybridOptions::new(1e-6, 1e-10);
    compare(
        "Robertson to 4e10",
        &rob::Model,
        &ESDIRK436L2SA,
        &problem,
        &options,
        1e-8,
        false,
    );
}

#[test]
fn van_der_pol_adjoint_equals_forward() {
    let problem = van_der_pol(&[0.5, 1.0, 3.0], &[1.5, 1.0, -1.0]);
    let options = HybridOptions::new(1e-7, 1e-9);
    every_tableau("Van der Pol", &vdp::Model, &problem, &options, false);
}

#[test]
fn dae_with_memory_adjoint_equals_forward() {
    let problem = memory_dae(&[0.0, 1.0, 2.5], &[0.0, 0.3, -0.2]);
    let options = HybridOptions::new(1e-8, 1e-10);
    every_tableau("memory DAE", &mdae::Model, &problem, &options, false);
}

#[test]
fn affine_dae_adjoint_equals_forward() {
    // The backward pass reuses its stage matrices only for a constant Jacobian.
    assert!(<lin::Model as HybridModel<2, 1, 3>>::MODES[0].constant_jacobian);
    let x0 = lin::X { a: 1.0, b: 0.0 };
    let p = lin::P {
        k: 4.0,
        c: 0.5,
        u: 0.8,
    };
    let mut problem = lin::Model::problem(0.0, 5.0, &x0, &p);
    problem.sample_times = &[1.0, 2.0];
    problem.sample_data = &[0.1, -0.1];
    let options = HybridOptions::new(1e-8, 1e-10);
    every_tableau("affine DAE", &lin::Model, &problem, &options, false);
}

/// With Jacobian reuse pushed far past its default (reuse after any step whose worst Newton
/// rate was ≤ 0.5, not 0.01: most steps start from an old Jacobian, and the iteration
/// matrix's LU is then built from it), the adjoint still equals the forward sensitivities to
/// 1e-10 on the nonlinear models: the reused Jacobian only steers Newton to the same
/// converged stages, while both sensitivity passes use the exact stage matrices at those
/// stages (`fsa/step.rs`, `adjoint/step.rs`). The plain solve's counters show the reuse is
/// real (fewer Jacobians than steps).
#[test]
fn adjoint_equals_forward_with_heavy_jacobian_reuse() {
    let samples = [0.0, 0.4, 4.0, 40.0];
    let problem = robertson(40.0, &samples, &[1.0, 0.98, 0.9, 0.7]);
    with_heavy_reuse("Robertson", &rob::Model, &problem, 1e-6, 1e-10);
    let problem = van_der_pol(&[0.5, 1.0, 3.0], &[1.5, 1.0, -1.0]);
    with_heavy_reuse("Van der Pol", &vdp::Model, &problem, 1e-7, 1e-9);
    let problem = memory_dae(&[0.0, 1.0, 2.5], &[0.0, 0.3, -0.2]);
    with_heavy_reuse("memory DAE", &mdae::Model, &problem, 1e-8, 1e-10);
}

/// [`every_tableau`] on `problem` at `(rtol, atol)` with the Jacobian reuse rate 0.5, after a
/// plain solve shows that fewer Jacobians than half the steps were evaluated.
fn with_heavy_reuse<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    name: &str,
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    rtol: f64,
    atol: f64,
) where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let mut options = HybridOptions::new(rtol, atol);
    options.integrator.jacobian_reuse_rate = 0.5;
    let run = HybridRun::new(model, &ESDIRK436L2SA, problem, &options);
    let mut plain = HybridSolution::ZERO;
    let mut out = vec![Sample::ZERO; problem.sample_times.len()];
    solve(&run, &mut samples_only(&mut out), &mut plain).unwrap();
    let stats = &plain.stats;
    eprintln!(
        "{name}: {} Jacobians, {} steps",
        stats.jacobian_evals, stats.steps
    );
    assert!(
        stats.jacobian_evals < stats.steps / 2,
        "{name}: {} Jacobians for {} steps: the reuse did not happen",
        stats.jacobian_evals,
        stats.steps
    );
    every_tableau(
        &format!("{name}, heavy reuse"),
        model,
        problem,
        &options,
        false,
    );
}

/// A tape shorter than the solve: `TapeFull` naming its capacity and the capacity needed
/// (the forward solve goes on to count it), for a full tape and for too few checkpoints.
#[test]
fn full_tape_is_an_error() {
    let problem = van_der_pol(&[], &[]);
    let options = HybridOptions::new(1e-7, 1e-9);
    let mut out = samples_only(&mut []);
    let n = adjoint_tape_length(
        &HybridRun::new(&vdp::Model, &ESDIRK34, &problem, &options),
        &mut [],
    )
    .expect("Van der Pol solves");
    assert!(n > 30, "{n} steps");
    let mut steps = [TapeStep::ZERO; 10];
    let mut checkpoints = [Checkpoint::ZERO; 2];
    for (checkpoints, storage, capacity, needed) in [
        (&mut [][..], "steps", 10, n),
        (&mut checkpoints[..], "checkpoints", 2, n.div_ceil(10)),
    ] {
        let mut sol = HybridSolution::ZERO;
        let mut grad = AdjointGradient::ZERO;
        let r = solve_adjoint(
            &HybridRun::new(&vdp::Model, &ESDIRK34, &problem, &options),
            AdjointTape::checkpointed(&mut steps, checkpoints),
            &mut out,
            &mut sol,
            &mut grad,
        );
        let Err(e @ SolveError::TapeFull { .. }) = r else {
            panic!("{r:?}");
        };
        let expected = SolveError::TapeFull {
            t: e.time(),
            mode: 0,
            storage,
            capacity,
            needed,
        };
        assert_eq!(e, expected);
        assert!(
            e.time() > 0.0 && e.time() < 4.0,
            "ran out at t = {}",
            e.time()
        );
        assert_eq!(
            (grad.tape_len, sol.stats.steps, sol.t),
            (n, n, 4.0),
            "counted to the end"
        );
        assert_eq!(grad.p, [0.0; 2], "no gradient from a partial tape");
    }
}

/// The adjoint of a replayed step log (the frozen map an optimizer differentiates) equals the
/// forward sensitivities of the same replay.
#[test]
fn replayed_solve_adjoint_equals_forward() {
    let problem = memory_dae(&[0.0, 1.0, 2.5], &[0.0, 0.3, -0.2]);
    let options = HybridOptions::new(1e-6, 1e-8);
    // The log of a solve at other parameters, replayed at these.
    let mut log = [hysens::runtime::LoggedStep::ZERO; 1024];
    let mut samples = [Sample::ZERO; 3];
    let mut sol = HybridSolution::ZERO;
    let mut logged = problem;
    logged.p = [2.2, 0.25, 0.6];
    let mut out = HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: Some(&mut log),
        dense: None,
    };
    solve(
        &HybridRun::new(&mdae::Model, &ESDIRK34, &logged, &options),
        &mut out,
        &mut sol,
    )
    .unwrap();
    let plan = StepPlan::Replay(&log[..sol.n_logged_steps]);
    let mut fsa = HybridSolution::ZERO;
    let mut seeded = problem;
    seeded.sensitivities = Some([[0.0; 3]; 2]);
    solve(
        &HybridRun::new(&mdae::Model, &ESDIRK34, &seeded, &options).with_plan(plan),
        &mut samples_only(&mut samples),
        &mut fsa,
    )
    .unwrap();
    let mut tape = vec![TapeStep::ZERO; 1024];
    let mut asa = HybridSolution::ZERO;
    let mut grad = AdjointGradient::ZERO;
    solve_adjoint(
        &HybridRun::new(&mdae::Model, &ESDIRK34, &problem, &options).with_plan(plan),
        AdjointTape::full(&mut tape),
        &mut samples_only(&mut samples),
        &mut asa,
        &mut grad,
    )
    .unwrap();
    assert_eq!(asa.cost, fsa.cost);
    for q in 0..3 {
        close("replay dG/dp", grad.p[q], fsa.cost_gradient[q], 1e-10);
    }
    // Resumed from checkpoints, the replay continues at its position in the step plan.
    let name = "replayed DAE with memory";
    let run = HybridRun::new(&mdae::Model, &ESDIRK34, &problem, &options).with_plan(plan);
    checkpointed_equals_full(name, &run, &grad);
}
