//! Helpers for the tests that drive the runtime's core API (`hysens::runtime::solve`, the
//! ESDIRK integrator `Esdirk`) directly: a hybrid solve with owned storage ([`run`]), the
//! comparison of forward sensitivities with finite differences of the same integrator on a
//! frozen step sequence ([`fsa_vs_frozen_fd`]), dual numbers for the exact derivatives of
//! closed forms ([`D4`]), and small utilities for the ESDIRK tests; and the problems of the
//! fixture models as the core API takes them (`HybridProblem`, with the sensitivities' seeds),
//! with the closed-form values of Serban & Recuero's Example 5.1 (`EX51_*`). The models are in
//! `models.rs` and `event_models.rs`.
//!
//! Included by `#[path]` (as `mod runtime`) by the test binaries that use it.
#![allow(dead_code)] // each test binary uses a subset
#![allow(clippy::needless_range_loop)]
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use hysens::runtime::smooth::StepRecord;
use hysens::runtime::{
    solve, EventRecord, HybridModel, HybridOptions, HybridOutputs, HybridProblem, HybridRun,
    HybridSolution, LoggedStep, ModelSizes, Options, Sample, SolveError, StepPlan, Tableau,
    ESDIRK23, ESDIRK34, ESDIRK436L2SA,
};

// ---------------------------------------------------------------------------------------------
// Hybrid solves.
// ---------------------------------------------------------------------------------------------

/// Result of a test solve with owned storage.
pub struct Run<const NY: usize, const NZ: usize, const NP: usize> {
    pub result: Result<(), SolveError>,
    pub sol: HybridSolution<NY, NZ, NP>,
    pub events: Vec<EventRecord<NY, NP>>,
    pub samples: Vec<Sample<NY, NZ, NP>>,
    pub steps: Vec<LoggedStep>,
}

/// Solves `problem` with owned storage for `event_capacity` events, `sample_capacity` samples
/// and 100 000 logged steps; the outputs are truncated to what the solve wrote.
#[allow(clippy::too_many_arguments)]
pub fn run<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    tab: &Tableau<S>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    opts: &HybridOptions<NY, NZ>,
    plan: StepPlan<'_>,
    event_capacity: usize,
    sample_capacity: usize,
) -> Run<NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let mut events = vec![EventRecord::ZERO; event_capacity];
    let mut samples = vec![Sample::ZERO; sample_capacity];
    let mut steps = vec![LoggedStep::ZERO; 100_000];
    let mut sol = HybridSolution::ZERO;
    let result = {
        let mut out = HybridOutputs {
            samples: &mut samples,
            events: Some(&mut events),
            steps: Some(&mut steps),
            dense: None,
        };
        solve(
            &HybridRun::new(model, tab, problem, opts).with_plan(plan),
            &mut out,
            &mut sol,
        )
    };
    events.truncate(sol.n_events.min(event_capacity));
    samples.truncate(sol.n_samples);
    steps.truncate(sol.n_logged_steps);
    Run {
        result,
        sol,
        events,
        samples,
        steps,
    }
}

/// Relative difference |a − b|/|b|.
pub fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

// ---------------------------------------------------------------------------------------------
// The problems of the fixture models for the core API, and closed-form values.
// ---------------------------------------------------------------------------------------------

/// Ex. 5.1 at p = 2.9, x(0) = 0 on [0, 5]: exact values from the closed form (from a switch
/// at (t_k, x_k), x = 4 − (4 − x_k)e^{−(t − t_k)} in A and 5 − (5 − x_k)e^{−2(t − t_k)} in B;
/// the switch times are the roots of h(x(t)) = 0), evaluated with mpmath at 40 digits and
/// quoted to 16. The three switch times:
pub const EX51_T: [f64; 3] = [0.21921592228980355, 0.27581259147348379, 1.2663478417960716];
/// τ_i = dt_i/dp of the three switches.
pub const EX51_TAU: [f64; 3] = [
    0.31570755009809896,
    0.02550807752556832,
    0.74491715157848093,
];
/// G = ∫_0^5 x dt.
pub const EX51_G: f64 = 20.029074653359594;
/// dG/dp.
pub const EX51_DG: f64 = -2.3119531074438905;
/// x(5).
pub const EX51_X5: f64 = 4.9988424062172751;
/// dx(5)/dp.
pub const EX51_S5: f64 = -0.0015741079476662486;

