//! The 100-reaction chain of the gradient benchmark (`chain100` of `benches/models/chains.rs`:
//! 101 states, 100 rates, a dosing event) against its closed form, and its forward
//! sensitivities against central differences of the same discrete solve.
//!
//! The first species decays on its own, `a_0(t) = a_0(0) e^{−k_0 t}`, until the dose adds
//! `DOSE = 1` to it at the event time `t_e`. The runtime keeps everything on the stack, and a
//! 101 × 100 sensitivity problem needs far more than a test thread's 2 MiB (about 20–45 MiB in
//! a debug build, `hysens::runtime::stack_estimate`). The builder's solves and gradients and
//! the batches grow the stack themselves, so they run on the test thread, on a thread of
//! 256 KiB and on rayon's pool as they are; the no-heap core calls do not, so their test runs
//! on a thread sized by `Model::STACK_ESTIMATE`. The FSA solve is the expensive part in debug
//! builds (100 columns, ~0.1 s per step), so it is done once, at the benchmark's tolerances,
//! on a short horizon.
#![deny(missing_docs)]

use hysens::prelude::*;
use hysens::runtime::{
    EventRecord, HybridOptions, HybridOutputs, HybridSolution, LoggedStep, StepPlan, ESDIRK436L2SA,
};

use crate::threads;
use threads::with_stack;

#[path = "../benches/models/chains.rs"]
mod chain;
use chain::chain100;

#[test]
fn tables() {
    type M = chain100::Model;
    assert_eq!((M::NY, M::NZ, M::NP), (101, 0, 100));
    assert_eq!(<M as HybridModel<101, 0, 100>>::GUARDS.len(), 1);
    assert_eq!(chain100::X::NAMES[100], "a100");
    assert_eq!(chain100::P::NAMES[99], "k99");
    // The rates span four decades, fast and slow interleaved.
    let k = chain::rates::<chain100::P, _>().to_array();
    assert_eq!((k[0], k[1].round(), k[99].round()), (1.0, 31.0, 351.0));
    let (min, max) = k
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), &k| (a.min(k), b.max(k)));
    assert_eq!((min, max), (1.0, 1e4));
}

/// Without the event (on `[0, 1]` the end product stays below 1e-20, far from the threshold
/// 0.5): `a_0` and `a_1` against the closed form, at tight tolerances (a plain solve is cheap).
/// On the test thread's own stack: the builder grows it.
#[test]
fn first_species_closed_form() {
    let p: chain100::P = chain::rates();
    let (k0, k1) = (p.k0, p.k1);
    let solution = chain100::Model
        .solver()
        .tolerances(1e-10, 1e-14)
        .samples(&[0.25, 0.5])
        .solve(0.0, 1.0, &chain::initial_state(), &p)
        .expect("the chain solves");
    assert!(solution.events.is_empty());
    assert!(solution.x.a100 < 1e-20);
    let states = solution
        .samples
        .iter()
        .map(|s| (s.t, s.x.a0, s.x.a1))
        .chain([(1.0, solution.x.a0, solution.x.a1)]);
    for (t, a0, a1) in states {
        let a1_exact = k0 / (k1 - k0) * ((-k0 * t).exp() - (-k1 * t).exp());
        // rtol 1e-10: the global error of a0, a1 (both O(0.1–1)) stays below ~1e-12 here;
        // 1e-10 leaves a wide margin.
        assert!((a0 - (-k0 * t).exp()).abs() < 1e-10, "a0({t}) = {a0}");
        assert!((a1 - a1_exact).abs() < 1e-10, "a1({t}) = {a1}");
    }
    // Mass is conserved (the scheme preserves linear invariants up to round-off).
    assert!((solution.y.iter().sum::<f64>() - 1.0).abs() < 1e-13);
}

