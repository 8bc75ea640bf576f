//! The three storages of a model's `NY × NY` matrices (`#[hybrid_model(store = …)]`) on one
//! DAE with memory, an event and a reset, stamped out with each: `inline` (the no-heap default)
//! and `heap` give the same numbers bit for bit (the same arithmetic over the same arrays);
//! `sparse` (faer's sparse LU of the stage matrices) gives the same to round-off of its
//! factorization, and the adjoint equals its forward sensitivities. The same comparisons as a
//! stranger would try them: tolerances from 1e-2 to 1e-12, starts on, beside and far from the
//! guard, tiny and huge stiffness. The 1,000-state model of each large storage:
//! `thousand_states.rs`.
//!
//! With feature `sparse` (`.ci/run`: `cargo test --release -p hysens-runtime --features sparse
//! --test storage`); the workspace's `cargo test` builds no sparse LU.
#![deny(missing_docs)]

use hysens::prelude::*;
/// A spring with an algebraic force and memory, twice: the same model with each storage
/// (`$store` is the attribute's arguments). A DAE mode reads the memory (the state at the last
/// switch), the reset reads it too, so the mode's memory Jacobian and the reset's `∂R/∂y*`
/// go through the storage as well as `f_y`, `∂R/∂y⁻` and the LU factors.
macro_rules! spring_with_memory {
    ($name:ident, $($store:tt)*) => {
        /// The spring with memory (`spring_with_memory!`).
        #[hybrid_model($($store)*)]
        pub mod $name {
            /// Position and velocity.
            #[states]
            pub struct X {
                /// Position.
                pub x: f64,
                /// Velocity.
                pub v: f64,
            }
            /// The spring force.
            #[algebraic]
            pub struct Z {
                /// Force.
                pub w: f64,
            }
            /// Stiffness, damping, release threshold, restitution.
            #[params]
            pub struct P {
                /// Stiffness.
                pub k: f64,
                /// Damping towards the velocity at the last switch.
                pub c: f64,
                /// Release threshold.
                pub thr: f64,
                /// Restitution.
                pub e: f64,
            }
            /// Held by a stiffening spring, damped towards the remembered velocity.
            #[mode(initial)]
            fn held(x: &X, z: &Z, p: &P, m: &Memory) -> (X, [f64; 1]) {
                (
                    X { x: x.v, v: z.w - p.c * (x.v - m.y.v) },
                    [z.w + p.k * x.x + 0.1 * z.w.powi(3)],
                )
            }
            /// Free: a softer spring about the remembered position.
            #[mode]
            fn free(x: &X, z: &Z, p: &P, m: &Memory) -> (X, [f64; 1]) {
                (X { x: x.v, v: z.w - p.c * x.v }, [z.w + 0.5 * p.k * (x.x - m.y.x)])
            }
            /// The position reaches the threshold.
            #[guard(held -> free, rising)]
            fn release(x: &X, p: &P) -> f64 {
                x.x - p.thr
            }
            /// The velocity is reflected, mixed with the remembered one.
            #[reset(release)]
            fn kick(x: &X, p: &P, m: &Memory) -> X {
                X { x: x.x, v: -p.e * x.v + 0.1 * m.y.v }
            }
            /// The final position and velocity.
            #[cost(terminal)]
            fn end(x: &X) -> f64 {
                x.x + x.v * x.v
            }
        }
    };
}
spring_with_memory!(spring_inline,);
spring_with_memory!(spring_heap, store = heap);
spring_with_memory!(spring_sparse, store = sparse);

/// What one storage's solve of the spring gives: the final state, event times, the gradients by
/// FSA to every direction, then the adjoint's — or the error's text.
fn spring_outcome<M>(
    solver: Solver<'_, M, 6, 2, 1, 4, 3, 6>,
    x0: [f64; 2],
    p: [f64; 4],
) -> Result<Vec<f64>, String>
where
    M: AdjointProducts<2, 1, 4> + ModelSizes<3, 6> + ModelTypes<2, 1, 4>,
{
    let (x0, p) = (M::State::from_array(x0), M::Params::from_array(p));
    let fsa = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 3.0, &x0, &p)
        .map_err(|e| e.to_string())?;
    let adjoint = solver
        .gradient(0.0, 3.0, &x0, &p)
        .map_err(|e| e.to_string())?;
    let mut values = fsa.y.to_vec();
    values.extend(fsa.events.iter().map(|e| e.t));
    let directions = ["k", "c", "thr", "e"].map(Wrt::Param);
    for wrt in directions
        .into_iter()
        .chain(["x", "v"].map(Wrt::InitialState))
    {
        values.push(fsa.cost_gradient(wrt).map_err(|e| e.to_string())?);
    }
    values.extend(adjoint.params.iter().chain(&adjoint.initial_states));
    Ok(values)
}