/// Ex. 5.1 on [0, 5] from x(0) = 0 at parameter `p`, with sensitivities, without samples.
pub fn ex51_problem(p: f64) -> HybridProblem<'static, 1, 0, 1> {
    HybridProblem {
        t0: 0.0,
        tf: 5.0,
        y0: [0.0],
        z0: [],
        p: [p],
        sensitivities: Some([[0.0]]),
        sample_times: &[],
        sample_data: &[],
    }
}

/// The ball on [0, tf] from (z0, v0) = (p0, p1), with the sensitivities of the initial state
/// to p (∂y(0)/∂p = (e_0, e_1)).
pub fn ball_problem(p: [f64; 4], tf: f64) -> HybridProblem<'static, 2, 0, 4> {
    HybridProblem {
        t0: 0.0,
        tf,
        y0: [p[0], p[1]],
        z0: [],
        p,
        sensitivities: Some([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]),
        sample_times: &[],
        sample_data: &[],
    }
}

/// The switched DAE on [0, 3] from y(0) = 0 (z0 = 0 is a guess, made consistent), with
/// sensitivities, at p = (a, b).
pub fn switched_dae_problem(p: [f64; 2]) -> HybridProblem<'static, 1, 1, 2> {
    HybridProblem {
        t0: 0.0,
        tf: 3.0,
        y0: [0.0],
        z0: [0.0],
        p,
        sensitivities: Some([[0.0, 0.0]]),
        sample_times: &[],
        sample_data: &[],
    }
}

/// The memory toy on [0, 3] from y(0) = 0, with sensitivities, at p = (p1, p2).
pub fn mem_toy_problem(p: [f64; 2]) -> HybridProblem<'static, 2, 0, 2> {
    HybridProblem {
        t0: 0.0,
        tf: 3.0,
        y0: [0.0, 0.0],
        z0: [],
        p,
        sensitivities: Some([[0.0; 2]; 2]),
        sample_times: &[],
        sample_data: &[],
    }
}

/// Ex. 5.2 from rest, u(0) = v(0) = 0 (z0 = 0 is a guess, made consistent), with
/// sensitivities, on [0, tf] at p = (k_a, k_b, α, β).
pub fn em_problem(p: [f64; 4], tf: f64) -> HybridProblem<'static, 2, 1, 4> {
    HybridProblem {
        t0: 0.0,
        tf,
        y0: [0.0, 0.0],
        z0: [0.0],
        p,
        sensitivities: Some([[0.0; 4]; 2]),
        sample_times: &[],
        sample_data: &[],
    }
}

/// The parameters of Ex. 5.2: k_a = 32π², k_b = π², α = 205, β = 0.
pub fn em_parameters() -> [f64; 4] {
    let pi2 = core::f64::consts::PI * core::f64::consts::PI;
    [32.0 * pi2, pi2, 205.0, 0.0]
}

// ---------------------------------------------------------------------------------------------
// FSA against finite differences of the same integrator with the step sequence frozen.
// ---------------------------------------------------------------------------------------------

/// [`fsa_vs_frozen_fd`] with every tableau (ESDIRK2(3), ESDIRK3(4), ESDIRK4(3)6L[2]SA): each
/// tableau's worst difference must be below `bound`; returns them.
#[allow(clippy::too_many_arguments)]
pub fn fsa_matches_frozen_fd_every_tableau<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    problem: &dyn Fn([f64; NP]) -> HybridProblem<'static, NY, NZ, NP>,
    p0: [f64; NP],
    rtol: f64,
    delta: f64,
    bound: f64,
    label: &str,
) -> [f64; 3]
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let at = (p0, rtol, delta);
    fsa_matches_frozen_fd_every_tableau_replayed_at(model, problem, at, 1e-12, bound, label)
}

/// [`fsa_matches_frozen_fd_every_tableau`] with the replays' Newton tolerance `replay_tolerance`
/// instead of 1e-12 ([`fsa_vs_frozen_fd_replayed_at`]).
#[allow(clippy::too_many_arguments)]
pub fn fsa_matches_frozen_fd_every_tableau_replayed_at<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    problem: &dyn Fn([f64; NP]) -> HybridProblem<'static, NY, NZ, NP>,
    (p0, rtol, delta): ([f64; NP], f64, f64),
    replay_tolerance: f64,
    bound: f64,
    label: &str,
) -> [f64; 3]
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let at = (rtol, delta, replay_tolerance);
    let w = [
        fsa_vs_frozen_fd_replayed_at(model, &ESDIRK23, problem, p0, at, label),
        fsa_vs_frozen_fd_replayed_at(model, &ESDIRK34, problem, p0, at, label),
        fsa_vs_frozen_fd_replayed_at(model, &ESDIRK436L2SA, problem, p0, at, label),
    ];
    check_every_tableau(w, bound, rtol, label)
}

