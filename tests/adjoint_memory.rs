//! The discrete adjoint across events on models with memory (the memory toy, `memory_toy`, and
//! the EM hysteretic oscillator of Serban & Recuero 2019, Example 5.2, `steel`; both from
//! `support/event_models.rs`), against the forward sensitivities of the same solve, for every
//! tableau. The models are wrapped ([`Costed`]) with a sampled and a terminal cost that read the
//! memory, so that the memory adjoint of a segment is seeded by samples (also one at a restart,
//! right after an event) and by the terminal cost, and with [`AdjointProducts`] formed from the
//! model's Jacobians.
//!
//! Both sides are derivatives of the same discrete solution with the step sequence frozen, so
//! they agree to round-off: 1e-10 relative, 1e-13 absolute near zero (two summation orders
//! over a few thousand steps and a few event maps, with well-conditioned stage matrices).
#![allow(clippy::needless_range_loop)]

// The comparison of the facade's adjoint tests, here with the problems' own seeds.
use crate::adjoint_checks as adjoint;
use crate::event_models;
use crate::runtime;

use adjoint::{every_tableau_seeded, samples_only, unseeded, Problems};
use event_models::{memory_toy, steel};
use hysens::runtime::{
    solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape, GuardInfo, HybridModel,
    HybridOptions, HybridProblem, HybridRun, HybridSolution, InitialMode, ModeInfo, ModeJacobian,
    ModelSizes, ModelTypes, Point, ResetJacobian, ScalarPartials, TapeStep, ESDIRK436L2SA,
};
use runtime::{em_parameters, em_problem, mem_toy_problem};

