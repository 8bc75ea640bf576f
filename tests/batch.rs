//! Parallel batches (feature `rayon`, `hysens::batch`) give, result for result, the sequential
//! solves: the same final states, sensitivities, costs, events and samples to the bit, in
//! input order, with a failing item (a NaN parameter) returned as its own error while the
//! others succeed. Serban & Recuero's Example 5.1 (a multistart over `x0` and a sweep of `p`)
//! and the bouncing ball (a sweep of `h0`, `v0`, `g`, `e`), through all three batch methods.
//!
//! The batches run in a pool of three threads of their own, so items are solved on several
//! threads even on a one-core machine.
#![deny(missing_docs)]

use hysens::batch::{Slot, TooFewSlots};
use hysens::prelude::*;
use hysens::runtime::{EventRecord, HybridOutputs, HybridSolution, Sample};

use crate::event_models;
use crate::models;
use event_models::ball;
use models::ex51;

/// The batches' own pool.
fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .expect("a pool of three threads")
}

/// `a` and `b` are the same bits.
fn same_bits(what: &str, a: f64, b: f64) {
    assert_eq!(a.to_bits(), b.to_bits(), "{what}: {a:e} (batch) vs {b:e}");
}

/// Every number of an owned solution as bits, labelled, and every other field as a label:
/// the final state, the sensitivities to every direction in `wrt`, the cost and its gradient,
/// the events with their time sensitivities, the samples, the statistics.
fn record<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize>(
    s: &Solution<X, NY, NZ, NP>,
    wrt: &[Wrt<'_>],
) -> Vec<(String, u64)> {
    let mut r = Vec::new();
    let mut bits = |label: String, values: &[f64]| {
        for (i, v) in values.iter().enumerate() {
            r.push((format!("{label}[{i}]"), v.to_bits()));
        }
    };
    bits(format!("t, mode {}", s.mode), &[s.t]);
    bits("y (and x)".into(), &s.y);
    bits("x".into(), &s.x.to_array());
    bits("z".into(), &s.z);
    bits("G".into(), &[s.cost]);
    for &w in wrt {
        let dy = s.state_sensitivity(w).map(|d| d.to_array());
        bits(format!("dy/d{w:?}"), &dy.expect("a chosen direction"));
        bits(format!("dG/d{w:?}"), &[s.cost_gradient(w).expect("chosen")]);
    }
    for (k, e) in s.events.iter().enumerate() {
        bits(
            format!("event {k} {} {} -> {}", e.guard, e.from, e.to),
            &[e.t],
        );
        bits(format!("event {k} dt"), &e.dt);
    }
    for (k, sample) in s.samples.iter().enumerate() {
        bits(format!("sample {k}, mode {}", sample.mode), &[sample.t]);
        bits(format!("sample {k} y"), &sample.y);
        bits(format!("sample {k} x"), &sample.x.to_array());
        bits(format!("sample {k} z"), &sample.z);
        for (j, (dy, dz)) in sample.dy.iter().zip(&sample.dz).enumerate() {
            bits(format!("sample {k} dy/dθ{j}"), dy);
            bits(format!("sample {k} dz/dθ{j}"), dz);
        }
    }
    let stats = format!("{:?}, directions {:?}", s.stats, s.directions());
    r.push((stats, 0));
    r
}

/// Two records are the same, entry by entry.
fn same_record(k: usize, a: &[(String, u64)], b: &[(String, u64)]) {
    assert_eq!(a.len(), b.len(), "item {k}: the number of entries");
    for ((la, va), (lb, vb)) in a.iter().zip(b) {
        assert_eq!(la, lb, "item {k}");
        assert_eq!(
            va,
            vb,
            "item {k}, {la}: {:e} (batch) vs {:e}",
            f64::from_bits(*va),
            f64::from_bits(*vb)
        );
    }
}

/// An owned batch result equals the sequential one, bit for bit ([`record`]); a failure in
/// its error, its mode and its partial solution.
fn same_solution<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize>(
    k: usize,
    batch: &Result<Solution<X, NY, NZ, NP>, SolveFailure<X, NY, NZ, NP>>,
    sequential: &Result<Solution<X, NY, NZ, NP>, SolveFailure<X, NY, NZ, NP>>,
    wrt: &[Wrt<'_>],
) {
    match (batch, sequential) {
        (Ok(a), Ok(b)) => same_record(k, &record(a, wrt), &record(b, wrt)),
        (Err(a), Err(b)) => {
            assert_eq!(
                format!("{:?}", a.error),
                format!("{:?}", b.error),
                "item {k}"
            );
            assert_eq!(a.mode, b.mode, "item {k}");
            same_record(k, &record(&a.partial, wrt), &record(&b.partial, wrt));
        }
        _ => panic!(
            "item {k}: the batch gives {:?}, the sequential solve {:?}",
            batch.as_ref().map(|s| s.t).map_err(|f| f.error),
            sequential.as_ref().map(|s| s.t).map_err(|f| f.error),
        ),
    }
}

/// Caller-storage results are the same: summary and outputs compared by `Debug` (every field,
/// floats written to round-trip, NaN included) and bit for bit in the states,
/// sensitivities, cost and cost gradient.
fn same_summary<const NY: usize, const NZ: usize, const NS: usize>(
    k: usize,
    (a, ra): (&HybridSolution<NY, NZ, NS>, &Result<(), SolveError>),
    (b, rb): (&HybridSolution<NY, NZ, NS>, &Result<(), SolveError>),
) {
    assert_eq!(format!("{ra:?}"), format!("{rb:?}"), "item {k}: result");
    for (i, (&ya, &yb)) in a.y.iter().zip(&b.y).enumerate() {
        same_bits(&format!("item {k}: y[{i}]"), ya, yb);
        for (j, (&sa, &sb)) in a.sy[i].iter().zip(&b.sy[i]).enumerate() {
            same_bits(&format!("item {k}: dy[{i}]/dθ[{j}]"), sa, sb);
        }
    }
    same_bits(&format!("item {k}: G"), a.cost, b.cost);
    for (j, (&ga, &gb)) in a.cost_gradient.iter().zip(&b.cost_gradient).enumerate() {
        same_bits(&format!("item {k}: dG/dθ[{j}]"), ga, gb);
    }
    assert_eq!(format!("{a:?}"), format!("{b:?}"), "item {k}: summary");
}

/// Ex. 5.1 items: a multistart over `x0` (0 starts in mode A; 1.5 in A or B by `p`) times a
/// sweep of `p`, with a NaN `p` in the middle.
fn ex51_items() -> Vec<(ex51::X, ex51::P)> {
    let mut items = Vec::new();
    for x in [0.0, 0.5, 1.5] {
        for p in [2.0, 2.5, 2.8, 2.9, 3.0, 3.2] {
            items.push((ex51::X { x }, ex51::P { p }));
        }
    }
    items.insert(7, (ex51::X { x: 0.0 }, ex51::P { p: f64::NAN }));
    items
}

/// Ball items: a sweep of the initial state, gravity and restitution, with two that fail: a
/// NaN restitution at index 5 (an invalid parameter, refused at `t0`) and, last, a ball whose
/// bounces accumulate at `t ≈ 1.35 < 2` (Zeno behaviour, reported after many events).
fn ball_items() -> Vec<(ball::X, ball::P)> {
    let mut items = Vec::new();
    for (h, v) in [(1.0, 0.0), (2.0, 0.4)] {
        for g in [9.81, 5.0] {
            for e in [0.7, 0.8, 0.9] {
                items.push((ball::X { h, v }, ball::P { g, e }));
            }
        }
    }
    let nan = ball::P {
        g: 9.81,
        e: f64::NAN,
    };
    items.insert(5, (ball::X { h: 1.0, v: 0.0 }, nan));
    items.push((ball::X { h: 1.0, v: 0.0 }, ball::P { g: 9.81, e: 0.5 }));
    items
}

/// Whether a ball item is one of the two that fail.
fn ball_fails(p: &ball::P) -> bool {
    p.e.is_nan() || p.e == 0.5
}

/// A generated solver is shareable by the batch: `Copy`, `Send` and `Sync`.
#[test]
fn a_solver_is_shareable() {
    fn shareable<T: Copy + Send + Sync>(_: &T) {}
    shareable(&ex51::Model.solver());
    shareable(&ball::Model.solver().samples(&[1.0]));
}

#[test]
fn ex51_batch_equals_sequential_solves() {
    let solver = ex51::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All);
    let items = ex51_items();
    let batch = pool().install(|| solver.solve_batch(0.0, 5.0, &items));
    assert_eq!(batch.len(), items.len());
    let wrt = [Wrt::Param("p"), Wrt::InitialState("x")];
    for (k, (result, (x0, p))) in batch.iter().zip(&items).enumerate() {
        let sequential = solver.solve(0.0, 5.0, x0, p);
        same_solution(k, result, &sequential, &wrt);
        if p.p.is_nan() {
            let Err(failure) = result else {
                panic!("item {k}: a NaN p fails")
            };
            assert!(
                matches!(failure.error, SolveError::NonFiniteValue { .. }),
                "{failure}"
            );
        } else {
            let solution = result.as_ref().expect("every other item solves");
            assert_eq!(solution.t, 5.0, "item {k}");
        }
    }
    // The reference item of the quickstart: three switches, dG/dp of the closed form.
    let at_2_9 = batch[3].as_ref().expect("p = 2.9 solves");
    assert_eq!(at_2_9.events.len(), 3);
    assert!((at_2_9.cost_gradient("p").unwrap() + 2.3119531074438905).abs() < 1e-5);
}

#[test]
fn ball_batch_equals_sequential_solves() {
    let times = [0.25, 0.5, 1.0, 1.5];
    let solver = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All)
        .samples(&times);
    let items = ball_items();
    let batch = pool().install(|| solver.solve_batch(0.0, 2.0, &items));
    assert_eq!(batch.len(), items.len());
    let wrt = [
        Wrt::Param("g"),
        Wrt::Param("e"),
        Wrt::InitialState("h"),
        Wrt::InitialState("v"),
    ];
    for (k, (result, (x0, p))) in batch.iter().zip(&items).enumerate() {
        let sequential = solver.solve(0.0, 2.0, x0, p);
        same_solution(k, result, &sequential, &wrt);
        match result {
            Ok(solution) => {
                assert!(!ball_fails(p), "item {k} solves");
                assert!(!solution.events.is_empty(), "item {k}: the ball bounces");
                assert_eq!(solution.samples.len(), times.len());
            }
            Err(failure) if p.e.is_nan() => {
                // Refused at the start: the partial solution is the initial state.
                assert!(matches!(failure.error, SolveError::NonFiniteValue { .. }));
                assert_eq!(failure.partial.t, 0.0, "{failure}");
                assert!(failure.partial.samples.is_empty());
            }
            Err(failure) => {
                // Impacts accumulating (Zeno) until their speed is below what the tolerances
                // resolve (a grazing event); many bounces and the samples before t ≈ 1.35 kept.
                assert!(ball_fails(p), "item {k} fails: {failure}");
                assert!(matches!(failure.error, SolveError::GrazingEvent { .. }));
                assert!(failure.partial.t > 1.3, "{failure}");
                assert!(failure.partial.events.len() > 10);
                assert_eq!(failure.partial.samples.len(), 3);
            }
        }
    }
    assert_eq!(batch.iter().filter(|r| r.is_err()).count(), 2);
}

