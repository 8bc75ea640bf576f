//! The discrete adjoint against the forward sensitivities of the same solve, shared by
//! `tests/adjoint.rs` (event-free models), `tests/adjoint_events.rs`, `tests/cost_error_test.rs`
//! and `tests/adjoint_memory.rs` (which seeds its problems itself, [`compare_seeded`]): both sides are derivatives of the same discrete solution with
//! the step sequence frozen, so they agree to round-off (`close`: relative, with 1e-13 absolute
//! for entries near zero). Every comparison also recomputes the adjoint from checkpoints at
//! several window lengths, which must give the full tape's gradient bit for bit
//! (`checkpointed_equals_full`).
#![allow(dead_code)] // each test binary uses a subset

use hysens::runtime::{
    solve, solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape, Checkpoint, Fields,
    HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution, InitialStates,
    ModelSizes, ModelTypes, Params, Sample, Solver, Tableau, TapeStep, ESDIRK23, ESDIRK34,
    ESDIRK436L2SA,
};

/// `|a − b| ≤ rtol max(|a|, |b|) + 1e-13` (module docs); returns the relative difference.
pub fn close(what: &str, a: f64, b: f64, rtol: f64) -> f64 {
    let diff = (a - b).abs();
    assert!(
        diff <= rtol * a.abs().max(b.abs()) + 1e-13,
        "{what}: adjoint {a:e} vs forward {b:e}"
    );
    diff / a.abs().max(b.abs()).max(1e-300)
}

/// Outputs that record the samples only (no event or step log).
pub fn samples_only<const NY: usize, const NZ: usize, const NP: usize>(
    samples: &mut [Sample<NY, NZ, NP>],
) -> HybridOutputs<'_, NY, NZ, NP> {
    HybridOutputs {
        samples,
        events: None,
        steps: None,
        dense: None,
    }
}

/// `problem` with an arbitrary seed `∂y0/∂p` (`0.1 (i + 1) − 0.07 q`): `y0` then depends on
/// `p` through it, which the seeded comparison of [`compare_seeded`] exercises.
pub fn with_arbitrary_seed<'a, const NY: usize, const NZ: usize, const NP: usize>(
    problem: &HybridProblem<'a, NY, NZ, NP>,
) -> HybridProblem<'a, NY, NZ, NP> {
    let mut seeds = [[0.0; NP]; NY];
    for (i, row) in seeds.iter_mut().enumerate() {
        for (q, s) in row.iter_mut().enumerate() {
            *s = 0.1 * (i as f64 + 1.0) - 0.07 * q as f64;
        }
    }
    let mut seeded = *problem;
    seeded.sensitivities = Some(seeds);
    seeded
}

/// `problem` without sensitivities.
pub fn unseeded<'a, const NY: usize, const NZ: usize, const NP: usize>(
    problem: &HybridProblem<'a, NY, NZ, NP>,
) -> HybridProblem<'a, NY, NZ, NP> {
    let mut unseeded = *problem;
    unseeded.sensitivities = None;
    unseeded
}

/// One comparison, to `rtol` relative, with an arbitrary seed `∂y0/∂p`
/// ([`with_arbitrary_seed`]) for `dG/dp` and then `problem` as it is for the builder's
/// columns: returns the largest relative difference over `dG/dp` and `dG/dy0`. `events`: the
/// solve must meet events, and every one is transposed.
#[allow(clippy::too_many_arguments)]
pub fn compare<
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
    events: bool,
) -> f64
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let seeded = with_arbitrary_seed(problem);
    let runs = Problems {
        seeded: &seeded,
        unseeded: problem,
    };
    compare_seeded(name, model, tableau, runs, options, rtol, events).0
}

/// The two problems of a comparison: `seeded` carries the seed `∂y0/∂p` of the first
/// comparison (`dG/dp` of the adjoint against the forward sensitivities of the same solve);
/// `unseeded` is solved for the second (`dG/dp` and `dG/dy0` against the builder's parameter
/// and initial-state columns).
#[derive(Clone, Copy)]
pub struct Problems<'p, 'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// With the seed `∂y0/∂p`.
    pub seeded: &'p HybridProblem<'a, NY, NZ, NP>,
    /// For the builder's columns.
    pub unseeded: &'p HybridProblem<'a, NY, NZ, NP>,
}

