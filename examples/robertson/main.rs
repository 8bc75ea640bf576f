//! Robertson's stiff kinetics over `[0, 4e10]` s with forward sensitivities to the three rate
//! constants: what the solver does (statistics in the form of Kristensen et al. 2005,
//! Table 1), how accurate it is, and a picture.
//!
//! The model (`model.rs`): `y1' = −k1 y1 + k3 y2 y3`, `y2' = k1 y1 − k3 y2 y3 − k2 y2²`,
//! `y3' = k2 y2²` with `k = (0.04, 3e7, 1e4)`, `y(0) = (1, 0, 0)`; the tolerances are the
//! project's benchmark P3's (rtol 1e-6, atol 1e-10; `benches/solve.rs`, `BENCHMARKS.md`). The
//! example prints
//!
//! - the statistics of the solve with two tableaus, the default ESDIRK4(3)6L\[2\]SA and
//!   ESDIRK34 (the method of Kristensen et al.), in the rows of their Table 1 (NSTEP, NFUN,
//!   NJAC, NJACT, NLU, NBACK, NSENS and CPU time, plus rejected steps and Newton iterations),
//!   next to the paper's published numbers. Those are for another problem — the Dow Chemical
//!   benchmark, tolerances not stated (Kristensen et al. 2005, §5) — so they show the scale
//!   and the per-step ratios of each counter, not a like-for-like comparison;
//! - the final concentrations and the nine sensitivities `∂y_i/∂k_j` at `t = 4e10` next to an
//!   independent reference (scipy LSODA at rtol 1e-12 on the state and sensitivity system,
//!   `bench/reference/robertson_fsa.py`, the constants of
//!   `reference.rs`), with their relative differences, and the
//!   largest state error in units of the tolerance asked for, `|Δy_i|/(atol + rtol|y_i|)`
//!   (`y1 ≈ 5e-8` sits at the atol floor, where its relative difference of a few 1e-4 is
//!   a fraction of `atol/y1 = 2e-3`);
//! - the conservation checks: every reaction conserves `y1 + y2 + y3`, and so does every
//!   Runge–Kutta step (a linear invariant), so `y1 + y2 + y3 − 1` and, differentiating,
//!   `Σ_i ∂y_i/∂k_j` are round-off;
//! - the path of `robertson.svg`: the concentrations on a log time axis (`y2` scaled by 1e4,
//!   as is customary) and the logarithmic sensitivities `∂ln y_i/∂ln k_j` of `y1` and `y2`.
//!
//! Run with `cargo run --release -p hysens-examples --example robertson`.

use std::error::Error;
use std::time::Instant;

use hysens::prelude::*;
use hysens::runtime::{ESDIRK34, ESDIRK436L2SA};

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;
mod reference;

use model::{robertson, CLASSIC_RATES, CLASSIC_Y0};
use plot::{Figure, LegendAt, Panel, Scale};

/// Final time (s).
const T_END: f64 = 4e10;
/// Relative tolerance (the benchmark P3's).
const RTOL: f64 = 1e-6;
/// Absolute tolerance (the benchmark P3's).
const ATOL: f64 = 1e-10;
/// Sample times per decade of the plot (log-spaced from 1e-6 s).
const SAMPLES_PER_DECADE: i32 = 20;
/// The rate constants' names, in the model's order.
const RATES: [&str; 3] = ["k1", "k2", "k3"];

/// Kristensen et al. 2005, Table 1 ("Performance comparison between ESDIRK34 and sLIMEX"), on
/// the Dow Chemical benchmark (their §5, which states no tolerances): `(row, ESDIRK34, sLIMEX)`.
const PAPER_TABLE_1: [(&str, f64, f64); 8] = [
    ("NSTEP", 77.0, 28.0),
    ("NFUN", 868.0, 360.0),
    ("NJAC", 75.0, 28.0),
    ("NJACT", 75.0, 388.0),
    ("NLU", 77.0, 166.0),
    ("NBACK", 862.0, 4482.0),
    ("NSENS", 77.0, 360.0),
    ("CPU time (s)", 0.09, 0.07),
];

/// The relative difference of `computed` from `reference`.
fn relative(computed: f64, reference: f64) -> f64 {
    (computed - reference).abs() / reference.abs()
}

/// The largest of `values`; infinite if one is NaN (a missing value must not pass a check).
fn largest(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, |worst, v| {
        if v.is_nan() {
            f64::INFINITY
        } else {
            worst.max(v)
        }
    })
}

/// One solve's results: the solution, its CPU time, and the largest relative difference of
/// `y` and `∂y/∂k` at `T_END` from the reference.
struct Run {
    name: &'static str,
    solution: Solution<robertson::X, 3, 0, 3>,
    seconds: f64,
    worst: f64,
    /// The largest state error in units of the requested tolerance, `|Δy_i|/(atol + rtol|y_i|)`.
    in_tolerances: f64,
}

