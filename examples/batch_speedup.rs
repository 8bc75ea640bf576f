//! The speed-up of a parallel batch (feature `rayon`) over the same solves one after the
//! other, measured interleaved so that a machine shared with other jobs slows both alike:
//! 64 solves of Serban & Recuero's Example 5.1 with forward sensitivities to `p` and `x0`
//! (`p` swept over [2.6, 3.2)), in caller storage (`solve_into` in a loop against
//! `solve_batch_into`), on rayon's global pool.
//!
//! ```sh
//! cargo run --release -p hysens-examples --features rayon --example batch_speedup -- \
//!     [rounds] [both|sequential|parallel]
//! ```
//!
//! Each round times one sequential pass and one parallel batch (in alternating order); the
//! medians, extremes and the median of the per-round ratios are printed. With `sequential` or
//! `parallel` alone it only runs that, for whole-process timing (`/usr/bin/time -v`).

use std::time::{Duration, Instant};

use hysens::batch::{Batch, Slot, TooFewSlots};

#[path = "../tests/support/facade_batch.rs"]
mod facade_batch;
#[path = "../tests/support/models.rs"]
mod models;
use facade_batch::{p1_fsa_batch, solve_one_after_another};

/// Solves per batch.
const N: usize = 64;

/// Median, minimum and maximum.
fn summary(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(Ok(200), |a| a.parse())?;
    let mode = args.next().unwrap_or_else(|| "both".into());
    let (sequential, parallel) = match mode.as_str() {
        "both" => (true, true),
        "sequential" => (true, false),
        "parallel" => (false, true),
        other => return Err(format!("unknown mode {other:?}").into()),
    };
    println!(
        "model: Serban & Recuero's Ex. 5.1, x' = 4 - x in mode a while h = x³ - 5x² + 7x - p ≤ 0, \
         x' = 10 - 2x in mode b while h > 0;"
    );
    println!(
        "       {N} solves from x(0) = 0 on [0, 5], p swept over [2.6, 3.2), with forward \
         sensitivities to p and x(0), rtol 1e-8, atol 1e-10"
    );
    let (solver, items, mut slots) = p1_fsa_batch(N);

    let run_sequential = |slots: &mut [Slot<'_, 1, 0, 2>]| -> Duration {
        let start = Instant::now();
        solve_one_after_another(&solver, &items, slots);
        start.elapsed()
    };
    let run_parallel = |slots: &mut [Slot<'_, 1, 0, 2>]| -> Result<Duration, TooFewSlots> {
        let start = Instant::now();
        solver.solve_batch_into(0.0, 5.0, &items, slots)?;
        Ok(start.elapsed())
    };

    let (mut seq, mut par, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (mut s, mut p) = (None, None);
        // Alternate which goes first, so that neither always follows the other.
        for first in [round % 2 == 0, round % 2 != 0] {
            if first && sequential {
                s = Some(run_sequential(&mut slots).as_secs_f64() * 1e3);
            }
            if !first && parallel {
                p = Some(run_parallel(&mut slots)?.as_secs_f64() * 1e3);
            }
        }
        if let Some(s) = s {
            seq.push(s);
        }
        if let Some(p) = p {
            par.push(p);
        }
        if let (Some(s), Some(p)) = (s, p) {
            ratio.push(s / p);
        }
    }
    if slots.iter().any(|s| s.result.is_err()) {
        return Err("a solve failed".into());
    }
    let steps: usize = slots.iter().map(|s| s.solution.stats.steps).sum();
    println!(
        "{N} solves of Ex. 5.1 with FSA ({steps} steps in all), {rounds} rounds, {} threads",
        rayon::current_num_threads()
    );
    if !seq.is_empty() {
        let (median, min, max) = summary(seq);
        println!("sequential: median {median:.3} ms (min {min:.3}, max {max:.3})");
    }
    if !par.is_empty() {
        let (median, min, max) = summary(par);
        println!("parallel:   median {median:.3} ms (min {min:.3}, max {max:.3})");
    }
    if !ratio.is_empty() {
        let n = ratio.len();
        let mut sorted = ratio;
        sorted.sort_by(f64::total_cmp);
        let (q1, median, q3) = (sorted[n / 4], sorted[n / 2], sorted[3 * n / 4]);
        println!("speed-up per round: median {median:.2}x (quartiles {q1:.2}x, {q3:.2}x)");
    }
    Ok(())
}