/// One comparison on `problems`, to `rtol` relative: the adjoint of `problems.seeded` against
/// its forward sensitivities (and against itself from checkpoints,
/// [`checkpointed_equals_full`]), then the adjoint of `problems.unseeded` against the builder's
/// `dG/dp` and `dG/dy0` columns. Returns the largest relative difference and the samples of
/// the second adjoint solve. `events`: the solve must meet events, and every one is
/// transposed.
#[allow(clippy::too_many_arguments)]
pub fn compare_seeded<
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
    problems: Problems<'_, '_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    rtol: f64,
    events: bool,
) -> (f64, Vec<Sample<NY, NZ, NP>>)
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let Problems { seeded, unseeded } = problems;
    let name = format!("{name} {}", tableau.name);
    let n = seeded.sample_times.len();
    let mut tape = vec![TapeStep::ZERO; 20_000];
    let mut samples = vec![Sample::ZERO; n];
    let mut asa = HybridSolution::ZERO;
    let mut grad = AdjointGradient::ZERO;
    let run = HybridRun::new(model, tableau, seeded, options);
    solve_adjoint(
        &run,
        AdjointTape::full(&mut tape),
        &mut samples_only(&mut samples),
        &mut asa,
        &mut grad,
    )
    .unwrap();
    assert_eq!(grad.tape_len, asa.stats.steps);
    assert_eq!(grad.stats.steps, asa.stats.steps);
    checkpointed_equals_full(&name, &run, &grad);
    // The forward sensitivities of the same solve, with the same seed.
    let mut fsa = HybridSolution::ZERO;
    solve(&run, &mut samples_only(&mut samples), &mut fsa).unwrap();
    assert_eq!(fsa.stats.steps, asa.stats.steps, "{name}: the same steps");
    assert_eq!(fsa.cost, asa.cost, "{name}: the same solve");
    let mut worst: f64 = 0.0;
    for q in 0..NP {
        let what = format!("{name} dG/dp[{q}] (seeded)");
        worst = worst.max(close(&what, grad.p[q], fsa.cost_gradient[q], rtol));
    }
    // Parameters and initial states by the builder: p and y0 columns, no seed.
    let mut all_samples = vec![Sample::ZERO; n];
    let mut all = HybridSolution::<NY, NZ, NS>::ZERO;
    Solver::new(model)
        .tableau(tableau)
        .options(*options)
        .sensitivities_to(Params::All, InitialStates::All)
        .samples(unseeded.sample_times)
        .data(unseeded.sample_data)
        .algebraic_guess(&Fields::from_array(unseeded.z0))
        .solve_into(
            unseeded.t0,
            unseeded.tf,
            &Fields::from_array(unseeded.y0),
            &Fields::from_array(unseeded.p),
            &mut samples_only(&mut all_samples),
            &mut all,
        )
        .unwrap();
    let mut samples = vec![Sample::ZERO; n];
    let mut grad = AdjointGradient::ZERO;
    solve_adjoint(
        &HybridRun::new(model, tableau, unseeded, options),
        AdjointTape::full(&mut tape),
        &mut samples_only(&mut samples),
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
    if events {
        assert!(asa.n_events > 0, "{name}: the solve meets events");
        assert_eq!(
            grad.stats.events, asa.n_events,
            "{name}: every event transposed"
        );
    }
    println!(
        "{name}: {} steps, {} events, largest relative difference {worst:.1e}; backward pass {:?}",
        asa.stats.steps, asa.n_events, grad.stats
    );
    (worst, samples)
}

/// The adjoint of `problem` from checkpoints, with windows of 1, 2, 3, 7 and 64 steps, equals
/// `full` (the full tape's gradient of the same solve) bit for bit: the solve resumed from a
/// checkpoint repeats the original steps exactly (the issue asks for 1e-13 relative; nothing
/// but an exact replay meets 0). Checks the steps recomputed: all but the last window.
pub fn checkpointed_equals_full<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    name: &str,
    run: &HybridRun<'_, M, S, NY, NZ, NP>,
    full: &AdjointGradient<NY, NP>,
) where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let n = full.tape_len;
    for window in [1, 2, 3, 7, 64] {
        let mut steps = vec![TapeStep::ZERO; window];
        let mut checkpoints =
            vec![Checkpoint::ZERO; AdjointTape::<S, NY, NZ>::checkpoints_needed(n, window)];
        let mut samples = vec![Sample::ZERO; run.problem.sample_times.len()];
        let mut solution = HybridSolution::ZERO;
        let mut grad = AdjointGradient::ZERO;
        solve_adjoint(
            run,
            AdjointTape::checkpointed(&mut steps, &mut checkpoints),
            &mut samples_only(&mut samples),
            &mut solution,
            &mut grad,
        )
        .unwrap_or_else(|e| panic!("{name}, window {window}: {e}"));
        assert_eq!(
            (grad.p, grad.y0),
            (full.p, full.y0),
            "{name}, window {window}: checkpointed vs full tape"
        );
        let last_window = n - (checkpoints.len() - 1) * window;
        assert_eq!(
            grad.stats.recomputed_steps,
            n - last_window,
            "{name}, window {window}"
        );
        assert_eq!(grad.stats.steps, n, "{name}, window {window}");
    }
}

/// `compare` for every tableau, to 1e-10 relative; returns the largest relative difference.
pub fn every_tableau<
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
    options: &HybridOptions<NY, NZ>,
    events: bool,
) -> f64
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let seeded = with_arbitrary_seed(problem);
    let problems = Problems {
        seeded: &seeded,
        unseeded: problem,
    };
    every_tableau_seeded(name, model, problems, options, events).0
}

/// [`compare_seeded`] for every tableau, to 1e-10 relative; returns the largest relative
/// difference and the samples of each tableau's second adjoint solve (ESDIRK2(3), ESDIRK3(4),
/// ESDIRK4(3)6L[2]SA).
pub fn every_tableau_seeded<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    name: &str,
    model: &M,
    problems: Problems<'_, '_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    events: bool,
) -> (f64, [Vec<Sample<NY, NZ, NP>>; 3])
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let (a, sa) = compare_seeded(name, model, &ESDIRK23, problems, options, 1e-10, events);
    let (b, sb) = compare_seeded(name, model, &ESDIRK34, problems, options, 1e-10, events);
    let (c, sc) = compare_seeded(
        name,
        model,
        &ESDIRK436L2SA,
        problems,
        options,
        1e-10,
        events,
    );
    (a.max(b).max(c), [sa, sb, sc])
}