impl Run {
    /// `∂y_i/∂k_j` at the final time.
    fn s(&self, i: usize, j: usize) -> f64 {
        let of = robertson::X::NAMES[i];
        self.solution.sensitivity(of, RATES[j]).unwrap_or(f64::NAN)
    }

    /// Solves without sample times (so the statistics are the integration's own: each sample
    /// time would force a step to land on it) and compares with the reference.
    fn solve<const S: usize>(
        tableau: &'static hysens::runtime::Tableau<S>,
    ) -> Result<Run, Box<dyn Error>> {
        let start = Instant::now();
        let solution = robertson::Model
            .solver()
            .tolerances(RTOL, ATOL)
            .tableau(tableau)
            .sensitivities_to(Params::All, InitialStates::None)
            .solve(0.0, T_END, &CLASSIC_Y0, &CLASSIC_RATES)?;
        let seconds = start.elapsed().as_secs_f64();
        let mut run = Run {
            name: tableau.name,
            solution,
            seconds,
            worst: 0.0,
            in_tolerances: 0.0,
        };
        run.in_tolerances = largest((0..3).map(|i| {
            let (ours, reference) = (run.solution.y[i], reference::Y_4E10[i]);
            (ours - reference).abs() / (ATOL + RTOL * reference.abs())
        }));
        let states = (0..3).map(|i| relative(run.solution.y[i], reference::Y_4E10[i]));
        let sensitivities = (0..3)
            .flat_map(|i| (0..3).map(move |j| (i, j)))
            .map(|(i, j)| relative(run.s(i, j), reference::S_4E10[i][j]));
        run.worst = largest(states.chain(sensitivities));
        Ok(run)
    }
}

/// Prints the table of `run`'s state and sensitivities at `T_END` against the reference, each
/// state within the tolerance asked for (`(atol + rtol |y_i|)/|y_i|`, relative); returns its
/// verdict.
fn against_reference(run: &Run) -> check::Verdict {
    let y = reference::Y_4E10;
    let tolerance = |i: usize| (ATOL + RTOL * y[i].abs()) / y[i].abs();
    let mut comparison = check::Comparison::new("scipy LSODA, rtol 1e-12").bound(
        tolerance(0),
        "(atol + rtol |y1|)/|y1|, the tolerance asked for y1 ≈ 5e-8, which sits at atol; \
         dy1/dk and dy3/dk (= -dy1/dk - dy2/dk) share its relative error",
    );
    comparison = comparison.row("y1", run.solution.y[0], y[0]);
    for i in [0, 2] {
        for (j, rate) in RATES.iter().enumerate() {
            let name = format!("d{}/d{rate}", robertson::X::NAMES[i]);
            comparison = comparison.row(name, run.s(i, j), reference::S_4E10[i][j]);
        }
    }
    comparison
        .bound(
            tolerance(1),
            "(atol + rtol |y2|)/|y2|: y2 ≈ 2e-13 lies below atol, no digit of it is asked for",
        )
        .row("y2", run.solution.y[1], y[1])
        .bound(
            tolerance(2),
            "atol + rtol |y3|, the tolerance asked for y3 ≈ 1",
        )
        .row("y3", run.solution.y[2], y[2])
        .print()
}

