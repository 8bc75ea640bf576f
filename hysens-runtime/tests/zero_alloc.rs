//! A whole hybrid solve with sensitivities allocates nothing on the heap: Serban & Recuero's
//! Example 5.1 with all three cost kinds (adaptive, then replaying its step log) and the
//! bouncing ball, both from `support/fixtures.rs`.
//!
//! The counting allocator of `support/counting_alloc.rs` counts this thread's allocations; the
//! solves use stack storage for samples, events and steps.
#![allow(missing_docs)]

use hysens_runtime::{
    solve, EventRecord, HybridOptions, HybridOutputs, HybridProblem, HybridSolution, LoggedStep,
    Sample, StepPlan, ESDIRK34, ESDIRK436L2SA,
};

mod support;
use support::fixtures::{ball_problem, Ball, Ex51};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::count;

#[test]
fn ex51_solve_with_sensitivities_does_not_allocate() {
    let model = Ex51::ALL_COSTS;
    let times = [0.1, 0.25, 0.5, 1.0, 2.0];
    let data = [0.4, 1.0, 1.8, 2.7, 4.5];
    let problem = HybridProblem {
        t0: 0.0,
        tf: 5.0,
        y0: [0.0],
        z0: [],
        p: [2.9],
        sensitivities: Some([[0.0]]),
        sample_times: &times,
        sample_data: &data,
    };
    let opts = HybridOptions::new(1e-8, 1e-10);
    let mut samples = [Sample::<1, 0, 1>::ZERO; 5];
    let mut events = [EventRecord::<1>::ZERO; 8];
    let mut steps = [LoggedStep::ZERO; 2048];
    let mut sol = HybridSolution::ZERO;
    let (r, n) = count(|| {
        let mut out = HybridOutputs {
            samples: &mut samples,
            events: Some(&mut events),
            steps: Some(&mut steps),
        };
        solve(
            &model,
            &ESDIRK436L2SA,
            &problem,
            &opts,
            StepPlan::Adaptive,
            &mut out,
            &mut sol,
        )
    });
    assert_eq!(r, Ok(()));
    assert_eq!(sol.n_events, 3);
    assert_eq!(sol.n_samples, 5);
    // Replaying the step log allocates nothing either.
    let logged = sol.n_logged_steps;
    let plan = steps;
    let (r2, n2) = count(|| {
        let mut out = HybridOutputs {
            samples: &mut samples,
            events: None,
            steps: None,
        };
        solve(
            &model,
            &ESDIRK436L2SA,
            &problem,
            &opts,
            StepPlan::Replay(&plan[..logged]),
            &mut out,
            &mut sol,
        )
    });
    assert_eq!(r2, Ok(()));
    assert_eq!((n, n2), (0, 0), "heap allocations during the solves");
}

#[test]
fn ball_solve_with_sensitivities_does_not_allocate() {
    let p = [5.0, -0.1, 10.0, 0.8];
    let problem = ball_problem(p, 4.5);
    let opts = HybridOptions::new(1e-8, 1e-10);
    let mut events = [EventRecord::<4>::ZERO; 8];
    let mut sol = HybridSolution::ZERO;
    let (r, n) = count(|| {
        let mut out = HybridOutputs {
            samples: &mut [],
            events: Some(&mut events),
            steps: None,
        };
        solve(
            &Ball,
            &ESDIRK34,
            &problem,
            &opts,
            StepPlan::Adaptive,
            &mut out,
            &mut sol,
        )
    });
    assert_eq!(r, Ok(()));
    assert_eq!(sol.n_events, 3);
    assert_eq!(n, 0, "heap allocations during the solve");
    // The counter works: an allocation inside `count` is seen.
    let (_, m) = count(|| std::hint::black_box(Box::new(1u64)));
    assert!(m >= 1);
}
