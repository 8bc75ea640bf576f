//! Timing: median wall time of repeated solves, interleaved round-robin across all runners.
//!
//! 1. Calibration: every runner solves once (that solve's result is kept for the accuracy and
//!    counter columns), then again until `budget / 20` has passed (at most 3 solves more; the
//!    first solve of a process pays page faults and cold caches); the duration `t0` of the
//!    fastest of these solves sets the repetition count
//!    `n = clamp(round(budget / t0), MIN_RUNS, MAX_RUNS)` so each cell costs about `budget`
//!    (a cell slower than `budget` still gets `MIN_RUNS` runs). A failed solve is not timed.
//! 2. Measurement: rounds r = 0, 1, ...; in each round every runner with `n > r` solves once
//!    and the duration is recorded. Interleaving spreads slow drifts of the machine (frequency,
//!    another process) over all tools instead of charging them to one.
//! 3. The median of each runner's samples is reported.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::case::RunResult;
use crate::runners::Runner;

/// Fewest timed solves per cell (a median of fewer is not worth printing).
pub const MIN_RUNS: usize = 5;
/// Most timed solves per cell (bounds the run time of very fast cells' bookkeeping).
pub const MAX_RUNS: usize = 20_000;

/// Measurements of one runner.
pub struct Cell {
    /// Result of the calibration solve (accuracy and counters come from it).
    pub result: RunResult,
    /// Durations of the timed solves (empty if the solve failed).
    pub samples: Vec<Duration>,
}

impl Cell {
    /// Median of the samples (mean of the two middle ones for an even count).
    pub fn median(&self) -> Option<Duration> {
        let mut s = self.samples.clone();
        s.sort();
        let n = s.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(s[n / 2]),
            _ => Some((s[n / 2 - 1] + s[n / 2]) / 2),
        }
    }
}

/// Calibrate and measure every runner, interleaved; `cells[k]` belongs to `runners[k]`.
pub fn measure(runners: &[Box<dyn Runner>], budget: Duration) -> Vec<Cell> {
    let mut cells = Vec::with_capacity(runners.len());
    let mut counts = Vec::with_capacity(runners.len());
    for r in runners {
        let start = Instant::now();
        let result = run_guarded(r.as_ref());
        let mut t0 = start.elapsed();
        let mut calls = 1;
        while result.is_ok() && calls < 4 && start.elapsed() < budget / 20 {
            let s = Instant::now();
            let _ = black_box(r.run());
            t0 = t0.min(s.elapsed());
            calls += 1;
        }
        let t0 = t0.max(Duration::from_nanos(1));
        let n = if result.is_ok() {
            ((budget.as_secs_f64() / t0.as_secs_f64()).round() as usize).clamp(MIN_RUNS, MAX_RUNS)
        } else {
            0
        };
        eprintln!(
            "calibrated {:4} {:12} {:9}: {:>10.1} µs -> {} runs{}",
            r.case().id,
            r.tool(),
            r.method(),
            t0.as_secs_f64() * 1e6,
            n,
            result
                .as_ref()
                .err()
                .map(|e| format!(" (failed: {e})"))
                .unwrap_or_default()
        );
        cells.push(Cell {
            result,
            samples: Vec::with_capacity(n),
        });
        counts.push(n);
    }
    let rounds = counts.iter().copied().max().unwrap_or(0);
    for round in 0..rounds {
        for (k, r) in runners.iter().enumerate() {
            if counts[k] > round {
                let start = Instant::now();
                let out = r.run();
                let dt = start.elapsed();
                black_box(&out);
                cells[k].samples.push(dt);
            }
        }
    }
    cells
}

/// One solve with panics turned into errors, so one misbehaving runner cannot end the run.
fn run_guarded(r: &dyn Runner) -> RunResult {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.run())).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        Err(format!("panicked: {msg}"))
    })
}

/// The seconds of a `--budget SECONDS` option, the next argument of `args` (of the benchmark
/// and of the probes that time as it does); panics with `usage` if it is missing or not a
/// number (at the caller's line).
#[track_caller]
pub fn budget_argument(args: &mut impl Iterator<Item = String>, usage: &str) -> f64 {
    args.next().and_then(|v| v.parse().ok()).expect(usage)
}