/// Prints one row of the statistics table: our counters for each run, then the paper's.
fn row(name: &str, ours: &[String], paper: Option<(f64, f64)>) {
    print!("  {name:<30}");
    for value in ours {
        print!("  {value:>18}");
    }
    match paper {
        Some((esdirk34, slimex)) => println!("  {esdirk34:>14}  {slimex:>14}"),
        None => println!("  {:>14}  {:>14}", "-", "-"),
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let runs = [Run::solve(&ESDIRK436L2SA)?, Run::solve(&ESDIRK34)?];

    println!(
        "Robertson's kinetics, k = ({}, {:e}, {:e}), y(0) = (1, 0, 0), t in [0, {T_END:e}] s, \
         rtol {RTOL:e}, atol {ATOL:e}, FSA to k1, k2, k3",
        CLASSIC_RATES.k1, CLASSIC_RATES.k2, CLASSIC_RATES.k3
    );
    check::model(&[
        "y1' = -k1 y1 + k3 y2 y3, y2' = k1 y1 - k3 y2 y3 - k2 y2², y3' = k2 y2² in the one mode \
         kinetics; no events, no cost;",
        "what is computed: y(T) and its forward sensitivities dy/dk at T = 4e10 s",
    ]);
    println!();
    println!("Solver statistics in the rows of Kristensen et al. 2005, Table 1");
    println!(
        "  {:<30}  {:>38}  {:>30}",
        "", "hysens, this problem", "the paper, Dow problem *"
    );
    print!("  {:<30}", "");
    for run in &runs {
        print!("  {:>18}", run.name);
    }
    println!("  {:>14}  {:>14}", "ESDIRK34", "sLIMEX");
    let paper = |name: &str| {
        PAPER_TABLE_1
            .iter()
            .find(|(row, _, _)| *row == name)
            .map(|&(_, a, b)| (a, b))
    };
    let counters = |f: &dyn Fn(&Stats) -> usize| -> Vec<String> {
        runs.iter()
            .map(|r| f(&r.solution.stats).to_string())
            .collect()
    };
    let per_step = |f: &dyn Fn(&Stats) -> usize| -> Vec<String> {
        runs.iter()
            .map(|r| {
                let s = &r.solution.stats;
                format!("{:.1}", f(s) as f64 / s.steps as f64)
            })
            .collect()
    };
    row(
        "NSTEP (accepted steps)",
        &counters(&|s| s.steps),
        paper("NSTEP"),
    );
    row(
        "rejected steps (error test)",
        &counters(&|s| s.rejected_steps),
        None,
    );
    row("Newton failures", &counters(&|s| s.newton_failures), None);
    row(
        "NFUN (f evaluations)",
        &counters(&|s| s.f_evals),
        paper("NFUN"),
    );
    row(
        "NJAC (Jacobians of the states)",
        &counters(&|s| s.jacobian_evals),
        paper("NJAC"),
    );
    row(
        "NJACT (all Jacobians)",
        &counters(&|s| s.jacobian_evals + s.sensitivity_jacobian_evals),
        paper("NJACT"),
    );
    row(
        "NLU (LU factorizations)",
        &counters(&|s| s.lu_factorizations),
        paper("NLU"),
    );
    row(
        "NBACK (LU solves)",
        &counters(&|s| s.lu_solves),
        paper("NBACK"),
    );
    row(
        "NSENS (sensitivity solves) †",
        &counters(&|s| s.sensitivity_solves),
        paper("NSENS"),
    );
    row(
        "Newton iterations",
        &counters(&|s| s.newton_iterations),
        None,
    );
    let seconds: Vec<String> = runs.iter().map(|r| format!("{:.4}", r.seconds)).collect();
    row(
        "CPU time (s; ours: wall clock)",
        &seconds,
        paper("CPU time (s)"),
    );
    let ratio = |name: &str| {
        let ((a, b), (steps_a, steps_b)) = (paper(name)?, paper("NSTEP")?);
        Some((a / steps_a, b / steps_b))
    };
    let round = |(a, b): (f64, f64)| ((a * 10.0).round() / 10.0, (b * 10.0).round() / 10.0);
    row(
        "NFUN per step",
        &per_step(&|s| s.f_evals),
        ratio("NFUN").map(round),
    );
    row(
        "NBACK per step",
        &per_step(&|s| s.lu_solves),
        ratio("NBACK").map(round),
    );
    let worst: Vec<String> = runs.iter().map(|r| format!("{:.1e}", r.worst)).collect();
    row("max rel. difference, reference", &worst, None);
    // y1 ≈ 5e-8 at t = 4e10 is at the atol floor, where a relative difference says little:
    // the error in units of the tolerance asked for is the measure of accuracy.
    let in_tolerances: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.2}", r.in_tolerances))
        .collect();
    row("max state error / tolerance ‡", &in_tolerances, None);
    println!(
        "  * Kristensen et al. 2005, Table 1: the Dow Chemical problem (6 differential and 4 \
         algebraic equations, 9 rate constants),"
    );
    println!(
        "    tolerances not stated: another problem, for the scale and per-step ratios of \
         each counter, not a like-for-like comparison."
    );
    println!(
        "  † hysens counts one per implicit stage and sensitivity column; the paper one per \
         step (NSENS = NSTEP)."
    );
    println!(
        "  ‡ |y - reference| / (atol + rtol |reference|), largest over the states: the global \
         error in units of the local tolerance asked for."
    );

    // The default tableau's solve in detail.
    let run = &runs[0];
    let solution = &run.solution;
    println!();
    println!(
        "At t = {T_END:e} s ({}), against the reference (scipy LSODA, rtol 1e-12):",
        run.name
    );
    println!(
        "  {:<14}  {:>22}  {:>22}  {:>10}",
        "", "hysens", "reference", "rel. diff."
    );
    for (i, name) in robertson::X::NAMES.iter().enumerate() {
        let (ours, reference) = (solution.y[i], reference::Y_4E10[i]);
        println!(
            "  {name:<14}  {ours:>22.15e}  {reference:>22.15e}  {:>10.1e}",
            relative(ours, reference)
        );
    }
    for (i, name) in robertson::X::NAMES.iter().enumerate() {
        for (j, rate) in RATES.iter().enumerate() {
            let (ours, reference) = (run.s(i, j), reference::S_4E10[i][j]);
            println!(
                "  {:<14}  {ours:>22.15e}  {reference:>22.15e}  {:>10.1e}",
                format!("d{name}/d{rate}"),
                relative(ours, reference)
            );
        }
    }

    let verdict = against_reference(run);

    // The picture, and the conservation checks over the whole run, from a solve with
    // log-spaced samples.
    let mut times: Vec<f64> = (0..)
        .map(|k| 1e-6 * 10f64.powf(k as f64 / SAMPLES_PER_DECADE as f64))
        .take_while(|&t| t < T_END)
        .collect();
    times.push(T_END);
    let sampled = robertson::Model
        .solver()
        .tolerances(RTOL, ATOL)
        .sensitivities_to(Params::All, InitialStates::None)
        .samples(&times)
        .solve(0.0, T_END, &CLASSIC_Y0, &CLASSIC_RATES)?;
    let sample_s = |n: usize, i: usize, j: usize| {
        let of = robertson::X::NAMES[i];
        sampled
            .sample_sensitivity(n, of, RATES[j])
            .unwrap_or(f64::NAN)
    };
    let worst_mass = largest(
        sampled
            .samples
            .iter()
            .map(|s| s.y)
            .chain([solution.y])
            .map(|y| (y.iter().sum::<f64>() - 1.0).abs()),
    );
    // |Σ_i ∂y_i/∂k_j| over the run, relative to the largest |∂y_i/∂k_j| of the run: the
    // round-off of the sums does not decay with the sensitivities, so it is measured against
    // the largest value the column held.
    let n_samples = sampled.samples.len();
    let worst_sensitivity_sum = largest((0..3).map(|j| {
        let entries = (0..n_samples).flat_map(|n| (0..3).map(move |i| (n, i)));
        let peak = largest(entries.map(|(n, i)| sample_s(n, i, j).abs()));
        let sums = (0..n_samples).map(|n| (0..3).map(|i| sample_s(n, i, j)).sum::<f64>().abs());
        largest(sums) / peak
    }));
    println!();
    println!(
        "mass conservation: max |y1 + y2 + y3 - 1| = {worst_mass:.1e} (final state and the {} samples)",
        sampled.samples.len()
    );
    println!(
        "  and of the sensitivities: max_j |sum_i dy_i/dk_j| = {worst_sensitivity_sum:.1e} of the \
         largest |dy_i/dk_j| over the run"
    );
    // One segment per line: the model has no events.
    let curve = |value: &dyn Fn(usize) -> f64| {
        let points = sampled.samples.iter().enumerate();
        vec![points.map(|(n, s)| (s.t, value(n))).collect()]
    };
    let k = CLASSIC_RATES.to_array();
    // ∂ln y_i/∂ln k_j = (k_j / y_i) ∂y_i/∂k_j.
    let log_sensitivity =
        |i: usize, j: usize| curve(&|n| k[j] / sampled.samples[n].y[i] * sample_s(n, i, j));
    let mut y1_panel = Panel::new("∂ln y1/∂ln k (dimensionless)").legend(LegendAt::LowerLeft);
    let mut y2_panel = Panel::new("∂ln y2/∂ln k (dimensionless)").legend(LegendAt::LowerLeft);
    for (j, rate) in RATES.iter().enumerate() {
        y1_panel = y1_panel.line(format!("∂ln y1/∂ln {rate}"), log_sensitivity(0, j));
        y2_panel = y2_panel.line(format!("∂ln y2/∂ln {rate}"), log_sensitivity(1, j));
    }
    let path = Figure::new(
        "robertson",
        format!(
            "Robertson's kinetics, k = ({}, {:e}, {:e}), rtol {RTOL:e}, atol {ATOL:e}",
            CLASSIC_RATES.k1, CLASSIC_RATES.k2, CLASSIC_RATES.k3
        ),
        "time t (s), log scale",
    )
    .scale(Scale::Log)
    .panel(
        Panel::new("concentration (dimensionless)")
            .line("y1 (A)", curve(&|n| sampled.samples[n].y[0]))
            .line(
                "y2 × 10⁴ (B, scaled)",
                curve(&|n| 1e4 * sampled.samples[n].y[1]),
            )
            .line("y3 (C)", curve(&|n| sampled.samples[n].y[2]))
            .legend(LegendAt::MiddleLeft),
    )
    .panel(y1_panel)
    .panel(y2_panel)
    .save()?;
    println!("plot: {}", path.display());
    Ok(verdict.into_result()?)
}