/// Every tableau's worst difference below `bound`.
fn check_every_tableau(w: [f64; 3], bound: f64, rtol: f64, label: &str) -> [f64; 3] {
    assert!(
        w.iter().all(|w| *w < bound),
        "{label} at rtol {rtol}: {w:?}"
    );
    w
}

/// FSA against central differences of the same integrator with the step sequence frozen: an
/// adaptive run at `rtol` (atol = rtol·1e-2) logs its steps; the log is replayed at `p` and
/// at `p ± δ e_q` (δ = `delta`·max(|p_q|, 1)). Compared, per parameter: every event time's
/// τ, every final state and algebraic sensitivity, every sample's sensitivities, and dG/dp; the
/// difference relative to max(|FD|, 1). Returns the worst difference.
///
/// What agrees to what: the FSA is the exact derivative of the discrete solution with the
/// step sequence frozen, including the event steps (τ from the root condition on the discrete
/// step) and the shift of the step grid after them, so the two agree at any
/// tolerance up to the FD truncation O(δ²) and the Newton noise of the replays divided by δ.
/// The replays run with Newton tolerances of rtol = atol = 1e-12 (the tolerances set nothing
/// else in a replay) and without Jacobian reuse, so the Newton error is ≲ 1e-14. (With atol
/// 1e-14 the Newton corrections of a ball stage near z = 0 stagnate at round-off, ~0.1 in
/// units of the weights, which the contraction test reads as divergence.)
#[allow(clippy::too_many_arguments)]
pub fn fsa_vs_frozen_fd<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    tab: &Tableau<S>,
    problem: &dyn Fn([f64; NP]) -> HybridProblem<'static, NY, NZ, NP>,
    p0: [f64; NP],
    rtol: f64,
    delta: f64,
    label: &str,
) -> f64
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    fsa_vs_frozen_fd_replayed_at(model, tab, problem, p0, (rtol, delta, 1e-12), label)
}

/// [`fsa_vs_frozen_fd`] with the replays' tolerances `replay_tolerance` (rtol = atol) instead
/// of 1e-12: a replay's tolerances also set how far a state may be projected onto an index-2
/// mode's constraint at a switch (`1/√rtol` tolerance units), which a replay at 1e-12 of steps
/// chosen at a looser tolerance can exceed.
pub fn fsa_vs_frozen_fd_replayed_at<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    tab: &Tableau<S>,
    problem: &dyn Fn([f64; NP]) -> HybridProblem<'static, NY, NZ, NP>,
    p0: [f64; NP],
    (rtol, delta, replay_tolerance): (f64, f64, f64),
    label: &str,
) -> f64
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let n_samples = problem(p0).sample_times.len();
    let nominal = run(
        model,
        tab,
        &problem(p0),
        &HybridOptions::new(rtol, rtol * 1e-2),
        StepPlan::Adaptive,
        64,
        n_samples,
    );
    assert_eq!(nominal.result, Ok(()), "{label} {}", tab.name);
    let mut tight = HybridOptions::new(replay_tolerance, replay_tolerance);
    tight.integrator.jacobian_reuse_rate = 0.0;
    tight.integrator.max_newton_iterations = 20;
    let replay = |p: [f64; NP]| {
        run(
            model,
            tab,
            &problem(p),
            &tight,
            StepPlan::Replay(&nominal.steps),
            64,
            n_samples,
        )
    };
    let base = replay(p0);
    assert_eq!(base.result, Ok(()), "{label} {}", tab.name);
    assert_eq!(base.events.len(), nominal.events.len());
    let mut worst = 0.0_f64;
    let mut worst_what = "";
    for q in 0..NP {
        let d = delta * p0[q].abs().max(1.0);
        let (mut pp, mut pm) = (p0, p0);
        pp[q] += d;
        pm[q] -= d;
        let (rp, rm) = (replay(pp), replay(pm));
        assert_eq!(
            (rp.result, rm.result),
            (Ok(()), Ok(())),
            "{label} {}",
            tab.name
        );
        assert_eq!(rp.events.len(), base.events.len());
        assert_eq!(rm.events.len(), base.events.len());
        let fd = |a: f64, b: f64| (a - b) / (2.0 * d);
        let mut pairs: Vec<(&str, f64, f64)> = Vec::new();
        for i in 0..base.events.len() {
            pairs.push((
                "tau",
                base.events[i].tau[q],
                fd(rp.events[i].t, rm.events[i].t),
            ));
        }
        for k in 0..NY {
            pairs.push(("dy", base.sol.sy[k][q], fd(rp.sol.y[k], rm.sol.y[k])));
        }
        for k in 0..NZ {
            pairs.push(("dz", base.sol.sz[k][q], fd(rp.sol.z[k], rm.sol.z[k])));
        }
        for (j, smp) in base.samples.iter().enumerate() {
            for k in 0..NY {
                let v = fd(rp.samples[j].y[k], rm.samples[j].y[k]);
                pairs.push(("sample dy", smp.sy[k][q], v));
            }
            for k in 0..NZ {
                let v = fd(rp.samples[j].z[k], rm.samples[j].z[k]);
                pairs.push(("sample dz", smp.sz[k][q], v));
            }
        }
        pairs.push((
            "dG",
            base.sol.cost_gradient[q],
            fd(rp.sol.cost, rm.sol.cost),
        ));
        for (name, fsa, fdv) in pairs {
            let e = (fsa - fdv).abs() / fdv.abs().max(1.0);
            if e > worst {
                worst = e;
                worst_what = name;
            }
        }
    }
    println!(
        "{label} {} (rtol {rtol:.0e}, {} steps, {} events): FSA vs frozen FD worst {worst:.2e} ({worst_what})",
        tab.name,
        nominal.sol.stats.steps,
        nominal.events.len()
    );
    worst
}