/// A model with adjoint products from its Jacobians; with `extra_costs`, its terminal and
/// sampled costs are replaced by a sampled cost `½ (y_0 − d)² + 0.3 p_0 y_{NY−1} + 0.2 y*_0 y_0
/// (+ 0.1 z_0)` and a terminal cost `½ y_0² + y*_0 y_{NY−1}` (the models have integral costs
/// only, which stay). `t_guard` replaces the memory toy's guard by `t − p2` (see
/// `memory_toy_adjoint_equals_forward`).
///
/// Written by hand against the runtime's traits because no `#[hybrid_model]` can be this: a
/// wrapper generic over the model it wraps (the macro writes one model, not a transformation
/// of any model), whose `AdjointProducts` are formed from the wrapped model's Jacobians instead
/// of the products the macro generates.
struct Costed<M> {
    model: M,
    t_guard: bool,
    extra_costs: bool,
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> HybridModel<NY, NZ, NP> for Costed<M>
where
    M: HybridModel<NY, NZ, NP>,
{
    type Store = M::Store;
    const MODES: &'static [ModeInfo] = M::MODES;
    const GUARDS: &'static [GuardInfo] = M::GUARDS;
    const INITIAL_MODE: InitialMode = M::INITIAL_MODE;
    const STATE_NAMES: [&'static str; NY] = M::STATE_NAMES;
    const ALGEBRAIC_NAMES: [&'static str; NZ] = M::ALGEBRAIC_NAMES;
    const PARAMETER_NAMES: [&'static str; NP] = M::PARAMETER_NAMES;
    const HAS_INTEGRAL_COST: bool = M::HAS_INTEGRAL_COST;
    fn residual(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        f: &mut [f64; NY],
        g: &mut [f64; NZ],
    ) {
        self.model.residual(mode, at, f, g)
    }
    fn jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        self.model.jacobian(mode, at, jac)
    }
    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        fp: &mut [[f64; NP]; NY],
        gp: &mut [[f64; NP]; NZ],
    ) {
        self.model.parameter_jacobian(mode, at, fp, gp)
    }
    fn time_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        ft: &mut [f64; NY],
        gt: &mut [f64; NZ],
    ) {
        self.model.time_partials(mode, at, ft, gt)
    }
    fn memory_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ModeJacobian<NY, NZ, M::Store>,
    ) {
        self.model.memory_jacobian(mode, at, jac)
    }
    fn guard(&self, guard: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        if self.t_guard {
            return at.t - at.p[NP - 1];
        }
        self.model.guard(guard, at)
    }
    fn guard_partials(
        &self,
        guard: usize,
        at: &Point<'_, NY, NZ, NP>,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        if self.t_guard {
            d.t = 1.0;
            d.p[NP - 1] = -1.0;
            return;
        }
        self.model.guard_partials(guard, at, d)
    }
    fn reset(&self, guard: usize, at: &Point<'_, NY, NZ, NP>, y_plus: &mut [f64; NY]) {
        self.model.reset(guard, at, y_plus)
    }
    fn reset_jacobian(
        &self,
        guard: usize,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ResetJacobian<NY, NZ, NP, M::Store>,
    ) {
        self.model.reset_jacobian(guard, at, jac)
    }
    fn integral_cost(&self, mode: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        self.model.integral_cost(mode, at)
    }
    fn integral_cost_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        self.model.integral_cost_partials(mode, at, d)
    }
    fn terminal_cost(&self, at: &Point<'_, NY, NZ, NP>) -> f64 {
        if !self.extra_costs {
            return self.model.terminal_cost(at);
        }
        0.5 * at.y[0] * at.y[0] + at.memory.y[0] * at.y[NY - 1]
    }
    fn terminal_cost_partials(
        &self,
        at: &Point<'_, NY, NZ, NP>,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        if !self.extra_costs {
            return self.model.terminal_cost_partials(at, d);
        }
        d.y[0] += at.y[0];
        d.y[NY - 1] += at.memory.y[0];
        d.memory_y[0] += at.y[NY - 1];
    }
    fn sampled_cost(&self, at: &Point<'_, NY, NZ, NP>, datum: f64) -> f64 {
        if !self.extra_costs {
            return self.model.sampled_cost(at, datum);
        }
        let z = if NZ > 0 { 0.1 * at.z[0] } else { 0.0 };
        0.5 * (at.y[0] - datum).powi(2)
            + 0.3 * at.p[0] * at.y[NY - 1]
            + 0.2 * at.memory.y[0] * at.y[0]
            + z
    }
    fn sampled_cost_partials(
        &self,
        at: &Point<'_, NY, NZ, NP>,
        datum: f64,
        d: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        if !self.extra_costs {
            return self.model.sampled_cost_partials(at, datum, d);
        }
        d.y[0] += at.y[0] - datum + 0.2 * at.memory.y[0];
        d.y[NY - 1] += 0.3 * at.p[0];
        d.p[0] += 0.3 * at.y[NY - 1];
        d.memory_y[0] += 0.2 * at.y[0];
        if NZ > 0 {
            d.z[0] += 0.1;
        }
    }
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> AdjointProducts<NY, NZ, NP> for Costed<M>
where
    M: HybridModel<NY, NZ, NP>,
{
    fn adjoint_products(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        lambda: &[f64; NY],
        mu: &[f64; NZ],
        out_y: &mut [f64; NY],
        out_z: &mut [f64; NZ],
        out_p: &mut [f64; NP],
    ) {
        let mut jac = ModeJacobian::zeroed();
        let mut fp = [[0.0; NP]; NY];
        let mut gp = [[0.0; NP]; NZ];
        self.model.jacobian(mode, at, &mut jac);
        self.model.parameter_jacobian(mode, at, &mut fp, &mut gp);
        *out_y = [0.0; NY];
        *out_z = [0.0; NZ];
        *out_p = [0.0; NP];
        for r in 0..NY {
            for c in 0..NY {
                out_y[c] += jac.f_y()[r][c] * lambda[r];
            }
            for c in 0..NZ {
                out_z[c] += jac.fz[r][c] * lambda[r];
            }
            for q in 0..NP {
                out_p[q] += fp[r][q] * lambda[r];
            }
        }
        for r in 0..NZ {
            for c in 0..NY {
                out_y[c] += jac.gy[r][c] * mu[r];
            }
            for c in 0..NZ {
                out_z[c] += jac.gz[r][c] * mu[r];
            }
            for q in 0..NP {
                out_p[q] += gp[r][q] * mu[r];
            }
        }
    }
}

impl<M: ModelSizes<N, NS>, const N: usize, const NS: usize> ModelSizes<N, NS> for Costed<M> {}

impl<M, const NY: usize, const NZ: usize, const NP: usize> ModelTypes<NY, NZ, NP> for Costed<M> {
    type State = [f64; NY];
    type Algebraic = [f64; NZ];
    type Params = [f64; NP];
}

/// The memory toy as it is (switch when `y1 − p2` rises through zero, near `t = 1`), and with
/// the equivalent guard `t − p2`, which makes the step landing on the sample time `t = 1` meet
/// the switch exactly at its end: that sample is recorded at the restart, in the new mode, and
/// seeds the adjoint of the restart and of the new segment's memory.
#[test]
fn memory_toy_adjoint_equals_forward() {
    let data = [0.1, 0.2, 0.3, 0.4, 0.5];
    let mut problem = mem_toy_problem([1.0, 1.0]);
    problem.sensitivities = Some([[0.3, -0.2], [0.1, 0.4]]);
    problem.y0 = [0.0, 0.2];
    problem.sample_data = &data;
    let options = HybridOptions::new(1e-8, 1e-10);
    // As it is: no sample within round-off of the switch (the forward solve would need a
    // landing step of a few ulps there).
    let times = [0.0, 0.5, 1.5, 2.0, 3.0];
    problem.sample_times = &times;
    let model = Costed {
        model: memory_toy::Model,
        t_guard: false,
        extra_costs: true,
    };
    let problems = Problems {
        seeded: &problem,
        unseeded: &unseeded(&problem),
    };
    let (mut worst, _) = every_tableau_seeded("memory toy", &model, problems, &options, true);
    // Switch at t = p2 = 1 exactly, on a sample time.
    let times = [0.0, 0.5, 1.0, 2.0, 3.0];
    problem.sample_times = &times;
    let model = Costed {
        model: memory_toy::Model,
        t_guard: true,
        extra_costs: true,
    };
    let problems = Problems {
        seeded: &problem,
        unseeded: &unseeded(&problem),
    };
    let (w, samples) =
        every_tableau_seeded("memory toy, t-guard", &model, problems, &options, true);
    worst = worst.max(w);
    let at_restart = samples
        .iter()
        .flatten()
        .filter(|s| s.t == 1.0 && s.mode == 1)
        .count();
    assert_eq!(at_restart, 3, "a sample at the restart, for each tableau");
    println!("memory toy: worst {worst:.1e}");
}

