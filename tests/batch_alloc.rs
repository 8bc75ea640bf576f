//! The caller-storage batch (`Batch::solve_batch_into`, feature `rayon`) allocates nothing
//! per solve: counted on **every thread** while a batch runs, allocations do not grow with
//! the number of items nor with the number of steps.
//!
//! How it is counted, and why this way:
//!
//! - The zero-allocation tests of one solve (`tests/zero_alloc.rs`) count per thread; a batch
//!   solves on rayon's worker threads, so this test counts globally, on all threads, while a
//!   flag is set (`count_all_threads` of `support/counting_alloc.rs`, the allocator that also
//!   counts per thread for the other tests). Nothing else may allocate meanwhile, so this test binary has no test
//!   harness (no other tests, no harness threads): it is this `main` alone.
//! - Setup is not counted: the thread pool (threads, their queues, registries), the items,
//!   the slots and their storage are made before, and warm-up batches run first (the first
//!   use of a pool and of a thread's locals allocates once: thread-local destructors, rayon's
//!   latch of the calling thread, and at a worker's first steal its handle in crossbeam's
//!   epoch collector, 2 allocations).
//! - What rayon may still allocate during a batch is its scheduling bookkeeping: injecting a
//!   job from outside the pool takes a slot of a queue that allocates a new block every 63
//!   jobs (one batch in 63 counts 1), a worker's deque grows only beyond 64 pending jobs (a
//!   batch of `N` items splits about `log2 N` deep), and a worker that has not stolen before
//!   registers with the epoch collector (2, once per thread). So a batch may allocate a few
//!   times, never once per item: the test asserts at most [`BOOKKEEPING`] per batch, far fewer
//!   than the items of the larger batches (64), and each item takes tens to hundreds of steps,
//!   so any per-step or per-item allocation would show.
//! - Each configuration is counted over [`REPEATS`] batches (the schedule differs from run to
//!   run), and the worst is what is asserted and printed.
//! - A control shows that the count sees the worker threads: the owned batch
//!   (`Batch::solve_batch`) allocates each item's results, so it must count at least one
//!   allocation per item.
#![deny(missing_docs)]

use hysens::batch::Slot;
use hysens::prelude::*;
use hysens::runtime::{EventRecord, HybridOutputs};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
#[path = "support/models.rs"]
mod models;
use counting_alloc::count_all_threads;
use models::{ex51, ex51_batch};

/// The most allocations rayon's scheduling may make in one batch (see the module docs).
const BOOKKEEPING: usize = 4;

/// Batches counted per configuration.
const REPEATS: usize = 20;

/// One configuration: `n` items of Ex. 5.1 with forward sensitivities to `p` and `x0`, event
/// logs in the slots, at tolerance `rtol`. Returns the worst count over the repeats, the total
/// over the repeats, the steps of one batch and the count of one owned batch of the same items
/// (the control).
fn counts(pool: &rayon::ThreadPool, n: usize, rtol: f64) -> (usize, usize, usize, usize) {
    let solver = ex51::Model
        .solver()
        .tolerances(rtol, rtol * 1e-2)
        .sensitivities_to(Params::All, InitialStates::All);
    let items = ex51_batch(n);
    let mut events = vec![EventRecord::ZERO; 8 * n];
    let mut slots: Vec<_> = events
        .chunks_mut(8)
        .map(|events| {
            Slot::new(HybridOutputs {
                samples: &mut [],
                events: Some(events),
                steps: None,
                dense: None,
            })
        })
        .collect();
    // Warm-up, not counted.
    pool.install(|| solver.solve_batch_into(0.0, 5.0, &items, &mut slots))
        .expect("a slot per item");
    let (mut worst, mut total) = (0, 0);
    for _ in 0..REPEATS {
        let (result, allocations) = count_all_threads(|| {
            pool.install(|| solver.solve_batch_into(0.0, 5.0, &items, &mut slots))
        });
        result.expect("a slot per item");
        worst = worst.max(allocations);
        total += allocations;
    }
    for (k, slot) in slots.iter().enumerate() {
        assert_eq!(slot.result, Ok(()), "item {k}");
        assert!(slot.solution.n_events >= 1, "item {k} switches");
    }
    let steps = slots.iter().map(|s| s.solution.stats.steps).sum();
    let (owned, control) =
        count_all_threads(|| pool.install(|| solver.solve_batch(0.0, 5.0, &items)));
    assert!(owned.iter().all(Result::is_ok));
    drop(owned);
    (worst, total, steps, control)
}

fn main() {
    // Setup: a pool of two threads of our own (allocates its threads and queues).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool of two threads");
    // Warm-up of the pool's threads, not counted: wide batches, so that every worker steals.
    counts(&pool, 64, 1e-6);
    println!("caller-storage batch of Ex. 5.1 with FSA, 2 threads, {REPEATS} batches each:");
    let mut failures = 0;
    let configurations = [(8, 1e-6), (64, 1e-6), (8, 1e-10), (64, 1e-10)];
    for (n, rtol) in configurations {
        let (worst, total, steps, control) = counts(&pool, n, rtol);
        let ok = worst <= BOOKKEEPING && control >= n;
        failures += usize::from(!ok);
        println!(
            "  {n:>2} items, rtol {rtol:.0e}: {steps:>5} steps per batch; solve_batch_into at most \
             {worst} allocations per batch (limit {BOOKKEEPING}), {total} in all; control \
             solve_batch {control} (at least {n}){}",
            if ok { "" } else { "  FAILED" }
        );
    }
    if failures > 0 {
        eprintln!(
            "{failures} configuration(s) allocated per item or per step, or were not counted"
        );
        std::process::exit(1);
    }
    println!("{} passed, 0 failed", configurations.len());
}