/// The FSA gradient across the dose: from `a_0 = 1, a_99 = 1, a_100 = 0.4`, `a_99` decays into
/// `a_100`, which reaches 0.5 at `t_e = ln(10/9)/k_99` (≈ 3e-4), where `a_0` gets the dose:
/// `a_0(T) = e^{−k_0 T} + e^{−k_0 (T − t_e)}`. Checked: the event time and `dt_e/dk_99`,
/// `∂a_0/∂k_0` (`−t a_0` of the closed form, summed over both doses) and `∂a_0/∂k_99` (through the
/// event time) against the closed form; every column's total mass is constant; and the
/// columns of `k_0`, `k_1`, `k_99` against central differences of replays of the same step
/// sequence. The core calls (`solve_with_sensitivities`, `solve_with`) run on the caller's
/// stack: a thread sized by the model's estimate, and 1 MiB for this test's own frames (its
/// solutions and problems, copied in a debug build).
#[test]
fn sensitivities_across_the_dose() {
    const T: f64 = 0.5;
    with_stack(chain100::Model::STACK_ESTIMATE + (1 << 20), || {
        let p: chain100::P = chain::rates();
        let mut x0 = [0.0; 101];
        (x0[0], x0[99], x0[100]) = (1.0, 1.0, 0.4);
        let x0 = chain100::X::from_array(x0);
        let problem = chain100::Model::problem(0.0, T, &x0, &p);
        // The benchmark's tolerances: the FSA solve is the slow part of a debug build.
        let options = HybridOptions::new(1e-6, 1e-9);

        let mut steps = vec![LoggedStep::ZERO; 10_000];
        let mut events = [EventRecord::ZERO; 4];
        let mut fsa = HybridSolution::ZERO;
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: Some(&mut events),
            steps: Some(&mut steps),
            dense: None,
        };
        chain100::Model
            .solve_with_sensitivities(&problem, &options, &mut outputs, &mut fsa)
            .expect("the chain solves");
        let steps = &steps[..fsa.n_logged_steps];
        assert_eq!(fsa.n_events, 1);
        let event = &events[0];

        let (k0, k99) = (p.k0, p.k99);
        let t_e = (10.0f64 / 9.0).ln() / k99;
        let (first, second) = ((-k0 * T).exp(), (-k0 * (T - t_e)).exp());
        // The event is located on the discrete solution (error ~rtol relative) to the
        // location tolerance (~3e-11 observed); 1e-9 absolute on t_e ≈ 3e-4 is ~3e-6 relative.
        assert!((event.t - t_e).abs() < 1e-9, "t_e = {}", event.t);
        let dte_dk99 = -t_e / k99;
        // τ is the derivative of the discrete root: ~1e-7 relative at rtol 1e-6.
        assert!(
            (event.tau[99] / dte_dk99 - 1.0).abs() < 1e-5,
            "{:?}",
            event.tau[99]
        );
        // k0 reaches a100 only through the whole chain: negligible by t_e.
        assert!(event.tau[0].abs() < 1e-15);
        // Global errors at rtol 1e-6, atol 1e-9 are ~1e-8 on a0 and its k0 column (values
        // O(1), ≤ 5e-8 observed); 1e-6 is the tolerance the solve was asked for.
        assert!((fsa.y[0] - (first + second)).abs() < 1e-6);
        let da0_dk0 = -T * first - (T - t_e) * second;
        assert!((fsa.sy[0][0] - da0_dk0).abs() < 1e-6, "{}", fsa.sy[0][0]);
        // ≈ −3e-7, all through dt_e/dk99: checked relative, as τ above.
        let da0_dk99 = k0 * second * dte_dk99;
        assert!(
            (fsa.sy[0][99] / da0_dk99 - 1.0).abs() < 1e-5,
            "{}",
            fsa.sy[0][99]
        );
        // Total mass 1 + 1 + 0.4 + DOSE whatever the rates: every column sums to zero. The
        // scheme preserves linear invariants, so only round-off remains (~1e-15 observed).
        assert!((fsa.y.iter().sum::<f64>() - 3.4).abs() < 1e-13);
        for j in 0..100 {
            let column: f64 = fsa.sy.iter().map(|row| row[j]).sum();
            assert!(column.abs() < 1e-13, "column {j} sums to {column}");
        }

        // Central differences of the same discrete solve: replays of the step log with
        // p ± h e_j. FSA is the exact derivative of this frozen map, so they agree to the
        // differencing error, whatever the solver tolerance: truncation O(h²) and round-off
        // O(ε/h) with h = 1e-5 k_j, ~1e-10 on these O(1) values (≤ 6e-11 observed); the
        // bound is 1e-8.
        let replay = |p: [f64; 100]| {
            let problem = hysens::runtime::HybridProblem { p, ..problem };
            let mut solution = HybridSolution::ZERO;
            let mut outputs = HybridOutputs {
                samples: &mut [],
                events: None,
                steps: None,
                dense: None,
            };
            chain100::Model
                .solve_with(
                    &ESDIRK436L2SA,
                    &problem,
                    &options,
                    StepPlan::Replay(steps),
                    &mut outputs,
                    &mut solution,
                )
                .expect("the replay solves");
            solution.y
        };
        for j in [0, 1, 99] {
            let h = 1e-5 * problem.p[j];
            let (mut plus, mut minus) = (problem.p, problem.p);
            plus[j] += h;
            minus[j] -= h;
            let (y_plus, y_minus) = (replay(plus), replay(minus));
            let worst = (0..101)
                .map(|i| ((y_plus[i] - y_minus[i]) / (2.0 * h) - fsa.sy[i][j]).abs())
                .fold(0.0, f64::max);
            assert!(worst < 1e-8, "column {j}: worst difference {worst:e}");
        }
    });
}

