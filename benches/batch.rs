//! Parallel batches (feature `rayon`) against the same solves one after the other: N = 64
//! solves of Serban & Recuero's Ex. 5.1 (P1) with forward sensitivities to `p` and `x0`,
//! `p` swept over [2.6, 3.2), `[0, 5]`, rtol 1e-8, atol 1e-10, on rayon's global pool (one
//! thread per core).
//!
//! - `sequential_into` / `parallel_into`: caller storage (`Solver::solve_into` in a loop /
//!   `Batch::solve_batch_into`), no heap per solve;
//! - `sequential_owned` / `parallel_owned`: owned solutions (`Solver::solve` in a loop /
//!   `Batch::solve_batch`);
//! - `sequential_gradient` / `parallel_gradient`: the adjoint gradient (`Solver::gradient` /
//!   `Batch::gradient_batch`).
//!
//! Run with `cargo bench --bench batch`; `RAYON_NUM_THREADS` sets the pool's
//! size.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use hysens::prelude::*;

#[path = "../tests/support/facade_batch.rs"]
mod facade_batch;
#[path = "../tests/support/models.rs"]
mod models;
use facade_batch::{p1_fsa_batch, solve_one_after_another};

/// Solves per batch.
const N: usize = 64;

/// The sequential counterpart of an owning batch: `solve` of every item, one after the other,
/// collected in item order.
fn one_after_another<T, R>(items: &[T], solve: impl Fn(&T) -> R) -> Vec<R> {
    items.iter().map(solve).collect()
}

fn batches(c: &mut Criterion) {
    let (solver, items, mut slots) = p1_fsa_batch(N);

    // The batch is the sequential solves, before anything is timed.
    solver
        .solve_batch_into(0.0, 5.0, &items, &mut slots)
        .expect("a slot per item");
    for (slot, (x0, p)) in slots.iter().zip(&items) {
        let solution = solver.solve(0.0, 5.0, x0, p).expect("P1 solves");
        assert_eq!(slot.result, Ok(()));
        assert_eq!(slot.solution.y, solution.y);
    }
    let steps: usize = slots.iter().map(|s| s.solution.stats.steps).sum();
    println!(
        "{N} solves of P1 with FSA, {steps} steps in all, on {} threads",
        rayon::current_num_threads()
    );

    let mut group = c.benchmark_group(format!("batch{N}_P1_fsa"));
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    group.bench_function("sequential_into", |b| {
        b.iter(|| {
            solve_one_after_another(&solver, black_box(&items), &mut slots);
            black_box(&slots);
        })
    });
    group.bench_function("parallel_into", |b| {
        b.iter(|| {
            solver
                .solve_batch_into(0.0, 5.0, black_box(&items), &mut slots)
                .expect("a slot per item");
            black_box(&slots);
        })
    });
    group.bench_function("sequential_owned", |b| {
        b.iter(|| one_after_another(black_box(&items), |(x0, p)| solver.solve(0.0, 5.0, x0, p)))
    });
    group.bench_function("parallel_owned", |b| {
        b.iter(|| solver.solve_batch(0.0, 5.0, black_box(&items)))
    });
    group.bench_function("sequential_gradient", |b| {
        b.iter(|| {
            one_after_another(black_box(&items), |(x0, p)| {
                solver.gradient(0.0, 5.0, x0, p)
            })
        })
    });
    group.bench_function("parallel_gradient", |b| {
        b.iter(|| solver.gradient_batch(0.0, 5.0, black_box(&items)))
    });
    group.finish();
}

criterion_group!(benches, batches);
criterion_main!(benches);