// ---------------------------------------------------------------------------------------------
// Dual numbers.
// ---------------------------------------------------------------------------------------------

/// Forward-mode dual number with 4 derivative components (exact derivatives of the closed
/// form; independent of the code under test).
#[derive(Clone, Copy, Debug)]
pub struct D4 {
    pub v: f64,
    pub d: [f64; 4],
}

impl D4 {
    pub fn c(v: f64) -> Self {
        D4 { v, d: [0.0; 4] }
    }
    pub fn var(v: f64, i: usize) -> Self {
        let mut d = [0.0; 4];
        d[i] = 1.0;
        D4 { v, d }
    }
    pub fn map(self, o: D4, v: f64, da: f64, db: f64) -> Self {
        let mut d = [0.0; 4];
        for i in 0..4 {
            d[i] = da * self.d[i] + db * o.d[i];
        }
        D4 { v, d }
    }
    pub fn add(self, o: D4) -> Self {
        self.map(o, self.v + o.v, 1.0, 1.0)
    }
    pub fn sub(self, o: D4) -> Self {
        self.map(o, self.v - o.v, 1.0, -1.0)
    }
    pub fn mul(self, o: D4) -> Self {
        self.map(o, self.v * o.v, o.v, self.v)
    }
    pub fn div(self, o: D4) -> Self {
        self.map(o, self.v / o.v, 1.0 / o.v, -self.v / (o.v * o.v))
    }
    pub fn sqrt(self) -> Self {
        let r = libm::sqrt(self.v);
        self.map(D4::c(0.0), r, 0.5 / r, 0.0)
    }
    pub fn ln(self) -> Self {
        self.map(D4::c(0.0), libm::log(self.v), 1.0 / self.v, 0.0)
    }
}

// ---------------------------------------------------------------------------------------------
// ESDIRK tests.
// ---------------------------------------------------------------------------------------------

/// An observer that ignores the accepted steps.
pub fn no_obs<const S: usize, const NY: usize, const NZ: usize>(_: &StepRecord<'_, S, NY, NZ>) {}

/// max_i |a_i − b_i|.
pub fn max_abs_diff<const K: usize>(a: &[f64; K], b: &[f64; K]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
}

/// max_i |a_i − b_i|/|b_i|.
pub fn max_rel_diff<const K: usize>(a: &[f64; K], b: &[f64; K]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max(((x - y) / y).abs()))
}

/// Fixed-step options: tight tolerances so that the Newton error (≤ newton_tol·1e-12) is far
/// below the discretization errors measured (≥ 1e-10 at the finest grids used), and a fresh
/// Jacobian every step.
pub fn fixed_opts<const NY: usize, const NZ: usize>() -> Options<NY, NZ> {
    let mut o = Options::new(1e-12, 1e-12);
    o.jacobian_reuse_rate = 0.0;
    o.max_newton_iterations = 20;
    o
}

/// Errors formatted in scientific notation for printing.
pub fn sci(v: &[f64]) -> Vec<String> {
    v.iter().map(|e| format!("{e:.3e}")).collect()
}

/// Observed orders log2(e_N / e_2N) of a fixed-step sequence of errors.
pub fn observed_orders(errs: &[f64]) -> Vec<f64> {
    errs.windows(2).map(|w| libm::log2(w[0] / w[1])).collect()
}