#[test]
fn gradient_batch_equals_sequential_gradients() {
    let solver = ex51::Model.solver().tolerances(1e-8, 1e-10);
    let items = ex51_items();
    let batch = pool().install(|| solver.gradient_batch(0.0, 5.0, &items));
    assert_eq!(batch.len(), items.len());
    for (k, (result, (x0, p))) in batch.iter().zip(&items).enumerate() {
        match (result, &solver.gradient(0.0, 5.0, x0, p)) {
            (Ok(a), Ok(b)) => {
                same_bits(&format!("item {k}: G"), a.cost, b.cost);
                same_bits(&format!("item {k}: dG/dp"), a.params[0], b.params[0]);
                same_bits(
                    &format!("item {k}: dG/dx0"),
                    a.initial_states[0],
                    b.initial_states[0],
                );
                assert_eq!(a, b, "item {k}");
            }
            (Err(a), Err(b)) => {
                assert!(p.p.is_nan(), "item {k} fails: {a}");
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "item {k}");
            }
            (a, b) => panic!("item {k}: batch {a:?}, sequential {b:?}"),
        }
    }
    assert_eq!(batch.iter().filter(|r| r.is_err()).count(), 1);

    let solver = ball::Model.solver().tolerances(1e-10, 1e-12);
    let items = ball_items();
    let batch = pool().install(|| solver.gradient_batch(0.0, 2.0, &items));
    for (k, (result, (x0, p))) in batch.iter().zip(&items).enumerate() {
        let sequential = solver.gradient(0.0, 2.0, x0, p);
        assert_eq!(format!("{result:?}"), format!("{sequential:?}"), "item {k}");
        assert_eq!(result.is_err(), ball_fails(p), "item {k}");
    }
}