/// The largest difference between two outcomes relative to `max(|a|, |b|, 1)`, or `None`
/// if they differ in kind (a solution against an error, different errors, different lengths).
fn outcome_difference(a: &Result<Vec<f64>, String>, b: &Result<Vec<f64>, String>) -> Option<f64> {
    match (a, b) {
        (Ok(a), Ok(b)) if a.len() == b.len() => Some(
            a.iter()
                .zip(b)
                .map(|(a, b)| (a - b).abs() / a.abs().max(b.abs()).max(1.0))
                .fold(0.0, f64::max),
        ),
        (Err(a), Err(b)) if a == b => Some(0.0),
        _ => None,
    }
}

/// The three storages on one case: heap and inline bit for bit, sparse within `bound` of them
/// (relative, `outcome_difference`); and the adjoint equal to FSA to 1e-10 with each. Returns
/// whether it solved.
fn compare_storages(rtol: f64, x0: [f64; 2], p: [f64; 4], bound: f64) -> bool {
    let case = format!("rtol {rtol}, x0 {x0:?}, p {p:?}");
    let inline = spring_outcome(
        spring_inline::Model.solver().tolerances(rtol, 1e-2 * rtol),
        x0,
        p,
    );
    let heap = spring_outcome(
        spring_heap::Model.solver().tolerances(rtol, 1e-2 * rtol),
        x0,
        p,
    );
    let sparse = spring_outcome(
        spring_sparse::Model.solver().tolerances(rtol, 1e-2 * rtol),
        x0,
        p,
    );
    let bits = |o: &Result<Vec<f64>, String>| {
        o.clone()
            .map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
    };
    assert_eq!(bits(&heap), bits(&inline), "heap against inline, {case}");
    let difference = outcome_difference(&sparse, &inline);
    assert!(
        difference.is_some_and(|d| d <= bound),
        "sparse against inline, {case}: {difference:?} (bound {bound:.0e}): {sparse:?} vs {inline:?}"
    );
    for values in [&inline, &sparse].into_iter().flatten() {
        // FSA's six directions, then the adjoint's six, at the end of the outcome.
        let (fsa, adjoint) = values[values.len() - 12..].split_at(6);
        for (f, a) in fsa.iter().zip(adjoint) {
            assert!(
                (a - f).abs() <= 1e-10 * f.abs().max(1.0),
                "adjoint {a} vs FSA {f}, {case}"
            );
        }
    }
    inline.is_ok()
}

/// The spring with memory at the default tolerance: FSA to every parameter and initial state,
/// the event time and the adjoint gradient agree bit for bit between inline and heap, to
/// 1e-12 relative for sparse (its LU pivots and sums in another order; the step sizes that
/// follow from the error estimates differ by as little, ~1e-14 observed), and the adjoint is
/// the transpose of FSA to 1e-10 with each.
#[test]
fn the_three_storages_agree_on_a_dae_with_memory_and_a_reset() {
    assert!(compare_storages(
        1e-6,
        [0.0, 2.0],
        [4.0, 0.3, 0.5, 0.8],
        1e-12
    ));
}

/// The spring as a stranger would try it: rtol 1e-2 to 1e-12; a start exactly on the guard,
/// an ulp-sized step either side of it and far from it; stiffness and damping from tiny to
/// huge. Whatever each case gives — a solution or an error — inline and heap give the same,
/// bit for bit or word for word, and sparse the same error or a solution within BOUND.
#[test]
fn the_three_storages_agree_as_a_stranger_tries_them() {
    let thr = 0.5;
    let starts = [thr, thr - 1e-12, thr + 1e-12, -2.0];
    let parameters = [
        [4.0, 0.3, thr, 0.8],
        [4e-8, 3e-9, thr, 0.8],
        [4e6, 3e3, thr, 0.8],
    ];
    let (mut solved, mut failed) = (0, 0);
    for rtol in [1e-2, 1e-3, 1e-6, 1e-12] {
        for x in starts {
            for p in parameters {
                if compare_storages(rtol, [x, 2.0], p, BOUND) {
                    solved += 1;
                } else {
                    failed += 1;
                }
            }
        }
    }
    // rtol 1e-2 is refused for a model with guards (12 cases, an invalid-argument error); the
    // 36 others solve (k = 4e6 from x = −2 at rtol 1e-12 needs the consistent initialization's
    // line search: without it Newton's full steps on the cubic force equation, from w = 0 to
    // w = 8e6 and then a third shorter per iteration, ran out of iterations before reaching
    // 1e-12 of w ≈ 431). The count keeps the test from passing on errors alone.
    assert_eq!((solved, failed), (36, 12));
}

/// How far the sparse storage's outcome may be from the inline one's in the stranger's cases,
/// relative: the round-off of another pivot order, carried through Newton's stopping tests and
/// the step-size choices. The largest measured is 4.2e-11 (rtol 1e-3 from x = −2; 1.3e-13 at
/// rtol 1e-12, below 1e-14 at 1e-6); the bound leaves room for other machines while staying
/// far below every tolerance tried.
const BOUND: f64 = 1e-9;