#[test]
fn em_oscillator_adjoint_equals_forward() {
    let times = [0.0, 0.7, 1.3, 2.2];
    let data = [0.0, 0.01, -0.01, 0.02];
    let mut problem = em_problem(em_parameters(), 3.0);
    problem.sample_times = &times;
    problem.sample_data = &data;
    let options = HybridOptions::new(1e-8, 1e-10);
    let model = Costed {
        model: steel::Model,
        t_guard: false,
        extra_costs: true,
    };
    let problems = Problems {
        seeded: &problem,
        unseeded: &unseeded(&problem),
    };
    let (worst, _) = every_tableau_seeded("EM oscillator", &model, problems, &options, true);
    println!("EM oscillator: worst {worst:.1e}");
}

/// The adjoint alone against the reference values the forward tests assert
/// (`hybrid_memory.rs`): the memory toy's closed form at rtol 1e-10 (dG/dp to 1e-7 relative to
/// max(|ref|, 1): global errors ≲ 2e-8), and Serban & Recuero's Example 5.2 against the DOP853
/// reference at rtol 1e-8 (G to 1e-7; dG/dk_a, dG/dk_b 1e-5 and dG/dα 1e-4 relative, the
/// reference's own trust; dG/dβ exactly 0 as β does not enter the model).
#[test]
fn adjoint_gradient_meets_the_reference_values() {
    let toy = Costed {
        model: memory_toy::Model,
        t_guard: false,
        extra_costs: false,
    };
    let toy_options = HybridOptions::new(1e-10, 1e-12);
    let (sol, grad) = adjoint_of(&toy, &mem_toy_problem([1.0, 1.0]), &toy_options);
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1.0);
    assert!(rel(sol.cost, 2.76745584206517) < 1e-7, "G = {}", sol.cost);
    assert!(
        rel(grad.p[0], -1.17346169177501) < 1e-7,
        "dG/dp1 = {}",
        grad.p[0]
    );
    assert!(
        rel(grad.p[1], -0.128905834420503) < 1e-7,
        "dG/dp2 = {}",
        grad.p[1]
    );

    let em = Costed {
        model: steel::Model,
        t_guard: false,
        extra_costs: false,
    };
    let em_options = HybridOptions::new(1e-8, 1e-10);
    let (sol, grad) = adjoint_of(&em, &em_problem(em_parameters(), 10.0), &em_options);
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs();
    assert_eq!(sol.n_events, 19);
    assert!(
        (sol.cost - 0.0499397886064).abs() < 1e-7,
        "G = {}",
        sol.cost
    );
    assert!(
        rel(grad.p[0], -1.336643884e-05) < 1e-5,
        "dG/dk_a = {}",
        grad.p[0]
    );
    assert!(
        rel(grad.p[1], 3.266790158e-03) < 1e-5,
        "dG/dk_b = {}",
        grad.p[1]
    );
    assert!(
        rel(grad.p[2], -1.530224960e-06) < 1e-4,
        "dG/dα = {}",
        grad.p[2]
    );
    assert!(grad.p[3].abs() < 1e-15, "dG/dβ = {}", grad.p[3]);
}

/// One adjoint solve of `problem` with ESDIRK4(3)6L[2]SA and no samples.
fn adjoint_of<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
) -> (HybridSolution<NY, NZ, NP>, AdjointGradient<NY, NP>)
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let mut tape = vec![TapeStep::ZERO; 20_000];
    let (mut sol, mut grad) = (HybridSolution::ZERO, AdjointGradient::ZERO);
    solve_adjoint(
        &HybridRun::new(model, &ESDIRK436L2SA, problem, options),
        AdjointTape::full(&mut tape),
        &mut samples_only(&mut []),
        &mut sol,
        &mut grad,
    )
    .expect("the model solves");
    (sol, grad)
}