#[test]
fn caller_storage_batch_equals_sequential_solve_into() {
    // Ex. 5.1, summaries only.
    let solver = ex51::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::Only(&["x"]));
    let items = ex51_items();
    let mut slots: Vec<_> = items.iter().map(|_| Slot::summary()).collect();
    pool()
        .install(|| solver.solve_batch_into(0.0, 5.0, &items, &mut slots))
        .expect("one slot per item");
    for (k, (slot, (x0, p))) in slots.iter().zip(&items).enumerate() {
        let mut solution = HybridSolution::ZERO;
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        };
        let result = solver.solve_into(0.0, 5.0, x0, p, &mut outputs, &mut solution);
        same_summary(k, (&slot.solution, &slot.result), (&solution, &result));
        assert_eq!(
            slot.result.is_err(),
            p.p.is_nan(),
            "item {k}: {:?}",
            slot.result
        );
    }

    // The ball, with samples and event logs in flat caller storage, one chunk per item.
    let times = [0.25, 0.5, 1.0, 1.5];
    let solver = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::Only(&["e"]), InitialStates::All)
        .samples(&times);
    let items = ball_items();
    const EVENTS: usize = 16;
    let mut samples = vec![Sample::ZERO; items.len() * times.len()];
    let mut events = vec![EventRecord::ZERO; items.len() * EVENTS];
    let mut slots: Vec<_> = samples
        .chunks_mut(times.len())
        .zip(events.chunks_mut(EVENTS))
        .map(|(samples, events)| {
            Slot::new(HybridOutputs {
                samples,
                events: Some(events),
                steps: None,
                dense: None,
            })
        })
        .collect();
    pool()
        .install(|| solver.solve_batch_into(0.0, 2.0, &items, &mut slots))
        .expect("one slot per item");
    for (k, (slot, (x0, p))) in slots.iter().zip(&items).enumerate() {
        let mut solution = HybridSolution::ZERO;
        let mut samples = [Sample::ZERO; 4];
        let mut events = [EventRecord::ZERO; EVENTS];
        let mut outputs = HybridOutputs {
            samples: &mut samples,
            events: Some(&mut events),
            steps: None,
            dense: None,
        };
        let result = solver.solve_into(0.0, 2.0, x0, p, &mut outputs, &mut solution);
        same_summary(k, (&slot.solution, &slot.result), (&solution, &result));
        let n = solution.n_samples;
        assert_eq!(
            format!("{:?}", &slot.outputs.samples[..n]),
            format!("{:?}", &samples[..n])
        );
        let n = solution.n_events;
        let slot_events = slot.outputs.events.as_deref().expect("an event log");
        assert_eq!(
            format!("{:?}", &slot_events[..n]),
            format!("{:?}", &events[..n])
        );
        let result = slot.result;
        assert_eq!(result.is_err(), ball_fails(p), "item {k}: {result:?}");
        assert!(slot.result.is_err() || n > 0, "item {k}: the ball bounces");
    }
}