/// The state where the dose fires early (`t_e` ≈ 3e-4), with `a_100(0)` as given.
fn dosing_start(a100: f64) -> chain100::X {
    let mut x0 = [0.0; 101];
    (x0[0], x0[99], x0[100]) = (1.0, 1.0, a100);
    chain100::X::from_array(x0)
}

/// The builder on a thread of 256 KiB, a small fraction of what the chain needs: forward
/// sensitivities to all 100 rates and 101 initial states (201 columns) and the adjoint
/// gradient, across the dose; the two are derivatives of the same discrete solve, so they
/// agree to round-off.
#[test]
fn builder_on_a_small_thread() {
    const T: f64 = 2e-3;
    with_stack(256 << 10, || {
        let (x0, p) = (dosing_start(0.4), chain::rates());
        let solver = chain100::Model.solver().tolerances(1e-6, 1e-9);
        let fsa = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, T, &x0, &p)
            .expect("the chain solves");
        assert_eq!(fsa.events.len(), 1);
        let asa = solver.gradient(0.0, T, &x0, &p).expect("the chain solves");
        assert_eq!(asa.cost.to_bits(), fsa.cost.to_bits());
        let wrt = chain100::P::NAMES
            .iter()
            .map(|&k| (Wrt::from(k), asa.wrt(k)))
            .chain(chain100::X::NAMES.iter().map(|&a| {
                let wrt = Wrt::InitialState(a);
                (wrt, asa.wrt(wrt))
            }));
        for (wrt, asa) in wrt {
            let (asa, fsa) = (
                asa.expect("a name"),
                fsa.cost_gradient(wrt).expect("chosen"),
            );
            // Round-off of the two orders of summation: ~1e-15 relative observed.
            assert!(
                (asa - fsa).abs() <= 1e-12 * fsa.abs().max(1.0),
                "dG/d{wrt:?}: ASA {asa:e}, FSA {fsa:e}"
            );
        }
        // The dose is felt: a_99(0) moves the event, a_0(0) does not reach a_100 by T.
        assert!(fsa.cost_gradient(Wrt::InitialState("a99")).expect("chosen") > 0.0);
    });
}

/// Batches of the chain on rayon's global pool (worker threads with the default 2 MiB stack):
/// solves, gradients and solves into caller storage, each item equal to the sequential call
/// to the bit.
#[test]
fn batches_on_rayons_default_pool() {
    const T: f64 = 2e-3;
    let items: Vec<_> = [0.4, 0.3, 0.45, 0.2]
        .into_iter()
        .map(|a100| (dosing_start(a100), chain::rates()))
        .collect();
    let solver = chain100::Model.solver().tolerances(1e-6, 1e-9);

    let solutions = solver.solve_batch(0.0, T, &items);
    let gradients = solver.gradient_batch(0.0, T, &items);
    let mut slots: Vec<_> = items
        .iter()
        .map(|_| hysens::batch::Slot::summary())
        .collect();
    solver
        .solve_batch_into(0.0, T, &items, &mut slots)
        .expect("a slot per item");
    for (k, (x0, p)) in items.iter().enumerate() {
        let solution = solutions[k].as_ref().expect("the chain solves");
        let sequential = solver.solve(0.0, T, x0, p).expect("the chain solves");
        assert_eq!(solution.y.map(f64::to_bits), sequential.y.map(f64::to_bits));
        assert_eq!(slots[k].result, Ok(()));
        assert_eq!(
            slots[k].solution.y.map(f64::to_bits),
            sequential.y.map(f64::to_bits)
        );
        let gradient = gradients[k].as_ref().expect("the chain solves");
        let sequential = solver.gradient(0.0, T, x0, p).expect("the chain solves");
        assert_eq!(
            gradient.params.map(f64::to_bits),
            sequential.params.map(f64::to_bits)
        );
        assert_eq!(
            gradient.initial_states.map(f64::to_bits),
            sequential.initial_states.map(f64::to_bits)
        );
    }
    // Across the dose: a_99 = 1 decays into a_100 (k_99 ≈ 351) and adds ~0.5 by T.
    assert_eq!(solutions[0].as_ref().expect("solved").events.len(), 1);
}