/// Too few slots is an error of the batch, before anything is solved; extra slots are left
/// alone; an empty batch is empty.
#[test]
fn slot_count_and_empty_batches() {
    let solver = ex51::Model.solver();
    let items = ex51_items();
    let mut slots: Vec<_> = (0..3).map(|_| Slot::summary()).collect();
    let error = solver
        .solve_batch_into(0.0, 5.0, &items, &mut slots)
        .expect_err("three slots for nineteen items");
    assert_eq!(
        error,
        TooFewSlots {
            items: items.len(),
            slots: 3
        }
    );
    assert!(slots.iter().all(|s| s.solution == HybridSolution::ZERO));
    println!("{error}");

    let mut slots: Vec<_> = (0..4).map(|_| Slot::summary()).collect();
    solver
        .solve_batch_into(0.0, 5.0, &items[..2], &mut slots)
        .expect("enough slots");
    assert_eq!(slots[1].solution.t, 5.0);
    assert_eq!(slots[2].solution, HybridSolution::ZERO);

    let none: [(ex51::X, ex51::P); 0] = [];
    assert!(solver.solve_batch(0.0, 5.0, &none).is_empty());
    assert!(solver.gradient_batch(0.0, 5.0, &none).is_empty());
    solver
        .solve_batch_into(0.0, 5.0, &none, &mut [])
        .expect("nothing to solve");
}
